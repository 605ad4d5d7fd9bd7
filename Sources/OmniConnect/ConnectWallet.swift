import FoundationEssentials
import OmniCrypto
import OmniTransport

public enum ConnectWalletDecision: Sendable, Equatable {
    case approve
    case reject(ConnectReject)

    public static let defaultRejectReason = "wallet rejected the session"

    /// A rejection with the usual numeric code for a reject code id (401 for USER_DENIED and UNAUTHORIZED).
    public static func reject(codeID: String, reason: String = defaultRejectReason) -> ConnectWalletDecision {
        let code: UInt16 = ["USER_DENIED", "UNAUTHORIZED"].contains(codeID) ? 401 : 400
        return .reject(ConnectReject(code: code, codeID: codeID, reason: reason))
    }
}

public struct ConnectWalletOptions: Sendable {
    public var uri: ConnectURI
    /// Overrides the URI's node (e.g. a local relay).
    public var node: String?
    public var accountKey: Ed25519.PrivateKey
    public var accountID: IrohaAccountID
    public var decision: ConnectWalletDecision
    /// Sign requests without asking: raw requests only for `allowedDomains`, transactions always.
    public var autoSign = false
    public var allowedDomains: [String] = []
    public var walletKey = X25519.PrivateKey()
    public var timeout: Double = 300
    public var pingInterval: Double = 30
    public var tokenTransport: ConnectTokenTransport = .subprotocol

    public init(uri: ConnectURI, accountKey: Ed25519.PrivateKey, accountID: IrohaAccountID, decision: ConnectWalletDecision) {
        self.uri = uri
        self.accountKey = accountKey
        self.accountID = accountID
        self.decision = decision
    }
}

public enum ConnectWalletEvent: Sendable {
    case connected
    case open(ConnectOpen)
    case approved(account: IrohaAccountID, walletPublicKey: [UInt8])
    case rejected(ConnectReject)
    case request(ConnectPayload, sequence: UInt64)
    case signed(ConnectWalletSignature, sequence: UInt64)
    case refused(code: String, message: String)
    case display(title: String, body: String)
    case closed(ConnectClose)
}

public enum ConnectWalletOutcome: Sendable, Equatable {
    /// The app closed the session (encrypted Close, or plaintext before approval).
    case closed(ConnectClose)
    /// This wallet rejected the session.
    case rejected(ConnectReject)
}

/// A headless wallet serving one session: join with the URI's token, check the app's Open against the URI,
/// approve (signing the approval preimage with the account key) or reject, then answer sign requests until the
/// app closes.
public struct ConnectWallet: Sendable {
    public let options: ConnectWalletOptions

    public init(options: ConnectWalletOptions) {
        self.options = options
    }

