import OmniCodec

/// Everything a running command may ask of the CLI layer: typed parameter values (resolved flag > env > config >
/// default, with the `@FILE` / `-` rule for content values), the output settings, progress, and the streams.
public final class Invocation: @unchecked Sendable {
    public let parsed: ParsedCommandLine
    public let environment: [String: String]
    public let streams: StandardStreams
    public let configuration: Configuration
    /// Resolved global settings.
    public let outputFormat: OutputFormat
    public let quiet: Bool
    public let verbose: Bool
    /// Colour for stdout and stderr, decided per stream.
    public let stdoutStyle: TextStyle
    public let stderrStyle: TextStyle
    public let interrupts: Interrupts
    /// The program being run (its tree, topics and name), for built-ins like help and completions.
    public let tool: CommandLineTool

    init(tool: CommandLineTool, parsed: ParsedCommandLine, environment: [String: String], streams: StandardStreams,
         configuration: Configuration, outputFormat: OutputFormat, quiet: Bool, verbose: Bool,
         stdoutStyle: TextStyle, stderrStyle: TextStyle, interrupts: Interrupts) {
        self.parsed = parsed
        self.environment = environment
        self.streams = streams
        self.configuration = configuration
        self.outputFormat = outputFormat
        self.quiet = quiet
        self.verbose = verbose
        self.stdoutStyle = stdoutStyle
        self.stderrStyle = stderrStyle
        self.interrupts = interrupts
        self.tool = tool
    }

    public var commandPath: [String] { parsed.commandNames }

    // MARK: - Options

    /// The option's value: command line, then environment, then config file, then default. Nil when none applies.
    public func value<T>(_ option: Option<T>) throws -> T? {
        guard let (text, origin) = try rawValue(option.spec) else { return option.defaultValue }
        return try convert(text, as: T.self, spec: option.spec, origin: origin)
    }

    /// Like `value(_:)`, but a missing value is a usage error naming the option.
    public func require<T>(_ option: Option<T>) throws -> T {
        guard let value = try value(option) else {
            var message = "missing required option \(option.spec.longFlag) \(option.spec.valueName)"
            if let env = option.spec.environment { message += " (or set \(env))" }
            throw CLIError.usage(message, commandPath: commandPath)
        }
        return value
    }

    /// All values of a repeatable option, in command-line order (environment/config only when none were given).
    public func values<T>(_ option: Option<T>) throws -> [T] {
        if let given = parsed.options[option.spec.name] {
            return try given.map { try convert(try resolveContent($0, spec: option.spec.source, label: option.spec.longFlag),
                                               as: T.self, spec: option.spec, origin: .commandLine) }
        }
        return try value(option).map { [$0] } ?? []
    }

    /// True when the option was given on the command line (not from env, config or default).
    public func isGiven(_ option: some OptionDeclaration) -> Bool {
        parsed.options[option.spec.name] != nil
    }

    /// A flag: present on the command line, else a truthy environment variable, else the config value.
    public func flag(_ flag: Flag) throws -> Bool {
        if parsed.options[flag.spec.name] != nil { return true }
        if let env = flag.spec.environment, let text = environment[env], !text.isEmpty {
            guard let value = Bool(argument: text) else {
                throw CLIError(.configuration, "environment variable \(env)='\(text)' is not true or false")
            }
            return value
        }
        if let key = flag.spec.configKey, let entry = try configuration.value(for: key) {
            guard let value = Bool(argument: entry.text) else {
                throw CLIError(.configuration, "config key '\(key)' in \(entry.file) must be true or false")
            }
            return value
        }
        return false
    }

