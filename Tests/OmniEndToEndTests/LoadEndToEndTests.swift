import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// The short form of the load runs (issue 17, "Limits and load"): Tests/Peers/load_peer.py drives the relay, the
/// TrUAPI bridge and the attest store on loopback, each loop bounded in count and in time, and reports what
/// happened; here only correctness is judged — no error, no lost frame, fds back to the start count, exactly-once —
/// and memory with a bound generous enough for a loaded machine (the 10 % one is `make bench`'s 60-second run).
@Suite(.serialized, .timeLimit(.minutes(3)), .offPool) struct LoadEndToEndTests {
    /// Resident memory after the warm-up may grow by this share at most in a few seconds of load (a leak of a
    /// session's or connection's state grows without bound; allocator pools settling stay well within).
    static let shortRunRSSGrowth = 0.5

    @Test func sixtyFourConnectSessionsThroughTheRelay() async throws {
        let report = try await Self.drive(["relay", "--sessions", "64", "--seconds", "4", "--max-sessions", "192",
                                           "--frames-per-session", "8"])
        let sessions = try Self.int(report, "sessions")
        #expect(try Self.int(report, "errors") == 0, "\(report["first_errors"]?.serialized() ?? "")")
        #expect(sessions >= 64, "every slot completed a session")
        #expect(try Self.int(report, "lost_frames") == 0)
        #expect(try Self.int(report, "frames_relayed") == sessions * 2 * 8, "8 pings and 8 pongs per session, each compared")
        #expect(try Self.int(report, "terminated_sessions") == 0, "no session ended by the relay's rules")
        try Self.expectFlatAndClosed(report)
        #expect(try Self.int(report, "exit_status") == 130, "SIGINT: a clean shutdown")
    }

    @Test func thirtyTwoBridgeConnectionsOfRequestsAndSubscriptions() async throws {
        let report = try await Self.drive(["truapi", "--connections", "32", "--seconds", "4", "--operations-per-connection", "20",
                                           "--max-operations", "3000"])
        #expect(try Self.int(report, "errors") == 0, "\(report["first_errors"]?.serialized() ?? "")")
        #expect(try Self.int(report, "connections") >= 32)
        let requests = try Self.int(report, "requests"), subscriptions = try Self.int(report, "subscriptions")
        #expect(requests >= 32 && subscriptions >= 32, "both kinds on every connection")
        #expect(try Self.int(report, "frames") == 2 * (requests + subscriptions), "every request and subscription answered")
        try Self.expectFlatAndClosed(report)
        #expect(try Self.int(report, "exit_status") == 130, "SIGINT: a clean shutdown")
    }

    @Test func eightProcessesEnrollAndVerifyExactlyOnce() async throws {
        let keys = 8
        let report = try await Self.drive(["attest", "--processes", "8", "--keys", String(keys), "--seconds", "120"])
        #expect(try Self.int(report, "errors") == 0, "\(report["first_errors"]?.serialized() ?? "")")
        #expect(try Self.int(report, "enroll_processes") == 2 * keys, "each enrollment raced by two processes")
        #expect(try Self.int(report, "verify_processes") == 2 * keys, "each verification raced by two processes")
        #expect(try Self.int(report, "accepted_enrollments") == keys, "one enrollment accepted per challenge")
        #expect(try Self.int(report, "accepted_verifications") == keys, "one verification accepted per challenge and counter")
        #expect(try Self.int(report, "keys_in_store") == keys)
    }

    // MARK: - Helpers

    static func drive(_ arguments: [String]) async throws -> JSONValue {
        let result = try await offPool { try Subprocess.python("load_peer.py", arguments + ["--omni", Omni.executable]) }
        guard result.status == 0, let last = result.stdoutText.split(separator: "\n").last else {
            throw TestSupportError("load_peer.py \(arguments.first ?? "") failed (\(result.status)): \(result.stderrText)")
        }
        return try JSONValue.parse(String(last))
    }

    static func int(_ report: JSONValue, _ key: String) throws -> Int {
        guard let value = report[key]?.int64Value else { throw TestSupportError("the report has no \(key): \(report.serialized())") }
        return Int(value)
    }

    static func expectFlatAndClosed(_ report: JSONValue) throws {
        let warm = try int(report, "rss_warm"), peak = try int(report, "rss_peak_after_warmup")
        #expect(Double(peak) <= Double(warm) * (1 + shortRunRSSGrowth),
                "RSS after the warm-up: \(warm) → peak \(peak) (\(report["rss_trace_mib"]?.serialized() ?? "") MiB)")
        #expect(try int(report, "fds_end") == int(report, "fds_start"),
                "fds back to the start count; new: \(report["new_fds"]?.serialized() ?? "")")
    }
}
