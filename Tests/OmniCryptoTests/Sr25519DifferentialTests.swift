import OmniTestSupport
import Testing
import OmniCodec
import OmniCrypto

/// omni's sr25519 against schnorrkel through PyPI py-sr25519-bindings (keys, signatures both ways, hard and soft
/// derivation, whole paths), against scalecodec for junction chain codes, and against the peer's VRF both ways.
/// Keys, messages and paths come from a fresh seed per run, printed with every failure.
@Suite("sr25519: differential against schnorrkel (py-sr25519-bindings)", .serialized, .offPool)
struct Sr25519DifferentialTests {
    static func flipBit(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var copy = bytes
        let index = Int.random(in: 0..<copy.count, using: &random)
        copy[index] ^= 1 << UInt8.random(in: 0...7, using: &random)
        return copy
    }

    /// False, or refused as malformed: either way not a valid signature.
    static func verifies(_ key: Sr25519.PublicKey, _ signature: [UInt8], _ message: [UInt8]) -> Bool {
        (try? key.isValidSignature(signature, for: message)) ?? false
    }

    @Test func keypairsFromMiniSecretKeysMatch() throws {
        var random = SeededGenerator()
        let seeds = (0..<16).map { _ in random.bytes(32) } + [[UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xff, count: 32)]
        let responses = try Sr25519Peer.run(seeds.map { ["op": "pair_from_seed", "mini_secret": .string($0.hexString)] })
        for (seed, response) in zip(seeds, responses) {
            let keypair = try Sr25519.Keypair(miniSecretKey: seed)
            #expect(keypair.publicKey.rawRepresentation == (try response.bytes("public")), "seed \(random.seed)")
            #expect(keypair.secretKeyRepresentation == (try response.bytes("secret")), "seed \(random.seed)")
            // The exported secret key loads back to the same keypair.
            #expect(try Sr25519.Keypair(secretKey: response.bytes("secret")).publicKey == keypair.publicKey)
        }
    }

    @Test func signaturesVerifyBothWays() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        let swiftKey = try Sr25519.Keypair(miniSecretKey: random.bytes(32))
        let pythonMini = random.bytes(32)
        let messages = (0..<8).map { _ in random.bytes(in: 0...300) }

