import OmniCLI
import OmniCodec
import OmniSystem
import OmniTransport
import OmniTruAPI
import Synchronization

/// True the first time it is asked, false after (one warning for a failure that repeats).
final class OnceFlag: Sendable {
    private let used = Mutex(false)

    func first() -> Bool {
        used.withLock { used in
            defer { used = true }
            return !used
        }
    }
}

/// `--token auto|@FILE|none`. A token is a secret, so it is never accepted as a literal word on the command line.
enum BridgeTokenChoice: ArgumentValue, Equatable {
    case auto
    case none
    case file(String)

    init?(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "none": self = .none
        default:
            guard argument.hasPrefix("@"), argument.count > 1 else { return nil }
            self = .file(String(argument.dropFirst()))
        }
    }

    static var expectation: String { "auto, none or @FILE (a token is a secret: never give it as a literal)" }
    static var allValueStrings: [String] { [] }

    var argumentText: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .file(let path): "@" + path
        }
    }
}

/// `--chain-role ROLE=GENESIS`: a role of `get_chain_info` and the 32-byte genesis hash that serves it.
struct ChainRoleAssignment: ArgumentValue {
    let role: TruAPIChainSet.Role
    let genesis: [UInt8]

    init?(argument: String) {
        guard Self.problem(with: argument) == nil, let equals = argument.firstIndex(of: "="),
              let role = TruAPIChainSet.Role(loosely: String(argument[..<equals])),
              let genesis = try? Hex.decode(argument[argument.index(after: equals)...], allowPrefix: true) else { return nil }
        self.role = role
        self.genesis = genesis
    }

    static var expectation: String { "ROLE=GENESIS: Relay, AssetHub, People or Bulletin, then 32 bytes of hex" }
    static var isData: Bool { true }

    static func problem(with text: String) -> String? {
        guard let equals = text.firstIndex(of: "=") else { return "expected " + expectation }
        guard TruAPIChainSet.Role(loosely: String(text[..<equals])) != nil else {
            return "unknown role '\(text[..<equals])' (Relay, AssetHub, People, Bulletin)"
        }
        guard let genesis = try? Hex.decode(text[text.index(after: equals)...], allowPrefix: true) else { return "the genesis hash is not hex" }
        return genesis.count == 32 ? nil : "the genesis hash has \(genesis.count) bytes, not 32"
    }

    var argumentText: String { role.rawValue + "=0x" + Hex.encode(genesis) }
}

extension TruAPITheme: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { TruAPITheme.spellings }
    public var argumentText: String { description }
}

/// One line of a streaming TrUAPI command: `{"event": …}` in JSON, the summary in text.
struct TruAPIEventLine: Renderable {
    let json: JSONValue
    let summary: String

    init(_ event: TruAPIBridgeEvent) {
        json = event.json
        summary = event.summary
    }

    init(json: JSONValue, summary: String) {
        self.json = json
        self.summary = summary
    }

    func text(style: TextStyle) -> String { summary }
}

