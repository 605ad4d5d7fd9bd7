import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectURIBuildCommand {
    enum Role: String, CaseIterable, ArgumentValue {
        case wallet, app
        var connectRole: ConnectRole { self == .app ? .app : .wallet }
    }

    static let role = DefaultedOption<Role>("role", help: "Whose URI to build.", default: .wallet)
    static let sid = Option<ConnectSIDValue>("sid", valueName: "SID", help: "gen-a: the session id (gen-b derives it).")
    static let appPK = Option<ConnectPublicKeyValue>("app-pk", valueName: "KEY", help: "gen-b: the app's X25519 public key.")
    static let nonce = Option<ConnectNonceValue>("nonce", valueName: "NONCE", help: "gen-b: the 16-byte nonce.")
    static let node = Option<String>("node", valueName: "URL", help: "The node URL put in the URI (required for gen-b).",
                                     environment: "OMNI_CONNECT_NODE", config: "connect.node", group: "Connect")
    static let token = RequiredOption<InputFile>("token-file", valueName: "FILE", help: "The role's token, readable only by you; - reads stdin.",
                                                 environment: "OMNI_CONNECT_TOKEN_FILE")
    static let relayToken = Option<InputFile>("relay-token-file", valueName: "FILE",
                                              help: "gen-b: the session's relay token, readable only by you; - reads stdin.",
                                              environment: "OMNI_CONNECT_RELAY_TOKEN_FILE")
    static let scheme = Option<String>("scheme", help: "The URI scheme: irohaconnect or iroha.", absentMeans: "irohaconnect for gen-b, iroha for gen-a")

    static let command = Command(
        "build", abstract: "Build a deep link from its parts (tokens from files).",
        options: [ConnectCommands.generationOption, role, ConnectCommands.networkID, ConnectCommands.chainID, sid, appPK, nonce,
                  node, token, relayToken, scheme],
        examples: [Example("omni connect uri build --network-id 4141414141414141414141414141414141414141414141414141414141414141 --app-pk AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE --nonce AgICAgICAgICAgICAgICAg --node https://taira.sora.org --token-file t --relay-token-file r",
                           "A gen-b wallet URI; the sid is derived.")]
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        let constraints = try ConnectCommands.constraints(invocation, generation: generation)
        let tokenText = try ConnectCommands.secretText(invocation, try invocation.value(token), label: "--token-file")
        let uriRole = try invocation.value(role).connectRole
        let built: ConnectURI
        switch generation {
        case .genB:
            func need<T>(_ value: T?, _ name: String) throws -> T {
                guard let value else { throw CLIError.usage("gen-b URIs need \(name)", commandPath: invocation.commandPath) }
                return value
            }
            let key = try need(try invocation.value(appPK), "--app-pk KEY").bytes
            let nonceBytes = try need(try invocation.value(nonce), "--nonce NONCE").bytes
            let relayFile = try need(try invocation.value(relayToken), "--relay-token-file FILE (or OMNI_CONNECT_RELAY_TOKEN_FILE)")
            let relay = try ConnectCommands.secretText(invocation, relayFile, label: "--relay-token-file")
            let nodeURL = try need(try invocation.value(node), "--node URL")
            let sidBytes = ConnectCrypto.sid(generation: .genB, constraints: constraints, appPublicKey: key, nonce: nonceBytes)
            built = ConnectURI(generation: .genB, scheme: try invocation.value(scheme), sid: sidBytes, role: uriRole, token: tokenText,
                               node: nodeURL, constraints: constraints, appPublicKey: key, nonce: nonceBytes, relayToken: relay)
        case .genA:
            guard let sidBytes = try invocation.value(sid)?.bytes else {
                throw CLIError.usage("gen-a URIs need --sid SID", commandPath: invocation.commandPath)
            }
            built = ConnectURI(generation: .genA, scheme: try invocation.value(scheme), sid: sidBytes, role: uriRole, token: tokenText,
                               node: try invocation.value(node), constraints: constraints)
        }
        let text = built.text
        _ = try ConnectURI(parsing: text, generation: generation)
        return .output(SimpleOutput(text: text, json: .object(["uri": .string(text), "sid": .string(built.sidText)])))
    }
}
