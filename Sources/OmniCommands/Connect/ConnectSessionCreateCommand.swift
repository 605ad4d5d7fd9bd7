import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniSystem

enum ConnectSessionCreateCommand {
    static let appKey = Option<String>("app-key", valueName: "FILE", help: "The app's X25519 private key (PEM or hex); default: a fresh one.",
                                       environment: "OMNI_CONNECT_APP_KEY_FILE", source: .path)
    static let save = Option<String>("save", valueName: "FILE",
                                     help: "Write the session (sid, tokens, app private key, nonce) as JSON to FILE, mode 0600.",
                                     source: .path)

    static let command = Command(
        "create", abstract: "Register a session (POST /v1/connect/session) and print its wallet URI.",
        discussion: """
        Generates the nonce (and the app key unless --app-key), derives the sid, posts it, and refuses the answer \
        unless the node echoes exactly the sid, network id, app key and nonce sent. Tokens are redacted unless \
        --show-secrets; --save keeps everything needed to join, query and delete the session later.
        """,
        options: [ConnectCommands.node, ConnectCommands.networkID, ConnectCommands.chainID, ConnectCommands.generationOption, appKey, save,
                  ConnectCommands.showSecrets],
        examples: [Example("omni connect session create --node http://127.0.0.1:8080 --network-id 4141…41 --save session.json",
                           "Register a session on a local relay and keep its tokens.")]
    ) { invocation in
        let generation = try ConnectCommands.generation(invocation)
        let constraints = try ConnectCommands.constraints(invocation, generation: generation)
        let key = try invocation.value(appKey).map { try ConnectKeyFile.x25519PrivateKey(from: try ConnectCommands.readFile($0, label: "--app-key")) }
            ?? X25519.PrivateKey()
        let client = try ToriiConnectClient(node: try ConnectCommands.requireNode(invocation), generation: generation,
                                            http: ConnectCommands.httpClient())
        let nonce = ConnectCrypto.makeNonce()
        let registration = try client.createSession(constraints: constraints, appPublicKey: key.publicKey.rawRepresentation, nonce: nonce)
        let show = try invocation.flag(ConnectCommands.showSecrets)
        if let path = try invocation.value(save) {
            var saved = JSONObject()
            saved["generation"] = .string(generation.rawValue)
            saved["node"] = .string(client.node)
            saved["sid"] = .string(ConnectText.base64URL(registration.sid))
            saved["app_secret_key"] = .string(ConnectText.hex(key.rawRepresentation))
            saved["app_pk"] = .string(ConnectText.hex(key.publicKey.rawRepresentation))
            saved["nonce"] = .string(ConnectText.hex(nonce))
            saved["wallet_uri"] = .string(registration.walletURI)
            saved["token_app"] = .string(registration.tokenApp)
            saved["token_wallet"] = .string(registration.tokenWallet)
            if let management = registration.tokenManagement { saved["token_management"] = .string(management) }
            if let relay = registration.tokenRelay { saved["token_relay"] = .string(relay) }
            try AtomicFile.write(JSONValue.object(saved).serialized(pretty: true) + "\n", to: path, mode: 0o600, createDirectories: true)
        }
        var list = FieldList()
        list.add("sid", .string(ConnectText.base64URL(registration.sid)))
        list.add("wallet_uri", .string(registration.walletURI))
        list.add("app_pk", .string(ConnectText.hex(key.publicKey.rawRepresentation)))
        list.add("nonce", .string(ConnectText.hex(nonce)))
        list.add("token_app", ConnectCommands.secretText(registration.tokenApp, show: show))
        list.add("token_wallet", ConnectCommands.secretText(registration.tokenWallet, show: show))
        if let management = registration.tokenManagement { list.add("token_management", ConnectCommands.secretText(management, show: show)) }
        if let relay = registration.tokenRelay { list.add("token_relay", ConnectCommands.secretText(relay, show: show)) }
        return .output(list)
    }
}
