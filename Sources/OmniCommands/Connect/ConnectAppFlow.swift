import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniSystem
import OmniTransport

/// What `omni connect app sign-raw|sign-tx` share: the options (accepted before or after the subcommand) and
/// the run, which streams one event per step.
enum ConnectAppFlow {
    static let discussion = """
    Registers a session on --node, prints the wallet URI (and a QR code when stdout is a terminal in text mode), \
    joins as the app, sends Open, waits for the wallet's approval (pinging to keep the session alive), verifies \
    the approval signature, sends the one encrypted request, verifies the returned signature against the approved \
    account key, closes and deletes the session. Events are a stream: with --output jsonl every step is one line, \
    first {"event":"session",...}, last {"event":"result",...} (exit 0), {"event":"rejected",...} or \
    {"event":"sign_error",...} (exit 4); --output json prints them as one array. In text mode stdout gets the \
    wallet URI and the result, and progress goes to stderr. Raw requests are signed over the data bytes; \
    transactions over Iroha's Hash(payload) (BLAKE2b-256 with the last bit set).
    """

    static let appKey = Option<InputFile>(
        "app-key-file", valueName: "FILE", help: "The app's X25519 private key (PEM or hex), readable only by you; - reads stdin.",
        absentMeans: "a fresh key", environment: "OMNI_CONNECT_APP_KEY_FILE", group: "Connect")
    static let timeout = DefaultedOption<Duration>(
        "timeout", valueName: "DURATION", help: "Give up after this long (the whole exchange).", default: .seconds(300),
        environment: "OMNI_CONNECT_TIMEOUT", config: "connect.timeout", group: "Connect")
    static let pingInterval = DefaultedOption<Duration>(
        "ping-interval", valueName: "DURATION", help: "Keep-alive ping period while waiting for the wallet.", default: .seconds(30),
        group: "Connect")
    static let tokenTransport = DefaultedOption<ConnectTokenTransport>(
        "token-transport", valueName: "HOW", help: "How the WebSocket token is presented: Bearer header, subprotocol, or both.",
        default: .header, group: "Connect")
    static let metaName = Option<String>("meta-name", valueName: "NAME", help: "App name shown to the wallet (Open.app_meta).", group: "Connect")
    static let metaURL = Option<String>("meta-url", valueName: "URL", help: "App URL shown to the wallet.", group: "Connect")
    static let advertise = Option<String>("advertise-node", valueName: "URL", help: "Node URL to put in the wallet URI.",
                                          absentMeans: "the --node URL", group: "Connect")
    static let expectAccount = Option<IrohaAccountID>(
        "expect-account", valueName: "ACCOUNT", help: "Refuse an approval by any other account (an I105 id); exit 1 with the reason.",
        group: "Connect")
    static let keepSession = Flag("keep-session", help: "Do not delete the session at the end.", group: "Connect")

    static let options: [any OptionDeclaration] = [
        ConnectCommands.node, ConnectCommands.networkID, ConnectCommands.chainID, ConnectCommands.generationOption, appKey, timeout,
        pingInterval, tokenTransport, metaName, metaURL, advertise, expectAccount, keepSession,
    ]
    static let relations: [Relation] = [.requires(metaURL, metaName)]

    static func run(_ invocation: Invocation, request: ConnectSignRequest) throws -> CommandResult {
        let generation = try invocation.value(ConnectCommands.generationOption)
        let constraints = try ConnectCommands.constraints(invocation, generation: generation)
        let client = try ToriiConnectClient(node: try invocation.value(ConnectCommands.node), generation: generation,
                                            http: ConnectCommands.httpClient())
        var options = ConnectAppOptions(constraints: constraints, request: request)
        if let file = try invocation.value(appKey) {
            options.appKey = try ConnectKeyFile.x25519PrivateKey(from: try ConnectCommands.secretText(invocation, file, label: "--app-key-file"))
        }
        options.timeout = try invocation.value(timeout).secondsValue
        options.pingInterval = max(0.05, try invocation.value(pingInterval).secondsValue)
        options.tokenTransport = try invocation.value(tokenTransport)
        options.advertisedNode = try invocation.value(advertise)
        options.deleteSession = !(try invocation.value(keepSession))
        options.expectedAccount = try invocation.value(expectAccount)
        if let name = try invocation.value(metaName) {
            options.metadata = ConnectAppMetadata(name: name, url: try invocation.value(metaURL))
        }
        // The session loops poll for an interrupt, then close the socket and delete the session before exiting.
        invocation.interrupts.onInterrupt {}

        let outcome = try ConnectApp(client: client, options: options).run(events: { event in
            switch event {
            case .session(let registration):
                let sid = ConnectText.base64URL(registration.sid)
                var text = "Session \(sid)\nWallet URI: \(registration.walletURI)"
                if invocation.outputFormat == .text, invocation.streams.stdoutIsTerminal, let qr = ConnectQRTerminal.terminalText(registration.walletURI) {
                    text += "\n" + qr
                }
                ConnectCommands.emit(invocation, ConnectEventLine("session", [
                    ("sid", .string(sid)), ("wallet_uri", .string(registration.walletURI)), ("generation", .string(generation.rawValue)),
                ], text: text))
            case .connected:
                ConnectCommands.emit(invocation, ConnectEventLine("connected", text: "Joined the session as the app; sent Open."), progress: true)
            case .waitingForApproval:
                ConnectCommands.emit(invocation, ConnectEventLine("waiting_for_approval", text: "Waiting for the wallet to approve…"),
                                     progress: true)
            case .approved(let account, let walletPublicKey):
                ConnectCommands.emit(invocation, ConnectEventLine("approved", [
                    ("account_id", .string(account.literal)), ("wallet_pk", .string(ConnectText.hex(walletPublicKey))),
                ], text: "Approved by \(account.literal)"))
            case .requestSent(let sequence):
                ConnectCommands.emit(invocation, ConnectEventLine("request_sent", [
                    ("seq", .string(String(sequence))), ("kind", .string(request.payload.name)),
                ], text: "Sent \(request.payload.name) (seq \(sequence)); waiting for the signature…"), progress: true)
            case .closed:
                break
            }
        }, isCancelled: { invocation.interrupts.isInterrupted })

        switch outcome {
        case .signed(let signature, let account):
            return .output(ConnectEventLine("result", [
                ("signature", .string(ConnectText.hex(signature.bytes))), ("account_id", .string(account.literal)),
                ("algorithm", .string(signature.algorithm.description)), ("public_key", .string(ConnectText.hex(account.publicKey))),
            ], text: "Signature (\(signature.algorithm), verified for \(account.literal)):\n\(ConnectText.hex(signature.bytes))"))
        case .rejected(let reject):
            return .output(ConnectEventLine("rejected", [("code", .string(reject.codeID)), ("status", .int(Int(reject.code))),
                                                         ("reason", .string(reject.reason))],
                                            text: "Rejected by the wallet: \(reject.codeID) (\(reject.code)) \(reject.reason)"),
                           exitCode: .rejected)
        case .signError(let code, let message):
            return .output(ConnectEventLine("sign_error", [("code", .string(code)), ("message", .string(message))],
                                            text: "The wallet refused to sign: \(code) \(message)"),
                           exitCode: .rejected)
        }
    }
}
