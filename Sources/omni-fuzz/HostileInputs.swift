import OmniCandid
import OmniCodec
import OmniTruAPI

/// The worst inputs each parser accepts or must refuse at its limits (deepest nesting, largest allowed size, most
/// elements), for `omni-fuzz hostile DIR` and the peak-memory table in docs/security.md (`Tests/Fuzz/measure-limits.sh`
/// runs each through `omni-fuzz run` under `/usr/bin/time -v`). Inputs carry each target's framing.
enum HostileInputs {
    static let all: [(target: String, cases: () -> [Seed])] = [
        ("cbor", cbor), ("json", json), ("toml", toml), ("der", der), ("pem", pem),
        ("candid-binary", candidBinary), ("candid-text", candidText), ("candid-did", candidInterface),
        ("ic-certificate", icCertificate), ("ic-hash-tree", icHashTree), ("ic-envelope", icEnvelope),
        ("ic-signed-request", icSignedRequest), ("ic-delegation-json", icDelegationJSON),
        ("scale", scale), ("truapi-frame", truapiFrame), ("truapi-message", truapiMessage),
        ("connect-frame", connectFrame), ("websocket-server", webSocketServer), ("http-request", httpRequest),
        ("attest-receipt", attestReceipt),
    ]

    private static func repeated(_ piece: String, _ count: Int) -> String { String(repeating: piece, count: count) }

    /// A CBOR head of `major` with `argument` in the 4-byte form.
    private static func cborHead(_ major: UInt8, _ argument: Int) -> [UInt8] {
        [major << 5 | 26, UInt8(argument >> 24 & 0xff), UInt8(argument >> 16 & 0xff), UInt8(argument >> 8 & 0xff), UInt8(argument & 0xff)]
    }

    // MARK: - Codecs

    static func cbor() -> [Seed] {
        let items = (1 << 20) - 1
        var pairs = cborHead(5, 1 << 19 - 1)
        for key in 0..<(1 << 19 - 1) { pairs += [0x1a, UInt8(key >> 24 & 0xff), UInt8(key >> 16 & 0xff), UInt8(key >> 8 & 0xff), UInt8(key & 0xff), 0x00] }
        let sixteen = 16 << 20
        return [
            Seed("depth-128", [UInt8](repeating: 0x81, count: 127) + [0x00]),
            Seed("depth-129-refused", [UInt8](repeating: 0x81, count: 129) + [0x00]),
            Seed("items-1M", cborHead(4, items - 1) + [UInt8](repeating: 0, count: items - 1)),
            Seed("map-512k-distinct-keys", pairs),
            Seed("string-16MiB", cborHead(2, sixteen) + [UInt8](repeating: 0x61, count: sixteen)),
            Seed("input-64MiB", [0x84] + (0..<4).flatMap { _ in cborHead(2, sixteen - 6) + [UInt8](repeating: 0x62, count: sixteen - 6) }),
            Seed("chunks-1M", [0x5f] + [UInt8](repeating: 0x40, count: items - 2) + [0xff]),
        ]
    }

    static func json() -> [Seed] {
        let sixtyFour = 64 << 20
        let elements = sixtyFour / 2 - 1
        return [
            Seed("depth-256", text: repeated("[", 256) + repeated("]", 256)),
            Seed("depth-257-refused", text: repeated("[", 257) + repeated("]", 257)),
            Seed("array-64MiB-of-zeros", text: "[" + repeated("0,", elements - 1) + "0]"),
            Seed("object-64MiB-of-members", text: "{" + (0..<(sixtyFour / 12)).map { "\"\(String($0, radix: 36))\":0" }.joined(separator: ",") + "}"),
            Seed("string-16MiB", text: "\"" + repeated("a", (16 << 20) - 1) + "\""),
            Seed("number-4096-digits", text: repeated("9", 4096)),
        ]
    }

    static func toml() -> [Seed] {
        let sixteen = 16 << 20
        return [
            Seed("depth-128", text: "a = " + repeated("[", 127) + repeated("]", 127)),
            Seed("array-16MiB-of-zeros", text: "a = [" + repeated("0,", sixteen / 2 - 4) + "]"),
            Seed("tables-16MiB", text: (0..<(sixteen / 12)).map { "[t\(String($0, radix: 36))]\n" }.joined()),
            Seed("string-16MiB", text: "a = \"" + repeated("b", sixteen - 8) + "\""),
        ]
    }

    static func der() -> [Seed] {
        var nested: [UInt8] = [0x05, 0x00]
        for _ in 0..<16 { nested = DERWriter.element(tag: 0x30, nested) }
        let flat = [UInt8]((0..<((1 << 20) / 2)).flatMap { _ in [UInt8(0x05), 0x00] })
        return [Seed("depth-16", nested), Seed("elements-512k", flat),
                Seed("octets-1MiB", DERWriter.element(tag: 0x04, [UInt8](repeating: 0x11, count: (1 << 20) - 6)))]
    }

