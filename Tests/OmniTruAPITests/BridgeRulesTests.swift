import Foundation
import OmniCodec
import OmniTestSupport
@testable import OmniTruAPI
import Testing

@Suite("TrUAPI bridge: token gate, product ids, network presets")
struct BridgeIdentityTests {
    @Test("every ws_token.json case: key exactly t, first =, no percent-decoding, path not checked", .vectors("truapi/ws_token.json"))
    func tokenGateVectors() throws {
        let cases = try #require(try truapiVector("ws_token.json")["cases"]?.arrayValue)
        #expect(cases.count == 6)
        for item in cases {
            let target = item["path_and_query"]?.stringValue
            let token = try #require(item["token"]?.stringValue)
            let accept = try #require(item["accept"]?.boolValue)
            #expect(TruAPIBridge.tokenMatches(target, token: token) == accept, "\(target ?? "null")")
        }
    }

    @Test("the gate's edges: any matching pair, value after the first =, bytes as sent")
    func tokenGateEdges() {
        #expect(TruAPIBridge.tokenMatches("/x?t=bad&t=abc", token: "abc"))
        #expect(!TruAPIBridge.tokenMatches("/?t=abc=", token: "abc"))
        #expect(TruAPIBridge.tokenMatches("/?t=a=b", token: "a=b"))
        #expect(!TruAPIBridge.tokenMatches("/?t=ab%63", token: "abc"), "no percent-decoding")
        #expect(!TruAPIBridge.tokenMatches("/?T=abc", token: "abc"))
        #expect(!TruAPIBridge.tokenMatches("/?t", token: "abc"))
        #expect(!TruAPIBridge.tokenMatches("/t=abc", token: "abc"), "only the query counts")
        #expect(!TruAPIBridge.tokenMatches("/?t=abcd", token: "abc"))
    }

    @Test("tokens are 64 lowercase hex digits and fresh each time")
    func tokens() {
        let first = TruAPIBridge.makeToken(), second = TruAPIBridge.makeToken()
        #expect(first.count == 64 && first.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first != second)
    }

    @Test("product ids are trimmed, NFC-normalised and lowercased, then checked against the suffixes")
    func productIDs() throws {
        #expect(try TruAPIProductID("  MyApp.DOT \n").value == "myapp.dot")
        // "é" as e + combining acute becomes the one precomposed scalar.
        let decomposed = try TruAPIProductID("Cafe\u{301}.dot")
        #expect(decomposed.value == "caf\u{e9}.dot" && decomposed.value.unicodeScalars.count == 8)
        for good in ["a.dot", "x.paseo", "y.test", "localhost", "localhost:3000", "LOCALHOST:65535"] {
            #expect((try? TruAPIProductID(good)) != nil, "\(good)")
        }
        for bad in ["", "   ", ".dot", "myapp.com", "localhost:0", "localhost:99999", "localhost:", "a b.dot", "../x.dot", "a/b.dot", "x\u{1}.dot"] {
            #expect(throws: TruAPIError.self, "\(bad)") { try TruAPIProductID(bad) }
        }
        #expect(try TruAPIProductID("shop.xyz", suffixes: [".xyz"]).value == "shop.xyz")
        #expect(throws: TruAPIError.self) { try TruAPIProductID("shop.dot", suffixes: [".xyz"]) }
        #expect(TruAPIProductID.suffix("Paseo") == ".paseo" && TruAPIProductID.suffix(".x.y") == ".x.y" && TruAPIProductID.suffix("a b") == nil)
        #expect(try TruAPIProductID("localhost:3000").isDevelopmentWildcard && !(try TruAPIProductID("a.dot").isDevelopmentWildcard))
    }

    @Test("local storage keys are the reference's scoped keys")
    func storageKey() throws {
        #expect(try TruAPIProductID("myapp.dot").storageKey("k") == "truapi:product-storage:v1:9:myapp.dot:k")
        #expect(try TruAPIProductID("café.dot").storageKey("") == "truapi:product-storage:v1:9:café.dot:")
    }

