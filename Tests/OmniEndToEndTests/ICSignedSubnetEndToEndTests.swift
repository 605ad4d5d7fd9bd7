import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// Issue 12, the real `omni` binary against `Tests/Peers/ic_replica.py`: requests signed offline for a subnet route
/// (`omni ic sign --subnet`) are sent there by `omni ic send`, with that subnet's certificate checks, and a
/// disagreeing `--subnet` is refused before anything is sent; the status request behind `--fetch-root-key` is
/// retried like every other idempotent request.
@Suite(.serialized, .offPool)
struct ICSignedSubnetEndToEndTests {
    /// Its own replica: the other IC suites reset theirs between tests and run concurrently with this one.
    static let shared = Result { try PeerProcess.icReplica(for: "the signed subnet tests") }

    let replica: PeerProcess
    let url: String
    let rootKey: String
    let canister: String
    let subnet: String
    /// A subnet this replica does not serve (its root subnet, which delegated to `subnet`).
    let otherSubnet: String
    let home: ICSurfaceEndToEndTests.Home

    init() throws {
        replica = try Self.shared.get()
        url = try replica.string("url")
        rootKey = try replica.string("root_key")
        canister = try replica.string("canister_id")
        subnet = try replica.string("subnet_id")
        otherSubnet = try replica.string("root_subnet_id")
        home = try ICSurfaceEndToEndTests.Home()
        try control(["action": "reset_config"])
        try control(["action": "reset_stats"])
        let made = try home.run(["ic", "identity", "new", "cold", "--use"])
        try #require(made.status == 0, "\(made.stderrText)")
    }

    @discardableResult
    func control(_ body: JSONValue) throws -> JSONValue { try replica.control(body) }

    func stat(_ name: String) throws -> Int { try replica.stat(name) }

    /// `omni ic <arguments>`, with the replica and its root key unless `network` is false (signing is offline).
    func omni(_ arguments: [String], network: Bool = true) throws -> ProcessResult {
        try home.run(["ic"] + arguments + (network ? ["--network", url, "--root-key", rootKey] : []),
                     environment: ["OMNI_IC_POLL_INTERVAL": "50ms"])
    }

    func fileJSON(_ path: String) throws -> JSONValue { try JSONValue.parse(try String(contentsOfFile: path, encoding: .utf8)) }

    func errorJSON(_ result: ProcessResult) throws -> JSONValue {
        guard let line = result.stderrText.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let error = try JSONValue.parse(String(line))["error"] else {
            throw TestSupportError("no JSON error on stderr: \(result.stderrText)")
        }
        return error
    }

    /// Signs a canister creation for `subnet` offline and returns the file's path.
    func signCreation(for subnet: String, name: String = "create.json") throws -> String {
        let file = home.path(name)
        let signed = try omni(["sign", "aaaaa-aa", "provisional_create_canister_with_cycles", "(record {})", "--update",
                               "--subnet", subnet, "--out-file", file, "-o", "json"], network: false)
        try #require(signed.status == 0, "\(signed.stderrText)")
        let summary = try JSONValue.parse(signed.stdoutText)
        #expect(summary["subnet_id"]?.stringValue == subnet && summary["effective_canister_id"] == .null, "\(signed.stdoutText)")
        return file
    }

    // MARK: Signed for a subnet

    @Test func aSignedCanisterCreationGoesToItsSubnet() throws {
        let file = try signCreation(for: subnet)
        let recorded = try fileJSON(file)
        #expect(recorded["subnet_id"]?.stringValue == subnet)
        #expect(recorded["effective_canister_id"] == nil, "a subnet-routed file has no effective canister id for old readers to follow")
        #expect(recorded["request_status_envelope"]?.stringValue != nil)

        let review = try omni(["send", "--review", file], network: false)
        #expect(review.status == 0 && review.stdoutText.contains("subnet: \(subnet)"), "\(review.stdoutText)\(review.stderrText)")
        #expect(try stat("subnet_call_v4") == 0, "--review sends nothing")

        let sent = try omni(["send", file, "--subnet", subnet, "-o", "json"])
        #expect(sent.status == 0, "\(sent.stderrText)")
        let answer = try JSONValue.parse(sent.stdoutText)
        #expect(answer["verification"]?["subnet_id"]?.stringValue == subnet, "\(sent.stdoutText)")
        #expect(try stat("subnet_call_v4") == 1 && stat("call_v4") == 0 && stat("call_v3") == 0 && stat("call_v2") == 0)
    }