    public func run(events: (ConnectWalletEvent) -> Void, isCancelled: () -> Bool = { false }) throws -> ConnectWalletOutcome {
        let deadline = Date(timeIntervalSinceNow: options.timeout)
        let uri = options.uri
        guard uri.role == .wallet else { throw ConnectError(.configuration, "the URI is for the \(uri.role), not the wallet") }
        let url = try options.node.map { node throws(ConnectError) in try ConnectURI.webSocketURL(node: node, sid: uri.sid, role: .wallet) }
            ?? uri.webSocketURL()
        let socket = try ToriiConnectClient.join(url: url, role: .wallet, token: uri.token, transport: options.tokenTransport)
        let channel = ConnectChannel(socket: socket, session: ConnectSession(role: .wallet, sid: uri.sid, codec: ConnectCodec(generation: uri.generation)),
                                     pingInterval: options.pingInterval)
        defer { channel.close() }
        events(.connected)

        let open: ConnectOpen
        switch try channel.next(until: deadline, isCancelled: isCancelled) {
        case .control(.open(let received), fromServer: false):
            open = received
        case .control(.close(let close), true):
            throw ConnectChannel.terminated(close)
        case .control(let control, _):
            throw ConnectError(.protocolViolation, "expected the app's Open, got \(control.name)")
        case .payload(let payload, _):
            throw ConnectError(.protocolViolation, "expected the app's Open, got encrypted \(payload.name)")
        }
        if let appPublicKey = uri.appPublicKey, appPublicKey != open.appPublicKey {
            throw ConnectError(.protocolViolation, "the app's Open carries another app key than the URI")
        }
        guard open.constraints == uri.constraints else {
            throw ConnectError(.protocolViolation, "the app's Open is bound to another network or chain than the URI")
        }
        events(.open(open))

        if case .reject(let reject) = options.decision {
            try channel.send(control: .reject(reject))
            events(.rejected(reject))
            return .rejected(reject)
        }

        // Keys first: an app key that cannot be used (a small-order point) must fail before anything is signed or
        // sent, not after the app already holds our approval.
        do {
            try channel.session.establishKeys(privateKey: options.walletKey, peerPublicKey: open.appPublicKey)
        } catch {
            throw ConnectError(.protocolViolation, "the app's X25519 key cannot be used (\(error.message)); nothing was signed or approved")
        }
        let walletPublicKey = options.walletKey.publicKey.rawRepresentation
        let preimage = try uri.generation.approvalPreimage(ConnectApprovalInput(
            sid: uri.sid, appPublicKey: open.appPublicKey, walletPublicKey: walletPublicKey, accountID: options.accountID.literal,
            constraints: uri.constraints, permissions: open.permissions, proof: nil, relayToken: uri.relayToken))
        let signature = ConnectWalletSignature(algorithm: .ed25519, bytes: options.accountKey.signature(for: preimage))
        try channel.send(control: .approve(ConnectApprove(walletPublicKey: walletPublicKey, accountID: options.accountID.literal,
                                                          permissions: open.permissions, signature: signature)))
        events(.approved(account: options.accountID, walletPublicKey: walletPublicKey))

        while true {
            switch try channel.next(until: deadline, isCancelled: isCancelled) {
            case .payload(let payload, let sequence):
                switch payload {
                case .signRequestRaw, .signRequestTx:
                    events(.request(payload, sequence: sequence))
                    try answer(payload, open: open, channel: channel, events: events)
                case .displayRequest(let title, let body):
                    events(.display(title: title, body: body))
                case .control(.close(let close)):
                    events(.closed(close))
                    return .closed(close)
                case .control(.reject(let reject)):
                    let close = ConnectClose(who: .app, code: reject.code, reason: reject.reason)
                    events(.closed(close))
                    return .closed(close)
                case .signResultOk, .signResultErr:
                    throw ConnectError(.protocolViolation, "the app sent a sign result")
                }
            case .control(.close(let close), let fromServer):
                if fromServer { throw ConnectChannel.terminated(close) }
                events(.closed(close))
                return .closed(close)
            case .control(let control, _):
                throw ConnectError(.protocolViolation, "unexpected \(control.name) after the approval")
            }
        }
    }

    private func answer(_ request: ConnectPayload, open: ConnectOpen, channel: ConnectChannel,
                        events: (ConnectWalletEvent) -> Void) throws {
        let message: [UInt8]
        switch request {
        case .signRequestRaw(let domainTag, let bytes):
            if let refusal = rawRefusal(domainTag: domainTag, open: open) {
                try refuse(refusal.0, refusal.1, channel: channel, events: events)
                return
            }
            message = bytes
        case .signRequestTx(let txBytes):
            guard options.autoSign else {
                try refuse("USER_DENIED", "signing needs --auto-sign on this headless wallet", channel: channel, events: events)
                return
            }
            message = ConnectSignRequest.irohaHash(txBytes)
        default:
            return
        }
        let signature = ConnectWalletSignature(algorithm: .ed25519, bytes: options.accountKey.signature(for: message))
        try channel.send(encrypted: .signResultOk(signature))
        events(.signed(signature, sequence: channel.session.nextOutboundSequence - 1))
    }

    private func rawRefusal(domainTag: String, open: ConnectOpen) -> (String, String)? {
        guard options.autoSign else { return ("USER_DENIED", "signing needs --auto-sign on this headless wallet") }
        guard options.allowedDomains.contains(domainTag) else {
            return ("UNAUTHORIZED", "domain tag '\(domainTag)' is not allowed (--allow-domain)")
        }
        if let resources = open.permissions?.resources, !resources.contains(domainTag) {
            return ("UNAUTHORIZED", "domain tag '\(domainTag)' was not declared in the app's permissions")
        }
        return nil
    }

    private func refuse(_ code: String, _ message: String, channel: ConnectChannel, events: (ConnectWalletEvent) -> Void) throws {
        try channel.send(encrypted: .signResultErr(code: code, message: message))
        events(.refused(code: code, message: message))
    }
}