    static func pem() -> [Seed] {
        let block = PEM.encode(label: "CERTIFICATE", der: [UInt8](repeating: 0x30, count: 12_000))
        let blocks = repeated(block, 256)
        let large = PEM.encode(label: "X", der: [UInt8](repeating: 0x30, count: 3 << 20 - 64))
        return [Seed("blocks-256", text: blocks), Seed("block-3MiB", text: large)]
    }

    // MARK: - Candid

    private static func candidMessage(types: [UInt8], arguments: [UInt8], values: [UInt8]) -> [UInt8] {
        Array("DIDL".utf8) + types + arguments + values
    }

    static func candidBinary() -> [Seed] {
        let million = 999_000
        // Table: entry 0 = vec bool (6d 7e), one argument of type 0, then the vector.
        let vecBool = candidMessage(types: [1, 0x6d, 0x7e], arguments: [1, 0], values: LEB128.encoded(UInt64(million)) + [UInt8](repeating: 1, count: million))
        // opt opt … opt null, 256 levels (the depth limit), as a chain of table entries.
        var chain: [UInt8] = LEB128.encoded(UInt64(256))
        for level in 0..<256 { chain += [0x6e] + (level == 255 ? [0x7f] : LEB128.encodedSigned(Int64(level + 1))) }
        let deep = candidMessage(types: chain, arguments: [1, 0], values: [UInt8](repeating: 1, count: 255) + [0])
        // A record type of 10 000 fields and a table of 10 000 entries (the per-type and table limits).
        var record: [UInt8] = [1, 0x6c] + LEB128.encoded(UInt64(10_000))
        for field in 0..<10_000 { record += LEB128.encoded(UInt64(field)) + [0x7f] }
        let wide = candidMessage(types: record, arguments: [1, 0], values: [])
        var table: [UInt8] = LEB128.encoded(UInt64(10_000))
        for _ in 0..<10_000 { table += [0x6d, 0x7e] }
        let entries = candidMessage(types: table, arguments: [1, 0], values: [0])
        let blob = candidMessage(types: [1, 0x6d, 0x7b], arguments: [1, 0], values: LEB128.encoded(UInt64(10 << 20)) + [UInt8](repeating: 7, count: 10 << 20))
        let bigNat = candidMessage(types: [0], arguments: [1, 0x7d], values: [UInt8](repeating: 0xff, count: 1023) + [0x7f])
        return [Seed("vec-bool-999k", vecBool), Seed("opt-depth-256", deep), Seed("record-10000-fields", wide), Seed("table-10000-entries", entries),
                Seed("blob-10MiB", blob), Seed("nat-1024-bytes", bigNat)]
    }

    static func candidText() -> [Seed] {
        let sixteen = 16 << 20
        return [
            Seed("vec-16MiB-of-zeros", text: "(vec {" + repeated("0;", sixteen / 2 - 8) + "})"),
            Seed("depth-256", text: "(" + repeated("opt ", 255) + "null)"),
            Seed("text-16MiB", text: "(\"" + repeated("z", sixteen - 8) + "\")"),
            Seed("record-16MiB-of-fields", text: "(record {" + (0..<(sixteen / 12)).map { "f\($0)=0;" }.joined() + "})"),
        ]
    }

    static func candidInterface() -> [Seed] {
        let sixteen = 16 << 20
        return [
            Seed("types-16MiB", text: (0..<(sixteen / 24)).map { "type T\($0) = opt T\($0 + 1);\n" }.joined() + "type T\(sixteen / 24) = null;"),
            Seed("methods-10000", text: "service : {\n" + (0..<10_000).map { "  m\($0) : (record { a : nat; b : vec text }) -> (opt nat) query;\n" }.joined() + "}"),
        ]
    }

    // MARK: - IC

