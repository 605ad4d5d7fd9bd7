import FoundationEssentials
import OmniCodec
import OmniCrypto
import OmniTransport

/// Tunables of the relay (Torii's Connect defaults unless a test shortens them).
public struct ConnectRelayConfiguration: Sendable {
    public var generation: ConnectGeneration = .genB
    /// Gen B: the relay's network id; sessions for another network are refused. Nil accepts any (each session
    /// is then bound to the network it was registered with).
    public var networkID: ConnectNetworkID?
    /// Gen A: the chain id put into wallet URIs.
    public var chainID = "omni-local"
    /// Idle seconds before a session is closed with 4001.
    public var sessionTTL: Double = 300
    /// Seconds a relayed ping may wait for its pong; `pingMissTolerance` late pings close the socket with 4003.
    public var heartbeatInterval: Double = 30
    public var pingMissTolerance = 3
    public var frameMaxBytes = ConnectCodec.defaultMaxFrameBytes
    public var sessionBufferMaxBytes = 262_144
    public var dedupeTTL: Double = 120
    public var dedupeCapacity = 8192
    /// Sessions registered at once; more registrations are refused until some end.
    public var maxSessions = 10_000
    /// Bytes buffered for absent peers across all sessions (each session also stays within
    /// `sessionBufferMaxBytes`); a frame that would pass it ends its session with `connect_relay_buffer_full`.
    public var maxBufferedBytes = 64 << 20
    /// Session registrations one peer address may make per minute (a burst of as many, refilled evenly); the
    /// registration POST is unauthenticated.
    public var registrationsPerMinute = 120
    /// Seconds a socket may stay silent (not one byte) before it is closed with 1001; nil never.
    public var socketIdleTimeout: Double? = 300
    /// Seconds a peer has to answer the relay's WebSocket close before its socket is dropped.
    public var closeTimeout: Double = 5

    public init() {}
}

/// The relay-wide count of bytes buffered for absent peers. Only touched under the relay's lock.
final class RelayBufferBudget {
    let limit: Int
    private(set) var used = 0

    init(limit: Int) { self.limit = limit }

    func fits(_ count: Int) -> Bool { used + count <= limit }
    func take(_ count: Int) { used += count }
    func release(_ count: Int) { used -= count }
}

/// One side effect the relay performs after deciding (outside its lock: sends may block).
enum RelayAction: Sendable {
    case send(WebSocketConnection, [UInt8])
    case close(WebSocketConnection, code: UInt16, reason: String)
}

/// Why a frame was not relayed, for the relay's event log.
enum RelayDisposition: Equatable, Sendable {
    case relayed
    case buffered
    case dropped(String)
    case terminated(String)
}

/// The bus state of one session. All methods run under the relay's lock.
final class RelaySession {
    let sid: [UInt8]
    let generation: ConnectGeneration
    let constraints: ConnectConstraints
    let appPublicKey: [UInt8]?
    let relayToken: String?
    let codec: ConnectCodec
    let configuration: ConnectRelayConfiguration
    private let budget: RelayBufferBudget
    private var tokenHashes: [ConnectTokenKind: [UInt8]]
    private(set) var consumedRoles: Set<ConnectRole> = []
    private(set) var sockets: [ConnectRole: WebSocketConnection] = [:]
    private(set) var lastSequence: [ConnectDirection: UInt64] = [:]
    private var serverSequence: [ConnectDirection: UInt64] = [:]
    private var recent: [ConnectDirection: DedupeWindow] = [:]
    private(set) var opened = false
    private(set) var approved = false
    private var buffers: [ConnectRole: [[UInt8]]] = [:]
    private var bufferedBytes = 0
    /// Roles whose new socket is still being sent what was buffered for them: newer frames queue behind, so the
    /// role sees its peer's sequence in order.
    private var flushing: Set<ConnectRole> = []
    /// Pings relayed to a role that it has not answered yet.
    private var pendingPings: [ConnectRole: [(nonce: UInt64, sent: Date)]] = [:]
    private(set) var lastActivity: Date
    private(set) var terminated = false

