import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// Differential: an independent minter in Python (`Tests/Peers/attest_peer.py`, built on `cryptography` and
/// `cbor2`) makes fresh evidence — valid, and broken in one known way each — under a fresh seed; omni must give
/// exactly the reason code the minter intended.
@Suite(.serialized, .offPool) struct PeerTests {
    @Test func freshlyMintedEvidenceGetsTheIntendedReason() throws {
        let seed = SeededGenerator.freshSeed() % 1_000_000_007
        let result = try Subprocess.python("attest_peer.py", ["cases", "--seed", String(seed), "--count", "64",
                                                              "--now", "2026-06-01T12:00:00Z"])
        #expect(result.status == 0, "attest_peer.py failed (seed \(seed)): \(result.stderrText)")
        let lines = try result.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(lines.count == 64, "seed \(seed)")
        var reasons: Set<String> = []
        for line in lines {
            let name = try line.string("case")
            let root = try Certificate(pemRepresentation: try line.string("root_pem"))
            let reason: AttestReason
            if try line.string("kind") == "assertion" {
                reason = try appraiseAssertionVector(line).reason
            } else {
                reason = try appraiseAttestationVector(line, defaultRoot: root).reason
            }
            #expect(reason.rawValue == (try line.string("expect")), "seed \(seed), \(name): got \(reason.rawValue)")
            reasons.insert(reason.rawValue)
        }
        // 64 random draws over 20 kinds of case: most codes show up in every run.
        #expect(reasons.count >= 8, "seed \(seed): only \(reasons.sorted())")
    }
}
