import OmniTestSupport
import Testing
import OmniCodec
@testable import OmniCrypto

/// STROBE-128 and Merlin transcripts: the published known answers (merlin's `test protocol` transcript and the
/// STROBE conformance run that merlin checks against strobe-rs), then random transcripts against the separate
/// Python implementation in PyPI merlin-transcripts.
@Suite("Merlin transcripts on STROBE-128")
struct MerlinTests {
    /// merlin's `equivalence_simple` transcript; the challenge is the value gtank/merlin and merlin-transcripts
    /// assert for it.
    @Test func simpleTranscriptKnownAnswer() throws {
        var transcript = MerlinTranscript(label: "test protocol")
        transcript.appendMessage(label: "some label", Array("some data".utf8))
        #expect(try transcript.challengeBytes(label: "challenge", count: 32).hexString
            == "d5a21972d0d5fe320c0d263fac7fffb8145aa640af6e9bca177c03c7efcf0615")
    }

    /// merlin's strobe.rs `test_conformance` (meta-AD split across a continued operation, a 1024-byte AD that
    /// crosses the rate several times, PRF, KEY, PRF), with the PRF outputs strobe-rs produces.
    @Test func strobeConformanceKnownAnswers() {
        var strobe = Strobe128(protocolLabel: Array("Conformance Test Protocol".utf8))
        strobe.metaAD(Array("ms".utf8), more: false)
        strobe.metaAD(Array("g".utf8), more: true)
        strobe.ad([UInt8](repeating: 99, count: 1024), more: false)
        strobe.metaAD(Array("prf".utf8), more: false)
        let first = strobe.prf(count: 32, more: false)
        #expect(first.hexString == "b48e645ca17c667fd5206ba57a6a228d72d8e1903814d3f17f622996d7cfefb0")
        strobe.metaAD(Array("key".utf8), more: false)
        strobe.key(first, more: false)
        strobe.metaAD(Array("prf".utf8), more: false)
        #expect(strobe.prf(count: 32, more: false).hexString == "07e45cce8078cee259e3e375bb85d75610e2d1e1201c5f645045a194edd49ff8")
    }

    /// A copied transcript evolves independently of the original (copy-on-write of the STROBE state).
    @Test func copiesAreIndependent() throws {
        var original = MerlinTranscript(label: "fork")
        original.appendMessage(label: "shared", [1, 2, 3])
        var fork = original
        fork.appendMessage(label: "only in the fork", [4])
        let fromOriginal = try original.challengeBytes(label: "c", count: 32)
        var again = MerlinTranscript(label: "fork")
        again.appendMessage(label: "shared", [1, 2, 3])
        #expect(try again.challengeBytes(label: "c", count: 32) == fromOriginal)
        #expect(try fork.challengeBytes(label: "c", count: 32) != fromOriginal)
    }

    @Test func challengeLengthIsBounded() {
        var transcript = MerlinTranscript(label: "bounds")
        for count in [-1, MerlinTranscript.maximumChallengeByteCount + 1] {
            let error = caughtError { () throws(CryptoError) in _ = try transcript.challengeBytes(label: "c", count: count) }
            #expect(error?.kind == .invalidInput)
        }
    }

    /// Random transcripts (labels and messages of random lengths, u64s, challenges of 0…300 bytes, so the state
    /// crosses the 166-byte rate at every offset) against merlin-transcripts.
    @Test func matchesMerlinTranscriptsOnRandomTranscripts() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        var requests: [JSONValue] = []
        var expected: [[String]] = []
        for _ in 0..<40 {
            let label = random.bytes(in: 0...40)
            var transcript = MerlinTranscript(label: label)
            var steps: [JSONValue] = []
            var challenges: [String] = []
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let stepLabel = random.bytes(in: 0...20)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let message = random.bytes(in: 0...500)
                    transcript.appendMessage(label: stepLabel, message)
                    steps.append(["append", .string(stepLabel.hexString), .string(message.hexString)])
                case 1:
                    let value = UInt64.random(in: 0 ... .max, using: &random)
                    transcript.appendUInt64(label: stepLabel, value)
                    steps.append(["u64", .string(stepLabel.hexString), .number(String(value))])
                default:
                    let count = Int.random(in: 0...300, using: &random)
                    challenges.append(try transcript.challengeBytes(label: stepLabel, count: count).hexString)
                    steps.append(["challenge", .string(stepLabel.hexString), .number(String(count))])
                }
            }
            challenges.append(try transcript.challengeBytes(label: [], count: 64).hexString)
            steps.append(["challenge", "", 64])
            requests.append(["op": "merlin", "label": .string(label.hexString), "steps": .array(steps)])
            expected.append(challenges)
        }
        let responses = try Sr25519Peer.run(requests)
        for (index, response) in responses.enumerated() {
            let challenges = response["challenges"]?.arrayValue?.compactMap(\.stringValue)
            #expect(challenges == expected[index], "\(context): transcript \(index)")
        }
    }
}
