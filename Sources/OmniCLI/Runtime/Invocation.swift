import OmniCodec
import Synchronization

/// Everything a running command may ask of the CLI layer: typed parameter values (resolved flag > env > config >
/// default, with the `@FILE` / `-` rule for content values), files to read and write, the output settings, progress,
/// and the streams.
public final class Invocation: @unchecked Sendable {
    public let parsed: ParsedCommandLine
    public let environment: [String: String]
    public let streams: StandardStreams
    public let configuration: Configuration
    /// Resolved global settings.
    public let outputFormat: OutputFormat
    public let quiet: Bool
    public let verbose: Bool
    /// `--no-input`: never prompt.
    public let noInput: Bool
    /// Colour for stdout and stderr, decided per stream.
    public let stdoutStyle: TextStyle
    public let stderrStyle: TextStyle
    public let interrupts: Interrupts
    /// The program being run (its tree, topics and name), for built-ins like help and completions.
    public let tool: CommandLineTool
    let stream: ItemStream

    init(tool: CommandLineTool, parsed: ParsedCommandLine, environment: [String: String], streams: StandardStreams,
         configuration: Configuration, outputFormat: OutputFormat, quiet: Bool, verbose: Bool, noInput: Bool = false,
         stdoutStyle: TextStyle, stderrStyle: TextStyle, interrupts: Interrupts) {
        self.parsed = parsed
        self.environment = environment
        self.streams = streams
        self.configuration = configuration
        self.outputFormat = outputFormat
        self.quiet = quiet
        self.verbose = verbose
        self.noInput = noInput
        self.stdoutStyle = stdoutStyle
        self.stderrStyle = stderrStyle
        self.interrupts = interrupts
        self.tool = tool
        stream = ItemStream(format: outputFormat, streams: streams, style: stdoutStyle)
    }

    public var commandPath: [String] { parsed.commandNames }

    /// This command line's output is a stream of items (`Command.streaming`).
    public var isStreaming: Bool { parsed.command.streaming.applies(to: parsed) }

    /// The command's own output form given with `--output` on the command line (`hex` for `omni ic query`), if any.
    public var outputAlias: OutputAlias? {
        parsed.options[CommandLineTool.outputOption.spec.name]?.last.flatMap { parsed.command.outputAlias(named: $0) }
    }

    // MARK: - Options

    /// The option's value: command line, then environment, then config file. Nil when none applies.
    public func value<T>(_ option: Option<T>) throws -> T? {
        guard let (text, origin) = try rawValue(option.spec) else { return nil }
        return try convert(text, as: T.self, spec: option.spec, origin: origin)
    }

    /// The option's value, or its default.
    public func value<T>(_ option: DefaultedOption<T>) throws -> T {
        guard let (text, origin) = try rawValue(option.spec) else { return option.defaultValue }
        return try convert(text, as: T.self, spec: option.spec, origin: origin)
    }

    /// The option's value; absence is a usage error naming the option (and its environment variable).
    public func value<T>(_ option: RequiredOption<T>) throws -> T {
        guard let (text, origin) = try rawValue(option.spec) else { throw missing(option.spec) }
        return try convert(text, as: T.self, spec: option.spec, origin: origin)
    }

    /// Every value of a repeatable option, in command-line order (environment/config only when none were given).
    public func value<T>(_ option: RepeatedOption<T>) throws -> [T] {
        try repeatedValues(option.spec)
    }

    /// A flag: present on the command line, else a truthy environment variable, else the config value.
    public func value(_ flag: Flag) throws -> Bool {
        if parsed.options[flag.spec.name] != nil { return true }
        if suppressesFallback(flag.spec) { return false }
        if let env = flag.spec.environment, let text = environment[env], !text.isEmpty {
            guard let value = Bool(argument: text) else {
                throw CLIError(.configuration, "environment variable \(env)='\(sample(text))' is not true or false")
            }
            return value
        }
        if let key = flag.spec.configKey, let entry = try configuration.value(for: key) {
            guard let value = Bool(argument: entry.text) else {
                throw CLIError(.configuration, "config key '\(entry.key)' in \(entry.file) must be true or false")
            }
            return value
        }
        return false
    }

