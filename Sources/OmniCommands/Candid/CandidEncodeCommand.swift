import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid encode`: Candid text (or JSON with types) to a binary message.
enum CandidEncodeCommand {
    static let valuesArgument = OptionalArgument<String>(
        "VALUES", help: "The argument list as Candid text, e.g. '(42 : nat, \"hi\")', or JSON with --input-format json; "
            + "read from stdin when omitted.",
        source: .content)
    static let input = DefaultedOption<InputFormat>("input-format", short: "i", valueName: "FORMAT",
                                                    help: "How VALUES are written: candid text, or json (needs types).", default: .candid)
    static let format = DefaultedOption<MessageFormat>(
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
            numbers float64 unless annotated ('(42 : nat)'). A vector's elements share the least type that \
            keeps each of them whole: null and opt T give opt T, nat and int give int, variants take every case; \
            elements with no such type are refused, naming two that differ. With --types or --did/--method, values take the \
            expected types as didc does (5 is a nat8 where a nat8 is expected; missing trailing optional \
            arguments are null) and record fields are checked by name.
            """,
        options: [input, format] + CandidTypeOptions.all + [force],
        arguments: [valuesArgument],
        relations: CandidTypeOptions.relations,
        examples: [
            Example("omni candid encode '(42 : nat, \"hi\")'", "Prints 4449444c00027d712a026869."),
            Example("omni candid encode --types '(record { owner : principal; amount : nat })' "
                    + "'(record { owner = principal \"aaaaa-aa\"; amount = 5 })'", "Encode at explicit types."),
            Example("omni candid encode --did ledger.did --method icrc1_balance_of --input-format json '[{\"owner\": \"aaaaa-aa\"}]'",
                    "Encode a method's arguments from JSON."),
            Example("omni candid encode '(\"hi\")' --format binary > message.bin", "Write the raw bytes to a file."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let inputFormat = try invocation.value(input)
        let messageFormat = try invocation.value(format)
        if messageFormat == .binary && invocation.outputFormat.isJSON {
            throw CLIError.usage("--format binary writes raw bytes; it cannot be combined with --output json", commandPath: path)
        }
        let isForced = try invocation.value(force)
        if messageFormat == .binary && invocation.streams.stdoutIsTerminal && !isForced {
            throw CLIError.usage("refusing to write binary to a terminal; redirect stdout (> message.bin), "
                                 + "use --format hex, or add --force", commandPath: path)
        }
        let resolved = try CandidTypeOptions.resolve(invocation, allowReturns: false)
        if inputFormat == .json && resolved == nil {
            throw CLIError.usage("--input-format json needs types: give --types '(…)' or --did FILE --method NAME", commandPath: path)
        }
        // Offline inputs are all read before anything is encoded; bytes stay bytes until a strict parser reads them.
        let bytes = try invocation.bytes(of: valuesArgument) ?? invocation.read(.standardInput, label: "VALUES")
        let source = invocation.word(of: valuesArgument) == nil ? "<stdin>" : invocation.sourceName(of: valuesArgument)
        let environment = resolved?.environment ?? CandidTypeEnvironment()
        let values: [CandidValue]
        switch inputFormat {
        case .candid:
            do throws(CandidError) {
                values = try Candid.parseArguments(utf8: bytes, types: resolved?.types, environment: environment)
            } catch { throw error.labelled(source) }
        case .json:
            let json: JSONValue
            do throws(CodecError) { json = try JSONValue.parse(bytes) } catch { throw error.labelled(source ?? "VALUES") }
            values = try Candid.arguments(fromJSON: json, types: resolved?.types ?? [], environment: environment)
        }
        let message = try Candid.encode(values, types: resolved?.types, environment: environment)
        if messageFormat == .binary {
            try invocation.write(message, to: .standardOutput, label: "stdout")
            return .success
        }
        return .output(EncodedMessage(bytes: message, format: messageFormat))
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
