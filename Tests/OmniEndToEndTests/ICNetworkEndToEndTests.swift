import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// The real `omni` binary against `Tests/Peers/ic_replica.py` (pyblst, cryptography, cbor2): verified queries and
/// calls, every fallback, rejects, and each attack the replica stages, refused with its reason and exit code.
@Suite(.serialized, .offPool)
struct ICNetworkEndToEndTests {
    /// One replica for the suite (tests are serialized and reset it); fresh keys per run, seed printed once.
    static let shared = Result { try PeerProcess.icReplica(for: "the ic end-to-end tests") }

    /// A second replica that is the root subnet itself (`--no-delegation`): its certificates are root-signed.
    static let rootSubnet = Result { try PeerProcess.icReplica(for: "the ic end-to-end tests", arguments: ["--no-delegation"]) }

    let replica: PeerProcess
    let url: String
    let rootKey: String
    let canister: String
    /// A fresh cache directory per test (node keys are cached there).
    let cache: String

    init() throws {
        replica = try Self.shared.get()
        url = try replica.string("url")
        rootKey = try replica.string("root_key")
        canister = try replica.string("canister_id")
        cache = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-cache-\(UUID().uuidString)").path
        try control(["action": "reset_config"])
        try control(["action": "reset_stats"])
    }

    @discardableResult
    func control(_ body: JSONValue) throws -> JSONValue {
        try replica.requestJSON("/_control", method: "POST", body: body)
    }

    func stat(_ name: String) throws -> Int {
        Int(try replica.requestJSON("/_control")["stats"]?[name]?.int64Value ?? 0)
    }

    /// `omni ic <arguments> --network <replica> --root-key <key>` with this test's cache directory.
    func omni(_ arguments: [String], trust: Bool = true, stdin: Data? = nil) throws -> ProcessResult {
        let network = ["--network", url] + (trust ? ["--root-key", rootKey] : [])
        return try Omni.run(["ic"] + arguments + network, stdin: stdin,
                            environment: ["XDG_CACHE_HOME": cache, "OMNI_IC_POLL_INTERVAL": "50ms"])
    }

    func json(_ result: ProcessResult) throws -> JSONValue { try JSONValue.parse(result.stdoutText) }

