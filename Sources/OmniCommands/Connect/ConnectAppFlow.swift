import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniSystem
import OmniTransport

/// What `omni connect app sign-raw|sign-tx` share: the options (accepted before or after the subcommand) and
/// the run, which streams one JSON line per step.
enum ConnectAppFlow {
    static let discussion = """
    Registers a session on --node, prints the wallet URI (and a QR code when stdout is a terminal in text mode), \
    joins as the app, sends Open, waits for the wallet's approval (pinging to keep the session alive), verifies \
    the approval signature, sends the one encrypted request, verifies the returned signature against the approved \
    account key, closes and deletes the session. With --output json every step is one line: first \
    {"event":"session",...}, last {"event":"result",...} (exit 0), {"event":"rejected",...} or \
    {"event":"sign_error",...} (exit 4). Raw requests are signed over the data bytes; transactions over Iroha's \
    Hash(payload) (BLAKE2b-256 with the last bit set).
    """

    static let appKey = ConnectSessionCreateCommand.appKey
    static let timeout = Option<Duration>("timeout", valueName: "DURATION", help: "Give up after this long (the whole exchange).", default: .seconds(300), defaultDescription: "300s",
                                          environment: "OMNI_CONNECT_TIMEOUT", config: "connect.timeout", group: "Connect")
    static let pingInterval = Option<Duration>("ping-interval", valueName: "DURATION", help: "Keep-alive ping period while waiting for the wallet.",
                                               default: .seconds(30), defaultDescription: "30s", group: "Connect")
    static let metaName = Option<String>("meta-name", valueName: "NAME", help: "App name shown to the wallet (Open.app_meta).", group: "Connect")
    static let metaURL = Option<String>("meta-url", valueName: "URL", help: "App URL shown to the wallet.", group: "Connect")
    static let advertise = Option<String>("advertise-node", valueName: "URL",
                                          help: "Node URL to put in the wallet URI (default: --node).", group: "Connect")
    static let keepSession = Flag("keep-session", help: "Do not delete the session at the end.", group: "Connect")

    static let options: [any OptionDeclaration] = [
        ConnectCommands.node, ConnectCommands.networkID, ConnectCommands.chainID, ConnectCommands.generationOption, appKey, timeout, pingInterval,
        ConnectCommands.tokenTransport, metaName, metaURL, advertise, keepSession,
    ]

    static func run(_ invocation: Invocation, request: ConnectSignRequest) throws -> CommandResult {
        let generation = try ConnectCommands.generation(invocation)
        let constraints = try ConnectCommands.constraints(invocation, generation: generation)
        let client = try ToriiConnectClient(node: try ConnectCommands.requireNode(invocation), generation: generation, http: ConnectCommands.httpClient())
        var options = ConnectAppOptions(constraints: constraints, request: request)
        if let path = try invocation.value(appKey) {
            options.appKey = try ConnectKeyFile.x25519PrivateKey(from: try ConnectCommands.readFile(path, label: "--app-key"))
        }
        options.timeout = (try invocation.value(timeout) ?? .seconds(300)).secondsValue
        options.pingInterval = max(0.05, (try invocation.value(pingInterval) ?? .seconds(30)).secondsValue)
        options.tokenTransport = try invocation.value(ConnectCommands.tokenTransport) ?? .header
        options.advertisedNode = try invocation.value(advertise)
        options.deleteSession = !(try invocation.flag(keepSession))
        if let name = try invocation.value(metaName) {
            options.metadata = ConnectAppMetadata(name: name, url: try invocation.value(metaURL))
        }
        let cancelled = CancelFlag()
        invocation.interrupts.onInterrupt { cancelled.set() }

        let outcome = try ConnectApp(client: client, options: options).run(events: { event in
            switch event {
            case .session(let registration):
                let sid = ConnectText.base64URL(registration.sid)
                var text = "Session \(sid)\nWallet URI: \(registration.walletURI)"
                if invocation.outputFormat == .text, invocation.streams.stdoutIsTerminal, let qr = ConnectQRTerminal.terminalText(registration.walletURI) {
                    text += "\n" + qr
                }
                invocation.emit(ConnectEventLine("session", [("sid", .string(sid)), ("wallet_uri", .string(registration.walletURI)),
                                                             ("generation", .string(generation.rawValue))], text: text))
            case .connected:
                invocation.emit(ConnectEventLine("connected", text: "Joined the session as the app; sent Open."))
            case .waitingForApproval:
                invocation.emit(ConnectEventLine("waiting_for_approval", text: "Waiting for the wallet to approve…"))
            case .approved(let account, let walletPublicKey):
                invocation.emit(ConnectEventLine("approved", [("account_id", .string(account.literal)),
                                                              ("wallet_pk", .string(ConnectText.hex(walletPublicKey)))],
                                                 text: "Approved by \(account.literal)"))
            case .requestSent(let sequence):
                invocation.emit(ConnectEventLine("request_sent", [("seq", .string(String(sequence))), ("kind", .string(request.payload.name))],
                                                 text: "Sent \(request.payload.name) (seq \(sequence)); waiting for the signature…"))
            case .closed:
                break
            }
        }, isCancelled: { cancelled.isSet })

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

/// Set from the interrupt handler, polled by the session loops.
final class CancelFlag: @unchecked Sendable {
    private let lock = Lock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
