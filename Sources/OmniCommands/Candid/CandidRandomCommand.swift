import OmniCLI
import OmniCandid
import OmniCodec

/// `omni candid random`: random valid values of given types, for tests and fuzzing.
enum CandidRandomCommand {
    static let seed = Option<UInt64>("seed", valueName: "N", help: "Seed for reproducible values; value i of --count uses seed + i.",
                                     absentMeans: "random")
    static let count = DefaultedOption<Int>("count", short: "n", valueName: "N", help: "How many argument lists to print.",
                                            default: 1)
    static let maxDepth = DefaultedOption<Int>(
        "max-depth", valueName: "N",
        help: "Nesting after which options are null, vectors empty and variants take their shallowest case.",
        default: CandidRandomConfiguration().maxDepth)
    static let maxLength = DefaultedOption<Int>("max-length", valueName: "N", help: "Longest vector, blob and text.",
                                                default: CandidRandomConfiguration().maxVectorLength)

    static let command = Command(
        "random", abstract: "Print random values of the given types (for tests and fuzzing).",
        discussion: """
            Prints each argument list as one line of Candid text, which 'omni candid encode' with the same types \
            reads back. With --output jsonl each line is {"seed", "candid", "hex", "values"}: the text, the encoded \
            message and the JSON mapping of the same values; --output json prints the same objects as one array. Numbers favour edge cases (0, maxima, powers of two), \
            texts mix ASCII with other Unicode, recursive types stop at --max-depth.
            """,
        options: [CandidTypeOptions.types, CandidTypeOptions.did, CandidTypeOptions.method, CandidTypeOptions.returns,
                  seed, count, maxDepth, maxLength],
        relations: CandidTypeOptions.relations + [CandidTypeOptions.returnsRelation],
        examples: [
            Example("omni candid random --types '(nat, opt text)' --seed 7", "The same two values every time."),
            Example("omni candid random --did ledger.did --method icrc1_transfer --count 100 --output jsonl",
                    "100 argument lists with their encodings, one JSON object per line."),
        ],
        streaming: .always
    ) { invocation in
        let path = invocation.commandPath
        guard let resolved = try CandidTypeOptions.resolve(invocation, allowReturns: true) else {
            throw CLIError.usage("give the types: --types '(…)' or --did FILE --method NAME", commandPath: path)
        }
        let total = try invocation.value(count)
        guard (1...1_000_000).contains(total) else {
            throw CLIError.usage("--count must be between 1 and 1000000", commandPath: path)
        }
        var configuration = CandidRandomConfiguration()
        configuration.maxDepth = try invocation.value(maxDepth)
        let length = try invocation.value(maxLength)
        guard configuration.maxDepth >= 0, configuration.maxDepth <= 64, length >= 0, length <= 1 << 20 else {
            throw CLIError.usage("--max-depth must be 0…64 and --max-length 0…1048576", commandPath: path)
        }
        configuration.maxVectorLength = length
        configuration.maxTextLength = length
        let first = try invocation.value(seed) ?? UInt64.random(in: 0...UInt64.max)
        invocation.detail("seed: \(first)")
        for index in 0..<total {
            let itemSeed = first &+ UInt64(index)
            let values = try Candid.randomArguments(types: resolved.types, environment: resolved.environment, seed: itemSeed,
                                                    configuration: configuration)
            let message = invocation.outputFormat.isJSON
                ? try Candid.encode(values, types: resolved.types, environment: resolved.environment) : []
            invocation.emitItem(RandomValues(seed: itemSeed, values: values, message: message))
        }
        return .success
    }

    struct RandomValues: Renderable {
        let seed: UInt64
        let values: [CandidValue]
        /// The encoded values (computed only for JSON output).
        let message: [UInt8]

        func text(style: TextStyle) -> String { Candid.print(arguments: values, style: .compact) }

        var json: JSONValue {
            var object = JSONObject()
            object["seed"] = .string(String(seed))
            object["candid"] = .string(Candid.print(arguments: values, style: .compact))
            object["hex"] = .string(Hex.encode(message))
            object["values"] = Candid.json(arguments: values)
            return .object(object)
        }
    }
}
