import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing

/// `omni ic identity login …` in the background: stderr read line by line (where the URL and notes arrive),
/// stdout collected.
final class LoginProcess: @unchecked Sendable {
    private let process: BackgroundProcess

    init(_ arguments: [String], environment: [String: String]) throws {
        process = try BackgroundProcess(executable: Omni.executable, arguments, environment: Omni.environment(environment))
    }

    /// The first stderr line satisfying `predicate`, waiting for it to arrive (or for omni to end).
    func stderrLine(timeout: Double = 30, where predicate: (String) -> Bool) throws -> String {
        try process.stderrLine(timeout: timeout, where: predicate)
    }

    /// The login page's URL (with the token), from the `--no-open` note.
    func pageURL() throws -> String {
        try stderrLine { $0.hasPrefix("  http://") && $0.contains("/#") }.trimmingCharacters(in: .whitespaces)
    }

    func interrupt() { process.interrupt() }

    /// Waits for omni to exit and its pipes to drain; the exit status.
    func waitForExit(timeout: Double = 90) throws -> Int32 { try process.waitForExit(timeout: timeout) }

    var stderrText: String { process.stderrText }
    var stdoutText: String { process.stdoutText }
}

/// Shared by the login suites: the fake Internet Identity (Tests/Browser pages, Tests/Peers/ii_fake.py signing with
/// ic_replica.py's keys), started once.
enum FakeIdentityProvider {
    static let shared = Result { () throws -> PeerProcess in
        let peer = try PeerProcess(script: "ii_fake.py")
        FileHandle.standardError.write(Data("ii_fake.py for the login end-to-end tests: --seed \(try peer.string("seed"))\n".utf8))
        return peer
    }
}

/// `omni ic identity login` round trips in headless Chromium against the hand-written fake Internet Identity: the
/// page omni serves opens the fake II, runs the postMessage exchange, and POSTs the answer back with the state token;
/// omni verifies it (canister signatures under the test replica's root key) before it stores anything.
@Suite(.serialized, .enabled(if: Chromium.executable != nil, Chromium.missingNote("the Internet Identity login round trip")), .offPool)
struct IILoginEndToEndTests {
    let provider: PeerProcess
    let config: URL
    let ledger = "ryjl3-tyaaa-aaaaa-aaaba-cai"

    init() throws {
        provider = try FakeIdentityProvider.shared.get()
        config = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-login-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    }