    /// True when the parameter was given on the command line (not from env, config or default).
    public func isGiven(_ parameter: some ParameterDeclaration) -> Bool {
        if parsed.options[parameter.parameterKey] != nil { return true }
        return parsed.command.arguments.contains { $0.name == parameter.parameterKey }
            && !(positionalWords[parameter.parameterKey] ?? []).isEmpty
    }

    /// The exact text of a content option (`@FILE` and `-` resolved), strictly UTF-8, without conversion or
    /// trimming. Nil when not given on the command line.
    public func text(of option: some OptionDeclaration) throws -> String? {
        try bytes(of: option).map { try Self.strictText($0, label: option.spec.longFlag) }
    }

    /// The exact bytes of a content option (`@FILE` and `-` resolved): binary input arrives untouched.
    public func bytes(of option: some OptionDeclaration) throws -> [UInt8]? {
        guard let raw = parsed.options[option.spec.name]?.last else { return nil }
        return try resolveBytes(raw, source: option.spec.source, label: option.spec.longFlag)
    }

    // MARK: - Positional arguments

    public func value<T>(_ argument: Argument<T>) throws -> T {
        guard let word = positional(argument.spec).first else {
            throw CLIError.usage("missing argument \(argument.displayName)", commandPath: commandPath)
        }
        return try convert(word, spec: argument.spec, as: T.self)
    }

    public func value<T>(_ argument: OptionalArgument<T>) throws -> T? {
        try positional(argument.spec).first.map { try convert($0, spec: argument.spec, as: T.self) }
    }

    public func value<T>(_ argument: VariadicArgument<T>) throws -> [T] {
        try positional(argument.spec).map { try convert($0, spec: argument.spec, as: T.self) }
    }

    /// The exact text of a content positional (`@FILE`/`-` resolved), strictly UTF-8; nil when absent.
    public func text(of argument: some ArgumentDeclaration) throws -> String? {
        try bytes(of: argument).map { try Self.strictText($0, label: argument.displayName) }
    }

    /// The exact bytes of a content positional (`@FILE`/`-` resolved); nil when absent.
    public func bytes(of argument: some ArgumentDeclaration) throws -> [UInt8]? {
        guard let raw = positional(argument.spec).first else { return nil }
        return try resolveBytes(raw, source: argument.spec.source, label: argument.displayName)
    }

    /// The word given for a positional as typed, before `@FILE`/`-` are resolved (to say where a value came from, or
    /// to require that raw bytes come from a file); nil when absent.
    public func word(of argument: some ArgumentDeclaration) -> String? { positional(argument.spec).first }

    /// Where a content value came from, for messages: the file of `@FILE`, `<stdin>` for `-`, nil for literal text.
    public func sourceName(of argument: some ArgumentDeclaration) -> String? {
        guard let word = word(of: argument) else { return nil }
        if word == "-" { return "<stdin>" }
        if word.hasPrefix("@") && !word.hasPrefix("@@") { return String(word.dropFirst()) }
        return nil
    }

    private lazy var positionalWords: [String: [String]] = parsed.command.arguments.assign(parsed.positionals)

    /// Raw words assigned to a positional, by the order of the command's argument list.
    func positional(_ spec: ArgumentSpec) -> [String] { positionalWords[spec.name] ?? [] }

    private func convert<T: ArgumentValue>(_ raw: String, spec: ArgumentSpec, as: T.Type) throws -> T {
        let label = "<\(spec.name.lowercased())>"
        var text = raw
        if spec.source == .content {
            text = try Self.strictText(try resolveBytes(raw, source: spec.source, label: label), label: label).trimmingWhitespaceAndNewlines()
        }
        if let value = T(argument: text) { return value }
        let problem = T.problem(with: text) ?? "expected " + T.expectation
        let message = "invalid \(label) '\(sample(text))': \(problem)"
        throw spec.invalidIsMalformedInput ? CLIError(.input, message) : CLIError.usage(message, commandPath: commandPath)
    }

    // MARK: - Reading values

    enum Origin { case commandLine, environment(String), config(key: String, file: String) }