    /// The exact text of a content option (`@FILE` and `-` resolved), without conversion or trimming.
    public func text(of option: some OptionDeclaration) throws -> String? {
        try bytes(of: option).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The exact bytes of a content option (`@FILE` and `-` resolved): binary input arrives untouched.
    public func bytes(of option: some OptionDeclaration) throws -> [UInt8]? {
        guard let raw = parsed.options[option.spec.name]?.last else { return nil }
        return try resolveBytes(raw, source: option.spec.source, label: option.spec.longFlag)
    }

    // MARK: - Positional arguments

    /// A single positional argument's value, converted; nil when an optional argument is absent.
    public func argument<T>(_ argument: Argument<T>) throws -> T? {
        try positional(argument.spec).first.map { try convert($0, for: argument) }
    }

    /// All values of a variadic positional argument.
    public func arguments<T>(_ argument: Argument<T>) throws -> [T] {
        try positional(argument.spec).map { try convert($0, for: argument) }
    }

    private func convert<T>(_ raw: String, for argument: Argument<T>) throws -> T {
        let text = try resolveContent(raw, spec: argument.spec.source, label: argument.spec.name)
        guard let value = T(argument: text) else {
            throw CLIError.usage("invalid \(argument.spec.name) '\(abbreviate(text))': expected \(T.expectation)",
                                 commandPath: commandPath)
        }
        return value
    }

    /// The exact bytes of a content positional (`@FILE`/`-` resolved).
    public func bytes<T>(of argument: Argument<T>) throws -> [UInt8]? {
        guard let raw = positional(argument.spec).first else { return nil }
        return try resolveBytes(raw, source: argument.spec.source, label: argument.spec.name)
    }

    /// Raw words assigned to a positional, by the order of the command's argument list.
    func positional(_ spec: ArgumentSpec) -> [String] {
        parsed.command.arguments.assign(parsed.positionals)[spec.name] ?? []
    }

    // MARK: - Reading values

    enum Origin { case commandLine, environment(String), config(String, String) }

    private func rawValue(_ spec: OptionSpec) throws -> (String, Origin)? {
        if let given = parsed.options[spec.name]?.last {
            return (try resolveContent(given, spec: spec.source, label: spec.longFlag), .commandLine)
        }
        if let env = spec.environment, let text = environment[env], !text.isEmpty {
            return (text, .environment(env))
        }
        if let key = spec.configKey, let entry = try configuration.value(for: key) {
            return (entry.text, .config(key, entry.file))
        }
        return nil
    }

    private func convert<T: ArgumentValue>(_ text: String, as: T.Type, spec: OptionSpec, origin: Origin) throws -> T {
        let candidate = spec.source == .content ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
        if let value = T(argument: candidate) { return value }
        switch origin {
        case .commandLine:
            throw CLIError.usage("invalid value '\(abbreviate(candidate))' for \(spec.longFlag): expected \(T.expectation)",
                                 commandPath: commandPath)
        case .environment(let name):
            throw CLIError(.configuration, "environment variable \(name)='\(abbreviate(candidate))' is invalid: expected \(T.expectation)")
        case .config(let key, let file):
            throw CLIError(.configuration, "config key '\(key)' in \(file) is invalid: expected \(T.expectation)")
        }
    }

    private func resolveContent(_ raw: String, spec source: ValueSource, label: String) throws -> String {
        guard source == .content else { return raw }
        return String(decoding: try resolveBytes(raw, source: source, label: label), as: UTF8.self)
    }

    /// The one `@FILE` / `-` rule: `-` is stdin, `@path` is the file's bytes, `@@text` is the literal `@text`.
    private func resolveBytes(_ raw: String, source: ValueSource, label: String) throws -> [UInt8] {
        guard source == .content else { return Array(raw.utf8) }
        if raw == "-" {
            if streams.stdinIsTerminal {
                throw CLIError.usage("\(label) is '-' but stdin is a terminal; pipe the data in or give it as @FILE",
                                     commandPath: commandPath)
            }
            return try streams.stdinBytes()
        }
        if raw.hasPrefix("@@") { return Array(raw.dropFirst().utf8) }
        if raw.hasPrefix("@") {
            return try FileInput.read(String(raw.dropFirst()), label: label)
        }
        return Array(raw.utf8)
    }

    private func abbreviate(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(37)) + "..." : text
    }

    // MARK: - Output

    /// Writes a model now (for commands that stream results, e.g. one JSON line per batch item).
    public func emit(_ model: any Renderable) {
        switch outputFormat {
        case .json: streams.out(model.json.serialized() + "\n")
        case .text:
            let text = model.text(style: stdoutStyle)
            streams.out(text.hasSuffix("\n") || text.isEmpty ? text : text + "\n")
        }
    }

    /// A note for people on stderr (never in json mode's stdout); suppressed by `--quiet`.
    public func note(_ message: String) {
        guard !quiet else { return }
        streams.err(message + "\n")
    }

    /// Extra detail on stderr, only with `--verbose`.
    public func detail(_ message: String) {
        guard verbose, !quiet else { return }
        streams.err(stderrStyle.dim(message) + "\n")
    }

    /// A progress indicator on stderr, shown only when stderr is a terminal, not quiet, and not in json mode.
    public func progress(_ title: String) -> Progress {
        Progress(title: title, enabled: streams.stderrIsTerminal && !quiet && outputFormat == .text, streams: streams)
    }
}

extension Array where Element == ArgumentSpec {
    /// Distributes positional words over the declared arguments: each required/optional takes one word in order,
    /// a variadic argument takes what is left.
    func assign(_ words: [String]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var remaining = words[...]
        let requiredAfter = { (index: Int) in self[(index + 1)...].filter { !$0.optional && !$0.variadic }.count }
        for (index, spec) in enumerated() {
            if spec.variadic {
                let take = Swift.max(0, remaining.count - requiredAfter(index))
                result[spec.name] = [String](remaining.prefix(take))
                remaining = remaining.dropFirst(take)
            } else if let word = remaining.first {
                if spec.optional, remaining.count <= requiredAfter(index) { continue }
                result[spec.name] = [word]
                remaining = remaining.dropFirst()
            }
        }
        return result
    }
}

import Foundation
