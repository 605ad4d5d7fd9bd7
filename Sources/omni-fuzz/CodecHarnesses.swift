import OmniCodec

/// The shared codecs of OmniCodec: CBOR, JSON, TOML, DER, PEM.
let codecHarnesses: [Harness] = [cbor, json, toml, der, pem]

// MARK: - CBOR

private let cbor = Harness(
    "cbor",
    "CBOR.decode with the default, lenient, canonical and indefinite-preserving options; decode → encode → decode is the same value, canonical input re-encodes to itself",
    seeds: { sources in
        var seeds = [
            Seed("map", [0xa2, 0x61, 0x61, 0x01, 0x61, 0x62, 0x82, 0x02, 0x03]),
            Seed("indefinite", [0xbf, 0x63, 0x46, 0x75, 0x6e, 0xf5, 0x63, 0x41, 0x6d, 0x74, 0x9f, 0x5f, 0x41, 0x01, 0xff, 0x7f, 0x61, 0x78, 0xff, 0xff, 0xff]),
            Seed("floats", [0x84, 0xf9, 0x3c, 0x00, 0xfa, 0x47, 0xc3, 0x50, 0x00, 0xfb, 0x3f, 0xf1, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a, 0xf9, 0x7e, 0x00]),
            Seed("tags", [0xd9, 0xd9, 0xf7, 0xc2, 0x49, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]),
            Seed("simple", [0x85, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xff]),
        ]
        for (index, bytes) in VectorStrings.hex(sources.vectorJSON("ic/certificates.json"), keys: ["certificate_cbor_hex", "response_body_cbor_hex"]).enumerated() {
            seeds.append(Seed("ic-certificate-\(index)", bytes))
        }
        for (index, bytes) in VectorStrings.hex(sources.vectorJSON("ic/hash_tree.json"), keys: ["full_tree_cbor_hex", "pruned_tree_cbor_hex"]).enumerated() {
            seeds.append(Seed("ic-hash-tree-\(index)", bytes))
        }
        return seeds
    },
    parse: { bytes in (try? CBOR.decode(bytes)) != nil }
) { bytes in
    let strict = try? CBOR.decode(bytes)
    if let value = strict {
        let encoded = encodeOrFail(value, .default, "a decoded value")
        guard let again = try? CBOR.decode(encoded) else { FuzzCheck.fail("a re-encoded value does not decode") }
        FuzzCheck.require(again == value, "decode → encode → decode changed the value")
        FuzzCheck.require(encodeOrFail(again, .default, "the decoded re-encoding") == encoded, "encoding is not stable across a round trip")
        _ = value.diagnostic()
    }
    // Lenient reading accepts more; where strict reading succeeds it must read the same item.
    if let lenient = try? CBOR.decodePrefix(bytes, options: .lenient), let strict {
        FuzzCheck.require(lenient.item == strict && lenient.byteCount == bytes.count, "lenient and strict decoding disagree")
    }
    // Deterministic encoding is unique: canonical input must re-encode to exactly its own bytes.
    if let canonical = try? CBOR.decode(bytes, options: .canonical) {
        FuzzCheck.require(strict == canonical, "canonical and default decoding disagree")
        FuzzCheck.require(encodeOrFail(canonical, .canonical, "a canonical value") == bytes, "canonical input does not re-encode to itself")
    }
    // Indefinite-length items kept as such must survive the round trip with their structure.
    let preserving = CBORDecodingOptions(preserveIndefiniteLength: true)
    if let value = try? CBOR.decode(bytes, options: preserving) {
        FuzzCheck.require(strict == value, "preserving indefinite lengths changed the value")
        let encoded = encodeOrFail(value, .default, "an indefinite-preserving value")
        guard let again = try? CBOR.decode(encoded, options: preserving) else { FuzzCheck.fail("re-encoded indefinite items do not decode") }
        FuzzCheck.require(encodeOrFail(again, .default, "the re-decoded value") == encoded, "indefinite-length structure changed in a round trip")
    }
    _ = try? CBOR.decodeSequence(bytes)
}

