import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectURIBuildCommand {
    static let role = Option<Role>("role", help: "Whose URI to build.", default: .wallet)
    static let sid = Option<String>("sid", valueName: "SID", help: "gen-a: the session id (gen-b derives it).")
    static let appPK = Option<String>("app-pk", valueName: "KEY", help: "gen-b: the app's X25519 public key.")
    static let nonce = Option<String>("nonce", valueName: "NONCE", help: "gen-b: the 16-byte nonce.")
    static let token = Option<String>("token", valueName: "@FILE", help: "The role's token, as @FILE or -.",
                                      environment: "OMNI_CONNECT_TOKEN", source: .content)
    static let relayToken = Option<String>("relay-token", valueName: "@FILE", help: "gen-b: the session's relay token, as @FILE or -.",
                                           environment: "OMNI_CONNECT_RELAY_TOKEN", source: .content)
    static let scheme = Option<String>("scheme", help: "irohaconnect (gen-b default) or iroha.")

    enum Role: String, CaseIterable, ArgumentValue {
        case wallet, app
        var connectRole: ConnectRole { self == .app ? .app : .wallet }
    }

    static let command = Command(
        "build", abstract: "Build a deep link from its parts (tokens from files or the environment).",
        options: [ConnectCommands.generationOption, role, ConnectCommands.networkID, ConnectCommands.chainID, sid, appPK, nonce,
                  ConnectCommands.node, token, relayToken, scheme],
        examples: [Example("omni connect uri build --network-id … --app-pk … --nonce … --node https://taira.sora.org --token @t --relay-token @r",
                           "A gen-b wallet URI; the sid is derived.")]
    ) { invocation in
        let generation = try ConnectCommands.generation(invocation)
        let constraints = try ConnectCommands.constraints(invocation, generation: generation)
        guard let tokenText = try ConnectCommands.secret(invocation, token) else {
            throw CLIError.usage("missing --token @FILE (or OMNI_CONNECT_TOKEN)", commandPath: invocation.commandPath)
        }
        let built: ConnectURI
        switch generation {
        case .genB:
            let key = try ConnectText.parseBytes(try invocation.require(appPK), byteCount: 32, what: "--app-pk")
            let nonceBytes = try ConnectText.parseBytes(try invocation.require(nonce), byteCount: 16, what: "--nonce")
            guard let relay = try ConnectCommands.secret(invocation, relayToken) else {
                throw CLIError.usage("missing --relay-token @FILE (or OMNI_CONNECT_RELAY_TOKEN)", commandPath: invocation.commandPath)
            }
            let sidBytes = ConnectCrypto.sid(generation: .genB, constraints: constraints, appPublicKey: key, nonce: nonceBytes)
            built = ConnectURI(generation: .genB, scheme: try invocation.value(scheme), sid: sidBytes, role: try invocation.value(role)?.connectRole ?? .wallet,
                               token: tokenText, node: try ConnectCommands.requireNode(invocation), constraints: constraints,
                               appPublicKey: key, nonce: nonceBytes, relayToken: relay)
        case .genA:
            let sidBytes = try ConnectText.parseBytes(try invocation.require(sid), byteCount: 32, what: "--sid")
            built = ConnectURI(generation: .genA, scheme: try invocation.value(scheme), sid: sidBytes, role: try invocation.value(role)?.connectRole ?? .wallet,
                               token: tokenText, node: try invocation.value(ConnectCommands.node), constraints: constraints)
        }
        let text = built.text
        _ = try ConnectURI(parsing: text, generation: generation)
        return .output(SimpleOutput(text: text, json: .object(["uri": .string(text), "sid": .string(built.sidText)])))
    }
}