    @Test("omni's network presets are networks.json's data", .vectors("truapi/networks.json"))
    func presetsMatchTheVectors() throws {
        let presets = try #require(try truapiVector("networks.json")["presets"]?.objectValue)
        #expect(presets.count == TruAPINetworks.presets.count)
        for (name, preset) in presets {
            let ours = try #require(TruAPINetworks.preset(named: name), "\(name)")
            #expect(preset["network"]?.stringValue == ours.name)
            let chains = try #require(preset["chains"]?.objectValue)
            #expect(chains.count == ours.chains.count, "\(name)")
            for (role, chain) in chains {
                let mine = try #require(ours.chains.first { $0.role.rawValue == role }, "\(name) \(role)")
                #expect(chain["genesis"]?.stringValue == mine.genesisHash, "\(name) \(role)")
                #expect(chain["rpc"]?.stringValue == mine.rpc, "\(name) \(role)")
                #expect(ours.chainSet.genesis(of: mine.role) == hexBytes(mine.genesisHash))
                // --network forwards chain methods to the preset's node of each genesis.
                #expect(ours.nodes.contains { $0.genesis == hexBytes(mine.genesisHash) && $0.url == mine.rpc }, "\(name) \(role)")
            }
        }
    }

    @Test("--network and --chain-role: a preset, roles added or replaced, a custom network needs roles")
    func chainSets() throws {
        let aa = [UInt8](repeating: 0xaa, count: 32)
        let set = try TruAPINetworks.chainSet(network: "previewnet", roles: [(.people, aa), (.relay, aa)])
        #expect(set.network == "previewnet" && set.chains.map(\.role) == [.relay, .assetHub, .people, .bulletin])
        #expect(set.genesis(of: .people) == aa)
        let custom = try TruAPINetworks.chainSet(network: "paseo", roles: [(.assetHub, aa)])
        #expect(custom.network == "paseo" && custom.serves(genesis: aa))
        #expect(throws: TruAPIError.self) { try TruAPINetworks.chainSet(network: "mainnet", roles: []) }
        #expect(try TruAPINetworks.chainSet(network: nil, roles: []).chains.isEmpty)
        #expect(TruAPIChainSet.Role(loosely: "asset-hub") == .assetHub && TruAPIChainSet.Role(loosely: "PEOPLE") == .people)
    }
}

@Suite("TrUAPI bridge: the policy file and the permission broker")
struct BridgePolicyTests {
    static let sample = """
        {"default": "deny",
         "device": {"camera": "allow", "*": "prompt"},
         "remote": {"web_rtc": "deny"},
         "domains": {"example.com": "allow", "*.example.org": "allow", "*": "prompt"},
         "identity_disclosure": "allow",
         "account_access": {"Other.DOT": "allow"},
         "confirmations": {"sign_raw": "prompt"}}
        """

    @Test("sections, wildcards and the fallback chain")
    func decisions() throws {
        let policy = try TruAPIPolicy.parse(Self.sample, source: "policy.json")
        #expect(policy.decision(for: .device("camera")) == .allow)
        #expect(policy.decision(for: .device("nfc")) == .prompt)
        #expect(policy.decision(for: .remote("web_rtc")) == .deny)
        #expect(policy.decision(for: .remote("chain_submit")) == .deny, "default")
        #expect(policy.decision(for: .domain("example.com")) == .allow)
        #expect(policy.decision(for: .domain("a.b.example.org")) == .allow)
        #expect(policy.decision(for: .domain("example.org")) == .prompt, "*.example.org covers subdomains only")
        #expect(policy.decision(for: .domain("evil.com")) == .prompt)
        #expect(policy.decision(for: .identityDisclosure) == .allow)
        #expect(policy.decision(for: .accountAccess("other.dot")) == .allow, "product ids are normalised")
        #expect(policy.decision(for: .accountAccess("x.dot")) == .deny)
        #expect(policy.decision(for: .confirmation("sign_raw")) == .prompt)
        #expect(policy.decision(for: .confirmation("sign_vrf")) == .deny)
        #expect(try TruAPIPolicy.parse(#"{"account_access": "allow"}"#, source: "p").decision(for: .accountAccess("any.dot")) == .allow)
        #expect(TruAPIPolicy.promptEverything.decision(for: .device("camera")) == .prompt)
    }

