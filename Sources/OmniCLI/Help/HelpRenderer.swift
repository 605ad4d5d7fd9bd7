/// Renders help in the swift-argument-parser layout (OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS) with an
/// EXAMPLES section and a pointer to deeper help.
struct HelpRenderer {
    let toolName: String
    let globalOptions: [OptionSpec]
    let topics: [HelpTopic]
    let style: TextStyle
    /// Wrap width; help reads best at ≤ 100 columns even on wide terminals.
    var width: Int { min(style.width ?? 100, 100) }

    func render(path: [Command]) -> String {
        let command = path[path.count - 1]
        let isRoot = path.count == 1
        var sections: [String] = []

        var overview = style.bold("OVERVIEW:") + " " + command.abstract
        if let discussion = command.discussion { overview += "\n\n" + wrap(discussion, indent: 0) }
        sections.append(overview)

        sections.append(style.bold("USAGE:") + " " + usage(path: path))

        let arguments = command.arguments
        if !arguments.isEmpty {
            sections.append(style.bold("ARGUMENTS:") + "\n" + arguments.map { argument in
                row(argumentLabel(argument), argument.help + sourceNote(argument.source))
            }.joined(separator: "\n"))
        }

        // A command with its own `--output` names lists the option among its own, with those names.
        let outputOption = command.outputAliases.isEmpty ? []
            : globalOptions.filter { $0.name == CommandLineTool.outputOption.spec.name }.map(command.applying)
        let options = command.visibleOptions + outputOption
        let grouped = Dictionary(grouping: options, by: { $0.group ?? "OPTIONS" })
        let groupOrder = options.map { $0.group ?? "OPTIONS" }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        for group in groupOrder {
            let options = grouped[group] ?? []
            sections.append(style.bold(group.uppercased() + ":") + "\n" + options.map(optionRow).joined(separator: "\n"))
        }
        if !command.relations.isEmpty {
            sections.append(style.bold("RULES:") + "\n" + command.relations.map { "  " + wrap($0.summary, indent: 2, firstLineUsed: 2) }
                .joined(separator: "\n"))
        }

        if isRoot {
            sections.append(style.bold("GLOBAL OPTIONS:") + "\n"
                + (globalOptions.filter { !$0.hidden }.map(optionRow) + [row("-h, --help", "Show help for any command.")])
                .joined(separator: "\n"))
        } else if command.isRunnable {
            let flags = globalOptions.filter { !$0.hidden }.map { spec in
                spec.shortFlag.map { "\($0)/\(spec.longFlag)" } ?? spec.longFlag
            }
            sections.append(style.bold("GLOBAL OPTIONS:") + " " + (flags + ["-h/--help"]).joined(separator: ", ")
                + " (see '\(toolName) --help')")
        }

        let visible = command.visibleSubcommands
        if !visible.isEmpty {
            let bySection = Dictionary(grouping: visible, by: { $0.section ?? "SUBCOMMANDS" })
            let order = visible.map { $0.section ?? "SUBCOMMANDS" }.reduce(into: [String]()) {
                if !$0.contains($1) { $0.append($1) }
            }
            for name in order {
                let rows = (bySection[name] ?? []).map { row($0.name, $0.abstract) }
                sections.append(style.bold(name.uppercased() + ":") + "\n" + rows.joined(separator: "\n"))
            }
        }

        if isRoot, !topics.isEmpty {
            sections.append(style.bold("HELP TOPICS:") + "\n"
                + topics.map { row($0.name, $0.abstract) }.joined(separator: "\n"))
        }

        if !command.examples.isEmpty {
            sections.append(style.bold("EXAMPLES:") + "\n" + command.examples.map { example in
                "  $ " + example.commandLine + "\n" + wrap(example.explanation, indent: 6)
            }.joined(separator: "\n"))
        }

        if !visible.isEmpty {
            sections.append("See '\(toolName) help \(path.dropFirst().map(\.name).joined(separator: " "))\(isRoot ? "" : " ")<subcommand>' for detailed help.")
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    func render(topic: HelpTopic, root: Command) -> String {
        let text = topic.text(root: root)
        return style.bold(topic.name.uppercased()) + " — " + topic.abstract + "\n\n" + text + (text.hasSuffix("\n") ? "" : "\n")
    }

    /// `omni candid encode [<values>] [--types <types>] …`: required options spelled out, the rest summarised.
    func usage(path: [Command]) -> String {
        let command = path[path.count - 1]
        var parts = [path.map(\.name).joined(separator: " ")]
        if !command.visibleSubcommands.isEmpty && !command.isRunnable {
            parts.append("<subcommand>")
        }
        for option in command.visibleOptions where option.takesValue {
            let text = "\(option.longFlag) <\(option.valueName.lowercased())>\(option.repeating ? " ..." : "")"
            parts.append(option.required ? text : "[\(text)]")
        }
        for option in command.visibleOptions where !option.takesValue {
            parts.append("[\(option.longFlag)]")
        }
        for argument in command.arguments {
            var label = "<\(argument.name.lowercased())>"
            if argument.variadic { label += " ..." }
            parts.append(argument.optional || argument.variadic ? "[\(label)]" : label)
        }
        return wrap(parts.joined(separator: " "), indent: 7, firstLineUsed: 7)
    }

    private func argumentLabel(_ argument: ArgumentSpec) -> String {
        "<\(argument.name.lowercased())>" + (argument.variadic ? " ..." : "")
    }

    private func sourceNote(_ source: ValueSource) -> String {
        switch source {
        case .content: " Give the value itself, @FILE to read a file, or - for stdin."
        case .path, .literal: ""
        }
    }

    private func optionRow(_ option: OptionSpec) -> String {
        var label = option.shortFlag.map { $0 + ", " } ?? "    "
        label += option.longFlag
        if option.takesValue { label += " <\(option.valueName.lowercased())>" }
        var text = option.help + sourceNote(option.source)
        var notes: [String] = []
        if case .values(let values) = option.completion, !values.isEmpty, values.count <= 8,
           !option.help.contains(values[0]) {
            notes.append("values: " + values.joined(separator: ", "))
        }
        if option.required { notes.append("required") }
        if let defaultDescription = option.defaultDescription { notes.append("default: " + defaultDescription) }
        if let environment = option.environment { notes.append("env: " + environment) }
        if option.repeating && option.takesValue { notes.append("repeatable") }
        if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
        return row(label, text)
    }

    /// A two-column row: label in a 28-column gutter, text wrapped beside it (or below when the label is long).
    private func row(_ label: String, _ text: String) -> String {
        let gutter = 28
        let head = "  " + label
        let body = wrap(text, indent: gutter, firstLineUsed: gutter)
        if head.count + 2 <= gutter {
            return head + String(repeating: " ", count: gutter - head.count) + body
        }
        return head + "\n" + String(repeating: " ", count: gutter) + body
    }

    /// Greedy word wrap. `firstLineUsed` columns are already taken on the first line.
    func wrap(_ text: String, indent: Int, firstLineUsed: Int? = nil) -> String {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = lines.isEmpty ? (firstLineUsed ?? indent) : indent
            let pad = String(repeating: " ", count: indent)
            var first = lines.isEmpty
            if paragraph.isEmpty { lines.append(""); continue }
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                if !line.isEmpty, used + line.count + 1 + word.count > width {
                    lines.append((first ? (firstLineUsed == nil ? pad : "") : pad) + line)
                    first = false
                    line = String(word)
                    used = indent
                } else {
                    line += (line.isEmpty ? "" : " ") + word
                }
            }
            lines.append((first ? (firstLineUsed == nil ? pad : "") : pad) + line)
        }
        return lines.joined(separator: "\n")
    }
}
