import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// Issue 12's client surface, the real `omni` binary against `Tests/Peers/ic_replica.py`: sessions from a seed kept
/// outside omni, delegation targets checked as the interface spec does (a session scoped to a bucket canister asks
/// aaaaa-aa about it), subnet-routed endpoints with that subnet's certificate checks, retries that never sign again
/// (the replica counts distinct request ids and signatures), and the one per-call unverified query.
@Suite(.serialized, .offPool)
struct ICSurfaceEndToEndTests {
    /// One replica for the suite (tests are serialized and reset it).
    static let shared = Result { try PeerProcess.icReplica(for: "the ic surface tests") }

    let replica: PeerProcess
    let url: String
    let rootKey: String
    let canister: String
    let subnet: String
    /// A canister id the replica serves that is not its canister (for refusals).
    let otherCanister: String
    /// Private config (identities) and cache directories, removed with the value.
    let home: Home

    init() throws {
        replica = try Self.shared.get()
        url = try replica.string("url")
        rootKey = try replica.string("root_key")
        canister = try replica.string("canister_id")
        subnet = try replica.string("subnet_id")
        otherCanister = "jrlun-jiaaa-aaaab-aaaaa-cai"
        home = try Home()
        try control(["action": "reset_config"])
        try control(["action": "reset_stats"])
    }

    @discardableResult
    func control(_ body: JSONValue) throws -> JSONValue {
        try replica.requestJSON("/_control", method: "POST", body: body)
    }

    func view() throws -> JSONValue { try replica.requestJSON("/_control") }

    func stat(_ name: String) throws -> Int { Int(try view()["stats"]?[name]?.int64Value ?? 0) }

    func distinct(_ name: String) throws -> Int { Int(try view()["distinct"]?[name]?.int64Value ?? 0) }

