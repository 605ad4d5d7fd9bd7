import Testing
import OmniTestSupport

/// The fake replica the agent tests trust is itself checked by an independent Python verifier (request ids, hash
/// trees, BLS with pyblst, node signatures with cryptography, every switch) — a broken peer would make the agent tests
/// meaningless.
@Test(.vectors("ic"), .offPool) func fakeReplicaPassesItsIndependentSelfTest() throws {
    let result = try Subprocess.python("ic_replica_selftest.py")
    #expect(result.status == 0, "\(result.stdoutText)\n\(result.stderrText)")
    #expect(result.stdoutText.contains(" 0 failed"), "\(result.stdoutText)")
}
