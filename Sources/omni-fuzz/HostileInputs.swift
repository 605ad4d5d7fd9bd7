import OmniCandid
import OmniCodec
import OmniConnect
import OmniIC
import OmniTransport
import OmniTruAPI

/// The worst inputs of each parser's limits, for `omni-fuzz hostile DIR` and the peak-memory table in
/// docs/security.md (`Tests/Fuzz/measure-limits.sh` runs each through `omni-fuzz run --parse-only` under
/// `/usr/bin/time`). Names say which limit and whether the input sits at it (`-at`: the most the parser accepts,
/// what the table measures) or just past it (`-over`: must be refused). Inputs carry each target's framing.
enum HostileInputs {
    static let all: [(target: String, cases: () -> [Seed])] = [
        ("cbor", cbor), ("json", json), ("toml", toml), ("der", der), ("pem", pem),
        ("candid-binary", candidBinary), ("candid-text", candidText), ("candid-did", candidInterface),
        ("ic-certificate", icCertificate), ("ic-hash-tree", icHashTree), ("ic-envelope", icEnvelope),
        ("ic-signed-request", icSignedRequest), ("ic-delegation-json", icDelegationJSON),
        ("scale", scale), ("truapi-frame", truapiFrame), ("truapi-message", truapiMessage),
        ("connect-frame", connectFrame), ("websocket-server", webSocketServer), ("http-request", httpRequest),
        ("attest-receipt", attestReceipt), ("openapi", openapi), ("schema-pattern", schemaPattern),
    ]

    private static func repeated(_ piece: String, _ count: Int) -> String { String(repeating: piece, count: max(0, count)) }

    /// A CBOR head of `major` with `argument` in the 4-byte form.
    private static func cborHead(_ major: UInt8, _ argument: Int) -> [UInt8] {
        [major << 5 | 26, UInt8(argument >> 24 & 0xff), UInt8(argument >> 16 & 0xff), UInt8(argument >> 8 & 0xff), UInt8(argument & 0xff)]
    }

    private static func encoded(_ value: CBOR) -> [UInt8] { (try? value.encoded()) ?? [] }

    // MARK: - Codecs

    /// Default options: 32 MiB input, depth 128, 1 Mi items, 16 MiB strings.
    static func cbor() -> [Seed] {
        let items = 1 << 20
        func array(_ count: Int) -> [UInt8] { cborHead(4, count - 1) + [UInt8](repeating: 0, count: count - 1) }
        func map(_ pairs: Int) -> [UInt8] {
            var bytes = cborHead(5, pairs)
            for key in 0..<pairs { bytes += [0x1a, UInt8(key >> 24 & 0xff), UInt8(key >> 16 & 0xff), UInt8(key >> 8 & 0xff), UInt8(key & 0xff), 0x00] }
            return bytes
        }
        let sixteen = 16 << 20
        func strings(_ total: Int) -> [UInt8] {
            [0x82] + (0..<2).flatMap { _ in cborHead(2, total / 2 - 6) + [UInt8](repeating: 0x62, count: total / 2 - 6) }
        }
        return [
            Seed("depth-128-at", [UInt8](repeating: 0x81, count: 127) + [0x00]),
            Seed("depth-128-over", [UInt8](repeating: 0x81, count: 129) + [0x00]),
            Seed("items-1Mi-at", array(items)),
            Seed("items-1Mi-over", array(items + 1)),
            Seed("map-512Ki-distinct-keys-at", map(items / 2 - 1)),
            Seed("string-16MiB-at", cborHead(2, sixteen) + [UInt8](repeating: 0x61, count: sixteen)),
            Seed("string-16MiB-over", cborHead(2, sixteen + 1) + [UInt8](repeating: 0x61, count: sixteen + 1)),
            Seed("input-32MiB-at", strings(32 << 20)),
            Seed("input-32MiB-over", strings((32 << 20) + 2)),
            Seed("chunks-1Mi-at", [0x5f] + [UInt8](repeating: 0x40, count: items - 2) + [0xff]),
        ]
    }

