/// How a parameter's text reaches the command.
public enum ValueSource: String, Sendable {
    /// The value itself, or `@FILE` to read it from a file, or `-` to read it from stdin. The one rule for data.
    case content
    /// A file path (`InputFile`/`OutputFile`): `-` means stdin or stdout.
    case path
    /// Taken literally; `@` and `-` have no special meaning (names, enums, numbers).
    case literal
}

/// What shells should offer when completing a value.
public enum CompletionHint: Equatable, Sendable {
    case none
    case file
    case directory
    /// A fixed list (enums fill this in automatically).
    case values([String])
    /// Asked of the program at completion time: `omni __complete NAME` prints one candidate per line (identity
    /// names, say). The tool registers what each name lists.
    case dynamic(String)
}

/// Describes an option independent of its Swift value type. Commands declare `Option<T>`, `DefaultedOption<T>`,
/// `RequiredOption<T>`, `RepeatedOption<T>` or `Flag`, which wrap one.
public struct OptionSpec: Sendable {
    /// Long name without dashes: `output` for `--output`.
    public let name: String
    public let short: Character?
    /// False for flags.
    public let takesValue: Bool
    public let valueName: String
    public let help: String
    /// Renders the default for help, only when help is shown: describing a generic value at start-up costs dynamic
    /// conformance lookups across the whole binary, which `omni version` would pay for every option.
    let describeDefault: (@Sendable () -> String?)?
    public var defaultDescription: String? { describeDefault?() }
    public let environment: String?
    public let configKey: String?
    public let repeating: Bool
    /// The command does not run without it (shown as such in help and usage).
    public let required: Bool
    public let source: ValueSource
    public let completion: CompletionHint
    public let hidden: Bool
    /// Heading in help ("Options" unless given), e.g. "Connection", "Output".
    public let group: String?
    /// Why one value's text is invalid, nil when valid. Nil for flags.
    public let validate: (@Sendable (String) -> String?)?
    /// A value that fails `validate` is malformed input (exit 3) rather than a usage error (exit 2).
    public let invalidIsMalformedInput: Bool

    public var longFlag: String { "--" + name }
    public var shortFlag: String? { short.map { "-" + String($0) } }

    init(name: String, short: Character?, takesValue: Bool, valueName: String, help: String,
         describeDefault: (@Sendable () -> String?)?, environment: String?, configKey: String?, repeating: Bool,
         required: Bool = false, source: ValueSource, completion: CompletionHint, hidden: Bool, group: String?,
         validate: (@Sendable (String) -> String?)?, invalidIsMalformedInput: Bool = false) {
        self.name = name
        self.short = short
        self.takesValue = takesValue
        self.valueName = valueName
        self.help = help
        self.describeDefault = describeDefault
        self.environment = environment
        self.configKey = configKey
        self.repeating = repeating
        self.required = required
        self.source = source
        self.completion = completion
        self.hidden = hidden
        self.group = group
        self.validate = validate
        self.invalidIsMalformedInput = invalidIsMalformedInput
    }

    /// The spec of a value-taking option of type `Value`.
    static func valued<Value: ArgumentValue>(
        _ type: Value.Type, name: String, short: Character?, valueName: String?, help: String,
        describeDefault: (@Sendable () -> String?)?, environment: String?, configKey: String?, repeating: Bool,
        required: Bool, source: ValueSource?, completion: CompletionHint?, group: String?, hidden: Bool
    ) -> OptionSpec {
        let source = source ?? Value.defaultSource
        return OptionSpec(
            name: name, short: short, takesValue: true,
            valueName: valueName ?? name.uppercased().replacing("-", with: "_"),
            help: help, describeDefault: describeDefault, environment: environment, configKey: configKey,
            repeating: repeating, required: required, source: source,
            completion: completion ?? Value.completionHint(source: source), hidden: hidden, group: group,
            validate: { Value.problem(with: $0) }, invalidIsMalformedInput: Value.isData || source == .content)
    }
}

extension ArgumentValue {
    /// Paths are read as paths; everything else literally unless the declaration says otherwise.
    static var defaultSource: ValueSource {
        Self.self == InputFile.self || Self.self == OutputFile.self ? .path : .literal
    }

    static func completionHint(source: ValueSource) -> CompletionHint {
        if !allValueStrings.isEmpty { return .values(allValueStrings) }
        return source == .path ? .file : .none
    }
}

/// Describes a positional argument.
public struct ArgumentSpec: Sendable {
    public let name: String
    public let help: String
    public let optional: Bool
    public let variadic: Bool
    public let source: ValueSource
    public let completion: CompletionHint
    public let validate: @Sendable (String) -> String?
    public let invalidIsMalformedInput: Bool

