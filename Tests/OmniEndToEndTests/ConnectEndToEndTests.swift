import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// Iroha Connect through real omni processes on loopback: relay, wallet and app; the relay's refusals driven by
/// an independent WebSocket client (Python `websockets`); and the frame decoder's refusals.
@Suite(.serialized, .offPool) struct ConnectEndToEndTests {
    static let network = String(repeating: "41", count: 32)

    // MARK: - The whole flow

    @Test func approveSignClose() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let key = try work.accountKey()
        try work.write("msg.bin", Array("hello omni".utf8))
        let app = try BackgroundOmni(["connect", "app", "--node", relay.url, "--network-id", Self.network, "--output", "jsonl",
                                      "sign-raw", "--domain-tag", "omni|e2e", "--data", "@" + work.path("msg.bin")])
        let session = try app.line { $0["event"] == "session" }
        try work.write("uri.txt", Array((session["wallet_uri"]?.stringValue ?? "").utf8))
        let literal = try Omni.run(["connect", "wallet", "--uri", try String(contentsOfFile: work.path("uri.txt"), encoding: .utf8),
                                    "--account-key-file", key.path, "--approve"])
        #expect(literal.status == 2 && literal.stderrText.contains("one-time token"), "a token on argv is refused: \(literal.stderrText)")
        let wallet = try Omni.run(["connect", "wallet", "--uri", "@" + work.path("uri.txt"), "--account-key-file", key.path, "--approve",
                                   "--auto-sign", "--allow-domain", "omni|e2e", "--output", "jsonl"])
        #expect(wallet.status == 0, "\(wallet.stderrText)")
        #expect(try app.waitForExit() == 0, "\(app.stderrText)")

        let events = try app.jsonLines()
        #expect(events.first?["event"] == "session")
        #expect(events.map { $0["event"]?.stringValue ?? "" } == ["session", "connected", "waiting_for_approval", "approved", "request_sent", "result"])
        let result = try #require(events.last)
        #expect(result["account_id"]?.stringValue == key.accountID)
        let signature = try #require(result["signature"]?.stringValue)
        #expect(signature.count == 128)
        // An independent check of the signature (Python `cryptography`).
        let check = try Subprocess.run("/usr/bin/env", ["python3", "-c", """
            import sys
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
            Ed25519PublicKey.from_public_bytes(bytes.fromhex(sys.argv[1])).verify(bytes.fromhex(sys.argv[2]), b"hello omni")
            print("ok")
            """, key.publicKey, signature])
        #expect(check.stdoutText == "ok\n", "\(check.stderrText)")

