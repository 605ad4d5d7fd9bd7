import OmniCodec
import OmniCrypto

/// What arrived, after the session rules were applied.
public enum ConnectInbound: Equatable, Sendable {
    /// A plaintext control from the peer (`fromServer` false) or a Close/ServerEvent the relay originated.
    case control(ConnectControl, fromServer: Bool)
    /// A decrypted payload from the peer.
    case payload(ConnectPayload, sequence: UInt64)
}

/// One side's view of a session, independent of any transport: numbers outgoing frames, enforces the inbound
/// rules, holds the traffic keys once the approval is done, and tracks the one request that may be in flight.
///
/// Inbound rules: the sid and direction must be ours; peer frames must carry exactly the next sequence number
/// (a lower one is a replay, a higher one a gap); ciphertext before keys is refused (`missing decryption keys`);
/// ciphertext must authenticate and its envelope sequence match the frame. Close frames with code 4002 and
/// ServerEvents are the relay's: they are accepted outside the peer sequence only with exactly the next number of
/// the relay's own counter (from 1), and never from the peer. After the relay's Close 4002 the session is over.
public struct ConnectSession: Sendable {
    public let role: ConnectRole
    public let codec: ConnectCodec
    public let sid: [UInt8]
    public private(set) var keys: ConnectDirectionKeys?
    /// The next sequence number this side will send (every frame counts, from 1).
    public private(set) var nextOutboundSequence: UInt64 = 1
    /// The last peer sequence number accepted (0 before any).
    public private(set) var lastInboundSequence: UInt64 = 0
    /// The last sequence number of a relay-originated frame accepted (its own counter; 0 before any).
    public private(set) var lastServerSequence: UInt64 = 0
    /// The relay terminated the session (Close 4002): nothing more is accepted.
    public private(set) var terminatedByRelay = false
    /// App side: a sign request was sent and its result has not arrived.
    public private(set) var requestInFlight = false
    public private(set) var approval: ConnectApprove?

    public var generation: ConnectGeneration { codec.generation }

    public init(role: ConnectRole, sid: [UInt8], codec: ConnectCodec) {
        self.role = role
        self.sid = sid
        self.codec = codec
    }

    // MARK: - Outbound

    /// A plaintext control frame with the next sequence number.
    public mutating func frame(_ control: ConnectControl) -> ConnectFrame {
        defer { nextOutboundSequence += 1 }
        return ConnectFrame(sid: sid, direction: role.outbound, sequence: nextOutboundSequence, kind: .control(control))
    }

    /// An encrypted frame with the next sequence number. Sign requests (app) may not overlap.
    public mutating func encrypt(_ payload: ConnectPayload) throws(ConnectError) -> ConnectFrame {
        guard let keys else {
            throw ConnectError(.protocolViolation, "missing encryption keys: nothing can be encrypted before the session is approved")
        }
        switch payload {
        case .signRequestRaw, .signRequestTx:
            guard role == .app else { throw ConnectError(.protocolViolation, "only the app sends sign requests") }
            guard !requestInFlight else {
                throw ConnectError(.protocolViolation, "REQUEST_IN_FLIGHT: a sign request is already waiting for its result")
            }
            requestInFlight = true
        default:
            break
        }
        let frame = try ConnectCrypto.seal(payload, sid: sid, direction: role.outbound, sequence: nextOutboundSequence, keys: keys, codec: codec)
        nextOutboundSequence += 1
        return frame
    }

    public func encode(_ frame: ConnectFrame) -> [UInt8] { codec.encode(frame) }

    // MARK: - Keys

    /// Uses traffic keys obtained elsewhere (decoding a captured session).
    public mutating func installKeys(_ keys: ConnectDirectionKeys) {
        self.keys = keys
    }

    /// Continues a session whose peer frames up to `sequence` were already seen.
    public mutating func expectInbound(after sequence: UInt64) {
        lastInboundSequence = sequence
    }

    /// Derives the traffic keys from our X25519 key and the peer's public key.
    public mutating func establishKeys(privateKey: X25519.PrivateKey, peerPublicKey: [UInt8]) throws(ConnectError) {
        keys = try ConnectCrypto.keySchedule(privateKey: privateKey, peerPublicKey: peerPublicKey, sid: sid).keys
    }

