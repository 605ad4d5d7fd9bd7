import OmniCLI
import OmniCodec
import OmniSystem
import OmniTransport
import OmniTruAPI
import Synchronization

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

/// `--chain GENESIS=ws(s)://HOST[:PORT][/PATH]`: the node chain methods for that genesis are forwarded to.
struct ChainEndpoint: ArgumentValue {
    let genesis: [UInt8]
    let url: String

    init?(argument: String) {
        guard Self.problem(with: argument) == nil, let equals = argument.firstIndex(of: "="),
              let genesis = try? Hex.decode(argument[..<equals], allowPrefix: true) else { return nil }
        self.genesis = genesis
        url = String(argument[argument.index(after: equals)...])
    }

    static var expectation: String { "GENESIS=ws://HOST:PORT or GENESIS=wss://…: a 32-byte genesis hash in hex, then the node's WebSocket URL" }
    static var isData: Bool { true }

    static func problem(with text: String) -> String? {
        guard let equals = text.firstIndex(of: "=") else { return "expected " + expectation }
        guard let genesis = try? Hex.decode(text[..<equals], allowPrefix: true) else { return "the genesis hash is not hex" }
        guard genesis.count == 32 else { return "the genesis hash has \(genesis.count) bytes, not 32" }
        let url = text[text.index(after: equals)...].lowercased()
        guard url.hasPrefix("ws://") || url.hasPrefix("wss://"), url.count > 6 else { return "the node URL must start with ws:// or wss://" }
        return nil
    }

    var argumentText: String { "0x" + Hex.encode(genesis) + "=" + url }
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

/// `--print-bootstrap`'s output: the script as text; in JSON with the URL it would be served from.
struct BootstrapScript: Renderable {
    let endpoint: TruAPIBridgeEndpoint

    var json: JSONValue {
        .object(["bootstrap_url": .string(endpoint.bootstrapURL), "url": .string(endpoint.socketURL),
                 "script": .string(TruAPIBrowserGlue.bootstrapScript(endpoint))])
    }

    func text(style: TextStyle) -> String {
        let script = TruAPIBrowserGlue.bootstrapScript(endpoint)
        return script.hasSuffix("\n") ? String(script.dropLast()) : script
    }
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
    static let chain = RepeatedOption<ChainEndpoint>("chain", valueName: "GENESIS=URL",
                                                     help: "Forward chain methods for this genesis to a JSON-RPC v2 node (ws:// or wss://; adds to or replaces the preset's).",
                                                     group: "Product")
    // State
    static let stateDir = Option<String>("state-dir", valueName: "DIR", help: "Where local storage, permission decisions and notifications are kept.",
                                         absentMeans: "$XDG_STATE_HOME/omni/truapi/PRODUCT, or with --session …/truapi/sessions/NAME/products/PRODUCT",
                                         completion: .directory, group: "State")
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
    // Browser
    static let open = Option<String>("open", valueName: "URL",
                                     help: "Once listening, open the host page embedding this product page (http or https) with --opener or xdg-open, through a private launcher file (the token stays off argv).",
                                     group: "Browser")
    static let opaque = Flag("opaque", help: "With --open: embed the product in a sandbox without its own origin (its messages come from origin null).",
                             group: "Browser")
    static let printBootstrap = Flag("print-bootstrap",
                                     help: "Print the /bootstrap.js shim for the bridge --listen and --token describe, and exit without listening.",
                                     group: "Browser")