    /// Default limits: 64 MiB, depth 256, 1 Mi values (keys count), 16 MiB strings, 4096-digit numbers.
    static func json() -> [Seed] {
        let values = 1 << 20
        func array(_ count: Int) -> String { "[" + repeated("0,", count - 2) + "0]" }
        func object(_ members: Int) -> String {
            "{" + (0..<members).map { "\"\(String($0, radix: 36))\":0" }.joined(separator: ",") + "}"
        }
        return [
            Seed("depth-256-at", text: repeated("[", 256) + repeated("]", 256)),
            Seed("depth-256-over", text: repeated("[", 257) + repeated("]", 257)),
            Seed("values-1Mi-at", text: array(values)),
            Seed("values-1Mi-over", text: array(values + 1)),
            Seed("members-512Ki-at", text: object((values - 1) / 2)),
            Seed("members-512Ki-over", text: object(values / 2 + 1)),
            Seed("string-16MiB-at", text: "\"" + repeated("a", 16 << 20) + "\""),
            Seed("numbers-4096-digits-at", text: "[" + repeated(repeated("9", 4096) + ",", 8_000) + "0]"),
            Seed("number-4096-digits-over", text: repeated("9", 4097)),
        ]
    }

    /// Default limits: 16 MiB, depth 128, 64 Ki values and key parts.
    static func toml() -> [Seed] {
        let values = 1 << 16
        return [
            Seed("depth-128-at", text: "a = " + repeated("[", 127) + repeated("]", 127)),
            Seed("depth-128-over", text: "a = " + repeated("[", 129) + repeated("]", 129)),
            Seed("values-64Ki-at", text: "a = [" + repeated("0,", values - 2) + "]"),
            Seed("values-64Ki-over", text: "a = [" + repeated("0,", values) + "]"),
            Seed("tables-64Ki-at", text: (0..<(values - 1)).map { "[t\(String($0, radix: 36))]\n" }.joined()),
            Seed("string-16MiB-at", text: "a = \"" + repeated("b", (16 << 20) - 8) + "\""),
            Seed("string-16MiB-over", text: "a = \"" + repeated("b", 16 << 20) + "\""),
        ]
    }

    /// Default limits: 1 MiB, depth 16.
    static func der() -> [Seed] {
        func nested(_ depth: Int) -> [UInt8] {
            var bytes: [UInt8] = [0x05, 0x00]
            for _ in 0..<depth { bytes = DERWriter.element(tag: 0x30, bytes) }
            return bytes
        }
        return [Seed("depth-16-at", nested(16)), Seed("depth-16-over", nested(18)),
                Seed("elements-512Ki-at", [UInt8]((0..<((1 << 20) / 2)).flatMap { _ in [UInt8(0x05), 0x00] })),
                Seed("input-1MiB-at", DERWriter.element(tag: 0x04, [UInt8](repeating: 0x11, count: (1 << 20) - 6))),
                Seed("input-1MiB-over", DERWriter.element(tag: 0x04, [UInt8](repeating: 0x11, count: 1 << 20)))]
    }

    /// 4 MiB of text, 256 blocks.
    static func pem() -> [Seed] {
        let block = PEM.encode(label: "CERTIFICATE", der: [UInt8](repeating: 0x30, count: 12_000))
        return [Seed("blocks-256-at", text: repeated(block, 256)), Seed("blocks-256-over", text: repeated(block, 257)),
                Seed("input-4MiB-at", text: PEM.encode(label: "X", der: [UInt8](repeating: 0x30, count: 3_090_000)))]
    }

    // MARK: - Candid

    private static func candidMessage(types: [UInt8], arguments: [UInt8], values: [UInt8]) -> [UInt8] {
        Array("DIDL".utf8) + types + arguments + values
    }