private func encodeOrFail(_ value: CBOR, _ options: CBOREncodingOptions, _ what: String) -> [UInt8] {
    do { return try value.encoded(options: options) } catch { FuzzCheck.fail("\(what) does not encode: \(error)") }
}

// MARK: - JSON

private let json = Harness(
    "json",
    "JSONValue.parse (strict RFC 8259) and parseLines; parse → serialize (compact and pretty) → parse is the same value",
    seeds: { sources in
        var seeds = [
            Seed("object", text: #"{"a":[1,-2.5e10,true,false,null],"b":{"c":"\u00e9\ud83d\ude00\n"},"":0}"#),
            Seed("numbers", text: "[0,-0,1e-400,123456789012345678901234567890,0.1E+2]"),
            Seed("lines", text: "{\"x\":1}\n\n[2]\n\"three\"\n"),
        ]
        for file in sources.vectorFiles("", suffix: ".json").prefix(200) { seeds.append(Seed("vector-" + file.name, file.bytes)) }
        return seeds
    },
    parse: { bytes in (try? JSONValue.parse(bytes)) != nil }
) { bytes in
    if let value = try? JSONValue.parse(bytes) {
        for pretty in [false, true] {
            let text = value.serialized(pretty: pretty)
            guard let again = try? JSONValue.parse(text) else { FuzzCheck.fail("serialized JSON (pretty: \(pretty)) does not parse: \(text.prefix(200))") }
            FuzzCheck.require(again == value, "parse → serialize → parse changed the value (pretty: \(pretty))")
            FuzzCheck.require(again.serialized(pretty: pretty) == text, "serialization is not stable (pretty: \(pretty))")
        }
    }
    if let text = utf8Text(bytes), let lines = try? JSONValue.parseLines(text) {
        for line in lines { FuzzCheck.require((try? JSONValue.parse(line.serialized())) == line, "a JSON Lines value does not round-trip") }
    }
}

// MARK: - TOML

private let toml = Harness(
    "toml",
    "TOMLTable.parse of bytes and of text; both readings agree, and the JSON form serializes and parses back to itself",
    seeds: { _ in
        [
            Seed("config", text: """
                # omni configuration
                [profile.default]
                network = "ic"
                identity = "default"
                output = 'json'
                [profile.local]
                network = { url = "http://127.0.0.1:4943", root_key = "308182" }
                timeout = 30.5
                retries = 3
                """),
            Seed("kinds", text: """
                int = +1_000
                hex = 0xDEAD_beef
                oct = 0o755
                bin = 0b1101
                flt = [6.626e-34, -inf, nan, 1e+2]
                odt = 1979-05-27T07:32:00.999999-07:00
                ldt = 1979-05-27T00:32:00
                ld = 1979-05-27
                lt = 07:32:00.5
                str = \"\"\"
                  multi \\
                  line\"\"\"
                lit = '''
                raw\\n'''
                [[fruits]]
                name = "apple"
                [fruits.physical]
                color = "red"
                [[fruits]]
                name = "banana"
                a.b.c = { d = [1, [2, {e = 3}]] }
                """),
        ]
    },
    parse: { bytes in (try? TOMLTable.parse(bytes)) != nil }
) { bytes in
    guard let table = try? TOMLTable.parse(bytes) else { return }
    guard let text = utf8Text(bytes) else { FuzzCheck.fail("TOML bytes that are not UTF-8 parsed") }
    // Compared in the JSON form: TOML's nan is a value, Double's == says nan differs from itself.
    let json = TOMLValue.table(table).jsonValue
    FuzzCheck.require((try? TOMLTable.parse(text)).map { TOMLValue.table($0).jsonValue } == json, "TOML parsed from bytes and from text differ")
    FuzzCheck.require((try? JSONValue.parse(json.serialized())) == json, "the JSON form of a TOML document does not round-trip")
}

// MARK: - DER

private let der = Harness(
    "der",
    "DERReader over every element and nested constructed element (depth limit 16); re-encoding each element with DERWriter gives back exactly its bytes",
    seeds: { sources in
        var seeds = [
            Seed("sequence", [0x30, 0x0c, 0x02, 0x01, 0x01, 0x04, 0x02, 0xab, 0xcd, 0x05, 0x00, 0x01, 0x01, 0xff]),
            Seed("long-length", [0x04, 0x81, 0x80] + [UInt8](repeating: 0x5a, count: 128)),
            Seed("nested", [0x30, 0x08, 0x31, 0x06, 0xa0, 0x04, 0x30, 0x02, 0x05, 0x00]),
        ]
        for (index, bytes) in VectorStrings.hex(sources.vectorJSON("ic/keys.json"), keys: ["der_hex", "der_public_key_hex"]).enumerated() {
            seeds.append(Seed("ic-key-\(index)", bytes))
        }
        return seeds
    },
    parse: { bytes in
        // Every element and every constructed element's children, as a key reader descends (false on any error).
        func walk(_ reader: inout DERReader) -> Bool {
            while !reader.isAtEnd {
                guard let element = try? reader.readElement() else { return false }
                if element.tag & 0x20 != 0 {
                    guard var children = try? element.contents(), walk(&children) else { return false }
                }
            }
            return true
        }
        guard var reader = try? DERReader(bytes) else { return false }
        return walk(&reader)
    }
) { bytes in
    guard var reader = try? DERReader(bytes) else { return }
    var encoded: [UInt8] = []
    while !reader.isAtEnd {
        guard let element = try? reader.readElement() else { return }
        encoded += reencode(element)
    }
    FuzzCheck.require(encoded == bytes, "DER elements do not re-encode to the input")
}

/// The element's DER; constructed elements are rebuilt from their parsed children when those parse.
private func reencode(_ element: DERElement) -> [UInt8] {
    let plain = DERWriter.element(tag: element.tag, element.content)
    guard element.tag & 0x20 != 0, var children = try? element.contents() else { return plain }
    var content: [UInt8] = []
    while !children.isAtEnd {
        guard let child = try? children.readElement() else { return plain }
        content += reencode(child)
    }
    FuzzCheck.require(content == element.content, "the children of a constructed element do not re-encode to its content")
    return DERWriter.element(tag: element.tag, content)
}

// MARK: - PEM

private let pem = Harness(
    "pem",
    "PEM.blocks (RFC 7468, strict base64, no encrypted headers); every block re-encodes with PEM.encode and reads back the same",
    seeds: { sources in
        var seeds = [
            Seed("two-blocks", text: "text before\n-----BEGIN EC PARAMETERS-----\nBgUrgQQACg==\n-----END EC PARAMETERS-----\n"
                 + "-----BEGIN EC PRIVATE KEY-----\r\nMC4CAQEEIAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBoAcGBSuBBAAK\r\n-----END EC PRIVATE KEY-----\r\n"),
        ]
        for file in sources.vectorFiles("attest", suffix: ".pem") { seeds.append(Seed("vector-" + file.name, file.bytes)) }
        return seeds
    },
    parse: { bytes in utf8Text(bytes).flatMap { try? PEM.blocks(in: $0) } != nil }
) { bytes in
    guard let text = utf8Text(bytes), let blocks = try? PEM.blocks(in: text) else { return }
    for block in blocks {
        let encoded = PEM.encode(label: block.label, der: block.der)
        guard let again = try? PEM.blocks(in: encoded), again.count == 1 else { FuzzCheck.fail("a re-encoded PEM block does not read back") }
        FuzzCheck.require(again[0].label == block.label && again[0].der == block.der, "a PEM block changed in a round trip")
    }
}
