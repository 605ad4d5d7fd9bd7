import OmniCLI
import OmniConnect

enum ConnectAppSignRawCommand {
    static let domainTag = RequiredOption<String>("domain-tag", valueName: "TAG", help: "The signing domain label the wallet must allow.")
    static let data = RequiredOption<String>("data", valueName: "DATA", help: "The bytes to sign.",
                                             source: .content)

    static let command = Command(
        "sign-raw", abstract: "Ask the wallet to sign raw bytes under a domain tag.",
        options: ConnectAppFlow.options + [domainTag, data], relations: ConnectAppFlow.relations,
        examples: [Example("omni connect app --node http://127.0.0.1:8080 --network-id 4141414141414141414141414141414141414141414141414141414141414141 --output jsonl sign-raw --domain-tag 'omni|demo' --data @msg.bin",
                           "JSON lines: session, …, result with the verified signature.")],
        streaming: .always
    ) { invocation in
        let tag = try invocation.value(domainTag)
        // Exact bytes (binary data is not text); absent only when not given, as no fallback applies.
        guard let bytes = try invocation.bytes(of: data) else {
            throw CLIError.usage("missing required option --data DATA", commandPath: invocation.commandPath)
        }
        return try ConnectAppFlow.run(invocation, request: .raw(domainTag: tag, bytes: bytes))
    }
}
