import Foundation
import OmniCandid
import OmniCodec
import OmniTestSupport
import Testing
@testable import OmniIC

/// Hostile input: randomly mutated certificates, hash trees, envelopes, responses and chain JSON must be refused
/// with an ICError or accepted — never crash, hang or throw anything else. The seed is printed on failure
/// (`OMNI_TEST_SEED=<n>` replays a run).
@Suite struct MutationTests {
    static func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            guard !bytes.isEmpty else { return [UInt8.random(in: 0...255, using: &generator)] }
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<7, using: &generator) {
            case 0: bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
            case 1: bytes[position] = UInt8.random(in: 0...255, using: &generator)
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
            case 3: bytes.remove(at: position)
            case 4: bytes = Array(bytes.prefix(position))
            case 5:
                // CBOR heads that claim huge lengths or deep nesting.
                let heads: [[UInt8]] = [[0x5b, 0xff, 0xff, 0xff, 0xff], [0x9b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                                        [0x81, 0x81, 0x81, 0x81], [0xbf], [0xd9, 0xd9, 0xf7], [0x83, 0x01]]
                bytes.insert(contentsOf: heads[Int.random(in: 0..<heads.count, using: &generator)], at: position)
            default:
                // Duplicate a slice elsewhere (repeats subtrees, shifts structure).
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &generator))
                let slice = bytes[position..<end]
                bytes.insert(contentsOf: slice, at: Int.random(in: 0...bytes.count, using: &generator))
            }
        }
        return bytes
    }

    /// The kinds a refusal of hostile input may have: the input is malformed, fails a check, or is of a recognised but
    /// unsupported kind. Anything else (an internal failure, a configuration or storage error) is a bug.
    static let refusalKinds: Set<ICError.Kind> = [.malformed, .verificationFailed, .unsupported]

    /// Runs `body` on mutations of `inputs`; returns (accepted, refused). A refusal must be an ICError of
    /// `refusalKinds`; any other kind fails the test (the type system rules out other error types).
    static func fuzz(_ name: String, _ inputs: [[UInt8]], iterations: Int, generator: inout SeededGenerator,
                     _ body: ([UInt8]) throws(ICError) -> Void) -> (Int, Int) {
        var accepted = 0, refused = 0
        for index in 0..<iterations {
            let input = mutate(inputs[index % inputs.count], using: &generator)
            do {
                try body(input)
                accepted += 1
            } catch {
                if !refusalKinds.contains(error.kind) {
                    Issue.record("\(name): \(error.kind) is not a refusal of input: \(error) (input \(Hex.encode(input.prefix(64))))")
                }
                refused += 1
            }
        }
        return (accepted, refused)
    }

    /// `body` on bytes that may not be its format: accepted, or refused as malformed (never another kind).
    static func acceptedOrMalformed(_ what: String, _ body: () throws(ICError) -> Void) {
        do throws(ICError) { try body() } catch where error.kind != .malformed {
            Issue.record("\(what): refused as \(error.kind), not malformed: \(error)")
        } catch {}
    }

    @Test(.vectors("ic")) func mutatedInputsAreRefusedCleanly() throws {
        var generator = SeededGenerator()
        let seed = generator.seed
        let certificates = try CertificateTests.vectors().filter { $0.bytes.count < 6000 }.map(\.bytes)
        let freshness = Freshness.at(1_700_000_000_000_000_000)
        let scope = CertificateScope.canister(try principal("ivg37-qiaaa-aaaab-aaaga-cai"))
        var verifications = 0
        var report: [String] = []

        let (certAccepted, certRefused) = MutationTests.fuzz("certificate", certificates, iterations: 4000, generator: &generator) { bytes throws(ICError) in
            let certificate = try ICCertificate(decoding: bytes)
            _ = certificate.rootHash
            _ = certificate.tree.lookup(.time)
            _ = try certificate.tree.canisterRanges(of: .anonymous)
            _ = certificate.tree.isWellFormed
            verifications += 1
            // BLS is the slow part: verify a sample of the parsed mutants.
            if verifications % 8 == 0 { _ = try certificate.verify(scope: scope, freshness: freshness) }
        }
        report.append("certificate \(certAccepted)/\(certRefused)")

        let trees = try certificates.map { bytes -> [UInt8] in
            try #require(CBOR.decode(bytes, options: .init(stripSelfDescribeTag: true))["tree"]).encoded()
        }
        let (treeAccepted, treeRefused) = MutationTests.fuzz("tree", trees, iterations: 3000, generator: &generator) { bytes throws(ICError) in
            let tree = try HashTree(decoding: bytes)
            _ = tree.digest
            _ = tree.lookup(["request_status", "x", "status"])
            _ = tree.subtree(at: ["subnet"])
            _ = tree.children
        }
        report.append("tree \(treeAccepted)/\(treeRefused)")

        let identity = try ICIdentity.generate()
        let session = try DelegatedSession.create(root: identity, now: 1)
        let request = try ICRequest(.call(canister: try principal("ryjl3-tyaaa-aaaaa-aaaba-cai"), method: "m", arg: [1, 2]),
                                    sender: identity.principal, ingressExpiry: 10, nonce: [7])
        let envelope = try ICIdentity(session: session).envelope(for: request, at: 2).encoded()
        let (envAccepted, envRefused) = MutationTests.fuzz("envelope", [envelope], iterations: 2000, generator: &generator) { bytes throws(ICError) in
            let decoded = try ICEnvelope(decoding: bytes)
            _ = decoded.requestID
            try decoded.verifySender(at: 2)
        }
        report.append("envelope \(envAccepted)/\(envRefused)")

        let query = try CBOR.map([("status", "replied"), ("reply", ["arg": .bytes([1, 2, 3])]),
                                  ("signatures", [["timestamp": 5, "signature": .bytes([UInt8](repeating: 1, count: 64)),
                                                   "identity": .bytes(identity.principal.bytes)]])]).selfDescribed.encoded()
        let call = try CBOR.map([("status", "non_replicated_rejection"), ("reject_code", 3), ("reject_message", "x"),
                                 ("error_code", "IC0301")]).encoded()
        let (respAccepted, respRefused) = MutationTests.fuzz("responses", [query, call], iterations: 2000, generator: &generator) { bytes throws(ICError) in
            // Each parser sees every mutant; bytes of another response's shape are refused as malformed, never more.
            MutationTests.acceptedOrMalformed("call response") { () throws(ICError) in _ = try CallResponse(decoding: bytes) }
            MutationTests.acceptedOrMalformed("read_state response") { () throws(ICError) in _ = try ReadStateResponse.certificate(from: bytes) }
            _ = try QueryResponse(decoding: bytes)
        }
        report.append("responses \(respAccepted)/\(respRefused)")

        let chain = Array(try session.sessionFileJSON().serialized().utf8)
        let (jsonAccepted, jsonRefused) = MutationTests.fuzz("session", [chain], iterations: 2000, generator: &generator) { bytes throws(ICError) in
            let value: JSONValue
            do { value = try JSONValue.parse(bytes) } catch let error as CodecError { throw ICError.codec(error, "json") } catch { throw ICError.malformed("\(error)") }
            let restored = try DelegatedSession(sessionFile: value)
            try restored.chain.verify(at: 2)
        }
        report.append("session json \(jsonAccepted)/\(jsonRefused)")

        let (textAccepted, textRefused) = MutationTests.fuzz("text", [Array("k2t6j-2nvnp-4zjm3-25dtz-6xhaa-c7boj-5gayf-oj3xs-i43lp-teztq-6ae-dfxgiyy.102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20".utf8)],
                                                             iterations: 2000, generator: &generator) { bytes throws(ICError) in
            let text = String(decoding: bytes, as: UTF8.self)
            _ = Principal.textProblem(text)
            _ = try ICRC1Account(text: text)
        }
        report.append("principal/account text \(textAccepted)/\(textRefused)")
        print("mutation test (seed \(seed)), accepted/refused: " + report.joined(separator: ", "))
        // The mutators must reach both outcomes, or the test exercises nothing.
        #expect(certAccepted > 0 && certRefused > 0, "seed \(seed)")
        #expect(treeAccepted > 0 && treeRefused > 0, "seed \(seed)")
        #expect(envRefused > 0 && respRefused > 0 && jsonRefused > 0 && textRefused > 0, "seed \(seed)")
    }

    @Test func deepAndHugeInputsHitLimits() throws {
        // 100 000 nested arrays: refused by the depth limit, not by the stack.
        let deep = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        expectICError(.malformed, "deep CBOR") { _ = try HashTree(decoding: deep) }
        expectICError(.malformed, "deep certificate") { _ = try ICCertificate(decoding: deep) }
        // A fork chain at the depth limit still hashes and looks up without trouble.
        var tree = HashTree.leaf([1])
        for _ in 0..<180 { tree = .fork(tree, .empty) }
        let decoded = try HashTree(decoding: try tree.cbor.encoded())
        #expect(decoded.digest == tree.digest && decoded.lookup(["a"]) == .absent)
        // Oversized input is refused before decoding.
        expectICError(.malformed, "size limit") {
            _ = try ICCertificate(decoding: [UInt8](repeating: 0, count: 2048), limits: CertificateLimits(maxBytes: 1024))
        }
        // A length head claiming 4 GiB of bytes.
        expectICError(.malformed, "length head") { _ = try ICCertificate(decoding: [0xa1, 0x64, 0x74, 0x72, 0x65, 0x65, 0x5b, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]) }
    }
}
