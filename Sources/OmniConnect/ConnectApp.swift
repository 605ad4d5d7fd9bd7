import FoundationEssentials
import OmniCrypto
import OmniTransport

/// What an app asks the wallet to sign.
public enum ConnectSignRequest: Sendable, Equatable {
    /// Arbitrary bytes under a domain tag; the signature covers the bytes only (the tag is a policy label).
    case raw(domainTag: String, bytes: [UInt8])
    /// A canonical Iroha transaction payload; signed as Iroha signs transactions, over `Hash(payload)`.
    case transaction(txBytes: [UInt8])

    public var payload: ConnectPayload {
        switch self {
        case .raw(let domainTag, let bytes): .signRequestRaw(domainTag: domainTag, bytes: bytes)
        case .transaction(let txBytes): .signRequestTx(txBytes: txBytes)
        }
    }

    /// The message the wallet's account key signs.
    public var signedMessage: [UInt8] {
        switch self {
        case .raw(_, let bytes): bytes
        case .transaction(let txBytes): Self.irohaHash(txBytes)
        }
    }

    /// The permissions an app declares in `Open` for this request (the form the production wallet expects).
    public var permissions: ConnectPermissions {
        switch self {
        case .raw(let domainTag, _): ConnectPermissions(methods: ["sign_raw"], events: [], resources: [domainTag])
        case .transaction: ConnectPermissions(methods: ["sign_tx"], events: [], resources: nil)
        }
    }

    /// Iroha's `Hash`: BLAKE2b-256 with the lowest bit of the last byte set.
    public static func irohaHash(_ bytes: [UInt8]) -> [UInt8] {
        var hash = BLAKE2b.hash256(bytes)
        if !hash.isEmpty { hash[hash.count - 1] |= 1 }
        return hash
    }
}

public struct ConnectAppOptions: Sendable {
    public var constraints: ConnectConstraints
    public var appKey: X25519.PrivateKey
    public var nonce: [UInt8]?
    public var metadata: ConnectAppMetadata?
    public var permissions: ConnectPermissions?
    public var request: ConnectSignRequest
    /// Seconds for the whole exchange.
    public var timeout: Double = 300
    /// Seconds between keep-alive pings while waiting (Torii closes idle sessions after 5 minutes).
    public var pingInterval: Double = 30
    public var tokenTransport: ConnectTokenTransport = .header
    /// The node URL to advertise in the wallet URI (default: the node contacted).
    public var advertisedNode: String?
    /// Delete the session with the management token at the end.
    public var deleteSession = true
    /// Refuse an approval by any other account (the session is closed and nothing is requested).
    public var expectedAccount: IrohaAccountID?

    public init(constraints: ConnectConstraints, appKey: X25519.PrivateKey = X25519.PrivateKey(), request: ConnectSignRequest) {
        self.constraints = constraints
        self.appKey = appKey
        self.request = request
    }
}

public enum ConnectAppEvent: Sendable {
    case session(ConnectRegistration)
    case connected
    case waitingForApproval
    case approved(account: IrohaAccountID, walletPublicKey: [UInt8])
    case requestSent(sequence: UInt64)
    case closed
}

public enum ConnectAppOutcome: Sendable, Equatable {
    case signed(ConnectWalletSignature, account: IrohaAccountID)
    case rejected(ConnectReject)
    case signError(code: String, message: String)
}

/// The app side of a whole session: register, join, Open, wait for the approval (keeping the session alive),
/// send the one request, verify the signature against the approved account key, close and delete.
public struct ConnectApp: Sendable {
    /// The Close code for a session the app refuses (WebSocket's "policy violation").
    public static let policyCloseCode: UInt16 = 1008

    public let client: ToriiConnectClient
    public let options: ConnectAppOptions

    public init(client: ToriiConnectClient, options: ConnectAppOptions) {
        self.client = client
        self.options = options
    }

