// Transitional spellings from before typed parameters. Every command moves to `DefaultedOption`, `RepeatedOption`,
// `OptionalArgument` and `VariadicArgument`; this file is deleted once nothing uses it.

extension Option {
    @available(*, deprecated, message: "use DefaultedOption for a default, RepeatedOption for repeating")
    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        default defaultValue: Value? = nil, defaultDescription: String? = nil,
        environment: String? = nil, config configKey: String? = nil,
        repeating: Bool = false, source: ValueSource = .literal, completion: CompletionHint? = nil,
        group: String? = nil, hidden: Bool = false
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
    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false,
                source: ValueSource = .literal, completion: CompletionHint? = nil) {
        spec = .of(Value.self, name: name, help: help, optional: optional, variadic: variadic, source: source,
                   completion: completion)
    }
}
