import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectSessionDeleteCommand {
    static let command = Command(
        "delete", abstract: "Delete a session (DELETE /v1/connect/session/{sid}); attached peers get Close 4002.",
        discussion: "A session the node no longer knows (404) counts as deleted, as the SDKs treat it.",
        options: [ConnectCommands.node, ConnectSessionStatusCommand.sid, ConnectSessionStatusCommand.managementToken,
                  ConnectCommands.generationOption],
        examples: [Example("omni connect session delete --node http://127.0.0.1:8080 --management-token-file session.json",
                           "Purge the session saved by 'session create --out-file'.")]
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        let client = try ToriiConnectClient(node: try invocation.value(ConnectCommands.node), generation: generation,
                                            http: ConnectCommands.httpClient())
        let (sidBytes, token) = try ConnectSessionStatusCommand.target(invocation, generation: generation)
        guard let sidBytes else { throw CLIError.usage("missing --sid", commandPath: invocation.commandPath) }
        let existed = try client.deleteSession(sid: sidBytes, managementToken: token)
        let sidText = ConnectText.base64URL(sidBytes)
        return .output(SimpleOutput(text: existed ? "deleted \(sidText)" : "\(sidText) was already gone",
                                    json: .object(["sid": .string(sidText), "deleted": .bool(true), "existed": .bool(existed)])))
    }
}