        let walletEvents = try JSONValue.parseLines(wallet.stdoutText)
        #expect(walletEvents.map { $0["event"]?.stringValue ?? "" } == ["connected", "open", "approved", "request", "signed", "closed", "done"])
        #expect(try relay.stop() == 130)
        let relayEvents = relay.events
        #expect(relayEvents.first?["event"] == "ready")
        #expect(relayEvents.contains { $0["event"] == "deleted" })
        #expect(!relayEvents.contains { $0["event"] == "terminated" })
    }

    @Test func walletRejects() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let key = try work.accountKey()
        try work.write("tx.bin", [1, 2, 3, 4])
        let app = try BackgroundOmni(["connect", "app", "--node", relay.url, "--network-id", Self.network, "--output", "jsonl",
                                      "sign-tx", "--tx-file", work.path("tx.bin")])
        let session = try app.line { $0["event"] == "session" }
        try work.write("uri.txt", Array((session["wallet_uri"]?.stringValue ?? "").utf8))
        let wallet = try Omni.run(["connect", "wallet", "--uri", "@" + work.path("uri.txt"), "--account-key-file", key.path,
                                   "--reject", "USER_DENIED", "--output", "jsonl"])
        #expect(wallet.status == 0, "\(wallet.stderrText)")
        #expect(try app.waitForExit() == 4)
        let last = try #require(try app.jsonLines().last)
        #expect(last["event"] == "rejected")
        #expect(last["code"] == "USER_DENIED")
        #expect(last["status"] == 401)
        _ = try relay.stop()
        #expect(relay.events.contains { $0["event"] == "terminated" && $0["reason"] == "connect_rejected" })
    }

    /// `--expect-account` pins the approving account: another one is refused with the reason (exit 1), the
    /// request is never sent and the wallet sees the app close the session.
    @Test func appRefusesAnUnexpectedAccount() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let key = try work.accountKey()
        let other = try Omni.run(["connect", "keygen", "--ed25519", "--output", "json"])
        let expected = try #require(try JSONValue.parse(other.stdoutText)["account_id"]?.stringValue)
        try work.write("tx.bin", [5, 6, 7])
        let app = try BackgroundOmni(["connect", "app", "--node", relay.url, "--network-id", Self.network, "--expect-account", expected,
                                      "--output", "jsonl", "sign-tx", "--tx-file", work.path("tx.bin")])
        let session = try app.line { $0["event"] == "session" }
        try work.write("uri.txt", Array((session["wallet_uri"]?.stringValue ?? "").utf8))
        let wallet = try Omni.run(["connect", "wallet", "--uri", "@" + work.path("uri.txt"), "--account-key-file", key.path, "--approve",
                                   "--auto-sign", "--output", "jsonl"])
        #expect(try app.waitForExit() == 1, "\(app.stderrText)")
        #expect(app.stderrText.contains("approved as \(key.accountID), not the expected account \(expected)"))
        #expect(try !app.jsonLines().contains { $0["event"] == "request_sent" })
        #expect(wallet.status == 0, "\(wallet.stderrText)")
        let done = try #require(try JSONValue.parseLines(wallet.stdoutText).last)
        #expect(done["event"] == "done")
        #expect(done["code"] == 1008)
        _ = try relay.stop()
    }

    /// Text a peer controls (the app's name, the wallet's reject reason) reaches a terminal with its control
    /// characters escaped, so it cannot retitle the window, clear the screen or recolour what follows; JSON carries
    /// it exactly.
    @Test func hostilePeerTextIsEscapedInTextAndExactInJSON() throws {
        let hostileName = "evil\u{1B}]0;pwned\u{07}app"
        let hostileReason = "\u{1B}[2Jgone\u{1B}[31m\u{9B}red"
        for json in [false, true] {
            let work = try WorkDirectory()
            let relay = try RelayProcess(["--network-id", Self.network])
            let key = try work.accountKey()
            try work.write("tx.bin", [9])
            let format = json ? ["--output", "jsonl"] : []
            let app = try BackgroundOmni(["connect", "app", "--node", relay.url, "--network-id", Self.network, "--meta-name", hostileName]
                                         + format + ["sign-tx", "--tx-file", work.path("tx.bin")])
            let uri: String
            if json {
                uri = try app.line { $0["event"] == "session" }["wallet_uri"]?.stringValue ?? ""
            } else {
                let shown = try app.waitForOutput { $0.contains("Wallet URI: ") && $0.hasSuffix("\n") }
                uri = String(try #require(shown.split(separator: "\n").first { $0.hasPrefix("Wallet URI: ") }).dropFirst("Wallet URI: ".count))
            }
            try work.write("uri.txt", Array(uri.utf8))
            let wallet = try Omni.run(["connect", "wallet", "--uri", "@" + work.path("uri.txt"), "--account-key-file", key.path,
                                       "--reject", "USER_DENIED", "--reason", hostileReason] + format)
            #expect(wallet.status == 0, "\(wallet.stderrText)")
            #expect(try app.waitForExit() == 4, "\(app.stderrText)")
            if json {
                let open = try JSONValue.parseLines(wallet.stdoutText).first { $0["event"] == "open" }
                #expect(open?["app_name"]?.stringValue == hostileName)
                #expect(try app.jsonLines().last?["reason"]?.stringValue == hostileReason)
            } else {
                for (who, text) in [("wallet", wallet.stdoutText), ("app", app.stdoutText)] {
                    #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" },
                            "raw control characters on the \(who)'s stdout: \(text.debugDescription)")
                }
                #expect(wallet.stdoutText.contains("The app evil\\x1B]0;pwned\\x07app asks to connect."))
                #expect(app.stdoutText.contains("Rejected by the wallet: USER_DENIED (401) \\x1B[2Jgone\\x1B[31m\\x9Bred"))
            }
            _ = try relay.stop()
        }
    }

    @Test func genAProfileFlow() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--generation", "gen-a", "--chain-id", "omni-test"])
        let key = try work.accountKey()
        try work.write("msg.bin", [0xde, 0xad])
        let app = try BackgroundOmni(["connect", "app", "--generation", "gen-a", "--node", relay.url, "--chain-id", "omni-test", "--output", "jsonl",
                                      "sign-raw", "--domain-tag", "legacy", "--data", "@" + work.path("msg.bin")])
        let session = try app.line { $0["event"] == "session" }
        let uri = session["wallet_uri"]?.stringValue ?? ""
        #expect(uri.hasPrefix("iroha://connect?sid="))
        #expect(uri.contains("chain_id=omni-test"))
        try work.write("uri.txt", Array(uri.utf8))
        let wallet = try Omni.run(["connect", "wallet", "--generation", "gen-a", "--uri", "@" + work.path("uri.txt"), "--account-key-file", key.path,
                                   "--approve", "--auto-sign", "--allow-domain", "legacy", "--output", "jsonl"])
        #expect(wallet.status == 0, "\(wallet.stderrText)")
        #expect(try app.waitForExit() == 0, "\(app.stderrText)")
        #expect(try app.jsonLines().last?["event"] == "result")
        _ = try relay.stop()
    }

    // MARK: - Codec, key and URI commands against the vectors

    @Test(.vectors("connect")) func commandsReproduceTheVectors() throws {
        let work = try WorkDirectory()
        // sid: the upstream Gen B vector.
        let upstream = try JSONValue.parse(Vectors.text("connect/upstream/gen-b/session_vectors.json"))
        let sid = try Omni.run(["connect", "sid", "--network-id", upstream["network_id_hex"]?.stringValue ?? "", "--app-pk",
                                upstream["app_pk_base64url"]?.stringValue ?? "", "--nonce", upstream["nonce_hex"]?.stringValue ?? "",
                                "--output", "json"])
        #expect(try JSONValue.parse(sid.stdoutText)["sid"] == upstream["sid_base64url"])

        // uri build: Fearless' wallet URI from its parts.
        let fearless = try JSONValue.parse(Vectors.text("connect/upstream/gen-b/fearless_uranai_exchange.json"))
        let expected = fearless["wallet_uri"]?.stringValue ?? ""
        let parsed = try Omni.run(["connect", "uri", "parse", expected, "--show-secrets", "--output", "json"])
        #expect(parsed.status == 0, "\(parsed.stderrText)")
        let fields = try JSONValue.parse(parsed.stdoutText)
        try work.write("token", Array((fields["token"]?.stringValue ?? "").utf8), mode: 0o600)
        try work.write("relay", Array((fields["relay_token"]?.stringValue ?? "").utf8), mode: 0o600)
        let built = try Omni.run(["connect", "uri", "build", "--network-id", fearless["network_id_literal"]?.stringValue ?? "",
                                  "--app-pk", fields["app_pk"]?.stringValue ?? "", "--nonce", fields["nonce"]?.stringValue ?? "",
                                  "--node", "https://taira.sora.org", "--token-file", work.path("token"), "--relay-token-file", work.path("relay")])
        #expect(built.stdoutText == expected + "\n", "\(built.stderrText)")
        let redacted = try Omni.run(["connect", "uri", "parse", expected, "--output", "json"])
        #expect(try JSONValue.parse(redacted.stdoutText)["token"] == "<redacted>")

        // derive-keys: the derived Gen B session's traffic keys from the app's key file.
        let session = try JSONValue.parse(Vectors.text("connect/derived/gen-b_session.json"))
        try work.write("app.key", Array((session["inputs"]?["app_x25519_sk_hex"]?.stringValue ?? "").utf8), mode: 0o600)
        let keys = try Omni.run(["connect", "derive-keys", "--secret-key-file", work.path("app.key"), "--peer-pk",
                                 session["derived"]?["wallet_pk_hex"]?.stringValue ?? "", "--sid", session["derived"]?["sid_base64url"]?.stringValue ?? "",
                                 "--show-secrets", "--output", "json"])
        let derived = try JSONValue.parse(keys.stdoutText)
        #expect(derived["k_app"] == session["derived"]?["k_app_hex"])
        #expect(derived["k_wallet"] == session["derived"]?["k_wallet_hex"])
        #expect(derived["session_key"] == session["derived"]?["session_key_hex"])
        let hidden = try Omni.run(["connect", "derive-keys", "--secret-key-file", work.path("app.key"), "--peer-pk",
                                   session["derived"]?["wallet_pk_hex"]?.stringValue ?? "", "--sid", session["derived"]?["sid_base64url"]?.stringValue ?? "",
                                   "--output", "json"])
        #expect(try JSONValue.parse(hidden.stdoutText)["k_app"] == "<redacted>")

        // frame decode → encode round trip of a vector frame.
        let approve = session["control_frames"]?.arrayValue?.first { $0["name"] == "approve" }?["frame_hex"]?.stringValue ?? ""
        let decoded = try Omni.run(["connect", "frame", "decode", approve, "--output", "jsonl"])
        let reencoded = try Omni.run(["connect", "frame", "encode", decoded.stdoutText])
        #expect(reencoded.stdoutText == approve + "\n", "\(reencoded.stderrText)")

        // keygen: the key file is private.
        _ = try work.accountKey()
        let attributes = try FileManager.default.attributesOfItem(atPath: work.path("account.pem"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func sessionStatusAndDeleteCommands() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let session = try work.createSession(relay: relay)
        let saved = work.path("session-status.json")
        try work.write("session-status.json", Array(session.saved.serialized().utf8), mode: 0o600)
        let status = try Omni.run(["connect", "session", "status", "--node", relay.url, "--management-token-file", saved, "--output", "json"])
        #expect(status.status == 0, "\(status.stderrText)")
        #expect(try JSONValue.parse(status.stdoutText)["approved"] == false)
        try work.write("wrong", Array("not-the-token".utf8), mode: 0o600)
        // --sid=VALUE: a base64url sid may start with '-', which as a separate word reads as an option.
        let refused = try Omni.run(["connect", "session", "status", "--node", relay.url, "--sid=" + session.sid, "--management-token-file",
                                    work.path("wrong")])
        #expect(refused.status == 6)
        let deleted = try Omni.run(["connect", "session", "delete", "--node", relay.url, "--management-token-file", saved, "--output", "json"])
        #expect(try JSONValue.parse(deleted.stdoutText)["existed"] == true)
        let again = try Omni.run(["connect", "session", "delete", "--node", relay.url, "--management-token-file", saved, "--output", "json"])
        #expect(try JSONValue.parse(again.stdoutText)["existed"] == false)
        // A token file others may read is refused before it is used, as ssh refuses such keys.
        try work.write("exposed.json", Array(session.saved.serialized().utf8), mode: 0o644)
        let exposed = try Omni.run(["connect", "session", "status", "--node", relay.url, "--management-token-file", work.path("exposed.json")])
        #expect(exposed.status == 7, "\(exposed.stderrText)")
        #expect(exposed.stderrText.contains("chmod 600"))
        _ = try relay.stop()
    }

    // MARK: - The command-line contract

    /// `-o` is the global output format: `keygen -o json` prints JSON and writes no file named `json`; the key file
    /// is `--out-file` (0600), and `--out-file -` puts the PEM alone on stdout.
    @Test func keygenOutputFormatIsNotAKeyFile() throws {
        let work = try WorkDirectory()
        let json = try Subprocess.run(Omni.executable, ["connect", "keygen", "--ed25519", "-o", "json"], stdin: Data(),
                                      environment: Omni.environment(), currentDirectory: work.url)
        #expect(json.status == 0, "\(json.stderrText)")
        #expect(try JSONValue.parse(json.stdoutText)["algorithm"] == "ed25519")
        #expect(try JSONValue.parse(json.stdoutText)["private_key"] == "<redacted>")
        #expect(!FileManager.default.fileExists(atPath: work.path("json")), "-o json wrote a key file named json")

        let written = try Omni.run(["connect", "keygen", "--out-file", work.path("app.pem"), "-o", "json"])
        #expect(written.status == 0, "\(written.stderrText)")
        let attributes = try FileManager.default.attributesOfItem(atPath: work.path("app.pem"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try JSONValue.parse(written.stdoutText)["file"]?.stringValue == work.path("app.pem"))
        let refused = try Omni.run(["connect", "keygen", "--out-file", work.path("app.pem")])
        #expect(refused.status == 2, "an existing key is not overwritten without --force")

        let piped = try Omni.run(["connect", "keygen", "--out-file", "-"])
        #expect(piped.status == 0, "\(piped.stderrText)")
        #expect(piped.stdoutText.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(piped.stdoutText.hasSuffix("-----END PRIVATE KEY-----\n"))
        #expect(piped.stderrText.contains("public key"))
    }

    /// The X25519 key of derive-keys comes from a file (or stdin) checked like an ssh key, never from argv.
    @Test(.vectors("connect")) func deriveKeysReadsTheSecretFromAFile() throws {
        let work = try WorkDirectory()
        let session = try JSONValue.parse(Vectors.text("connect/derived/gen-b_session.json"))
        let secret = session["inputs"]?["app_x25519_sk_hex"]?.stringValue ?? ""
        let peer = session["derived"]?["wallet_pk_hex"]?.stringValue ?? ""
        let sid = session["derived"]?["sid_base64url"]?.stringValue ?? ""
        let fromStdin = try Omni.run(["connect", "derive-keys", "--secret-key-file", "-", "--peer-pk", peer, "--sid", sid,
                                      "--show-secrets", "--output", "json"], stdin: Data(secret.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stderrText)")
        #expect(try JSONValue.parse(fromStdin.stdoutText)["k_app"] == session["derived"]?["k_app_hex"])

        let onArgv = try Omni.run(["connect", "derive-keys", "--sk", secret, "--peer-pk", peer, "--sid", sid])
        #expect(onArgv.status == 2, "the literal --sk is gone")
        try work.write("shared.key", Array(secret.utf8), mode: 0o644)
        let exposed = try Omni.run(["connect", "derive-keys", "--secret-key-file", work.path("shared.key"), "--peer-pk", peer, "--sid", sid])
        #expect(exposed.status == 7, "\(exposed.stderrText)")
        #expect(exposed.stderrText.contains("chmod 600"))
        let badPeer = try Omni.run(["connect", "derive-keys", "--secret-key-file", "-", "--peer-pk", "zz", "--sid", sid], stdin: Data(secret.utf8))
        #expect(badPeer.status == 3, "a malformed key is malformed input: \(badPeer.stderrText)")
    }

    /// The relay is a stream: jsonl is one line per event (ready first), json exactly one array, and both signals
    /// stop it with their own exit code after a clean shutdown.
    @Test func relayStreamsAndStopsOnBothSignals() throws {
        let jsonl = try RelayProcess(["--network-id", Self.network])
        #expect(try jsonl.terminate() == 143, "SIGTERM")
        let lines = jsonl.events
        #expect(lines.first?["event"] == "ready")
        #expect(lines.last?["event"] == "stopped")

        let interrupted = try RelayProcess(["--network-id", Self.network])
        #expect(try interrupted.stop() == 130, "SIGINT")
        #expect(interrupted.events.last?["event"] == "stopped")

        let json = try BackgroundOmni(["connect", "relay", "--listen", "127.0.0.1:0", "--output", "json", "--network-id", Self.network])
        _ = try json.waitForOutput { $0.contains("\"ready\"") }
        json.interrupt()
        #expect(try json.waitForExit() == 130)
        let document = try JSONValue.parse(json.stdoutText)
        let items = try #require(document.arrayValue, "json output is one array")
        #expect(items.first?["event"] == "ready")
        #expect(items.last?["event"] == "stopped")
    }

    /// In text mode stdout carries what a person or a pipe needs (the wallet URI, the result); progress such as
    /// "Waiting for the wallet to approve…" goes to stderr.
    @Test func appProgressGoesToStderrInTextMode() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let key = try work.accountKey()
        try work.write("msg.bin", Array("text mode".utf8))
        let app = try BackgroundOmni(["connect", "app", "--node", relay.url, "--network-id", Self.network,
                                      "sign-raw", "--domain-tag", "omni|text", "--data", "@" + work.path("msg.bin")])
        let shown = try app.waitForOutput { $0.contains("Wallet URI: ") && $0.hasSuffix("\n") }
        let uri = try #require(shown.split(separator: "\n").first { $0.hasPrefix("Wallet URI: ") }).dropFirst("Wallet URI: ".count)
        try work.write("uri.txt", Array(uri.utf8))
        let wallet = try Omni.run(["connect", "wallet", "--uri", "@" + work.path("uri.txt"), "--account-key-file", key.path, "--approve",
                                   "--auto-sign", "--allow-domain", "omni|text"])
        #expect(wallet.status == 0, "\(wallet.stderrText)")
        #expect(try app.waitForExit() == 0, "\(app.stderrText)")
        #expect(!app.stdoutText.contains("Waiting"), "progress on stdout: \(app.stdoutText)")
        #expect(app.stderrText.contains("Waiting for the wallet to approve"))
        #expect(app.stdoutText.contains("Signature (ed25519, verified for \(key.accountID))"))
        #expect(!wallet.stdoutText.contains("Joined the session"))
        #expect(wallet.stderrText.contains("Joined the session as the wallet."))
        _ = try relay.stop()
    }

    /// `session status` in text mode prints one field per line for people, not the node's raw JSON.
    @Test func sessionStatusPrintsFieldsInTextMode() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let session = try work.createSession(relay: relay)
        try work.write("session.json", Array(session.saved.serialized().utf8), mode: 0o600)
        let status = try Omni.run(["connect", "session", "status", "--node", relay.url, "--management-token-file", work.path("session.json")])
        #expect(status.status == 0, "\(status.stderrText)")
        #expect(!status.stdoutText.contains("{"), "raw JSON in text mode: \(status.stdoutText)")
        let lines = status.stdoutText.split(separator: "\n").map { $0.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(lines.contains(["approved", "no"]))
        #expect(lines.contains(["sid", session.sid]))
        _ = try relay.stop()
    }

    // MARK: - The relay's refusals

    @Test func relayRefusesBadTokens() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let session = try work.createSession(relay: relay)
        let peer = try RelayPeer.run([
            "connections": .object(["wrong": session.connection(role: "app", token: String(repeating: "A", count: 43)),
                                    "first": session.connection(role: "app", token: session.tokenApp),
                                    "again": session.connection(role: "app", token: session.tokenApp, transport: "subprotocol"),
                                    "wallet": session.connection(role: "wallet", token: session.tokenWallet, transport: "subprotocol")]),
            "steps": [["open": "wrong"], ["open": "first"], ["open": "again"], ["open": "wallet"]],
        ])
        #expect(peer["wrong"]?["status"] == 401)
        #expect(peer["wrong"]?["body"] == "connect: bad token")
        #expect(peer["first"]?["status"] == 101)
        #expect(peer["again"]?["status"] == 401, "a token is good for one connection")
        #expect(peer["wallet"]?["status"] == 101)
        _ = try relay.stop()
    }

    @Test func relayTerminatesOnRuleViolations() throws {
        let work = try WorkDirectory()
        let relay = try RelayProcess(["--network-id", Self.network])
        let key = try work.accountKey()
        let cases: [(String, (Session) throws -> [String], String)] = [
            ("sequence gap", { s in [try s.frame("app_to_wallet", 1, s.openControl), try s.frame("app_to_wallet", 3, Self.ping)] },
             "connect_sequence_violation"),
            ("wrong direction", { s in [try s.frame("wallet_to_app", 1, s.openControl)] }, "connect_role_direction_mismatch"),
            ("ciphertext before approval", { s in
                [try s.frame("app_to_wallet", 1, s.openControl),
                 try s.encode(["sid": .string(s.sid), "dir": "app_to_wallet", "seq": "2",
                               "ciphertext": ["dir": "app_to_wallet", "aead": .string(String(repeating: "ab", count: 40))]])]
            }, "connect_wallet_approval_invalid"),
        ]
        for (name, frames, reason) in cases {
            let session = try work.createSession(relay: relay)
            let hexFrames = try frames(session)
            let peer = try RelayPeer.run([
                "connections": .object(["app": session.connection(role: "app", token: session.tokenApp)]),
                "steps": .array([["open": "app"]] + hexFrames.map { ["send": "app", "hex": .string($0)] } + [["drain": "app", "timeout": 3]]),
            ])
            let close = try Self.relayClose(peer["app"])
            #expect(close?["code"] == 4002, "\(name)")
            #expect(close?["reason"]?.stringValue == reason, "\(name)")
            #expect(close?["who"] == "wallet", "\(name): the Close names the other side")
        }

        // A bad approval signature: the wallet's Approve is signed by another key.
        let session = try work.createSession(relay: relay)
        let approve = try session.frame("wallet_to_app", 1, [
            "type": "approve", "wallet_pk": .string(String(repeating: "07", count: 32)), "account_id": .string(key.accountID),
            "permissions": nil, "proof": nil, "algorithm": "ed25519", "signature": .string(String(repeating: "09", count: 64)),
        ])
        let peer = try RelayPeer.run([
            "connections": .object(["app": session.connection(role: "app", token: session.tokenApp),
                                    "wallet": session.connection(role: "wallet", token: session.tokenWallet, transport: "subprotocol")]),
            "steps": [["open": "app"], ["send": "app", "hex": .string(try session.frame("app_to_wallet", 1, session.openControl))],
                      ["open": "wallet"], ["recv": "wallet", "timeout": 3], ["send": "wallet", "hex": .string(approve)],
                      ["drain": "wallet", "timeout": 3], ["drain": "app", "timeout": 3]],
        ])
        for side in ["app", "wallet"] {
            let close = try Self.relayClose(peer[side])
            #expect(close?["code"] == 4002, "\(side)")
            #expect(close?["reason"] == "connect_wallet_approval_invalid", "\(side)")
        }
        #expect(try relay.stop() == 130)
        let reasons = relay.events.filter { $0["event"] == "terminated" }.compactMap { $0["reason"]?.stringValue }
        #expect(Set(reasons) == ["connect_sequence_violation", "connect_role_direction_mismatch", "connect_wallet_approval_invalid"])
    }

    @Test func relayClosesIdleSessions() throws {
        let work = try WorkDirectory()
        // The TTL runs from the session's creation, and the Python peer must start and connect within it: on a
        // loaded machine that took more than 1 s, the session was gone first and nothing was closed.
        let relay = try RelayProcess(["--network-id", Self.network, "--session-ttl", "4s"])
        let session = try work.createSession(relay: relay)
        let peer = try RelayPeer.run([
            "connections": .object(["app": session.connection(role: "app", token: session.tokenApp)]),
            "steps": [["open": "app"], ["send": "app", "hex": .string(try session.frame("app_to_wallet", 1, session.openControl))],
                      ["drain": "app", "timeout": 12]],
        ])
        #expect(peer["app"]?["close"]?["code"] == 4001)
        #expect(peer["app"]?["close"]?["reason"] == "connect_ttl_expired")
        _ = try relay.stop()
        #expect(relay.events.contains { $0["event"] == "expired" })
    }

    // MARK: - Tampered, replayed and truncated frames

    @Test(.vectors("connect")) func frameDecoderRefusesTamperedReplayedAndTruncatedFrames() throws {
        let work = try WorkDirectory()
        guard case .object(let vectors) = try JSONValue.parse(Vectors.text("connect/derived/gen-b_session.json")),
              let derived = vectors["derived"], let frames = vectors["encrypted_frames"]?.arrayValue,
              let request = frames.first(where: { $0["name"] == "sign_request_raw" })?["frame_hex"]?.stringValue else {
            Issue.record("gen-b_session.json lacks the request frame")
            return
        }
        try work.write("keys.json", Array(JSONValue.object(["k_app": derived["k_app_hex"] ?? nil, "k_wallet": derived["k_wallet_hex"] ?? nil])
            .serialized().utf8), mode: 0o600)
        let keys = "@" + work.path("keys.json")

        let good = try Omni.run(["connect", "frame", "decode", "--key-file", keys, "--output", "json", request])
        #expect(good.status == 0, "\(good.stderrText)")
        #expect(try JSONValue.parse(good.stdoutText).arrayValue?.first?["envelope"]?["payload"]?["type"] == "sign_request_raw")

        var tampered = Array(request)
        let position = tampered.count - 20
        tampered[position] = tampered[position] == "0" ? "1" : "0"
        let refusedTamper = try Omni.run(["connect", "frame", "decode", "--key-file", keys, String(tampered)])
        #expect(refusedTamper.status == 1)
        #expect(refusedTamper.stderrText.contains("failed authentication"))

        let replayed = try Omni.run(["connect", "frame", "decode", "--as", "wallet", "--after", "1", "--key-file", keys, "--output", "jsonl", request, request])
        #expect(replayed.status == 1)
        #expect(replayed.stderrText.contains("frame 2: replayed frame"))
        #expect(try JSONValue.parseLines(replayed.stdoutText).count == 1, "the first copy decodes")

        let truncated = try Omni.run(["connect", "frame", "decode", "--key-file", keys, String(request.dropLast(10))])
        #expect(truncated.status == 3)
        #expect(truncated.stderrText.contains("malformed Norito"))

        // Keys come from files only: the old literal spelling is gone, and a key file others may read is refused.
        let literalKey = try Omni.run(["connect", "frame", "decode", "--key", String(repeating: "00", count: 32), request])
        #expect(literalKey.status == 2)
        try work.write("exposed-keys.json", Array(try work.read("keys.json")), mode: 0o644)
        let exposed = try Omni.run(["connect", "frame", "decode", "--key-file", work.path("exposed-keys.json"), request])
        #expect(exposed.status == 7, "\(exposed.stderrText)")
    }

    // MARK: - Helpers

    static let ping: JSONValue = ["type": "ping", "nonce": "7"]

    /// The relay's plaintext Close (decoded by omni) among what a peer connection received.
    static func relayClose(_ result: JSONValue?) throws -> JSONValue? {
        for hex in result?["received"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            let decoded = try Omni.run(["connect", "frame", "decode", "--output", "jsonl", hex])
            let control = try JSONValue.parse(decoded.stdoutText)["control"]
            if control?["type"] == "close" { return control }
        }
        return nil
    }
}

/// A temporary directory with helpers for keys and sessions.
struct WorkDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("omni-connect-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8], mode: Int = 0o644) throws {
        try Data(bytes).write(to: url.appendingPathComponent(name))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(name))
    }

    func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))
    }

    struct AccountKey {
        let path: String
        let accountID: String
        let publicKey: String
    }

    func accountKey() throws -> AccountKey {
        let result = try Omni.run(["connect", "keygen", "--ed25519", "--out-file", path("account.pem"), "--force", "--output", "json"])
        guard result.status == 0 else { throw TestSupportError("keygen failed: \(result.stderrText)") }
        let json = try JSONValue.parse(result.stdoutText)
        return AccountKey(path: path("account.pem"), accountID: json["account_id"]?.stringValue ?? "", publicKey: json["public_key"]?.stringValue ?? "")
    }

    /// `omni connect session create --save` with a known app key.
    func createSession(relay: RelayProcess) throws -> Session {
        let name = "session-\(UUID().uuidString).json"
        let create = try Omni.run(["connect", "session", "create", "--node", relay.url, "--network-id", ConnectEndToEndTests.network,
                                   "--out-file", path(name), "--output", "json"])
        guard create.status == 0 else { throw TestSupportError("session create failed: \(create.stderrText)") }
        let saved = try JSONValue.parse(String(decoding: try Data(contentsOf: url.appendingPathComponent(name)), as: UTF8.self))
        return Session(saved: saved, relayURL: relay.url)
    }
}

