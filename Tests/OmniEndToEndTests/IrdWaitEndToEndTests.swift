import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `--wait` on queued actions and `omni ird jobs run`, against the peer (its actions and jobs move one state a
/// poll); small --poll-interval values keep the tests quick, the loop itself is the product's.
extension IrdEndToEndTests {
    func lines() throws -> [String] {
        try operationRequests().map { "\($0["method"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" }
    }

    @Test func waitPollsAQueuedActionThroughItsLink() throws {
        try fetch()
        let done = try ird(["registrations", "register-domain", "-F", "domain=wait.ro", "-F", "years=1", "--wait", "--poll-interval", "10ms", "-o", "json"])
        #expect(done.status == 0, "\(done.stderrText)")
        #expect(try json(done)["state"] == "succeeded", "the final action is printed")
        let requests = try lines()
        #expect(requests.first == "POST /v1/registrations" && requests.count == 3)
        #expect(requests.dropFirst().allSatisfy { $0.hasPrefix("GET /v1/registrations/actions/") }, "\(requests)")

        let failed = try ird(["registrations", "register-domain", "-F", "domain=fail.ro", "-F", "years=1", "--wait", "--poll-interval", "10ms", "-o", "json"])
        #expect(failed.status == 1, "\(failed.stderrText)")
        #expect(try json(failed)["state"] == "failed")

        let vps = try ird(["vps", "create-instance", "-F", "name=web-9", "-F", "plan=small", "--wait", "--poll-interval", "10ms", "-o", "json"])
        #expect(try vps.status == 0 && json(vps)["state"] == "succeeded", "\(vps.stderrText)")

        let noWait = try ird(["registrations", "register-domain", "-F", "domain=later.ro", "-F", "years=1", "-o", "json"])
        #expect(try json(noWait)["action"]?["state"] == "queued", "without --wait the queued action is printed as it came")
        try expectNoViolations()
    }

    @Test func aCancelledActionExitsOneAndADeadlineFive() throws {
        try fetch()
        try script("getRegistrationAction", 200, ["id": "act-x", "kind": "register", "state": "cancelled", "created_at": "2026-01-01T00:00:00Z", "error": .null])
        let cancelled = try ird(["registrations", "register-domain", "-F", "domain=c.ro", "-F", "years=1", "--wait", "--poll-interval", "10ms", "-o", "json"])
        #expect(try cancelled.status == 1 && json(cancelled)["state"] == "cancelled", "\(cancelled.stderrText)")

        let late = try ird(["registrations", "register-domain", "-F", "domain=slow.ro", "-F", "years=1", "--wait", "--poll-interval", "10ms",
                            "--deadline", "25ms", "-o", "json"])
        #expect(late.status == 5, "\(late.stderrText)")
        #expect(late.stdoutText.isEmpty)
        #expect(try JSONValue.parse(late.stderrText)["error"]?["kind"] == "timed_out")
        try expectNoViolations()
    }

    @Test func jobsRunEnqueuesPollsAndFetchesTheResult() throws {
        try fetch()
        let run = try ird(["jobs", "run", "nlp-detect-language", "-f", "text=Bună ziua", "--poll-interval", "10ms", "-o", "json"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try json(run)["result"]?["language"] == "ro")
        let requests = try lines()
        #expect(requests.first == "POST /v1/jobs" && requests.last?.hasSuffix("/result") == true, "\(requests)")
        #expect(requests.filter { $0.hasPrefix("GET /v1/jobs/") && !$0.hasSuffix("/result") }.count == 2)
        let body = try JSONValue.parse(try #require(try operationRequests().first?["body"]?.stringValue))
        #expect(body == ["kind": "nlp-detect-language", "input": ["text": "Bună ziua"]])

        for kind in ["domain-availability-bulk", "embedding", "llm-chat", "llm-raw-completion", "nlp-analyze"] {
            let other = try ird(["jobs", "run", kind, "--json", #"{"text": "x"}"#, "--poll-interval", "10ms", "-o", "json"])
            #expect(try other.status == 0 && json(other)["result"]?["echo"] == ["text": "x"], "\(kind): \(other.stderrText)")
        }
        let unknown = try ird(["jobs", "run", "nlp-detect-languag"])
        #expect(unknown.status == 2 && unknown.stderrText.contains("nlp-detect-language"), "\(unknown.stderrText)")
        let late = try ird(["jobs", "run", "embedding", "--poll-interval", "10ms", "--deadline", "25ms"])
        #expect(late.status == 5, "\(late.stderrText)")
        try expectNoViolations()
    }

    /// The flows find their operations from the document: with every operationId renamed and the links following,
    /// --wait and jobs run still work.
    @Test func renamedOperationsStillWait() throws {
        var text = String(decoding: try Data(contentsOf: Repository.peer("ird/openapi.json")), as: UTF8.self)
        for id in ["getRegistrationAction", "registerDomain", "createJob", "getJob", "getJobResult"] {
            text = text.replacing("\"\(id)\"", with: "\"x\(id)Renamed\"")
        }
        #expect(!text.contains("\"getJob\""))
        let file = home.appendingPathComponent("renamed.json")
        try Data(text.utf8).write(to: file)
        #expect(try ird(["spec", "fetch", "--spec", file.path]).status == 0)
        let base = ["--base-url", try peer.string("api"), "--poll-interval", "10ms", "-o", "json"]
        let run = try ird(["jobs", "run", "nlp-detect-language", "-f", "text=Bună"] + base)
        #expect(try run.status == 0 && json(run)["result"]?["language"] == "ro", "\(run.stderrText)")
        let wait = try ird(["registrations", "xregister-domain-renamed", "-F", "domain=renamed.ro", "-F", "years=1", "--wait"] + base)
        #expect(try wait.status == 0 && json(wait)["state"] == "succeeded", "\(wait.stderrText)")
        try expectNoViolations()
    }
}
