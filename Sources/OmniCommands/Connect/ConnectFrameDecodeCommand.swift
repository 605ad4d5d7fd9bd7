import OmniCLI
import OmniCodec
import OmniConnect

enum ConnectFrameDecodeCommand {
    static let frames = VariadicArgument<String>("FRAME", help: "A frame as hex (or per --input-format); several are read in order.",
                                                 source: .content)
    static let inputFormat = DefaultedOption<InputEncoding>("input-format", valueName: "FORMAT", help: "How FRAME is written.", default: .hex)
    static let key = Option<InputFile>(
        "key-file", valueName: "FILE",
        help: "Traffic keys to decrypt with, readable only by you: 64 hex digits, or the JSON of 'derive-keys --show-secrets' (k_app, k_wallet).",
        environment: "OMNI_CONNECT_KEY_FILE")
    static let receiver = Option<Receiver>("as", valueName: "ROLE",
                                           help: "Check the frames as the stream ROLE receives: direction, strict sequence (replays and gaps refused).")
    static let after = DefaultedOption<UInt64>("after", valueName: "SEQ", help: "With --as: the peer sequence number already seen.", default: 0)
    static let annotate = Flag("annotate", help: "Include every item's byte offset and length in JSON output (text output always shows them).")

    enum InputEncoding: String, CaseIterable, ArgumentValue { case hex, base64, binary }
    enum Receiver: String, CaseIterable, ArgumentValue {
        case app, wallet
        var role: ConnectRole { self == .app ? .app : .wallet }
    }

    static let command = Command(
        "decode", abstract: "Decode frames with byte offsets; decrypt and check them when keys are given.",
        discussion: """
        A truncated or otherwise malformed frame fails with its byte offset (exit 3); a ciphertext that does not \
        authenticate under the key fails (exit 1); with --as, a replayed, out-of-order or misdirected frame fails \
        (exit 1). The frames are a stream: --output jsonl prints one line per frame (what 'frame encode' reads), \
        --output json one array.
        """,
        options: [inputFormat, key, receiver, after, annotate, ConnectCommands.generationOption], arguments: [frames],
        relations: [.requires(after, receiver)],
        examples: [Example("omni connect frame decode @frame.hex", "Every field with its offset."),
                   Example("omni connect frame decode --as wallet --key-file keys.json @f1.hex @f2.hex --output jsonl",
                           "Decrypt a captured stream, refusing replays.")],
        streaming: .always
    ) { invocation in
        let generation = try invocation.value(ConnectCommands.generationOption)
        let codec = ConnectCodec(generation: generation)
        let encoding = try invocation.value(inputFormat)
        let keys = try invocation.value(key).map {
            try ConnectFrameDecodeCommand.keys(try ConnectCommands.secretText(invocation, $0, label: "--key-file"))
        }
        let role = try invocation.value(receiver)?.role
        let withAnnotations = try invocation.value(annotate) || invocation.outputFormat == .text
        let inputs = try frameInputs(invocation, encoding: encoding)
        guard !inputs.isEmpty else { throw CLIError.usage("give at least one FRAME", commandPath: invocation.commandPath) }
        var session: ConnectSession?
        for (index, bytes) in inputs.enumerated() {
            let (decoded, annotations, error) = codec.annotateFrame(bytes)
            guard let frame = decoded else {
                if invocation.outputFormat == .text, !annotations.isEmpty {
                    invocation.emitItem(DecodedFrame(index: index, bytes: bytes, frame: nil, annotations: annotations, envelope: nil,
                                                     showAnnotations: true))
                }
                throw ConnectError(.malformed, "frame \(index + 1): \(error?.description ?? "undecodable")")
            }
            var envelope: ConnectEnvelope?
            if let role {
                if session == nil {
                    var fresh = ConnectSession(role: role, sid: frame.sid, codec: codec)
                    fresh.expectInbound(after: try invocation.value(after))
                    if let keys { fresh.installKeys(keys) }
                    session = fresh
                }
                do {
                    if case .payload(let payload, let sequence) = try session?.receive(bytes) {
                        envelope = ConnectEnvelope(sequence: sequence, payload: payload)
                    }
                } catch let error as ConnectError {
                    throw ConnectError(error.kind, "frame \(index + 1): \(error.message)")
                }
            } else if let keys, case .ciphertext = frame.kind {
                do {
                    envelope = try ConnectCrypto.open(frame, keys: keys, codec: codec)
                } catch let error as ConnectError {
                    throw ConnectError(error.kind, "frame \(index + 1): \(error.message)")
                }
            }
            invocation.emitItem(DecodedFrame(index: index, bytes: bytes, frame: frame, annotations: annotations, envelope: envelope,
                                             showAnnotations: withAnnotations))
        }
        return .success
    }