enum TruAPIBridgeCommand {
    // Listening
    static let listen = DefaultedOption<ListenAddress>("listen", valueName: "HOST:PORT", help: "Address to serve on (port 0 picks a free one).",
                                                       default: ListenAddress(HostPort(host: "127.0.0.1", port: 0)), group: "Listening")
    static let unsafeListen = Flag("unsafe-listen", help: "Allow a non-loopback --listen address (the bridge has no TLS).", group: "Listening")
    static let token = DefaultedOption<BridgeTokenChoice>(
        "token", valueName: "auto|@FILE|none", help: "The ?t= token: a fresh 64-hex token, one read from a file, or none.", default: .auto,
        completion: .file, group: "Listening")
    static let allowOrigin = RepeatedOption<String>("allow-origin", valueName: "ORIGIN",
                                                    help: "A browser origin allowed to connect, e.g. http://localhost:3000 (none given: any).",
                                                    group: "Listening")
    static let maxConnections = DefaultedOption<Int>("max-connections", valueName: "N", help: "Connections at once; extras are refused and logged.",
                                                     default: 32, group: "Listening")
    static let idleTimeout = DefaultedOption<Duration>("idle-timeout", valueName: "DURATION",
                                                       help: "Close a connection that answers nothing for this long (the bridge pings).",
                                                       default: .seconds(120), group: "Listening")
    static let closeTimeout = DefaultedOption<Duration>("close-timeout", valueName: "DURATION",
                                                        help: "How long a product has to answer the bridge's Close before it is dropped.",
                                                        default: .seconds(5), group: "Listening")
    static let readyFile = Option<OutputFile>("ready-file", valueName: "FILE", help: "Also write the ready line (with the token) here, mode 0600.",
                                              group: "Listening")
    static let traceFrames = Option<OutputFile>("trace-frames", valueName: "FILE.jsonl",
                                                help: "Record every frame in and out as JSON lines, secrets redacted (for 'omni truapi replay').",
                                                group: "Listening")
    static let sendHandshake = Flag("send-handshake", help: "Send system_handshake to each new connection (for products that wait for the host).",
                                    group: "Listening")
    // Product
    static let productID = RequiredOption<String>("product-id", valueName: "ID", help: "The product served: NAME.dot, NAME.paseo, NAME.test or localhost[:PORT].",
                                                  environment: "OMNI_TRUAPI_PRODUCT_ID", group: "Product")
    static let productTLD = RepeatedOption<String>("product-tld", valueName: "SUFFIX",
                                                   help: "Accepted product-id suffixes, replacing .dot, .paseo and .test.", group: "Product")
    static let network = Option<String>("network", valueName: "NAME", help: "Chains for get_chain_info and feature_supported: a preset, or the name of a network given by --chain-role.",
                                        absentMeans: "no chains", completion: .values(TruAPINetworks.presets.map(\.name)), group: "Product")
    static let chainRole = RepeatedOption<ChainRoleAssignment>("chain-role", valueName: "ROLE=GENESIS",
                                                                help: "A chain of the network (adds to or replaces the preset's).", group: "Product")
    // State
    static let stateDir = Option<String>("state-dir", valueName: "DIR", help: "Where local storage, permission decisions and notifications are kept.",
                                         absentMeans: "$XDG_STATE_HOME/omni/truapi/PRODUCT", completion: .directory, group: "State")
    static let ephemeral = Flag("ephemeral", help: "Keep the state in memory only.", group: "State")
    static let storageQuota = DefaultedOption<ByteCount>("storage-quota", valueName: "SIZE",
                                                         help: "Bytes of product local storage; writes beyond answer Full.",
                                                         default: ByteCount(bytes: 16 << 20), group: "State")
    // Policy
    static let policy = Option<InputFile>("policy", valueName: "FILE", help: "JSON policy: allow, deny or prompt per permission, domain and confirmation.",
                                          group: "Policy")
    static let autoAccept = Flag("auto-accept", help: "Answer every prompt yes (a redacted line per approval on stderr).", group: "Policy")
    static let denyAll = Flag("deny-all", help: "Refuse every permission and confirmation.", group: "Policy")
    static let promptTimeout = DefaultedOption<Duration>("prompt-timeout", valueName: "DURATION",
                                                         help: "How long a terminal prompt waits for y or n before it refuses.",
                                                         default: .seconds(60), group: "Policy")
    // Host
    static let theme = DefaultedOption<TruAPITheme>("theme", valueName: "THEME", help: "The theme products see: light, dark or custom:NAME[:light|:dark].",
                                                    default: TruAPITheme(dark: true), completion: .values(["light", "dark", "custom:"]), group: "Host")
    static let themeFile = Option<InputFile>("theme-file", valueName: "FILE", help: "Read the theme from this file, and again on SIGHUP.",
                                             group: "Host")
    static let preimages = Option<String>("preimages", valueName: "DIR", help: "Answer preimage lookups from files named by their blake2b-256 hash in hex.",
                                          completion: .directory, group: "Host")
    static let opener = Option<String>("opener", valueName: "CMD", help: "Open allowed navigate_to URLs with this program (words split on spaces, the URL appended).",
                                       absentMeans: "print the URL as an event", group: "Host")
    static let notify = Flag("notify", help: "Also show notifications with notify-send.", group: "Host")

