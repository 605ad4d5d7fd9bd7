/// How a parameter's text reaches the command.
public enum ValueSource: String, Sendable {
    /// The value itself, or `@FILE` to read it from a file, or `-` to read it from stdin. The one rule for data.
    case content
    /// A file path, taken as written (`-` still means stdin/stdout where the command supports it).
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
}

/// Describes an option independent of its Swift value type. Commands declare `Option<T>` / `Flag`, which wrap one.
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
    public let source: ValueSource
    public let completion: CompletionHint
    public let hidden: Bool
    /// Heading in help ("Options" unless given), e.g. "Connection", "Output".
    public let group: String?
    /// Checks one value's text; returns the expectation when invalid. Nil for flags.
    public let validate: (@Sendable (String) -> String?)?

    public var longFlag: String { "--" + name }
    public var shortFlag: String? { short.map { "-" + String($0) } }
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
}

/// Anything that can sit in a command's `options:` list.
public protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// A typed option with a value: `--name VALUE`, `--name=VALUE`, or `-n VALUE`.
///
/// Resolution order when read: command line, then `environment`, then the config file `configKey`, then `default`.
public struct Option<Value: ArgumentValue>: OptionDeclaration, @unchecked Sendable {
    public let spec: OptionSpec
    public let defaultValue: Value?

    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        default defaultValue: Value? = nil, defaultDescription: String? = nil,
        environment: String? = nil, config configKey: String? = nil,
        repeating: Bool = false, source: ValueSource = .literal, completion: CompletionHint? = nil,
        group: String? = nil, hidden: Bool = false
    ) {
        let hint: CompletionHint = completion ?? (Value.allValueStrings.isEmpty
            ? (source == .path ? .file : .none) : .values(Value.allValueStrings))
        let describeDefault: (@Sendable () -> String?)?
        if let defaultDescription {
            describeDefault = { defaultDescription }
        } else if let defaultValue {
            // An immutable value only ever read, as `defaultValue` itself (why Option is @unchecked Sendable).
            nonisolated(unsafe) let value = defaultValue
            describeDefault = { "\(value)" }
        } else {
            describeDefault = nil
        }
        spec = OptionSpec(
            name: name, short: short, takesValue: true,
            valueName: valueName ?? name.uppercased().replacingOccurrences(of: "-", with: "_"),
            help: help,
            describeDefault: describeDefault,
            environment: environment, configKey: configKey, repeating: repeating, source: source,
            completion: hint, hidden: hidden, group: group,
            validate: { Value(argument: $0) == nil ? Value.expectation : nil })
        self.defaultValue = defaultValue
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

/// A typed positional argument.
public struct Argument<Value: ArgumentValue>: @unchecked Sendable {
    public let spec: ArgumentSpec

    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false,
                source: ValueSource = .literal, completion: CompletionHint? = nil) {
        let hint: CompletionHint = completion ?? (Value.allValueStrings.isEmpty
            ? (source == .path ? .file : .none) : .values(Value.allValueStrings))
        spec = ArgumentSpec(name: name, help: help, optional: optional, variadic: variadic, source: source,
                            completion: hint, validate: { Value(argument: $0) == nil ? Value.expectation : nil })
    }
}

import Foundation