        var requests: [JSONValue] = [["op": "pair_from_seed", "mini_secret": .string(pythonMini.hexString)]]
        var expectations: [(valid: Bool, label: String)] = [(true, "")]
        for (index, message) in messages.enumerated() {
            let signature = swiftKey.signature(for: message)
            #expect(try swiftKey.publicKey.isValidSignature(signature, for: message), context)
            for (candidate, candidateMessage, valid, label) in [
                (signature, message, true, "Swift signature \(index)"),
                (Self.flipBit(signature, &random), message, false, "Swift signature \(index) with a bit flipped"),
                (signature, message + [1], false, "Swift signature \(index) on a longer message"),
            ] {
                requests.append(["op": "verify", "public": .string(swiftKey.publicKey.rawRepresentation.hexString),
                                 "message": .string(candidateMessage.hexString), "signature": .string(candidate.hexString)])
                expectations.append((valid, label))
            }
        }
        let pythonKeypair = try Sr25519.Keypair(miniSecretKey: pythonMini)
        let signRequestsStart = requests.count
        for message in messages {
            requests.append(["op": "sign", "public": .string(pythonKeypair.publicKey.rawRepresentation.hexString),
                             "secret": .string(pythonKeypair.secretKeyRepresentation.hexString), "message": .string(message.hexString)])
        }
        let responses = try Sr25519Peer.run(requests)
        #expect(try responses[0].bytes("public") == pythonKeypair.publicKey.rawRepresentation, context)
        for index in 1..<signRequestsStart {
            let response = responses[index]
            let valid = response.isOK && (try? response.bool("valid")) == true
            #expect(valid == expectations[index].valid, "\(context): schnorrkel on \(expectations[index].label): \(response.serialized())")
        }
        for (offset, message) in messages.enumerated() {
            let signature = try responses[signRequestsStart + offset].bytes("signature")
            #expect(Self.verifies(pythonKeypair.publicKey, signature, message), "\(context): schnorrkel signature \(offset)")
            #expect(!Self.verifies(pythonKeypair.publicKey, Self.flipBit(signature, &random), message), context)
            #expect(!Self.verifies(swiftKey.publicKey, signature, message), context)
        }
    }

    /// A key with bit 255 set is no canonical encoding: schnorrkel (curve25519-dalek) refuses it, and so must omni,
    /// although libsodium 1.0.18 alone would take it for the key without that bit.
    @Test func keysWithTheTopBitSetAreRefusedLikeSchnorrkel() throws {
        let keypair = Sr25519.Keypair()
        let message = Array("top bit".utf8)
        let signature = keypair.signature(for: message)
        var key = keypair.publicKey.rawRepresentation
        key[31] |= 0x80
        let responses = try Sr25519Peer.run([
            ["op": "verify", "public": .string(key.hexString), "message": .string(message.hexString), "signature": .string(signature.hexString)],
            ["op": "verify", "public": .string(keypair.publicKey.rawRepresentation.hexString), "message": .string(message.hexString),
             "signature": .string(signature.hexString)],
        ])
        #expect(!responses[0].isOK || (try? responses[0].bool("valid")) == false, "\(responses[0].serialized())")
        #expect(try responses[1].bool("valid"))
        #expect(caughtError { () throws(CryptoError) in _ = try Sr25519.PublicKey(rawRepresentation: key) }?.kind == .invalidKey)
    }

    @Test func singleDerivationStepsMatch() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        var requests: [JSONValue] = []
        var cases: [(Sr25519.Keypair, Sr25519.ChainCode)] = []
        for _ in 0..<10 {
            let keypair = try Sr25519.Keypair(miniSecretKey: random.bytes(32))
            let chainCode = try Sr25519.ChainCode(random.bytes(32))
            let fields: [(String, JSONValue)] = [("chain_code", .string(chainCode.bytes.hexString)),
                                                 ("public", .string(keypair.publicKey.rawRepresentation.hexString)),
                                                 ("secret", .string(keypair.secretKeyRepresentation.hexString))]
            for op in ["hard_derive", "soft_derive", "derive_public"] {
                requests.append(.object(JSONObject([("op", .string(op))] + fields)))
            }
            cases.append((keypair, chainCode))
        }
        let responses = try Sr25519Peer.run(requests)
        for (index, (keypair, chainCode)) in cases.enumerated() {
            let hard = keypair.hardDerived(chainCode: chainCode)
            let hardResponse = responses[3 * index]
            #expect(hard.keypair.publicKey.rawRepresentation == (try hardResponse.bytes("public")), context)
            // Hard derivation goes through a mini secret key, so the whole secret (nonce seed too) is fixed.
            #expect(hard.keypair.secretKeyRepresentation == (try hardResponse.bytes("secret")), context)
            #expect(hard.chainCode.bytes == (try hardResponse.bytes("chain_code")), context)

            let soft = keypair.softDerived(chainCode: chainCode)
            let softResponse = responses[3 * index + 1]
            #expect(soft.keypair.publicKey.rawRepresentation == (try softResponse.bytes("public")), context)
            // schnorrkel draws the child's nonce seed at random: only the scalar is comparable.
            #expect(Array(soft.keypair.secretKeyRepresentation.prefix(32)) == Array((try softResponse.bytes("secret")).prefix(32)), context)
            #expect(soft.chainCode.bytes == (try softResponse.bytes("chain_code")), context)

            let fromPublic = keypair.publicKey.softDerived(chainCode: chainCode)
            let publicResponse = responses[3 * index + 2]
            #expect(fromPublic.publicKey.rawRepresentation == (try publicResponse.bytes("public")), context)
            #expect(fromPublic.chainCode == soft.chainCode, context)
            #expect(fromPublic.publicKey == soft.keypair.publicKey, context)
        }
    }

    /// Whole Substrate paths of random hard and soft junctions (digits, short, long and non-ASCII names) from a
    /// random mini secret key, derived junction by junction in schnorrkel; the junctions' chain codes are checked
    /// against scalecodec's SCALE, and the textual path parses to the same junctions.
    @Test func randomPathsMatch() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        var requests: [JSONValue] = []
        var cases: [(mini: [UInt8], junctions: [(String, Bool)])] = []
        var names: [String] = []
        for _ in 0..<12 {
            let mini = random.bytes(32)
            let junctions = (0..<Int.random(in: 1...5, using: &random)).map { _ in (random.junctionName(), Bool.random(using: &random)) }
            requests.append(["op": "derive_path", "mini_secret": .string(mini.hexString),
                             "junctions": .array(junctions.map { [.string($0.0), .bool($0.1)] })])
            cases.append((mini, junctions))
            names += junctions.map(\.0)
        }
        let chainCodeStart = requests.count
        requests += names.map { ["op": "chain_code", "name": .string($0)] }
        let responses = try Sr25519Peer.run(requests)

        for (offset, name) in names.enumerated() {
            #expect(Sr25519.ChainCode(junction: name).bytes == (try responses[chainCodeStart + offset].bytes("chain_code")),
                    "\(context): chain code of \(name)")
        }
        for (index, testCase) in cases.enumerated() {
            let junctions = testCase.junctions.map { $0.1 ? Sr25519.Junction.hard($0.0) : .soft($0.0) }
            let keypair = try Sr25519.Keypair(miniSecretKey: testCase.mini).derived(junctions)
            let path = testCase.junctions.map { ($0.1 ? "//" : "/") + $0.0 }.joined()
            #expect(keypair.publicKey.rawRepresentation == (try responses[index].bytes("public")), "\(context): \(path)")
            #expect(Array(keypair.secretKeyRepresentation.prefix(32)) == (try responses[index].bytes("secret_scalar")), "\(context): \(path)")
            #expect(try Sr25519.Junction.parsePath(path) == junctions, "\(context): \(path)")
            // After the last hard junction, the public key alone derives the rest.
            let lastHard = junctions.lastIndex(where: \.isHard)
            let base = try Sr25519.Keypair(miniSecretKey: testCase.mini).derived(Array(junctions[..<((lastHard ?? -1) + 1)]))
            let softTail = Array(junctions[((lastHard ?? -1) + 1)...])
            #expect(try base.publicKey.derived(softTail) == keypair.publicKey, "\(context): \(path)")
        }
    }

    /// VRF signatures over `Transcript::new(label)` with random appended messages (as TrUAPI's sign_vrf builds
    /// them): omni's proofs verify in the peer with the same input and output bytes, the peer's verify in omni,
    /// and tampered ones fail on both sides.
    @Test func vrfCrossVerifies() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        let swiftKey = Sr25519.Keypair()
        let pythonKey = try Sr25519.Keypair(miniSecretKey: random.bytes(32))
        var requests: [JSONValue] = []
        var cases: [(MerlinTranscript, JSONValue, JSONValue, Sr25519.VRFSignature, [UInt8])] = []
        for _ in 0..<6 {
            let label = random.bytes(in: 0...24)
            var transcript = MerlinTranscript(label: label)
            var items: [JSONValue] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let itemLabel = random.bytes(in: 0...16), value = random.bytes(in: 0...200)
                transcript.appendMessage(label: itemLabel, value)
                items.append([.string(itemLabel.hexString), .string(value.hexString)])
            }
            let outputContext = random.bytes(in: 0...20)
            let signature = swiftKey.vrfSign(transcript: transcript)
            #expect(try swiftKey.publicKey.vrfVerify(transcript: transcript, preOutput: signature.preOutput, proof: signature.proof) == signature.inOut, context)
            let common: [(String, JSONValue)] = [("label", .string(label.hexString)), ("items", .array(items)),
                                                 ("context", .string(outputContext.hexString)), ("length", 32)]
            requests.append(.object(JSONObject([("op", "vrf_verify"), ("public", .string(swiftKey.publicKey.rawRepresentation.hexString)),
                                                ("pre_output", .string(signature.preOutput.hexString)),
                                                ("proof", .string(signature.proof.hexString))] + common)))
            requests.append(.object(JSONObject([("op", "vrf_verify"), ("public", .string(swiftKey.publicKey.rawRepresentation.hexString)),
                                                ("pre_output", .string(signature.preOutput.hexString)),
                                                ("proof", .string(Self.flipBit(signature.proof, &random).hexString))] + common)))
            requests.append(.object(JSONObject([("op", "vrf_sign"), ("public", .string(pythonKey.publicKey.rawRepresentation.hexString)),
                                                ("secret", .string(pythonKey.secretKeyRepresentation.hexString))] + common)))
            cases.append((transcript, requests[requests.count - 3], requests[requests.count - 1], signature, outputContext))
        }
        let responses = try Sr25519Peer.run(requests)
        for (index, (transcript, _, _, signature, outputContext)) in cases.enumerated() {
            let verified = responses[3 * index], tampered = responses[3 * index + 1], signed = responses[3 * index + 2]
            #expect((try? verified.bool("valid")) == true, "\(context): peer on omni's VRF proof \(index): \(verified.serialized())")
            #expect(try verified.bytes("input") == signature.inOut.input, context)
            #expect(try verified.bytes("output_bytes") == signature.inOut.outputBytes(context: outputContext, count: 32), context)
            #expect(!tampered.isOK || (try? tampered.bool("valid")) == false, "\(context): peer accepted a tampered proof")

            let preOutput = try signed.bytes("pre_output"), proof = try signed.bytes("proof")
            let inOut = try #require(try pythonKey.publicKey.vrfVerify(transcript: transcript, preOutput: preOutput, proof: proof),
                                     "\(context): omni rejects the peer's VRF proof \(index)")
            #expect(inOut.input == (try signed.bytes("input")), context)
            #expect(try inOut.outputBytes(context: outputContext, count: 32) == signed.bytes("output_bytes"), context)
            // The output is the key's, not the proof's: omni's own signature over the same transcript agrees.
            #expect(pythonKey.vrfSign(transcript: transcript).inOut == inOut, context)
            let rejected = (try? pythonKey.publicKey.vrfVerify(transcript: transcript, preOutput: preOutput,
                                                              proof: Self.flipBit(proof, &random))) ?? nil
            #expect(rejected == nil, "\(context): omni accepted a tampered peer proof")
        }
    }
}
