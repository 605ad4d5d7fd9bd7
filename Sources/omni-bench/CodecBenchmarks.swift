import OmniCodec

extension Benchmark {
    /// Parses a 1,000-element JSON array of small objects.
    static let jsonParse = Benchmark(name: "json-parse", defaultIterations: 200) {
        let items = (0..<1000).map { "{\"id\":\($0),\"name\":\"item \($0)\",\"ok\":true}" }
        let text = "[" + items.joined(separator: ",") + "]"
        return { _ = try? JSONValue.parse(text) }
    }
}

extension Benchmark {
    /// The JSON benchmark's 1,000 small objects as CBOR, decoded.
    static let cborDecode = Benchmark(name: "cbor-decode", defaultIterations: 200) {
        let encoded = try CBOR.array(sampleCBORItems()).encoded()
        return { _ = try? CBOR.decode(encoded) }
    }

    /// The same 1,000 objects encoded.
    static let cborEncode = Benchmark(name: "cbor-encode", defaultIterations: 200) {
        let value = CBOR.array(sampleCBORItems())
        return { _ = try? value.encoded() }
    }

    /// A certificate-shaped item (self-described, a hash tree of about 100 nodes with 32-byte labels and leaves, a
    /// 48-byte signature, a nested delegation certificate), 3.7 KB like the larger IC read_state certificates.
    static let cborDecodeCertificate = Benchmark(name: "cbor-decode-certificate", defaultIterations: 20_000) {
        let encoded = try sampleCertificate().encoded()
        return { _ = try? CBOR.decode(encoded) }
    }

    private static func sampleCBORItems() -> [CBOR] {
        (0..<1000).map { .map([("id", .integer(Int64($0))), ("name", .text("item \($0)")), ("ok", true)]) }
    }

    private static func sampleCertificate() throws -> CBOR {
        func blob(_ seed: Int) -> CBOR { .bytes((0..<32).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }) }
        func tree(_ depth: Int, _ seed: Int) -> CBOR {
            if depth == 0 { return [3, blob(seed)] }
            if seed % 7 == 0 { return [4, blob(seed)] }
            return [1, [2, blob(seed), tree(depth - 1, seed * 2 + 1)], tree(depth - 1, seed * 2 + 2)]
        }
        let delegation: CBOR = ["subnet_id": .bytes(Array(repeating: 7, count: 29)),
                                "certificate": .bytes(try CBOR.map([("tree", tree(4, 5)),
                                                                    ("signature", .bytes(Array(repeating: 9, count: 48)))])
                                                        .selfDescribed.encoded())]
        return CBOR.map([("tree", tree(6, 1)), ("signature", .bytes(Array(repeating: 1, count: 48))),
                         ("delegation", delegation)]).selfDescribed
    }
}
