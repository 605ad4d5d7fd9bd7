import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectSessionStatusCommand {
    static let sid = Option<ConnectSIDValue>("sid", valueName: "SID", help: "The session id (base64url or hex).",
                                             absentMeans: "the sid in the --management-token-file JSON; gen-a: the node's aggregate status")
    static let managementToken = Option<InputFile>(
        "management-token-file", valueName: "FILE",
        help: "gen-b: the session's management token, or the JSON 'session create --out-file' wrote; readable only by you; - reads stdin.",
        environment: "OMNI_CONNECT_MANAGEMENT_TOKEN_FILE")

    static let command = Command(
        "status", abstract: "Show a session's status (GET /v1/connect/status).",
        options: [ConnectCommands.node, sid, managementToken, ConnectCommands.generationOption],
        examples: [Example("omni connect session status --node http://127.0.0.1:8080 --management-token-file session.json",
                           "Attachment, approval and sequence counters of one session.")]
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        let client = try ToriiConnectClient(node: try invocation.value(ConnectCommands.node), generation: generation,
                                            http: ConnectCommands.httpClient())
        let (sidBytes, token) = try target(invocation, generation: generation)
        return .output(SessionStatus(json: try client.status(sid: sidBytes, managementToken: token)))
    }

    /// The sid (from --sid or the saved session) and the management token (bare, or from the saved JSON).
    static func target(_ invocation: Invocation, generation: ConnectGeneration) throws -> ([UInt8]?, String?) {
        var token: String?
        var savedSID: String?
        if let file = try invocation.value(managementToken) {
            let secret = try ConnectCommands.secretText(invocation, file, label: "--management-token-file")
            token = secret
            if secret.hasPrefix("{") {
                let saved: JSONValue
                do {
                    saved = try JSONValue.parse(secret, limits: JSONLimits(maxDepth: 4, maxBytes: 64 << 10))
                } catch {
                    throw error.labelled("--management-token-file \(file.displayName)")
                }
                guard let management = saved["token_management"]?.stringValue else {
                    throw ConnectError(.malformed, "--management-token-file \(file.displayName): the session JSON has no token_management (a gen-a session?)")
                }
                token = management
                savedSID = saved["sid"]?.stringValue
            }
        }
        var sidBytes = try invocation.value(sid)?.bytes
        if sidBytes == nil, let savedSID {
            sidBytes = try ConnectText.parseBytes(savedSID, byteCount: 32, what: "the sid in --management-token-file")
        }
        if generation == .genB {
            guard sidBytes != nil else { throw CLIError.usage("missing --sid (or a session JSON in --management-token-file)", commandPath: invocation.commandPath) }
            guard token != nil else {
                throw CLIError.usage("gen-b needs --management-token-file FILE (or OMNI_CONNECT_MANAGEMENT_TOKEN_FILE)", commandPath: invocation.commandPath)
            }
        }
        return (sidBytes, token)
    }
}

/// A node's status answer: one field per line for people (nested values as compact JSON), the JSON as received.
struct SessionStatus: Renderable {
    let json: JSONValue

    func text(style: TextStyle) -> String {
        guard case .object(let object) = json else { return json.serialized() }
        var list = FieldList()
        for (key, value) in object { list.add(key, value) }
        return list.text(style: style)
    }
}