    static let command = Command(
        "bridge", abstract: "Be the host of a TrUAPI product: a local WebSocket bridge without a signing session.",
        discussion: """
            Listens on ws://127.0.0.1:PORT/?t=TOKEN as the iOS host does: the token is 64 hex digits from the system's \
            random generator, checked on the upgrade request (HTTP 401 "invalid token" otherwise); every binary message \
            is one frame, each connection has its own dispatcher and subscriptions over the bridge's shared state, at \
            most --max-connections are served, messages are at most 8 MiB, a product that stops reading is dropped \
            once 4096 frames wait for it, and Close 1000 "bridge closing" ends each connection on SIGINT or SIGTERM \
            (exit 130 or 143).
            
            Every method is answered as the reference host without a session answers it: account and signing calls \
            say NotConnected or Rejected, chat, statement store, ring-VRF and coin payments are Unsupported, payments \
            give their typed refusals. Device and remote permissions follow --policy (allow, deny or prompt per \
            permission, domain, identity disclosure, account access and confirmation kind; see 'omni help \
            truapi-policy'); a prompt asks on the terminal and remembers the answer per product, and without a \
            terminal it refuses. http(s) navigation needs a remote permission for its host; mailto:, tel:, polkadot: \
            and dot: pass. Local storage, decisions and notifications are saved in --state-dir before they are \
            answered, each file replaced atomically.
            
            For scripts, --output jsonl prints {"event":"ready","port":…,"url":"ws://127.0.0.1:…/?t=…","product_id":…} \
            first (the token appears only there and in --ready-file), then one line per event: connections, refusals, \
            dropped frames, permissions, notifications, navigation. Drive it with 'omni truapi call' and 'omni truapi \
            subscribe'; record with --trace-frames and check with 'omni truapi replay'.
            """,
        options: [listen, unsafeListen, token, allowOrigin, maxConnections, idleTimeout, closeTimeout, readyFile, traceFrames, sendHandshake,
                  productID, productTLD, network, chainRole, stateDir, ephemeral, storageQuota, policy, autoAccept, denyAll, promptTimeout,
                  theme, themeFile, preimages, opener, notify],
        relations: [.conflicting(stateDir, ephemeral), .conflicting(autoAccept, denyAll), .conflicting(policy, denyAll),
                    .conflicting(theme, themeFile)],
        examples: [
            Example("omni truapi bridge --product-id myapp.dot --network paseo-next-v2 --output jsonl",
                    "Serve myapp.dot on a free port; the first line has the URL with the token."),
            Example("omni truapi bridge --product-id localhost:3000 --ephemeral --auto-accept --ready-file ready.json",
                    "A throw-away host for a dev server that says yes to every prompt."),
            Example("omni truapi bridge --product-id myapp.dot --policy policy.json --trace-frames trace.jsonl --output jsonl",
                    "Decide permissions from a file and record the session for 'omni truapi replay'."),
        ],
        streaming: .always
    ) { invocation in
        try run(invocation)
    }