    init(sid: [UInt8], generation: ConnectGeneration, constraints: ConnectConstraints, appPublicKey: [UInt8]?, tokens: [ConnectTokenKind: String],
         relayToken: String?, configuration: ConnectRelayConfiguration, budget: RelayBufferBudget, now: Date) {
        self.sid = sid
        self.generation = generation
        self.constraints = constraints
        self.appPublicKey = appPublicKey
        self.relayToken = relayToken
        self.configuration = configuration
        self.budget = budget
        codec = ConnectCodec(generation: generation, maxFrameBytes: configuration.frameMaxBytes)
        tokenHashes = tokens.mapValues { _ in [] }
        for (kind, token) in tokens { tokenHashes[kind] = ConnectCrypto.tokenHash(kind: kind, sid: sid, token: token) }
        lastActivity = now
    }

    // MARK: - Tokens and attachment

    func tokenMatches(_ kind: ConnectTokenKind, _ token: String) -> Bool {
        guard let stored = tokenHashes[kind] else { return false }
        return ConstantTime.equals(stored, ConnectCrypto.tokenHash(kind: kind, sid: sid, token: token))
    }

    /// One-time tokens: true (and the token is spent) if `token` is the role's unused token.
    func consumeToken(role: ConnectRole, token: String) -> Bool {
        guard !consumedRoles.contains(role), tokenMatches(role == .app ? .app : .wallet, token) else { return false }
        consumedRoles.insert(role)
        return true
    }

    /// Attaches a role's socket; frames keep going to its buffer until `takeBuffered` has handed all of them out.
    func attach(_ socket: WebSocketConnection, role: ConnectRole, now: Date) {
        sockets[role] = socket
        lastActivity = now
        // Pings buffered while the role was away reach it only now: their pong clock starts now.
        pendingPings[role] = pendingPings[role]?.map { (nonce: $0.nonce, sent: now) }
        flushing.insert(role)
    }

    /// The frames buffered for `role`, removed for sending; nil once none are left, and from then on frames go to
    /// the role's socket directly.
    func takeBuffered(for role: ConnectRole) -> [[UInt8]]? {
        guard let pending = buffers.removeValue(forKey: role), !pending.isEmpty else {
            flushing.remove(role)
            return nil
        }
        let count = pending.reduce(0) { $0 + $1.count }
        bufferedBytes -= count
        budget.release(count)
        return pending
    }

    func detach(_ socket: WebSocketConnection, role: ConnectRole) {
        if sockets[role] === socket { sockets[role] = nil }
    }

    var bufferedFrameCount: Int { buffers.values.reduce(0) { $0 + $1.count } }

    // MARK: - The bus

    /// Applies the bus rules to one binary message from `role` and says what to do.
    func relay(_ bytes: [UInt8], from role: ConnectRole, now: Date) -> (RelayDisposition, [RelayAction]) {
        guard !terminated else { return (.dropped("session already terminated"), []) }
        lastActivity = now
        let frame: ConnectFrame
        do {
            frame = try codec.decodeFrame(bytes)
        } catch {
            return (.dropped("undecodable frame: \(error.description)"), closeSender(role, code: 1008, reason: "connect: malformed frame"))
        }
        guard frame.sid == sid else {
            return (.dropped("frame for another sid"), closeSender(role, code: 1008, reason: "connect: sid mismatch"))
        }
        guard frame.direction == role.outbound else { return terminate("connect_role_direction_mismatch") }
        // Close 4002 is the relay's own termination notice (peers accept it outside the sequence): no client may send it.
        if case .control(.close(let close)) = frame.kind, close.code == ConnectClose.controlCloseCode {
            return terminate("connect_role_direction_mismatch")
        }
        if let violation = ownershipViolation(frame, from: role) { return terminate(violation) }

        let last = lastSequence[frame.direction] ?? 0
        recent[frame.direction, default: DedupeWindow()].forget(olderThan: configuration.dedupeTTL, now: now)
        if recent[frame.direction]?.contains(frame.sequence, last: last) == true {
            return (.dropped("duplicate sequence \(frame.sequence)"), [])
        }
        guard frame.sequence == last &+ 1 else { return terminate("connect_sequence_violation") }
        lastSequence[frame.direction] = frame.sequence
        recent[frame.direction, default: DedupeWindow()].remember(now, capacity: configuration.dedupeCapacity)

        var terminateAfterDelivery: String?
        switch frame.kind {
        case .ciphertext:
            if generation.relayChecksIdentity, !approved { return terminate("connect_wallet_approval_invalid") }
        case .control(let control):
            switch control {
            case .open(let open):
                if generation.relayChecksIdentity {
                    guard !opened else { return terminate("connect_open_replayed") }
                    guard open.constraints == constraints else { return terminate("connect_network_id_mismatch") }
                    guard open.appPublicKey == appPublicKey else { return terminate("connect_open_identity_mismatch") }
                }
                opened = true
            case .approve(let approve):
                if generation.relayChecksIdentity {
                    guard !approved else { return terminate("connect_wallet_approval_replayed") }
                    guard verifyApproval(approve) else { return terminate("connect_wallet_approval_invalid") }
                }
                approved = true
            case .reject, .close:
                if approved { return (.dropped("plaintext \(control.name) after approval"), []) }
                if generation.relayChecksIdentity {
                    if case .reject = control { terminateAfterDelivery = "connect_rejected" } else { terminateAfterDelivery = "connect_closed" }
                }
            case .ping(let nonce):
                var pending = pendingPings[role.peer] ?? []
                pending.append((nonce, now))
                pendingPings[role.peer] = Array(pending.suffix(16))
            case .pong(let nonce):
                pendingPings[role]?.removeAll { $0.nonce == nonce }
            case .serverEvent:
                return terminate("connect_role_direction_mismatch")
            }
        }

        let (disposition, actions) = deliver(bytes, to: role.peer)
        if case .terminated = disposition { return (disposition, actions) }
        if let reason = terminateAfterDelivery {
            let (terminal, closing) = terminate(reason)
            return (terminal, actions + closing)
        }
        return (disposition, actions)
    }

