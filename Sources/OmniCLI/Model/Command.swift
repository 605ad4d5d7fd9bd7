import Synchronization

/// One node of the command tree: a group of subcommands, a runnable command, or both.
///
/// Commands are plain values assembled once at start-up (no reflection), so building the whole tree costs
/// microseconds and `omni version` starts fast.
public struct Command: Sendable {
    public typealias Body = @Sendable (Invocation) throws -> CommandResult

    public var name: String
    /// One line, shown in the parent's subcommand list and as OVERVIEW.
    public var abstract: String
    /// Paragraphs shown under the overview in full help.
    public var discussion: String?
    public var options: [OptionSpec]
    public var arguments: [ArgumentSpec]
    /// The children, built the first time they are asked for (`Command(…, subcommands: { … })`): `omni --version` or
    /// `omni candid …` never pays for building the IC, Connect and Attest trees.
    public var subcommands: [Command] {
        get { children.commands }
        set { children = Children(newValue) }
    }
    private var children: Children
    public var examples: [Example]
    public var aliases: [String]
    public var hidden: Bool
    /// Help section this command is listed under in its parent (e.g. "Internet Computer", "Tools").
    public var section: String?
    /// Extra names this command accepts for the global `--output` on its command line, each standing for one of
    /// the output formats (`["candid": .text]` lets `omni candid decode --output candid` mean text). Listed in the
    /// command's help, docs and completions; the environment and config file keep the global names only.
    public var outputAliases: [OutputAlias]
    /// Rules between parameters, checked before the body runs (see `Relation`).
    public var relations: [Relation]
    /// Whether the command emits a stream of items (`Invocation.emitItem`): one line each with `--output jsonl`, one
    /// JSON array with `json` (written as the items come, so memory stays flat), one text block each with `text`.
    public var streaming: Streaming
    /// Everything after the first positional word is a positional too, options it does not know included (the
    /// global ones still apply), and without any word the command shows its help: for a group that answers words it
    /// cannot know in advance itself (`omni ird` without its OpenAPI document says how to get one instead of
    /// "unknown option").
    public var capturesRemainingWords = false
    public var body: Body?

    public init(
        _ name: String, abstract: String, discussion: String? = nil,
        options: [any OptionDeclaration] = [], arguments: [any ArgumentDeclaration] = [],
        relations: [Relation] = [], subcommands: [Command] = [], examples: [Example] = [], aliases: [String] = [],
        section: String? = nil, hidden: Bool = false, outputAliases: [OutputAlias] = [],
        streaming: Streaming = .never, body: Body? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options.map(\.spec)
        self.arguments = arguments.map(\.spec)
        self.relations = relations
        self.streaming = streaming
        children = Children(subcommands)
        self.examples = examples
        self.aliases = aliases
        self.section = section
        self.hidden = hidden
        self.outputAliases = outputAliases
        self.body = body
    }

    /// A group whose subcommands are built only when a command line, help or completions need them.
    public init(_ name: String, abstract: String, discussion: String? = nil, section: String? = nil, hidden: Bool = false,
                subcommands build: @escaping @Sendable () -> [Command]) {
        self.init(name, abstract: abstract, discussion: discussion, section: section, hidden: hidden)
        children = Children(build)
    }

    /// A group whose subcommands come from data read at run time (a cached OpenAPI document, say): built once per
    /// command line from that run's environment, never cached across runs, and completed by asking the program
    /// (`omni __complete-line`) since no script written in advance can know them.
    public init(_ name: String, abstract: String, discussion: String? = nil, section: String? = nil, hidden: Bool = false,
                dynamicSubcommands build: @escaping @Sendable (_ environment: [String: String]) -> [Command]) {
        self.init(name, abstract: abstract, discussion: discussion, section: section, hidden: hidden)
        children = Children(dynamic: build)
    }

    /// True for groups whose subcommands are read at run time (`dynamicSubcommands:`).
    public var hasDynamicSubcommands: Bool { children.isDynamic }

    public var isRunnable: Bool { body != nil }
    public var visibleSubcommands: [Command] { subcommands.filter { !$0.hidden } }
    public var visibleOptions: [OptionSpec] { options.filter { !$0.hidden } }

