import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectURIParseCommand {
    static let uri = Argument<String>("URI", help: "The deep link.", source: .content)

    static let command = Command(
        "parse", abstract: "Validate a deep link with the strict wallet rules and print its fields.",
        discussion: """
        gen-b rules: scheme irohaconnect or iroha, host connect, no path, user, port or fragment, at most 4096 bytes, \
        exactly the fields sid, network_id, app_pk, nonce, v=1, role, node, token, relay (no duplicates), canonical \
        base64url, 32-byte token and relay token, and a sid that matches network_id, app_pk and nonce.
        """,
        options: [ConnectCommands.generationOption, ConnectCommands.showSecrets], arguments: [uri],
        examples: [Example("omni connect uri parse @wallet-uri.txt --output json", "Fields of a wallet URI (tokens redacted).")]
    ) { invocation in
        let parsed = try ConnectURI(parsing: try invocation.value(uri), generation: try invocation.value(ConnectCommands.generationOption))
        let show = try invocation.value(ConnectCommands.showSecrets)
        var list = FieldList()
        list.add("generation", .string(parsed.generation.rawValue))
        list.add("scheme", .string(parsed.scheme))
        list.add("role", .string(parsed.role.description))
        list.add("sid", .string(parsed.sidText))
        switch parsed.constraints {
        case .network(let network): list.add("network_id", .string(network.typedLiteral))
        case .chain(let chain): list.add("chain_id", .string(chain))
        }
        if let key = parsed.appPublicKey { list.add("app_pk", .string(ConnectText.hex(key))) }
        if let nonce = parsed.nonce { list.add("nonce", .string(ConnectText.hex(nonce))) }
        list.add("node", parsed.node.map { .string($0) } ?? .null)
        list.add("websocket_url", parsed.node == nil ? .null : .string(try parsed.webSocketURL()))
        list.add("token", ConnectCommands.secretText(parsed.token, show: show))
        if let relay = parsed.relayToken { list.add("relay_token", ConnectCommands.secretText(relay, show: show)) }
        return .output(list)
    }
}
