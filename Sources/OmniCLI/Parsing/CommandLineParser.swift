/// The result of matching a command line against the command tree, before any value is read or converted.
public struct ParsedCommandLine {
    /// Root first, the selected command last.
    public var path: [Command]
    /// Raw option values by long name, in command-line order. Flags record "true" once per occurrence.
    public var options: [String: [String]]
    public var positionals: [String]
    /// `-h`/`--help` was given somewhere on the line.
    public var helpRequested: Bool

    public var command: Command { path[path.count - 1] }
    public var commandNames: [String] { path.map(\.name) }
}

/// Matches arguments to the tree. Rules (documented in `omni help formatting` too):
/// - `--name value`, `--name=value`, `-n value`, `-nvalue`, clustered short flags `-qv`;
/// - global options may appear anywhere; a command's options apply to that command;
/// - `--` ends option parsing; a lone `-` is a value (stdin);
/// - no abbreviations: unknown words get a "did you mean" suggestion instead.
struct CommandLineParser {
    let root: Command
    let globalOptions: [OptionSpec]

    func parse(_ arguments: [String]) throws(CLIError) -> ParsedCommandLine {
        var result = ParsedCommandLine(path: [root], options: [:], positionals: [], helpRequested: false)
        var index = 0
        var optionsEnded = false
        // After the first positional of a command that captures its remaining words: options it does not know are
        // words too (the global ones still apply, so `-o json` keeps its meaning anywhere on the line).
        var capturing = false
        // `--output` values outside the global formats, checked once the command (and so its aliases) is known.
        var pendingOutputNames: [String] = []

        func available() -> [OptionSpec] { result.command.options + globalOptions }
        func names() -> [String] { result.commandNames }

        func record(_ spec: OptionSpec, _ value: String) throws(CLIError) {
            if let validate = spec.validate, spec.source != .content, let problem = validate(value) {
                guard spec.name == CommandLineTool.outputOption.spec.name else {
                    let message = "invalid value '\(TerminalText.escaped(value))' for \(spec.longFlag): \(problem)"
                    throw spec.invalidIsMalformedInput ? CLIError(.input, message) : .usage(message, commandPath: names())
                }
                pendingOutputNames.append(value)
            }
            if !spec.repeating, result.options[spec.name] != nil {
                throw .usage("option \(spec.longFlag) given more than once", commandPath: names())
            }
            result.options[spec.name, default: []].append(value)
        }

        while index < arguments.count {
            let token = arguments[index]
            index += 1

            if optionsEnded || !looksLikeOption(token) {
                if !optionsEnded, !capturing, result.positionals.isEmpty, let sub = result.command.subcommand(named: token) {
                    result.path.append(sub)
                    continue
                }
                if !result.command.subcommands.isEmpty && !result.command.isRunnable && result.positionals.isEmpty {
                    if result.helpRequested { continue }
                    let candidates = result.command.visibleSubcommands.map(\.name)
                    let where_ = result.path.count == 1 ? "" : " for '\(names().joined(separator: " "))'"
                    let closest = Suggestions.closest(to: token, in: candidates)
                    // Without a close match, listing the choices is the most useful hint.
                    let choices = closest == nil ? "; commands: " + candidates.joined(separator: ", ") : ""
                    throw .usage("unknown command '\(token)'\(where_)\(choices)",
                                 suggestion: closest.map { (names() + [$0]).joined(separator: " ") },
                                 commandPath: names())
                }
                result.positionals.append(token)
                if result.command.capturesRemainingWords { capturing = true }
                continue
            }

            if token == "--" {
                if capturing { result.positionals.append(token) }
                optionsEnded = true
                continue
            }
            if capturing, !isKnownOption(token, available()) {
                result.positionals.append(token)
                continue
            }

            if token.hasPrefix("--") {
                let body = token.dropFirst(2)
                let name: String
                var inlineValue: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inlineValue = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                }
                if name == "help" { result.helpRequested = true; continue }
                guard let spec = available().first(where: { $0.name == name }) else {
                    let candidates = available().filter { !$0.hidden }.map(\.longFlag) + ["--help"]
                    throw .usage("unknown option '--\(name)'" + context(names()),
                                 suggestion: Suggestions.closest(to: "--" + name, in: candidates),
                                 commandPath: names())
                }
                if !spec.takesValue {
                    if inlineValue != nil { throw .usage("option \(spec.longFlag) takes no value", commandPath: names()) }
                    result.options[spec.name, default: []].append("true")
                    continue
                }
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count, !looksLikeOption(arguments[index]) {
                    value = arguments[index]
                    index += 1
                } else {
                    throw .usage("option \(spec.longFlag) needs a value (\(spec.valueName))",
                                 suggestion: dashValueSpelling(spec, next: arguments.dropFirst(index).first),
                                 commandPath: names())
                }
                try record(spec, value)
                continue
            }

            // Short options: "-h", "-qv", "-o json", "-ojson".
            var characters = Array(token.dropFirst())
            while !characters.isEmpty {
                let letter = characters.removeFirst()
                if letter == "h" { result.helpRequested = true; continue }
                guard let spec = available().first(where: { $0.short == letter }) else {
                    let candidates = available().filter { !$0.hidden }.compactMap(\.shortFlag) + ["-h"]
                    throw .usage("unknown option '-\(letter)'" + context(names()),
                                 suggestion: Suggestions.closest(to: "-" + String(letter), in: candidates),
                                 commandPath: names())
                }
                if !spec.takesValue {
                    result.options[spec.name, default: []].append("true")
                    continue
                }
                let value: String
                if !characters.isEmpty {
                    value = String(characters)
                    characters.removeAll()
                } else if index < arguments.count, !looksLikeOption(arguments[index]) {
                    value = arguments[index]
                    index += 1
                } else {
                    throw .usage("option -\(letter) needs a value (\(spec.valueName))",
                                 suggestion: dashValueSpelling(spec, next: arguments.dropFirst(index).first),
                                 commandPath: names())
                }
                try record(spec, value)
            }
        }
        for name in pendingOutputNames where result.command.outputAlias(named: name) == nil {
            throw .usage("invalid value '\(name)' for \(CommandLineTool.outputOption.spec.longFlag): expected one of "
                         + result.command.outputNames.joined(separator: ", "), commandPath: names())
        }
        return result
    }

    /// Whether every option a word names (`--name`, `--name=v`, `-x`, a `-qv` cluster) is one of `options`.
    private func isKnownOption(_ word: String, _ options: [OptionSpec]) -> Bool {
        if word.hasPrefix("--") {
            let name = word.dropFirst(2).split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return name == "help" || options.contains { $0.name == name }
        }
        for letter in word.dropFirst() {
            guard letter == "h" || options.contains(where: { $0.short == letter }) else { return false }
            if options.first(where: { $0.short == letter })?.takesValue == true { return true }
        }
        return true
    }

    private func context(_ path: [String]) -> String {
        path.count > 1 ? " for '\(path.joined(separator: " "))'" : ""
    }

    /// A word is an option when it starts with `-` and is not `-` (stdin), a negative number (`-5`), or text that
    /// starts with three dashes: no option name starts with a dash, so `-----BEGIN …` (a PEM block) is a value.
    private func looksLikeOption(_ word: String) -> Bool {
        word.count > 1 && word.hasPrefix("-") && !word.hasPrefix("---") && !isNegativeNumber(word)
    }

    /// A value that starts with '-' (a base64url session id, say) reads as an option after a space, so it is
    /// written attached: the hint spells that for the word that followed.
    private func dashValueSpelling(_ spec: OptionSpec, next: String?) -> String? {
        guard let next, looksLikeOption(next) else { return nil }
        return spec.longFlag + "=" + next
    }

    private func isNegativeNumber(_ word: String) -> Bool {
        guard word.count > 1, word.hasPrefix("-") else { return false }
        let rest = word.dropFirst()
        return rest.first.map { $0.isNumber || $0 == "." } ?? false
    }
}

/// Typo suggestions by Damerau–Levenshtein distance; never used to run anything, only to hint.
public enum Suggestions {
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = max(1, min(3, word.count / 3))
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(word.lowercased(), candidate.lowercased())
            if d <= limit, d < (best?.1 ?? Int.max) { best = (candidate, d) }
        }
        if best == nil, word.count >= 3 {
            // A prefix is a strong hint even when the edit distance is large ("--out" → "--output").
            best = candidates.first { $0.hasPrefix(word) }.map { ($0, 0) }
        }
        return best?.0
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
