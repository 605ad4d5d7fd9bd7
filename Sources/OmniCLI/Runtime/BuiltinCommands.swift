import OmniCodec

extension CommandLineTool {
    /// Commands every tool built on this framework has.
    static var builtins: [Command] { [helpCommand, completionsCommand, dumpHelpCommand, completeCommand, completeLineCommand, parseCommand,
                                      generateDocsCommand] }

    // MARK: help

    static let helpWords = VariadicArgument<String>("COMMAND", help: "A command path (e.g. 'candid decode') or a help topic.")

    static let helpCommand = Command(
        "help", abstract: "Show help for a command or a topic.",
        arguments: [helpWords],
        examples: [Example("omni help candid decode", "Full help for one command."),
                   Example("omni help exit-codes", "What each exit code means.")],
        section: "Help and setup"
    ) { invocation in
        let tool = invocation.tool
        let words = try invocation.value(helpWords)
        let renderer = tool.helpRenderer(invocation.stdoutStyle)
        if words.count == 1, let topic = tool.topics.first(where: { $0.name == words[0] }) {
            return .output(HelpText(text: renderer.render(topic: topic, root: tool.root), name: topic.name))
        }
        var path = [tool.root]
        for word in words {
            guard let next = path[path.count - 1].subcommand(named: word) else {
                let candidates = path[path.count - 1].visibleSubcommands.map(\.name)
                    + (path.count == 1 ? tool.topics.map(\.name) : [])
                let prefix = path.dropFirst().map(\.name)
                throw CLIError.usage(
                    "no help for '\((prefix + [word]).joined(separator: " "))': unknown command or topic",
                    suggestion: Suggestions.closest(to: word, in: candidates).map {
                        ([tool.name, "help"] + prefix + [$0]).joined(separator: " ")
                    })
            }
            path.append(next)
        }
        return .output(HelpText(text: renderer.render(path: path), name: path.map(\.name).joined(separator: " ")))
    }

    /// Help text as a result: printed verbatim in text mode, wrapped in an object in json mode.
    struct HelpText: Renderable {
        let text: String
        let name: String
        func text(style: TextStyle) -> String { text }
        var json: JSONValue { .object(["topic": .string(name), "text": .string(text)]) }
    }

    // MARK: completions

    static let shellArgument = Argument<Shell>("SHELL", help: "The shell to generate a completion script for.")

    static let completionsCommand = Command(
        "completions", abstract: "Print a completion script for bash, zsh or fish.",
        discussion: """
            The script is generated from the command tree, so it always matches this omni. Install it with \
            'make install', or load it directly:
              bash:  source <(omni completions bash)
              zsh:   source <(omni completions zsh)     (or save it as _omni in a directory of $fpath)
              fish:  omni completions fish | source     (or save it in ~/.config/fish/completions/omni.fish)
            Identity names and other values that change are asked of omni itself when you press Tab.
            """,
        arguments: [shellArgument],
        examples: [Example("omni completions bash > /etc/bash_completion.d/omni", "Install bash completions.")],
        section: "Help and setup"
    ) { invocation in
        let shell = try invocation.value(shellArgument)
        let tool = invocation.tool
        let script = CompletionGenerator(toolName: tool.name, root: tool.root, globalOptions: tool.globalOptions)
            .script(for: shell)
        invocation.streams.out(script)
        return .success
    }

    // MARK: __dump-help

    static let dumpHelpCommand = Command(
        "__dump-help", abstract: "Print the whole command tree as JSON (for documentation generators).",
        hidden: true
    ) { invocation in
        let tree = invocation.tool.dumpHelp()
        return .output(SimpleOutput(text: tree.serialized(pretty: true), json: tree))
    }

    // MARK: __complete

    static let completionList = Argument<String>("LIST", help: "Which list to print (one of the tool's dynamic completions).")

    /// Called by the completion scripts for values that change (identity names): one candidate per line, nothing
    /// at all when the list cannot be read — a completion must never print an error into the user's prompt.
    static let completeCommand = Command(
        "__complete", abstract: "Print the candidates of a dynamic completion, one per line.",
        arguments: [completionList], hidden: true
    ) { invocation in
        let name = try invocation.value(completionList)
        guard let completer = invocation.tool.completers[name] else {
            throw CLIError.usage("no completion list named '\(TerminalText.escaped(name))'", commandPath: invocation.commandPath)
        }
        let candidates = (try? completer(invocation)) ?? []
        invocation.streams.out(candidates.map { $0 + "\n" }.joined())
        return .success
    }

    // MARK: __complete-line

    static let lineWords = VariadicArgument<String>("WORDS", help: "The words typed after the program name, after '--'; the last is being completed.")

