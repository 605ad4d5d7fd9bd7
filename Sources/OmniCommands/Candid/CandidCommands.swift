import FoundationEssentials
import OmniCLI
import OmniCandid
import OmniCodec
import OmniSystem

/// `omni candid …`: Candid values and interfaces, offline.
public enum CandidCommands {
    public static var group: Command {
        Command(
            "candid", abstract: "Encode, decode and check Candid values and .did interfaces.",
            discussion: """
                Candid is the Internet Computer's interface description language. Values are written as Candid \
                text, e.g. '(42 : nat, "hi", record { owner = principal "aaaaa-aa" })', or as JSON with \
                --input-format json / --output json (see 'omni help candid-json'). Types come from --types '(nat, text)' \
                or from a .did file with --did FILE --method NAME; with types, record fields and variant cases \
                carry their names instead of hash numbers.
                """,
            section: "Internet Computer"
        ) {
            [CandidEncodeCommand.command, CandidDecodeCommand.command, CandidCheckCommand.command,
             CandidSubtypeCommand.command, CandidHashCommand.command, CandidRandomCommand.command, CandidBindCommand.command]
        }
    }
}

/// The options that give a command its Candid types, shared by encode, decode and random.
enum CandidTypeOptions {
    static let types = Option<String>(
        "types", short: "t", valueName: "TYPES",
        help: "The argument types, e.g. '(nat, record { owner : principal })' (a single type needs no parentheses); "
            + "names resolve in --did's definitions.",
        source: .content)
    static let did = Option<InputFile>("did", short: "d", valueName: "FILE",
                                       help: "A .did file (or - for stdin): its method types with --method, its type definitions for --types.")
    static let method = Option<String>("method", short: "m", valueName: "NAME", help: "The method of --did's service whose types to use.")
    static let returns = Flag("returns", short: "r", help: "Use the method's result types instead of its argument types.")

    static let all: [any OptionDeclaration] = [types, did, method]
    /// Every command taking the types declares these; one with --returns adds `returnsRelation`.
    static let relations: [Relation] = [.conflicting(types, method), .requires(method, did)]
    static let returnsRelation = Relation.requires(returns, method)

    /// Types and the environment their names resolve in, with a description for messages.
    struct Resolved {
        let types: [CandidType]
        let environment: CandidTypeEnvironment
    }

    /// The types given by --types or --did/--method, or nil when neither was given. `allowReturns` says whether the
    /// command declares --returns.
    static func resolve(_ invocation: Invocation, allowReturns: Bool) throws -> Resolved? {
        let wantsResults = try allowReturns && invocation.value(returns)
        let interface = try invocation.value(did).map { try loadInterface($0, invocation: invocation, label: "--did") }
        if let methodName = try invocation.value(method), let interface {
            let function = try interface.requireMethod(methodName)
            return Resolved(types: wantsResults ? function.resultTypes : function.argumentTypes,
                            environment: interface.environment)
        }
        if let bytes = try invocation.bytes(of: types) {
            let environment = interface?.environment ?? CandidTypeEnvironment()
            let parsed = try parseTypes(bytes, label: "--types")
            try checkNames(parsed, in: environment, label: "--types")
            return Resolved(types: parsed, environment: environment)
        }
        if let interface {
            let methods = interface.service?.methods.map(\.name) ?? []
            throw CLIError.usage("--did needs --method NAME (or --types using its definitions)"
                                 + (methods.isEmpty ? "" : "; methods: " + methods.joined(separator: ", ")),
                                 commandPath: invocation.commandPath)
        }
        return nil
    }

    /// `(T1, T2)` as an argument list, or a single type without parentheses; the bytes are read as strict UTF-8 by
    /// the Candid parser, so a bad byte is reported where it is.
    static func parseTypes(_ bytes: [UInt8], label: String) throws -> [CandidType] {
        let start = bytes.firstIndex { !(($0 == 0x20) || ($0 >= 0x09 && $0 <= 0x0D)) }
        do throws(CandidError) {
            if let start, bytes[start] == UInt8(ascii: "(") { return try Candid.parseArgumentTypes(utf8: bytes).map(\.type) }
            return [try Candid.parseType(utf8: bytes)]
        } catch {
            throw error.labelled(label)
        }
    }

