import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// `omni truapi …` through the real binary: the wire table, frames to JSON and back, the error contract, and the
/// independent scalecodec peer (Tests/Peers/truapi_peer.py) round-tripping random values of every request type.
@Suite(.serialized, .offPool) struct TruAPIEndToEndTests {
    static func truapi(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
        try Omni.run(["truapi"] + arguments, stdin: stdin)
    }

    @Test func methodsListsTheWholeTableAsJSONAndText() throws {
        let json = try Self.truapi(["methods", "--output", "json"])
        #expect(json.status == 0, "\(json.stderrText)")
        let parsed = try JSONValue.parse(json.stdoutText)
        #expect(parsed["methods"]?.arrayValue?.count == 69)
        #expect(parsed["protocol"]?.stringValue == "0.9")
        let first = try #require(parsed["methods"]?.arrayValue?.first)
        #expect(first["method"]?.stringValue == "system_handshake" && first["ids"]?["response_id"]?.int64Value == 1)
        let text = try Self.truapi(["methods", "chain_get", "--kind", "request"])
        let lines = text.stdoutText.split(separator: "\n")
        #expect(lines.count == 7, "\(text.stdoutText)")   // header-less when piped: one row per method
        #expect(lines.allSatisfy { $0.split(separator: "\t").count == 6 })
        #expect(lines.contains { $0.hasPrefix("166/167\tchain_get_chain_info\trequest") })
    }

    @Test func decodePrintsTheMethodAndThePayloadInTheDocumentedMapping() throws {
        let result = try Self.truapi(["frame", "decode", "--output", "json",
                                      "0c703a39a7000014706173656f01" + String(repeating: "aa", count: 32)])
        #expect(result.status == 0, "\(result.stderrText)")
        let json = try JSONValue.parse(result.stdoutText)
        #expect(json["method"]?.stringValue == "chain_get_chain_info" && json["kind"]?.stringValue == "response")
        let ok = json["payload"]?["Ok"]
        #expect(ok?["network"]?.stringValue == "paseo" && ok?["chain"]?.stringValue == "AssetHub")
        #expect(ok?["genesis_hash"]?.stringValue == "0x" + String(repeating: "aa", count: 32))
        // The same frame as base64 from stdin, and as raw bytes from a file.
        let bytes = try Hex.decode("0c703a31020000800000000000000000000000000000000000000000000000000000000000000000")
        let base64 = try Self.truapi(["frame", "decode", "--input-format", "base64", "--output", "json", "-"],
                                     stdin: Data(Base64.encode(bytes).utf8))
        #expect(try JSONValue.parse(base64.stdoutText)["payload"]?["Chain"]?["genesis_hash"]?.stringValue?.count == 66)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("omni-truapi-\(UUID()).bin")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let raw = try Self.truapi(["frame", "decode", "--input-format", "binary", "--output", "json", "@" + file.path])
        #expect(raw.status == 0 && raw.stdoutText == base64.stdoutText, "\(raw.stderrText)")
    }

