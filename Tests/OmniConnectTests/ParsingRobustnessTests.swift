import OmniTestSupport
import Foundation
import OmniCodec
import OmniConnect
import OmniCrypto
import Testing

/// Strict URI and literal rules, and decoders that refuse hostile bytes without crashing.
@Suite(.serialized, .offPool) struct ParsingRobustnessTests {
    static func fearlessURI() throws -> String {
        try VectorFile("upstream/gen-b/fearless_uranai_exchange.json").string("wallet_uri")
    }

    /// The substitutions the production wallet refuses (Fearless' tests), each with the reason.
    @Test(.vectors("connect")) func walletURIRejections() throws {
        let uri = try Self.fearlessURI()
        let query = uri.components(separatedBy: "?")[1]
        let cases: [(String, String)] = [
            (uri + "&sid=x", "appears twice"),
            (uri + "&unknown=x", "unknown field 'unknown'"),
            (uri.replacingOccurrences(of: "&relay=", with: "&missing="), "unknown field"),
            (uri.replacingOccurrences(of: "sid=y", with: "sid=x"), "does not match"),
            (uri + "=", "relay token"),
            (uri.replacingOccurrences(of: "hash%3A82531CE8EAE8BFF6BEECA4698BFD13A3BC8BEC5F0EE0D23D428C97FC17AB0F3B%233E94",
                                      with: "hash%3A0000000000000000000000000000000000000000000000000000000000000001%23C50E"), "does not match"),
            (uri.replacingOccurrences(of: "%233E94", with: "%233E95"), "checksum"),
            ("irohaconnect://connect/path?" + query, "no path"),
            ("irohaconnect://user@connect?" + query, "user info"),
            ("irohaconnect://connect:80?" + query, "port"),
            (uri + "#fragment", "fragment"),
            ("https://connect?" + query, "scheme"),
            (uri.replacingOccurrences(of: "v=1", with: "v=2"), "version"),
            (uri.replacingOccurrences(of: "role=wallet", with: "role=admin"), "role"),
            (uri.replacingOccurrences(of: "token=IiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiI", with: "token=IiIi"), "token"),
            (uri.replacingOccurrences(of: "EQ&v=1", with: "EZ&v=1"), "non-zero unused bits"),
            (uri.replacingOccurrences(of: "%3A", with: "%3"), "%-escape"),
            (uri + "&pad=" + String(repeating: "a", count: 4096), "4096"),
        ]
        for (text, reason) in cases {
            let error = try #require(throws: ConnectError.self, "\(reason)") { try ConnectURI(parsing: text, generation: .genB) }
            #expect(error.kind == .malformed)
            #expect(error.message.contains(reason), "\(error.message) should mention \(reason)")
        }
        // The iroha: scheme names the same session.
        let alternate = try ConnectURI(parsing: uri.replacingOccurrences(of: "irohaconnect:", with: "iroha:"), generation: .genB)
        #expect(alternate.sid == (try ConnectURI(parsing: uri, generation: .genB)).sid)
        // The lowercase-hex network id is accepted too; the typed literal must be uppercase with a matching CRC.
        #expect(throws: ConnectError.self) { try ConnectNetworkID(parsing: "hash:82531ce8eae8bff6beeca4698bfd13a3bc8bec5f0ee0d23d428c97fc17ab0f3b#3E94") }
        #expect(throws: ConnectError.self) { try ConnectNetworkID(parsing: "hash:82531CE8EAE8BFF6BEECA4698BFD13A3BC8BEC5F0EE0D23D428C97FC17AB0F3B#3E95") }
        #expect(try ConnectNetworkID(parsing: "82531ce8eae8bff6beeca4698bfd13a3bc8bec5f0ee0d23d428c97fc17ab0f3b").typedLiteral.hasSuffix("#3E94"))
    }

    @Test func genAURIsRoundTrip() throws {
        let sid = SecureRandom.bytes(32)
        let uri = ConnectURI(generation: .genA, sid: sid, role: .wallet, token: "opaque-token", node: "http://127.0.0.1:8080",
                             constraints: .chain("test-chain"))
        #expect(uri.text.hasPrefix("iroha://connect?sid="))
        let parsed = try ConnectURI(parsing: uri.text, generation: .genA)
        #expect(parsed == uri)
        #expect(try parsed.webSocketURL() == "ws://127.0.0.1:8080/v1/connect/ws?sid=\(ConnectText.base64URL(sid))&role=wallet")
        #expect(throws: ConnectError.self) { try ConnectURI(parsing: uri.text, generation: .genB) }
    }

