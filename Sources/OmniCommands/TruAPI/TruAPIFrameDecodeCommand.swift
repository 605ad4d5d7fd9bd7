import OmniCLI
import OmniCodec
import OmniTruAPI

/// `omni truapi frame decode`: frame bytes to JSON with the method and the decoded payload.
enum TruAPIFrameDecodeCommand {
    static let frame = OptionalArgument<String>(
        "FRAME", help: "The frame (or with --payload-only the payload): hex by default (whitespace and 0x are ignored); "
            + "read from stdin when omitted.",
        source: .content)
    static let input = DefaultedOption<TruAPICommands.ByteEncoding>(
        "input-format", valueName: "FORMAT", help: "How FRAME is written: hex, base64, or binary (raw bytes from @FILE or -).",
        default: .hex)
    static let envelopeOnly = Flag("envelope-only", help: "Read only the request id and wire id; leave the payload as hex.")

    static let command = Command(
        "decode", abstract: "Decode a frame: request id, method, kind and the payload as JSON.",
        discussion: """
            The payload is read at the method's types and printed in the JSON mapping of 'omni help truapi-json'. \
            A frame that does not decode fails with the byte offset and the field path (exit 3), e.g. 'byte 11, at \
            $.payload.V1.product_account_id.derivation_index.Index'; so do bytes left after the payload. With \
            --envelope-only the payload is not read (for frames of another protocol version).
            """,
        options: [input, TruAPICommands.payloadOnly, TruAPICommands.method, TruAPICommands.kind, envelopeOnly],
        arguments: [frame],
        relations: [.requires(TruAPICommands.payloadOnly, TruAPICommands.method),
                    .requires(TruAPICommands.method, TruAPICommands.payloadOnly),
                    .requires(TruAPICommands.kind, TruAPICommands.payloadOnly),
                    .conflicting(TruAPICommands.payloadOnly, envelopeOnly)],
        examples: [
            Example("omni truapi frame decode 0c703a31000001", "A handshake request from p:1."),
            Example("omni truapi frame decode --input-format binary --output json @frame.bin", "Raw bytes from a file, as JSON."),
            Example("omni truapi frame decode --payload-only --method theme_subscribe --kind receive 000101",
                    "A bare receive payload: {\"name\": \"Default\", \"variant\": \"Dark\"}."),
        ]
    ) { invocation in
        let bytes = try frameBytes(invocation)
        if try invocation.value(TruAPICommands.payloadOnly) {
            let (method, kind) = try TruAPICommands.methodAndKind(invocation)
            let (payload, _) = try TruAPIMessage.decodePayload(bytes, method: method, kind: kind, strict: true)
            let message = TruAPIMessage(requestID: "", method: method, kind: kind, payload: payload)
            var json = try TruAPIJSON.json(message, payloadBytes: bytes).objectValue ?? JSONObject()
            json["request_id"] = nil
            return .output(DecodedTruAPIFrame(json: .object(json), payloadOnly: true))
        }
        let envelope = try TruAPIFrame.decode(bytes)
        if try invocation.value(envelopeOnly) {
            var object = JSONObject()
            object.append("request_id", .string(envelope.requestID))
            object.append("discriminant", .int(envelope.discriminant))
            object.append("method", envelope.wireEntry.map { .string($0.method.name) } ?? .null)
            object.append("kind", envelope.wireEntry.map { .string($0.kind.rawValue) } ?? .null)
            object.append("payload_hex", .string("0x" + Hex.encode(envelope.payload)))
            return .output(DecodedTruAPIFrame(json: .object(object), payloadOnly: false))
        }
        guard envelope.wireEntry != nil else {
            throw TruAPIError(.malformed, "byte \(envelope.payloadOffset - 1): wire id \(envelope.discriminant) names no method "
                              + "(see 'omni truapi methods'; --envelope-only prints the frame anyway)")
        }
        let message = try TruAPIMessage.decode(envelope, frameBytes: bytes, strict: true)
        return .output(DecodedTruAPIFrame(json: try TruAPIJSON.json(message, payloadBytes: envelope.payload), payloadOnly: false))
    }

    /// FRAME's bytes in the --input-format encoding.
    static func frameBytes(_ invocation: Invocation) throws -> [UInt8] {
        let format = try invocation.value(input)
        if format == .binary, let word = invocation.word(of: frame), word != "-", invocation.sourceName(of: frame) == nil {
            throw CLIError.usage("--input-format binary reads raw bytes: give FRAME as @FILE or - (stdin)", commandPath: invocation.commandPath)
        }
        let given = try invocation.bytes(of: frame) ?? invocation.read(.standardInput, label: "FRAME")
        switch format {
        case .binary:
            return given
        case .hex:
            let text = try UTF8Validation.string(given).filter { !$0.isWhitespace }
            do { return try Hex.decode(text, allowPrefix: true) } catch { throw error.labelled("FRAME") }
        case .base64:
            let text = try UTF8Validation.string(given).filter { !$0.isWhitespace }
            do { return try Base64.decode(text) } catch { throw error.labelled("FRAME") }
        }
    }
}

struct DecodedTruAPIFrame: Renderable {
    let json: JSONValue
    let payloadOnly: Bool

    func text(style: TextStyle) -> String {
        var list = FieldList()
        if !payloadOnly {
            list.add("request_id", json["request_id"] ?? .null, label: "request id")
            list.add("discriminant", json["discriminant"] ?? .null, label: "wire id")
        }
        list.add("method", json["method"] ?? .null)
        list.add("kind", json["kind"] ?? .null)
        if let payload = json["payload"] { list.add("payload", payload, text: payload.serialized(pretty: true)) }
        list.add("payload_hex", json["payload_hex"] ?? .null, label: "payload hex")
        if let trailing = json["trailing_bytes"] { list.add("trailing_bytes", trailing, label: "trailing bytes") }
        return list.text(style: style)
    }
}