/// A session registered on the relay, as `session create --save` wrote it.
struct Session {
    let saved: JSONValue
    let relayURL: String

    var sid: String { saved["sid"]?.stringValue ?? "" }
    var tokenApp: String { saved["token_app"]?.stringValue ?? "" }
    var tokenWallet: String { saved["token_wallet"]?.stringValue ?? "" }

    var openControl: JSONValue {
        ["type": "open", "app_pk": saved["app_pk"] ?? nil, "app_meta": nil, "network_id": .string(ConnectEndToEndTests.network), "permissions": nil]
    }

    func connection(role: String, token: String, transport: String = "header") -> JSONValue {
        .object(["url": .string(relayURL.replacingOccurrences(of: "http://", with: "ws://") + "/v1/connect/ws?sid=\(sid)&role=\(role)"),
                 "token": .string(token), "transport": .string(transport)])
    }

    func frame(_ direction: String, _ sequence: Int, _ control: JSONValue) throws -> String {
        try encode(["sid": .string(sid), "dir": .string(direction), "seq": .string(String(sequence)), "control": control])
    }

    /// Bytes (hex) of a frame built by `omni connect frame encode`.
    func encode(_ description: JSONValue) throws -> String {
        let result = try Omni.run(["connect", "frame", "encode", description.serialized()])
        guard result.status == 0 else { throw TestSupportError("frame encode failed: \(result.stderrText)") }
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `Tests/Peers/connect_ws_peer.py`: raw WebSocket connections to the relay.
enum RelayPeer {
    static func run(_ script: JSONValue) throws -> JSONValue {
        let result = try Subprocess.python("connect_ws_peer.py", [], stdin: Data(script.serialized().utf8))
        guard result.status == 0 else { throw TestSupportError("connect_ws_peer.py failed: \(result.stderrText)") }
        return try JSONValue.parse(result.stdoutText)
    }
}

/// `omni connect relay --listen 127.0.0.1:0 --output jsonl`, its URL from the first stdout line.
final class RelayProcess {
    let process: BackgroundOmni
    let url: String

    init(_ arguments: [String]) throws {
        process = try BackgroundOmni(["connect", "relay", "--listen", "127.0.0.1:0", "--output", "jsonl"] + arguments)
        let ready = try process.line { _ in true }
        guard ready["event"] == "ready", let url = ready["url"]?.stringValue else {
            throw TestSupportError("the relay's first line is not ready: \(ready.serialized())")
        }
        self.url = url
    }

    var events: [JSONValue] { (try? process.jsonLines()) ?? [] }

    /// SIGINT, then the exit status.
    func stop() throws -> Int32 {
        process.interrupt()
        return try process.waitForExit()
    }

    /// SIGTERM, then the exit status.
    func terminate() throws -> Int32 {
        process.terminate()
        return try process.waitForExit()
    }

    deinit { process.interrupt() }
}

/// An omni process running in the background whose stdout is read line by line.
final class BackgroundOmni: @unchecked Sendable {
    private let process: BackgroundProcess

    init(_ arguments: [String]) throws {
        process = try BackgroundProcess(executable: Omni.executable, arguments, environment: Omni.environment())
    }

    /// The first stdout JSON line matching `predicate`, waiting up to `timeout` seconds.
    func line(timeout: Double = 20, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
        try process.jsonLine(timeout: timeout, where: predicate)
    }

    /// Waits until everything omni wrote to stdout so far (partial lines included) satisfies `predicate`.
    func waitForOutput(timeout: Double = 20, until predicate: (String) -> Bool) throws -> String {
        try process.waitForStdout(timeout: timeout, until: predicate)
    }

    /// Everything omni wrote to stdout.
    var stdoutText: String { process.stdoutText }

    func jsonLines() throws -> [JSONValue] { try process.stdoutLinesSoFar.map { try JSONValue.parse($0) } }

    var stderrText: String { process.stderrText }

    func interrupt() { process.interrupt() }

    /// SIGTERM.
    func terminate() { process.terminate() }

    func waitForExit(timeout: Double = 30) throws -> Int32 { try process.waitForExit(timeout: timeout) }
}