    /// Gen B: `Open` only from the app, `Approve`/`Reject` only from the wallet, `Close.who` the sender,
    /// no `ServerEvent` from clients, ciphertext's inner direction the frame's.
    private func ownershipViolation(_ frame: ConnectFrame, from role: ConnectRole) -> String? {
        guard generation.relayChecksIdentity else { return nil }
        switch frame.kind {
        case .ciphertext(let ciphertext):
            return ciphertext.direction == frame.direction ? nil : "connect_role_direction_mismatch"
        case .control(.open):
            return role == .app ? nil : "connect_role_direction_mismatch"
        case .control(.approve), .control(.reject):
            return role == .wallet ? nil : "connect_role_direction_mismatch"
        case .control(.close(let close)):
            return close.who == role ? nil : "connect_role_direction_mismatch"
        case .control(.serverEvent):
            return "connect_role_direction_mismatch"
        case .control(.ping), .control(.pong):
            return nil
        }
    }

    /// Gen B Torii's check: the account id is a canonical single-key literal and its key signed this session's
    /// approval preimage (with this session's network, app key and relay token).
    private func verifyApproval(_ approve: ConnectApprove) -> Bool {
        guard let appPublicKey, let account = try? IrohaAccountID(parsing: approve.accountID),
              let preimage = try? generation.approvalPreimage(ConnectApprovalInput(
                  sid: sid, appPublicKey: appPublicKey, walletPublicKey: approve.walletPublicKey, accountID: approve.accountID,
                  constraints: constraints, permissions: approve.permissions, proof: approve.proof, relayToken: relayToken)) else {
            return false
        }
        return (try? ConnectCrypto.verify(approve.signature, publicKey: account.publicKey, message: preimage)) == true
    }

    private func deliver(_ bytes: [UInt8], to role: ConnectRole) -> (RelayDisposition, [RelayAction]) {
        if let socket = sockets[role], socket.isOpen, !flushing.contains(role) { return (.relayed, [.send(socket, bytes)]) }
        guard bufferedBytes + bytes.count <= configuration.sessionBufferMaxBytes else { return terminate("connect_buffer_overflow") }
        guard budget.fits(bytes.count) else { return terminate("connect_relay_buffer_full") }
        buffers[role, default: []].append(bytes)
        bufferedBytes += bytes.count
        budget.take(bytes.count)
        return (.buffered, [])
    }

    /// Gives the buffered frames' bytes back to the relay's budget (the session has ended).
    private func releaseBuffers() {
        budget.release(bufferedBytes)
        bufferedBytes = 0
        buffers = [:]
    }

    // MARK: - Termination

