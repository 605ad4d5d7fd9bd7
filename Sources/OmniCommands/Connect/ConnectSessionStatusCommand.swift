import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectSessionStatusCommand {
    static let sid = Option<String>("sid", valueName: "SID", help: "The session id (base64url); gen-a shows the node's aggregate status without it.")
    static let managementToken = Option<String>(
        "management-token", valueName: "@FILE",
        help: "gen-b: the session's management token, or the JSON 'session create --save' wrote, as @FILE or -.",
        environment: "OMNI_CONNECT_MANAGEMENT_TOKEN", source: .content)

    static let command = Command(
        "status", abstract: "Show a session's status (GET /v1/connect/status).",
        options: [ConnectCommands.node, sid, managementToken, ConnectCommands.generationOption],
        examples: [Example("omni connect session status --node http://127.0.0.1:8080 --sid … --management-token @session.json",
                           "Attachment, approval and sequence counters of one session.")]
    ) { invocation in
        let generation = try ConnectCommands.generation(invocation)
        let client = try ToriiConnectClient(node: try ConnectCommands.requireNode(invocation), generation: generation, http: ConnectCommands.httpClient())
        let (sidBytes, token) = try target(invocation, sidOption: sid, tokenOption: managementToken, generation: generation)
        let status = try client.status(sid: sidBytes, managementToken: token)
        return .output(SimpleOutput(text: status.serialized(pretty: true), json: status))
    }

    /// The sid (from --sid or the saved session) and the management token (bare, or from the saved JSON).
    static func target(_ invocation: Invocation, sidOption: Option<String>, tokenOption: Option<String>,
                       generation: ConnectGeneration) throws -> ([UInt8]?, String?) {
        let secret = try ConnectCommands.secret(invocation, tokenOption)
        var token = secret
        var savedSID: String?
        if let secret, secret.hasPrefix("{") {
            let saved = try JSONValue.parse(secret, limits: JSONLimits(maxDepth: 4, maxBytes: 64 << 10))
            token = saved["token_management"]?.stringValue
            savedSID = saved["sid"]?.stringValue
        }
        let sidText = try invocation.value(sidOption) ?? savedSID
        let sidBytes = try sidText.map { try ConnectText.parseBytes($0, byteCount: 32, what: "--sid") }
        if generation == .genB {
            guard sidBytes != nil else { throw CLIError.usage("missing --sid", commandPath: invocation.commandPath) }
            guard token != nil else {
                throw CLIError.usage("missing --management-token @FILE (or OMNI_CONNECT_MANAGEMENT_TOKEN)", commandPath: invocation.commandPath)
            }
        }
        return (sidBytes, token)
    }
}
