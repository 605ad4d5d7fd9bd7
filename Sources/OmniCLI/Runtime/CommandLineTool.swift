import OmniCodec

/// The program: a command tree plus the global options, built-in commands (`help`, `completions`,
/// `__dump-help`), help topics, and the one mapping from errors to what the user sees and the exit code.
public struct CommandLineTool: Sendable {
    public let name: String
    /// Printed bare by `--version`.
    public let version: String
    public let root: Command
    public let topics: [HelpTopic]
    /// Maps domain errors to a report. Return nil for errors it does not know; the framework handles CLIError and
    /// reports anything else as an internal error (exit 70).
    public let errorMapper: @Sendable (Error) -> ErrorReport?

    public init(name: String, version: String, root: Command, topics: [HelpTopic] = [],
                errorMapper: @escaping @Sendable (Error) -> ErrorReport?) {
        self.name = name
        self.version = version
        self.topics = topics
        self.errorMapper = errorMapper
        var root = root
        root.name = name
        root.subcommands += CommandLineTool.builtins
        self.root = root
    }

    // MARK: Global options (defined once, valid everywhere)

    public static let outputOption = Option<OutputFormat>(
        "output", short: "o", valueName: "FORMAT",
        help: "Output format: text for people, json for scripts (errors become one JSON object on stderr).",
        default: .text, environment: "OMNI_OUTPUT", config: "output")
    public static let quietFlag = Flag("quiet", short: "q", help: "Print only results; no notes or progress on stderr.",
                                       environment: "OMNI_QUIET")
    public static let verboseFlag = Flag("verbose", short: "v", help: "Explain what is happening on stderr.",
                                         environment: "OMNI_VERBOSE")
    public static let colorOption = Option<ColorChoice>(
        "color", valueName: "WHEN", help: "Colour text output: auto (terminals only, honours NO_COLOR), always, never.",
        default: .auto, environment: "OMNI_COLOR", config: "color")
    public static let configOption = Option<String>(
        "config", valueName: "FILE", help: "Config file to use instead of $XDG_CONFIG_HOME/omni/config.toml.",
        environment: "OMNI_CONFIG", source: .path)

    public static var globalOptions: [OptionSpec] {
        [outputOption.spec, quietFlag.spec, verboseFlag.spec, colorOption.spec, configOption.spec]
    }

    // MARK: Running

    /// Runs with the process's arguments, environment and streams, then exits.
    public func main() -> Never {
        let streams = StandardStreams.process()
        let code = execute(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                           streams: streams, installSignalHandlers: true)
        exit(code)
    }

    /// Runs one command line and returns the exit status. Tests call this with in-memory streams.
    public func execute(_ arguments: [String], environment: [String: String], streams: StandardStreams,
                        installSignalHandlers: Bool = false) -> Int32 {
        if arguments == ["--version"] {
            streams.out(version + "\n")
            return ExitCode.ok.rawValue
        }
        let parser = CommandLineParser(root: root, globalOptions: Self.globalOptions)
        let parsed: ParsedCommandLine
        do {
            parsed = try parser.parse(arguments)
        } catch {
            let format = bestEffortFormat(arguments, environment: environment)
            return report(error, format: format, environment: environment, streams: streams)
        }

        // Globals first: a bad --output or config file must be reported in the right format.
        let configPath = parsed.options["config"]?.last ?? environment["OMNI_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let configuration = Configuration(path: configPath ?? Configuration.defaultPath(environment: environment),
                                          isExplicit: configPath != nil)
        let interrupts = Interrupts()
        let provisional = Invocation(tool: self, parsed: parsed, environment: environment, streams: streams,
                                     configuration: configuration, outputFormat: .text, quiet: false, verbose: false,
                                     stdoutStyle: .plain, stderrStyle: .plain, interrupts: interrupts)
        let invocation: Invocation
        do {
            let format = try outputFormat(of: provisional)
            let color = try provisional.value(Self.colorOption) ?? .auto
            let width = streams.terminalWidth ?? Int(environment["COLUMNS"] ?? "")
            let stdoutColor = format == .text && color.enabled(isTerminal: streams.stdoutIsTerminal, environment: environment)
            let stderrColor = format == .text && color.enabled(isTerminal: streams.stderrIsTerminal, environment: environment)
            invocation = Invocation(
                tool: self, parsed: parsed, environment: environment, streams: streams, configuration: configuration,
                outputFormat: format, quiet: try provisional.flag(Self.quietFlag),
                verbose: try provisional.flag(Self.verboseFlag),
                stdoutStyle: TextStyle(colorEnabled: stdoutColor, width: width),
                stderrStyle: TextStyle(colorEnabled: stderrColor, width: nil), interrupts: interrupts)
        } catch {
            return report(error, format: bestEffortFormat(arguments, environment: environment),
                          environment: environment, streams: streams)
        }

        let command = parsed.command
        if parsed.helpRequested || (!command.isRunnable && parsed.positionals.isEmpty) {
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
            let result = try body(invocation)
            if let output = result.output { invocation.emit(output) }
            return result.exitCode.rawValue
        } catch {
            return report(error, format: invocation.outputFormat, environment: environment, streams: streams,
                          style: invocation.stderrStyle)
        }
    }