    static let command = Command(
        "bridge", abstract: "Be the host of a TrUAPI product: a local WebSocket bridge, a signing host with a session.",
        discussion: """
            Listens on ws://127.0.0.1:PORT/?t=TOKEN as the iOS host does: the token is 64 hex digits from the system's \
            random generator, checked on the upgrade request (HTTP 401 "invalid token" otherwise); every binary message \
            is one frame, each connection has its own dispatcher and subscriptions over the bridge's shared state, at \
            most --max-connections are served, messages are at most 8 MiB, a product that stops reading is dropped \
            once 4096 frames wait for it, and Close 1000 "bridge closing" ends each connection on SIGINT or SIGTERM \
            (exit 130 or 143).
            
            With a signing session (--session NAME, or --entropy-file / --mnemonic-env for this run only; see 'omni \
            truapi session') the bridge is a signing host: get_account answers the product's sr25519 accounts, \
            entropy_derive its entropy, and sign_raw, sign_payload (v4), create_transaction (V4), their legacy-account \
            variants and sign_vrf sign once the product has the chain_submit permission and the person confirms that \
            one request (a terminal prompt shows the decoded payload; --auto-accept approves and prints a card without \
            the contents; no terminal refuses). Without a session, account calls say NotConnected and signing \
            Rejected. Chat, statement store, ring-VRF and coin payments are Unsupported, payments give their typed \
            refusals. Chain methods (chainHead follow and its operations, chainSpec, transaction broadcast) are \
            forwarded as JSON-RPC v2 to the node of --chain GENESIS=URL or of the --network preset, reconnecting with \
            backoff when the node drops. Device and remote permissions follow --policy (allow, deny or prompt per \
            permission, domain, identity disclosure, account access and confirmation kind; see 'omni help \
            truapi-policy'); a prompt asks on the terminal and remembers the answer per product, and without a \
            terminal it refuses. http(s) navigation needs a remote permission for its host; mailto:, tel:, polkadot: \
            and dot: pass. Local storage, decisions and notifications are saved in --state-dir before they are \
            answered, each file replaced atomically.
            
            For scripts, --output jsonl prints {"event":"ready","port":…,"url":"ws://127.0.0.1:…/?t=…","product_id":…} \
            first (the token appears only there and in --ready-file), then one line per event: connections, refusals, \
            dropped frames, permissions, notifications, navigation. Drive it with 'omni truapi call' and 'omni truapi \
            subscribe'; record with --trace-frames and check with 'omni truapi replay'.
            
            Browsers: the bridge also serves GET /bootstrap.js?t=TOKEN, the iOS bootstrap's webview shim \
            (window.__HOST_API_PORT__ over the bridge's WebSocket), and GET /host?t=TOKEN&url=PRODUCT, an iframe \
            host page that answers the product's truapi-ready with truapi-init and a MessagePort relayed to the \
            bridge; both are token-gated like the WebSocket (401 "invalid token") and never cached. The ready line \
            carries bootstrap_url, and host_url with --open. See 'omni help truapi-browser'.
            """,
        options: [listen, unsafeListen, token, allowOrigin, maxConnections, idleTimeout, closeTimeout, readyFile, traceFrames, sendHandshake,
                  productID, productTLD, network, chainRole, chain, TruAPISecretOptions.session, TruAPISecretOptions.entropyFile,
                  TruAPISecretOptions.mnemonicEnv, TruAPISecretOptions.liteUsername, TruAPISecretOptions.fullUsername,
                  stateDir, ephemeral, storageQuota, policy, autoAccept, denyAll, promptTimeout, theme, themeFile, preimages, opener, notify,
                  open, opaque, printBootstrap],
        relations: [.conflicting(stateDir, ephemeral), .conflicting(autoAccept, denyAll), .conflicting(policy, denyAll),
                    .conflicting(theme, themeFile), .conflicting(TruAPISecretOptions.entropyFile, TruAPISecretOptions.mnemonicEnv),
                    .requires(opaque, open), .conflicting(printBootstrap, open)],
        examples: [
            Example("omni truapi bridge --product-id myapp.dot --network paseo-next-v2 --output jsonl",
                    "Serve myapp.dot on a free port; the first line has the URL with the token."),
            Example("omni truapi bridge --product-id localhost:3000 --ephemeral --auto-accept --ready-file ready.json",
                    "A throw-away host for a dev server that says yes to every prompt."),
            Example("omni truapi bridge --product-id myapp.dot --policy policy.json --trace-frames trace.jsonl --output jsonl",
                    "Decide permissions from a file and record the session for 'omni truapi replay'."),
            Example("omni truapi bridge --product-id myapp.dot --session alice --network paseo-next-v2",
                    "Sign as the stored session alice; chain methods go to the preset's nodes."),
            Example("omni truapi bridge --product-id localhost:3000 --entropy-file dev.hex --auto-accept --chain "
                    + "0x89a63b11fef2c0273fc72c0d864da0793a665dade5db153e0cab995348c5440f=ws://127.0.0.1:9944",
                    "A development signing host with a local node."),
            Example("omni truapi bridge --product-id localhost:3000 --ephemeral --open http://localhost:3000/",
                    "Show a dev server's product in the browser, in the bridge's iframe host page."),
            Example("omni truapi bridge --product-id myapp.dot --listen 127.0.0.1:9955 --token @token.txt --print-bootstrap > bootstrap.js",
                    "The webview shim for a bridge that will listen on port 9955 with that token."),
        ],
        streaming: .always
    ) { invocation in
        try run(invocation)
    }