    var environment: [String: String] { ["OMNI_CONFIG_DIR": config.path] }
    var sessionFile: URL { config.appendingPathComponent("identities/ii.session.json") }
    var identitiesStored: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: config.appendingPathComponent("identities").path)) ?? []).sorted()
    }

    /// `omni ic identity login ii` against the fake II in `mode`, with `--listen 127.0.0.1:0` (tests run side by
    /// side) and the test root key.
    func start(_ mode: String, _ extra: [String] = [], open: Bool = false, environment extraEnvironment: [String: String] = [:]) throws -> LoginProcess {
        let arguments = ["ic", "identity", "login", "ii", "--ii-url", try provider.string("url") + "?mode=" + mode,
                         "--root-key", try provider.string("root_key"), "--listen", "127.0.0.1:0", "--timeout", "60s",
                         "--output", "json"] + (open ? [] : ["--no-open"]) + extra
        return try LoginProcess(arguments, environment: environment.merging(extraEnvironment) { $1 })
    }

    /// Runs a login in `mode` through the browser to its end.
    func login(_ mode: String, _ extra: [String] = []) throws -> (status: Int32, login: LoginProcess) {
        let login = try start(mode, extra)
        let browser = try HeadlessBrowser(try login.pageURL())
        defer { browser.stop() }
        return (try login.waitForExit(), login)
    }

    /// The session key omni generates for a login is a secret: after a whole login and the commands that use and
    /// show the session, it is in the session store and in no output, log or other file (the planted-secret rule,
    /// for the one secret of this tree that omni makes rather than reads).
    @Test func theSessionKeyStaysInItsStore() throws {
        let (status, login) = try login("valid", ["-v"])
        #expect(status == 0, "\(login.stderrText)")
        var scan = LeakScan()
        scan.add("omni ic identity login (stdout)", Array(login.stdoutText.utf8))
        scan.add("omni ic identity login (stderr)", Array(login.stderrText.utf8))
        for arguments in [["ic", "identity", "show", "ii", "-o", "json", "-v"], ["ic", "identity", "list", "-v"],
                          ["ic", "identity", "whoami", "--identity", "ii", "-v"], ["ic", "identity", "export", "ii"],
                          ["ic", "identity", "verify-delegation", "@" + sessionFile.path, "--root-key", try provider.string("root_key"), "-v"]] {
            let result = try Omni.run(arguments, environment: environment)
            scan.add("omni " + arguments.joined(separator: " "), result)
        }
        let stored = [UInt8](try Data(contentsOf: sessionFile))
        let pem = try #require(try JSONValue.parse(stored)["session_key"]?.stringValue)
        let der = try Base64.decode(pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())
        let secret = PlantedSecret.bytes("II session key", Array(der.suffix(32)))
        try scan.addFiles(under: config, excluding: [sessionFile.path])
        #expect(scan.leaks(of: [secret]).isEmpty, "the session key outside its store: \(scan.leaks(of: [secret]))")
        #expect(!secret.found(in: stored).isEmpty, "the search finds the key in the session store")
    }

    /// What the fake II last signed (origin, principal, session key it was asked for).
    func lastSigned() throws -> JSONValue { try provider.requestJSON("/_last") }

    func errorJSON(_ login: LoginProcess) throws -> JSONValue {
        guard let line = login.stderrText.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
            throw TestSupportError("no JSON error on stderr: \(login.stderrText)")
        }
        return try JSONValue.parse(String(line))
    }

    // MARK: - Round trips

    /// The whole flow with the browser opener: omni starts `xdg-open` (a stand-in that hands the URL to Chromium),
    /// the fake II answers with a canister-signed delegation, and the session is stored 0600 and usable as --identity.
    @Test func loginThroughTheBrowserStoresAVerifiedSession() throws {
        // The fake II's keys are ic_replica.py's: the same seed gives the same root key.
        let replica = try PeerProcess(script: "ic_replica.py", arguments: ["--seed", try provider.string("seed")])
        #expect(try replica.string("root_key") == provider.string("root_key"))
        replica.stop()

        let bin = config.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let opened = config.appendingPathComponent("opened-url")
        let opener = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" > '\(opened.path)'\n".write(to: opener, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)

        let login = try start("valid", ["--use"], open: true, environment: ["PATH": bin.path + ":/usr/bin:/bin"])
        _ = try login.stderrLine { $0.contains("Opened the login page") }
        // omni says so once xdg-open started; the stand-in writes the URL a moment later.
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOf: opened, encoding: .utf8))?.hasSuffix("\n") != true, Date() < deadline { usleep(5000) }
        let url = try String(contentsOf: opened, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.contains("/#"))
        let browser = try HeadlessBrowser(url)
        let status = try login.waitForExit()
        browser.stop()
        #expect(status == 0, "\(login.stderrText)")
        let token = String(url[url.range(of: "#")!.upperBound...])
        #expect(token.count == 64)
        #expect(!login.stderrText.contains(token), "with an opener, the token is not printed")

        let result = try JSONValue.parse(login.stdoutText)
        let signed = try lastSigned()
        let origin = String(url[..<url.range(of: "/#")!.lowerBound])
        #expect(result["origin"]?.stringValue == origin)
        #expect(signed["origin"]?.stringValue == origin, "Internet Identity saw omni's page as the requesting origin")
        #expect(result["principal"] == signed["principal"])
        #expect(result["session_public_key"] == signed["session_public_key"])
        #expect(result["provider_canister"]?.stringValue == (try provider.string("canister_id")))
        #expect(result["targets"] == .null && result["default"] == true && result["authn_method"] == "passkey")
        #expect(signed["max_time_to_live"] == "28800000000000", "the default --ttl is 8h")
        #expect(login.stderrText.contains("belong to the origin \(origin)"))

        let attributes = try FileManager.default.attributesOfItem(atPath: sessionFile.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let whoami = try Omni.run(["ic", "identity", "whoami", "--identity", "ii", "-o", "json"], environment: environment)
        #expect(whoami.status == 0, "\(whoami.stderrText)")
        #expect(try JSONValue.parse(whoami.stdoutText)["principal"] == result["principal"])
        let verified = try Omni.run(["ic", "identity", "verify-delegation", "@" + sessionFile.path, "--root-key", try provider.string("root_key"),
                                     "-o", "json"], environment: environment)
        #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderrText)")
        #expect((try? JSONValue.parse(verified.stdoutText))?["principal"] == result["principal"])
    }

    /// A scoped, shorter session through a P-256 intermediate key (raw r ‖ s), with a derivation origin.
    @Test func aScopedLoginThroughAP256Link() throws {
        let (status, login) = try self.login("p256", ["--target", ledger, "--ttl", "1h", "--derivation-origin", "https://abcde.icp0.io"])
        #expect(status == 0, "\(login.stderrText)")
        let result = try JSONValue.parse(login.stdoutText)
        #expect(result["targets"] == [.string(ledger)])
        #expect(result["delegations"] == 2)
        #expect(result["derivation_origin"] == "https://abcde.icp0.io")
        let signed = try lastSigned()
        #expect(signed["requested_targets"] == [.string(ledger)] && signed["max_time_to_live"] == "3600000000000")
        #expect(signed["derivation_origin"] == "https://abcde.icp0.io" && result["principal"] == signed["principal"])
    }

    /// A frame on another origin inside the II window posts a forged — validly self-signed — answer first; the page
    /// ignores it (wrong origin and window) and the real one is stored.
    @Test func aForgedAnswerFromAnotherOriginIsIgnored() throws {
        let (status, login) = try self.login("impostor")
        #expect(status == 0, "\(login.stderrText)")
        #expect(try JSONValue.parse(login.stdoutText)["principal"] == lastSigned()["principal"])
        let otherOrigin = try provider.string("other_origin")
        #expect(login.stderrText.contains("ignored 1 message(s)") && login.stderrText.contains(otherOrigin), "\(login.stderrText)")
    }

    // MARK: - Refusals

    struct Refusal: CustomTestStringConvertible, Sendable {
        let mode: String
        let arguments: [String]
        let exitCode: Int32
        let kind: String
        let says: String
        var testDescription: String { mode + (arguments.isEmpty ? "" : " " + arguments.joined(separator: " ")) }
    }

    static let refusals: [Refusal] = [
        Refusal(mode: "tampered", arguments: [], exitCode: 1, kind: "verification_failed", says: "(delegation_chain)"),
        Refusal(mode: "wider", arguments: ["--target", "ryjl3-tyaaa-aaaaa-aaaba-cai"], exitCode: 1, kind: "verification_failed",
                says: "(target)"),
        Refusal(mode: "unscoped", arguments: ["--target", "ryjl3-tyaaa-aaaaa-aaaba-cai"], exitCode: 1, kind: "verification_failed",
                says: "the answer is unscoped"),
        Refusal(mode: "wider", arguments: [], exitCode: 1, kind: "verification_failed", says: "but no targets were requested"),
        Refusal(mode: "expired", arguments: [], exitCode: 1, kind: "verification_failed", says: "(expired)"),
        Refusal(mode: "other-session", arguments: [], exitCode: 1, kind: "verification_failed", says: "not to this login's session key"),
        Refusal(mode: "p256-der", arguments: [], exitCode: 1, kind: "verification_failed", says: "64 bytes"),
        Refusal(mode: "failure", arguments: [], exitCode: 4, kind: "rejected", says: "UserInterrupt"),
    ]

    /// Each bad answer is refused with its reason and exit code, and nothing is stored.
    @Test(arguments: refusals) func aBadAnswerIsRefusedAndNothingStored(_ refusal: Refusal) throws {
        let (status, login) = try self.login(refusal.mode, refusal.arguments)
        #expect(status == refusal.exitCode, "\(login.stderrText)")
        let error = try errorJSON(login)
        #expect(error["error"]?["kind"]?.stringValue == refusal.kind)
        #expect(error["error"]?["message"]?.stringValue?.contains(refusal.says) == true, "\(error.serialized())")
        #expect(error["error"]?["message"]?.stringValue?.contains("nothing was stored") == true)
        #expect(identitiesStored.isEmpty, "stored: \(identitiesStored)")
        #expect(login.stdoutText.isEmpty)
    }

    /// A POST with a wrong state token is answered 403 and changes nothing; the real page's answer still completes.
    @Test func aWrongStateTokenIsRefused() throws {
        let login = try start("valid")
        let url = try login.pageURL()
        let origin = String(url[..<url.range(of: "/#")!.lowerBound])
        let forged = JSONValue.object(["state": .string(String(repeating: "ab", count: 32)),
                                       "answer": ["kind": "authorize-client-failure", "text": "forged"]])
        let response = try HTTPClient().perform(HTTPRequest(method: "POST", url: origin + "/answer", headers: ["Content-Type": "application/json"],
                                                            body: Array(forged.serialized().utf8), totalTimeout: .seconds(10)))
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self).contains("wrong state token"))
        _ = try login.stderrLine { $0.contains("refused a request") && $0.contains("wrong state token") }
        #expect(identitiesStored.isEmpty)

        let browser = try HeadlessBrowser(url)
        defer { browser.stop() }
        #expect(try login.waitForExit() == 0, "\(login.stderrText)")
        #expect(try JSONValue.parse(login.stdoutText)["principal"] == lastSigned()["principal"])
        #expect(identitiesStored == ["ii.session.json"])
    }
}