    /// The `--output` names this command accepts: the global formats, then its aliases in name order.
    public var outputNames: [String] { OutputFormat.allValueStrings + outputAliases.map(\.name).sorted() }

    /// The alias of this command named `name`, if it has one.
    public func outputAlias(named name: String) -> OutputAlias? { outputAliases.first { $0.name == name } }

    public func subcommand(named word: String) -> Command? {
        subcommands.first { $0.name == word || $0.aliases.contains(word) }
    }
}

/// A command's children: a list, or a builder run once on first use (thread-safe; commands are shared values).
final class Children: @unchecked Sendable {
    private let lock = Mutex<[Command]?>(nil)
    private let build: (@Sendable () -> [Command])?
    private let dynamicBuild: (@Sendable ([String: String]) -> [Command])?

    init(_ commands: [Command]) {
        build = nil
        dynamicBuild = nil
        lock.withLock { $0 = commands }
    }

    init(_ build: @escaping @Sendable () -> [Command]) {
        self.build = build
        dynamicBuild = nil
    }

    init(dynamic build: @escaping @Sendable ([String: String]) -> [Command]) {
        self.build = nil
        dynamicBuild = build
    }

    var isDynamic: Bool { dynamicBuild != nil }

    var commands: [Command] {
        if let dynamicBuild {
            // Per run: the run's environment decides (a test runs many command lines with different ones).
            guard let run = RunContext.current else { return [] }
            return run.children(of: ObjectIdentifier(self)) { dynamicBuild(run.environment) }
        }
        if let built = lock.withLock({ $0 }) { return built }
        let made = build?() ?? []
        return lock.withLock { cached in
            if let cached { return cached }
            cached = made
            return made
        }
    }
}

/// What one run of the tool knows while it parses and runs a command line: its environment, and the dynamic
/// groups already built for it.
final class RunContext: @unchecked Sendable {
    @TaskLocal static var current: RunContext?

    let environment: [String: String]
    private let built = Mutex<[ObjectIdentifier: [Command]]>([:])

    init(environment: [String: String]) { self.environment = environment }

    func children(of group: ObjectIdentifier, build: () -> [Command]) -> [Command] {
        if let cached = built.withLock({ $0[group] }) { return cached }
        let made = build()
        built.withLock { $0[group] = made }
        return made
    }
}

/// When a command's output is a stream of items rather than one result.
public struct Streaming: Sendable {
    /// The parameter whose presence on the command line makes the output a stream (`--batch FILE`); nil: always.
    let trigger: String?
    let always: Bool

    public static let never = Streaming(trigger: nil, always: false)
    public static let always = Streaming(trigger: nil, always: true)
    /// A stream only when `parameter` is given (a one-verdict command with `--batch`): a single answer stays one
    /// JSON object.
    public static func when(_ parameter: any ParameterDeclaration) -> Streaming {
        Streaming(trigger: parameter.parameterKey, always: false)
    }

    init(trigger: String?, always: Bool) {
        self.trigger = trigger
        self.always = always
    }

    /// Whether a parsed command line streams.
    func applies(to parsed: ParsedCommandLine) -> Bool {
        if always { return true }
        guard let trigger else { return false }
        return parsed.options[trigger] != nil
            || !(parsed.command.arguments.assign(parsed.positionals)[trigger] ?? []).isEmpty
    }

    /// For help dumps: "always", "with --batch", nil.
    var summary: String? { always ? "always" : trigger.map { "with --\($0)" } }
}

/// A command's own name for a form of its output (`omni ic query … --output hex`). It selects a global format for
/// the framework (`hex` prints text) and tells the command which form was asked for (`Invocation.outputAlias`).
public struct OutputAlias: Sendable {
    public let name: String
    public let format: OutputFormat
    /// What it prints, for help: "the reply bytes as hex".
    public let meaning: String

    public init(_ name: String, as format: OutputFormat, meaning: String) {
        self.name = name
        self.format = format
        self.meaning = meaning
    }
}

