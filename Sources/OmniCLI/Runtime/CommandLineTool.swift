#if canImport(Glibc)
internal import Glibc
#endif
import OmniCodec

/// The program: a command tree plus the global options, built-in commands (`help`, `completions`,
/// `__dump-help`, `__complete`), help topics, and the one mapping from errors to what the user sees and the exit code.
public struct CommandLineTool: Sendable {
    public let name: String
    /// Printed bare by `--version`.
    public let version: String
    public let root: Command
    public let topics: [HelpTopic]
    /// Global options the program adds to the framework's own (e.g. `--identity`): valid on every command line,
    /// read by the commands that need them.
    public let programGlobals: [OptionSpec]
    /// Lists for `CompletionHint.dynamic(name)`, asked at completion time through `omni __complete NAME`.
    public let completers: [String: @Sendable (Invocation) throws -> [String]]
    /// Maps domain errors to a report. Return nil for errors it does not know; the framework handles CLIError and
    /// reports anything else as an internal error (exit 70).
    public let errorMapper: @Sendable (Error) -> ErrorReport?

    public init(name: String, version: String, root: Command, topics: [HelpTopic] = [],
                globalOptions programGlobals: [any OptionDeclaration] = [],
                completers: [String: @Sendable (Invocation) throws -> [String]] = [:],
                errorMapper: @escaping @Sendable (Error) -> ErrorReport?) {
        self.name = name
        self.version = version
        self.topics = topics
        self.programGlobals = programGlobals.map(\.spec)
        self.completers = completers
        self.errorMapper = errorMapper
        var root = root
        root.name = name
        root.subcommands += CommandLineTool.builtins
        self.root = root
    }

    // MARK: Global options (defined once, valid everywhere)

    public static let outputOption = DefaultedOption<OutputFormat>(
        "output", short: "o", valueName: "FORMAT",
        help: "Output format: text for people, json for scripts (one document; errors become one JSON object on "
            + "stderr), jsonl for streams (one JSON document per line).",
        default: .text, environment: "OMNI_OUTPUT", config: "output")
    public static let quietFlag = Flag("quiet", short: "q", help: "Print only results; no notes or progress on stderr.",
                                       environment: "OMNI_QUIET", config: "quiet")
    public static let verboseFlag = Flag("verbose", short: "v", help: "Explain what is happening on stderr.",
                                         environment: "OMNI_VERBOSE", config: "verbose")
    public static let noInputFlag = Flag("no-input", help: "Never prompt: a question that would need an answer fails instead.",
                                         environment: "OMNI_NO_INPUT", config: "no_input")
    public static let colorOption = DefaultedOption<ColorChoice>(
        "color", valueName: "WHEN", help: "Colour text output: auto (terminals only, honours NO_COLOR), always, never.",
        default: .auto, environment: "OMNI_COLOR", config: "color")
    public static let configOption = Option<String>(
        "config", valueName: "FILE", help: "Config file to use instead of $XDG_CONFIG_HOME/omni/config.toml.",
        environment: "OMNI_CONFIG", completion: .file)
    public static let profileOption = Option<String>(
        "profile", valueName: "NAME",
        help: "Use the settings of the config file's [profiles.NAME] table over its top-level ones.",
        absentMeans: "the config file's 'profile' key, else none", environment: "OMNI_PROFILE")

    /// The framework's globals: output and its noise, colour, and which configuration applies.
    public static var frameworkGlobals: [OptionSpec] {
        [outputOption.spec, quietFlag.spec, verboseFlag.spec, noInputFlag.spec, colorOption.spec, configOption.spec,
         profileOption.spec]
    }

    /// Every global option of this program, the framework's first.
    public var globalOptions: [OptionSpec] { Self.frameworkGlobals + programGlobals }

    // MARK: Running

    /// Runs with the process's arguments, environment and streams, then exits.
    public func main() -> Never {
        let streams = StandardStreams.process()
        let code = execute(Array(CommandLine.arguments.dropFirst()), environment: processEnvironment(),
                           streams: streams, installSignalHandlers: true)
        exit(code)
    }

    /// Runs one command line and returns the exit status. Tests call this with in-memory streams.
    public func execute(_ arguments: [String], environment: [String: String], streams: StandardStreams,
                        installSignalHandlers: Bool = false) -> Int32 {
        RunContext.$current.withValue(RunContext(environment: environment)) {
            run(arguments, environment: environment, streams: streams, installSignalHandlers: installSignalHandlers)
        }
    }

