import OmniCLI
import OmniCodec
import OmniTruAPI

/// `omni truapi frame encode`: a JSON frame description to bytes.
enum TruAPIFrameEncodeCommand {
    static let description = Argument<String>(
        "JSON", help: "The frame as 'frame decode --output json' prints it: request_id, method and kind (or discriminant), "
            + "payload (literal, @FILE or -).",
        source: .content)

    static let command = Command(
        "encode", abstract: "Encode a frame from its JSON description; prints hex (or base64, or the raw bytes).",
        discussion: """
            The payload is written in the JSON mapping of 'omni help truapi-json' and checked against the method's \
            types, so a misspelt field or a number out of range fails with its JSON path (exit 3). kind defaults to \
            request (start for a subscription). With --payload-only only the payload is encoded and request_id may \
            be left out.
            """,
        options: [TruAPICommands.payloadOnly],
        arguments: [description],
        examples: [
            Example(#"omni truapi frame encode '{"request_id":"p:1","method":"system_handshake","payload":{"codec_version":1}}'"#,
                    "Prints 0c703a31000001."),
            Example(#"omni truapi frame encode --output base64 '{"request_id":"p:2","method":"account_connection_status_subscribe"}'"#,
                    "A subscription start, as base64."),
            Example("omni truapi frame decode --output json @frame.hex | omni truapi frame encode --output raw - > frame.bin",
                    "Round trip through JSON to raw bytes."),
        ],
        outputAliases: [OutputAlias("hex", as: .text, meaning: "the bytes as hex, the default"),
                        OutputAlias("base64", as: .text, meaning: "the bytes as base64"),
                        OutputAlias("raw", as: .text, meaning: "the bytes themselves")]
    ) { invocation in
        let text = try invocation.text(of: description) ?? ""
        var json = try JSONValue.parse(text, limits: JSONLimits(maxDepth: 200, maxBytes: 24 << 20))
        let payloadOnly = try invocation.value(TruAPICommands.payloadOnly)
        if payloadOnly, case .object(var object) = json, object["request_id"] == nil {
            object["request_id"] = .string("")
            json = .object(object)
        }
        let frame = try TruAPIJSON.frame(from: json)
        let bytes = payloadOnly ? frame.payload : frame.bytes
        switch invocation.outputAlias?.name {
        case "raw":
            if invocation.streams.stdoutIsTerminal {
                throw CLIError.usage("--output raw writes binary: redirect stdout to a file or a pipe", commandPath: invocation.commandPath)
            }
            try invocation.write(bytes, to: .standardOutput, label: "frame")
            return .success
        case "base64":
            return .output(SimpleOutput(text: Base64.encode(bytes), json: .null))
        default:
            var object = JSONObject()
            object.append(payloadOnly ? "payload_hex" : "frame_hex", .string(Hex.encode(bytes)))
            object.append("length", .int(bytes.count))
            return .output(SimpleOutput(text: Hex.encode(bytes), json: .object(object)))
        }
    }
}
