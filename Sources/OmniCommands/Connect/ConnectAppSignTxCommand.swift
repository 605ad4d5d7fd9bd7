import OmniCLI
import OmniConnect

enum ConnectAppSignTxCommand {
    static let tx = Option<String>("tx", valueName: "@FILE", help: "The canonical transaction payload bytes (@FILE or -).", source: .content)

    static let command = Command(
        "sign-tx", abstract: "Ask the wallet to sign a transaction payload.",
        discussion: "The returned signature is checked over Iroha's Hash(payload): BLAKE2b-256 with the last bit set.",
        options: ConnectAppFlow.options + [tx],
        examples: [Example("omni connect app --node http://127.0.0.1:8080 --network-id 4141…41 sign-tx --tx @payload.bin",
                           "Prints the verified signature.")]
    ) { invocation in
        guard let bytes = try invocation.bytes(of: tx) else {
            throw CLIError.usage("missing --tx @FILE (or -)", commandPath: invocation.commandPath)
        }
        return try ConnectAppFlow.run(invocation, request: .transaction(txBytes: bytes))
    }
}