    private func run(_ arguments: [String], environment: [String: String], streams: StandardStreams,
                     installSignalHandlers: Bool) -> Int32 {
        if arguments == ["--version"] {
            streams.out(version + "\n")
            return ExitCode.ok.rawValue
        }
        let parser = CommandLineParser(root: root, globalOptions: globalOptions)
        let parsed: ParsedCommandLine
        do {
            parsed = try parser.parse(arguments)
        } catch {
            let format = bestEffortFormat(arguments, environment: environment)
            return report(error, format: format, environment: environment, streams: streams)
        }

        // Globals first: a bad --output or config file must be reported in the right format.
        let configPath = parsed.options["config"]?.last ?? environment["OMNI_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let profile = parsed.options["profile"]?.last ?? environment["OMNI_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let root = self.root
        let configuration = Configuration(
            path: configPath.map(FileInput.expandingTilde) ?? Configuration.defaultPath(environment: environment),
            isExplicit: configPath != nil, profile: profile,
            knownKeys: { Self.configKeys(in: root, globals: globalOptions) },
            reportUnknownKey: { key, suggestion in
                let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
                streams.err("\(name): warning: unknown key '\(TerminalText.escaped(key))' in the config file\(hint)\n")
            })
        let interrupts = Interrupts()
        let provisional = Invocation(tool: self, parsed: parsed, environment: environment, streams: streams,
                                     configuration: configuration, outputFormat: .text, quiet: false, verbose: false,
                                     stdoutStyle: .plain, stderrStyle: .plain, interrupts: interrupts)
        let invocation: Invocation
        do {
            if profile != nil { _ = try configuration.activeProfile() }
            let format = try outputFormat(of: provisional)
            let color = try provisional.value(Self.colorOption)
            let width = streams.terminalWidth ?? Int(environment["COLUMNS"] ?? "")
            let stdoutColor = format == .text && color.enabled(isTerminal: streams.stdoutIsTerminal, environment: environment)
            let stderrColor = color.enabled(isTerminal: streams.stderrIsTerminal, environment: environment)
            invocation = Invocation(
                tool: self, parsed: parsed, environment: environment, streams: streams, configuration: configuration,
                outputFormat: format, quiet: try provisional.value(Self.quietFlag),
                verbose: try provisional.value(Self.verboseFlag), noInput: try provisional.value(Self.noInputFlag),
                stdoutStyle: TextStyle(colorEnabled: stdoutColor, width: width, isTerminal: streams.stdoutIsTerminal),
                stderrStyle: TextStyle(colorEnabled: stderrColor, width: nil, isTerminal: streams.stderrIsTerminal),
                interrupts: interrupts)
        } catch {
            return report(error, format: bestEffortFormat(arguments, environment: environment),
                          environment: environment, streams: streams)
        }

        let command = parsed.command
        if parsed.helpRequested || ((!command.isRunnable || command.capturesRemainingWords) && parsed.positionals.isEmpty) {
            streams.out(helpRenderer(invocation.stdoutStyle).render(path: parsed.path))
            return ExitCode.ok.rawValue
        }
        guard let body = command.body else {
            return report(CLIError.usage("'\(parsed.commandNames.joined(separator: " "))' needs a subcommand",
                                         commandPath: parsed.commandNames),
                          format: invocation.outputFormat, environment: environment, streams: streams)
        }
        if installSignalHandlers { interrupts.install() }
        do {
            try checkPositionals(parsed)
            try checkRelations(parsed)
            let result = try body(invocation)
            if let output = result.output {
                if invocation.isStreaming { invocation.stream.emit(output) } else { invocation.emit(output) }
            }
            if invocation.isStreaming { invocation.stream.finish() }
            return (interrupts.exitCode ?? result.exitCode).rawValue
        } catch {
            if invocation.isStreaming { invocation.stream.finish() }
            let code = report(error, format: invocation.outputFormat, environment: environment, streams: streams,
                              style: invocation.stderrStyle)
            return interrupts.exitCode?.rawValue ?? code
        }
    }

    /// Every config key an option of the tree (or a global) reads.
    static func configKeys(in root: Command, globals: [OptionSpec]) -> Set<String> {
        var keys = Set(globals.compactMap(\.configKey))
        func visit(_ command: Command) {
            for option in command.options { if let key = option.configKey { keys.insert(key) } }
            command.subcommands.forEach(visit)
        }
        visit(root)
        return keys
    }

    /// The `--output` format: a command's own alias for it when one was given on the command line, else the global
    /// option's value (command line, environment, config file, default).
    private func outputFormat(of invocation: Invocation) throws -> OutputFormat {
        if let given = invocation.parsed.options[Self.outputOption.spec.name]?.last,
           let aliased = invocation.parsed.command.outputAlias(named: given) {
            return aliased.format
        }
        return try invocation.value(Self.outputOption)
    }

    func checkPositionals(_ parsed: ParsedCommandLine) throws {
        let specs = parsed.command.arguments
        let capacity = specs.contains(where: \.variadic) ? Int.max : specs.count
        let names = parsed.commandNames
        if parsed.positionals.count > capacity {
            let extra = parsed.positionals[capacity]
            throw CLIError.usage("unexpected argument '\(TerminalText.escaped(extra))' for '\(names.joined(separator: " "))'",
                                 commandPath: names)
        }
        let assigned = specs.assign(parsed.positionals)
        for spec in specs where !spec.optional && !spec.variadic && assigned[spec.name] == nil {
            throw CLIError.usage("missing argument <\(spec.name.lowercased())>", commandPath: names)
        }
        for spec in specs where spec.source != .content {
            for word in assigned[spec.name] ?? [] {
                if let problem = spec.validate(word) {
                    let message = "invalid <\(spec.name.lowercased())> '\(TerminalText.escaped(word))': \(problem)"
                    throw spec.invalidIsMalformedInput ? CLIError(.input, message) : CLIError.usage(message, commandPath: names)
                }
            }
        }
    }

    /// The declared relations, on what the command line gives.
    func checkRelations(_ parsed: ParsedCommandLine) throws {
        let assigned = parsed.command.arguments.assign(parsed.positionals)
        func given(_ key: String) -> Bool { parsed.options[key] != nil || !(assigned[key] ?? []).isEmpty }
        for relation in parsed.command.relations {
            let present = zip(relation.keys, relation.names).filter { given($0.0) }.map(\.1)
            switch relation.kind {
            case .conflicting where present.count > 1:
                throw CLIError.usage("\(Relation.list(present, "and")) cannot be combined", commandPath: parsed.commandNames)
            case .exactlyOne where present.count != 1:
                let message = present.isEmpty ? "give one of \(Relation.list(relation.names, "or"))"
                    : "\(Relation.list(present, "and")) cannot be combined: give exactly one"
                throw CLIError.usage(message, commandPath: parsed.commandNames)
            case .requires where given(relation.keys[0]):
                let missing = zip(relation.keys, relation.names).dropFirst().filter { !given($0.0) }.map(\.1)
                if !missing.isEmpty {
                    throw CLIError.usage("\(relation.names[0]) needs \(Relation.list(missing, "and"))",
                                         commandPath: parsed.commandNames)
                }
            default:
                continue
            }
        }
    }

    /// Output format for errors raised before the globals could be resolved.
    private func bestEffortFormat(_ arguments: [String], environment: [String: String]) -> OutputFormat {
        for (index, word) in arguments.enumerated() {
            for format in [OutputFormat.json, .jsonl] {
                if word == "--output=\(format.rawValue)" || word == "-o\(format.rawValue)" { return format }
                if word == "--output" || word == "-o", index + 1 < arguments.count, arguments[index + 1] == format.rawValue {
                    return format
                }
            }
        }
        return OutputFormat(rawValue: environment["OMNI_OUTPUT"] ?? "") ?? .text
    }

    /// The one place errors become output and exit codes.
    func report(_ error: Error, format: OutputFormat, environment: [String: String], streams: StandardStreams,
                style: TextStyle = .plain) -> Int32 {
        let report = errorReport(for: error)
        switch format {
        case .json, .jsonl:
            var object = JSONObject()
            object["kind"] = .string(report.kind)
            object["message"] = .string(report.message)
            object["exit_code"] = .int(report.exitCode.rawValue)
            if let hint = report.hint { object["hint"] = .string(hint) }
            streams.err(JSONValue.object(JSONObject([("error", .object(object))])).serialized() + "\n")
        case .text:
            var line = "\(name): " + style.bad(TerminalText.sanitized(report.message, styled: false))
            if let hint = report.hint { line += "\n" + style.dim(TerminalText.sanitized(hint, styled: false)) }
            streams.err(line + "\n")
        }
        return report.exitCode.rawValue
    }

    public func errorReport(for error: Error) -> ErrorReport {
        if let cli = error as? CLIError {
            switch cli.kind {
            case .usage:
                let helpPath = ([name] + cli.commandPath.dropFirst()).joined(separator: " ")
                return ErrorReport(kind: "usage", message: cli.description + " (see '\(helpPath) --help')",
                                   exitCode: .usage)
            case .configuration:
                return ErrorReport(kind: "configuration", message: cli.description, exitCode: .configuration)
            case .input:
                return ErrorReport(kind: "malformed_input", message: cli.description, exitCode: .malformedInput)
            case .interrupted:
                return ErrorReport(kind: "interrupted", message: cli.description, exitCode: .interrupted)
            }
        }
        if let mapped = errorMapper(error) { return mapped }
        return ErrorReport(kind: "internal", message: "internal error: \(error)", exitCode: .internalError,
                           hint: "This is a bug in omni; please report it with the command you ran.")
    }

    func helpRenderer(_ style: TextStyle) -> HelpRenderer {
        HelpRenderer(toolName: name, globalOptions: globalOptions, topics: topics, style: style)
    }
}

/// The process environment as a dictionary, read from `environ` (no Foundation).
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}
