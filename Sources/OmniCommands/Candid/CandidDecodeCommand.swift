import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid decode`: a binary message to Candid text or JSON.
enum CandidDecodeCommand {
    static let message = OptionalArgument<String>(
        "MESSAGE", help: "The message: hex by default (whitespace and a 0x prefix are ignored); read from stdin when omitted.",
        source: .content)
    static let input = DefaultedOption<InputFormat>(
        "input-format", short: "i", valueName: "FORMAT",
        help: "How MESSAGE is written: hex, binary (raw bytes from @FILE or -), or blob (a Candid blob \"…\" literal).",
        default: .hex)
    static let compact = Flag("compact", help: "Print the values on one line instead of wrapping at 80 columns.")

    enum InputFormat: String, CaseIterable, ArgumentValue { case hex, binary, blob }

    static let command = Command(
        "decode", abstract: "Decode a binary Candid message and print its values.",
        discussion: """
            Prints Candid text by default, or the JSON mapping with --output json (see 'omni help candid-json'). \
            With --types or --did/--method the values are read at those types with the spec's subtyping rules \
            (extra record fields skipped, missing optional ones null) and records show field names. Without types \
            the message's own types are used, and record fields can only show their hash numbers.
            """,
        options: [input] + CandidTypeOptions.all + [CandidTypeOptions.returns, compact, CandidLimitOptions.workBudget],
        arguments: [message],
        relations: CandidTypeOptions.relations + [CandidTypeOptions.returnsRelation],
        examples: [
            Example("omni candid decode 4449444c00027d712a026869", "Prints (42 : nat, \"hi\")."),
            Example("omni candid decode --did ledger.did --method icrc1_transfer --returns @reply.hex",
                    "Decode a reply with the method's result types, so fields have names."),
            Example("omni candid decode --input-format binary --output json - < message.bin", "Raw bytes from stdin to JSON."),
            Example("omni candid decode --input-format blob 'blob \"DIDL\\00\\01\\71\\02hi\"'", "Decode a blob literal."),
        ],
        outputAliases: [OutputAlias("candid", as: .text, meaning: "Candid text, the default")]
    ) { invocation in
        let path = invocation.commandPath
        let format = try invocation.value(input)
        let limits = try CandidLimitOptions.limits(invocation)
        let resolved = try CandidTypeOptions.resolve(invocation, allowReturns: true)
        if format == .binary, let word = invocation.word(of: message), word != "-", invocation.sourceName(of: message) == nil {
            throw CLIError.usage("--input-format binary reads raw bytes: give MESSAGE as @FILE or - (stdin)", commandPath: path)
        }
        let given = try invocation.bytes(of: message) ?? invocation.read(.standardInput, label: "MESSAGE")
        let bytes: [UInt8]
        switch format {
        case .hex: bytes = try decodeHex(given)
        case .binary: bytes = given
        case .blob:
            let source = invocation.word(of: message) == nil ? "<stdin>" : invocation.sourceName(of: message)
            bytes = try decodeBlobLiteral(given, source: source)
        }
        let values: [CandidValue]
        if let resolved {
            var warnings: [CandidWarning] = []
            values = try Candid.decode(bytes, types: resolved.types, environment: resolved.environment, limits: limits, warnings: &warnings)
            warnings.forEach { invocation.note("warning: \($0)") }
        } else {
            values = try Candid.decode(bytes, limits: limits)
            if values.contains(where: \.hasHashedLabels) {
                invocation.note("note: without types, record fields and variant cases show hash numbers ('omni candid hash NAME' "
                                + "computes them); give --types or --did FILE --method NAME to see the names")
            }
        }
        if invocation.verbose, let (types, environment) = try? Candid.messageTypes(bytes, limits: limits) {
            let definitions = environment.all.map { "type \($0.name) = \(Candid.print($0.type, style: .compact));" }
            invocation.detail("message types: " + (definitions + [Candid.print(argumentTypes: types.map { CandidArgument($0) }, style: .compact)])
                .joined(separator: " "))
        }
        return .output(CandidValuesOutput(values: values, compact: try invocation.value(compact)))
    }

    /// Hex digits with any whitespace (e.g. `xxd -p` line breaks) and an optional `0x`; errors give the offset in
    /// the text as written.
    static func decodeHex(_ text: [UInt8]) throws -> [UInt8] {
        var digits: [UInt8] = []
        var offsets: [Int] = []
        digits.reserveCapacity(text.count)
        var start = 0
        while start < text.count, isSpace(text[start]) { start += 1 }
        if text.count - start >= 2, text[start] == UInt8(ascii: "0"), text[start + 1] | 0x20 == UInt8(ascii: "x") { start += 2 }
        for index in start..<max(start, text.count) where !isSpace(text[index]) {
            digits.append(text[index])
            offsets.append(index)
        }
        if digits.isEmpty { throw CodecError(.malformed, format: "hex", "the message is empty") }
        // The usual mix-ups: a binary message or a blob literal given as hex.
        if digits.starts(with: Array("DIDL".utf8)) {
            throw CodecError(.malformed, format: "hex", "MESSAGE is a binary message (it starts with DIDL): add --input-format binary", offset: 0)
        }
        if digits.starts(with: Array("blob".utf8)) || digits.first == UInt8(ascii: "\"") {
            throw CodecError(.malformed, format: "hex", "MESSAGE is a Candid blob literal: add --input-format blob", offset: 0)
        }
        do {
            return try Hex.decode(utf8: digits)
        } catch {
            let offset = error.offset.map { $0 < offsets.count ? offsets[$0] : text.count }
            throw CodecError(error.kind, format: "hex", "MESSAGE: " + error.message, offset: offset)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// `blob "\44\49…"`; the `blob` keyword may be left out.
    static func decodeBlobLiteral(_ text: [UInt8], source: String?) throws -> [UInt8] {
        var literal = Array(text.drop { $0 == 0x20 || (0x09...0x0D).contains($0) })
        if literal.first == UInt8(ascii: "\"") { literal = Array("blob ".utf8) + literal }
        do throws(CandidError) {
            guard let bytes = try Candid.parseValue(utf8: literal, type: .blob).blobValue else {
                throw CandidError(.typeMismatch, "expected a blob literal")
            }
            return bytes
        } catch {
            throw error.labelled(source)
        }
    }
}
