// Transitional spellings from before typed parameters. Every command moves to `DefaultedOption`, `RepeatedOption`,
// `OptionalArgument` and `VariadicArgument`; this file is deleted once nothing uses it. Each spelling needs the
// parameter that made it old (`default:`, `repeating:`, `optional:`, `variadic:`), so new declarations never
// resolve to it.

extension Option {
    @available(*, deprecated, message: "use DefaultedOption for a default")
    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        default defaultValue: Value?, defaultDescription: String? = nil,
        environment: String? = nil, config configKey: String? = nil,
        repeating: Bool = false, source: ValueSource = .literal, completion: CompletionHint? = nil,
        group: String? = nil, hidden: Bool = false
    ) {
        self.init(legacy: name, short: short, valueName: valueName, help: help, default: defaultValue,
                  defaultDescription: defaultDescription, environment: environment, config: configKey, repeating: repeating,
                  source: source, completion: completion, group: group, hidden: hidden)
    }

    @available(*, deprecated, message: "use RepeatedOption")
    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        environment: String? = nil, config configKey: String? = nil,
        repeating: Bool, source: ValueSource = .literal, completion: CompletionHint? = nil,
        group: String? = nil, hidden: Bool = false
    ) {
        self.init(legacy: name, short: short, valueName: valueName, help: help, default: nil, defaultDescription: nil,
                  environment: environment, config: configKey, repeating: repeating, source: source,
                  completion: completion, group: group, hidden: hidden)
    }

    @available(*, deprecated, message: "use absentMeans: or DefaultedOption")
    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String, defaultDescription: String,
        environment: String? = nil, config configKey: String? = nil, source: ValueSource = .literal,
        completion: CompletionHint? = nil, group: String? = nil, hidden: Bool = false
    ) {
        self.init(legacy: name, short: short, valueName: valueName, help: help, default: nil,
                  defaultDescription: defaultDescription, environment: environment, config: configKey, repeating: false,
                  source: source, completion: completion, group: group, hidden: hidden)
    }

    private init(
        legacy name: String, short: Character?, valueName: String?, help: String, default defaultValue: Value?,
        defaultDescription: String?, environment: String?, config configKey: String?, repeating: Bool,
        source: ValueSource, completion: CompletionHint?, group: String?, hidden: Bool
    ) {
        let describe: (@Sendable () -> String?)?
        if let defaultDescription {
            describe = { defaultDescription }
        } else if let defaultValue {
            nonisolated(unsafe) let value = defaultValue
            describe = { value.argumentText }
        } else {
            describe = nil
        }
        self.init(spec: .valued(Value.self, name: name, short: short, valueName: valueName, help: help,
                                describeDefault: describe, environment: environment, configKey: configKey,
                                repeating: repeating, required: false, source: source, completion: completion,
                                group: group, hidden: hidden),
                  legacyDefault: defaultValue)
    }
}

extension Argument {
    @available(*, deprecated, message: "use OptionalArgument or VariadicArgument")
    public init(_ name: String, help: String, optional: Bool, variadic: Bool = false,
                source: ValueSource = .literal, completion: CompletionHint? = nil) {
        spec = .of(Value.self, name: name, help: help, optional: optional, variadic: variadic, source: source,
                   completion: completion)
    }

    @available(*, deprecated, message: "use VariadicArgument")
    public init(_ name: String, help: String, variadic: Bool, source: ValueSource = .literal, completion: CompletionHint? = nil) {
        spec = .of(Value.self, name: name, help: help, optional: false, variadic: variadic, source: source,
                   completion: completion)
    }
}