    @Test func aSignedListCanistersQueryGoesToItsSubnet() throws {
        let file = home.path("list.json")
        let signed = try omni(["sign", "aaaaa-aa", "list_canisters", "--query", "--subnet", subnet, "--out-file", file], network: false)
        try #require(signed.status == 0, "\(signed.stderrText)")
        #expect(try fileJSON(file)["subnet_id"]?.stringValue == subnet)
        let sent = try omni(["send", file, "-o", "json"])
        #expect(sent.status == 0, "\(sent.stderrText)")
        #expect(try JSONValue.parse(sent.stdoutText)["verification"]?["subnet_id"]?.stringValue == subnet, "\(sent.stdoutText)")
        #expect(try stat("subnet_query_v3") == 1 && stat("query_v3") == 0 && stat("query_v2") == 0)
    }

    /// The route is not part of the signature: an explicit --subnet that disagrees with the file stops the send.
    @Test func aDisagreeingSubnetIsRefusedBeforeSending() throws {
        let file = try signCreation(for: subnet)
        let elsewhere = try omni(["send", file, "--subnet", otherSubnet])
        #expect(elsewhere.status == 2, "\(elsewhere.stderrText)")
        #expect(elsewhere.stderrText.contains("is routed to subnet \(subnet), not --subnet \(otherSubnet)"), "\(elsewhere.stderrText)")

        let canisterFile = home.path("greet.json")
        let greet = try omni(["sign", canister, "greet", "(\"x\")", "--query", "--out-file", canisterFile], network: false)
        try #require(greet.status == 0, "\(greet.stderrText)")
        let rerouted = try omni(["send", canisterFile, "--subnet", subnet])
        #expect(rerouted.status == 2 && rerouted.stderrText.contains("is routed to effective canister id \(canister)"), "\(rerouted.stderrText)")
        #expect(try stat("subnet_call_v4") == 0 && stat("query_v3") == 0 && stat("query_v2") == 0, "nothing was sent")
    }