    static func run(_ invocation: Invocation) throws -> CommandResult {
        if try invocation.value(printBootstrap) { return try bootstrapOnly(invocation) }
        let productPage = try invocation.value(open).map { text -> TruAPIProductPage in
            do throws(TruAPIError) { return try TruAPIProductPage(parsing: text) } catch {
                throw CLIError.usage("--open: \(error.message)", commandPath: invocation.commandPath)
            }
        }
        let suffixes = try invocation.value(productTLD).map { text -> String in
            guard let suffix = TruAPIProductID.suffix(text) else {
                throw CLIError.usage("--product-tld '\(text)' is not a domain suffix like .dot", commandPath: invocation.commandPath)
            }
            return suffix
        }
        let product = try TruAPIProductID(try invocation.value(productID), suffixes: suffixes.isEmpty ? TruAPIProductID.defaultSuffixes : suffixes)
        let networkName = try invocation.value(network)
        let chains = try TruAPINetworks.chainSet(network: networkName, roles: try invocation.value(chainRole).map { ($0.role, $0.genesis) })
        var nodes: [(genesis: [UInt8], url: String)] = networkName.flatMap(TruAPINetworks.preset(named:))?.nodes ?? []
        for endpoint in try invocation.value(chain) {
            nodes.removeAll { $0.genesis == endpoint.genesis }
            nodes.append((endpoint.genesis, endpoint.url))
        }
        let session = try TruAPISecretOptions.session(invocation, usernames: true)
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
                ?? session?.name.map { TruAPISecretOptions.store(invocation).stateDirectory($0, product: product) }
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

        let launcher = Mutex<HostPageLauncher?>(nil)
        let emit: @Sendable (TruAPIBridgeEvent) -> Void = { event in
            // A browser followed the launcher (or host_url): the file with the token has done its work.
            if event.name == "page_served", event["path"]?.stringValue == "/host" { launcher.withLock { $0 }?.remove() }
            invocation.emitItem(TruAPIEventLine(event))
            if event.name == "permission", event["source"]?.stringValue == "auto_accept" {
                // Only what was approved (the card: kind, product, account, size), never request contents.
                let subjects = (event["subjects"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
                let card = (event["card"]?.arrayValue ?? []).compactMap(\.stringValue)
                invocation.warn("auto-accepted for \(product.value): " + subjects + card.map { "\n  " + $0 }.joined())
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
            productID: product, productSuffixes: suffixes.isEmpty ? TruAPIProductID.defaultSuffixes : suffixes, session: session,
            chains: chains, chainNodes: nodes, state: state, permissions: broker, theme: initialTheme, preimagesDirectory: preimageDirectory,
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
        TruAPIBrowserGlue.install(on: server, bridge: bridge) { [weak server] in
            TruAPIBridgeEndpoint(host: address.host, port: server?.port ?? address.port, token: secret)
        }
        do {
            try server.start()
        } catch {
            guard error.kind == .invalidArgument, !serverConfiguration.allowNonLoopback else { throw error }
            throw CLIError.usage("\(error.message); add --unsafe-listen to serve other hosts (the bridge has no TLS)",
                                 commandPath: invocation.commandPath)
        }
        // Before the ready line: a script that signals as soon as it reads it must get the clean shutdown and one
        // complete JSON document.
        invocation.interrupts.onInterrupt {
            prompter?.close()
            bridge.shutdown()
            server.requestStop()
        }
        if secret == nil { invocation.warn("--token none: any program on this machine can connect to the bridge") }
        if serverConfiguration.allowNonLoopback { invocation.warn("--unsafe-listen: the bridge is reachable from other hosts, without TLS") }

        let endpoint = TruAPIBridgeEndpoint(host: address.host, port: server.port, token: secret)
        let url = endpoint.socketURL
        let hostURL = try productPage.map { endpoint.hostPageURL(product: $0, opaque: try invocation.value(opaque)) }
        var ready = JSONObject()
        ready.append("event", "ready")
        ready.append("port", .int(server.port))
        ready.append("url", .string(url))
        ready.append("bootstrap_url", .string(endpoint.bootstrapURL))
        if let hostURL { ready.append("host_url", .string(hostURL)) }
        ready.append("product_id", .string(product.value))
        ready.append("network", chains.network.isEmpty ? .null : .string(chains.network))
        ready.append("state_dir", state.directory.map(JSONValue.string) ?? .null)
        ready.append("session", session.map { .string($0.name ?? "(this run only)") } ?? .null)
        ready.append("chains", .array(nodes.map { .object(["genesis_hash": .string("0x" + Hex.encode($0.genesis)),
                                                           "url": .string(TruAPIChainNode.redacted($0.url))]) }))
        if let file = try invocation.value(readyFile) {
            try invocation.write(JSONValue.object(ready).serialized() + "\n", to: file, label: "--ready-file", mode: 0o600)
        }
        let signer = session.map { " as \($0.name.map { "session " + $0 } ?? "a session for this run")" } ?? " (no signing session)"
        invocation.emitItem(TruAPIEventLine(json: .object(ready), summary: "TrUAPI bridge for \(product.value)\(signer) listening on \(url)"
                                                + (hostURL.map { "\nhost page: " + $0 } ?? "")))
        context.resumePendingNotifications()
        if let hostURL {
            let file = try HostPageLauncher.write(hostURL: hostURL, directory: HostPageLauncher.directory(invocation.environment))
            launcher.withLock { $0 = file }
            openHostPage(file, program: openerWords ?? ["xdg-open"], invocation: invocation, emit: emit)
        }

        let hangup = themeSource.map { file in
            HangupSignal {
                do { context.setTheme(try readTheme(file, invocation)) } catch {
                    invocation.warn("SIGHUP: \(ErrorMapping.report(error)?.message ?? "\(error)"); the theme stays as it was")
                }
            }
        }
        server.waitUntilStopped()
        launcher.withLock { $0 }?.remove()
        hangup?.cancel()
        context.close()
        return .output(TruAPIEventLine(json: .object(["event": "stopped"]), summary: "bridge stopped"))
    }

    /// `--open`: starts the opener on the launcher file without waiting for the browser; the outcome is an event
    /// (never with the URL, which has the token), and a failure also says where the URL is.
    static func openHostPage(_ launcher: HostPageLauncher, program: [String], invocation: Invocation,
                             emit: @escaping @Sendable (TruAPIBridgeEvent) -> Void) {
        Task {
            let problem = await TruAPIHelperProcess.run(program + [launcher.path], timeout: 10)
            if problem != nil { launcher.remove() }
            var fields: [(String, JSONValue)] = [("program", .string(program[0])), ("opened", .bool(problem == nil)),
                                                 ("launcher", .string(launcher.path))]
            if let problem { fields.append(("problem", .string(problem))) }
            emit(TruAPIBridgeEvent("host_page_open", fields, summary: problem.map { "--open: \($0)" } ?? "opened the host page with \(program[0])"))
            if let problem { invocation.warn("--open: \(problem); open host_url from the ready line in a browser") }
        }
    }

    /// `--print-bootstrap`: the shim for the bridge that `--listen` and `--token` describe, without listening.
    static func bootstrapOnly(_ invocation: Invocation) throws -> CommandResult {
        let address = try invocation.value(listen).address
        guard address.port != 0 else {
            throw CLIError.usage("--print-bootstrap needs the port the bridge will listen on: give --listen 127.0.0.1:PORT",
                                 commandPath: invocation.commandPath)
        }
        if try invocation.value(token) == .auto {
            throw CLIError.usage("--print-bootstrap: an automatic token exists only once the bridge runs; give --token @FILE (or fetch bootstrap_url from the running bridge's ready line)",
                                 commandPath: invocation.commandPath)
        }
        let endpoint = TruAPIBridgeEndpoint(host: address.host, port: address.port, token: try bridgeToken(invocation))
        return .output(BootstrapScript(endpoint: endpoint))
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
