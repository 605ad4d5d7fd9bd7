import OmniCLI
import OmniCodec
import OmniConnect
import OmniCrypto

enum ConnectWalletCommand {
    static let uri = RequiredOption<String>(
        "uri", valueName: "@FILE", help: "The wallet URI from the app, as @FILE or - (it carries the wallet's one-time token, "
            + "so never as a literal on the command line).",
        environment: "OMNI_CONNECT_URI", source: .content)
    static let accountKey = RequiredOption<InputFile>(
        "account-key-file", valueName: "FILE", help: "The account's Ed25519 private key (PEM or hex seed), readable only by you; - reads stdin.",
        environment: "OMNI_CONNECT_ACCOUNT_KEY_FILE")
    static let accountID = Option<IrohaAccountID>("account-id", valueName: "ID", help: "The I105 account id to approve as; must match the key.",
                                                  absentMeans: "the key's, with the sora sentinel")
    static let approve = Flag("approve", help: "Approve the session.")
    static let reject = Option<String>("reject", valueName: "CODE", help: "Reject the session with this code id, e.g. USER_DENIED.")
    static let reason = DefaultedOption<String>("reason", valueName: "TEXT", help: "Reason sent with --reject.",
                                                default: ConnectWalletDecision.defaultRejectReason)
    static let autoSign = Flag("auto-sign", help: "Sign requests without asking (raw ones only for --allow-domain tags).")
    static let allowDomain = RepeatedOption<String>("allow-domain", valueName: "TAG", help: "A domain tag raw requests may use.")
    static let walletNode = Option<String>("node", valueName: "URL", help: "Join through this node instead of the URI's.",
                                           absentMeans: "the node in the URI")
    static let timeout = DefaultedOption<Duration>("timeout", valueName: "DURATION", help: "Give up after this long.", default: .seconds(300),
                                                   environment: "OMNI_CONNECT_TIMEOUT", config: "connect.timeout")
    static let tokenTransport = DefaultedOption<ConnectTokenTransport>(
        "token-transport", valueName: "HOW", help: "How the WebSocket token is presented: Bearer header, subprotocol, or both.",
        default: .subprotocol)

    static let command = Command(
        "wallet", abstract: "A headless wallet for tests and CI: serve one session, then exit.",
        discussion: """
        Joins the session in the URI as the wallet (token as a subprotocol by default), checks the app's Open \
        against the URI (app key, network or chain), then approves — signing the approval preimage with the \
        account key — or rejects with --reject CODE. With --auto-sign it answers sign requests: raw requests only \
        for --allow-domain tags (and tags the app declared), transactions over Iroha's Hash(payload); anything else \
        gets SignResultErr. Keep-alive pings are answered. Exits 0 when the app closes the session (or after \
        rejecting). Events are a stream: with --output jsonl each step is one line, --output json one array.
        """,
        options: [uri, accountKey, accountID, approve, reject, reason, autoSign, allowDomain, walletNode, ConnectCommands.generationOption,
                  timeout, tokenTransport],
        relations: [.exactlyOne(approve, reject), .requires(reason, reject), .requires(allowDomain, autoSign)],
        examples: [Example("omni connect wallet --uri @uri.txt --account-key-file account.pem --approve --auto-sign --allow-domain 'omni|demo'",
                           "Approve, sign one raw request for omni|demo, exit after the app closes.")],
        streaming: .always
    ) { invocation in
        if let given = invocation.parsed.options[uri.spec.name]?.last, given != "-", !given.hasPrefix("@") || given.hasPrefix("@@") {
            throw CLIError.usage("--uri carries the wallet's one-time token: give it as @FILE, - (stdin) or OMNI_CONNECT_URI, "
                                 + "never on the command line, where other users can read it", commandPath: invocation.commandPath)
        }
        let parsed = try ConnectURI(parsing: try invocation.value(uri), generation: try invocation.value(ConnectCommands.generationOption))
        let keyText = try ConnectCommands.secretText(invocation, try invocation.value(accountKey), label: "--account-key-file")
        let key = try ConnectKeyFile.ed25519PrivateKey(from: keyText)
        var account = try IrohaAccountID(ed25519PublicKey: key.publicKey.rawRepresentation)
        if let given = try invocation.value(accountID) {
            guard given.publicKey == account.publicKey else {
                throw CLIError.usage("--account-id \(given.literal) belongs to another key than --account-key-file", commandPath: invocation.commandPath)
            }
            account = given
        }
        let decision: ConnectWalletDecision = try invocation.value(reject).map { .reject(codeID: $0, reason: try invocation.value(reason)) }
            ?? .approve
        var options = ConnectWalletOptions(uri: parsed, accountKey: key, accountID: account, decision: decision)
        options.node = try invocation.value(walletNode)
        options.autoSign = try invocation.value(autoSign)
        options.allowedDomains = try invocation.value(allowDomain)
        options.timeout = try invocation.value(timeout).secondsValue
        options.tokenTransport = try invocation.value(tokenTransport)
        // The session loop polls for an interrupt, then closes the socket before exiting.
        invocation.interrupts.onInterrupt {}

        let outcome = try ConnectWallet(options: options).run(events: { event in
            ConnectCommands.emit(invocation, line(event), progress: event.isProgress)
        }, isCancelled: { invocation.interrupts.isInterrupted })
        switch outcome {
        case .closed(let close):
            return .output(ConnectEventLine("done", [("closed_by", .string(close.who.description)), ("code", .int(Int(close.code)))],
                                            text: "The \(close.who) closed the session (\(close.code) \(close.reason))."))
        case .rejected(let reject):
            return .output(ConnectEventLine("done", [("rejected", .string(reject.codeID))], text: "Rejected the session (\(reject.codeID))."))
        }
    }

