import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `--all` against the peer: cursor pages followed to the end, limit/offset walked until a short page, `--limit`
/// capping the items in all; json is one array, jsonl one item a line.
extension IrdEndToEndTests {
    func seed(domains: Int, registrations: Int) throws {
        try peer.requestJSON("/_control/seed", method: "POST", body: ["domains": .int(domains), "registrations": .int(registrations)])
    }

    func queries(_ path: String) throws -> [String] {
        try operationRequests().filter { $0["path"]?.stringValue == path }.map { request in
            (request["query"]?.arrayValue ?? []).compactMap { pair in
                guard let items = pair.arrayValue, items.count == 2 else { return nil }
                return "\(items[0].stringValue ?? "")=\(items[1].stringValue ?? "")"
            }.joined(separator: "&")
        }
    }

    @Test func allFollowsTheCursorToTheEnd() throws {
        try fetch()
        try seed(domains: 245, registrations: 0)
        defer { try? seed(domains: 0, registrations: 0) }
        let all = try ird(["domains", "list", "--all", "-o", "json"])
        #expect(all.status == 0, "\(all.stderrText)")
        let items = try #require(try json(all).arrayValue)
        #expect(items.count == 250)
        #expect(items.first?["domain"] == "site0.ro" && items.last?["domain"] == "bulk244.ro")
        #expect(Set(items.compactMap { $0["domain"]?.stringValue }).count == 250, "no item twice")
        #expect(try queries("/v1/domains").count == 13, "20 a page (the document's default): 13 pages")

        try peer.requestJSON("/_control/reset", method: "POST")
        let capped = try ird(["domains", "list", "--all", "--limit", "130", "-o", "jsonl"])
        #expect(capped.status == 0, "\(capped.stderrText)")
        let lines = capped.stdoutText.split(separator: "\n")
        #expect(lines.count == 130)
        #expect(try JSONValue.parse(String(lines[129]))["domain"] == "bulk124.ro")
        #expect(try queries("/v1/domains") == ["limit=100", "cursor=100&limit=30"], "pages ask for what is left, at most the document's maximum")

        let onePage = try ird(["domains", "list", "--limit", "3", "-o", "json"])
        #expect(try json(onePage)["domains"]?.arrayValue?.count == 3, "without --all the answer is the one page, as it came")
        try expectNoViolations()
    }

    @Test func allWalksTheOffsetUntilAShortPage() throws {
        try fetch()
        try seed(domains: 0, registrations: 40)
        defer { try? seed(domains: 0, registrations: 0) }
        let all = try ird(["registrations", "list", "--all", "-o", "json"])
        #expect(all.status == 0, "\(all.stderrText)")
        let items = try #require(try json(all).arrayValue)
        #expect(items.count == 45)
        #expect(items.map { $0["id"]?.stringValue ?? "" } == (0..<5).map { "reg-\($0)" } + (0..<40).map { "reg-bulk-\($0)" })
        #expect(try queries("/v1/registrations") == ["", "offset=20", "offset=40"])

        try peer.requestJSON("/_control/reset", method: "POST")
        let capped = try ird(["registrations", "list", "--all", "--limit", "7", "--offset", "10", "-o", "jsonl"])
        let lines = capped.stdoutText.split(separator: "\n")
        #expect(lines.count == 7)
        #expect(try JSONValue.parse(String(lines[0]))["id"] == "reg-bulk-5")
        #expect(try queries("/v1/registrations") == ["limit=7&offset=10"])

        let empty = try ird(["support", "list-threads", "--all", "--state", "closed", "-o", "json"])
        #expect(empty.status == 0, "\(empty.stderrText)")
        #expect(try json(empty).arrayValue != nil, "json output is one array even for a short listing")
        try expectNoViolations()
    }
}
