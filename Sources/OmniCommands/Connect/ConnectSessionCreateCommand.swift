import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto

enum ConnectSessionCreateCommand {
    static let outFile = Option<OutputFile>(
        "out-file", valueName: "FILE",
        help: "Write the session (sid, tokens, app private key, nonce) as JSON to FILE, mode 0600; - prints it instead of the summary.")

    static let command = Command(
        "create", abstract: "Register a session (POST /v1/connect/session) and print its wallet URI.",
        discussion: """
        Generates the nonce (and the app key unless --app-key-file), derives the sid, posts it, and refuses the \
        answer unless the node echoes exactly the sid, network id, app key and nonce sent. Tokens are redacted \
        unless --show-secrets; --out-file keeps everything needed to join, query and delete the session later.
        """,
        options: [ConnectCommands.node, ConnectCommands.networkID, ConnectCommands.chainID, ConnectCommands.generationOption,
                  ConnectAppFlow.appKey, outFile, ConnectCommands.showSecrets],
        examples: [Example("omni connect session create --node http://127.0.0.1:8080 --network-id 4141414141414141414141414141414141414141414141414141414141414141 --out-file session.json",
                           "Register a session on a local relay and keep its tokens.")]
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        let constraints = try ConnectCommands.constraints(invocation, generation: generation)
        let key = try invocation.value(ConnectAppFlow.appKey).map {
            try ConnectKeyFile.x25519PrivateKey(from: try ConnectCommands.secretText(invocation, $0, label: "--app-key-file"))
        } ?? X25519.PrivateKey()
        let client = try ToriiConnectClient(node: try invocation.value(ConnectCommands.node), generation: generation,
                                            http: ConnectCommands.httpClient())
        let nonce = ConnectCrypto.makeNonce()
        let registration = try client.createSession(constraints: constraints, appPublicKey: key.publicKey.rawRepresentation, nonce: nonce)
        if let file = try invocation.value(outFile) {
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
            try invocation.write(JSONValue.object(saved).serialized(pretty: true) + "\n", to: file, label: "--out-file", mode: 0o600)
            if file == .standardOutput { return .success }
        }
        let show = try invocation.value(ConnectCommands.showSecrets)
        var list = FieldList()
        list.add("sid", .string(ConnectText.base64URL(registration.sid)))
        list.add("wallet_uri", .string(registration.walletURI))
        list.add("app_pk", .string(ConnectText.hex(key.publicKey.rawRepresentation)))
        list.add("nonce", .string(ConnectText.hex(nonce)))
        list.add("token_app", ConnectCommands.secretText(registration.tokenApp, show: show))
        list.add("token_wallet", ConnectCommands.secretText(registration.tokenWallet, show: show))
        if let management = registration.tokenManagement { list.add("token_management", ConnectCommands.secretText(management, show: show)) }
        if let relay = registration.tokenRelay { list.add("token_relay", ConnectCommands.secretText(relay, show: show)) }
        if case .path(let path) = try invocation.value(outFile) { list.add("file", .string(path)) }
        return .output(list)
    }
}