    static func of<Value: ArgumentValue>(_ type: Value.Type, name: String, help: String, optional: Bool, variadic: Bool,
                                         source: ValueSource?, completion: CompletionHint?) -> ArgumentSpec {
        let source = source ?? Value.defaultSource
        return ArgumentSpec(name: name, help: help, optional: optional, variadic: variadic, source: source,
                            completion: completion ?? Value.completionHint(source: source),
                            validate: { Value.problem(with: $0) }, invalidIsMalformedInput: Value.isData || source == .content)
    }
}

/// Anything a relation can name: an option or a positional argument.
public protocol ParameterDeclaration: Sendable {
    /// The key the parser records the parameter under (an option's long name, an argument's name).
    var parameterKey: String { get }
    /// How messages name it: `--identity`, `<canister>`.
    var displayName: String { get }
}

/// Anything that can sit in a command's `options:` list.
public protocol OptionDeclaration: ParameterDeclaration {
    var spec: OptionSpec { get }
}

extension OptionDeclaration {
    public var parameterKey: String { spec.name }
    public var displayName: String { spec.longFlag }
}

/// Anything that can sit in a command's `arguments:` list.
public protocol ArgumentDeclaration: ParameterDeclaration {
    var spec: ArgumentSpec { get }
}

extension ArgumentDeclaration {
    public var parameterKey: String { spec.name }
    public var displayName: String { "<\(spec.name.lowercased())>" }
}

/// A default as help shows it, rendered only when help is shown.
private func describing<Value: ArgumentValue>(_ value: Value, _ description: String?) -> @Sendable () -> String? {
    if let description { return { description } }
    // An immutable value only ever read (why the option types are @unchecked Sendable).
    nonisolated(unsafe) let value = value
    return { value.argumentText }
}

/// An option that may be absent: `--name VALUE`, `--name=VALUE`, `-n VALUE`. Reads as `Value?`.
///
/// Resolution when read: command line, then `environment`, then the config file's `configKey`, else nil.
public struct Option<Value: ArgumentValue>: OptionDeclaration, @unchecked Sendable {
    public let spec: OptionSpec

    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        environment: String? = nil, config configKey: String? = nil, source: ValueSource? = nil,
        completion: CompletionHint? = nil, group: String? = nil, hidden: Bool = false
    ) {
        spec = .valued(Value.self, name: name, short: short, valueName: valueName, help: help, describeDefault: nil,
                       environment: environment, configKey: configKey, repeating: false, required: false, source: source,
                       completion: completion, group: group, hidden: hidden)
    }

    /// Documents what absence means ("the default identity") without a value of the type.
    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String, absentMeans: String,
        environment: String? = nil, config configKey: String? = nil, source: ValueSource? = nil,
        completion: CompletionHint? = nil, group: String? = nil, hidden: Bool = false
    ) {
        spec = .valued(Value.self, name: name, short: short, valueName: valueName, help: help,
                       describeDefault: { absentMeans }, environment: environment, configKey: configKey, repeating: false,
                       required: false, source: source, completion: completion, group: group, hidden: hidden)
    }
}

/// An option with a default: reads as `Value`, never absent. The default is stated once, here; help prints it.
public struct DefaultedOption<Value: ArgumentValue>: OptionDeclaration, @unchecked Sendable {
    public let spec: OptionSpec
    public let defaultValue: Value

    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String, default defaultValue: Value,
        defaultDescription: String? = nil, environment: String? = nil, config configKey: String? = nil,
        source: ValueSource? = nil, completion: CompletionHint? = nil, group: String? = nil, hidden: Bool = false
    ) {
        spec = .valued(Value.self, name: name, short: short, valueName: valueName, help: help,
                       describeDefault: describing(defaultValue, defaultDescription), environment: environment,
                       configKey: configKey, repeating: false, required: false, source: source, completion: completion,
                       group: group, hidden: hidden)
        self.defaultValue = defaultValue
    }
}

/// An option the command cannot run without (from the command line, its environment variable or the config file).
public struct RequiredOption<Value: ArgumentValue>: OptionDeclaration, @unchecked Sendable {
    public let spec: OptionSpec

    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        environment: String? = nil, config configKey: String? = nil, source: ValueSource? = nil,
        completion: CompletionHint? = nil, group: String? = nil, hidden: Bool = false
    ) {
        spec = .valued(Value.self, name: name, short: short, valueName: valueName, help: help, describeDefault: nil,
                       environment: environment, configKey: configKey, repeating: false, required: true, source: source,
                       completion: completion, group: group, hidden: hidden)
    }
}