/// An example invocation shown in help, with what it does.
public struct Example: Sendable {
    public let commandLine: String
    public let explanation: String

    public init(_ commandLine: String, _ explanation: String) {
        self.commandLine = commandLine
        self.explanation = explanation
    }
}

/// What a command produced: an optional model to render and the exit code.
/// A negative answer (e.g. "signature invalid") is a result with `.failure`, not a thrown error.
public struct CommandResult {
    public var output: (any Renderable)?
    public var exitCode: ExitCode

    public init(output: (any Renderable)? = nil, exitCode: ExitCode = .ok) {
        self.output = output
        self.exitCode = exitCode
    }

    public static func output(_ model: any Renderable, exitCode: ExitCode = .ok) -> CommandResult {
        CommandResult(output: model, exitCode: exitCode)
    }

    public static let success = CommandResult()
}

/// A built-in help topic (`omni help exit-codes`). `generated` appends text derived from the command tree, so a
/// topic such as the environment-variable list cannot miss a command's variables.
public struct HelpTopic: Sendable {
    public let name: String
    public let abstract: String
    public let body: String
    public let generated: (@Sendable (Command) -> String)?

    public init(_ name: String, abstract: String, body: String, generated: (@Sendable (Command) -> String)? = nil) {
        self.name = name
        self.abstract = abstract
        self.body = body
        self.generated = generated
    }

    /// The full text of the topic for the tree rooted at `root`.
    public func text(root: Command) -> String {
        guard let generated else { return body }
        return body + (body.hasSuffix("\n") ? "" : "\n") + generated(root)
    }

    /// Every option in the tree that reads an environment variable, one aligned line per variable:
    /// "VARIABLE  --option of 'omni a b'" (or "of N commands under 'omni a'" when many share it).
    public static func environmentVariables(in root: Command) -> String {
        var uses: [String: (flags: [String], paths: [[String]])] = [:]
        func visit(_ command: Command, _ path: [String]) {
            for option in command.options where !option.hidden {
                guard let variable = option.environment else { continue }
                var entry = uses[variable] ?? ([], [])
                if !entry.flags.contains(option.longFlag) { entry.flags.append(option.longFlag) }
                entry.paths.append(path)
                uses[variable] = entry
            }
            for sub in command.subcommands where !sub.hidden { visit(sub, path + [sub.name]) }
        }
        visit(root, [root.name])
        let width = (uses.keys.map(\.count).max() ?? 0) + 2
        return uses.keys.sorted().map { variable in
            let (flags, paths) = uses[variable]!
            var where_: String
            if paths.count <= 2 {
                where_ = paths.map { "'\($0.joined(separator: " "))'" }.joined(separator: " and ")
            } else {
                var common = paths[0]
                for path in paths.dropFirst() {
                    common = Array(zip(common, path).prefix { $0 == $1 }.map(\.0))
                }
                where_ = "\(paths.count) commands under '\(common.joined(separator: " "))'"
            }
            return "  " + variable + String(repeating: " ", count: width - variable.count)
                + flags.joined(separator: ", ") + " of " + where_
        }.joined(separator: "\n") + "\n"
    }
}

extension Command {
    /// A global option as it applies to this command: `--output` offers the command's aliases too.
    func applying(to global: OptionSpec) -> OptionSpec {
        guard global.name == CommandLineTool.outputOption.spec.name, !outputAliases.isEmpty else { return global }
        return OptionSpec(
            name: global.name, short: global.short, takesValue: global.takesValue, valueName: global.valueName,
            help: global.help + " Also accepted here: " + outputAliasDescription + ".",
            describeDefault: global.describeDefault, environment: global.environment, configKey: global.configKey,
            repeating: global.repeating, source: global.source, completion: .values(outputNames), hidden: global.hidden,
            group: global.group, validate: global.validate)
    }

    /// `candid (Candid text), hex (the reply bytes as hex)`, for help and docs.
    var outputAliasDescription: String {
        outputAliases.sorted { $0.name < $1.name }.map { "\($0.name) (\($0.meaning))" }.joined(separator: ", ")
    }
}
