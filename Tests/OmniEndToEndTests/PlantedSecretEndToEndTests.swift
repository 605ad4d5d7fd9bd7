import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// Distinct secrets planted in every tree — an IC identity PEM and a delegated session, Connect keys, an ird API
/// key and login session, a challenge in the attest store (TrUAPI entropy and its mnemonic: TruAPISigningEndToEndTests)
/// — then each tree's commands run end to end, failing paths and --verbose included, and every byte of their
/// stdout, stderr and every file they wrote outside the secret stores is searched for each secret in every form
/// (PlantedSecret). Each test also shows the search finds a secret where it is meant to be.
@Suite(.serialized, .timeLimit(.minutes(5)), .offPool) struct PlantedSecretEndToEndTests {
    /// A temporary HOME with its own XDG directories; `planted/` holds the files the test plants (secret stores by
    /// definition, never searched).
    final class Home {
        let directory: URL
        var scan = LeakScan()
        /// Secret stores: searched by nobody, except to show the search works.
        var stores: [String]

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-planted-\(UUID().uuidString)")
                .standardizedFileURL
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("planted"), withIntermediateDirectories: true)
            stores = [directory.appendingPathComponent("planted").path]
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        var environment: [String: String] {
            ["HOME": path("home"), "XDG_CONFIG_HOME": path("config"), "XDG_STATE_HOME": path("state"), "XDG_CACHE_HOME": path("cache")]
        }

        /// A file in planted/, mode 0600 unless told.
        @discardableResult
        func plant(_ name: String, _ bytes: [UInt8], mode: Int = 0o600) throws -> String {
            let file = path("planted/" + name)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
            return file
        }

        /// Runs omni, records its output for the search, and checks the exit status when one is expected.
        @discardableResult
        func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil, expect status: Int32? = 0,
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
            let result = try Omni.run(arguments, stdin: stdin, environment: environment.merging(extra) { $1 })
            if let status {
                #expect(result.status == status, "omni \(arguments.joined(separator: " ")): \(result.stderrText)", sourceLocation: sourceLocation)
            } else {
                #expect(result.status != 0, "omni \(arguments.joined(separator: " ")) should fail", sourceLocation: sourceLocation)
            }
            scan.add("omni " + arguments.joined(separator: " "), result)
            return result
        }

        /// Every file written under this home outside the stores, then the leaks of `secrets` in all of it.
        func leaks(of secrets: [PlantedSecret]) throws -> [String] {
            try scan.addFiles(under: directory, excluding: stores)
            return scan.leaks(of: secrets)
        }
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func expectNoLeaks(_ leaks: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(leaks.isEmpty, "planted secrets found: \(leaks.prefix(20))", sourceLocation: sourceLocation)
    }

    // MARK: IC

    @Test func icIdentityAndSession() throws {
        let home = try Home()
        let seed = Self.random(32)
        let pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.encode(try Hex.decode("302e020100300506032b657004220420") + seed)
            + "\n-----END PRIVATE KEY-----\n"
        let pemFile = try home.plant("identity.pem", Array(pem.utf8))
        let exposed = try home.plant("exposed.pem", Array(pem.utf8), mode: 0o644)
        let truncated = try home.plant("truncated.pem", Array(pem.utf8.prefix(60)))
        let identities = home.path("config/omni/identities")
        home.stores.append(identities)
        let ledger = "ryjl3-tyaaa-aaaaa-aaaba-cai"

        try home.run(["ic", "identity", "import", "planted", "--pem", pemFile, "--use"])
        try home.run(["ic", "identity", "import", "planted", "--pem", pemFile], expect: 7)
        try home.run(["ic", "identity", "import", "other", "--pem", exposed], expect: nil)
        try home.run(["ic", "identity", "import", "other", "--pem", truncated], expect: nil)
        for format in ["text", "json"] {
            try home.run(["ic", "identity", "list", "-o", format, "-v"])
            try home.run(["ic", "identity", "show", "planted", "-o", format])
            try home.run(["ic", "identity", "whoami", "-o", format])
        }
        try home.run(["ic", "identity", "principal"])
        try home.run(["ic", "account-id"])
        try home.run(["ic", "identity", "export", "planted"], expect: 2)
        try home.run(["ic", "identity", "remove", "planted"], expect: 2)
        try home.run(["ic", "sign", ledger, "icrc1_name", "--query", "--out-file", home.path("signed-query.json"), "-v"])

        // A delegated session from the planted key: its session key is a second secret, kept in its store.
        let sessionFile = home.path("planted/session.json")
        try home.run(["ic", "identity", "delegate", "--out-file", sessionFile, "--lifetime", "1h", "--target", ledger, "--save", "session"])
        let sessionJSON = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: sessionFile))))
        let sessionPEM = try #require(sessionJSON["session_key"]?.stringValue)
        let sessionDER = try Base64.decode(sessionPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())
        let sessionKey = Array(sessionDER.suffix(32))
        try home.run(["ic", "identity", "verify-delegation", "@" + sessionFile, "--canister", ledger, "-o", "json"])
        try home.run(["ic", "identity", "verify-delegation", "@" + sessionFile, "--canister", "aaaaa-aa"], expect: nil)
        try home.run(["ic", "identity", "show", "session", "-o", "json"])
        try home.run(["ic", "identity", "export", "session"], expect: nil)
        try home.run(["ic", "sign", ledger, "icrc1_name", "--query", "--identity", "session", "--out-file", home.path("signed-session.json")])

        // Against a replica: verified answers, an unverified one, a refused one, and a call.
        let replica = try PeerProcess(script: "ic_replica.py")
        let url = try replica.string("url"), rootKey = try replica.string("root_key"), canister = try replica.string("canister_id")
        let network = ["--network", url, "--root-key", rootKey]
        let pollFast = ["OMNI_IC_POLL_INTERVAL": "50ms"]
        try home.run(["ic", "query", canister, "greet", "(\"planted\")", "-v"] + network)
        try home.run(["ic", "query", canister, "greet", "(\"planted\")", "--unsafe", "-o", "json"] + network)
        try home.run(["ic", "call", canister, "greet_update", "(\"planted\")", "-v", "-o", "json"] + network, environment: pollFast)
        try home.run(["ic", "call", canister, "greet_update", "(\"planted\")", "--async"] + network)
        try home.run(["ic", "query", canister, "greet", "(\"planted\")", "--network", url, "--root-key", "mainnet", "-v"], expect: nil)
        try home.run(["ic", "query", canister, "greet", "(\"planted\")", "--identity", "session", "-v"] + network, expect: 6)
        _ = try replica.requestJSON("/_control", method: "POST", body: ["bad_bls": "certificate"])
        try home.run(["ic", "call", canister, "greet_update", "(\"planted\")", "-v"] + network, environment: pollFast, expect: 1)
        try home.run(["ic", "read-state", canister, "/time", "-v"] + network, expect: 1)
        try home.run(["ic", "send", "@" + home.path("signed-query.json"), "-v"] + network, expect: nil)

        let secrets = [PlantedSecret.bytes("identity seed", seed), PlantedSecret.bytes("session key", sessionKey)]
        Self.expectNoLeaks(try home.leaks(of: secrets))
        // The search finds them where they are kept.
        let stored = [UInt8](try Data(contentsOf: URL(fileURLWithPath: identities + "/planted.pem")))
        #expect(!secrets[0].found(in: stored).isEmpty, "the identity store holds the seed (in base64)")
        #expect(!secrets[1].found(in: Array(sessionPEM.utf8)).isEmpty, "the session file holds its key")
        let exported = try Omni.run(["ic", "identity", "export", "planted", "--show-private-key"], environment: home.environment)
        #expect(!secrets[0].found(in: Array(exported.stdout)).isEmpty, "export --show-private-key prints it when asked")
    }

    // MARK: Connect

    @Test func connectKeys() throws {
        let home = try Home()
        let appSecret = Self.random(32), accountSeed = Self.random(32)
        let appKey = try home.plant("app.key", Array(Hex.encode(appSecret).utf8))
        let accountKey = try home.plant("account.key", Array(Hex.encode(accountSeed).utf8))
        let exposed = try home.plant("exposed.key", Array(Hex.encode(appSecret).utf8), mode: 0o644)
        let peer = Hex.encode(Self.random(32)), sid = Self.base64url(Self.random(32))

        try home.run(["connect", "derive-keys", "--secret-key-file", appKey, "--peer-pk", peer, "--sid=" + sid, "-o", "json", "-v"])
        try home.run(["connect", "derive-keys", "--secret-key-file", "-", "--peer-pk", peer, "--sid=" + sid], stdin: Data(Hex.encode(appSecret).utf8))
        try home.run(["connect", "derive-keys", "--secret-key-file", exposed, "--peer-pk", peer, "--sid=" + sid], expect: 7)
        try home.run(["connect", "derive-keys", "--secret-key-file", appKey, "--peer-pk", "zz", "--sid=" + sid], expect: 3)
        try home.run(["connect", "derive-keys", "--secret-key-file", accountKey, "--peer-pk", peer, "--sid", "-x"], expect: nil)

        // A whole session through a local relay with both planted keys; the wallet signs a raw request.
        let relay = try RelayProcess(["--network-id", ConnectEndToEndTests.network])
        let message = home.path("msg.bin")
        try Data("planted".utf8).write(to: URL(fileURLWithPath: message))
        let app = try BackgroundOmni(["connect", "app", "--node", relay.url, "--network-id", ConnectEndToEndTests.network, "--app-key-file", appKey,
                                      "--output", "jsonl", "-v", "sign-raw", "--domain-tag", "omni|planted", "--data", "@" + message])
        let session = try app.line { $0["event"] == "session" }
        let uri = try home.plant("uri.txt", Array((session["wallet_uri"]?.stringValue ?? "").utf8))
        try home.run(["connect", "wallet", "--uri", "@" + uri, "--account-key-file", accountKey, "--approve", "--auto-sign",
                      "--allow-domain", "omni|planted", "--output", "jsonl", "-v"])
        #expect(try app.waitForExit() == 0, "\(app.stderrText)")
        home.scan.add("connect app (stdout)", Array(app.stdoutText.utf8))
        home.scan.add("connect app (stderr)", Array(app.stderrText.utf8))

        // A session registered with the planted app key, its tokens kept in a store: the app and management tokens
        // never appear outside it (the wallet URI carries only the wallet's and the relay's, by design), through
        // status and delete with the token file, verbose and in JSON.
        let sessionFile = home.path("planted/session.json")
        try home.run(["connect", "session", "create", "--node", relay.url, "--network-id", ConnectEndToEndTests.network,
                      "--app-key-file", appKey, "--out-file", sessionFile, "-o", "json", "-v"])
        try home.run(["connect", "session", "create", "--node", relay.url, "--network-id", ConnectEndToEndTests.network,
                      "--app-key-file", appKey, "-v"])
        let storedBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sessionFile)))
        let stored = try JSONValue.parse(storedBytes)
        let appToken = try #require(stored["token_app"]?.stringValue), managementToken = try #require(stored["token_management"]?.stringValue)
        try home.run(["connect", "session", "status", "--node", relay.url, "--management-token-file", sessionFile, "-v"])
        try home.run(["connect", "session", "status", "--node", relay.url, "--management-token-file", sessionFile, "-o", "json", "-v"])
        let storedSID = try #require(stored["sid"]?.stringValue)
        try home.run(["connect", "session", "status", "--node", relay.url, "--sid=" + storedSID, "--management-token-file", "-", "-v"],
                     stdin: Data(managementToken.utf8))
        try home.run(["connect", "session", "delete", "--node", relay.url, "--management-token-file", sessionFile, "-v", "-o", "json"])
        try home.run(["connect", "session", "status", "--node", relay.url, "--management-token-file", sessionFile, "-v"], expect: nil)
        _ = try relay.stop()
        home.scan.add("connect relay (stdout)", Array(relay.process.stdoutText.utf8))
        home.scan.add("connect relay (stderr)", Array(relay.process.stderrText.utf8))
        try home.run(["connect", "wallet", "--uri", "@" + uri, "--account-key-file", exposed, "--approve"], expect: nil)

        let secrets = [PlantedSecret.bytes("app X25519 key", appSecret), PlantedSecret.bytes("account seed", accountSeed),
                       PlantedSecret.text("session app token", appToken), PlantedSecret.text("session management token", managementToken)]
        Self.expectNoLeaks(try home.leaks(of: secrets))
        #expect(!secrets[0].found(in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: appKey)))).isEmpty, "the search finds the key file's secret")
        #expect(!secrets[3].found(in: storedBytes).isEmpty, "the search finds the management token in the session file")
    }

    // MARK: ird

    @Test func irdKeyAndLoginSession() throws {
        let home = try Home()
        let apiKey = "ird_planted_" + Hex.encode(Self.random(16))
        let sessionToken = "eyJplanted." + Self.base64url(Self.random(24)) + ".sig"
        let loginToken = "eyJlogin." + Self.base64url(Self.random(24)) + ".sig"
        let peer = try PeerProcess(script: "ird_peer.py", arguments: ["--api-key", apiKey, "--session-token", sessionToken,
                                                                      "--login-token", loginToken])
        let keyFile = try home.plant("api.key", Array((apiKey + "\n").utf8))
        let wrongKey = try home.plant("wrong.key", Array("ird_wrong_0000000000000000\n".utf8))
        let exposed = try home.plant("exposed.key", Array(apiKey.utf8), mode: 0o644)
        let sessionStore = home.path("config/omni/ird/session.json")
        home.stores.append(sessionStore)

        try home.run(["ird", "spec", "fetch", "--spec", try peer.string("spec_url")])
        try home.run(["ird", "auth", "status", "--api-key", "@" + keyFile, "-o", "json"])
        try home.run(["ird", "auth", "get-me", "--api-key", "@" + keyFile, "-v"])
        try home.run(["ird", "domains", "list", "--limit", "2", "--api-key", "@" + keyFile, "-v", "-o", "json"])
        try home.run(["ird", "api", "GET", "/credits/balance", "--api-key", "-", "-v"], stdin: Data(apiKey.utf8))
        try home.run(["ird", "auth", "get-me", "-v"], environment: ["IRD_API_KEY": apiKey])
        try home.run(["ird", "auth", "get-me", "--api-key", "@" + wrongKey, "-v"], expect: nil)
        try home.run(["ird", "auth", "get-me", "--api-key", "@" + exposed], expect: nil)
        try home.run(["ird", "auth", "get-me", "--api-key", apiKey], expect: 2)
        try home.run(["ird", "auth", "get-me", "--no-validate", "--api-key", "@" + keyFile, "-o", "json"])

        // The stored login session (what 'omni ird login' writes), used and reported without its token.
        try FileManager.default.createDirectory(atPath: home.path("config/omni/ird"), withIntermediateDirectories: true)
        let session = #"{"format": "omni-ird-session", "version": 1, "access_token": "\#(sessionToken)", "token_type": "Bearer"}"#
        try Data(session.utf8).write(to: URL(fileURLWithPath: sessionStore))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: sessionStore)
        try home.run(["ird", "auth", "status"])
        try home.run(["ird", "auth", "status", "-o", "json", "-v"])
        try home.run(["ird", "auth", "get-me", "-v", "-o", "json"])
        try home.run(["ird", "domains", "list", "--limit", "1", "-v"])
        try home.run(["ird", "login"], expect: 2)
        let storedSession = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sessionStore)))

        // Device login on a pseudo-terminal (the driver types the confirmation code when asked), with the API key in
        // the environment: the token the peer issues goes to the store and nowhere else, and is used from there.
        try FileManager.default.removeItem(atPath: sessionStore)
        let login = try Subprocess.run("/usr/bin/env", ["python3", "-c", IrdEndToEndTests.loginDriver, Omni.executable,
                                                        try peer.string("confirmation_code")],
                                       environment: Omni.environment(home.environment.merging(["IRD_API_KEY": apiKey]) { $1 }))
        #expect(login.status == 0 && login.stdoutText.contains("\"logged_in\":true"), "\(login.stdoutText) \(login.stderrText)")
        home.scan.add("omni ird login (terminal transcript)", login)
        let afterLogin = try home.run(["ird", "auth", "get-me", "-v", "-o", "json"])
        #expect(try JSONValue.parse(afterLogin.stdoutText)["credential"] == "session", "the stored login is what get-me sent")
        try home.run(["ird", "logout", "-v"])

        let secrets = [PlantedSecret.text("ird API key", apiKey), PlantedSecret.text("ird session token", sessionToken),
                       PlantedSecret.text("ird device-login token", loginToken)]
        Self.expectNoLeaks(try home.leaks(of: secrets))
        #expect(!secrets[1].found(in: storedSession).isEmpty, "the session store holds it")
        // The peer did receive both: they were used, not just kept.
        let requests = try peer.requestJSON("/_control")["requests"]?.arrayValue ?? []
        #expect(requests.contains { $0["authorization"] == true }, "requests carried a credential: \(requests.count)")
    }

    // MARK: attest

    @Test(.vectors("attest")) func attestStore() throws {
        let home = try Home()
        let store = home.path("planted/attest.db")
        let challenge = Self.random(32)
        let line = try #require(try AttestEndToEndTests.syntheticLines().first { $0["case"] == "valid_prod" })
        let root = try home.plant("root.pem", Array(try AttestEndToEndTests.field(line, "root_pem").utf8))

        // The planted challenge goes into the store; only this command prints it, by design.
        let minted = try Omni.run(["attest", "challenge", "--store", store, "--value", Base64.encode(challenge)], environment: home.environment)
        #expect(minted.status == 0, "\(minted.stderrText)")
        try home.run(["attest", "challenge", "--store", store, "-o", "json"])
        try home.run(["attest", "keys", "list", "--store", store, "-o", "json", "-v"])
        try home.run(["attest", "keys", "show", "--store", store, "--key-id", Base64.encode(Self.random(32))], expect: nil)
        let body = JSONValue.object(["platform": "ios", "iosKeyId": .string(try AttestEndToEndTests.field(line, "key_id")),
                                     "iosAttestationObject": .string(try AttestEndToEndTests.field(line, "attestation_b64")),
                                     "nonce": .string(Self.base64url(Self.random(32)))]).serialized()
        let bodyFile = home.path("enroll.json")
        try Data(body.utf8).write(to: URL(fileURLWithPath: bodyFile))
        try home.run(["attest", "enroll", "--store", store, "--body", "@" + bodyFile, "--app-id", try AttestEndToEndTests.field(line, "app_id"),
                      "--root", root, "--at", try AttestEndToEndTests.field(line, "verify_at"), "-o", "json", "-v"], expect: 1)
        try home.run(["attest", "enroll", "--store", store, "--body", "@" + bodyFile, "--app-id", "ABCDE12345.com.example.other", "-v"], expect: nil)
        try home.run(["attest", "verify", "--store", store, "--body", "{}", "--app-id", "ABCDE12345.com.example.other"], expect: nil)

        let secret = PlantedSecret.bytes("attest challenge", challenge)
        Self.expectNoLeaks(try home.leaks(of: [secret]))
        #expect(!secret.found(in: Array(minted.stdout)).isEmpty, "the search finds the challenge where it is printed by design")
    }
}
