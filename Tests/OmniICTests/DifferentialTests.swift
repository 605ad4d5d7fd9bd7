import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// Differential tests against `Tests/Peers/ic_peer.py`, an independent implementation on cbor2, pyblst and
/// cryptography: it checks omni's envelopes as the IC would, and signs certificates and query responses that
/// omni must accept. A fresh seed per run, printed on failure.
@Suite(.serialized, .offPool) struct DifferentialTests {
    static func runPeer(_ arguments: [String], stdin: String? = nil) throws -> String {
        let result = try Subprocess.python("ic_peer.py", arguments, stdin: stdin.map { Data($0.utf8) })
        guard result.status == 0 else { throw TestSupportError("ic_peer.py \(arguments.first ?? "") failed: \(result.stderrText)") }
        return result.stdoutText
    }

    @Test func envelopesCheckedByAnIndependentVerifier() throws {
        var generator = SeededGenerator()
        let seed = generator.seed
        let now = IngressExpiry.currentTime()
        let canisters = try ["ryjl3-tyaaa-aaaaa-aaaba-cai", "rdmx6-jaaaa-aaaaa-aaadq-cai", "aaaaa-aa"].map(principal)
        var lines: [String] = []
        var expected: [(id: RequestID, valid: Bool)] = []
        for index in 0..<40 {
            let kind = Int.random(in: 0..<5, using: &generator)
            let identity: ICIdentity
            switch kind {
            case 0: identity = try ICIdentity.generate(.ed25519)
            case 1: identity = try ICIdentity.generate(.secp256k1)
            case 2: identity = try ICIdentity.generate(.p256)
            case 3:
                let root = try ICIdentity.generate([.ed25519, .secp256k1, .p256][Int.random(in: 0..<3, using: &generator)])
                let targets = Bool.random(using: &generator) ? canisters : nil
                var session = ICIdentity(session: try DelegatedSession.create(root: root, targets: targets, now: now))
                if Bool.random(using: &generator) {
                    session = ICIdentity(session: try DelegatedSession.create(root: session, now: now))
                }
                identity = session
            default: identity = .anonymous
            }
            let canister = canisters[Int.random(in: 0..<canisters.count, using: &generator)]
            let body: ICRequest.Body
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: body = .call(canister: canister, method: "method_\(index)", arg: generator.bytes(Int.random(in: 0..<50, using: &generator)))
            case 1: body = .query(canister: canister, method: "q", arg: generator.bytes(Int.random(in: 0..<50, using: &generator)))
            default:
                body = .readState(paths: (0..<Int.random(in: 0..<4, using: &generator)).map { _ in
                    StatePath((0..<Int.random(in: 0..<4, using: &generator)).map { _ in generator.bytes(Int.random(in: 0..<12, using: &generator)) })
                })
            }
            let nonce = Bool.random(using: &generator) ? generator.bytes(Int.random(in: 0...32, using: &generator)) : nil
            let request = try ICRequest(body, sender: identity.principal, ingressExpiry: IngressExpiry.expiry(now: now), nonce: nonce)
            var envelope = try identity.envelope(for: request, at: now)
            var valid = true
            if identity.keyType != .anonymous && Int.random(in: 0..<4, using: &generator) == 0 {
                envelope.senderSignature?[Int.random(in: 0..<8, using: &generator)] ^= 0x20
                valid = false
            }
            let json: JSONValue = ["envelope": .string(Hex.encode(try envelope.encoded())), "time": .string(String(now))]
            lines.append(json.serialized().replacingOccurrences(of: "\"time\":\"\(now)\"", with: "\"time\":\(now)"))
            expected.append((request.requestID, valid))
        }
        let output = try DifferentialTests.runPeer(["verify-envelopes"], stdin: lines.joined(separator: "\n") + "\n")
        let verdicts = output.split(separator: "\n")
        #expect(verdicts.count == expected.count, "seed \(seed)")
        for (index, line) in verdicts.enumerated() where index < expected.count {
            let verdict = try JSONValue.parse(String(line))
            #expect(verdict["valid"]?.boolValue == expected[index].valid, "seed \(seed), envelope \(index): \(line)")
            if expected[index].valid {
                #expect(verdict["request_id"]?.stringValue == expected[index].id.hex, "seed \(seed), envelope \(index)")
            } else {
                // Refused for the flipped signature bit, not for anything else.
                #expect(verdict["refusal"]?.stringValue == "signature", "seed \(seed), envelope \(index): \(line)")
            }
        }
        print("ic_peer verify-envelopes: \(verdicts.count) envelopes agree (seed \(seed))")
    }

    /// The peer's own failure is never a verdict: input it cannot even parse makes it exit non-zero (which
    /// `runPeer` turns into a failed test) instead of printing "valid": false.
    @Test func peerFailureIsNotARefusal() throws {
        let line = JSONValue.object(["envelope": "d9d9f7ff", "time": 1]).serialized() + "\n"
        let result = try Subprocess.python("ic_peer.py", ["verify-envelopes"], stdin: Data(line.utf8))
        #expect(result.status != 0 && result.stdoutText.isEmpty, "\(result.stdoutText)")
        #expect(throws: TestSupportError.self) { _ = try DifferentialTests.runPeer(["verify-envelopes"], stdin: line) }
        let refused = try JSONValue.parse(try DifferentialTests.runPeer(["verify-envelopes"],
            stdin: JSONValue.object(["envelope": "a0", "time": 1]).serialized() + "\n"))
        #expect(refused["valid"] == false && refused["refusal"] == "tag")
    }

    @Test func certificatesSignedByAnIndependentImplementation() throws {
        var generator = SeededGenerator()
        let seed = generator.seed
        let time: UInt64 = 1_760_000_000_000_000_000
        for round in 0..<3 {
            let requestID = try RequestID(bytes: generator.bytes(32))
            let canister = try principal("ivg37-qiaaa-aaaab-aaaga-cai")
            let output = try DifferentialTests.runPeer(["make-certificate", "--seed", String(seed &+ UInt64(round)),
                                                        "--request-id", requestID.hex, "--canister", Hex.encode(canister.bytes),
                                                        "--time", String(time)])
            let made = try JSONValue.parse(output)
            let rootKey = try ICRootKey(hex: try made.string("root_key"))
            let certificate = try ICCertificate(decoding: try hex(try made.string("certificate")))
            let verified = try certificate.verify(scope: .canister(canister), rootKey: rootKey, freshness: .at(time))
            #expect(Hex.encode(verified.subnetID.bytes) == (try made.string("subnet")), "seed \(seed)")
            #expect(try verified.requestStatus(requestID) == .replied(try hex(try made.string("reply"))), "seed \(seed)")
            expectICError(.verificationFailed, reason: .signature, "mainnet key, seed \(seed)") {
                _ = try certificate.verify(scope: .canister(canister), freshness: .at(time))
            }
            expectICError(.verificationFailed, reason: .range, "foreign canister, seed \(seed)") {
                _ = try certificate.verify(scope: .canister(try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")), rootKey: rootKey, freshness: .at(time))
            }
        }
    }

    @Test func queryResponsesSignedByAnIndependentNode() throws {
        var generator = SeededGenerator()
        let seed = generator.seed
        let request = try ICRequest(.query(canister: try principal("ryjl3-tyaaa-aaaaa-aaaba-cai"), method: "balance", arg: generator.bytes(20)),
                                    sender: .anonymous, ingressExpiry: 1_760_000_000_000_000_000)
        let arg = generator.bytes(Int.random(in: 0..<64, using: &generator))
        let timestamp: UInt64 = 1_760_000_000_123_456_789
        let output = try DifferentialTests.runPeer(["sign-query", "--seed", String(seed), "--request-id", request.requestID.hex,
                                                    "--timestamp", String(timestamp), "--arg", Hex.encode(arg)])
        let made = try JSONValue.parse(output)
        let node = try Principal.fromBytes(try hex(try made.string("node_id")))
        let info = SubnetInfo(subnetID: .anonymous, publicKeyDER: [], nodeKeys: [node: try hex(try made.string("node_key"))],
                              canisterRanges: [], certifiedAt: 0)
        let response = try QueryResponse(decoding: try hex(try made.string("response")))
        #expect(response.outcome == .replied(arg), "seed \(seed)")
        try response.verify(requestID: request.requestID, subnet: info, freshness: .at(timestamp))
        let other = try ICRequest(.query(canister: try principal("ryjl3-tyaaa-aaaaa-aaaba-cai"), method: "balance", arg: []),
                                  sender: .anonymous, ingressExpiry: 1)
        expectICError(.verificationFailed, reason: .nodeSignature, "seed \(seed)") { try response.verify(requestID: other.requestID, subnet: info) }
    }
}