    static func line(_ event: ConnectWalletEvent) -> ConnectEventLine {
        switch event {
        case .connected:
            return ConnectEventLine("connected", text: "Joined the session as the wallet.")
        case .open(let open):
            var fields: [(String, JSONValue)] = [("app_pk", .string(ConnectText.hex(open.appPublicKey)))]
            if let meta = open.appMetadata {
                fields.append(("app_name", .string(meta.name)))
                if let url = meta.url { fields.append(("app_url", .string(url))) }
            }
            if let permissions = open.permissions {
                fields.append(("methods", .array(permissions.methods.map { .string($0) })))
                if let resources = permissions.resources { fields.append(("resources", .array(resources.map { .string($0) }))) }
            }
            return ConnectEventLine("open", fields, text: "The app \(open.appMetadata?.name ?? ConnectText.hex(open.appPublicKey)) asks to connect.")
        case .approved(let account, let walletPublicKey):
            return ConnectEventLine("approved", [("account_id", .string(account.literal)), ("wallet_pk", .string(ConnectText.hex(walletPublicKey)))],
                                    text: "Approved as \(account.literal).")
        case .rejected(let reject):
            return ConnectEventLine("rejected", [("code", .string(reject.codeID)), ("status", .int(Int(reject.code))), ("reason", .string(reject.reason))],
                                    text: "Rejected the session: \(reject.codeID) (\(reject.reason)).")
        case .request(let payload, let sequence):
            var fields: [(String, JSONValue)] = [("kind", .string(payload.name)), ("seq", .string(String(sequence)))]
            if case .signRequestRaw(let tag, let bytes) = payload {
                fields += [("domain_tag", .string(tag)), ("bytes", .string(ConnectText.hex(bytes)))]
            }
            if case .signRequestTx(let tx) = payload { fields.append(("tx_bytes", .string(ConnectText.hex(tx)))) }
            return ConnectEventLine("request", fields, text: "Request \(payload.name) (seq \(sequence)).")
        case .signed(let signature, let sequence):
            return ConnectEventLine("signed", [("signature", .string(ConnectText.hex(signature.bytes))), ("seq", .string(String(sequence)))],
                                    text: "Signed (seq \(sequence)).")
        case .refused(let code, let message):
            return ConnectEventLine("refused", [("code", .string(code)), ("message", .string(message))], text: "Refused: \(code) \(message)")
        case .display(let title, let body):
            return ConnectEventLine("display", [("title", .string(title)), ("body", .string(body))], text: "\(title): \(body)")
        case .closed(let close):
            return ConnectEventLine("closed", [("who", .string(close.who.description)), ("code", .int(Int(close.code))),
                                               ("reason", .string(close.reason))], text: "Closed by the \(close.who): \(close.reason)")
        }
    }
}

extension ConnectWalletEvent {
    /// Status for people, not a fact about the session (goes to stderr in text mode).
    var isProgress: Bool {
        if case .connected = self { return true }
        return false
    }
}