    func callRequestIDs() throws -> [String] {
        (try view()["distinct"]?["call_request_ids"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// `omni ic <arguments> --network <replica> --root-key <key>` with this test's identities and cache.
    func omni(_ arguments: [String], network: Bool = true, stdin: Data? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
        try home.run(["ic"] + arguments + (network ? ["--network", url, "--root-key", rootKey] : []), stdin: stdin,
                     environment: ["OMNI_IC_POLL_INTERVAL": "50ms"].merging(environment) { $1 })
    }

    func json(_ result: ProcessResult) throws -> JSONValue { try JSONValue.parse(result.stdoutText) }

    func errorJSON(_ result: ProcessResult) throws -> JSONValue {
        guard let line = result.stderrText.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let error = try JSONValue.parse(String(line))["error"] else {
            throw TestSupportError("no JSON error on stderr: \(result.stderrText)")
        }
        return error
    }

    /// An Ed25519 key made by openssl: its PEM, DER, raw 32-byte seed and hex seed as files (0600), and its
    /// principal computed from openssl's public key DER (not by omni's key parsing).
    func opensslKey() throws -> (pem: String, der: String, raw: String, hex: String, seed: [UInt8], principal: String) {
        let pem = home.path("root-\(UUID().uuidString).pem")
        let made = try Subprocess.run("/usr/bin/env", ["openssl", "genpkey", "-algorithm", "ed25519", "-out", pem])
        try #require(made.status == 0, "\(made.stderrText)")
        let derResult = try Subprocess.run("/usr/bin/env", ["openssl", "pkey", "-in", pem, "-outform", "DER"])
        try #require(derResult.status == 0 && derResult.stdout.count == 48, "\(derResult.stderrText)")
        let der = [UInt8](derResult.stdout)
        let seed = Array(der.suffix(32))
        let publicDER = try Subprocess.run("/usr/bin/env", ["openssl", "pkey", "-in", pem, "-pubout", "-outform", "DER"])
        try #require(publicDER.status == 0 && publicDER.stdout.count == 44)
        let principal = try home.run(["ic", "principal", "from-key", "--der", Hex.encode([UInt8](publicDER.stdout))])
        try #require(principal.status == 0, "\(principal.stderrText)")
        let paths = (pem: pem, der: home.path("root.der"), raw: home.path("root.seed"), hex: home.path("root.hex"))
        try home.writeBytes(paths.der, der)
        try home.writeBytes(paths.raw, seed)
        try home.writeBytes(paths.hex, Array((Hex.encode(seed) + "\n").utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pem)
        return (pem, paths.der, paths.raw, paths.hex, seed, principal.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: Sessions from a seed

    /// Every form of the same secret gives a session of the same principal, each run with a fresh session key and
    /// a delegation the replica accepts; the identity store never holds the secret in any form.
    @Test func sessionsFromASeedInEveryForm() throws {
        let key = try opensslKey()
        var sessionKeys: Set<String> = []
        for (index, file) in [key.raw, key.hex, key.pem, key.der, key.raw].enumerated() {
            let made = try omni(["identity", "delegate", "s\(index)", "--from-seed", file, "--lifetime", "1h", "-o", "json"],
                                network: false)
            #expect(made.status == 0, "\(file): \(made.stderrText)")
            let report = try json(made)
            #expect(report["principal"]?.stringValue == key.principal, "\(file): the seed's principal")
            #expect(report["saved_as"]?.stringValue == "s\(index)" && report["from_seed"] == .bool(true))
            if let sessionKey = report["session_public_key"]?.stringValue { sessionKeys.insert(sessionKey) }
        }
        #expect(sessionKeys.count == 5, "a fresh session key every run")
        // The stored session signs for the seed's principal: the replica checks the delegation and the signature.
        let whoami = try omni(["query", canister, "greet", "(\"seed\")", "--identity", "s0"])
        #expect(whoami.status == 0 && whoami.stdoutText == "(\"Hello, seed!\")\n", "\(whoami.stderrText)")
        let call = try omni(["call", canister, "greet_update", "(\"seed\")", "--identity", "s2", "-o", "json"])
        #expect(call.status == 0, "\(call.stderrText)")
        // --save is the same as NAME; an out file works too.
        let saved = try omni(["identity", "delegate", "--from-seed", key.raw, "--save", "s9", "--out-file", home.path("s.json")],
                             network: false)
        #expect(saved.status == 0, "\(saved.stderrText)")

        let pemBody = try String(contentsOfFile: key.pem, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("-----") }
        let forbidden: [[UInt8]] = [key.seed, Array(Hex.encode(key.seed).utf8), Array(Hex.encode(key.seed, uppercase: true).utf8),
                                    Array(Data(key.seed).base64EncodedString().utf8)] + pemBody.map { Array($0.utf8) }
        let store = home.config.appendingPathComponent("omni/identities")
        let files = try FileManager.default.contentsOfDirectory(atPath: store.path)
        #expect(files.filter { $0.hasSuffix(".session.json") }.count == 6, "\(files)")
        #expect(!files.contains { $0.hasSuffix(".pem") }, "no key file was stored: \(files)")
        for file in files.map({ store.appendingPathComponent($0) }) + [URL(fileURLWithPath: home.path("s.json"))] {
            let bytes = [UInt8](try Data(contentsOf: file))
            for secret in forbidden {
                #expect(!bytes.contains(subsequence: secret), "\(file) holds the root secret")
            }
        }
    }

    @Test func seedsAreReadAsSecretsAndChecked() throws {
        let key = try opensslKey()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key.raw)
        let exposed = try omni(["identity", "delegate", "x", "--from-seed", key.raw], network: false)
        #expect(exposed.status == 7 && exposed.stderrText.contains("chmod 600"), "\(exposed.stderrText)")
        let short = home.path("short.seed")
        try home.writeBytes(short, [UInt8](repeating: 7, count: 31))
        let malformed = try omni(["identity", "delegate", "x", "--from-seed", short, "-o", "json"], network: false)
        #expect(malformed.status == 3, "\(malformed.stderrText)")
        #expect(try errorJSON(malformed)["message"]?.stringValue?.contains("--from-seed") == true)
        let secp = home.path("k1.pem")
        let made = try Subprocess.run("/usr/bin/env", ["openssl", "ecparam", "-name", "secp256k1", "-genkey", "-noout", "-out", secp])
        try #require(made.status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secp)
        let notEd25519 = try omni(["identity", "delegate", "x", "--from-seed", secp], network: false)
        #expect(notEd25519.status == 3, "\(notEd25519.stderrText)")
        // The seed is the root: no other root selection, and NAME names the session.
        let both = try omni(["identity", "delegate", "x", "--from-seed", key.hex, "--identity", "alice"], network: false)
        #expect(both.status == 2 && both.stderrText.contains("cannot be combined"), "\(both.stderrText)")
        let twoNames = try omni(["identity", "delegate", "x", "--from-seed", key.hex, "--save", "y"], network: false)
        #expect(twoNames.status == 2, "\(twoNames.stderrText)")
        let nowhere = try omni(["identity", "delegate", "--from-seed", key.hex], network: false)
        #expect(nowhere.status == 2, "\(nowhere.stderrText)")
        // From stdin too; an existing session is replaced only with --force.
        let piped = try omni(["identity", "delegate", "p", "--from-seed", "-"], network: false, stdin: Data(key.seed))
        #expect(piped.status == 0, "\(piped.stderrText)")
        let again = try omni(["identity", "delegate", "p", "--from-seed", key.hex], network: false)
        #expect(again.status == 7 && again.stderrText.contains("--force"), "\(again.stderrText)")
        let forced = try omni(["identity", "delegate", "p", "--from-seed", key.hex, "--force"], network: false)
        #expect(forced.status == 0, "\(forced.stderrText)")
    }

    // MARK: Delegation targets

    /// A session scoped to the canister (the "bucket") asks aaaaa-aa about it: signed canister id aaaaa-aa,
    /// effective canister id and delegation target the bucket. What its targets do not cover is refused before
    /// anything is sent (exit 6), and the replica refuses the same requests for the same reason.
    @Test func scopedSessionAsksTheManagementCanisterAboutItsBucket() throws {
        let key = try opensslKey()
        let made = try omni(["identity", "delegate", "bucket", "--from-seed", key.raw, "--target", canister, "-o", "json"], network: false)
        try #require(made.status == 0, "\(made.stderrText)")
        let principal = try #require(try json(made)["principal"]?.stringValue)
        try control(["controllers": [.string(principal)]])
        let about = "(record { canister_id = principal \"\(canister)\" })"

        let metrics = try omni(["query", "aaaaa-aa", "canister_metrics", about, "--identity", "bucket", "-o", "json"])
        #expect(metrics.status == 0, "\(metrics.stderrText)")
        #expect(try json(metrics)["verified"] == .bool(true))
        #expect(try json(metrics)["verification"]?["kind"] == "node_signatures")
        let status = try omni(["query", "aaaaa-aa", "canister_status", about, "--identity", "bucket",
                               "--delegation-target", canister])
        #expect(status.status == 0, "\(status.stderrText)")
        #expect(try stat("query_v3") == 2)

        try control(["action": "reset_stats"])
        let refusals: [([String], String)] = [
            (["call", "aaaaa-aa", "canister_status", about], "checked against aaaaa-aa, the canister the request is signed for"),
            (["query", otherCanister, "greet", "(\"x\")"], "checked against \(otherCanister)"),
            (["query", "aaaaa-aa", "canister_metrics", "(record { canister_id = principal \"\(otherCanister)\" })"],
             "the canister_id in the argument of aaaaa-aa.canister_metrics"),
            (["query", "aaaaa-aa", "canister_metrics", about, "--delegation-target", "aaaaa-aa"], "(--delegation-target)"),
            (["sign", "--update", "aaaaa-aa", "canister_status", about, "--out-file", home.path("signed.json")],
             "checked against aaaaa-aa"),
        ]
        for (command, words) in refusals {
            let refused = try omni(command + ["--identity", "bucket", "-o", "json"], network: command[0] != "sign")
            #expect(refused.status == 6, "\(command): \(refused.stderrText)")
            let error = try errorJSON(refused)
            #expect(error["kind"] == "unauthorized", "\(command)")
            #expect(error["message"]?.stringValue?.contains(words) == true, "\(command): \(String(describing: error["message"]))")
            #expect(error["message"]?.stringValue?.contains("may sign only for \(canister)") == true)
        }
        let stats = try view()["stats"]
        #expect(stats?.objectValue?.isEmpty == true, "refused before anything was sent: \(String(describing: stats))")
        // An explicit target other than the derived one is checked instead, with a note.
        let explicit = try omni(["query", "aaaaa-aa", "canister_metrics", about, "--identity", "bucket", "--delegation-target",
                                 otherCanister])
        #expect(explicit.status == 6 && explicit.stderrText.contains("the IC checks this request against \(canister)"),
                "\(explicit.stderrText)")
        // Signing what the session may sign works offline.
        let signed = try omni(["sign", "--query", "aaaaa-aa", "canister_metrics", about, "--identity", "bucket", "--out-file",
                               home.path("metrics.json")], network: false)
        #expect(signed.status == 0, "\(signed.stderrText)")
        let sent = try omni(["send", home.path("metrics.json")])
        #expect(sent.status == 0, "\(sent.stderrText)")
    }

    /// The replica itself checks the targets the same way (omni's local check is not the only guard): a session
    /// made for another canister, with --delegation-target naming the bucket, passes omni's check and is refused
    /// by the replica.
    @Test func theReplicaAgreesAboutTargets() throws {
        let key = try opensslKey()
        let made = try omni(["identity", "delegate", "elsewhere", "--from-seed", key.raw, "--target", otherCanister], network: false)
        try #require(made.status == 0, "\(made.stderrText)")
        let about = "(record { canister_id = principal \"\(canister)\" })"
        let refused = try omni(["query", "aaaaa-aa", "canister_metrics", about, "--identity", "elsewhere",
                                "--delegation-target", otherCanister])
        #expect(refused.status == 4 && refused.stderrText.contains("is not one of the delegation targets"), "\(refused.stderrText)")
    }

    // MARK: Subnet routes

    @Test func subnetRoutedQueryCallAndReadState() throws {
        let list = try omni(["query", "aaaaa-aa", "list_canisters", "--subnet", subnet, "-o", "json"])
        #expect(list.status == 0, "\(list.stderrText)")
        #expect(try json(list)["subnet_id"]?.stringValue == subnet)
        #expect(try json(list)["verification"]?["subnet_id"]?.stringValue == subnet)
        #expect(try stat("subnet_query_v3") == 1 && stat("subnet_read_state_v3") == 1 && stat("query_v3") == 0,
                "the subnet's node keys come from its own read_state")
        let again = try omni(["query", "aaaaa-aa", "list_canisters", "--subnet", subnet, "-o", "json"])
        #expect(try again.status == 0 && json(again)["verification"]?["keys_from_cache"] == .bool(true))

        let created = try omni(["call", "aaaaa-aa", "provisional_create_canister_with_cycles", "(record {})", "--subnet", subnet,
                                "-o", "json"])
        #expect(created.status == 0, "\(created.stderrText)")
        #expect(try json(created)["verification"]?["subnet_id"]?.stringValue == subnet)
        #expect(try stat("subnet_call_v4") == 1 && stat("call_v4") == 0)

        let read = try omni(["read-state", "--subnet", subnet, "/subnet/\(subnet)/type", "/time"])
        #expect(read.status == 0 && read.stdoutText.contains("/type\tfound\tapplication"), "\(read.stderrText)")
        #expect(try stat("subnet_read_state_v3") == 2)
    }

    /// The root subnet itself (`--no-delegation`): its certificates are signed by the root key, which speaks for the
    /// root subnet only.
    @Test func theRootSubnetsOwnRoutes() throws {
        let root = try PeerProcess(script: "ic_replica.py", arguments: ["--no-delegation"])
        defer { root.stop() }
        let rootSubnet = try root.string("root_subnet_id")
        let network = ["--network", try root.string("url"), "--root-key", try root.string("root_key")]
        let list = try home.run(["ic", "query", "aaaaa-aa", "list_canisters", "--subnet", rootSubnet, "-o", "json"] + network)
        #expect(list.status == 0, "\(list.stderrText)")
        #expect(try json(list)["verification"]?["subnet_id"]?.stringValue == rootSubnet)
        let read = try home.run(["ic", "read-state", "--subnet", rootSubnet, "/time", "-o", "json"] + network)
        #expect(try read.status == 0 && json(read)["verification"]?["delegated"] == .bool(false), "\(read.stderrText)")
        // Another subnet's id at the root subnet's endpoints: the root key's certificate is not that subnet's.
        _ = try root.requestJSON("/_control", method: "POST", body: ["any_subnet_id": true])
        let other = try home.run(["ic", "read-state", "--subnet", subnet, "/time"] + network)
        #expect(other.status == 1 && other.stderrText.contains("so it is the root subnet"), "\(other.stderrText)")
    }

    /// A boundary node that answers a subnet route with another subnet's certificate: refused, nothing printed.
    @Test func anotherSubnetsCertificateIsRefused() throws {
        try control(["any_subnet_id": true])
        let impostor = try replica.string("root_subnet_id")
        for command in [["query", "aaaaa-aa", "list_canisters", "--subnet", impostor],
                        ["call", "aaaaa-aa", "provisional_create_canister_with_cycles", "(record {})", "--subnet", impostor],
                        ["read-state", "--subnet", impostor, "/time"]] {
            let result = try omni(command + ["-o", "json"])
            #expect(result.status == 1 && result.stdoutText.isEmpty, "\(command[0]): \(result.stderrText)")
            let error = try errorJSON(result)
            #expect(error["kind"] == "verification_failed", "\(command[0])")
            #expect(error["message"]?.stringValue?.contains(subnet) == true && error["message"]?.stringValue?.contains(impostor) == true,
                    "\(command[0]): \(String(describing: error["message"]))")
        }
    }

    @Test func subnetRoutesAreCheckedOffline() throws {
        let cases: [([String], String)] = [
            (["query", canister, "greet", "--subnet", subnet], "takes only aaaaa-aa.list_canisters"),
            (["call", "aaaaa-aa", "install_code", "(record {})", "--subnet", subnet], "takes only aaaaa-aa.create_canister"),
            (["query", "aaaaa-aa", "list_canisters", "--subnet", subnet, "--effective-canister-id", canister], "cannot be combined"),
            (["read-state", canister, "/time", "--subnet", subnet], "cannot be combined"),
            (["read-state", "/time"], "the first word was read as the path /time"),
            (["query", "aaaaa-aa", "list_canisters"], "--subnet ID"),
        ]
        for (command, words) in cases {
            let result = try omni(command)
            #expect(result.status == 2 && result.stderrText.contains(words), "\(command): \(result.stderrText)")
        }
        // A mistyped canister id is not a path that happens to parse: it is named as the bad canister id.
        let typo = try omni(["read-state", "jkoii-typo", "/time"])
        #expect(typo.status != 0 && typo.stderrText.contains("invalid <canister> 'jkoii-typo'"), "\(typo.stderrText)")
        #expect(try view()["stats"]?.objectValue?.isEmpty == true, "nothing was sent")
    }

    // MARK: Retries

    @Test(arguments: [429, 502, 503, 504])
    func idempotentRequestsAreRetriedWithTheSameBytes(status: Int) throws {
        let warm = try omni(["query", canister, "greet", "(\"warm\")"])
        try #require(warm.status == 0, "\(warm.stderrText)")
        try control(["action": "reset_stats"])
        try control(["faults": [["endpoint": "query", "status": .int(Int64(status)), "retry_after": 1],
                                ["endpoint": "read_state", "status": .int(Int64(status)), "times": 2]]])
        // Types from a file: the query is the process's only request (candid:service would be a read_state).
        let did = home.path("greet.did")
        try home.writeBytes(did, Array("service : { greet : (text) -> (text) query }".utf8))
        let query = try omni(["query", canister, "greet", "(\"again\")", "--did", did])
        #expect(query.status == 0 && query.stdoutText == "(\"Hello, again!\")\n", "\(query.stderrText)")
        #expect(query.stderrText.contains("HTTP \(status); sending the same request again in 1 s (retry 1/2)"), "\(query.stderrText)")
        let read = try omni(["read-state", canister, "/time"])
        #expect(read.status == 0, "\(read.stderrText)")
        #expect(read.stderrText.contains("(retry 2/2)"), "\(read.stderrText)")
        #expect(try stat("faults_served") == 3)
        #expect(try distinct("query_request_ids") == 1 && distinct("read_state_request_ids") == 1, "one request each, sent again")
    }

    @Test func connectionResetsAndStatusAreRetried() throws {
        let warm = try omni(["query", canister, "greet", "(\"warm\")"])
        try #require(warm.status == 0, "\(warm.stderrText)")
        try control(["action": "reset_stats"])
        try control(["faults": [["endpoint": "query", "status": "reset"]]])
        let query = try omni(["query", canister, "greet", "(\"reset\")"])
        #expect(query.status == 0 && query.stdoutText == "(\"Hello, reset!\")\n", "\(query.stderrText)")
        #expect(try stat("faults_served") == 1 && distinct("query_request_ids") == 1)
        try control(["faults": [["endpoint": "status", "status": 503, "retry_after": "Wed, 21 Oct 2015 07:28:00 GMT"]]])
        let status = try omni(["status"], network: false, environment: ["OMNI_NETWORK": url])
        #expect(status.status == 0 && status.stderrText.contains("status: HTTP 503"), "\(status.stderrText)")
    }

    @Test func retriesAreCappedAndCanBeTurnedOff() throws {
        try control(["faults": [["endpoint": "read_state", "status": 503, "times": 10]]])
        let exhausted = try omni(["read-state", canister, "/time", "-o", "json"])
        #expect(exhausted.status == 5, "\(exhausted.stderrText)")
        #expect(try errorJSON(exhausted)["message"]?.stringValue?.contains("Service Unavailable") == true)
        #expect(try stat("faults_served") == 3, "the first attempt and 2 retries")
        try control(["action": "reset_stats"])
        let off = try omni(["read-state", canister, "/time", "--retries", "0"])
        #expect(off.status == 5 && !off.stderrText.contains("sending the same request again"), "\(off.stderrText)")
        #expect(try stat("faults_served") == 1)
        try control(["action": "reset_stats"])
        let environment = try omni(["read-state", canister, "/time"], environment: ["OMNI_IC_RETRIES": "1"])
        #expect(environment.status == 5 && environment.stderrText.contains("(retry 1/1)"), "\(environment.stderrText)")
        #expect(try stat("faults_served") == 2)
        let tooMany = try omni(["read-state", canister, "/time", "--retries", "11"])
        #expect(tooMany.status == 2, "\(tooMany.stderrText)")
    }

    /// The replica accepts the call, then answers 503: sent again, the same envelope gets the certified reply. The
    /// update runs once, under one request id.
    @Test func acceptedCallAnswered503IsSentAgainUnchanged() throws {
        try control(["action": "reset_state"])
        try control(["faults": [["endpoint": "call", "status": 503, "accept": true]]])
        let result = try omni(["call", canister, "counter"])
        #expect(result.status == 0 && result.stdoutText == "(1 : nat)\n", "\(result.stderrText)")
        #expect(try view()["counter"] == 1, "the update ran once")
        #expect(try callRequestIDs().count == 1 && stat("call_v4") == 2, "two posts of one request")
    }

    /// Without retries left, a call the replica accepted but answered with 503 (or a reset) is looked up by its
    /// request id and followed to its reply: still one request id, no second signature of a call.
    @Test(arguments: [JSONValue.int(503), JSONValue.string("reset")])
    func acceptedCallWithoutRetriesIsFollowedByItsRequestID(fault: JSONValue) throws {
        try control(["action": "reset_state"])
        try control(["call_polls": 1, "faults": [["endpoint": "call", "status": fault, "accept": true]]])
        // With --did the call is the process's first request: a reset then reaches omni (libcurl itself sends a
        // request again, unchanged, when a reused connection dies first).
        let did = home.path("counter.did")
        try home.writeBytes(did, Array("service : { counter : () -> (nat) }".utf8))
        let result = try omni(["call", canister, "counter", "--retries", "0", "--did", did])
        #expect(result.status == 0 && result.stdoutText == "(1 : nat)\n", "\(result.stderrText)")
        #expect(result.stderrText.contains("but the network knows it: following it instead of signing it again"), "\(result.stderrText)")
        #expect(try view()["counter"] == 1)
        #expect(try callRequestIDs().count == 1 && stat("call_v4") == 1 && stat("polls") >= 1)
    }

    /// A call the replica never accepted, failing on every retry: it is not signed again; the error says the
    /// network does not know it and how to check later.
    @Test func unansweredCallIsNeverSignedAgain() throws {
        try control(["action": "reset_state"])
        try control(["faults": [["endpoint": "call", "status": 502, "times": 3]]])
        let result = try omni(["call", canister, "counter", "-o", "json"])
        #expect(result.status == 5, "\(result.stderrText)")
        let message = try errorJSON(result)["message"]?.stringValue ?? ""
        #expect(message.contains("the network does not know call 0x") && message.contains("it was not signed again"), "\(message)")
        #expect(message.contains("omni ic request-status 0x"), "\(message)")
        #expect(try callRequestIDs().count == 1 && stat("faults_served") == 3 && view()["counter"] == 0)
    }

    // MARK: The per-call unverified query

    @Test func unsafeIsOneQueryAskedForByName() throws {
        try control(["bad_node_signature": "always"])
        let verified = try omni(["query", canister, "greet", "(\"v\")"])
        #expect(verified.status == 1 && verified.stdoutText.isEmpty, "\(verified.stderrText)")
        try control(["action": "reset_stats"])
        let unsafe = try omni(["query", canister, "greet", "(\"u\")", "--unsafe"])
        #expect(unsafe.status == 0 && unsafe.stdoutText == "(\"Hello, u!\")\n", "\(unsafe.stderrText)")
        #expect(unsafe.stderrText.contains("warning: --unsafe: this answer is NOT verified"), "\(unsafe.stderrText)")
        #expect(try stat("node_key_reads") == 0, "no subnet keys are read for it")
        let quiet = try omni(["query", canister, "greet", "(\"u\")", "--unsafe", "-q"])
        #expect(quiet.stderrText.contains("NOT verified"), "said even with -q: \(quiet.stderrText)")
        let json = try omni(["query", canister, "greet", "(\"u\")", "--unsafe", "-o", "json"])
        #expect(try json.status == 0 && self.json(json)["verified"] == .bool(false))
        #expect(try self.json(json)["verification"]?["kind"] == "none")
        try control(["action": "reset_config"])
        let normal = try omni(["query", canister, "greet", "(\"n\")", "-o", "json"])
        #expect(try self.json(normal)["verified"] == .bool(true))
        // Types for the unverified answer still come from a verified certificate.
        try control(["bad_bls": "certificate"])
        let typed = try omni(["query", canister, "greet", "(\"t\")", "--unsafe"])
        #expect(typed.status == 1 && typed.stderrText.contains("verification failed (signature)"), "\(typed.stderrText)")
        // Nowhere else.
        for command in [["call", canister, "greet_update", "(\"x\")"], ["read-state", canister, "/time"], ["metadata", canister],
                        ["request-status", String(repeating: "ab", count: 32), canister], ["send", "-"]] {
            let refused = try omni(command + ["--unsafe"])
            #expect(refused.status == 2 && refused.stderrText.contains("--unsafe"), "\(command[0]): \(refused.stderrText)")
        }
    }
}

extension ICSurfaceEndToEndTests {
    /// A private HOME, XDG_CONFIG_HOME (identities) and XDG_CACHE_HOME (node keys), removed when the value goes away.
    final class Home {
        let directory: URL
        var home: URL { directory.appendingPathComponent("home") }
        var config: URL { directory.appendingPathComponent("config") }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-ic-surface-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { home.appendingPathComponent(name).path }

        func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
            let base = ["HOME": home.path, "XDG_CONFIG_HOME": config.path, "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path]
            return try Subprocess.run(Omni.executable, arguments, stdin: stdin ?? Data(),
                                      environment: Omni.environment(base.merging(environment) { $1 }), currentDirectory: home)
        }

        /// Writes a secret file: created 0600 before any byte lands.
        func writeBytes(_ path: String, _ bytes: [UInt8]) throws {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }
}

private extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