    @Test("syntax errors name the line and column, others the field path")
    func errors() throws {
        func message(_ text: String) -> String {
            do { _ = try TruAPIPolicy.parse(text, source: "policy.json"); return "" } catch { return error.message }
        }
        let syntax = message("{\n  \"device\": {\"camera\": allow}\n}")
        #expect(syntax.contains("policy.json") && syntax.contains("line 2") && syntax.contains("column"), "\(syntax)")
        #expect(message(#"{"device": {"camra": "allow"}}"#).contains("at $.device.camra: unknown device permission"))
        #expect(message(#"{"device": {"camera": "yes"}}"#).contains("at $.device.camera: expected \"allow\", \"deny\" or \"prompt\""))
        #expect(message(#"{"devices": {}}"#).contains("at $.devices: unknown section"))
        #expect(message(#"{"domains": {"ex ample.com": "allow"}}"#).contains("at $.domains.ex ample.com: not a valid domain"))
        #expect(message(#"{"remote": {"remote": "allow"}}"#).contains("at $.remote.remote"))
        #expect(message(#"{"account_access": {"nope.com": "allow"}}"#).contains("at $.account_access.nope.com"))
        #expect(message(#"{"confirmations": {"sign_everything": "allow"}}"#).contains("at $.confirmations.sign_everything"))
        #expect(message("[]").contains("at $:"))
        #expect(try TruAPIPolicy.parse("{}", source: "p") == TruAPIPolicy())
    }

    static func broker(_ policy: TruAPIPolicy, _ prompter: ScriptedPrompter?, state: TruAPIBridgeState = .ephemeral(),
                       autoAccept: Bool = false, denyAll: Bool = false, events: BridgeEventLog = BridgeEventLog()) throws -> TruAPIPermissionBroker {
        TruAPIPermissionBroker(productID: try TruAPIProductID("myapp.dot"), policy: policy, state: state, prompter: prompter,
                               autoAccept: autoAccept, denyAll: denyAll, onEvent: { events.record($0) })
    }