/// The parts of `omni ic identity login` that need no browser.
@Suite(.serialized, .offPool)
struct IILoginCommandLineTests {
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-login-\(UUID().uuidString)")
    var environment: [String: String] { ["OMNI_CONFIG_DIR": config.path] }

    func start(_ extra: [String]) throws -> LoginProcess {
        try LoginProcess(["ic", "identity", "login", "ii", "--listen", "127.0.0.1:0", "--no-open", "--output", "json"] + extra,
                         environment: environment)
    }

    @Test func noAnswerBeforeTheTimeoutExitsFive() throws {
        let login = try start(["--timeout", "1s"])
        #expect(try login.waitForExit() == 5)
        #expect(login.stderrText.contains("\"kind\":\"timeout\""), "\(login.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: config.appendingPathComponent("identities").path))
    }

    @Test func ctrlCCancelsCleanly() throws {
        let login = try start([])
        _ = try login.pageURL()
        _ = try login.stderrLine { $0.hasPrefix("Waiting for Internet Identity") }
        login.interrupt()
        #expect(try login.waitForExit() == 130)
        #expect(login.stderrText.contains("Login cancelled; nothing was stored."), "\(login.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: config.appendingPathComponent("identities").path))
    }

    @Test func theRequestIsCheckedBeforeAnythingStarts() throws {
        let cases: [([String], Int32, String)] = [
            (["--ttl", "31d"], 2, "30d"),
            (["--ii-url", "http://identity.example"], 2, "plain http"),
            (["--ii-url", "https://identity.ic0.app/#x"], 2, "fragment"),
            (["--derivation-origin", "https://abcde.icp0.io/path"], 2, "path"),
            (["--target", "ryjl3-tyaaa-aaaaa-aaaba-cai,not-a-principal"], 3, "entry 2"),
            (["--listen", "192.0.2.1:0"], 2, "non-loopback"),
        ]
        for (arguments, status, says) in cases {
            let result = try Omni.run(["ic", "identity", "login", "ii", "--no-open"] + arguments, environment: environment)
            #expect(result.status == status, "\(arguments): \(result.stderrText)")
            #expect(result.stderrText.contains(says), "\(arguments): \(result.stderrText)")
            #expect(!result.stderrText.contains("Open this URL"), "no page was served for \(arguments)")
        }
        // An existing identity is not replaced without --force, before any page is served.
        #expect(try Omni.run(["ic", "identity", "new", "ii"], environment: environment).status == 0)
        let taken = try Omni.run(["ic", "identity", "login", "ii", "--no-open"], environment: environment)
        #expect(taken.status == 7 && taken.stderrText.contains("--force"), "\(taken.stderrText)")
        #expect(!taken.stderrText.contains("Open this URL"))
    }
}
