import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniTransport

public enum ConnectCommands {
    public static var group: Command {
        Command(
            "connect", abstract: "Run Iroha Connect sessions: app, headless wallet, local relay, codec and keys.",
            discussion: """
            Iroha Connect pairs a dApp with a wallet through Torii: the app registers a session, hands the wallet a \
            URI, the wallet approves with its account key, and the two exchange encrypted sign requests. omni speaks \
            the current wire generation (gen-b) by default and the March 2026 one with --generation gen-a. Private keys \
            and tokens are read from files or the environment, never as literal options, and are printed only with \
            --show-secrets. The one exception is the wallet URI, which carries the wallet's one-time token by design \
            (it is what the app hands over): give it as @FILE, - or OMNI_CONNECT_URI to keep it out of process lists.
            """,
            section: "Iroha"
        ) {
            [appGroup, ConnectWalletCommand.command, ConnectRelayCommand.command, sessionGroup, uriGroup, frameGroup,
             ConnectKeygenCommand.command, ConnectSIDCommand.command, ConnectDeriveKeysCommand.command]
        }
    }

    static var appGroup: Command {
        Command("app", abstract: "Play the dApp: register a session, wait for the wallet, get one signature.",
                discussion: ConnectAppFlow.discussion,
                options: ConnectAppFlow.options,
                subcommands: [ConnectAppSignRawCommand.command, ConnectAppSignTxCommand.command])
    }

    static var sessionGroup: Command {
        Command("session", abstract: "Register, inspect and delete sessions on a node.",
                subcommands: [ConnectSessionCreateCommand.command, ConnectSessionStatusCommand.command, ConnectSessionDeleteCommand.command])
    }

    static var uriGroup: Command {
        Command("uri", abstract: "Parse and build Connect deep links.",
                subcommands: [ConnectURIParseCommand.command, ConnectURIBuildCommand.command])
    }

    static var frameGroup: Command {
        Command("frame", abstract: "Decode and encode Connect frames (Norito), with byte offsets and decryption.",
                subcommands: [ConnectFrameDecodeCommand.command, ConnectFrameEncodeCommand.command])
    }

    // MARK: - Shared options

    enum Generation: String, CaseIterable, ArgumentValue {
        case genA = "gen-a"
        case genB = "gen-b"

        var generation: ConnectGeneration { self == .genA ? .genA : .genB }
    }

    static let generationOption = DefaultedOption<Generation>(
        "generation", valueName: "GEN", help: "Wire generation: gen-b (current Torii) or gen-a (March 2026).", default: .genB,
        environment: "OMNI_CONNECT_GENERATION", config: "connect.generation", group: "Connect")
    static let node = Option<String>("node", valueName: "URL", help: "Torii (or relay) base URL, e.g. http://127.0.0.1:8080.",
                                     environment: "OMNI_CONNECT_NODE", config: "connect.node", group: "Connect")
    static let networkID = Option<String>("network-id", valueName: "HEX",
                                          help: "Network id (gen-b): 64 hex digits or hash:<HEX>#<CRC>.",
                                          environment: "OMNI_CONNECT_NETWORK_ID", config: "connect.network_id", group: "Connect")
    static let chainID = Option<String>("chain-id", valueName: "CHAIN", help: "Chain id (gen-a).",
                                        environment: "OMNI_CONNECT_CHAIN_ID", config: "connect.chain_id", group: "Connect")
    static let showSecrets = Flag("show-secrets", help: "Print private keys and tokens instead of <redacted>.")
    static let tokenTransport = Option<ConnectTokenTransport>(
        "token-transport", valueName: "HOW", help: "How the WebSocket token is presented: Bearer header, subprotocol, or both.",
        defaultDescription: "header for the app, subprotocol for the wallet", group: "Connect")

    static let redacted = "<redacted>"

    static func generation(_ invocation: Invocation) throws -> ConnectGeneration {
        try invocation.value(generationOption).generation
    }

    static func requireNode(_ invocation: Invocation) throws -> String {
        try invocation.require(node)
    }

    /// The session binding: `--network-id` for gen-b, `--chain-id` for gen-a.
    static func constraints(_ invocation: Invocation, generation: ConnectGeneration) throws -> ConnectConstraints {
        switch generation {
        case .genB:
            return .network(try ConnectNetworkID(parsing: try invocation.require(networkID)))
        case .genA:
            return .chain(try invocation.require(chainID))
        }
    }

    /// A secret option's bytes: `@FILE`, `-` or the option's environment variable — never a literal argument.
    static func secret(_ invocation: Invocation, _ option: Option<String>) throws -> String? {
        if let raw = invocation.parsed.options[option.spec.name]?.last, raw != "-", !raw.hasPrefix("@") || raw.hasPrefix("@@") {
            var message = "\(option.spec.longFlag) is a secret: give it as @FILE or - (stdin)"
            if let environment = option.spec.environment { message += ", or set \(environment)" }
            throw CLIError.usage(message + "; secrets are never taken from the command line", commandPath: invocation.commandPath)
        }
        return try invocation.value(option)?.trimmingWhitespaceAndNewlines()
    }

    static func readFile(_ path: String, label: String) throws -> String {
        String(decoding: try FileInput.read(path, label: label), as: UTF8.self)
    }

    static func secretText(_ value: String, show: Bool) -> JSONValue { .string(show ? value : redacted) }

    static func httpClient() -> HTTPClient { HTTPClient() }
}

/// One streamed event: a JSON line for scripts, a short line for people.
struct ConnectEventLine: Renderable {
    let json: JSONValue
    let textForm: String

    init(_ event: String, _ fields: [(String, JSONValue)] = [], text: String) {
        json = .object(JSONObject([("event", .string(event))] + fields))
        textForm = text
    }

    func text(style: TextStyle) -> String { textForm }
}