    /// A boundary node answering the subnet route with another subnet's certificate: the file's subnet decides.
    @Test func anotherSubnetsCertificateIsRefused() throws {
        try control(["any_subnet_id": true])
        let file = try signCreation(for: otherSubnet)
        let sent = try omni(["send", file, "-o", "json"])
        #expect(sent.status == 1 && sent.stdoutText.isEmpty, "\(sent.stderrText)")
        let error = try errorJSON(sent)
        #expect(error["kind"] == "verification_failed", "\(error)")
        #expect(error["message"]?.stringValue?.contains(subnet) == true && error["message"]?.stringValue?.contains(otherSubnet) == true,
                "\(String(describing: error["message"]))")
    }

    @Test func subnetRoutesAreCheckedWhenSigningAndReading() throws {
        let cases: [([String], String)] = [
            (["sign", canister, "greet", "--query", "--subnet", subnet], "takes only aaaaa-aa.list_canisters"),
            (["sign", "aaaaa-aa", "install_code", "(record {})", "--update", "--subnet", subnet], "takes only aaaaa-aa.create_canister"),
            (["sign", "aaaaa-aa", "list_canisters", "--query", "--subnet", subnet, "--effective-canister-id", canister], "cannot be combined"),
        ]
        for (arguments, message) in cases {
            let result = try omni(arguments + ["--out-file", home.path("refused.json")], network: false)
            #expect(result.status != 0 && result.stderrText.contains(message), "\(arguments): \(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: home.path("refused.json")))
        }
        // A file naming both routes, or a subnet route for a request the subnet endpoints do not take, is refused.
        let file = try signCreation(for: subnet)
        guard case .object(var object) = try fileJSON(file) else { Issue.record("not an object"); return }
        object["effective_canister_id"] = .string(canister)
        let both = home.path("both.json")
        try home.writeBytes(both, Array(JSONValue.object(object).serialized().utf8))
        let refusedBoth = try omni(["send", "--review", both], network: false)
        #expect(refusedBoth.status != 0 && refusedBoth.stderrText.contains("two routes"), "\(refusedBoth.stderrText)")

        let greetFile = home.path("greet.json")
        let greet = try omni(["sign", canister, "greet", "(\"x\")", "--query", "--out-file", greetFile], network: false)
        try #require(greet.status == 0, "\(greet.stderrText)")
        guard case .object(var greetObject) = try fileJSON(greetFile) else { Issue.record("not an object"); return }
        greetObject["effective_canister_id"] = nil
        greetObject["subnet_id"] = .string(subnet)
        let rerouted = home.path("rerouted.json")
        try home.writeBytes(rerouted, Array(JSONValue.object(greetObject).serialized().utf8))
        let refusedReroute = try omni(["send", "--review", rerouted], network: false)
        #expect(refusedReroute.status != 0 && refusedReroute.stderrText.contains("cannot go to subnet"), "\(refusedReroute.stderrText)")
    }

    // MARK: --fetch-root-key retries

    func fetchingQuery(_ extra: [String] = []) throws -> ProcessResult {
        try home.run(["ic", "query", canister, "greet", "(\"fetched\")", "--network", url, "--fetch-root-key"] + extra)
    }

    @Test(arguments: [429, 502, 503, 504])
    func theRootKeyFetchIsRetried(status: Int) throws {
        try control(["faults": [["endpoint": "status", "status": .int(Int64(status)), "times": 2]]])
        let result = try fetchingQuery()
        #expect(result.status == 0 && result.stdoutText == "(\"Hello, fetched!\")\n", "\(result.stderrText)")
        #expect(result.stderrText.contains("HTTP \(status); sending the same request again") && result.stderrText.contains("(retry 2/2)"),
                "\(result.stderrText)")
        #expect(try stat("faults_served") == 2 && stat("status") == 1, "two faults, then the answer")
    }

    @Test func theRootKeyFetchSurvivesAResetAndGivesUpAfterTheRetries() throws {
        try control(["faults": [["endpoint": "status", "status": "reset"]]])
        let reset = try fetchingQuery()
        #expect(reset.status == 0 && reset.stdoutText == "(\"Hello, fetched!\")\n", "\(reset.stderrText)")
        #expect(try stat("faults_served") == 1)

        try control(["action": "reset_stats"])
        try control(["faults": [["endpoint": "status", "status": 503, "times": 10]]])
        let exhausted = try fetchingQuery()
        #expect(exhausted.status != 0 && exhausted.stdoutText.isEmpty && exhausted.stderrText.contains("503"), "\(exhausted.stderrText)")
        #expect(try stat("faults_served") == 3, "the first attempt and 2 retries")

        try control(["action": "reset_stats"])
        let off = try fetchingQuery(["--retries", "0"])
        #expect(off.status != 0 && !off.stderrText.contains("sending the same request again"), "\(off.stderrText)")
        #expect(try stat("faults_served") == 1)
        // A refusal that retrying would not change is not retried.
        try control(["action": "reset_stats"])
        try control(["faults": [["endpoint": "status", "status": 500, "times": 10]]])
        let failed = try fetchingQuery()
        #expect(failed.status != 0 && !failed.stderrText.contains("sending the same request again"), "\(failed.stderrText)")
        #expect(try stat("faults_served") == 1)
        try control(["faults": []])
    }
}