    @Test func accountIDRejections() throws {
        let account = try IrohaAccountID(ed25519PublicKey: [UInt8](repeating: 7, count: 32))
        #expect(try IrohaAccountID(parsing: account.literal) == account)
        var characters = Array(account.literal)
        characters[8] = characters[8] == "2" ? "3" : "2"
        #expect(throws: ConnectError.self) { try IrohaAccountID(parsing: String(characters)) }
        #expect(throws: ConnectError.self) { try IrohaAccountID(parsing: "0x" + ConnectText.hex([UInt8](repeating: 7, count: 32))) }
        #expect(throws: ConnectError.self) { try IrohaAccountID(parsing: "sora") }
        let test = try IrohaAccountID(ed25519PublicKey: [UInt8](repeating: 7, count: 32), discriminant: IrohaAccountID.testDiscriminant)
        #expect(test.literal.hasPrefix("test"))
        #expect(try IrohaAccountID(parsing: test.literal).publicKey == account.publicKey)
        let numbered = try IrohaAccountID(ed25519PublicKey: [UInt8](repeating: 7, count: 32), discriminant: 42)
        #expect(numbered.literal.hasPrefix("n42"))
        #expect(try IrohaAccountID(parsing: numbered.literal).discriminant == 42)
    }

    @Test func base64URLIsCanonical() throws {
        #expect(try ConnectText.parseBase64URL("AQ", what: "x") == [1])
        #expect(throws: ConnectError.self) { try ConnectText.parseBase64URL("AR", what: "x") }
        #expect(throws: ConnectError.self) { try ConnectText.parseBase64URL("AQ==", what: "x") }
        #expect(throws: ConnectError.self) { try ConnectText.parseBase64URL("A+", what: "x") }
        for length in 0..<40 {
            let bytes = SecureRandom.bytes(length)
            #expect(try ConnectText.parseBase64URL(ConnectText.base64URL(bytes), what: "x") == bytes)
        }
    }

