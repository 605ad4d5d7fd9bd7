import OmniCLI
import OmniIrd

/// `omni ird …`: the ird control plane, built from the service's own OpenAPI document at run time.
public enum IrdCommands {
    static let words = VariadicArgument<String>(
        "COMMAND", help: "An area and an operation of the OpenAPI document, with their arguments (see 'omni ird spec show').")

    public static var group: Command {
        var group = Command(
            "ird", abstract: "The ird API (domains, DNS, servers, IPFS, tunnels, credits, …), driven by its OpenAPI document.",
            discussion: """
                Every operation of the service's OpenAPI document is a command: 'omni ird AREA OPERATION', the area from \
                the operation's tag and the name from its operationId, both in kebab-case (see 'omni ird spec show' for \
                the list and docs/ird.md for the naming rules). Path parameters are arguments, query parameters flags, \
                the body comes from --json or -F/-f fields. Requests are checked against the document before they are \
                sent and answers after they arrive. Fetch the document first with 'omni ird spec fetch'.
                """,
            section: "Services"
        ) { environment in children(environment) }
        group.arguments = [words.spec]
        group.capturesRemainingWords = true
        group.body = { invocation in try unknownCommand(invocation) }
        return group
    }

    /// Commands omni adds to an area of its own name, next to the document's operations there (they keep their names,
    /// the document's take the naming rules' fallbacks). The flows written once in omni join here: `jobs run` in
    /// "jobs", `ipfs add` in "ipfs", a `gate` group of its own; a leaf such as `login` goes in `reservedAreas` and
    /// `children(_:)`.
    static var builtinAreas: [(name: String, abstract: String, commands: [Command])] {
        [("spec", "", []),
         ("auth", "Credentials: which one omni uses, the stored session, and the document's auth operations.",
          [IrdAuthCommands.status, IrdAuthCommands.logout]),
         ("jobs", "Jobs: 'run' enqueues one and waits for its result, next to the document's job operations.",
          [IrdJobsCommand.run]),
         ("ipfs", "IPFS: 'add' uploads a file (streamed, any size) and waits until it is pinned, next to the document's operations.",
          [IrdIpfsCommand.add]),
         ("gate", "The domain gate: which operations it checks and why, and its registration index.",
          [IrdGate.explain, IrdGate.refresh])]
    }

    static var builtinNames: [String: Set<String>] {
        var names = Dictionary(uniqueKeysWithValues: builtinAreas.map { ($0.name, Set($0.commands.map(\.name))) })
        names["spec"] = Set(IrdSpecCommands.group.subcommands.map(\.name))
        return names
    }

    /// omni's own commands under `ird` that are not groups: no area may take their names.
    static let reservedAreas: Set<String> = ["api", "login", "logout", "help"]

    static func children(_ environment: [String: String]) -> [Command] {
        let loaded: IrdLoadedDocument? = if case .success(let document)? = IrdDocumentLoader.load(environment) { document } else { nil }
        var spec = IrdSpecCommands.group
        spec.section = "omni's own"
        var api = IrdApiCommand.command
        api.section = "omni's own"
        var login = IrdLoginCommand.command
        login.section = "omni's own"
        var logout = IrdAuthCommands.logout
        logout.section = "omni's own"
        var result = [spec, api, login, logout]
        let documentAreas = loaded?.index.areas ?? []
        for builtin in builtinAreas where builtin.name != "spec" {
            let area = documentAreas.first { $0.name == builtin.name }
            let operations = area.map { area in area.entries.map { IrdOperationCommand.make($0, area: area.name, loaded: loaded!) } } ?? []
            result.append(Command(builtin.name, abstract: builtin.abstract, section: "omni's own",
                                  subcommands: { builtin.commands + operations }))
        }
        guard let loaded else { return result }
        for area in loaded.index.areas where !builtinAreas.contains(where: { $0.name == area.name }) {
            let count = area.entries.count
            let abstract = area.description.map(IrdOperationCommand.oneLine) ?? "Operations tagged '\(area.tag)' (\(count))."
            result.append(Command(area.name, abstract: abstract, section: "Operations (from the OpenAPI document)") {
                area.entries.map { IrdOperationCommand.make($0, area: area.name, loaded: loaded) }
            })
        }
        return result
    }

    /// `omni ird WORD …` where WORD is no command: without a document that is every operation, so say how to get one
    /// (exit 7); with one, it is a typo (exit 2, with a suggestion).
    static func unknownCommand(_ invocation: Invocation) throws -> CommandResult {
        let typed = try invocation.value(words)
        let loaded: IrdLoadedDocument
        switch IrdDocumentLoader.load(invocation.environment) {
        case nil: throw IrdError(.noDocument, IrdDocumentLoader.howToGetOne(invocation.environment, needed: "'omni ird \(typed.first ?? "")'"))
        case .failure(let error)?: throw error
        case .success(let document)?: loaded = document
        }
        let names = children(invocation.environment).map(\.name)
        let word = typed.first ?? ""
        _ = loaded
        let closest = Suggestions.closest(to: word, in: names)
        throw CLIError.usage("unknown command '\(TerminalText.escaped(word))' for 'omni ird'" + (closest == nil ? "; commands: " + names.joined(separator: ", ") : ""),
                             suggestion: closest.map { "omni ird \($0)" }, commandPath: invocation.commandPath)
    }
}