    @Test func brokenFramesExitThreeWithTheOffsetAndThePath() throws {
        // golden-account-get.bin: the envelope is fine, the pre-0.6 payload is not a 0.9 request.
        let golden = try Self.truapi(["frame", "decode", "0c703a3116000c666f6f00000000"])
        #expect(golden.status == 3)
        #expect(golden.stderrText.contains("byte 11") && golden.stderrText.contains("$.payload.V1.product_account_id.derivation_index"),
                "\(golden.stderrText)")
        let envelope = try Self.truapi(["frame", "decode", "--envelope-only", "--output", "json", "0c703a3116000c666f6f00000000"])
        #expect(envelope.status == 0 && envelope.stdoutText.contains(#""payload_hex":"0x000c666f6f00000000""#), "\(envelope.stdoutText)")
        for hex in ["", "0c703a31", "20616263", "ffffffff", "0c703a31faaabb", "0c703a3100000100"] {
            let result = try Self.truapi(["frame", "decode", hex.isEmpty ? "-" : hex], stdin: Data())
            #expect(result.status == 3, "\(hex): \(result.status) \(result.stderrText)")
            #expect(result.stderrText.contains("byte "), "\(hex): \(result.stderrText)")
        }
        let notHex = try Self.truapi(["frame", "decode", "0c70zz"])
        #expect(notHex.status == 3)
    }

    @Test func encodeRoundTripsWhatDecodePrints() throws {
        for hex in ["0c703a31000001", "0c703a3112", "0c703a31150000", "24703a62616c616e63657800000000",
                    "18703a636f696e8b000102", "3c703a6163636f756e742d70726f6f661b0001000004"] {
            let decoded = try Self.truapi(["frame", "decode", "--output", "json", hex])
            #expect(decoded.status == 0, "\(hex): \(decoded.stderrText)")
            let encoded = try Self.truapi(["frame", "encode", "-"], stdin: decoded.stdout)
            #expect(encoded.status == 0 && encoded.stdoutText == hex + "\n", "\(hex) → \(encoded.stdoutText) \(encoded.stderrText)")
        }
        let base64 = try Self.truapi(["frame", "encode", "--output", "base64",
                                      #"{"request_id":"p:1","method":"system_handshake","payload":{"codec_version":1}}"#])
        #expect(base64.stdoutText == Base64.encode(try Hex.decode("0c703a31000001")) + "\n")
        let raw = try Self.truapi(["frame", "encode", "--output", "raw", "--payload-only",
                                   #"{"method":"theme_subscribe","kind":"receive","payload":{"name":{"Custom":"x"},"variant":"Light"}}"#])
        #expect([UInt8](raw.stdout) == [0, 0, 4, 0x78, 0], "\(raw.stderrText)")
    }

    @Test func encodeRefusesDescriptionsThatDoNotFitWithTheirJSONPath() throws {
        let cases: [(String, String)] = [
            (#"{"request_id":"p:1","method":"system_handshake","payload":{"codec_version":256}}"#, "$.payload.codec_version"),
            (#"{"request_id":"p:1","method":"local_storage_write","payload":{"key":"k"}}"#, "value"),
            (#"{"request_id":"p:1","method":"system_handshak"}"#, "unknown method"),
            (#"{"request_id":"p:1","method":"theme_subscribe","kind":"response"}"#, "no response"),
            (#"{"request_id":"p:1","discriminant":3,"payload":{"Ok":{"supported":true}},"payload_hex":"0x0001"}"#, "disagree"),
        ]
        for (json, fragment) in cases {
            let result = try Self.truapi(["frame", "encode", json])
            #expect(result.status == 3, "\(json): \(result.status)")
            #expect(result.stderrText.contains(fragment), "\(json): \(result.stderrText)")
        }
    }

    @Test func theJSONMappingTopicIsInHelp() throws {
        let result = try Omni.run(["help", "truapi-json"])
        #expect(result.status == 0 && result.stdoutText.contains("versioned envelope") && result.stdoutText.contains("0x-prefixed"))
    }

    /// The acceptance peer: its own SCALE types from Appendix A on scalecodec, random values of every request
    /// type decoded by omni and encoded by omni. Seeded; the seed is in the output.
    @Test(.vectors("truapi/wire_table.json", "../reference/truapi.md"))
    func scalecodecPeerAgreesOnEveryRequestType() throws {
        let seed = SeededGenerator.freshSeed() % (1 << 32)
        // The peer runs under the test's own python3 (where `make test-deps` installed scalecodec).
        var peerEnvironment = ProcessInfo.processInfo.environment
        peerEnvironment["OMNI_VECTORS"] = Vectors.directory.path
        let result = try Subprocess.run("/usr/bin/env", ["python3", Repository.peer("truapi_peer.py").path, "--omni", Omni.executable,
                                                         "--seed", String(seed), "--count", "2"],
                                        stdin: Data(), environment: peerEnvironment)
        #expect(result.status == 0, "peer (seed \(seed)) exited \(result.status):\n\(result.stdoutText.suffix(3000))\n\(result.stderrText.suffix(2000))")
        #expect(result.stdoutText.contains("65 request types"), "\(result.stdoutText.suffix(500))")
    }
}