    /// Every prefix of every vector frame, and random single-byte corruptions, fail cleanly (no crash), with
    /// the offset inside the input.
    @Test(.vectors("connect"), arguments: [ConnectGeneration.genB, .genA])
    func truncatedAndCorruptedFramesFailCleanly(generation: ConnectGeneration) throws {
        let file = try VectorFile(generation == .genB ? "derived/gen-b_session.json" : "derived/gen-a_session.json")
        let codec = ConnectCodec(generation: generation)
        var frames: [[UInt8]] = []
        for key in ["control_frames", "encrypted_frames"] {
            for vector in try VectorFile.array(file.root[key], key) { frames.append(try vector.hex("frame_hex")) }
        }
        var random = SeededGenerator()
        let seed = random.seed
        var refused = 0
        for frame in frames {
            for length in 0..<frame.count {
                let error = try #require(throws: CodecError.self) { try codec.decodeFrame(Array(frame.prefix(length))) }
                #expect((error.offset ?? -1) <= length && (error.offset ?? -1) >= 0)
                refused += 1
            }
            #expect(throws: CodecError.self) { try codec.decodeFrame(frame + [0]) }
            for _ in 0..<200 {
                var corrupted = frame
                let index = Int(random.next() % UInt64(frame.count))
                corrupted[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                if let decoded = try? codec.decodeFrame(corrupted) {
                    // A corruption inside a value (not a length or tag) still decodes, into another frame.
                    #expect(codec.encode(decoded) == corrupted, "seed \(seed)")
                }
            }
        }
        #expect(refused > 1000)
    }

    @Test func envelopeHeaderChecks() throws {
        let codec = ConnectCodec(generation: .genB)
        let envelope = codec.encodeEnvelope(ConnectEnvelope(sequence: 3, payload: .signRequestTx(txBytes: [9, 9])))
        var badCRC = envelope
        badCRC[badCRC.count - 1] ^= 1
        #expect((try? codec.decodeEnvelope(badCRC)) == nil)
        var badFlags = envelope
        badFlags[39] = 1
        let flags = try #require(throws: CodecError.self) { try codec.decodeEnvelope(badFlags) }
        #expect(flags.offset == 39)
        var badMagic = envelope
        badMagic[0] = 0
        #expect(throws: CodecError.self) { try codec.decodeEnvelope(badMagic) }
        #expect(throws: CodecError.self) { try ConnectCodec(generation: .genA).decodeEnvelope(envelope) }
        #expect(throws: CodecError.self) { try codec.decodeEnvelope(Array(envelope.dropLast())) }
    }

    /// QR matrices compared module for module with an independent encoder, segno (Tests/Peers/connect_qr_peer.py,
    /// with segno's one non-standard padding bit corrected): the same version and, at omni's mask, the same modules.
    /// The mask omni chose must have the lowest of segno's penalty scores for the finished symbols (segno's own choice
    /// may differ: it scores masks before drawing the format bits).
    @Test(.vectors("connect")) func qrCodesMatchAnIndependentEncoder() throws {
        let uri = try Self.fearlessURI()
        let long = String((0..<1000).map { Character(Unicode.Scalar(UInt8(33 + ($0 * 7) % 90))) })
        let texts = ["A", "hello omni", uri, long]
        let codes = try texts.map { try #require(ConnectQRCode(bytes: Array($0.utf8))) }
        let request = JSONValue.array(zip(texts, codes).map { ["text": .string($0), "mask": .int($1.mask)] })
        let result = try Subprocess.python("connect_qr_peer.py", stdin: Data(request.serialized().utf8))
        #expect(result.status == 0, "\(result.stderrText)")
        let answers = try #require(try JSONValue.parse(result.stdoutText).arrayValue)
        try #require(answers.count == texts.count)
        for (index, (code, answer)) in zip(codes, answers).enumerated() {
            let label = "\(texts[index].prefix(20))"
            #expect(answer["version"]?.int64Value.map { Int($0) * 4 + 17 } == code.size, "\(label): version")
            let rows = code.modules.map { String($0.map { $0 ? "1" : "0" }) }
            let theirs = answer["rows"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let firstDifference = rows.indices.first { $0 >= theirs.count || rows[$0] != theirs[$0] }
            #expect(theirs.count == rows.count && firstDifference == nil,
                    "\(label): first differing row \(firstDifference.map(String.init) ?? "none")")
            let penalties = answer["penalties"]?.arrayValue?.compactMap(\.int64Value) ?? []
            try #require(penalties.count == 8, "\(label): penalties")
            #expect(penalties.firstIndex(of: penalties.min()!) == code.mask, "\(label): omni chose mask \(code.mask), penalties \(penalties)")
        }
        #expect(ConnectQRCode(bytes: [UInt8](repeating: 0x41, count: 2954)) == nil)
    }

    /// An X25519 key file as `openssl genpkey -algorithm x25519` writes it reads to its key, and omni writes the
    /// same text back; broken PEM is refused with a message.
    @Test func x25519KeyFiles() throws {
        let openssl = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VuBCIEICh3lf6hxkrqXeSBgF1MJ8JTRlmoL6TXrCMxid36eQxh\n-----END PRIVATE KEY-----\n"
        let key = try ConnectKeyFile.x25519PrivateKey(from: openssl)
        #expect(ConnectText.hex(key.rawRepresentation) == "287795fea1c64aea5de481805d4c27c2534659a82fa4d7ac233189ddfa790c61")
        #expect(ConnectText.hex(key.publicKey.rawRepresentation) == "3413e948ff11381c5c24917257d0e3e551910b2149063f9428e199c35209b979")
        #expect(ConnectKeyFile.pem(key) == openssl)
        #expect(try ConnectKeyFile.x25519PrivateKey(from: ConnectKeyFile.pem(key)).rawRepresentation == key.rawRepresentation)
        for broken in [openssl.replacingOccurrences(of: "MC4C", with: "MC4*"), openssl.replacingOccurrences(of: "-----END PRIVATE KEY-----\n", with: ""),
                       openssl.replacingOccurrences(of: "K2Vu", with: "K2Vw")] {
            #expect(throws: ConnectError.self) { try ConnectKeyFile.x25519PrivateKey(from: broken) }
        }
    }
}