    /// Default limits: work budget 1 M, depth 256, 10 000 table entries and fields, 1024-byte numbers.
    static func candidBinary() -> [Seed] {
        func vecBool(_ count: Int) -> [UInt8] {
            candidMessage(types: [1, 0x6d, 0x7e], arguments: [1, 0], values: LEB128.encoded(UInt64(count)) + [UInt8](repeating: 1, count: count))
        }
        func optChain(_ levels: Int) -> [UInt8] {
            var chain: [UInt8] = LEB128.encoded(UInt64(levels))
            for level in 0..<levels { chain += [0x6e] + (level == levels - 1 ? [0x7f] : LEB128.encodedSigned(Int64(level + 1))) }
            return candidMessage(types: chain, arguments: [1, 0], values: [UInt8](repeating: 1, count: levels - 1) + [0])
        }
        func record(_ fields: Int) -> [UInt8] {
            var table: [UInt8] = [1, 0x6c] + LEB128.encoded(UInt64(fields))
            for field in 0..<fields { table += LEB128.encoded(UInt64(field)) + [0x7f] }
            return candidMessage(types: table, arguments: [1, 0], values: [])
        }
        func entries(_ count: Int) -> [UInt8] {
            var table: [UInt8] = LEB128.encoded(UInt64(count))
            for _ in 0..<count { table += [0x6d, 0x7e] }
            return candidMessage(types: table, arguments: [1, 0], values: [0])
        }
        // A vector of 499 990 records of two texts: the most values the budget allows with the most allocations each.
        let records = 249_000
        let recordTexts = candidMessage(types: [2, 0x6d, 1, 0x6c, 2, 0, 0x71, 1, 0x71], arguments: [1, 0],
                                        values: LEB128.encoded(UInt64(records)) + [UInt8](repeating: 0, count: 2 * records))
        return [Seed("vector-values-at", vecBool(499_990)), Seed("vector-values-over", vecBool(500_010)),
                Seed("records-of-texts-at", recordTexts),
                Seed("depth-256-at", optChain(255)), Seed("depth-256-over", optChain(258)),
                Seed("fields-10000-at", record(10_000)), Seed("fields-10000-over", record(10_001)),
                Seed("table-10000-at", entries(10_000)), Seed("table-10000-over", entries(10_001)),
                Seed("blob-10MiB-at", candidMessage(types: [1, 0x6d, 0x7b], arguments: [1, 0],
                                                    values: LEB128.encoded(UInt64(10 << 20)) + [UInt8](repeating: 7, count: 10 << 20))),
                Seed("nat-1024-bytes-at", candidMessage(types: [0], arguments: [1, 0x7d], values: [UInt8](repeating: 0xff, count: 1023) + [0x7f])),
                Seed("nat-1024-bytes-over", candidMessage(types: [0], arguments: [1, 0x7d], values: [UInt8](repeating: 0xff, count: 1024) + [0x7f]))]
    }

    /// Default limits: 512 Ki tokens, depth 256, 10 000 fields, 1000 arguments.
    static func candidText() -> [Seed] {
        let tokens = 1 << 19
        return [
            Seed("tokens-512Ki-at", text: "(vec {" + repeated("0;", (tokens - 6) / 2) + "})"),
            Seed("tokens-512Ki-over", text: "(vec {" + repeated("0;", tokens / 2) + "})"),
            Seed("depth-256-at", text: "(" + repeated("opt ", 255) + "null)"),
            Seed("depth-256-over", text: "(" + repeated("opt ", 257) + "null)"),
            Seed("text-16MiB-at", text: "(\"" + repeated("z", (16 << 20) - 8) + "\")"),
            Seed("fields-10000-at", text: "(record {" + (0..<10_000).map { "f\($0)=\"\($0)\";" }.joined() + "})"),
            Seed("fields-10000-over", text: "(record {" + (0..<10_001).map { "f\($0)=0;" }.joined() + "})"),
            Seed("arguments-1000-over", text: "(" + repeated("0,", 1_001) + ")"),
        ]
    }

    /// Default limits: 512 Ki tokens, 10 000 definitions, 10 000 methods.
    static func candidInterface() -> [Seed] {
        func chain(_ count: Int) -> String { (0..<count).map { "type T\($0) = opt vec T\(max(0, $0 - 1));\n" }.joined() }
        func methods(_ count: Int) -> String {
            "service : {\n" + (0..<count).map { "  m\($0) : (record { a : nat; b : vec text }) -> (opt nat) query;\n" }.joined() + "}"
        }
        return [Seed("definitions-10000-at", text: chain(10_000)), Seed("definitions-10000-over", text: chain(10_001)),
                Seed("methods-10000-at", text: methods(10_000)), Seed("methods-10000-over", text: methods(10_001)),
                Seed("records-tokens-at", text: (0..<5_000).map { "type R\($0) = record { " + (0..<10).map { "f\($0) : vec opt text" }.joined(separator: "; ") + " };\n" }.joined())]
    }