    /// Fails on a name that `environment` does not define, attributing it to `label` (the parsed text has no
    /// positions left, and the error would otherwise surface later without saying which input it came from).
    static func checkNames(_ types: [CandidType], in environment: CandidTypeEnvironment, label: String) throws {
        if let name = environment.firstUndefinedName(in: types) {
            throw CandidError(.invalidType, "unknown type \"\(name)\"" + (environment.isEmpty ? " (give --did FILE for its definition)" : ""),
                              file: label)
        }
    }

    /// Reads and checks a .did file and its imports; `-` reads stdin (imports then resolve from the current directory).
    static func loadInterface(_ file: InputFile, invocation: Invocation, label: String) throws -> CandidInterface {
        let bytes = try invocation.read(file, label: label, limit: 16 << 20)
        let name: String
        let base: URL
        switch file {
        case .standardInput:
            name = "<stdin>"
            base = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        case .path(let path):
            name = path
            base = URL(fileURLWithPath: path).deletingLastPathComponent()
        }
        do throws(CandidError) {
            return try CandidInterface.parse(utf8: bytes, file: name, resolver: .fileSystem(base: base))
        } catch {
            throw error.labelled(name)
        }
    }
}

extension CandidError {
    /// The error attributed to an input (`--types`, a file name) unless it already names an imported file.
    func labelled(_ name: String?) -> CandidError {
        var copy = self
        if copy.file == nil { copy.file = name }
        return copy
    }
}

/// Candid values as a result: Candid text for people (`(42 : nat, "hi")`), the JSON mapping for scripts.
struct CandidValuesOutput: Renderable {
    let values: [CandidValue]
    let compact: Bool

    func text(style: TextStyle) -> String {
        Candid.print(arguments: values, style: compact ? .compact : .pretty)
    }

    var json: JSONValue { Candid.json(arguments: values) }
}

/// Work-budget option shared by the commands that read untrusted messages.
enum CandidLimitOptions {
    static let workBudget = DefaultedOption<Int>(
        "work-budget", valueName: "UNITS",
        help: "Decoding work limit (about one unit per value; blobs and text count per 64 bytes). Raise it for large trusted messages.",
        default: CandidLimits.default.workBudget, environment: "OMNI_CANDID_WORK_BUDGET", config: "candid.work_budget")

    static func limits(_ invocation: Invocation) throws -> CandidLimits {
        let budget = try invocation.value(workBudget)
        guard budget > 0 else {
            throw CLIError.usage("--work-budget must be positive", commandPath: invocation.commandPath)
        }
        var limits = CandidLimits.default
        limits.workBudget = budget
        return limits
    }
}

extension CandidCommands {
    /// `omni help candid-json`: the Candid ⇄ JSON mapping of `--input-format json` and `--output json` (docs/candid-json.md).
    public static var jsonTopic: HelpTopic {
        HelpTopic("candid-json", abstract: "How Candid values map to JSON and back.", body: """
            'omni candid decode --output json' prints the arguments as a JSON array; 'omni candid encode \
            --input-format json' reads one back (JSON alone cannot say whether 5 is a nat8 or an int, so encoding JSON \
            needs --types or --did/--method).

              Candid                          JSON
              null, reserved                  null
              bool                            true / false
              nat, int, nat64, int64          decimal string: "18446744073709551615", "-5"
              nat8..nat32, int8..int32        number: 255, -7
              float32, float64                number; "NaN", "Infinity", "-Infinity" when not finite
              text                            string
              blob (vec nat8)                 lowercase hex string: "deadbeef"
              vec T                           array
              opt T                           null when absent, otherwise the value itself
              record with names               object keyed by field name; unnamed ids as "_123_"
              tuple record { T0; T1 }         array [v0, v1]
              variant { tag = v }             object with one key: {"tag": v} ({"ok": null} for null)
              principal, service              textual principal: "aaaaa-aa"
              func                            {"service": "<principal>", "method": "<name>"}

            Reading JSON:
            - numbers may be JSON numbers or decimal strings for every numeric type, and are range-checked;
            - a blob may also be an array of byte numbers;
            - a record is an object (keys: field names, "_123_" or the decimal id), or an array for a tuple;
              absent fields of null, opt or reserved type become null; unknown keys are an error (typos);
            - a variant case of type null may be a bare string: "ok";
            - null for an opt type is the absent value, so opt null and nested opts cannot be told apart from
              null in JSON.

            Values decoded without types carry only field hashes ("_4895187_"); decode with --types or
            --did/--method to get the names.
            """)
    }
}