/// An option that may be given several times: reads as `[Value]` in command-line order (the environment variable or
/// config key only when none were given).
public struct RepeatedOption<Value: ArgumentValue>: OptionDeclaration, @unchecked Sendable {
    public let spec: OptionSpec

    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        environment: String? = nil, config configKey: String? = nil, source: ValueSource? = nil,
        completion: CompletionHint? = nil, group: String? = nil, hidden: Bool = false
    ) {
        spec = .valued(Value.self, name: name, short: short, valueName: valueName, help: help, describeDefault: nil,
                       environment: environment, configKey: configKey, repeating: true, required: false, source: source,
                       completion: completion, group: group, hidden: hidden)
    }
}

/// A boolean switch: present or absent. May fall back to an environment variable or config key (`true`/`false`).
public struct Flag: OptionDeclaration {
    public let spec: OptionSpec

    public init(_ name: String, short: Character? = nil, help: String, environment: String? = nil,
                config configKey: String? = nil, group: String? = nil, hidden: Bool = false) {
        spec = OptionSpec(
            name: name, short: short, takesValue: false, valueName: "", help: help, describeDefault: nil,
            environment: environment, configKey: configKey, repeating: true, source: .literal,
            completion: .none, hidden: hidden, group: group, validate: nil)
    }
}

/// A required positional argument: reads as `Value`.
public struct Argument<Value: ArgumentValue>: ArgumentDeclaration, @unchecked Sendable {
    public let spec: ArgumentSpec

    public init(_ name: String, help: String, source: ValueSource? = nil, completion: CompletionHint? = nil) {
        spec = .of(Value.self, name: name, help: help, optional: false, variadic: false, source: source,
                   completion: completion)
    }
}

/// A positional argument that may be absent: reads as `Value?`.
public struct OptionalArgument<Value: ArgumentValue>: ArgumentDeclaration, @unchecked Sendable {
    public let spec: ArgumentSpec

    public init(_ name: String, help: String, source: ValueSource? = nil, completion: CompletionHint? = nil) {
        spec = .of(Value.self, name: name, help: help, optional: true, variadic: false, source: source,
                   completion: completion)
    }
}

/// The remaining positional words: reads as `[Value]`.
public struct VariadicArgument<Value: ArgumentValue>: ArgumentDeclaration, @unchecked Sendable {
    public let spec: ArgumentSpec

    public init(_ name: String, help: String, source: ValueSource? = nil, completion: CompletionHint? = nil) {
        spec = .of(Value.self, name: name, help: help, optional: false, variadic: true, source: source,
                   completion: completion)
    }
}

/// A rule between parameters that the framework checks before the command runs, so commands never hand-write
/// "cannot be combined" checks. Only what is given on the command line counts; an environment or config value of
/// an option that conflicts with one given on the command line is ignored (the flag wins).
public struct Relation: Sendable {
    public enum Kind: String, Sendable {
        /// At most one of them.
        case conflicting
        /// Exactly one of them.
        case exactlyOne
        /// The first needs every one of the others.
        case requires
    }

    public let kind: Kind
    public let keys: [String]
    public let names: [String]

    init(_ kind: Kind, _ parameters: [any ParameterDeclaration]) {
        self.kind = kind
        keys = parameters.map(\.parameterKey)
        names = parameters.map(\.displayName)
    }

    public static func conflicting(_ parameters: any ParameterDeclaration...) -> Relation { Relation(.conflicting, parameters) }
    public static func exactlyOne(_ parameters: any ParameterDeclaration...) -> Relation { Relation(.exactlyOne, parameters) }
    /// `parameter` may only be given together with every one of `others`.
    public static func requires(_ parameter: any ParameterDeclaration, _ others: any ParameterDeclaration...) -> Relation {
        Relation(.requires, [parameter] + others)
    }

    /// One sentence for help.
    public var summary: String {
        switch kind {
        case .conflicting: "\(Relation.list(names, "and")) cannot be combined."
        case .exactlyOne: "Give exactly one of \(Relation.list(names, "or"))."
        case .requires: "\(names[0]) needs \(Relation.list(Array(names.dropFirst()), "and"))."
        }
    }

    static func list(_ names: [String], _ conjunction: String) -> String {
        names.count <= 2 ? names.joined(separator: " \(conjunction) ")
            : names.dropLast().joined(separator: ", ") + ", \(conjunction) " + names[names.count - 1]
    }
}
