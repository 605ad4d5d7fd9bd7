import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `omni ird` against Tests/Peers/ird_peer.py, which serves the hand-written test document and checks every request
/// omni sends against it with openapi-core: each test ends with no violation recorded.
@Suite(.serialized, .offPool)
struct IrdEndToEndTests {
    static let shared = Result { try PeerProcess(script: "ird_peer.py") }

    let peer: PeerProcess
    let home: URL
    let apiKey: String

    init() throws {
        peer = try Self.shared.get()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("omni-ird-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        apiKey = try peer.string("api_key")
        try peer.requestJSON("/_control/reset", method: "POST")
    }

    var environment: [String: String] {
        ["XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
         "IRD_API_KEY": apiKey]
    }

    func omni(_ arguments: [String], environment extra: [String: String] = [:], removing: [String] = [], stdin: Data? = nil) throws -> ProcessResult {
        var env = environment.merging(extra) { $1 }
        for name in removing { env[name] = nil }
        var full = Omni.environment(env)
        for name in removing { full[name] = nil }
        return try Subprocess.run(Omni.executable, arguments, stdin: stdin ?? Data(), environment: full)
    }

    func ird(_ arguments: [String], environment extra: [String: String] = [:], removing: [String] = []) throws -> ProcessResult {
        try omni(["ird"] + arguments, environment: extra, removing: removing)
    }

    func fetch() throws {
        let result = try ird(["spec", "fetch", "--spec", try peer.string("spec_url")])
        #expect(result.status == 0, "\(result.stderrText)")
    }

    func json(_ result: ProcessResult) throws -> JSONValue { try JSONValue.parse(result.stdoutText) }

    func control() throws -> JSONValue { try peer.requestJSON("/_control") }

    /// Requests of the document's operations the peer has seen since the reset.
    func operationRequests() throws -> [JSONValue] {
        (try control()["requests"]?.arrayValue ?? []).filter { $0["path"]?.stringValue?.hasPrefix("/v1/") == true }
    }

    func expectNoViolations(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let state = try control()
        #expect(state["violations"] == [], "openapi-core found requests that do not fit the document: \(state["violations"]?.serialized() ?? "")",
                sourceLocation: sourceLocation)
        #expect(state["response_violations"] == [], "the peer answered outside the document: \(state["response_violations"]?.serialized() ?? "")",
                sourceLocation: sourceLocation)
    }

    func writeSession() throws {
        let directory = home.appendingPathComponent("config/omni/ird")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("session.json")
        let session = #"{"format": "omni-ird-session", "version": 1, "access_token": "\#(try peer.string("session_token"))", "token_type": "Bearer"}"#
        try Data(session.utf8).write(to: file)
        chmod(file.path, 0o600)
    }

    // MARK: The document

    @Test func withoutADocumentEveryOperationSaysHowToGetOne() throws {
        let operation = try ird(["domains", "list", "--limit", "5"])
        #expect(operation.status == 7, "\(operation.stderrText)")
        #expect(operation.stderrText.contains("run 'omni ird spec fetch'") && operation.stderrText.contains("/omni/ird/openapi.json"))
        let scripted = try ird(["domains", "list", "--limit", "5", "-o", "json"])
        let report = try JSONValue.parse(scripted.stderrText.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(scripted.status == 7 && report["error"]?["kind"] == "no_document", "-o json applies anywhere: \(scripted.stderrText)")
        #expect(try ird(["spec", "show"]).status == 7)
        #expect(try ird(["api", "GET", "/credits/balance"]).status == 7, "no base URL without a document or --base-url")
        let help = try ird([])
        #expect(help.status == 0 && help.stdoutText.contains("spec") && help.stdoutText.contains("auth"))
        #expect(try operationRequests().isEmpty)
    }

    @Test func fetchCachesAndRevalidatesWithTheETag() throws {
        let first = try ird(["spec", "fetch", "--spec", try peer.string("spec_url"), "-o", "json"])
        #expect(first.status == 0, "\(first.stderrText)")
        let firstJSON = try json(first)
        #expect(firstJSON["operations"] == 41 && firstJSON["changed"] == true)
        let etag = try #require(try json(first)["etag"]?.stringValue)
        let second = try json(try ird(["spec", "fetch", "--spec", try peer.string("spec_url"), "-o", "json"]))
        #expect(second["changed"] == false)
        let fetches = (try control()["requests"]?.arrayValue ?? []).filter { $0["path"] == "/openapi.json" }
        #expect(fetches.map { $0["if_none_match"] ?? .null } == [.null, .string(etag)], "the second fetch asks with the cached ETag")
        _ = try peer.requestJSON("/_control/etag")   // a new ETag for the same bytes
        let third = try json(try ird(["spec", "fetch", "--spec", try peer.string("spec_url"), "-o", "json"]))
        #expect(third["changed"] == false && third["etag"]?.stringValue != etag)
        // A broken document is refused with its line and column, and the cached copy stays.
        let broken = home.appendingPathComponent("broken.json")
        try Data("{\"openapi\": \"3.0.3\",\n \"info\": {\"title\": \"x\", \"version\": \"1\"},\n \"paths\": {\"/a/{id}\": {\"get\": {\"responses\": {}}}}}".utf8).write(to: broken)
        let refused = try ird(["spec", "fetch", "--spec", broken.path])
        #expect(refused.status == 3 && refused.stderrText.contains("no path parameter 'id'") && refused.stderrText.contains("line 3"),
                "\(refused.stderrText)")
        let show = try ird(["spec", "show", "-o", "json"])
        let summary = try json(show)
        #expect(show.status == 0 && summary["operation_count"] == 41)
    }

    @Test func diffSaysWhatChanged() throws {
        try fetch()
        let changed = try ird(["spec", "diff", "--spec", try peer.string("spec_v2_url"), "-o", "json"])
        #expect(changed.status == 1, "\(changed.stderrText)")
        let diff = try json(changed)
        #expect(diff["operations_added"] == ["renewRegistration (POST /registrations/{registration_id}/renew)"])
        #expect(diff["operations_removed"] == ["listP2pApps (GET /p2p/apps)"])
        #expect(diff["fields_added"]?.arrayValue?.contains("Instance.ipv6") == true)
        let text = try ird(["spec", "diff", "--spec", try peer.string("spec_v2_url")])
        #expect(text.stdoutText.contains("+ renewRegistration") && text.stdoutText.contains("- listP2pApps"))
        let same = try ird(["spec", "diff", "--spec", try peer.string("spec_url")])
        #expect(same.status == 0 && same.stdoutText.contains("no differences"), "\(same.stderrText)")
    }

    @Test func theBaseURLComesFromTheFlagOverTheDocument() throws {
        // The file's own server is the real service; --base-url and OMNI_IRD_BASE_URL send the same operation here.
        let local = try ird(["spec", "fetch", "--spec", Repository.peer("ird/openapi.json").path])
        #expect(local.status == 0, "\(local.stderrText)")
        let flag = try ird(["credits", "get-balance", "--base-url", try peer.string("api"), "-o", "json"])
        #expect(flag.status == 0 && flag.stdoutText.contains("509.72"), "\(flag.stderrText)")
        let variable = try ird(["credits", "get-balance", "-o", "json"], environment: ["OMNI_IRD_BASE_URL": try peer.string("api")])
        #expect(variable.status == 0, "\(variable.stderrText)")
        let bad = try ird(["credits", "get-balance", "--base-url", "ftp://x"])
        #expect(bad.status == 7 && bad.stderrText.contains("is not an http:// or https:// URL"), "\(bad.stderrText)")
        #expect(try operationRequests().count == 2)
        try expectNoViolations()
    }

    // MARK: Every operation

    @Test func everyGeneratedCommandRunsAgainstThePeerWithoutAViolation() throws {
        try fetch()
        try writeSession()
        var seen = Set<String>()
        @discardableResult
        func run(_ arguments: [String], session: Bool = false, expect status: Int32 = 0) throws -> JSONValue? {
            let result = try ird(arguments + ["-o", "json"], removing: session ? ["IRD_API_KEY"] : [])
            #expect(result.status == status, "omni ird \(arguments.joined(separator: " ")): \(result.stderrText)")
            return status == 0 ? try? json(result) : nil
        }
        // Device login is anonymous: the API key in the environment must not travel with it (the peer checks).
        let device = try #require(try run(["auth", "start-device-login"])?["device_code"]?.stringValue)
        try run(["auth", "poll-device-login", "-F", "device_code=\(device)"], expect: 4)   // 400 authorization_pending
        try run(["auth", "poll-device-login", "-F", "device_code=\(device)"], expect: 4)   // 429 slow_down
        #expect(try run(["auth", "poll-device-login", "-F", "device_code=\(device)"])?["state"] == "approved")
        let token = try run(["auth", "complete-device-login", "-f", "device_code=\(device)", "-f", "confirmation_code=\(try peer.string("confirmation_code"))"])
        #expect(token?["token_type"] == "Bearer")
        #expect(try run(["auth", "get-me"])?["credential"] == "api_key")
        #expect(try run(["auth", "get-me"], session: true)?["credential"] == "session")

        #expect(try run(["credits", "get-balance"])?["total"] == "509.72")
        #expect(try run(["credits", "list-ledger", "--limit", "2", "--offset", "0", "--kind", "usage"])?["items"]?.arrayValue?.count == 2)
        try run(["support", "list-threads", "--state", "open", "--limit", "5"])
        try run(["support", "create-thread", "-f", "subject=Renewal", "-f", "message=When?", "-F", "priority=high"])

        #expect(try run(["domains", "check", "free.ro"])?["price"] == "12.50")
        #expect(try run(["domains", "check", "free.ro"], session: true) != nil)
        let page = try run(["domains", "list", "--limit", "2", "--status", "taken", "--status", "premium"])
        #expect(page?["next_cursor"] == "2")
        try run(["domains", "list", "--cursor", "4"])
        try run(["domains", "get", "site1.ro"])

        try run(["registrations", "list", "--limit", "2", "--offset", "2"])
        let action = try #require(try run(["registrations", "register-domain", "-F", "domain=new.ro", "-F", "years=2", "-F", "use_our_dns=false"])?["action"]?["id"]?.stringValue)
        #expect(try run(["registrations", "get-action", action])?["state"] == "running")
        try run(["registrations", "list-actions", "reg-1", "--cursor", "0"])
        #expect(try run(["registrations", "set-auto-renew", "reg-1", "-F", "auto_renew=false"])?["auto_renew"] == false)

        let record = try #require(try run(["dns", "create-record", "site1.ro", "--json", #"{"type": "A", "name": "www", "value": "192.0.2.1", "ttl": 300}"#])?["id"]?.stringValue)
        try run(["dns", "create-record", "site1.ro", "-F", "type=MX", "-F", "name=@", "-F", "value=mx.site1.ro", "-F", "priority=10"])
        #expect(try run(["dns", "list-records", "site1.ro", "--type", "A"])?["records"]?.arrayValue?.count == 1)
        try run(["dns", "delete-record", "site1.ro", record])

        try run(["vps", "list-instances"])
        let vps = try #require(try run(["vps", "create-instance", "-F", "name=web-2", "-F", "plan=small"])?["action"]?["id"]?.stringValue)
        try run(["vps", "get-action", vps])

        let upload = try #require(try run(["ipfs", "create-upload-grant", "-F", "name=site.car", "-F", "format=car", "-F", "size=1024"])?["upload_id"]?.stringValue)
        #expect(try run(["ipfs", "get-upload", upload])?["state"] == "pending")
        try run(["pins", "list", "--limit", "1"])
        try run(["pins", "list-domain", "site1.ro", "--limit", "1", "--offset", "1"])

        let tunnel = try #require(try run(["tunnels", "create", "-f", "hostname=demo.site1.ro"])?["id"]?.stringValue)
        try run(["tunnels", "list"])
        try run(["tunnels", "delete", tunnel])

        try run(["p2p", "list-apps"])
        try run(["p2p", "mint-mailbox-credentials", "app-1"])

        try run(["sharing", "create-share", "-f", "domain=site1.ro", "-f", "email=friend@example.ro", "-f", "role=viewer"], session: true)
        try run(["sharing", "list-shares"], session: true)

        let transfer = try #require(try run(["transfers", "start", "-f", "domain=moving.ro", "-f", "auth_code=EPP-1", "--totp", try peer.string("totp")])?["id"]?.stringValue)
        try run(["transfers", "get", transfer])

        let job = try #require(try run(["jobs", "create", "-F", "kind=nlp-detect-language", "-f", "input.text=Bună ziua"])?["id"]?.stringValue)
        try run(["jobs", "get", job])
        try run(["jobs", "get", job])
        #expect(try run(["jobs", "get-result", job])?["result"]?["language"] == "ro")

        try run(["api-keys", "list"], session: true)
        try run(["api-keys", "create", "-f", "name=deploy", "-F", "expires_in_days=30", "--totp", try peer.string("totp")], session: true)
        try run(["api-keys", "delete", "key-1"], session: true)

        for request in try operationRequests() { if let id = request["operation_id"]?.stringValue { seen.insert(id) } }
        let document = try JSONValue.parse([UInt8](try Data(contentsOf: Repository.peer("ird/openapi.json"))))
        var all = Set<String>()
        for (_, item) in document["paths"]?.objectValue ?? JSONObject() {
            for (_, operation) in item.objectValue ?? JSONObject() { if let id = operation["operationId"]?.stringValue { all.insert(id) } }
        }
        #expect(all.count == 41)
        #expect(all.subtracting(seen).isEmpty, "operations never exercised: \(all.subtracting(seen).sorted())")
        try expectNoViolations()
    }

    @Test func parametersAndBodiesAreCheckedBeforeAnythingIsSent() throws {
        try fetch()
        let cases: [([String], Int32, String)] = [
            (["credits", "list-ledger", "--limit", "many"], 2, "--limit: expected an integer, got 'many'"),
            (["credits", "list-ledger", "--limit", "500"], 2, "--limit"),
            (["credits", "list-ledger", "--kind", "gift"], 2, "is not one of purchase, usage, refund"),
            (["dns", "create-record", "site1.ro", "-F", "type=MX", "-F", "name=@", "-F", "value=mx.ro"], 3, "$.priority"),
            (["dns", "create-record", "site1.ro", "-F", "type=A", "-F", "name=a", "-F", "value=v", "-F", "ttl=5"], 3, "$.ttl"),
            (["registrations", "register-domain", "-F", "domain=a.ro", "-F", "years=1", "-F", "color=red"], 3, "$.color"),
            (["registrations", "register-domain", "-F", "domain=a.ro", "-F", "years=one"], 3, "field years: expected a number"),
            (["registrations", "register-domain"], 3, "needs a request body"),
            (["registrations", "register-domain", "--json", "{\"domain\": \"a.ro\",\n \"years\": }"], 3, "line 2"),
            (["domains", "get"], 2, "missing argument <domain>"),
            (["domains", "lst"], 2, "did you mean 'omni ird domains list'"),
            (["domans", "list"], 2, "did you mean 'omni ird domains'"),
            (["credits", "get-balance", "--api-key", apiKey], 2, "never the key itself"),
        ]
        for (arguments, status, message) in cases {
            let result = try ird(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderrText)")
            #expect(result.stderrText.contains(message), "\(arguments): \(result.stderrText)")
        }
        let anonymous = try ird(["credits", "get-balance"], removing: ["IRD_API_KEY"])
        #expect(anonymous.status == 6 && anonymous.stderrText.contains("nothing was sent"), "\(anonymous.stderrText)")
        let reached = try operationRequests()
        #expect(reached.isEmpty, "no request reached the peer: \(reached)")
        // --no-validate sends what the document would refuse; the peer's openapi-core catches it.
        let unchecked = try ird(["registrations", "register-domain", "-F", "domain=a.ro", "-F", "years=1", "-F", "color=red", "--no-validate"])
        #expect(unchecked.status == 4, "\(unchecked.stderrText)")
        #expect(try control()["violations"]?.arrayValue?.count == 1, "openapi-core refused the unchecked body")
        try peer.requestJSON("/_control/reset", method: "POST")
    }

    // MARK: Errors

    func script(_ operation: String, _ status: Int, _ body: JSONValue, headers: JSONValue = [:], deliberate: Bool = false) throws {
        try peer.requestJSON("/_control/script", method: "POST",
                             body: ["operation_id": .string(operation), "status": .int(status), "body": body, "headers": headers,
                                    "deliberate": .bool(deliberate)])
    }

    @Test func oneErrorTableForEveryOperation() throws {
        try fetch()
        try script("getCreditBalance", 429, ["code": "rate-limited", "message": "slow down"], headers: ["Retry-After": "30"])
        let limited = try ird(["credits", "get-balance"])
        #expect(limited.status == 4 && limited.stderrText.contains("rate limited") && limited.stderrText.contains("retry after 30 s")
                && limited.stderrText.contains("omni never retries by itself"), "\(limited.stderrText)")
        #expect(try operationRequests().count == 1, "no automatic retry")
        try script("listTunnels", 503, ["code": "unavailable", "message": "maintenance"], deliberate: true)   // not in the document
        #expect(try ird(["tunnels", "list"]).status == 5)
        let credits = try ird(["registrations", "register-domain", "-F", "domain=expensive.ro", "-F", "years=1"])
        #expect(credits.status == 4 && credits.stderrText.contains("insufficient credits (HTTP 402") && credits.stderrText.contains("900.00"),
                "\(credits.stderrText)")
        let missing = try ird(["domains", "get", "nothere.ro", "-o", "json"])
        #expect(missing.status == 4)
        let report = try JSONValue.parse(String(missing.stderrText.split(separator: "\n").last ?? ""))
        #expect(report["error"]?["kind"] == "not_found" && report["error"]?["exit_code"] == 4)
        let badKey = try ird(["credits", "get-balance"], environment: ["IRD_API_KEY": "ird_wrong_key_000000000"])
        #expect(badKey.status == 6 && badKey.stderrText.contains("not authorised"), "\(badKey.stderrText)")
        let accountOnly = try ird(["api-keys", "list"])
        #expect(accountOnly.status == 6 && accountOnly.stderrText.contains("account-session-required"), "\(accountOnly.stderrText)")
        let noCode = try ird(["transfers", "start", "-f", "domain=a.ro", "-f", "auth_code=x"])
        #expect(noCode.status == 6 && noCode.stderrText.contains("totp-required") && noCode.stderrText.contains("--totp CODE"), "\(noCode.stderrText)")
        let wrongCode = try ird(["transfers", "start", "-f", "domain=a.ro", "-f", "auth_code=x", "--totp", "000000"])
        #expect(wrongCode.status == 6 && wrongCode.stderrText.contains("invalid-totp"), "\(wrongCode.stderrText)")
        let sensitive = try ird(["transfers", "start", "-f", "domain=bank.ro", "-f", "auth_code=x", "--totp", try peer.string("totp")])
        #expect(sensitive.status == 6 && sensitive.stderrText.contains("needs an account session") && sensitive.stderrText.contains("omni ird login"),
                "\(sensitive.stderrText)")
        // An answer that does not fit the document is an error, and nothing reaches stdout.
        try script("getCreditBalance", 200, ["total": .number("509.72"), "currency": "RON"], deliberate: true)
        let float = try ird(["credits", "get-balance"])
        #expect(float.status == 1 && float.stdoutText.isEmpty && float.stderrText.contains("$.total"), "\(float.stderrText)")
        try script("deleteTunnel", 200, ["deleted": true], deliberate: true)
        let undocumented = try ird(["tunnels", "delete", "tun-9"])
        #expect(undocumented.status == 1 && undocumented.stdoutText.isEmpty && undocumented.stderrText.contains("does not list"),
                "\(undocumented.stderrText)")
        try script("getCreditBalance", 200, ["total": .number("509.72"), "currency": "RON"], deliberate: true)
        let unchecked = try ird(["credits", "get-balance", "--no-validate", "-o", "json"])
        #expect(unchecked.status == 0 && unchecked.stdoutText == #"{"total":509.72,"currency":"RON"}"# + "\n", "asked for by name: printed as it came")
        try expectNoViolations()
    }

    /// On a terminal, a totp-required answer asks for the code and repeats the request once with it.
    static let totpDriver = #"""
        import os, pty, select, sys
        omni = sys.argv[1]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(omni, [omni, 'ird', 'transfers', 'start', '-f', 'domain=typed.ro', '-f', 'auth_code=x', '-o', 'json'])
        seen = b''
        while b'Authenticator code: ' not in seen:
            readable, _, _ = select.select([fd], [], [], 30)
            if not readable:
                raise SystemExit('no prompt; got %r' % seen)
            seen += os.read(fd, 4096)
        os.write(fd, sys.argv[2].encode() + b'\r')
        rest = b''
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            rest += chunk
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(rest.decode(errors='replace'))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#

    @Test func aTerminalIsAskedForTheCodeAndTheRequestRepeatedOnce() throws {
        try fetch()
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", Self.totpDriver, Omni.executable, try peer.string("totp")],
                                        environment: Omni.environment(environment))
        #expect(result.status == 0, "\(result.stdoutText) \(result.stderrText)")
        #expect(result.stdoutText.contains("\"domain\":\"typed.ro\""), "\(result.stdoutText)")
        let transfers = try operationRequests().filter { $0["operation_id"] == "startTransfer" }
        #expect(transfers.count == 2, "the first without a code, then once with the typed one")
        try expectNoViolations()
    }

    // MARK: Values

    @Test func moneyStaysADecimalStringInEveryOutputForm() throws {
        try fetch()
        let text = try ird(["credits", "get-balance"])
        #expect(text.stdoutText.contains("total:    509.72"), "\(text.stdoutText)")
        #expect(try ird(["credits", "get-balance", "-o", "json"]).stdoutText == #"{"total":"509.72","currency":"RON"}"# + "\n")
        #expect(try ird(["credits", "get-balance", "-o", "jsonl"]).stdoutText == #"{"total":"509.72","currency":"RON"}"# + "\n")
        let ledger = try ird(["credits", "list-ledger", "-o", "json"]).stdoutText
        #expect(ledger.contains(#""amount":"0.1""#) && ledger.contains(#""amount":"0.2""#) && ledger.contains(#""amount":"509.72""#))
        let lines = try ird(["credits", "list-ledger", "-o", "jsonl"]).stdoutText
        #expect(lines.split(separator: "\n").count == 1 && lines.contains(#""amount":"0.1""#) && lines.contains(#""amount":"0.2""#))
        let table = try ird(["credits", "list-ledger"]).stdoutText
        #expect(table.contains("led-1\t0.1\t") && table.contains("led-2\t0.2\t"), "\(table)")
        // A field the schema declares as a string stays one, whatever it looks like; free-form ones keep the digits typed.
        _ = try ird(["support", "create-thread", "-F", "subject=509.72", "-F", "message=0.1"])
        _ = try ird(["jobs", "create", "-F", "kind=embedding", "-F", "input.amount=0.10", "-F", "input.total=509.72"])
        let bodies = try operationRequests().compactMap { $0["body"]?.stringValue }
        #expect(bodies.contains(#"{"subject":"509.72","message":"0.1"}"#), "\(bodies)")
        #expect(bodies.contains(#"{"kind":"embedding","input":{"amount":0.10,"total":509.72}}"#), "\(bodies)")
        try expectNoViolations()
    }

    @Test func unknownFieldsAreKeptAndReportedWithCheckDrift() throws {
        try fetch()
        let kept = try ird(["domains", "get", "drift.ro", "-o", "json"])
        let keptJSON = try json(kept)
        #expect(kept.status == 0 && keptJSON["registrar_lock"] == true, "\(kept.stderrText)")
        let checked = try ird(["domains", "get", "drift.ro", "--check-drift"])
        #expect(checked.status == 1 && checked.stderrText.contains("drift: $.registrar_lock: is not in the document's schema"), "\(checked.stderrText)")
        let open = try ird(["domains", "check", "weird.ro", "-o", "json"])
        let openJSON = try json(open)
        #expect(open.status == 0 && openJSON["status"] == "pending-delete", "an open enum passes")
        #expect(try ird(["domains", "check", "weird.ro", "--check-drift"]).stderrText.contains("passed through"))
        #expect(try ird(["credits", "get-balance", "--check-drift"]).status == 0)
        try expectNoViolations()
    }

    // MARK: Help, completions, the tree

    @Test func helpAndCompletionsComeFromTheDocument() throws {
        try fetch()
        let record = try ird(["dns", "create-record", "--help"]).stdoutText
        #expect(record.contains("OVERVIEW: Add a record."))
        #expect(record.contains("POST /domains/{domain}/dns/records (operationId createDnsRecord)"))
        #expect(record.contains("one of AddressRecord, TextRecord, MxRecord") && record.contains("priority (required)"), "\(record)")
        #expect(record.contains("Answers 201") && record.contains("-F, --field") && record.contains("-f, --raw-field"))
        let register = try ird(["registrations", "register-domain", "--help"]).stdoutText
        #expect(register.contains("Answers 202: Queued: poll the action.") && register.contains("'omni ird registrations get-action'"), "\(register)")
        #expect(register.contains("years (required)") && register.contains("at most 10"))
        let ledger = try ird(["credits", "list-ledger", "--help"]).stdoutText
        #expect(ledger.contains("one of purchase, usage, refund") && ledger.contains("at most 100"))
        #expect(try ird(["transfers", "start", "--help"]).stdoutText.contains("--totp"))
        #expect(try ird(["auth", "start-device-login", "--help"]).stdoutText.contains("Anonymous: no credential is ever sent"))

        func complete(_ words: [String]) throws -> [String] {
            try omni(["__complete-line", "--"] + words).stdoutText.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["ird", "d"]) == ["domains", "dns"])
        #expect(try complete(["ird", "auth", ""]).starts(with: ["status", "logout", "start-device-login"]))
        #expect(try complete(["ird", "credits", "list-ledger", "--kind", ""]) == ["purchase", "usage", "refund"])
        #expect(try complete(["ird", "domains", "list", "--status", "p"]) == ["premium"])
        #expect(try complete(["ird", "support", "create-thread", "--"]).contains("--field"))

        let tree = try JSONValue.parse(try omni(["__dump-help"]).stdoutText)
        let globals = tree["global_options"]?.arrayValue ?? []
        let shorts = Set(globals.compactMap { $0["short"]?.stringValue } + ["-h"])
        let longs = Set(globals.compactMap { $0["name"]?.stringValue } + ["--help"])
        var generated = 0
        var clashes: [String] = []
        func visit(_ command: JSONValue) {
            if command["path"]?.stringValue?.hasPrefix("omni ird ") == true, command["runnable"] == true { generated += 1 }
            for option in command["options"]?.arrayValue ?? [] {
                if let short = option["short"]?.stringValue, shorts.contains(short) { clashes.append("\(command["path"] ?? "") \(short)") }
                if let long = option["name"]?.stringValue, longs.contains(long) { clashes.append("\(command["path"] ?? "") \(long)") }
            }
            command["subcommands"]?.arrayValue?.forEach(visit)
        }
        if let root = tree["command"] { visit(root) }
        #expect(generated >= 40 + 6, "the document's 40 operations and omni's own ird commands")
        #expect(clashes.isEmpty, "\(clashes)")
    }

    // MARK: The escape hatch and credentials

    @Test func apiSendsAnyRequestWithTheSameBaseURLAndCredential() throws {
        try fetch()
        let balance = try ird(["api", "GET", "/credits/balance", "-o", "json"])
        #expect(balance.status == 0 && balance.stdoutText == #"{"total":"509.72","currency":"RON"}"# + "\n", "\(balance.stderrText)")
        let tunnel = try ird(["api", "POST", "/tunnels", "-f", "hostname=api.site1.ro", "-o", "json"])
        let tunnelJSON = try json(tunnel)
        #expect(tunnel.status == 0 && tunnelJSON["hostname"] == "api.site1.ro", "\(tunnel.stderrText)")
        #expect(try ird(["api", "GET", "/domains", "-F", "limit=1", "-o", "json"]).stdoutText.contains(#""next_cursor":"1""#))
        let device = try ird(["api", "POST", "/auth/device/start", "-o", "json"])
        #expect(device.status == 0, "an anonymous operation through the escape hatch: \(device.stderrText)")
        // The same service by another name is another host: no credential goes there.
        let url = try peer.string("api").replacing("127.0.0.1", with: "localhost")
        let elsewhere = try ird(["api", "GET", url + "/credits/balance"])
        #expect(elsewhere.status == 6, "\(elsewhere.stderrText)")
        let requests = try operationRequests()
        #expect(requests.last?["authorization"] == false)
        #expect(requests.first(where: { $0["operation_id"] == "startDeviceLogin" })?["authorization"] == false)
        try peer.requestJSON("/_control/reset", method: "POST")   // the last request has no credential on purpose
    }

    @Test func authStatusNamesTheCredentialNeverTheToken() throws {
        let env = try ird(["auth", "status", "-o", "json"])
        #expect(env.status == 0, "\(env.stderrText)")
        let status = try json(env)
        #expect(status["credential"] == "api_key" && status["source"] == "environment variable IRD_API_KEY")
        #expect(status["token"] == .string("ird_…" + apiKey.suffix(4)))
        #expect(!env.stdoutText.contains(apiKey) && !env.stderrText.contains(apiKey))
        try writeSession()
        let session = try ird(["auth", "status"], removing: ["IRD_API_KEY"])
        #expect(session.status == 0 && session.stdoutText.contains("account session"), "\(session.stdoutText)")
        #expect(!session.stdoutText.contains(try peer.string("session_token")))
        let keyFile = home.appendingPathComponent("key")
        try Data((apiKey + "\n").utf8).write(to: keyFile)
        chmod(keyFile.path, 0o644)
        let exposed = try ird(["auth", "status", "--api-key", "@" + keyFile.path])
        #expect(exposed.status == 7 && exposed.stderrText.contains("chmod 600"), "\(exposed.stderrText)")
        chmod(keyFile.path, 0o600)
        #expect(try ird(["auth", "status", "--api-key", "@" + keyFile.path]).stdoutText.contains("--api-key @" + keyFile.path))
        let logout = try ird(["auth", "logout"])
        #expect(logout.status == 0 && logout.stdoutText.contains("yes"))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("config/omni/ird/session.json").path))
        #expect(try ird(["auth", "logout"]).stdoutText.contains("no stored session"))
        let none = try ird(["auth", "status"], removing: ["IRD_API_KEY"])
        #expect(none.status == 1 && none.stdoutText.contains("none"))
    }
}