    /// A balanced fork tree of 2^17 labelled leaves: near the certificate's 1 Mi item limit.
    private static func wideTree() -> HashTreeBytes {
        var level: [CBOR] = (0..<(1 << 17)).map { index in
            .array([2, .bytes([UInt8(index >> 16), UInt8(index >> 8 & 0xff), UInt8(index & 0xff)]), .array([3, .bytes([1])])])
        }
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: 2).map { .array([1, level[$0], level[$0 + 1]]) }
        }
        return HashTreeBytes(tree: level[0])
    }

    private struct HashTreeBytes {
        let tree: CBOR
        var bytes: [UInt8] { (try? tree.encoded()) ?? [] }
    }

    static func icHashTree() -> [Seed] {
        var deep: CBOR = .array([3, .bytes([])])
        for _ in 0..<95 { deep = .array([2, .bytes([0x61]), deep]) }
        return [Seed("leaves-128k", wideTree().bytes), Seed("depth-192", (try? deep.encoded()) ?? []),
                Seed("leaf-10MiB", (try? CBOR.array([3, .bytes([UInt8](repeating: 1, count: (10 << 20) - 16))]).encoded()) ?? [])]
    }

    static func icCertificate() -> [Seed] {
        func certificate(_ tree: CBOR) -> [UInt8] {
            (try? CBOR.map([("tree", tree), ("signature", .bytes([UInt8](repeating: 0, count: 48)))]).selfDescribed.encoded()) ?? []
        }
        return [Seed("leaves-128k", certificate(wideTree().tree)),
                Seed("leaf-10MiB", certificate(.array([3, .bytes([UInt8](repeating: 1, count: (10 << 20) - 80))])))]
    }

    static func icEnvelope() -> [Seed] {
        let content = CBOR.map([("request_type", "call"), ("sender", .bytes([4])), ("ingress_expiry", .unsigned(1)),
                                ("canister_id", .bytes([0, 0, 0, 0, 0, 0, 0, 2, 1, 1])), ("method_name", "m"),
                                ("arg", .bytes([UInt8](repeating: 0x44, count: (10 << 20) - 200)))])
        return [Seed("arg-10MiB", (try? CBOR.map([("content", content)]).selfDescribed.encoded()) ?? [])]
    }

    static func icSignedRequest() -> [Seed] {
        let content = CBOR.map([("request_type", "call"), ("sender", .bytes([4])), ("ingress_expiry", .unsigned(1)),
                                ("canister_id", .bytes([0, 0, 0, 0, 0, 0, 0, 2, 1, 1])), ("method_name", "m"),
                                ("arg", .bytes([UInt8](repeating: 0x44, count: (8 << 20) - 600)))])
        let envelope = (try? CBOR.map([("content", content)]).selfDescribed.encoded()) ?? []
        let text = "{\"format\":\"omni-ic-signed-request\",\"version\":1,\"effective_canister_id\":\"ryjl3-tyaaa-aaaaa-aaaba-cai\",\"envelope\":\""
            + Hex.encode(envelope) + "\"}"
        return [Seed("envelope-16MiB-hex", text: text)]
    }

    static func icDelegationJSON() -> [Seed] {
        let link = "{\"delegation\":{\"pubkey\":\"302a300506032b6570032100" + repeated("11", 32) + "\",\"expiration\":\"ffffffffffffffff\",\"targets\":["
            + repeated("\"00000000000000020101\",", 999) + "\"00000000000000020101\"]},\"signature\":\"" + repeated("22", 64) + "\"}"
        return [Seed("chain-20-links-1000-targets", text: "{\"publicKey\":\"302a300506032b6570032100" + repeated("33", 32) + "\",\"delegations\":["
                     + Array(repeating: link, count: 20).joined(separator: ",") + "]}")]
    }

    // MARK: - SCALE and TrUAPI

    /// `v01::RingLocation { chain_id: [u8; 32], junctions: Vec<RingLocationJunction> }`, every junction the 2-byte
    /// `PalletInstance(u8)`: 4 Mi values in one 8 MiB input.
    static func scale() -> [Seed] {
        let names = TruAPITypes.registry.names
        guard let index = names.firstIndex(of: "v01::RingLocation") else { return [] }
        let count = ((8 << 20) - 64) / 2
        var writer = SCALEWriter()
        writer.raw([UInt8](repeating: 0, count: 32))
        writer.compact(UInt128(count))
        writer.raw([UInt8](repeating: 0, count: 2 * count))
        return [Seed("vector-4Mi-junctions", [UInt8(index >> 8), UInt8(index & 0xff)] + writer.bytes)]
    }

    static func truapiFrame() -> [Seed] {
        [Seed("frame-8MiB", TruAPIFrame(requestID: String(repeating: "r", count: 1 << 20), discriminant: 0,
                                        payload: [UInt8](repeating: 0, count: (7 << 20) - 64)).bytes)]
    }

    static func truapiMessage() -> [Seed] {
        // A request whose payload is one large byte vector is the largest value a frame can carry; the host's
        // frames with vectors of small enums are in the `scale` case.
        var writer = SCALEWriter()
        writer.string("p:1")
        writer.u8(0)
        writer.raw([UInt8](repeating: 0, count: (8 << 20) - 16))
        return [Seed("frame-8MiB-trailing", writer.bytes)]
    }

    // MARK: - Connect, transport, attest

    static func connectFrame() -> [Seed] {
        [Seed("frame-64000", [0] + [UInt8](repeating: 0xff, count: 64_000))]
    }

    static func webSocketServer() -> [Seed] {
        // 16 Mi frames of 1-byte pings would be 16 Mi events; the harness reads 64 KiB messages, so the worst
        // stream is many small frames: 8 MiB of 6-byte masked pings.
        let ping: [UInt8] = [0x89, 0x80, 1, 2, 3, 4]
        return [Seed("pings-8MiB", [15] + (0..<((8 << 20) / 6)).flatMap { _ in ping })]
    }

    static func httpRequest() -> [Seed] {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4096\r\n\r\n" + repeated("x", 4096)
        return [Seed("pipelined-8MiB", text: "\u{f}" + repeated(head, (8 << 20) / head.utf8.count))]
    }

    static func attestReceipt() -> [Seed] {
        [Seed("cms-1MiB", [UInt8](repeating: 0, count: 10) + [0x30, 0x83, 0x0f, 0xff, 0xf0] + [UInt8](repeating: 0x30, count: (1 << 20) - 32))]
    }
}