    @Test("allow and deny apply without asking; a prompt's answer is remembered; no answer refuses and is forgotten")
    func prompting() async throws {
        let policy = try TruAPIPolicy.parse(#"{"device": {"camera": "allow", "microphone": "deny"}}"#, source: "p")
        let prompter = ScriptedPrompter([true, nil, false])
        let state = TruAPIBridgeState.ephemeral()
        let broker = try Self.broker(policy, prompter, state: state)
        #expect(await broker.resolve([.device("camera")]))
        #expect(await !broker.resolve([.device("microphone")]))
        #expect(prompter.questions.isEmpty)
        #expect(await broker.resolve([.device("nfc")]))
        #expect(await broker.resolve([.device("nfc")]), "remembered: not asked again")
        #expect(prompter.questions.count == 1 && state.decision(for: .device("nfc")) == true)
        #expect(await !broker.resolve([.device("location")]), "no answer refuses")
        #expect(state.decision(for: .device("location")) == nil, "and is not remembered")
        #expect(await !broker.resolve([.device("location")]))
        #expect(state.decision(for: .device("location")) == false)
        #expect(await !broker.resolve([.device("location")]))
        #expect(prompter.questions.count == 3)
        // An explicit policy deny wins over an earlier yes.
        _ = state.setDecision(true, for: .device("microphone"))
        #expect(await !broker.resolve([.device("microphone")]))
    }

    @Test("Remote { domains }: one question for the undecided ones, all must be granted, an empty list is refused")
    func domains() async throws {
        let policy = try TruAPIPolicy.parse(#"{"domains": {"ok.com": "allow", "bad.com": "deny"}}"#, source: "p")
        let prompter = ScriptedPrompter([true])
        let state = TruAPIBridgeState.ephemeral()
        let broker = try Self.broker(policy, prompter, state: state)
        #expect(await broker.resolve([.domain("ok.com"), .domain("a.com"), .domain("b.com")]))
        #expect(prompter.questions.map(\.subjects) == [[.domain("a.com"), .domain("b.com")]])
        #expect(await !broker.resolve([.domain("ok.com"), .domain("bad.com"), .domain("c.com")]))
        #expect(prompter.questions.count == 1, "a denied domain decides without asking")
        #expect(await !broker.resolve([]))
        #expect(await broker.resolve([.domain("a.com")]))
        #expect(await !broker.resolve([.domain("new.com")], mayPrompt: false), "a check without a prompt needs a grant")
        #expect(prompter.questions.count == 1)
    }

    @Test("--auto-accept says yes without a prompter and reports it; --deny-all refuses even allows; no TTY refuses")
    func shorthands() async throws {
        let events = BridgeEventLog()
        let accepting = try Self.broker(.promptEverything, nil, autoAccept: true, events: events)
        #expect(await accepting.resolve([.remote("web_rtc")]))
        #expect(events.all.last?["source"]?.stringValue == "auto_accept")
        let allow = try TruAPIPolicy.parse(#"{"default": "allow"}"#, source: "p")
        let denying = try Self.broker(allow, nil, denyAll: true)
        #expect(await !denying.resolve([.device("camera")]))
        let unattended = try Self.broker(.promptEverything, nil)
        #expect(await !unattended.resolve([.device("camera")]), "no terminal: prompt means deny")
    }
}

@Suite("TrUAPI bridge: state in a directory")
struct BridgeStateTests {
    @Test("storage, decisions and notifications survive a restart, in 0600 files")
    func persistence() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("state")
        do {
            let state = try TruAPIBridgeState.open(directory: path)
            #expect(state.write("k", [1, 2, 3]) == .done)
            #expect(state.write("gone", [9]) == .done)
            #expect(state.clear("gone") == .done)
            #expect(state.setDecision(true, for: .domain("example.com")) == .done)
            #expect(state.setDecision(false, for: .device("camera")) == .done)
            guard case .added(let first) = state.addNotification(text: "now", deeplink: nil, scheduledAt: nil, pendingUntilDelivered: false),
                  case .added(let second) = state.addNotification(text: "later", deeplink: "dot://x", scheduledAt: 4_000_000_000_000,
                                                                  pendingUntilDelivered: true) else {
                Issue.record("notifications not added")
                return
            }
            #expect(first.id == 1 && second.id == 2)
        }
        // The first state is gone, and its lock with it.
        let reopened = try TruAPIBridgeState.open(directory: path)
        #expect(reopened.read("k") == [1, 2, 3] && reopened.read("gone") == nil)
        #expect(reopened.decision(for: .domain("example.com")) == true && reopened.decision(for: .device("camera")) == false)
        #expect(reopened.pendingNotifications.map(\.text) == ["later"])
        guard case .added(let third) = reopened.addNotification(text: "n", deeplink: nil, scheduledAt: nil, pendingUntilDelivered: false) else {
            Issue.record("not added")
            return
        }
        #expect(third.id == 3, "ids keep counting across runs")
        for name in ["storage.json", "permissions.json", "notifications.json"] {
            let mode = try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("one bridge per state directory: a second open is refused while the first holds it")
    func exclusive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try TruAPIBridgeState.open(directory: directory.path)
        #expect(throws: TruAPIError.self) { try TruAPIBridgeState.open(directory: directory.path) }
        #expect(first.write("still", [1]) == .done)
    }

    @Test("a writer killed before its rename leaves a temporary file: ignored, removed, the committed file intact")
    func interruptedWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let state = try TruAPIBridgeState.open(directory: directory.path)
            #expect(state.write("committed", [7]) == .done)
        }
        // What AtomicFile leaves when the process dies mid-write: a half-written temporary beside the real file.
        let leftover = directory.file(".storage.json.tmp-AbC123")
        try Data(#"{"version":1,"entries":{"committed":"0x07","half"#.utf8).write(to: URL(fileURLWithPath: leftover))
        let state = try TruAPIBridgeState.open(directory: directory.path)
        #expect(state.read("committed") == [7] && state.storageKeys == ["committed"])
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }

    @Test("a damaged state file fails with its name and where; the quota answers Full; 64 pending at most")
    func limits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("{\"version\":1,\n \"entries\": {\"k\": 12}}".utf8).write(to: URL(fileURLWithPath: directory.file("storage.json")))
        do {
            _ = try TruAPIBridgeState.open(directory: directory.path)
            Issue.record("a damaged file was accepted")
        } catch {
            #expect(error.kind == .configuration && error.message.contains("storage.json") && error.message.contains("$.entries"), "\(error)")
        }
        try Data("{\"version\":1,\n \"entries\": {".utf8).write(to: URL(fileURLWithPath: directory.file("storage.json")))
        do {
            _ = try TruAPIBridgeState.open(directory: directory.path)
            Issue.record("truncated JSON was accepted")
        } catch {
            #expect(error.message.contains("line 2"), "\(error)")
        }

        let small = TruAPIBridgeState.ephemeral(quota: 10)
        #expect(small.write("k", [UInt8](repeating: 0, count: 9)) == .done)
        #expect(small.write("k", [UInt8](repeating: 0, count: 10)) == .full)
        #expect(small.read("k")?.count == 9, "a refused write changes nothing")
        var outcomes: [TruAPIBridgeState.NotificationOutcome] = []
        for index in 0...64 {
            outcomes.append(small.addNotification(text: "\(index)", deeplink: nil, scheduledAt: 1, pendingUntilDelivered: true))
        }
        #expect(outcomes.last == .limitReached && small.pendingNotifications.count == 64)
        #expect(small.removeNotification(5) != nil && small.removeNotification(5) == nil)
    }
}
