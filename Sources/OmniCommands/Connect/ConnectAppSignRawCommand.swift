import OmniCLI
import OmniConnect

enum ConnectAppSignRawCommand {
    static let domainTag = Option<String>("domain-tag", valueName: "TAG", help: "The signing domain label the wallet must allow.")
    static let data = Option<String>("data", valueName: "@FILE", help: "The bytes to sign (literal, @FILE or -).", source: .content)

    static let command = Command(
        "sign-raw", abstract: "Ask the wallet to sign raw bytes under a domain tag.",
        options: ConnectAppFlow.options + [domainTag, data],
        examples: [Example("omni connect app --node http://127.0.0.1:8080 --network-id 4141…41 --output json sign-raw --domain-tag omni|demo --data @msg.bin",
                           "JSON lines: session, …, result with the verified signature.")]
    ) { invocation in
        let tag = try invocation.require(domainTag)
        guard let bytes = try invocation.bytes(of: data) else {
            throw CLIError.usage("missing --data (literal, @FILE or -)", commandPath: invocation.commandPath)
        }
        return try ConnectAppFlow.run(invocation, request: .raw(domainTag: tag, bytes: bytes))
    }
}