    private func rawValue(_ spec: OptionSpec) throws -> (String, Origin)? {
        if let given = parsed.options[spec.name]?.last {
            let bytes = try resolveBytes(given, source: spec.source, label: spec.longFlag)
            return (spec.source == .content ? try Self.strictText(bytes, label: spec.longFlag) : given, .commandLine)
        }
        if suppressesFallback(spec) { return nil }
        if let env = spec.environment, let text = environment[env], !text.isEmpty {
            return (text, .environment(env))
        }
        if let key = spec.configKey, let entry = try configuration.value(for: key) {
            return (entry.text, .config(key: entry.key, file: entry.file))
        }
        return nil
    }

    private func repeatedValues<T: ArgumentValue>(_ spec: OptionSpec) throws -> [T] {
        if let given = parsed.options[spec.name] {
            return try given.map { raw in
                let bytes = try resolveBytes(raw, source: spec.source, label: spec.longFlag)
                let text = spec.source == .content ? try Self.strictText(bytes, label: spec.longFlag) : raw
                return try convert(text, as: T.self, spec: spec, origin: .commandLine)
            }
        }
        guard let (text, origin) = try rawValue(spec) else { return [] }
        return [try convert(text, as: T.self, spec: spec, origin: origin)]
    }

    /// An option's environment and config fallbacks do not apply when the command line gives another option it
    /// conflicts with: `--pem FILE` wins over `OMNI_IDENTITY`.
    private func suppressesFallback(_ spec: OptionSpec) -> Bool {
        parsed.command.relations.contains { relation in
            (relation.kind == .conflicting || relation.kind == .exactlyOne) && relation.keys.contains(spec.name)
                && relation.keys.contains { $0 != spec.name && parsed.options[$0] != nil }
        }
    }

    private func missing(_ spec: OptionSpec) -> CLIError {
        var message = "missing required option \(spec.longFlag) \(spec.valueName)"
        if let env = spec.environment { message += " (or set \(env))" }
        return CLIError.usage(message, commandPath: commandPath)
    }

    private func convert<T: ArgumentValue>(_ text: String, as: T.Type, spec: OptionSpec, origin: Origin) throws -> T {
        let candidate = spec.source == .content ? text.trimmingWhitespaceAndNewlines() : text
        if let value = T(argument: candidate) { return value }
        let problem = T.problem(with: candidate) ?? "expected " + T.expectation
        switch origin {
        case .commandLine:
            let message = "invalid value '\(sample(candidate))' for \(spec.longFlag): \(problem)"
            throw spec.invalidIsMalformedInput ? CLIError(.input, message) : CLIError.usage(message, commandPath: commandPath)
        case .environment(let name):
            throw CLIError(.configuration, "environment variable \(name)='\(sample(candidate))' is invalid: \(problem)")
        case .config(let key, let file):
            throw CLIError(.configuration, "config key '\(key)' in \(file) is invalid: \(problem)")
        }
    }

    /// The one `@FILE` / `-` rule for content values: `-` is stdin, `@path` is the file's bytes, `@@text` is the
    /// literal `@text`.
    private func resolveBytes(_ raw: String, source: ValueSource, label: String) throws -> [UInt8] {
        guard source == .content else { return Array(raw.utf8) }
        if raw == "-" { return try read(.standardInput, label: label) }
        if raw.hasPrefix("@@") { return Array(raw.dropFirst().utf8) }
        if raw.hasPrefix("@") { return try FileInput.read(String(raw.dropFirst()), label: label) }
        return Array(raw.utf8)
    }

    /// Bytes that must be text: strict UTF-8, or malformed input (exit 3) naming the first bad byte's offset.
    static func strictText(_ bytes: [UInt8], label: String) throws -> String {
        do { return try UTF8Validation.string(bytes) } catch {
            throw CLIError(.input, "\(label): \(error.message) at byte \(error.offset ?? 0)")
        }
    }

    private func sample(_ text: String) -> String {
        let printable = TerminalText.escaped(text)
        return printable.count > 40 ? String(printable.prefix(37)) + "..." : printable
    }

    // MARK: - Files

    /// The bytes of a file argument; `-` reads stdin, which must not be a terminal (the one place that rule lives).
    public func read(_ file: InputFile, label: String, limit: Int = FileInput.maximumBytes) throws -> [UInt8] {
        try read(file, label: label, limit: limit, showingPath: true)
    }

