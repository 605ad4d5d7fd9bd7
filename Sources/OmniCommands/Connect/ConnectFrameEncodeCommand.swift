import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectFrameEncodeCommand {
    static let description = Argument<String>("JSON", help: "The frame as 'frame decode --output jsonl' prints it.",
                                              source: .content)

    static let command = Command(
        "encode", abstract: "Encode a frame from its JSON description (sealing 'payload' with --key-file).",
        discussion: """
        The JSON has sid, dir, seq and one of: control {type: open|approve|reject|close|ping|pong|server_event, …}, \
        ciphertext {aead} (sent as given), or payload {type: sign_request_raw|…} which is encrypted with --key-file. Prints \
        the frame as hex.
        """,
        options: [ConnectFrameDecodeCommand.key, ConnectCommands.generationOption], arguments: [description],
        examples: [Example("omni connect frame encode '{\"sid\":\"NYWJG9y5e88ugmF2QZQP7dTCwL6UbSG2A8YNvPpX9LI\",\"dir\":\"app_to_wallet\",\"seq\":\"2\",\"control\":{\"type\":\"ping\",\"nonce\":\"7\"}}'",
                           "A Ping frame.")]
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        let json = try JSONValue.parse(try invocation.value(description), limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20))
        let keys = try invocation.value(ConnectFrameDecodeCommand.key).map {
            try ConnectFrameDecodeCommand.keys(try ConnectCommands.secretText(invocation, $0, label: "--key-file"))
        }
        let frame = try ConnectJSON.frame(from: json, generation: generation, keys: keys)
        let bytes = ConnectCodec(generation: generation).encode(frame)
        let hex = ConnectText.hex(bytes)
        return .output(SimpleOutput(text: hex, json: .object(["frame": .string(hex), "length": .int(bytes.count)])))
    }
}