    func errorJSON(_ result: ProcessResult) throws -> JSONValue {
        guard let line = result.stderrText.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
            throw TestSupportError("no JSON error on stderr: \(result.stderrText)")
        }
        return try JSONValue.parse(String(line))
    }

    // MARK: Verified queries and calls

    @Test func queryWithNodeSignatures() throws {
        let text = try omni(["query", canister, "greet", "(\"e2e\")"])
        #expect(text.status == 0, "\(text.stderrText)")
        #expect(text.stdoutText == "(\"Hello, e2e!\")\n")
        let result = try omni(["query", canister, "greet", "(\"json\")", "--output", "json"])
        let object = try json(result)
        #expect(object["values"] == ["Hello, json!"])
        #expect(object["verification"]?["kind"] == "node_signatures")
        #expect(object["verification"]?["keys_from_cache"] == .bool(true), "the first run cached the node keys")
        #expect(try stat("node_key_reads") == 1)
        let hex = try omni(["query", canister, "greet", "4449444c00017103686578",
                            "--input-format", "hex", "--output", "hex"])
        #expect(hex.stdoutText == "4449444c0001710b48656c6c6f2c2068657821\n", "\(hex.stderrText)")
    }

    @Test func recordsShowFieldNamesFromCandidMetadataOrFile() throws {
        let did = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-\(UUID().uuidString).did")
        defer { try? FileManager.default.removeItem(at: did) }
        // The same reply bytes decoded with a .did that names them: the canister's `echo` returns its argument.
        try Data("service : { echo : (record { owner : text; amount : nat }) -> (record { owner : text; amount : nat }) query }".utf8)
            .write(to: did)
        let result = try omni(["query", canister, "echo", "(record { owner = \"me\"; amount = 7 })", "--did", did.path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.contains("owner = \"me\"") && result.stdoutText.contains("amount = 7 : nat"))
        let hex = try omni(["query", canister, "echo", "(record { owner = \"me\"; amount = 7 })", "--did", did.path, "-o", "hex"])
        let message = hex.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        // Without the file, candid:service says echo is (text) -> (text): the reply does not fit, so omni says so
        // and falls back to the wire types, whose fields are only hashes.
        let untyped = try omni(["query", canister, "echo", message, "--input-format", "hex"])
        #expect(untyped.status == 0, "\(untyped.stderrText)")
        #expect(untyped.stderrText.contains("does not match the method's result types"), "\(untyped.stderrText)")
        #expect(!untyped.stdoutText.contains("owner") && untyped.stdoutText.contains("\"me\""))
    }

    @Test func callV4SynchronousAndPolled() throws {
        let sync = try omni(["call", canister, "greet_update", "(\"sync\")", "-o", "json"])
        #expect(sync.status == 0, "\(sync.stderrText)")
        #expect(try json(sync)["values"] == ["Hello, sync!"])
        #expect(try json(sync)["verification"]?["kind"] == "certificate")
        #expect(try stat("call_v4") == 1 && stat("polls") == 0)

        try control(["call_polls": 2])
        let polled = try omni(["call", canister, "greet_update", "(\"polled\")"])
        #expect(polled.status == 0 && polled.stdoutText == "(\"Hello, polled!\")\n", "\(polled.stderrText)")
        #expect(try stat("polls") == 3)
    }

    @Test(arguments: [(["call_v4"], "call_v3", 0), (["call_v4", "call_v3"], "call_v2", 1)])
    func callFallsBackToOlderEndpoints(disabled: [String], used: String, polls: Int) throws {
        try control(["disabled_endpoints": .array(disabled.map { .string($0) })])
        let result = try omni(["call", canister, "greet_update", "(\"old\")", "--verbose"])
        #expect(result.status == 0 && result.stdoutText == "(\"Hello, old!\")\n", "\(result.stderrText)")
        #expect(try stat(used) == 1 && stat("polls") == polls)
        #expect(result.stderrText.contains("is not available (HTTP 404)"))
    }

    @Test func rejectsAreStructured() throws {
        let certified = try omni(["call", canister, "fail", "-o", "json"])
        #expect(certified.status == 4)
        let reject = try json(certified)
        #expect(reject["status"] == "rejected" && reject["certified"] == .bool(true))
        #expect(reject["reject_code"] == 4 && reject["reject_code_name"] == "CANISTER_REJECT" && reject["error_code"] == "IC0406")

        // A reject from before consensus is signed by no one: an error on stderr, nothing on stdout.
        let uncertified = try omni(["call", canister, "guarded", "-o", "json"])
        #expect(uncertified.status == 4 && uncertified.stdoutText.isEmpty, "\(uncertified.stdoutText)")
        let refusal = try errorJSON(uncertified)["error"]
        #expect(refusal?["kind"] == "rejected")
        #expect(refusal?["message"]?.stringValue?.contains("not certified") == true, "\(String(describing: refusal))")
        #expect(refusal?["message"]?.stringValue?.contains("IC0406") == true, "\(String(describing: refusal))")
        let unsafe = try omni(["call", canister, "guarded", "-o", "json", "--unsafe"])
        #expect(unsafe.status == 2 && unsafe.stdoutText.isEmpty, "calls offer no unverified path: \(unsafe.stderrText)")

        let query = try omni(["query", canister, "fail_query"])
        #expect(query.status == 4 && query.stdoutText.contains("rejected (code 4 CANISTER_REJECT, IC0406, not certified)"))

        let trap = try omni(["call", canister, "trap"])
        #expect(trap.status == 4 && trap.stdoutText.contains("code 5 CANISTER_ERROR, IC0503, certified"))
    }

    @Test func doneWithoutReply() throws {
        let result = try omni(["call", canister, "forget", "-o", "json"])
        #expect(result.status == 1)
        #expect(try json(result)["status"] == "done")
        let text = try omni(["call", canister, "forget"])
        #expect(text.status == 1 && text.stdoutText.contains("done without reply"))
    }

    @Test func asyncCallThenRequestStatus() throws {
        let submitted = try omni(["call", "--async", canister, "greet_update", "(\"later\")"])
        #expect(submitted.status == 0, "\(submitted.stderrText)")
        let requestID = submitted.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(requestID.hasPrefix("0x") && requestID.count == 66)
        let status = try omni(["request-status", requestID, canister, "--method", "greet_update"])
        #expect(status.status == 0 && status.stdoutText == "(\"Hello, later!\")\n", "\(status.stderrText)")
        let unknown = try omni(["request-status", String(repeating: "ab", count: 32), canister, "--no-wait", "-o", "json"])
        #expect(try unknown.status == 1 && json(unknown)["status"] == "unknown")
    }

    @Test func readStateAndMetadata() throws {
        let read = try omni(["read-state", canister, "/time", "/canister/\(canister)/controllers", "/canister/\(canister)/metadata/none",
                             "-o", "json"])
        #expect(read.status == 1, "one path is absent")
        let paths = try json(read)["paths"]?.arrayValue ?? []
        #expect(paths.map { $0["lookup"] } == ["found", "found", "absent"])
        #expect(paths[1]["value"] == ["2vxsx-fae"])
        let badID = try omni(["metadata", "aaaaa-ab"])
        #expect(badID.status == 3 && badID.stderrText.contains("<canister>"), "a malformed id, as in the offline commands: \(badID.stderrText)")
        let metadata = try omni(["metadata", canister])
        #expect(metadata.status == 0 && metadata.stdoutText.contains("greet : (text) -> (text) query"))
        let subnet = try replica.string("subnet_id")
        let subnetRead = try omni(["read-state", "--subnet", subnet, "/subnet/\(subnet)/type"])
        #expect(subnetRead.status == 0 && subnetRead.stdoutText.contains("/type\tfound\tapplication"), "\(subnetRead.stderrText)")
    }

    @Test func statusAndRootKeyTrust() throws {
        let status = try omni(["status", "-o", "json"], trust: false)
        #expect(try status.status == 0 && json(status)["root_key"]?.stringValue == rootKey)
        let untrusted = try omni(["query", canister, "greet", "(\"x\")"], trust: false)
        #expect(untrusted.status == 7 && untrusted.stderrText.contains("--root-key"))
        let fetched = try omni(["query", canister, "greet", "(\"x\")", "--fetch-root-key"], trust: false)
        #expect(fetched.status == 0 && fetched.stderrText.contains("warning: --fetch-root-key"))
        let mainnet = try Omni.run(["ic", "query", canister, "greet", "--fetch-root-key", "--network", "ic"])
        #expect(mainnet.status == 7 && mainnet.stderrText.contains("never used for the mainnet"))
        let wrongKey = try omni(["query", canister, "greet", "(\"x\")", "--root-key", "mainnet"], trust: false)
        #expect(wrongKey.status == 1 && wrongKey.stderrText.contains("verification failed (signature)"))
    }

    // MARK: Attacks

    @Test(arguments: [
        ("bad_bls", JSONValue.string("certificate"), "signature"),
        ("bad_bls", JSONValue.string("delegation"), "signature"),
        ("foreign_range", JSONValue.bool(true), "range"),
        ("stale_time_s", JSONValue.int(900), "time"),
        ("nested_delegation", JSONValue.bool(true), "delegation"),
    ])
    func attackedCertificatesAreRefused(key: String, value: JSONValue, reason: String) throws {
        try control(.object(JSONObject([(key, value)])))
        for command in [["call", canister, "greet_update", "(\"x\")"], ["read-state", canister, "/time"]] {
            let result = try omni(command + ["-o", "json"])
            #expect(result.status == 1, "\(command[0]): \(result.stderrText)")
            let error = try errorJSON(result)["error"]
            #expect(error?["kind"] == "verification_failed")
            #expect(error?["message"]?.stringValue?.hasPrefix("verification failed (\(reason))") == true, "\(String(describing: error))")
            #expect(result.stdoutText.isEmpty, "nothing unverified is printed")
        }
    }

    @Test func invalidNodeSignatureRefreshesOnceThenFails() throws {
        let warm = try omni(["query", canister, "greet", "(\"warm\")"])
        #expect(warm.status == 0, "\(warm.stderrText)")
        try control(["bad_node_signature": "always", "action": "reset_stats"])
        let result = try omni(["query", canister, "greet", "(\"x\")"])
        #expect(result.status == 1 && result.stdoutText.isEmpty)
        #expect(result.stderrText.contains("verification failed (node_signature)"), "\(result.stderrText)")
        #expect(try stat("node_key_reads") == 1, "exactly one forced refresh")
    }

    @Test func oversizedBodiesAreRefused() throws {
        try control(["oversize_mib": 11])
        let result = try omni(["query", canister, "greet", "(\"x\")", "-o", "json"])
        #expect(try result.status == 5 && errorJSON(result)["error"]?["kind"] == "limit_exceeded", "\(result.stderrText)")
        try control(["action": "reset_config"])
        let capped = try omni(["query", canister, "big", "--max-response-size", "512KiB"])
        #expect(capped.status == 5, "\(capped.stderrText)")
        let allowed = try omni(["query", canister, "big", "--max-response-size", "2MiB", "--output", "hex"])
        #expect(allowed.status == 0 && allowed.stdoutText.count > 2 << 20)
    }

    /// Only `ic query --unsafe` skips verification, and only of its answer (see ICSurfaceEndToEndTests).
    @Test func unsafeSkipsVerificationAndSaysSo() throws {
        try control(["bad_node_signature": "always"])
        let result = try omni(["query", canister, "greet", "(\"u\")", "--unsafe"])
        #expect(result.status == 0 && result.stdoutText == "(\"Hello, u!\")\n", "\(result.stderrText)")
        #expect(result.stderrText.contains("--unsafe: this answer is NOT verified"))
        try control(["bad_bls": "certificate"])
        let call = try omni(["call", canister, "greet_update", "(\"u\")", "--unsafe"])
        #expect(call.status == 2 && call.stdoutText.isEmpty, "\(call.stderrText)")
    }

    @Test func clockSkewIsCorrected() throws {
        try control(["clock_skew_s": 200])
        let result = try omni(["call", canister, "greet_update", "(\"skew\")"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("signed again with its time"))
    }

    @Test func signedCallsAndTheirStatusNeedTheSameIdentity() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-pem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = directory.appendingPathComponent("identity.pem").path
        let generated = try Subprocess.run("/usr/bin/env", ["openssl", "genpkey", "-algorithm", "ed25519", "-out", pem])
        #expect(generated.status == 0, "\(generated.stderrText)")
        let submitted = try omni(["call", "--async", canister, "greet_update", "(\"pem\")", "--pem", pem])
        #expect(submitted.status == 0, "\(submitted.stderrText)")
        let requestID = submitted.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let mine = try omni(["request-status", requestID, canister, "--pem", pem, "-o", "json"])
        #expect(try mine.status == 0 && json(mine)["values"] == ["Hello, pem!"], "\(mine.stderrText)")
        let someoneElse = try omni(["request-status", requestID, canister, "--no-wait"])
        #expect(someoneElse.status == 6 && someoneElse.stderrText.contains("HTTP 403"), "\(someoneElse.stderrText)")
        let both = try omni(["query", canister, "greet", "--pem", pem, "--identity", "x"])
        #expect(both.status == 2)
    }

    @Test func subnetKeysAreReadAnonymously() throws {
        let pem = try Self.generatedPEM()
        defer { try? FileManager.default.removeItem(atPath: pem.directory) }
        let result = try omni(["query", canister, "greet", "(\"me\")", "--pem", pem.path])
        #expect(result.status == 0 && result.stdoutText == "(\"Hello, me!\")\n", "\(result.stderrText)")
        #expect(try stat("node_key_reads") == 1)
        #expect(try stat("signed_node_key_reads") == 0, "the public /subnet read never carries the user's principal")
    }

    /// The root subnet's own node keys vouch only for the root subnet's canisters: with its certified ranges
    /// excluding the canister, a query answered under those keys is refused, and the keys are not cached.
    @Test func rootSubnetNodeKeysForAForeignCanisterAreRefused() throws {
        let root = try Self.rootSubnet.get()
        let rootURL = try root.string("url"), rootKey = try root.string("root_key")
        try root.requestJSON("/_control", method: "POST", body: ["action": "reset_config"])
        func query(_ arguments: [String] = []) throws -> ProcessResult {
            try Omni.run(["ic", "query", try root.string("canister_id"), "greet", "(\"root\")", "--network", rootURL, "--root-key", rootKey]
                         + arguments, environment: ["XDG_CACHE_HOME": cache])
        }
        let honest = try query()
        #expect(honest.status == 0 && honest.stdoutText == "(\"Hello, root!\")\n", "the setup works: \(honest.stderrText)")
        try FileManager.default.removeItem(atPath: cache)
        try root.requestJSON("/_control", method: "POST", body: ["foreign_range": true])
        defer { _ = try? root.requestJSON("/_control", method: "POST", body: ["action": "reset_config"]) }
        let attacked = try query(["-o", "json"])
        #expect(attacked.status == 1 && attacked.stdoutText.isEmpty, "\(attacked.stdoutText)")
        let error = try errorJSON(attacked)["error"]
        #expect(error?["kind"] == "verification_failed")
        #expect(error?["message"]?.stringValue?.hasPrefix("verification failed (range)") == true, "\(String(describing: error))")
        #expect(error?["message"]?.stringValue?.contains("outside the canister ranges it certifies for the root subnet") == true,
                "\(String(describing: error))")
        let cached = (try? FileManager.default.subpathsOfDirectory(atPath: cache))?.filter { $0.hasSuffix(".json") } ?? []
        #expect(cached.isEmpty, "refused keys are not cached: \(cached)")
    }

    // MARK: Clock skew and hostile expiry refusals

    /// A boundary node claims the network runs 3 days ahead: omni does not sign anything for that time (a request
    /// valid days ahead could be replayed then), and says what the claim would mean for the local clock.
    @Test func hostileSkewHintDaysAheadIsRefused() throws {
        try control(["lying_expiry_refusal": "refuse", "lying_expiry_hint_s": 259_200])
        let result = try omni(["call", canister, "counter", "-o", "json"])
        #expect(result.status == 7, "\(result.stderrText)")
        let message = try errorJSON(result)["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("local clock is 25920") && message.contains("s behind the network; fix the clock or pass --time-tolerance"),
                "\(message)")
        #expect(message.contains("was not signed again"), "\(message)")
        #expect(try stat("call_v4") == 1 && stat("far_future_expiries") == 0, "one call, never one signed days ahead")
    }

    /// A boundary node forwards the call, then answers with a false expiry refusal: omni reads the call's
    /// certified status and follows it instead of signing a second call (which would run the update twice).
    @Test func falseExpiryRefusalOfAnAcceptedCallDoesNotRunItTwice() throws {
        try control(["action": "reset_state"])
        try control(["lying_expiry_refusal": "accept", "lying_expiry_hint_s": 200])
        let result = try omni(["call", canister, "counter"])
        #expect(result.status == 0 && result.stdoutText == "(1 : nat)\n", "\(result.stdoutText) \(result.stderrText)")
        #expect(result.stderrText.contains("following it instead of signing it again"), "\(result.stderrText)")
        #expect(try replica.requestJSON("/_control")["counter"] == 1, "the update ran once")
        #expect(try stat("call_v4") == 1)
    }

    /// A false refusal of a call that was dropped: certified time says its signature is still valid, so it may yet
    /// run; omni does not sign a second one and says how to check on the first.
    @Test func falseExpiryRefusalOfADroppedCallIsNotSignedAgain() throws {
        try control(["lying_expiry_refusal": "refuse", "lying_expiry_hint_s": 120])
        let result = try omni(["call", canister, "counter", "-o", "json"])
        #expect(result.status == 1, "\(result.stderrText)")
        let error = try errorJSON(result)["error"]
        #expect(error?["message"]?.stringValue?.hasPrefix("verification failed (time)") == true, "\(String(describing: error))")
        #expect(error?["message"]?.stringValue?.contains("may still run, so it is not signed again") == true)
        #expect(try stat("call_v4") == 1)
    }

    /// The local clock 10 minutes behind the network: said plainly; --time-tolerance 15m makes it work.
    @Test func localClockTenMinutesOffIsNamed() throws {
        try control(["clock_skew_s": 600])
        let refused = try omni(["call", canister, "greet_update", "(\"late\")", "-o", "json"])
        #expect(refused.status == 7, "\(refused.stderrText)")
        let message = try errorJSON(refused)["error"]?["message"]?.stringValue ?? ""
        #expect(["599", "600", "601"].contains { message.contains("local clock is \($0) s behind the network; fix the clock or pass --time-tolerance") },
                "\(message)")
        let tolerated = try omni(["call", canister, "greet_update", "(\"late\")", "--time-tolerance", "15m"])
        #expect(tolerated.status == 0 && tolerated.stdoutText == "(\"Hello, late!\")\n", "\(tolerated.stderrText)")
    }

    // MARK: Hostile text

    /// A canister's reject message with terminal control sequences: escaped in text output (stdout and stderr),
    /// exact in JSON.
    @Test func controlCharactersInRejectTextAreEscaped() throws {
        let hostile = "boom \u{1B}]0;owned\u{07}\u{1B}[2Jcleared \u{1B}[31mred\u{1B}[0m \u{9B}1m c1 \rforged"
        let shown = "boom \\x1B]0;owned\\x07\\x1B[2Jcleared \\x1B[31mred\\x1B[0m \\x9B1m c1 \\x0Dforged"
        func raw(_ text: String) -> Bool { text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" || $0 == "\r" } }
        for command in [["call", canister, "hostile_reject"], ["query", canister, "hostile_reject_query"]] {
            let text = try omni(command)
            #expect(text.status == 4, "\(command[0]): \(text.stderrText)")
            #expect(text.stdoutText.contains(shown), "\(command[0]): \(text.stdoutText)")
            #expect(!raw(text.stdoutText) && !raw(text.stderrText), "\(command[0]): no control character reaches the terminal")
            let json = try omni(command + ["-o", "json"])
            #expect(json.status == 4)
            #expect(try JSONValue.parse(json.stdoutText)["reject_message"]?.stringValue == hostile, "\(command[0]): exact in JSON")
        }
        // An uncertified reject is an error on stderr: escaped there too.
        let guarded = try omni(["call", canister, "hostile_guarded"])
        #expect(guarded.status == 4 && !raw(guarded.stderrText), "\(guarded.stderrText)")
        #expect(guarded.stderrText.contains("\\x1B]0;owned"), "\(guarded.stderrText)")
    }

    static func generatedPEM() throws -> (directory: String, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-pem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pem = directory.appendingPathComponent("identity.pem").path
        let generated = try Subprocess.run("/usr/bin/env", ["openssl", "genpkey", "-algorithm", "ed25519", "-out", pem])
        guard generated.status == 0 else { throw TestSupportError("openssl genpkey: \(generated.stderrText)") }
        return (directory.path, pem)
    }

    // MARK: Requests signed elsewhere

    @Test func sendsARequestSignedByAnIndependentSigner() throws {
        try control(["call_polls": 1])
        let signed = try Subprocess.python("ic_sign_peer.py", ["--canister", canister, "--method", "greet_update",
                                                                "--arg-hex", "4449444c0001710473656e64", "--network", url,
                                                                "--with-status"])
        #expect(signed.status == 0, "\(signed.stderrText)")
        let result = try Omni.run(["ic", "send", "-", "--root-key", rootKey], stdin: signed.stdout,
                                  environment: ["XDG_CACHE_HOME": cache, "OMNI_IC_POLL_INTERVAL": "50ms"])
        #expect(result.status == 0 && result.stdoutText == "(\"Hello, send!\")\n", "\(result.stderrText)")
        #expect(try stat("polls") >= 1, "polled with the file's signed read_state")

        for (tamper, status, words) in [("arg", Int32(3), "\"arg\" is"), ("signature", Int32(1), "verification failed (signature)")] {
            let bad = try Subprocess.python("ic_sign_peer.py", ["--canister", canister, "--method", "greet_update",
                                                                 "--arg-hex", "4449444c0001710473656e64", "--tamper", tamper])
            // A crashed peer writes no file: that must fail here, not pass as a refusal.
            try #require(bad.status == 0 && !bad.stdout.isEmpty, "ic_sign_peer.py --tamper \(tamper): \(bad.stderrText)")
            let refused = try omni(["send", "-"], stdin: bad.stdout)
            #expect(refused.status == status, "\(tamper): \(refused.stderrText)")
            #expect(refused.stderrText.contains(words), "\(tamper): refused for the tampering: \(refused.stderrText)")
        }
    }
}