    /// Each FRAME's bytes: hex or base64 text, or (one frame only) the raw binary.
    static func frameInputs(_ invocation: Invocation, encoding: InputEncoding) throws -> [[UInt8]] {
        if encoding == .binary {
            guard invocation.parsed.positionals.count == 1, let bytes = try invocation.bytes(of: frames) else {
                throw CLIError.usage("--input-format binary takes exactly one FRAME (@FILE or -)", commandPath: invocation.commandPath)
            }
            return [bytes]
        }
        return try invocation.value(frames).enumerated().map { index, text in
            let compact = text.filter { !$0.isWhitespace }
            if encoding == .hex { return try ConnectText.parseHex(compact, what: "FRAME \(index + 1)") }
            let urlSafe = compact.replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
            return try ConnectText.parseBase64URL(urlSafe, what: "FRAME \(index + 1)")
        }
    }

    /// A bare 32-byte key (for either direction) or derive-keys' JSON.
    static func keys(_ text: String) throws -> ConnectDirectionKeys {
        if text.hasPrefix("{") {
            let json = try JSONValue.parse(text, limits: JSONLimits(maxDepth: 4, maxBytes: 64 << 10))
            guard let app = json["k_app"]?.stringValue, let wallet = json["k_wallet"]?.stringValue, app != "<redacted>" else {
                throw ConnectError(.malformed, "the key JSON needs k_app and k_wallet (run derive-keys with --show-secrets)")
            }
            return ConnectDirectionKeys(appToWallet: try ConnectText.parseHex(app, byteCount: 32, what: "k_app"),
                                        walletToApp: try ConnectText.parseHex(wallet, byteCount: 32, what: "k_wallet"))
        }
        let key = try ConnectText.parseHex(text, byteCount: 32, what: "--key")
        return ConnectDirectionKeys(appToWallet: key, walletToApp: key)
    }
}

struct DecodedFrame: Renderable {
    let index: Int
    let bytes: [UInt8]
    let frame: ConnectFrame?
    let annotations: [NoritoAnnotation]
    let envelope: ConnectEnvelope?
    let showAnnotations: Bool

    func text(style: TextStyle) -> String {
        var lines: [String] = []
        if let frame {
            let kind = frame.control.map { "control \($0.name)" } ?? "ciphertext"
            lines.append(style.bold("frame \(index + 1): \(bytes.count) bytes, \(frame.direction) seq \(frame.sequence), \(kind)"))
        } else {
            lines.append(style.bold("frame \(index + 1): \(bytes.count) bytes (undecodable; items read before the error:)"))
        }
        let pathWidth = min(48, annotations.map(\.path.count).max() ?? 0)
        for item in annotations {
            let offset = String(item.offset)
            let range = String(repeating: " ", count: max(0, 5 - offset.count)) + offset + "+" + String(item.length)
            lines.append(style.dim(range.paddingWithSpaces(toLength: 11)) + item.path.paddingWithSpaces(toLength: pathWidth + 2)
                         + item.value)
        }
        if let envelope {
            lines.append(style.good("decrypted: envelope seq \(envelope.sequence): ") + ConnectJSON.payload(envelope.payload).serialized())
        }
        return lines.joined(separator: "\n")
    }

    var json: JSONValue {
        guard let frame, case .object(var object) = ConnectJSON.frame(frame) else { return .null }
        object["length"] = .int(bytes.count)
        if let envelope {
            object["envelope"] = .object(["seq": .string(String(envelope.sequence)), "payload": ConnectJSON.payload(envelope.payload)])
        }
        if showAnnotations {
            object["annotations"] = .array(annotations.map { item in
                .object(["offset": .int(item.offset), "length": .int(item.length), "path": .string(item.path), "value": .string(item.value)])
            })
        }
        return .object(object)
    }
}