    // MARK: - IC

    /// A balanced fork tree of `leaves` labelled leaves (8 items per leaf).
    private static func wideTree(_ leaves: Int) -> CBOR {
        var level: [CBOR] = (0..<leaves).map { index in
            .array([2, .bytes([UInt8(index >> 16), UInt8(index >> 8 & 0xff), UInt8(index & 0xff)]), .array([3, .bytes([1])])])
        }
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: 2).map { $0 + 1 < level.count ? .array([1, level[$0], level[$0 + 1]]) : level[$0] }
        }
        return level[0]
    }

    /// Certificate limits: 10 MiB, depth 192, 256 Ki items.
    static func icHashTree() -> [Seed] {
        func deep(_ depth: Int) -> [UInt8] {
            var tree: CBOR = .array([3, .bytes([])])
            for _ in 0..<depth { tree = .array([2, .bytes([0x61]), tree]) }
            return encoded(tree)
        }
        return [Seed("items-256Ki-at", encoded(wideTree(32_768))), Seed("items-256Ki-over", encoded(wideTree(32_769))),
                Seed("depth-192-at", deep(191)), Seed("depth-192-over", deep(192)),
                Seed("input-10MiB-at", encoded(.array([3, .bytes([UInt8](repeating: 1, count: (10 << 20) - 16))])))]
    }

    static func icCertificate() -> [Seed] {
        func certificate(_ tree: CBOR) -> [UInt8] {
            encoded(CBOR.map([("tree", tree), ("signature", .bytes([UInt8](repeating: 0, count: 48)))]).selfDescribed)
        }
        return [Seed("items-256Ki-at", certificate(wideTree(32_767))), Seed("items-256Ki-over", certificate(wideTree(32_769))),
                Seed("input-10MiB-at", certificate(.array([3, .bytes([UInt8](repeating: 1, count: (10 << 20) - 80))])))]
    }

    private static func callEnvelope(argBytes: Int) -> [UInt8] {
        let content = CBOR.map([("request_type", "call"), ("sender", .bytes([4])), ("ingress_expiry", .unsigned(1)),
                                ("canister_id", .bytes([0, 0, 0, 0, 0, 0, 0, 2, 1, 1])), ("method_name", "m"),
                                ("arg", .bytes([UInt8](repeating: 0x44, count: argBytes)))])
        return encoded(CBOR.map([("content", content)]).selfDescribed)
    }

    /// 10 MiB envelopes.
    static func icEnvelope() -> [Seed] {
        [Seed("input-10MiB-at", callEnvelope(argBytes: (10 << 20) - 200))]
    }

    /// 16 MiB files: the envelope and its argument (mirrored for reading) both in hex.
    static func icSignedRequest() -> [Seed] {
        func file(_ argBytes: Int) -> String {
            guard let canister = try? Principal(text: "ryjl3-tyaaa-aaaaa-aaaba-cai"),
                  let file = try? SignedRequestFile(envelopeBytes: callEnvelope(argBytes: argBytes), effectiveCanisterID: canister) else { return "" }
            return file.text
        }
        return [Seed("input-16MiB-at", text: file((4 << 20) - 2048)), Seed("input-16MiB-over", text: file(4 << 20))]
    }

    /// 1 MiB, depth 16, 20 delegations, 1000 targets each.
    static func icDelegationJSON() -> [Seed] {
        let link = "{\"delegation\":{\"pubkey\":\"302a300506032b6570032100" + repeated("11", 32) + "\",\"expiration\":\"ffffffffffffffff\",\"targets\":["
            + repeated("\"00000000000000020101\",", 999) + "\"00000000000000020101\"]},\"signature\":\"" + repeated("22", 64) + "\"}"
        func chain(_ links: Int) -> String {
            "{\"publicKey\":\"302a300506032b6570032100" + repeated("33", 32) + "\",\"delegations\":[" + Array(repeating: link, count: links).joined(separator: ",") + "]}"
        }
        return [Seed("delegations-20-targets-1000-at", text: chain(20)), Seed("delegations-20-over", text: chain(21))]
    }

    // MARK: - SCALE and TrUAPI

    /// `v01::RingLocation { chain_id: [u8; 32], junctions: Vec<RingLocationJunction> }` with `count` junctions, each
    /// the 2-byte `PalletInstance(u8)` (two values: the variant and its integer).
    private static func ringLocation(junctions count: Int) -> [UInt8] {
        guard let index = TruAPITypes.registry.names.firstIndex(of: "v01::RingLocation") else { return [] }
        var writer = SCALEWriter()
        writer.raw([UInt8](repeating: 0, count: 32))
        writer.compact(UInt128(count))
        writer.raw([UInt8](repeating: 0, count: 2 * count))
        return [UInt8(index >> 8), UInt8(index & 0xff)] + writer.bytes
    }

    /// 8 MiB, depth 64, 1 Mi values.
    static func scale() -> [Seed] {
        let values = 1 << 20
        return [Seed("values-1Mi-at", ringLocation(junctions: (values - 4) / 2)), Seed("values-1Mi-over", ringLocation(junctions: values / 2))]
    }

    static func truapiFrame() -> [Seed] {
        [Seed("frame-8MiB-at", TruAPIFrame(requestID: String(repeating: "r", count: 1 << 20), discriminant: 0,
                                           payload: [UInt8](repeating: 0, count: (8 << 20) - (1 << 20) - 8)).bytes),
         Seed("frame-8MiB-over", TruAPIFrame(requestID: "p:1", discriminant: 0, payload: [UInt8](repeating: 0, count: 8 << 20)).bytes)]
    }

    static func truapiMessage() -> [Seed] {
        var writer = SCALEWriter()
        writer.string("p:1")
        writer.u8(0)
        writer.raw([UInt8](repeating: 0, count: (8 << 20) - 16))
        return [Seed("frame-8MiB-trailing-at", writer.bytes)]
    }

    // MARK: - Connect, transport, attest

    /// Frames of 64 000 bytes (Torii's limit): a ciphertext filling them.
    static func connectFrame() -> [Seed] {
        let codec = ConnectCodec(generation: .genA)
        func frame(_ aead: Int) -> [UInt8] {
            [0] + codec.encode(ConnectFrame(sid: [UInt8](repeating: 7, count: 32), direction: .appToWallet, sequence: 1,
                                            kind: .ciphertext(ConnectCiphertext(direction: .appToWallet, aead: [UInt8](repeating: 1, count: aead)))))
        }
        let overhead = frame(0).count - 1
        return [Seed("frame-64000-at", frame(64_000 - overhead)), Seed("frame-64000-over", frame(64_001 - overhead))]
    }

    /// The connection's 16 MiB message limit: one message in 4 KiB fragments, and 8 MiB of 6-byte pings.
    static func webSocketServer() -> [Seed] {
        let limit = WebSocketConnection.Options().maxMessageBytes
        let fragment = [UInt8](repeating: 0x41, count: 4096)
        var message: [UInt8] = []
        for index in 0..<(limit / fragment.count) {
            message += WebSocketFrameEncoder.frame(opcode: index == 0 ? .binary : .continuation, fin: index == limit / fragment.count - 1,
                                                   payload: fragment, mask: 0x0102_0304)
        }
        let ping: [UInt8] = [0x89, 0x80, 1, 2, 3, 4]
        return [Seed("message-16MiB-at", [0] + message),
                Seed("message-16MiB-over", [0] + message.dropLast(4096 + 8) + WebSocketFrameEncoder.frame(opcode: .continuation, payload: fragment + [1], mask: 1)),
                Seed("pings-8MiB-at", [0] + (0..<((8 << 20) / 6)).flatMap { _ in ping })]
    }

    /// The server's defaults: 16 KiB heads, 100 fields, 1 MiB bodies.
    static func httpRequest() -> [Seed] {
        let fields = (0..<99).map { "X-\($0): " + repeated("v", 150) + "\r\n" }.joined()
        return [Seed("head-16KiB-100-fields-at", text: "\u{0}GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n"),
                Seed("body-1MiB-chunked-at", text: "\u{0}POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                     + repeated("400\r\n" + repeated("x", 1024) + "\r\n", 1024) + "0\r\n\r\n"),
                Seed("body-1MiB-over", text: "\u{0}POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n")]
    }

    static func attestReceipt() -> [Seed] {
        [Seed("cms-1MiB-at", [UInt8](repeating: 0, count: 10) + [0x30, 0x83, 0x0f, 0xff, 0xf0] + [UInt8](repeating: 0x30, count: (1 << 20) - 32))]
    }

    /// Default limits: 32 MiB, depth 128, 100 000 schemas, 500 000 `$ref` resolutions, 10 000 operations (and the
    /// JSON reader's 1 Mi values).
    static func openapi() -> [Seed] {
        func document(paths: String = "{}", schemas: String = "{}") -> String {
            ##"{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":\##(paths),"components":{"schemas":\##(schemas)}}"##
        }
        func operations(_ count: Int) -> String { "{" + (0..<count).map { ##""/\##($0)":{"get":{"responses":{}}}"## }.joined(separator: ",") + "}" }
        func schemas(_ count: Int) -> String { "{" + (0..<count).map { ##""\##($0)":{}"## }.joined(separator: ",") + "}" }
        func references(_ count: Int) -> String {
            ##"{"A":{},"## + (0..<count).map { ##""\##($0)":{"$ref":"#/components/schemas/A"}"## }.joined(separator: ",") + "}"
        }
        // A schema's JSON path is components, schemas, A and two more per nested property: 62 levels are 127
        // components, 63 are 129, past the depth limit of 128.
        func chain(_ links: Int) -> String {
            "{" + (0..<links).map { index in
                ##""S\##(index)":{"type":"object""## + (index < links - 1 ? ##","allOf":[{"$ref":"#/components/schemas/S\##(index + 1)"}]"## : "") + "}"
            }.joined(separator: ",") + "}"
        }
        func nested(_ levels: Int) -> String { ##"{"A":"## + repeated(##"{"properties":{"p":"##, levels) + "{}" + repeated("}}", levels) + "}" }
        return [
            Seed("operations-10000-at", text: document(paths: operations(10_000))),
            Seed("operations-10000-over", text: document(paths: operations(10_001))),
            Seed("schemas-50000-at", text: document(schemas: schemas(50_000))),
            Seed("schemas-50000-over", text: document(schemas: schemas(50_001))),
            Seed("references-100000-at", text: document(schemas: references(100_000))),
            Seed("references-100000-over", text: document(schemas: references(100_001))),
            Seed("schema-nesting-62-at", text: document(schemas: nested(62))),
            Seed("schema-nesting-63-over", text: document(schemas: nested(63))),
            // A chain of allOf $refs nests the reading two schemas a link with short paths: 64 links reach depth 127.
            Seed("ref-chain-64-at", text: document(schemas: chain(64))),
            Seed("ref-chain-65-over", text: document(schemas: chain(65))),
        ]
    }

    /// A pattern, a NUL, a text. Default limits: 4096 characters of pattern, 20 000 automaton states, groups 64 deep;
    /// the validator's 20 M steps for the search.
    static func schemaPattern() -> [Seed] {
        let text = "\u{0}" + repeated("a", 1 << 20)
        return [
            Seed("states-20000-at", text: "a{19999}b" + text),
            Seed("states-20000-over", text: "a{20000}b" + text),
            Seed("source-4096-at", text: repeated("a", 4095) + "b" + text),
            Seed("source-4096-over", text: repeated("a", 4096) + "b" + text),
            Seed("nesting-64-at", text: repeated("(", 64) + "a" + repeated(")", 64) + text),
            Seed("nesting-64-over", text: repeated("(", 65) + "a" + repeated(")", 65) + text),
            Seed("catastrophic-text-16-MiB", text: "^(a+)+$" + "\u{0}" + repeated("a", 16 << 20) + "!"),
        ]
    }
}
