import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// `omni truapi bridge` as a signing host, `omni truapi session` and `omni truapi key`, as real processes: an
/// independent product (Tests/Peers/truapi_sign_peer.py: websockets, scalecodec, py-sr25519-bindings,
/// py-bip39-bindings) signs through the bridge and verifies everything; the key commands match the same peer; the
/// refusals answer the reference's typed errors; a terminal prompt shows the decoded payload; chain methods reach a
/// JSON-RPC node; and a planted secret appears in no output, trace or state file.
@Suite(.serialized, .timeLimit(.minutes(5)), .offPool) struct TruAPISigningEndToEndTests {
    typealias E2E = TruAPIBridgeE2E

    /// A temporary state home with a session made from fresh entropy.
    struct Home {
        let directory: URL
        let entropy: [UInt8]
        let phrase: String
        var environment: [String: String] { ["XDG_STATE_HOME": directory.appendingPathComponent("state").path] }
        var entropyFile: String { directory.appendingPathComponent("entropy.hex").path }
        var sessionDirectory: String { directory.appendingPathComponent("state/omni/truapi/sessions/\(Home.name)").path }
        static let name = "planted"

        init(username: String = "planted-user") throws {
            directory = try E2E.directory()
            var random = SystemRandomNumberGenerator()
            entropy = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            try E2E.write(Hex.encode(entropy) + "\n", to: directory.appendingPathComponent("entropy.hex"))
            let created = try Omni.run(["truapi", "session", "new", Home.name, "--entropy-file", directory.appendingPathComponent("entropy.hex").path,
                                        "--lite-username", username, "--output", "json"], environment: ["XDG_STATE_HOME": directory.appendingPathComponent("state").path])
            guard created.status == 0 else { throw TestSupportError("session new failed: \(created.stderrText)") }
            let shown = try Omni.run(["truapi", "session", "show", Home.name, "--show-mnemonic", "--output", "json"],
                                     environment: ["XDG_STATE_HOME": directory.appendingPathComponent("state").path])
            phrase = try #require(try JSONValue.parse(shown.stdoutText)["mnemonic"]?.stringValue)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static func account(_ product: String = "myapp.dot", index: Int = 0) -> String {
        #"{"dot_ns_identifier":"\#(product)","derivation_index":{"Index":\#(index)}}"#
    }

    /// The peer builds its own types from the reference's Appendix A (../shared/reference/truapi.md), so it needs
    /// the shared data and skips with the vector suites when that is absent.
    @Test(.vectors("truapi")) func anIndependentProductSignsThroughTheBridgeAndVerifiesEverything() throws {
        let home = try Home(username: "peer-user")
        defer { home.remove() }
        let bridge = try BridgeProcess(["--product-id", "signpeer.dot", "--mnemonic-env", "PEER_PHRASE", "--lite-username", "peer-user",
                                        "--ephemeral", "--auto-accept"], environment: ["PEER_PHRASE": home.phrase])
        defer { _ = try? bridge.stop() }
        #expect(bridge.ready["session"]?.stringValue == "(this run only)")
        var environment = ProcessInfo.processInfo.environment
        environment.merge(["TRUAPI_URL": bridge.url, "TRUAPI_MNEMONIC": home.phrase, "TRUAPI_ENTROPY_HEX": Hex.encode(home.entropy),
                           "TRUAPI_PRODUCT": "signpeer.dot", "TRUAPI_USERNAME": "peer-user"]) { $1 }
        let peer = try Subprocess.run("/usr/bin/env", ["python3", Repository.peer("truapi_sign_peer.py").path], environment: environment)
        #expect(peer.status == 0, "\(peer.stdoutText.suffix(3000)) \(peer.stderrText.suffix(2000))")
        let summary = try JSONValue.parse(String(peer.stdoutText.split(separator: "\n").last ?? ""))
        #expect(summary["failures"]?.int64Value == 0 && (summary["checks"]?.int64Value ?? 0) >= 26, "\(peer.stdoutText.suffix(2000))")
        // Every approval printed its card on stderr; none carries a payload.
        #expect(bridge.stderrText.contains("auto-accepted for signpeer.dot: confirmation:sign_raw"))
        #expect(!bridge.stderrText.contains("hello from python") && !bridge.stdout.contains("hello from python"))
    }

    @Test func keyCommandsMatchTheIndependentDerivations() throws {
        let home = try Home()
        defer { home.remove() }
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        var requests: [JSONValue] = []
        var answers: [(JSONValue, JSONValue, JSONValue, JSONValue)] = []
        for _ in 0..<3 {
            let product = ["myapp.dot", "a-b.paseo", "localhost:3000", "x\(UInt32.random(in: 0...999_999, using: &random)).test"].randomElement(using: &random)!
            let raw = Bool.random(using: &random)
            let index: JSONValue = raw ? .array(["Raw", .string(Hex.encode(random.bytes(32)))]) : .array(["Index", .int(UInt32.random(in: 0...9999, using: &random))])
            let contextBytes = random.bytes(Int.random(in: 1...32, using: &random))
            let message = random.bytes(Int.random(in: 0...80, using: &random))
            let prefix = [0, 2, 42, 1284].randomElement(using: &random)!
            let indexOption = raw ? ["--raw-index", index.arrayValue![1].stringValue!] : ["--index", String(index.arrayValue![1].int64Value!)]
            let session = ["--session", Home.name]
            let account = try Omni.run(["truapi", "key", "product-account", "--product-id", product, "--ss58-prefix", String(prefix), "--output", "json"]
                                       + indexOption + session, environment: home.environment)
            let identity = try Omni.run(["truapi", "key", "identity", "--entropy-file", home.entropyFile, "--ss58-prefix", String(prefix), "--output", "json"],
                                        environment: home.environment)
            let entropy = try Omni.run(["truapi", "key", "entropy", "--product-id", product, "--context", Hex.encode(contextBytes), "--output", "json"]
                                       + session, environment: home.environment)
            let signed = try Omni.run(["truapi", "key", "sign-raw", "--product-id", product, "--message-hex", Hex.encode(message), "--output", "json"]
                                      + indexOption + session, environment: home.environment)
            for result in [account, identity, entropy, signed] { #expect(result.status == 0, "\(result.stderrText) \(context)") }
            answers.append((try JSONValue.parse(account.stdoutText), try JSONValue.parse(identity.stdoutText), try JSONValue.parse(entropy.stdoutText),
                            try JSONValue.parse(signed.stdoutText)))
            requests.append(.object(["phrase": .string(home.phrase), "entropy": .string(Hex.encode(home.entropy)), "product": .string(product),
                                     "index": index, "context": .string(Hex.encode(contextBytes)), "message": .string(Hex.encode(message)),
                                     "prefix": .int(prefix)]))
        }
        let expected = try Self.peer("derive", requests)
        var verifications: [JSONValue] = []
        for ((account, identity, entropy, signed), (want, request)) in zip(answers, zip(expected, requests)) {
            #expect(want["mini_secret_matches_entropy"] == .bool(true), context)
            #expect(account["public_key"]?.stringValue == "0x" + (want["product_account"]?.stringValue ?? ""), context)
            #expect(account["address"] == want["product_address"], context)
            #expect(identity["public_key"]?.stringValue == "0x" + (want["identity"]?.stringValue ?? ""), context)
            #expect(identity["address"] == want["identity_address"], context)
            #expect(identity["root_public_key"]?.stringValue == "0x" + (want["root"]?.stringValue ?? ""), context)
            #expect(entropy["entropy"]?.stringValue == "0x" + (want["entropy"]?.stringValue ?? ""), context)
            // omni's signature verifies in schnorrkel, and schnorrkel's in omni.
            verifications.append(.object(["public": .string(String(account["public_key"]?.stringValue?.dropFirst(2) ?? "")),
                                          "message": request["message"] ?? "", "signature": .string(String(signed["signature"]?.stringValue?.dropFirst(2) ?? ""))]))
            let theirs = try Omni.run(["truapi", "key", "verify", "--public-key", want["product_address"]?.stringValue ?? "",
                                       "--signature", want["signature"]?.stringValue ?? "", "--message-hex", request["message"]?.stringValue ?? ""])
            #expect(theirs.status == 0 && theirs.stdoutText.hasPrefix("valid"), "\(theirs.stdoutText) \(theirs.stderrText) \(context)")
        }
        for verdict in try Self.peer("verify", verifications) { #expect(verdict["valid"] == .bool(true), context) }

        let tampered = try Omni.run(["truapi", "key", "verify", "--public-key", expected[0]["product_address"]?.stringValue ?? "",
                                     "--signature", expected[1]["signature"]?.stringValue ?? "", "--message-hex", requests[0]["message"]?.stringValue ?? ""])
        #expect(tampered.status == 1 && tampered.stdoutText.hasPrefix("valid:            INVALID"), "\(tampered.stdoutText)")
        let converted = try Omni.run(["truapi", "key", "ss58", expected[0]["product_address"]?.stringValue ?? "", "--ss58-prefix", "0", "--output", "json"])
        #expect(try JSONValue.parse(converted.stdoutText)["public_key"]?.stringValue == "0x" + (expected[0]["product_account"]?.stringValue ?? ""))
        let broken = try Omni.run(["truapi", "key", "ss58", "5ChZBnBw9eDQUMBhnXUKrGMdK5MTfGrca3T1xZZtBQhW8eiX"])
        #expect(broken.status == 3 && broken.stderrText.contains("checksum"), "\(broken.stderrText)")
    }

    /// One run of truapi_sign_peer.py in an offline mode.
    static func peer(_ mode: String, _ requests: [JSONValue]) throws -> [JSONValue] {
        let input = requests.map { $0.serialized() }.joined(separator: "\n") + "\n"
        let result = try Subprocess.run("/usr/bin/env", ["python3", Repository.peer("truapi_sign_peer.py").path, mode], stdin: Data(input.utf8),
                                        environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw TestSupportError("truapi_sign_peer.py \(mode): \(result.stderrText)") }
        let answers = try JSONValue.parseLines(result.stdoutText)
        guard answers.count == requests.count else { throw TestSupportError("truapi_sign_peer.py answered \(answers.count) of \(requests.count)") }
        return answers
    }

    @Test func refusalsAnswerTheReferencesTypedErrors() throws {
        let home = try Home()
        defer { home.remove() }
        let signRaw = #"{"account":\#(Self.account()),"payload":{"Payload":{"payload":"hi"}}}"#
        let getAccount = #"{"product_account_id":\#(Self.account("other.dot"))}"#
        func call(_ bridge: BridgeProcess, _ method: String, _ json: String? = nil) throws -> ProcessResult {
            try E2E.truapi(["call", method, "--output", "json"] + (json.map { ["--json", $0] } ?? []), url: bridge.url)
        }
        // Policy denial.
        let denying = try BridgeProcess(["--product-id", "myapp.dot", "--session", Home.name, "--ephemeral", "--deny-all"], environment: home.environment)
        let denied = try call(denying, "signing_sign_raw", signRaw)
        #expect(denied.status == 1 && denied.stdoutText == "{\"Err\":{\"Domain\":\"PermissionDenied\"}}\n", "\(denied.stdoutText) \(denied.stderrText)")
        #expect(try call(denying, "account_get_account", getAccount).stdoutText == "{\"Err\":{\"Domain\":\"Rejected\"}}\n")
        #expect(try call(denying, "account_get_user_id").stdoutText == "{\"Err\":{\"Domain\":\"PermissionDenied\"}}\n")
        _ = try denying.stop()

        // A prompt without a terminal (stdin is /dev/null): refused at the confirmation once chain_submit is allowed.
        let policy = home.directory.appendingPathComponent("policy.json")
        try E2E.write(#"{"remote": {"chain_submit": "allow"}}"#, to: policy)
        let noTerminal = try BridgeProcess(["--product-id", "myapp.dot", "--session", Home.name, "--ephemeral", "--policy", policy.path],
                                           environment: home.environment)
        #expect(try call(noTerminal, "signing_sign_raw", signRaw).stdoutText == "{\"Err\":{\"Domain\":\"Rejected\"}}\n")
        #expect(try call(noTerminal, "account_get_account", getAccount).stdoutText == "{\"Err\":{\"Domain\":\"Rejected\"}}\n")
        // Another product's account: refused before anything else.
        let other = #"{"account":\#(Self.account("other.dot")),"payload":{"Payload":{"payload":"hi"}}}"#
        #expect(try call(noTerminal, "signing_sign_raw", other).stdoutText == "{\"Err\":{\"Domain\":\"PermissionDenied\"}}\n")
        try noTerminal.event(where: { $0["event"]?.stringValue == "permission" && $0["source"]?.stringValue == "no_prompt" })
        _ = try noTerminal.stop()

        // No session.
        let empty = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--policy", policy.path], environment: home.environment)
        #expect(try call(empty, "signing_sign_raw", signRaw).stdoutText == "{\"Err\":{\"Domain\":\"Rejected\"}}\n")
        #expect(try call(empty, "account_get_account", #"{"product_account_id":\#(Self.account())}"#).stdoutText == "{\"Err\":{\"Domain\":\"NotConnected\"}}\n")
        #expect(try call(empty, "entropy_derive", #"{"context":"0x01"}"#).stdoutText == "{\"Err\":{\"Domain\":{\"Unknown\":{\"reason\":\"Not connected\"}}}}\n")
        #expect(try call(empty, "account_sign_vrf", #"{"account":\#(Self.account()),"transcript_label":"0x","items":[]}"#).stdoutText
                == "{\"Err\":{\"Domain\":\"NotConnected\"}}\n")
        _ = try empty.stop()

        // Start-up refusals: an unknown session, a secret file others can read, a session whose secret differs.
        let missing = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--ephemeral", "--session", "nobody"], environment: home.environment)
        #expect(missing.status == 7 && missing.stderrText.contains("omni truapi session new nobody"), "\(missing.stderrText)")
        let exposed = home.directory.appendingPathComponent("exposed.hex")
        try E2E.write(Hex.encode(home.entropy), to: exposed, mode: 0o644)
        let readable = try Omni.run(["truapi", "key", "identity", "--entropy-file", exposed.path], environment: home.environment)
        #expect(readable.status == 7 && readable.stderrText.contains("chmod 600"), "\(readable.stderrText)")
        let otherSecret = home.directory.appendingPathComponent("other.hex")
        try E2E.write(String(repeating: "11", count: 16), to: otherSecret)
        let mismatch = try Omni.run(["truapi", "key", "identity", "--session", Home.name, "--entropy-file", otherSecret.path], environment: home.environment)
        #expect(mismatch.status != 0, "a session and another secret")
        let both = try Omni.run(["truapi", "key", "identity"], environment: home.environment)
        #expect(both.status == 2, "a key command needs exactly one secret source: \(both.stderrText)")
        let remove = try Omni.run(["truapi", "session", "remove", Home.name], environment: home.environment)
        #expect(remove.status == 2 && remove.stderrText.contains("--yes"), "no terminal to ask on: \(remove.stderrText)")
    }

    /// The bridge on a pseudo-terminal signs after the person typed y to a card showing the decoded message, and
    /// refuses after n; each request is asked about.
    static let signingPromptDriver = #"""
        import json, os, pty, select, signal, subprocess, sys
        omni, entropy, policy, ready = sys.argv[1:5]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(omni, [omni, 'truapi', 'bridge', '--product-id', 'myapp.dot', '--entropy-file', entropy, '--ephemeral',
                            '--policy', policy, '--ready-file', ready, '--listen', '127.0.0.1:0', '--prompt-timeout', '60s'])
        seen = b''
        def wait_for(text):
            global seen
            while text not in seen:
                readable, _, _ = select.select([fd], [], [], 30)
                if not readable:
                    raise SystemExit('no %r on the terminal; got %r' % (text, seen[-600:]))
                seen += os.read(fd, 4096)
            screen, seen = seen[:seen.index(text) + len(text)], seen[seen.index(text) + len(text):]
            return screen.decode('utf-8', 'replace')
        while not os.path.exists(ready) or not open(ready).read().endswith('\n'):
            readable, _, _ = select.select([fd], [], [], 0.05)
            if readable:
                seen += os.read(fd, 4096)
        env = dict(os.environ, OMNI_TRUAPI_URL=json.load(open(ready))['url'])
        request = '{"account":{"dot_ns_identifier":"myapp.dot","derivation_index":{"Index":0}},"payload":{"Payload":{"payload":"pay 5 DOT to bob"}}}'
        results = {}
        for name, answer in [('yes', b'y'), ('no', b'n')]:
            call = subprocess.Popen([omni, 'truapi', 'call', 'signing_sign_raw', '--json', request, '--output', 'json'], env=env, stdout=subprocess.PIPE)
            results[name + '_screen'] = wait_for(b'Allow? [y/N]')
            os.write(fd, answer + b'\r')
            results[name] = json.loads(call.communicate(timeout=30)[0])
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        print(json.dumps(results))
        """#

    @Test func aTerminalPromptShowsTheDecodedPayloadForEachSignature() throws {
        let home = try Home()
        defer { home.remove() }
        let policy = home.directory.appendingPathComponent("policy.json")
        try E2E.write(#"{"remote": {"chain_submit": "allow"}}"#, to: policy)
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", Self.signingPromptDriver, Omni.executable, home.entropyFile, policy.path,
                                                         home.directory.appendingPathComponent("ready.json").path],
                                        environment: Omni.environment(home.environment))
        #expect(result.status == 0, "\(result.stderrText)")
        let answers = try JSONValue.parse(result.stdoutText)
        let screen = answers["yes_screen"]?.stringValue ?? ""
        #expect(screen.contains("myapp.dot: sign a message") && screen.contains("\"pay 5 DOT to bob\" (16 bytes)"), "\(screen)")
        #expect(screen.contains("account  5") && screen.contains("(myapp.dot, index 0)"), "\(screen)")
        #expect(answers["yes"]?["Ok"]?["signature"]?.stringValue?.count == 130)
        #expect(answers["no_screen"]?.stringValue?.contains("pay 5 DOT to bob") == true, "asked again for the second request")
        #expect(answers["no"] == .object(["Err": .object(["Domain": "Rejected"])]))
    }

    @Test func chainMethodsReachTheNodeThroughTheBinary() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try PeerProcess(script: "chain_node_peer.py")
        defer { node.stop() }
        let genesis = try node.string("genesis_hash")
        let bridge = try BridgeProcess(["--product-id", "myapp.dot", "--ephemeral", "--chain", genesis + "=" + (try node.string("url"))])
        defer { _ = try? bridge.stop() }
        #expect(bridge.ready["chains"]?.arrayValue?.first?["genesis_hash"]?.stringValue == genesis)
        let follow = try E2E.truapi(["subscribe", "chain_follow_head_subscribe", "--json", #"{"genesis_hash":"\#(genesis)","with_runtime":false}"#,
                                     "--count", "4", "--output", "jsonl"], url: bridge.url)
        #expect(follow.status == 0, "\(follow.stderrText)")
        let items = try JSONValue.parseLines(follow.stdoutText)
        #expect(items.compactMap { $0.objectValue?.keys.first } == ["Initialized", "NewBlock", "BestBlockChanged", "Finalized"], "\(follow.stdoutText)")
        let properties = try E2E.truapi(["call", "chain_get_spec_properties", "--json", #"{"genesis_hash":"\#(genesis)"}"#, "--output", "json"], url: bridge.url)
        #expect(try JSONValue.parse(properties.stdoutText)["Ok"]?["properties"]?.stringValue == (try node.string("properties")))
        try bridge.event("chain_connected")
        let unknown = try E2E.truapi(["call", "chain_get_spec_chain_name", "--json", #"{"genesis_hash":"0x\#(E2E.aa)"}"#], url: bridge.url)
        #expect(unknown.status == 4 && unknown.stdoutText.contains("no chain is configured"), "\(unknown.stdoutText)")
        let badChain = try Omni.run(["truapi", "bridge", "--product-id", "myapp.dot", "--ephemeral", "--chain", "0x12=ws://x"])
        #expect(badChain.status == 3 && badChain.stderrText.contains("not 32"), "\(badChain.stderrText)")
    }

    /// A distinct entropy is planted; afterwards every byte of every output, the trace, the ready file and the state
    /// files outside the secret store is searched for it: hex (both cases, and any 16-digit run of it), base64, the
    /// raw bytes, the phrase and any three of its words in a row. The secret file and --show-mnemonic, which hold it
    /// by design, show the search finds what it looks for.
    @Test func aPlantedSecretAppearsInNoOutputTraceOrStateFile() throws {
        let home = try Home()
        defer { home.remove() }
        var outputs: [(String, [UInt8])] = []
        func run(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil, expect status: Int32 = 0) throws {
            let result = try Omni.run(arguments, stdin: stdin, environment: home.environment.merging(environment) { $1 })
            #expect(result.status == status, "\(arguments): \(result.stderrText)")
            outputs.append(("omni " + arguments.joined(separator: " "), Array(result.stdout) + Array(result.stderr)))
        }
        // The session commands themselves: the same secret stored again from stdin and from the environment (to
        // other names), verbose and in JSON, a refused replacement, and removal.
        try run(["truapi", "session", "new", "again-stdin", "--entropy-file", "-", "-v", "--output", "json"],
                stdin: Data(Hex.encode(home.entropy).utf8))
        try run(["truapi", "session", "new", "again-env", "--mnemonic-env", "PHRASE", "-v"], environment: ["PHRASE": home.phrase])
        try run(["truapi", "session", "new", Home.name, "--mnemonic-env", "PHRASE", "-v"], environment: ["PHRASE": home.phrase], expect: 7)
        // The secret typed where its file belongs: refused without being repeated.
        try run(["truapi", "session", "new", "again-argv", "--entropy-file", Hex.encode(home.entropy)], expect: 3)
        try run(["truapi", "session", "remove", "again-stdin", "--yes", "-v"])
        try run(["truapi", "session", "remove", "again-env", "--yes", "--output", "json"])
        try run(["truapi", "session", "list"])
        try run(["truapi", "session", "show", Home.name, "--output", "json"])
        try run(["truapi", "key", "identity", "--session", Home.name])
        try run(["truapi", "key", "product-account", "--session", Home.name, "--product-id", "myapp.dot", "--index", "3"])
        try run(["truapi", "key", "entropy", "--session", Home.name, "--product-id", "myapp.dot", "--context-text", "k"])
        try run(["truapi", "key", "sign-raw", "--mnemonic-env", "PHRASE", "--product-id", "myapp.dot", "--message", "hi"], environment: ["PHRASE": home.phrase])
        // Failures must not quote the secret either.
        var words = home.phrase.split(separator: " ").map(String.init)
        words[5] = words[5] == "zoo" ? "abandon" : "zoo"
        try run(["truapi", "key", "identity", "--mnemonic-env", "PHRASE"], environment: ["PHRASE": words.joined(separator: " ")], expect: 7)
        let short = home.directory.appendingPathComponent("short.hex")
        try E2E.write(Hex.encode(home.entropy.prefix(17)), to: short)
        try run(["truapi", "key", "identity", "--entropy-file", short.path], expect: 7)

        let trace = home.directory.appendingPathComponent("trace.jsonl")
        let ready = home.directory.appendingPathComponent("ready.json")
        let bridge = try BridgeProcess(["--product-id", "myapp.dot", "--session", Home.name, "--auto-accept", "--trace-frames", trace.path,
                                        "--ready-file", ready.path], environment: home.environment)
        let payload = #"{"block_hash":"0x\#(E2E.aa)","block_number":"0x01","era":"0x00","genesis_hash":"0x\#(E2E.zeros)","method":"0x0500","nonce":"0x00","spec_version":"0x01000000","tip":"0x00","transaction_version":"0x01000000","signed_extensions":["CheckGenesis","CheckNonce"],"version":4,"asset_id":null,"metadata_hash":null,"mode":null,"with_signed_transaction":true}"#
        let calls: [(String, String?)] = [
            ("account_get_account", #"{"product_account_id":\#(Self.account())}"#),
            ("signing_sign_raw", #"{"account":\#(Self.account()),"payload":{"Payload":{"payload":"hello"}}}"#),
            ("signing_sign_payload", #"{"account":\#(Self.account()),"payload":\#(payload)}"#),
            ("signing_create_transaction", #"{"signer":\#(Self.account()),"genesis_hash":"0x\#(E2E.zeros)","call_data":"0x0500","extensions":[],"tx_ext_version":0}"#),
            ("account_sign_vrf", #"{"account":\#(Self.account()),"transcript_label":"0x01","items":[]}"#),
            ("entropy_derive", #"{"context":"0x0102"}"#), ("entropy_derive", #"{"context":"0x"}"#),
            ("account_get_user_id", nil), ("local_storage_write", #"{"key":"k","value":"0x0102"}"#),
            ("signing_sign_raw_with_legacy_account", #"{"signer":"0x\#(E2E.aa)","payload":{"Payload":{"payload":"x"}}}"#),
        ]
        for (method, json) in calls {
            let result = try E2E.truapi(["call", method, "--output", "json"] + (json.map { ["--json", $0] } ?? []), url: bridge.url)
            outputs.append(("call " + method, Array(result.stdout) + Array(result.stderr)))
        }
        #expect(try bridge.stop() == 143)
        outputs.append(("bridge stdout", Array(bridge.stdout.utf8)))
        outputs.append(("bridge stderr", Array(bridge.stderrText.utf8)))
        // A run given the phrase itself (stdin is not a terminal; the phrase only in its environment).
        let phraseBridge = try BridgeProcess(["--product-id", "myapp.dot", "--mnemonic-env", "PHRASE", "--ephemeral"], environment: ["PHRASE": home.phrase])
        _ = try E2E.truapi(["call", "account_get_account", "--json", #"{"product_account_id":\#(Self.account())}"#], url: phraseBridge.url)
        _ = try phraseBridge.stop()
        outputs.append(("mnemonic bridge", Array((phraseBridge.stdout + phraseBridge.stderrText).utf8)))

        var files: [(String, [UInt8])] = [("trace", [UInt8](try Data(contentsOf: trace))), ("ready file", [UInt8](try Data(contentsOf: ready)))]
        let state = home.directory.appendingPathComponent("state")
        let enumerator = try #require(FileManager.default.enumerator(atPath: state.path))
        var secretFile: [UInt8] = []
        for case let path as String in enumerator {
            let full = state.appendingPathComponent(path).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: full)))
            if full == home.sessionDirectory + "/secret.json" { secretFile = bytes } else { files.append((path, bytes)) }
        }
        #expect(files.contains { $0.0.hasSuffix("products/myapp.dot/storage.json") }, "the bridge kept its state under the session: \(files.map(\.0))")

        let needles = Self.needles(entropy: home.entropy, phrase: home.phrase)
        for (name, haystack) in outputs + files {
            for (kind, needle) in needles where Self.contains(haystack, needle) {
                Issue.record("\(name) contains the planted secret (\(kind))")
            }
        }
        // The search works: it finds the secret where it is meant to be.
        #expect(Self.contains(secretFile, Array(Hex.encode(home.entropy).utf8)), "the secret store holds the entropy")
        let shown = try Omni.run(["truapi", "session", "show", Home.name, "--show-mnemonic"], environment: home.environment)
        #expect(needles.contains { Self.contains(Array(shown.stdout), $0.1) }, "--show-mnemonic prints the phrase when asked")
    }

    /// The forms of OmniTestSupport's PlantedSecret (one home for what counts as a leak).
    static func needles(entropy: [UInt8], phrase: String) -> [(String, [UInt8])] {
        (PlantedSecret.bytes("entropy", entropy).forms + PlantedSecret.phrase("mnemonic", phrase).forms).map { ($0.kind, $0.bytes) }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool { PlantedSecret.contains(haystack, needle) }
}