    private func read(_ file: InputFile, label: String, limit: Int, showingPath: Bool) throws -> [UInt8] {
        let bytes: [UInt8]
        switch file {
        case .standardInput:
            if streams.stdinIsTerminal {
                throw CLIError.usage("\(label) is '-' but stdin is a terminal; pipe the data in or give a file",
                                     commandPath: commandPath)
            }
            bytes = try streams.stdinBytes()
        case .path(let path):
            bytes = try FileInput.read(FileInput.resolvingAt(path), label: label, limit: limit, showingPath: showingPath)
        }
        guard bytes.count <= limit else {
            throw CLIError(.input, "\(label): \(file.displayName) is larger than \(ByteCount(bytes: limit).argumentText)")
        }
        return bytes
    }

    /// The text of a file argument, strictly UTF-8.
    public func readText(_ file: InputFile, label: String, limit: Int = FileInput.maximumBytes) throws -> String {
        try Self.strictText(try read(file, label: label, limit: limit), label: label)
    }

    /// A file holding a secret (a private key, a seed): like `read`, but a file that others may read is refused,
    /// as ssh refuses such keys, and a value that names no file is not echoed: it may be the secret itself, typed
    /// where its file belongs.
    public func readSecret(_ file: InputFile, label: String, limit: Int = 1 << 20) throws -> [UInt8] {
        if case .path(let path) = file, let problem = FileInput.exposure(of: FileInput.resolvingAt(path)) {
            throw CLIError(.configuration, "\(label): \(path) \(problem); run 'chmod 600 \(path)'")
        }
        return try read(file, label: label, limit: limit, showingPath: false)
    }

    /// Lines of a file argument (or stdin), read as they come so that memory stays flat, each at most `maxLineBytes`.
    public func lines(_ file: InputFile, label: String, maxLineBytes: Int = 1 << 20) throws -> LineReader {
        switch file {
        case .standardInput:
            if streams.stdinIsTerminal {
                throw CLIError.usage("\(label) is '-' but stdin is a terminal; pipe the lines in or give a file",
                                     commandPath: commandPath)
            }
            return LineReader(source: try streams.stdinSource(), label: label, maxLineBytes: maxLineBytes)
        case .path(let path):
            return LineReader(source: try FileInput.open(FileInput.resolvingAt(path), label: label), label: label,
                              maxLineBytes: maxLineBytes)
        }
    }

    /// Writes a file argument: `-` is stdout; a path is written atomically with `mode` set before any byte lands.
    public func write(_ bytes: [UInt8], to file: OutputFile, label: String, mode: UInt32 = 0o644) throws {
        switch file {
        case .standardOutput: streams.outBytes(bytes)
        case .path(let path): try FileOutput.write(bytes, to: path, mode: mode, label: label)
        }
    }

    public func write(_ text: String, to file: OutputFile, label: String, mode: UInt32 = 0o644) throws {
        try write(Array(text.utf8), to: file, label: label, mode: mode)
    }

    // MARK: - Output

    /// Writes a model now, as one document (for a command's one result; streams use `emitItem`).
    public func emit(_ model: any Renderable) {
        switch outputFormat {
        case .json, .jsonl: streams.out(model.json.serialized() + "\n")
        case .text:
            let text = TerminalText.sanitized(model.text(style: stdoutStyle), styled: stdoutStyle.colorEnabled)
            streams.out(text.hasSuffix("\n") || text.isEmpty ? text : text + "\n")
        }
    }

    /// Writes one item of a streaming command: a line in jsonl, an element of the one array in json, text in text.
    /// On a command line that does not stream (`Streaming.when` not triggered) the item is the one result document.
    public func emitItem(_ model: any Renderable) {
        if isStreaming { stream.emit(model) } else { emit(model) }
    }

    /// A note for people on stderr (never on stdout); suppressed by `--quiet`.
    public func note(_ message: String) {
        guard !quiet else { return }
        streams.err(TerminalText.sanitized(message, styled: stderrStyle.colorEnabled) + "\n")
    }

