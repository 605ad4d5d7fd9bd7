// omni: the command tree, assembled. Everything else lives in the libraries.
import OmniCLI
import OmniCommands

let tool = CommandLineTool(
    name: "omni", version: VersionCommand.version,
    root: Command(
        "omni",
        abstract: "Verified Internet Computer calls, Candid, Iroha Connect, TrUAPI, App Attest and ird from one CLI.",
        subcommands: [
            CandidCommands.group,
            ICCommands.group,
            ConnectCommands.group,
            TruAPICommands.group,
            AttestCommands.group,
            IrdCommands.group,
            VersionCommand.command,
        ]),
    topics: HelpTopics.all,
    globalOptions: ProgramGlobals.options,
    completers: ProgramGlobals.completers,
    errorMapper: { ErrorMapping.report($0) })
tool.main()
