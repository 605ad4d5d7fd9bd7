import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing

/// `omni truapi bridge` and its clients as real processes on loopback: the ready line and signals, the clients' exit
/// codes, the independent websockets/scalecodec peer, state that survives SIGKILL, policy, notifications,
/// navigation, preimages, the theme on SIGHUP, and a trace replayed by `omni truapi replay`.
@Suite(.serialized, .timeLimit(.minutes(5)), .offPool) struct TruAPIBridgeEndToEndTests {
    typealias E2E = TruAPIBridgeE2E

    @Test func readyLineReadyFileAndCloseOnBothSignals() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let readyFile = directory.appendingPathComponent("ready.json")
        let bridge = try BridgeProcess(["--product-id", "  MyApp.DOT ", "--ephemeral", "--ready-file", readyFile.path])
        #expect(bridge.ready["product_id"]?.stringValue == "myapp.dot", "normalised and printed")
        let token = try #require(bridge.url.split(separator: "=").last.map(String.init))
        #expect(bridge.url == "ws://127.0.0.1:\(bridge.port)/?t=\(token)" && token.count == 64 && token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        let saved = try JSONValue.parse([UInt8](try Data(contentsOf: readyFile)))
        #expect(saved == bridge.ready)
        #expect(try FileManager.default.attributesOfItem(atPath: readyFile.path)[.posixPermissions] as? Int == 0o600)
        #expect(!bridge.stderrText.contains(token), "the token is only in the ready line and file")

        let socket = try WebSocketClient.connect(bridge.url)
        try bridge.event("connection_open")
        bridge.signal(SIGINT)
        #expect(try socket.receive(timeout: 20) == .close(WebSocketCloseInfo(code: .normal, reason: "bridge closing")))
        #expect(try bridge.waitForExit() == 130)
        #expect(bridge.events.last?["event"]?.stringValue == "stopped")

        let again = try BridgeProcess(["--product-id", "localhost:3000", "--ephemeral"])
        let other = try WebSocketClient.connect(again.url)
        try again.event("connection_open")
        again.signal(SIGTERM)
        #expect(try other.receive(timeout: 20) == .close(WebSocketCloseInfo(code: .normal, reason: "bridge closing")))
        #expect(try again.waitForExit() == 143)
    }

    @Test func jsonOutputIsOneArray() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Omni.executable)
        process.arguments = ["truapi", "bridge", "--product-id", "a.test", "--ephemeral", "--output", "json", "--listen", "127.0.0.1:0"]
        process.environment = Omni.environment()
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The array's first element is written when the bridge is ready.
        var data = Data()
        while !String(decoding: data, as: UTF8.self).contains("\"ready\"") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        kill(process.processIdentifier, SIGTERM)
        data.append(out.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        let document = try JSONValue.parse([UInt8](data))
        #expect(document.arrayValue?.first?["event"]?.stringValue == "ready" && document.arrayValue?.last?["event"]?.stringValue == "stopped")
    }

    @Test func clientExitCodesAndTheTokenNeverEchoed() throws {
        let bridge = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--network", "paseo-next-v2"])
        defer { _ = try? bridge.stop() }
        let handshake = try E2E.truapi(["call", "system_handshake", "--json", #"{"codec_version":1}"#, "--output", "json"], url: bridge.url)
        #expect(handshake.status == 0 && handshake.stdoutText == "{\"Ok\":null}\n", "\(handshake.stderrText)")
        let info = try E2E.truapi(["call", "chain_get_chain_info", "--json", #"{"chain":"People"}"#, "--output", "json"], url: bridge.url)
        #expect(try JSONValue.parse(info.stdoutText)["Ok"]?["genesis_hash"]?.stringValue
                == "0x89a63b11fef2c0273fc72c0d864da0793a665dade5db153e0cab995348c5440f")
        let account = try E2E.truapi(["call", "account_get_account", "--output", "json", "--json",
                                      #"{"product_account_id":{"dot_ns_identifier":"myapp.dot","derivation_index":{"Index":0}}}"#], url: bridge.url)
        #expect(account.status == 1 && account.stdoutText == "{\"Err\":{\"Domain\":\"NotConnected\"}}\n", "\(account.stderrText)")
        let coin = try E2E.truapi(["call", "coin_payment_query_purse", "--json", #"{"purse":1}"#, "--output", "json"], url: bridge.url)
        #expect(coin.status == 4 && coin.stdoutText == "{\"Err\":\"Unsupported\"}\n")
        let badJSON = try E2E.truapi(["call", "local_storage_read", "--json", #"{"kee":"x"}"#], url: bridge.url)
        #expect(badJSON.status == 3 && badJSON.stderrText.contains("kee"), "\(badJSON.stderrText)")
        let wrongKind = try E2E.truapi(["call", "theme_subscribe"], url: bridge.url)
        #expect(wrongKind.status == 2 && wrongKind.stderrText.contains("omni truapi subscribe"))

        // The URL from a file (the ready line's JSON works as it is), refused when others may read it.
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let urlFile = directory.appendingPathComponent("url.json")
        try E2E.write(bridge.ready.serialized(), to: urlFile)
        let fromFile = try E2E.truapi(["call", "system_handshake", "--json", #"{"codec_version":1}"#, "--url-file", urlFile.path], url: nil)
        #expect(fromFile.status == 0, "\(fromFile.stderrText)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: urlFile.path)
        #expect(try E2E.truapi(["call", "system_handshake", "--url-file", urlFile.path], url: nil).status == 7)

        let wrongToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        let refused = try E2E.truapi(["call", "system_handshake", "--json", #"{"codec_version":1}"#], url: "ws://127.0.0.1:\(bridge.port)/?t=\(wrongToken)")
        #expect(refused.status == 6 && !refused.stderrText.contains(wrongToken) && refused.stderrText.contains("t=…"), "\(refused.stderrText)")
        let token = String(bridge.url.split(separator: "=").last ?? "")
        let unreachable = try E2E.truapi(["call", "system_handshake", "--json", #"{"codec_version":1}"#, "--timeout", "3s"],
                                         url: "ws://127.0.0.1:1/?t=\(token)")
        #expect(unreachable.status == 5 && !unreachable.stderrText.contains(token), "\(unreachable.stderrText)")
        #expect(try E2E.truapi(["call", "system_handshake"], url: nil).status == 2, "no URL at all")

        let theme = try E2E.truapi(["subscribe", "theme_subscribe", "--count", "1", "--output", "jsonl"], url: bridge.url)
        #expect(theme.status == 0 && theme.stdoutText == "{\"name\":\"Default\",\"variant\":\"Dark\"}\n", "\(theme.stderrText)")
        let status = try E2E.truapi(["subscribe", "account_connection_status_subscribe", "--count", "1", "--output", "jsonl"], url: bridge.url)
        #expect(status.stdoutText == "\"Disconnected\"\n")
        let balance = try E2E.truapi(["subscribe", "payment_balance_subscribe", "--json", #"{"purse":null}"#], url: bridge.url)
        #expect(balance.status == 1 && balance.stderrText.contains("PermissionDenied"), "\(balance.stderrText)")
        let coins = try E2E.truapi(["subscribe", "coin_payment_deposit", "--output", "jsonl", "--json",
                                    #"{"cheque":{"id":"0x\#(E2E.aa)","amount":1,"encrypted_secrets":"0x"}}"#], url: bridge.url)
        #expect(coins.status == 4 && coins.stderrText.contains("Unsupported"), "\(coins.stderrText)")
        let patience = try E2E.truapi(["subscribe", "theme_subscribe", "--count", "2", "--timeout", "1s", "--output", "jsonl"], url: bridge.url)
        #expect(patience.status == 5 && patience.stdoutText.split(separator: "\n").count == 1, "one item, then the timeout")
    }

    @Test(.vectors("truapi/exchanges.json", "truapi/ws_token.json")) func independentPeerReplaysTheExchangesAndChecksTheGate() throws {
        let bridge = try BridgeProcess(["--product-id", "dotli.dot", "--ephemeral", "--network", "paseo",
                                        "--chain-role", "AssetHub=0x" + E2E.aa, "--chain-role", "Relay=0x" + E2E.zeros])
        defer { _ = try? bridge.stop() }
        let peer = try Subprocess.run("/usr/bin/env", ["python3", Repository.peer("truapi_ws_peer.py").path],
                                      environment: ProcessInfo.processInfo.environment.merging(["TRUAPI_URL": bridge.url]) { $1 })
        #expect(peer.status == 0, "\(peer.stdoutText.suffix(4000)) \(peer.stderrText.suffix(2000))")
        let summary = try JSONValue.parse(String(peer.stdoutText.split(separator: "\n").last ?? ""))
        #expect(summary["failures"]?.int64Value == 0 && (summary["checks"]?.int64Value ?? 0) >= 40)
        #expect(peer.stdoutText.contains("ok   create_account_proof_foreign_key_not_allowlisted: frame"))
        #expect(bridge.events.filter { $0["event"]?.stringValue == "reject_unauthorized" }.count >= 5)
    }

    /// Every write the bridge confirmed is on disk: a bridge killed with SIGKILL while it writes a large value loses
    /// at most that value, never an earlier one, and leaves a state the next bridge opens.
    @Test func stateSurvivesSIGKILLMidWrite() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        var committed: [(String, String)] = []
        for round in 0..<3 {
            let bridge = try BridgeProcess(["--product-id", "myapp.dot", "--state-dir", state])
            for (key, value) in committed {
                let read = try E2E.truapi(["call", "local_storage_read", "--json", #"{"key":"\#(key)"}"#, "--output", "json"], url: bridge.url)
                #expect(read.stdoutText == "{\"Ok\":{\"value\":\"\(value)\"}}\n", "round \(round): \(key) was committed")
            }
            if round == 1 {
                let second = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--state-dir", state, "--listen", "127.0.0.1:0"])
                #expect(second.status == 7 && second.stderrText.contains("another omni truapi bridge"), "\(second.stderrText)")
            }
            for index in 0..<5 {
                let key = "r\(round)k\(index)", value = "0x" + String(format: "%02x%02x", round, index)
                let write = try E2E.truapi(["call", "local_storage_write", "--json", #"{"key":"\#(key)","value":"\#(value)"}"#], url: bridge.url)
                #expect(write.status == 0, "\(write.stderrText)")
                committed.append((key, value))
            }
            // A 6 MiB write in flight (the state file is rewritten whole), then SIGKILL without waiting for its answer.
            let socket = try WebSocketClient.connect(bridge.url)
            try socket.send(binary: E2E.storageWrite(id: "p:big", key: "big\(round)", value: [UInt8](repeating: UInt8(round), count: 6 << 20)))
            // Its connection is the last one opened: each read (of the earlier rounds' keys) and write above had its own.
            try bridge.event("connection_open", committed.count + 1)
            bridge.signal(SIGKILL)
            _ = try bridge.waitForExit()
            socket.abort()
        }
        let last = try BridgeProcess(["--product-id", "myapp.dot", "--state-dir", state])
        defer { _ = try? last.stop() }
        for (key, value) in committed {
            let read = try E2E.truapi(["call", "local_storage_read", "--json", #"{"key":"\#(key)"}"#, "--output", "json"], url: last.url)
            #expect(read.stdoutText == "{\"Ok\":{\"value\":\"\(value)\"}}\n", "\(key)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "a killed writer's temporary files are cleaned: \(leftovers)")
    }

    @Test func policyFileShorthandsAndErrors() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let policy = directory.appendingPathComponent("policy.json")
        try E2E.write(#"{"device": {"camera": "allow", "microphone": "deny"}, "domains": {"example.com": "allow"}}"#, to: policy)
        let bridge = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--policy", policy.path])
        func device(_ name: String, _ url: String) throws -> String {
            try E2E.truapi(["call", "permissions_request_device_permission", "--json", "\"\(name)\"", "--output", "json"], url: url).stdoutText
        }
        #expect(try device("Camera", bridge.url) == "{\"Ok\":{\"granted\":true}}\n")
        #expect(try device("Microphone", bridge.url) == "{\"Ok\":{\"granted\":false}}\n")
        #expect(try device("NFC", bridge.url) == "{\"Ok\":{\"granted\":false}}\n", "prompt without a terminal refuses")
        let noTTY = try bridge.event { $0["event"]?.stringValue == "permission" && $0["source"]?.stringValue == "no_prompt" }
        #expect(noTTY["subjects"]?.arrayValue == [.string("device:nfc")])
        let remote = try E2E.truapi(["call", "permissions_request_remote_permission", "--output", "json",
                                     "--json", #"{"permission":{"Remote":{"domains":["example.com"]}}}"#], url: bridge.url)
        #expect(remote.stdoutText == "{\"Ok\":{\"granted\":true}}\n")
        _ = try bridge.stop()

        let accepting = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--auto-accept"])
        #expect(try device("NFC", accepting.url) == "{\"Ok\":{\"granted\":true}}\n")
        try accepting.waitForStderr("auto-accepted for myapp.dot: device:nfc")
        _ = try accepting.stop()
        let denying = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--deny-all"])
        #expect(try device("Camera", denying.url) == "{\"Ok\":{\"granted\":false}}\n")
        _ = try denying.stop()

        try E2E.write("{\n  \"device\": {\"camra\": \"allow\"}\n}", to: policy)
        let unknown = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--ephemeral", "--policy", policy.path])
        #expect(unknown.status == 7 && unknown.stderrText.contains("at $.device.camra"), "\(unknown.stderrText)")
        try E2E.write("{\n  \"device\": {\"camera\": allow}\n}", to: policy)
        let syntax = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--ephemeral", "--policy", policy.path])
        #expect(syntax.status == 7 && syntax.stderrText.contains("line 2"), "\(syntax.stderrText)")
    }

    /// A terminal driver for the prompt: the bridge runs on a pseudo-terminal (stdin, stdout and stderr), the driver
    /// waits for each question and types the answer; the answers land in the state directory.
    static let promptDriver = #"""
        import json, os, pty, select, signal, subprocess, sys
        omni, state, ready = sys.argv[1:4]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(omni, [omni, 'truapi', 'bridge', '--product-id', 'myapp.dot', '--state-dir', state, '--ready-file', ready,
                            '--listen', '127.0.0.1:0', '--prompt-timeout', '60s'])
        seen = b''
        def wait_for(text):
            global seen
            while text not in seen:
                readable, _, _ = select.select([fd], [], [], 30)
                if not readable:
                    raise SystemExit('no %r on the terminal; got %r' % (text, seen[-400:]))
                seen += os.read(fd, 4096)
            seen = seen[seen.index(text) + len(text):]
        while not os.path.exists(ready) or not open(ready).read().endswith('\n'):
            readable, _, _ = select.select([fd], [], [], 0.05)
            if readable:
                seen += os.read(fd, 4096)
        env = dict(os.environ, OMNI_TRUAPI_URL=json.load(open(ready))['url'])
        def ask(name):
            return subprocess.Popen([omni, 'truapi', 'call', 'permissions_request_device_permission', '--json', '"%s"' % name,
                                     '--output', 'json'], env=env, stdout=subprocess.PIPE)
        results = {}
        for name, answer in [('Camera', b'y'), ('Microphone', b'n')]:
            call = ask(name)
            wait_for(b'Allow? [y/N]')
            os.write(fd, answer + b'\r')
            results[name] = json.loads(call.communicate(timeout=30)[0])
        again = ask('Camera')                   # remembered: answered without a question
        results['again'] = json.loads(again.communicate(timeout=30)[0])
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        print(json.dumps(results))
        """#

    @Test func terminalPromptsAreAnsweredAndRemembered() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", Self.promptDriver, Omni.executable, state,
                                                         directory.appendingPathComponent("ready.json").path],
                                        environment: Omni.environment())
        #expect(result.status == 0, "\(result.stderrText)")
        let answers = try JSONValue.parse(result.stdoutText)
        #expect(answers["Camera"]?["Ok"]?["granted"] == .bool(true))
        #expect(answers["Microphone"]?["Ok"]?["granted"] == .bool(false))
        #expect(answers["again"]?["Ok"]?["granted"] == .bool(true))
        let stored = try JSONValue.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: state + "/permissions.json"))))
        #expect(stored["decisions"] == .object(["device:camera": "authorized", "device:microphone": "denied"]))
    }

    @Test func notificationsNavigationPreimagesAndThemeOnSIGHUP() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let opened = directory.appendingPathComponent("opened.txt")
        let opener = directory.appendingPathComponent("opener.sh")
        try E2E.write("#!/bin/sh\nprintf '%s' \"$1\" > '\(opened.path)'\n", to: opener, mode: 0o700)
        let themeFile = directory.appendingPathComponent("theme")
        try E2E.write("dark\n", to: themeFile)
        let preimages = directory.appendingPathComponent("preimages")
        try FileManager.default.createDirectory(at: preimages, withIntermediateDirectories: true)
        // blake2b-256("hello"), computed independently with Python's hashlib.
        let hash = try Subprocess.run("/usr/bin/env", ["python3", "-c",
            "import hashlib; print(hashlib.blake2b(b'hello', digest_size=32).hexdigest(), end='')"]).stdoutText
        try E2E.write("hello", to: preimages.appendingPathComponent(hash), mode: 0o644)
        let policy = directory.appendingPathComponent("policy.json")
        try E2E.write(#"{"domains": {"allowed.example": "allow"}}"#, to: policy)
        let bridge = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--opener", opener.path, "--theme-file", themeFile.path,
                                        "--preimages", preimages.path, "--policy", policy.path])
        defer { _ = try? bridge.stop() }

        let now = try E2E.truapi(["call", "notifications_send_push_notification", "--output", "json",
                                  "--json", #"{"text":"hello","deeplink":"dot://x","scheduled_at":null}"#], url: bridge.url)
        #expect(now.stdoutText == "{\"Ok\":{\"id\":1}}\n")
        #expect(try bridge.event("notification")["deeplink"]?.stringValue == "dot://x")
        let soon = UInt64(Date().timeIntervalSince1970 * 1000) + 300
        let later = try E2E.truapi(["call", "notifications_send_push_notification", "--output", "json",
                                    "--json", #"{"text":"later","scheduled_at":"\#(soon)"}"#], url: bridge.url)
        #expect(later.stdoutText == "{\"Ok\":{\"id\":2}}\n")
        let timed = try bridge.event("notification", 2)
        #expect(timed["text"]?.stringValue == "later" && timed["scheduled_at"]?.stringValue == String(soon))

        let denied = try E2E.truapi(["call", "system_navigate_to", "--json", #"{"url":"https://example.com/"}"#, "--output", "json"], url: bridge.url)
        #expect(denied.status == 1 && denied.stdoutText.contains("PermissionDenied"))
        let allowed = try E2E.truapi(["call", "system_navigate_to", "--json", #"{"url":"https://allowed.example/a?b=c"}"#], url: bridge.url)
        #expect(allowed.status == 0, "\(allowed.stderrText)")
        #expect(try bridge.event("navigate")["opened"] == .bool(false), "the refused one is logged too")
        #expect(try bridge.event("navigate", 2)["opened"] == .bool(true))
        #expect(try String(contentsOf: opened, encoding: .utf8) == "https://allowed.example/a?b=c")

        let found = try E2E.truapi(["subscribe", "preimage_lookup_subscribe", "--json", #"{"key":"0x\#(hash)"}"#, "--count", "1",
                                    "--output", "jsonl"], url: bridge.url)
        #expect(found.stdoutText == "{\"value\":\"0x68656c6c6f\"}\n", "\(found.stderrText)")

        // The theme: a subscription sees the file's theme, then the new one after SIGHUP.
        let socket = try WebSocketClient.connect(bridge.url)
        try socket.send(binary: E2E.string("p:t") + [104, 0])
        guard case .binary(let first) = try socket.receive(timeout: 10) else { throw TestSupportError("no theme") }
        #expect(Hex.encode(first) == Hex.encode(E2E.string("p:t") + [107, 0, 1, 1]), "Default, Dark")
        try E2E.write("custom:Solar:light\n", to: themeFile)
        bridge.signal(SIGHUP)
        guard case .binary(let second) = try socket.receive(timeout: 10) else { throw TestSupportError("no theme change") }
        #expect(Hex.encode(second) == Hex.encode(E2E.string("p:t") + [107, 0, 0] + E2E.string("Solar") + [0]), "Custom(Solar), Light")
        #expect(try bridge.event("theme_changed")["theme"]?.stringValue == "custom:Solar:light")
        _ = try? socket.close()
    }

    @Test func traceFramesReplayedByTheReplayCommand() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("trace.jsonl")
        let recording = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--trace-frames", trace.path])
        for arguments in [["call", "local_storage_write", "--json", #"{"key":"k","value":"0x0102"}"#],
                          ["call", "local_storage_read", "--json", #"{"key":"k"}"#],
                          ["subscribe", "theme_subscribe", "--count", "1"],
                          ["call", "account_get_user_id"]] {
            _ = try E2E.truapi(arguments, url: recording.url)
        }
        try recording.event("connection_closed", 4)
        _ = try recording.stop()
        #expect(try FileManager.default.attributesOfItem(atPath: trace.path)[.posixPermissions] as? Int == 0o600)

        let fresh = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral"])
        defer { _ = try? fresh.stop() }
        let same = try E2E.truapi(["replay", trace.path, "--output", "json"], url: fresh.url)
        #expect(same.status == 0, "\(same.stdoutText) \(same.stderrText)")
        let report = try JSONValue.parse(same.stdoutText)
        #expect(report["matched"] == .bool(true) && report["connections"]?.int64Value == 4 && report["frames_matched"]?.int64Value == 4)

        let text = try String(contentsOf: trace, encoding: .utf8)
        let edited = directory.appendingPathComponent("edited.jsonl")
        try E2E.write(text.replacingOccurrences(of: "\"NotConnected\"", with: "\"PermissionDenied\""), to: edited)
        let differs = try E2E.truapi(["replay", edited.path, "--output", "json"], url: fresh.url)
        #expect(differs.status == 1)
        let difference = try JSONValue.parse(differs.stdoutText)["differences"]?.arrayValue?.first
        #expect(difference?["kind"]?.stringValue == "changed" && difference?["got"]?["payload"]?["Err"]?["Domain"]?.stringValue == "NotConnected",
                "\(differs.stdoutText)")
    }

    @Test func startUpRefusals() throws {
        let listen = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--ephemeral", "--listen", "0.0.0.0:0"])
        #expect(listen.status == 2 && listen.stderrText.contains("--unsafe-listen"), "\(listen.stderrText)")
        let literal = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--ephemeral", "--token", "abc"])
        #expect(literal.status == 2 && literal.stderrText.contains("never give it as a literal"), "\(literal.stderrText)")
        let product = try Omni.run(["truapi", "bridge", "--product-id", "myapp.com", "--ephemeral"])
        #expect(product.status == 7 && product.stderrText.contains(".dot, .paseo, .test"), "\(product.stderrText)")
        let missing = try Omni.run(["truapi", "bridge", "--ephemeral"])
        #expect(missing.status == 2 && missing.stderrText.contains("--product-id"))
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token")
        try E2E.write("abcabcabcabcabcabcabcabcabcabcabc\n", to: tokenFile, mode: 0o644)
        let exposed = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--ephemeral", "--token", "@" + tokenFile.path])
        #expect(exposed.status == 7 && exposed.stderrText.contains("chmod 600"), "\(exposed.stderrText)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile.path)
        let bridge = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--token", "@" + tokenFile.path])
        #expect(bridge.url.hasSuffix("/?t=abcabcabcabcabcabcabcabcabcabcabc"))
        _ = try bridge.stop()
        let open = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--token", "none"])
        #expect(open.url == "ws://127.0.0.1:\(open.port)/")
        try open.waitForStderr("any program")
        #expect(try E2E.truapi(["call", "system_handshake", "--json", #"{"codec_version":1}"#], url: open.url).status == 0)
        _ = try open.stop()
    }
}