    public func run(events: (ConnectAppEvent) -> Void, isCancelled: () -> Bool = { false }) throws -> ConnectAppOutcome {
        let deadline = Date(timeIntervalSinceNow: options.timeout)
        let generation = client.generation
        let registration = try client.createSession(
            constraints: options.constraints, appPublicKey: options.appKey.publicKey.rawRepresentation,
            nonce: options.nonce ?? ConnectCrypto.makeNonce(), advertisedNode: options.advertisedNode)
        defer {
            if options.deleteSession { _ = try? client.deleteSession(sid: registration.sid, managementToken: registration.tokenManagement) }
        }
        events(.session(registration))
        let socket = try client.join(sid: registration.sid, role: .app, token: registration.tokenApp, transport: options.tokenTransport)
        let channel = ConnectChannel(socket: socket, session: ConnectSession(role: .app, sid: registration.sid, codec: ConnectCodec(generation: generation)),
                                     pingInterval: options.pingInterval)
        defer { channel.close() }
        events(.connected)
        try channel.send(control: .open(ConnectOpen(
            appPublicKey: options.appKey.publicKey.rawRepresentation, appMetadata: options.metadata, constraints: options.constraints,
            permissions: options.permissions ?? options.request.permissions)))
        events(.waitingForApproval)

        var account: IrohaAccountID?
        while account == nil {
            switch try channel.next(until: deadline, isCancelled: isCancelled) {
            case .control(.approve(let approve), fromServer: false):
                let approved = try channel.session.acceptApproval(approve, appPrivateKey: options.appKey, constraints: options.constraints,
                                                                  relayToken: registration.tokenRelay)
                if let expected = options.expectedAccount, approved != expected {
                    try? channel.send(encrypted: .control(.close(ConnectClose(
                        who: .app, code: ConnectApp.policyCloseCode, reason: "unexpected account", retryable: false))))
                    throw ConnectError(.verificationFailed, "the wallet approved as \(approved.literal), not the expected account "
                                       + "\(expected.literal) (--expect-account); the session was closed without a request")
                }
                account = approved
                events(.approved(account: approved, walletPublicKey: approve.walletPublicKey))
            case .control(.reject(let reject), fromServer: false):
                return .rejected(reject)
            case .control(.close(let close), let fromServer):
                throw fromServer ? ConnectChannel.terminated(close)
                    : ConnectError(.rejected, "the wallet closed the session before approving: \(close.reason) (\(close.code))", code: Int(close.code))
            case .control(let control, _):
                throw ConnectError(.protocolViolation, "unexpected \(control.name) while waiting for the approval")
            case .payload(let payload, _):
                throw ConnectError(.protocolViolation, "unexpected encrypted \(payload.name) before the approval")
            }
        }
        guard let account else { throw ConnectError(.protocolViolation, "no approval") }

        try channel.send(encrypted: options.request.payload)
        events(.requestSent(sequence: channel.session.nextOutboundSequence - 1))
        let outcome: ConnectAppOutcome
        waiting: while true {
            switch try channel.next(until: deadline, isCancelled: isCancelled) {
            case .payload(.signResultOk(let signature), _):
                guard try ConnectCrypto.verify(signature, publicKey: account.publicKey, message: options.request.signedMessage) else {
                    throw ConnectError(.verificationFailed, "INVALID_SIGNATURE: the wallet's signature does not verify for \(account.literal)")
                }
                outcome = .signed(signature, account: account)
                break waiting
            case .payload(.signResultErr(let code, let message), _):
                outcome = .signError(code: code, message: message)
                break waiting
            case .payload(.control(.reject(let reject)), _):
                outcome = .rejected(reject)
                break waiting
            case .payload(.control(.close(let close)), _):
                throw ConnectError(.rejected, "the wallet closed the session: \(close.reason) (\(close.code))", code: Int(close.code))
            case .control(.close(let close), true):
                throw ConnectChannel.terminated(close)
            case .control(let control, _):
                throw ConnectError(.protocolViolation, "unexpected \(control.name) while waiting for the signature")
            case .payload(let payload, _):
                throw ConnectError(.protocolViolation, "unexpected encrypted \(payload.name) while waiting for the signature")
            }
        }
        try? channel.send(encrypted: .control(.close(ConnectClose(who: .app, code: 1000, reason: "done", retryable: false))))
        events(.closed)
        return outcome
    }
}
