import OmniCodec

extension CommandLineTool {
    /// Commands every tool built on this framework has.
    static var builtins: [Command] { [helpCommand, completionsCommand, dumpHelpCommand, generateDocsCommand] }

    // MARK: help

    static let helpWords = Argument<String>("COMMAND", help: "A command path (e.g. 'candid decode') or a help topic.",
                                           variadic: true)

    static let helpCommand = Command(
        "help", abstract: "Show help for a command or a topic.",
        arguments: [helpWords.spec],
        examples: [Example("omni help candid decode", "Full help for one command."),
                   Example("omni help exit-codes", "What each exit code means.")],
        section: "Help and setup"
    ) { invocation in
        let tool = invocation.tool
        let words = try invocation.arguments(helpWords)
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
              zsh:   omni completions zsh > "${fpath[1]}/_omni"
              fish:  omni completions fish > ~/.config/fish/completions/omni.fish
            """,
        arguments: [shellArgument.spec],
        examples: [Example("omni completions bash > /etc/bash_completion.d/omni", "Install bash completions.")],
        section: "Help and setup"
    ) { invocation in
        let shell = try invocation.argument(shellArgument) ?? .bash
        let tool = invocation.tool
        let script = CompletionGenerator(toolName: tool.name, root: tool.root, globalOptions: globalOptions)
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

    /// The command tree as versioned JSON: the single source for generated reference docs.
    public func dumpHelp() -> JSONValue {
        var top = JSONObject()
        top["serialization_version"] = 1
        top["tool"] = .string(name)
        top["global_options"] = .array(Self.globalOptions.filter { !$0.hidden }.map(Self.dumpOption))
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
            object["output_aliases"] = .object(JSONObject(command.outputAliases.sorted { $0.key < $1.key }
                .map { ($0.key, .string($0.value.rawValue)) }))
        }
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
        object["value_source"] = .string(spec.source.rawValue)
        if case .values(let values) = spec.completion { object["values"] = .array(values.map { .string($0) }) }
        if let group = spec.group { object["group"] = .string(group) }
        return .object(object)
    }
}