    /// App side: checks a wallet's Approve (a second one is refused, the signature must verify against the key in
    /// the account id over this generation's preimage) and derives the keys. Returns the approving account.
    public mutating func acceptApproval(
        _ approve: ConnectApprove, appPrivateKey: X25519.PrivateKey, constraints: ConnectConstraints, relayToken: String?
    ) throws(ConnectError) -> IrohaAccountID {
        guard role == .app else { throw ConnectError(.protocolViolation, "only the app receives approvals") }
        guard approval == nil else { throw ConnectError(.protocolViolation, "the wallet sent a second Approve") }
        let account: IrohaAccountID
        do {
            account = try IrohaAccountID(parsing: approve.accountID)
        } catch {
            throw ConnectError(.verificationFailed, "cannot check the approval: account id '\(approve.accountID)' — \(error.message)")
        }
        let preimage = try generation.approvalPreimage(ConnectApprovalInput(
            sid: sid, appPublicKey: appPrivateKey.publicKey.rawRepresentation, walletPublicKey: approve.walletPublicKey,
            accountID: approve.accountID, constraints: constraints, permissions: approve.permissions, proof: approve.proof,
            relayToken: relayToken))
        guard try ConnectCrypto.verify(approve.signature, publicKey: account.publicKey, message: preimage) else {
            throw ConnectError(.verificationFailed, "INVALID_SIGNATURE: the approval signature does not verify for \(account.literal)")
        }
        try establishKeys(privateKey: appPrivateKey, peerPublicKey: approve.walletPublicKey)
        approval = approve
        return account
    }

    // MARK: - Inbound

    public mutating func receive(_ bytes: [UInt8]) throws(ConnectError) -> ConnectInbound {
        let frame: ConnectFrame
        do {
            frame = try codec.decodeFrame(bytes)
        } catch {
            throw ConnectError.malformed(error, "frame (\(bytes.count) bytes)")
        }
        return try receive(frame)
    }

    public mutating func receive(_ frame: ConnectFrame) throws(ConnectError) -> ConnectInbound {
        guard frame.sid == sid else {
            throw ConnectError(.protocolViolation, "frame for another session (sid \(ConnectText.base64URL(frame.sid)))")
        }
        guard frame.direction == role.inbound else {
            throw ConnectError(.protocolViolation, "misdirected frame: \(frame.direction) frames cannot reach the \(role)")
        }
        guard !terminatedByRelay else {
            throw ConnectError(.protocolViolation, "frame \(frame.sequence) after the relay terminated the session")
        }
        if let control = frame.control, Self.isServerOriginated(control) {
            // Only the relay sends these, numbered on its own counter: one that does not continue that counter is
            // a replay or a peer posing as the relay (which the relay forwards as its own frame), and is refused.
            guard frame.sequence == lastServerSequence &+ 1 else {
                throw ConnectError(.protocolViolation, "\(Self.describe(control)) with sequence \(frame.sequence) is not the relay's next "
                                   + "(expected relay sequence \(lastServerSequence &+ 1)); only the relay may send it, not the \(role.peer)")
            }
            lastServerSequence = frame.sequence
            if case .close = control { terminatedByRelay = true }
            return .control(control, fromServer: true)
        }
        let expected = lastInboundSequence &+ 1
        guard frame.sequence == expected else {
            if frame.sequence <= lastInboundSequence {
                throw ConnectError(.protocolViolation,
                                   "replayed frame: sequence \(frame.sequence) from the \(role.peer) was already received (last \(lastInboundSequence))")
            }
            throw ConnectError(.protocolViolation, "sequence gap: expected \(expected) from the \(role.peer), got \(frame.sequence)")
        }
        switch frame.kind {
        case .control(let control):
            lastInboundSequence = frame.sequence
            return .control(control, fromServer: false)
        case .ciphertext:
            guard let keys else {
                throw ConnectError(.protocolViolation, "missing decryption keys: ciphertext frame \(frame.sequence) arrived before the session was approved")
            }
            let envelope = try ConnectCrypto.open(frame, keys: keys, codec: codec)
            lastInboundSequence = frame.sequence
            if role == .app, case .signResultOk = envelope.payload { requestInFlight = false }
            if role == .app, case .signResultErr = envelope.payload { requestInFlight = false }
            return .payload(envelope.payload, sequence: frame.sequence)
        }
    }

    private static func describe(_ control: ConnectControl) -> String {
        if case .close = control { return "a Close with code \(ConnectClose.controlCloseCode)" }
        return "a \(control.name)"
    }

    /// Relay-originated frames use the relay's own counter: its terminations (Close 4002) and server events.
    static func isServerOriginated(_ control: ConnectControl) -> Bool {
        switch control {
        case .serverEvent: true
        case .close(let close): close.code == ConnectClose.controlCloseCode
        default: false
        }
    }
}