    /// Ends the session: each attached side gets a plaintext `Close{who: other, 4002, reason}` on the relay's own
    /// counter, then its socket is closed.
    func terminate(_ reason: String) -> (RelayDisposition, [RelayAction]) {
        guard !terminated else { return (.terminated(reason), []) }
        terminated = true
        releaseBuffers()
        var actions: [RelayAction] = []
        for (role, socket) in sockets.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let direction = role.inbound
            let sequence = (serverSequence[direction] ?? 0) + 1
            serverSequence[direction] = sequence
            let close = ConnectFrame(sid: sid, direction: direction, sequence: sequence, kind: .control(.close(ConnectClose(
                who: role.peer, code: ConnectClose.controlCloseCode, reason: reason, retryable: false))))
            actions.append(.send(socket, codec.encode(close)))
            actions.append(.close(socket, code: 1000, reason: reason))
        }
        sockets = [:]
        return (.terminated(reason), actions)
    }

    /// Closes every socket with a WebSocket close code (4001 TTL) without a Close frame.
    func expire(code: UInt16, reason: String) -> [RelayAction] {
        terminated = true
        releaseBuffers()
        defer { sockets = [:] }
        return sockets.values.map { .close($0, code: code, reason: reason) }
    }

    private func closeSender(_ role: ConnectRole, code: UInt16, reason: String) -> [RelayAction] {
        guard let socket = sockets[role] else { return [] }
        sockets[role] = nil
        return [.close(socket, code: code, reason: reason)]
    }

    // MARK: - Heartbeat

    /// Roles with `pingMissTolerance` or more pings unanswered for longer than the heartbeat interval.
    func heartbeatFailures(now: Date) -> [(ConnectRole, WebSocketConnection)] {
        var failures: [(ConnectRole, WebSocketConnection)] = []
        for (role, pings) in pendingPings {
            let late = pings.filter { now.timeIntervalSince($0.sent) > configuration.heartbeatInterval }.count
            if late >= configuration.pingMissTolerance, let socket = sockets[role] {
                failures.append((role, socket))
                sockets[role] = nil
                pendingPings[role] = []
            }
        }
        return failures
    }

    // MARK: - Status

    func statusJSON(now: Date) -> JSONValue {
        .object([
            "sid": .string(ConnectText.base64URL(sid)),
            "app_attached": .bool(sockets[.app] != nil),
            "wallet_attached": .bool(sockets[.wallet] != nil),
            "opened": .bool(opened),
            "approved": .bool(approved),
            "buffered_frames": .int(bufferedFrameCount),
            "buffered_bytes": .int(bufferedBytes),
            "pending_pings_app": .int(pendingPings[.app]?.count ?? 0),
            "pending_pings_wallet": .int(pendingPings[.wallet]?.count ?? 0),
            "last_seq_app_to_wallet": .int(lastSequence[.appToWallet] ?? 0),
            "last_seq_wallet_to_app": .int(lastSequence[.walletToApp] ?? 0),
            "idle_ms": .int(Int(now.timeIntervalSince(lastActivity) * 1000)),
            "origin": "local",
        ])
    }
}

/// Arrival times of the latest accepted sequence numbers of one direction, oldest first. Accepted numbers are
/// contiguous, so the window is the last `count` numbers up to the last accepted one: a duplicate check, an
/// addition and the expiry of old entries cost O(1) per frame, whatever the window's size (the relay's lock is held).
struct DedupeWindow {
    private var arrivals: [Date] = []
    private var oldest = 0

    /// How many of the latest sequence numbers are remembered.
    var count: Int { arrivals.count - oldest }

    /// Whether `sequence` is one of the remembered numbers, given the last accepted one.
    func contains(_ sequence: UInt64, last: UInt64) -> Bool {
        sequence <= last && last - sequence < UInt64(count)
    }

    mutating func remember(_ time: Date, capacity: Int) {
        arrivals.append(time)
        if count > capacity { oldest += 1 }
        compact()
    }

    /// Forgets the numbers that arrived more than `ttl` seconds before `now`.
    mutating func forget(olderThan ttl: Double, now: Date) {
        while oldest < arrivals.count, now.timeIntervalSince(arrivals[oldest]) > ttl { oldest += 1 }
        compact()
    }

    /// Drops forgotten entries once they are the larger half, so the storage stays within twice the window.
    private mutating func compact() {
        if oldest >= 64, oldest * 2 >= arrivals.count {
            arrivals.removeFirst(oldest)
            oldest = 0
        }
    }
}