    static func run(_ invocation: Invocation) throws -> CommandResult {
        let suffixes = try invocation.value(productTLD).map { text -> String in
            guard let suffix = TruAPIProductID.suffix(text) else {
                throw CLIError.usage("--product-tld '\(text)' is not a domain suffix like .dot", commandPath: invocation.commandPath)
            }
            return suffix
        }
        let product = try TruAPIProductID(try invocation.value(productID), suffixes: suffixes.isEmpty ? TruAPIProductID.defaultSuffixes : suffixes)
        let chains = try TruAPINetworks.chainSet(network: try invocation.value(network),
                                                 roles: try invocation.value(chainRole).map { ($0.role, $0.genesis) })
        let limit = try invocation.value(maxConnections)
        guard (1...1024).contains(limit) else {
            throw CLIError.usage("--max-connections must be from 1 to 1024", commandPath: invocation.commandPath)
        }
        let secret = try bridgeToken(invocation)

        let state: TruAPIBridgeState
        let quota = try invocation.value(storageQuota).bytes
        if try invocation.value(ephemeral) {
            state = .ephemeral(quota: quota)
        } else {
            let directory = try invocation.value(stateDir).map(Paths.expandingTilde)
                ?? Directories(environment: invocation.environment).state + "/truapi/" + product.value
            state = try TruAPIBridgeState.open(directory: directory, quota: quota)
        }

        var rules = TruAPIPolicy.promptEverything
        if let file = try invocation.value(policy) {
            rules = try TruAPIPolicy.parse(try invocation.readText(file, label: "--policy"), source: file.displayName)
        }
        let denyEverything = try invocation.value(denyAll)
        let accept = try invocation.value(autoAccept)
        let prompter: TerminalPrompter? = invocation.streams.stdinIsTerminal && invocation.streams.stderrIsTerminal && !accept && !denyEverything
            ? TerminalPrompter(invocation: invocation, timeout: try invocation.value(promptTimeout).secondsValue) : nil

        let themeSource = try invocation.value(themeFile)
        if themeSource == .standardInput {
            throw CLIError.usage("--theme-file is re-read on SIGHUP: give a file, not -", commandPath: invocation.commandPath)
        }
        let initialTheme = try themeSource.map { try readTheme($0, invocation) } ?? invocation.value(theme)

        let preimageDirectory = try invocation.value(preimages).map(Paths.expandingTilde)
        if let preimageDirectory, !LocalFile.exists(preimageDirectory) {
            throw TruAPIError(.configuration, "--preimages \(preimageDirectory) does not exist")
        }
        let openerWords = try invocation.value(opener).map { text -> [String] in
            let words = text.split(separator: " ").map(String.init)
            guard !words.isEmpty else { throw CLIError.usage("--opener needs a program", commandPath: invocation.commandPath) }
            return words
        }
        let notifications = try invocation.value(notify)

        let trace: TruAPITrace? = try invocation.value(traceFrames).map { file in
            guard case .path(let path) = file else {
                throw CLIError.usage("--trace-frames needs a file (stdout carries the events)", commandPath: invocation.commandPath)
            }
            return try TruAPITrace(path: path)
        }

        let emit: @Sendable (TruAPIBridgeEvent) -> Void = { event in
            invocation.emitItem(TruAPIEventLine(event))
            if event.name == "permission", event["source"]?.stringValue == "auto_accept" {
                // Only what was approved, never request contents.
                invocation.warn("auto-accepted for \(product.value): " + (event["subjects"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", "))
            }
        }
        let broker = TruAPIPermissionBroker(productID: product, policy: rules, state: state, prompter: prompter, autoAccept: accept,
                                            denyAll: denyEverything, onEvent: emit)
        let warnedNotifySend = OnceFlag()
        let showNotification: @Sendable (TruAPINotification) -> Void = { notification in
            Task {
                let problem = await TruAPIHelperProcess.run(["notify-send", "--app-name=omni", "--", product.value, notification.text], timeout: 10)
                if let problem, warnedNotifySend.first() { invocation.warn("--notify: \(problem)") }
            }
        }
        let openURL: (@Sendable (String) async -> String?)? = openerWords.map { words in
            { @Sendable url in await TruAPIHelperProcess.run(words + [url], timeout: 10) }
        }
        let context = TruAPIBridgeContext(
            productID: product, chains: chains, state: state, permissions: broker, theme: initialTheme, preimagesDirectory: preimageDirectory,
            opener: openURL, notifier: notifications ? showNotification : nil,
            onEvent: emit)

        var configuration = TruAPIBridgeConfiguration()
        configuration.token = secret
        configuration.allowedOrigins = try invocation.value(allowOrigin)
        configuration.maxConnections = limit
        configuration.idleTimeout = try invocation.value(idleTimeout).secondsValue
        configuration.closeTimeout = try invocation.value(closeTimeout).secondsValue
        configuration.sendHandshake = try invocation.value(sendHandshake)
        let bridge = TruAPIBridge(configuration: configuration, trace: trace, onEvent: emit) { id in
            TruAPIBridgeHost(context: context, connectionID: id)
        }

        let address = try invocation.value(listen).address
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.addresses = [address.host]
        serverConfiguration.port = address.port
        serverConfiguration.allowNonLoopback = try invocation.value(unsafeListen)
        // Room above the bridge's own limit, so extra connections reach the bridge and are refused with a log line.
        serverConfiguration.maxConnections = limit + 16
        serverConfiguration.maxRequestBodyBytes = 64 << 10
        serverConfiguration.shutdownGracePeriod = configuration.closeTimeout + 1
        let server = try HTTPServer(configuration: serverConfiguration)
        bridge.install(on: server)
        do {
            try server.start()
        } catch {
            guard error.kind == .invalidArgument, !serverConfiguration.allowNonLoopback else { throw error }
            throw CLIError.usage("\(error.message); add --unsafe-listen to serve other hosts (the bridge has no TLS)",
                                 commandPath: invocation.commandPath)
        }
        if secret == nil { invocation.warn("--token none: any program on this machine can connect to the bridge") }
        if serverConfiguration.allowNonLoopback { invocation.warn("--unsafe-listen: the bridge is reachable from other hosts, without TLS") }

        // Before the ready line: a script may send SIGTERM as soon as it reads it, and with no handler yet the
        // process would exit at once, without closing the connections or the JSON array.
        invocation.interrupts.onInterrupt {
            prompter?.close()
            bridge.shutdown()
            server.requestStop()
        }

        let url = "ws://" + HostPort(host: address.host, port: server.port).description + "/" + (secret.map { "?t=" + $0 } ?? "")
        var ready = JSONObject()
        ready.append("event", "ready")
        ready.append("port", .int(server.port))
        ready.append("url", .string(url))
        ready.append("product_id", .string(product.value))
        ready.append("network", chains.network.isEmpty ? .null : .string(chains.network))
        ready.append("state_dir", state.directory.map(JSONValue.string) ?? .null)
        if let file = try invocation.value(readyFile) {
            try invocation.write(JSONValue.object(ready).serialized() + "\n", to: file, label: "--ready-file", mode: 0o600)
        }
        invocation.emitItem(TruAPIEventLine(json: .object(ready), summary: "TrUAPI bridge for \(product.value) listening on \(url)"))
        context.resumePendingNotifications()

        let hangup = themeSource.map { file in
            HangupSignal {
                do { context.setTheme(try readTheme(file, invocation)) } catch {
                    invocation.warn("SIGHUP: \(ErrorMapping.report(error)?.message ?? "\(error)"); the theme stays as it was")
                }
            }
        }
        server.waitUntilStopped()
        hangup?.cancel()
        context.close()
        return .output(TruAPIEventLine(json: .object(["event": "stopped"]), summary: "bridge stopped"))
    }

    /// The token the bridge checks, nil for none.
    static func bridgeToken(_ invocation: Invocation) throws -> String? {
        switch try invocation.value(token) {
        case .auto:
            return TruAPIBridge.makeToken()
        case .none:
            return nil
        case .file(let path):
            let text = try UTF8Validation.string(try invocation.readSecret(.path(path), label: "--token", limit: 4096))
            let secret = text.trimmingWhitespaceAndNewlines()
            // Sent in a URL without percent-encoding, compared without decoding: only unreserved characters.
            guard !secret.isEmpty, secret.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
            }) else {
                throw TruAPIError(.configuration, "--token @\(path): a token is letters, digits, '-', '.', '_' or '~' (it goes into the URL as it is)")
            }
            if secret.utf8.count < 32 { invocation.warn("--token @\(path): a token of \(secret.utf8.count) characters is easy to guess") }
            return secret
        }
    }

    static func readTheme(_ file: InputFile, _ invocation: Invocation) throws -> TruAPITheme {
        let text = try invocation.readText(file, label: "--theme-file", limit: 4096)
        guard let theme = TruAPITheme(text) else {
            throw TruAPIError(.configuration, "--theme-file \(file.displayName): expected \(TruAPITheme.spellings)")
        }
        return theme
    }
}