    /// The `--output` format: a command's own alias for it when one was given on the command line, else the global
    /// option's value (command line, environment, config file, default).
    private func outputFormat(of invocation: Invocation) throws -> OutputFormat {
        if let given = invocation.parsed.options[Self.outputOption.spec.name]?.last,
           let aliased = invocation.parsed.command.outputAliases[given] {
            return aliased
        }
        return try invocation.value(Self.outputOption) ?? .text
    }

    private func checkPositionals(_ parsed: ParsedCommandLine) throws {
        let specs = parsed.command.arguments
        let capacity = specs.contains(where: \.variadic) ? Int.max : specs.count
        if parsed.positionals.count > capacity {
            let extra = parsed.positionals[capacity]
            throw CLIError.usage("unexpected argument '\(extra)' for '\(parsed.commandNames.joined(separator: " "))'",
                                 commandPath: parsed.commandNames)
        }
        let assigned = specs.assign(parsed.positionals)
        for spec in specs where !spec.optional && !spec.variadic && assigned[spec.name] == nil {
            throw CLIError.usage("missing argument <\(spec.name.lowercased())>", commandPath: parsed.commandNames)
        }
        for spec in specs where spec.source == .literal {
            for word in assigned[spec.name] ?? [] {
                if let expectation = spec.validate(word) {
                    throw CLIError.usage("invalid <\(spec.name.lowercased())> '\(word)': expected \(expectation)",
                                         commandPath: parsed.commandNames)
                }
            }
        }
    }

    /// Output format for errors raised before the globals could be resolved.
    private func bestEffortFormat(_ arguments: [String], environment: [String: String]) -> OutputFormat {
        for (index, word) in arguments.enumerated() {
            if word == "--output=json" || word == "-ojson" { return .json }
            if (word == "--output" || word == "-o"), index + 1 < arguments.count, arguments[index + 1] == "json" {
                return .json
            }
        }
        return environment["OMNI_OUTPUT"] == "json" ? .json : .text
    }

    /// The one place errors become output and exit codes.
    func report(_ error: Error, format: OutputFormat, environment: [String: String], streams: StandardStreams,
                style: TextStyle = .plain) -> Int32 {
        let report = errorReport(for: error)
        switch format {
        case .json:
            var object = JSONObject()
            object["kind"] = .string(report.kind)
            object["message"] = .string(report.message)
            object["exit_code"] = .int(report.exitCode.rawValue)
            if let hint = report.hint { object["hint"] = .string(hint) }
            streams.err(JSONValue.object(JSONObject([("error", .object(object))])).serialized() + "\n")
        case .text:
            var line = "\(name): " + style.bad(report.message)
            if let hint = report.hint { line += "\n" + style.dim(hint) }
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
                return ErrorReport(kind: "input", message: cli.description, exitCode: .malformedInput)
            case .interrupted:
                return ErrorReport(kind: "interrupted", message: cli.description, exitCode: .interrupted)
            }
        }
        if let mapped = errorMapper(error) { return mapped }
        return ErrorReport(kind: "internal", message: "internal error: \(error)", exitCode: .internalError,
                           hint: "This is a bug in omni; please report it with the command you ran.")
    }

    func helpRenderer(_ style: TextStyle) -> HelpRenderer {
        HelpRenderer(toolName: name, globalOptions: Self.globalOptions, topics: topics, style: style)
    }
}

import Foundation