    /// A warning on stderr, shown even with `--quiet` (it concerns what the output means: unverified, insecure…).
    public func warn(_ message: String) {
        streams.err(TerminalText.sanitized(stderrStyle.warn(message), styled: stderrStyle.colorEnabled) + "\n")
    }

    /// Extra detail on stderr, only with `--verbose`.
    public func detail(_ message: String) {
        guard verbose, !quiet else { return }
        streams.err(TerminalText.sanitized(stderrStyle.dim(message), styled: stderrStyle.colorEnabled) + "\n")
    }

    /// Whether the user can be asked: stdin and stderr are terminals and prompts are not disabled (`--no-input`).
    public var canPrompt: Bool { streams.stdinIsTerminal && streams.stderrIsTerminal && !noInput }

    /// Asks a yes/no question on stderr and reads the answer; only "y" or "yes" is yes. Without a terminal (or with
    /// `--no-input`) nothing is asked: a usage error names `override`, the flag that answers in advance — a prompt
    /// is never required and never hangs a script.
    public func confirm(_ question: String, override: some OptionDeclaration) throws -> Bool {
        guard canPrompt else {
            throw CLIError.usage("\(question.trimmingWhitespaceAndNewlines()) — there is no terminal to ask on; add \(override.spec.longFlag)",
                                 commandPath: commandPath)
        }
        streams.err(TerminalText.sanitized(question, styled: false) + " [y/N] ")
        let answer = (streams.readAnswer() ?? "").trimmingWhitespaceAndNewlines().lowercased()
        return answer == "y" || answer == "yes"
    }

    /// Asks a yes/no question when a terminal is there; nil when it is not (the caller decides: a host policy's
    /// "prompt" means deny without a terminal).
    public func ask(_ question: String) -> Bool? {
        guard canPrompt else { return nil }
        streams.err(TerminalText.sanitized(question, styled: false) + " [y/N] ")
        let answer = (streams.readAnswer() ?? "").trimmingWhitespaceAndNewlines().lowercased()
        return answer == "y" || answer == "yes"
    }

    /// A progress indicator on stderr, shown only when stderr is a terminal, not quiet, and not in json mode.
    public func progress(_ title: String) -> Progress {
        Progress(title: title, enabled: streams.stderrIsTerminal && !quiet && outputFormat == .text, streams: streams)
    }
}

/// The items of a streaming command, written as they come: JSON lines, one JSON array (opened at the first item,
/// closed when the command ends), or text.
final class ItemStream: @unchecked Sendable {
    private let format: OutputFormat
    private let streams: StandardStreams
    private let style: TextStyle
    private let state = Mutex<(opened: Bool, count: Int)>((false, 0))

    init(format: OutputFormat, streams: StandardStreams, style: TextStyle) {
        self.format = format
        self.streams = streams
        self.style = style
    }

    func emit(_ model: any Renderable) {
        state.withLock { state in
            switch format {
            case .jsonl:
                streams.out(model.json.serialized() + "\n")
            case .json:
                streams.out((state.count == 0 ? "[\n" : ",\n") + model.json.serialized())
            case .text:
                let text = TerminalText.sanitized(model.text(style: style), styled: style.colorEnabled)
                streams.out(text.hasSuffix("\n") || text.isEmpty ? text : text + "\n")
            }
            state.count += 1
            state.opened = true
        }
    }

    /// Closes the JSON array (an empty stream is `[]`): json output is always exactly one document.
    func finish() {
        state.withLock { state in
            guard format == .json else { return }
            streams.out(state.count == 0 ? "[]\n" : "\n]\n")
        }
    }
}

extension Array where Element == ArgumentSpec {
    /// Distributes positional words over the declared arguments: each required/optional takes one word in order,
    /// a variadic argument takes what is left. An optional argument right before a variadic one takes its word only
    /// when the word is a valid value of its type (or of neither): `read-state [CANISTER] PATH…`
    /// reads `read-state /time` as a path.
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
                if spec.optional, index + 1 < count, self[index + 1].variadic, spec.source != .content,
                   spec.validate(word) != nil, self[index + 1].validate(word) == nil { continue }
                result[spec.name] = [word]
                remaining = remaining.dropFirst()
            }
        }
        return result
    }
}
