/// Completion by the program itself (`omni __complete-line -- WORDS…`), for the parts of the tree no script written in
/// advance can know (groups built at run time). The words are those after the program name; the last is the one
/// being completed (possibly empty). Prints one candidate per line, or `__file__` / `__dir__` for the shell's own.
struct LineCompletion {
    let root: Command
    let globalOptions: [OptionSpec]
    let completers: [String: @Sendable (Invocation) throws -> [String]]

    func candidates(_ words: [String], invocation: Invocation) -> [String] {
        guard let current = words.last else { return [] }
        var path = [root]
        var index = 0
        var positionals = 0
        let typed = words.dropLast()
        func options() -> [OptionSpec] { path[path.count - 1].options + globalOptions }
        while index < typed.count {
            let word = typed[typed.startIndex + index]
            index += 1
            if word.hasPrefix("-"), word.count > 1 {
                if word.contains("=") { continue }
                let spec = word.hasPrefix("--")
                    ? options().first { $0.longFlag == word }
                    : options().first { $0.shortFlag == word }
                if spec?.takesValue == true { index += 1 }
                continue
            }
            if positionals == 0, let sub = path[path.count - 1].subcommand(named: word) {
                path.append(sub)
            } else {
                positionals += 1
            }
        }
        let command = path[path.count - 1]
        if let previous = typed.last, previous.hasPrefix("-"), !previous.contains("="),
           let spec = options().first(where: { $0.longFlag == previous || $0.shortFlag == previous }), spec.takesValue {
            return values(spec.completion, prefix: current, invocation: invocation)
        }
        if current.hasPrefix("-") {
            let flags = options().filter { !$0.hidden }.flatMap { [$0.longFlag] + ($0.shortFlag.map { [$0] } ?? []) } + ["--help"]
            return flags.filter { $0.hasPrefix(current) }
        }
        let subcommands = positionals == 0 ? command.visibleSubcommands.map(\.name).filter { $0.hasPrefix(current) } : []
        if !subcommands.isEmpty { return subcommands }
        let arguments = command.arguments
        let next = arguments.indices.contains(positionals) ? arguments[positionals] : arguments.last { $0.variadic }
        return next.map { values($0.completion, prefix: current, invocation: invocation) } ?? []
    }

    private func values(_ hint: CompletionHint, prefix: String, invocation: Invocation) -> [String] {
        switch hint {
        case .none: return []
        case .file: return ["__file__"]
        case .directory: return ["__dir__"]
        case .values(let values): return values.filter { $0.hasPrefix(prefix) }
        case .dynamic(let list):
            return ((try? completers[list]?(invocation)) ?? []).filter { $0.hasPrefix(prefix) }
        }
    }
}
