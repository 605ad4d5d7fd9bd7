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
            and tokens are read from files that only you may read (options ending in -file, or stdin with -), never \
            from the command line, and are printed only with --show-secrets. The wallet URI carries the wallet's \
            one-time token (it is what the app hands over), so 'connect wallet' takes it only as @FILE, - or \
            OMNI_CONNECT_URI; 'connect uri parse' shows the token redacted unless --show-secrets.
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

    static let generationOption = DefaultedOption<ConnectGeneration>(
        "generation", valueName: "GEN", help: "Wire generation: gen-b (current Torii) or gen-a (March 2026).", default: .genB,
        environment: "OMNI_CONNECT_GENERATION", config: "connect.generation", group: "Connect")
    static let node = RequiredOption<String>("node", valueName: "URL", help: "Torii (or relay) base URL, e.g. http://127.0.0.1:8080.",
                                             environment: "OMNI_CONNECT_NODE", config: "connect.node", group: "Connect")
    static let networkID = Option<ConnectNetworkID>("network-id", valueName: "ID",
                                                    help: "Network id (gen-b): 64 hex digits or hash:<HEX>#<CRC>.",
                                                    environment: "OMNI_CONNECT_NETWORK_ID", config: "connect.network_id", group: "Connect")
    static let chainID = Option<String>("chain-id", valueName: "CHAIN", help: "Chain id (gen-a).",
                                        environment: "OMNI_CONNECT_CHAIN_ID", config: "connect.chain_id", group: "Connect")
    static let showSecrets = Flag("show-secrets", help: "Print private keys and tokens instead of <redacted>.")

    static let redacted = "<redacted>"

    /// The session binding: `--network-id` for gen-b, `--chain-id` for gen-a (which one depends on the generation,
    /// so it cannot be a declared relation).
    static func constraints(_ invocation: Invocation, generation: ConnectGeneration) throws -> ConnectConstraints {
        switch generation {
        case .genB:
            guard let network = try invocation.value(networkID) else {
                throw CLIError.usage("gen-b binds a session to a network: give --network-id ID (or set OMNI_CONNECT_NETWORK_ID)",
                                     commandPath: invocation.commandPath)
            }
            return .network(network)
        case .genA:
            guard let chain = try invocation.value(chainID) else {
                throw CLIError.usage("gen-a binds a session to a chain: give --chain-id CHAIN (or set OMNI_CONNECT_CHAIN_ID)",
                                     commandPath: invocation.commandPath)
            }
            return .chain(chain)
        }
    }

    /// The text of a secret file (a private key, a token): refused when others may read it, strictly UTF-8, trimmed.
    static func secretText(_ invocation: Invocation, _ file: InputFile, label: String) throws -> String {
        let bytes = try invocation.readSecret(file, label: label)
        do {
            return try UTF8Validation.string(bytes).trimmingWhitespaceAndNewlines()
        } catch {
            throw error.labelled("\(label) \(file.displayName)")
        }
    }

    static func secretText(_ value: String, show: Bool) -> JSONValue { .string(show ? value : redacted) }

    static func httpClient() -> HTTPClient { HTTPClient() }

    /// A session event: an item of the command's stream, except that progress ("joined", "waiting…") goes to stderr
    /// as a note in text mode, so stdout keeps only what a person or a pipe needs.
    static func emit(_ invocation: Invocation, _ event: ConnectEventLine, progress: Bool = false) {
        if progress, !invocation.outputFormat.isJSON {
            invocation.note(event.textForm)
        } else {
            invocation.emitItem(event)
        }
    }
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