    static let completeLineCommand = Command(
        "__complete-line", abstract: "Print the completions of a partly typed command line, one per line.",
        arguments: [lineWords], hidden: true
    ) { invocation in
        let tool = invocation.tool
        let words = try invocation.value(lineWords)
        let candidates = LineCompletion(root: tool.root, globalOptions: tool.globalOptions, completers: tool.completers)
            .candidates(words.isEmpty ? [""] : words, invocation: invocation)
        invocation.streams.out(candidates.map { $0 + "\n" }.joined())
        return .success
    }

    // MARK: __parse

    static let parseWords = VariadicArgument<String>("WORDS", help: "A command line after the program name, after '--'.")

    /// Checks a command line against the tree without running it (the same parser, positional and relation checks
    /// as a real run): help examples are tested this way, never by running them.
    static let parseCommand = Command(
        "__parse", abstract: "Parse a command line without running it; print the command it selects.",
        arguments: [parseWords], hidden: true
    ) { invocation in
        let tool = invocation.tool
        let words = try invocation.value(parseWords)
        let parsed = try CommandLineParser(root: tool.root, globalOptions: tool.globalOptions).parse(words)
        if parsed.command.isRunnable, !parsed.helpRequested {
            try tool.checkPositionals(parsed)
            try tool.checkRelations(parsed)
        }
        let path = parsed.commandNames.joined(separator: " ")
        return .output(SimpleOutput(text: path, json: .object(["command": .string(path),
                                                                 "help": .bool(parsed.helpRequested)])))
    }

    /// The command tree as versioned JSON: the single source for generated reference docs.
    public func dumpHelp() -> JSONValue {
        var top = JSONObject()
        top["serialization_version"] = 1
        top["tool"] = .string(name)
        top["global_options"] = .array(globalOptions.filter { !$0.hidden }.map(Self.dumpOption))
        top["topics"] = .array(topics.map { .object(["name": .string($0.name), "abstract": .string($0.abstract)]) })
        top["command"] = dumpCommand(root, [name])
        return .object(top)
    }

    /// The commands along a path of names, root first.
    func resolve(_ path: [String]) -> [Command] {
        var result = [root]
        for word in path.dropFirst() {
            guard let next = result[result.count - 1].subcommand(named: word) else { break }
            result.append(next)
        }
        return result
    }

    private func dumpCommand(_ command: Command, _ path: [String]) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(command.name)
        object["path"] = .string(path.joined(separator: " "))
        object["abstract"] = .string(command.abstract)
        if let discussion = command.discussion { object["discussion"] = .string(discussion) }
        object["usage"] = .string(helpRenderer(.plain).usage(path: resolve(path)))
        object["runnable"] = .bool(command.isRunnable)
        object["arguments"] = .array(command.arguments.map { argument in
            .object(["name": .string(argument.name), "help": .string(argument.help),
                     "optional": .bool(argument.optional), "variadic": .bool(argument.variadic),
                     "value_source": .string(argument.source.rawValue)])
        })
        object["options"] = .array(command.visibleOptions.map { Self.dumpOption($0) })
        if !command.outputAliases.isEmpty {
            object["output_aliases"] = .object(JSONObject(command.outputAliases.sorted { $0.name < $1.name }
                .map { ($0.name, .object(["format": .string($0.format.rawValue), "meaning": .string($0.meaning)])) }))
        }
        if !command.relations.isEmpty {
            object["relations"] = .array(command.relations.map {
                .object(["kind": .string($0.kind.rawValue), "parameters": .array($0.names.map { .string($0) })])
            })
        }
        if let streaming = command.streaming.summary { object["streaming"] = .string(streaming) }
        object["examples"] = .array(command.examples.map {
            .object(["command": .string($0.commandLine), "explanation": .string($0.explanation)])
        })
        object["subcommands"] = .array(command.visibleSubcommands.map { dumpCommand($0, path + [$0.name]) })
        return .object(object)
    }

    static func dumpOption(_ spec: OptionSpec) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(spec.longFlag)
        if let short = spec.shortFlag { object["short"] = .string(short) }
        object["takes_value"] = .bool(spec.takesValue)
        if spec.takesValue { object["value_name"] = .string(spec.valueName) }
        object["help"] = .string(spec.help)
        if let value = spec.defaultDescription { object["default"] = .string(value) }
        if let env = spec.environment { object["environment"] = .string(env) }
        if let key = spec.configKey { object["config_key"] = .string(key) }
        object["repeating"] = .bool(spec.repeating && spec.takesValue)
        if spec.required { object["required"] = true }
        object["value_source"] = .string(spec.source.rawValue)
        if case .values(let values) = spec.completion { object["values"] = .array(values.map { .string($0) }) }
        if case .dynamic(let list) = spec.completion { object["dynamic_values"] = .string(list) }
        if let group = spec.group { object["group"] = .string(group) }
        return .object(object)
    }
}
