import OmniCLI
import OmniConnect

enum ConnectAppSignTxCommand {
    static let tx = RequiredOption<InputFile>("tx-file", valueName: "FILE", help: "The canonical transaction payload bytes; - reads stdin.")

    static let command = Command(
        "sign-tx", abstract: "Ask the wallet to sign a transaction payload.",
        discussion: "The returned signature is checked over Iroha's Hash(payload): BLAKE2b-256 with the last bit set.",
        options: ConnectAppFlow.options + [tx], relations: ConnectAppFlow.relations,
        examples: [Example("omni connect app --node http://127.0.0.1:8080 --network-id 4141414141414141414141414141414141414141414141414141414141414141 sign-tx --tx-file payload.bin",
                           "Prints the verified signature.")],
        streaming: .always
    ) { invocation in
        let bytes = try invocation.read(try invocation.value(tx), label: "--tx-file")
        return try ConnectAppFlow.run(invocation, request: .transaction(txBytes: bytes))
    }
}
