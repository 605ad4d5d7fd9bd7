import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid encode`: Candid text (or JSON with types) to a binary message.
enum CandidEncodeCommand {
    static let valuesArgument = Argument<String>(
        "VALUES", help: "The argument list as Candid text, e.g. '(42 : nat, \"hi\")', or JSON with --input json; "
            + "read from stdin when omitted.",
        optional: true, source: .content)
    static let input = Option<InputFormat>("input", short: "i", valueName: "FORMAT",
                                           help: "How VALUES are written: candid text, or json (needs types).", default: .candid)
    static let format = Option<MessageFormat>(
        "format", short: "f", valueName: "FORMAT",
        help: "How to print the message: hex, binary (raw bytes; not to a terminal unless --force), or blob "
            + "(a Candid blob literal).",
        default: .hex)
    static let force = Flag("force", help: "Write --format binary even when stdout is a terminal.")

    enum InputFormat: String, CaseIterable, ArgumentValue { case candid, json }
    enum MessageFormat: String, CaseIterable, ArgumentValue { case hex, binary, blob }

    static let command = Command(
        "encode", abstract: "Encode Candid values as a binary message (hex by default).",
        discussion: """
            Without types, each value is encoded at the type its text gives it: integers are int and other \
            numbers float64 unless annotated ('(42 : nat)'). With --types or --did/--method, values take the \
            expected types as didc does (5 is a nat8 where a nat8 is expected; missing trailing optional \
            arguments are null) and record fields are checked by name.
            """,
        options: [input, format] + CandidTypeOptions.all + [force],
        arguments: [valuesArgument.spec],
        examples: [
            Example("omni candid encode '(42 : nat, \"hi\")'", "Prints 4449444c00027d712a026869."),
            Example("omni candid encode --types '(record { owner : principal; amount : nat })' "
                    + "'(record { owner = principal \"aaaaa-aa\"; amount = 5 })'", "Encode at explicit types."),
            Example("omni candid encode --did ledger.did --method icrc1_balance_of --input json '[{\"owner\": \"aaaaa-aa\"}]'",
                    "Encode a method's arguments from JSON."),
            Example("omni candid encode '(\"hi\")' --format binary > message.bin", "Write the raw bytes to a file."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let inputFormat = try invocation.value(input) ?? .candid
        let messageFormat = try invocation.value(format) ?? .hex
        let isForced = try invocation.flag(force)
        if messageFormat == .binary && invocation.outputFormat == .json {
            throw CLIError.usage("--format binary writes raw bytes; it cannot be combined with --output json", commandPath: path)
        }
        if messageFormat == .binary && invocation.streams.stdoutIsTerminal && !isForced {
            throw CLIError.usage("refusing to write binary to a terminal; redirect stdout (> message.bin), "
                                 + "use --format hex, or add --force", commandPath: path)
        }
        let resolved = try CandidTypeOptions.resolve(invocation, allowReturns: false)
        let text = try readValues(invocation)
        let source = CandidTypeOptions.sourceName(of: invocation.parsed.positionals.first)
        let values: [CandidValue]
        switch inputFormat {
        case .candid:
            do throws(CandidError) {
                values = try Candid.parseArguments(text, types: resolved?.types, environment: resolved?.environment ?? CandidTypeEnvironment())
            } catch { throw error.labelled(source) }
        case .json:
            guard let resolved else {
                throw CLIError.usage("--input json needs types: give --types '(…)' or --did FILE --method NAME", commandPath: path)
            }
            let json = try JSONValue.parse(text)
            values = try Candid.arguments(fromJSON: json, types: resolved.types, environment: resolved.environment)
        }
        let message = try Candid.encode(values, types: resolved?.types, environment: resolved?.environment ?? CandidTypeEnvironment())
        if messageFormat == .binary {
            invocation.streams.outBytes(message)
            return .success
        }
        return .output(EncodedMessage(bytes: message, format: messageFormat))
    }

    /// VALUES, or all of stdin when it is omitted.
    static func readValues(_ invocation: Invocation) throws -> String {
        if let text = try invocation.argument(valuesArgument) { return text }
        if invocation.streams.stdinIsTerminal {
            throw CLIError.usage("missing VALUES: give them as an argument, @FILE, or pipe them in", commandPath: invocation.commandPath)
        }
        return String(decoding: try invocation.streams.stdinBytes(), as: UTF8.self)
    }

    struct EncodedMessage: Renderable {
        let bytes: [UInt8]
        let format: MessageFormat

        func text(style: TextStyle) -> String {
            format == .blob ? Candid.blobLiteral(bytes) : Hex.encode(bytes)
        }

        var json: JSONValue {
            var object = JSONObject()
            object["hex"] = .string(Hex.encode(bytes))
            object["length"] = .int(bytes.count)
            if format == .blob { object["blob"] = .string(Candid.blobLiteral(bytes)) }
            return .object(object)
        }
    }
}
