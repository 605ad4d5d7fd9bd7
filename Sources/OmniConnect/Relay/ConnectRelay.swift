import Dispatch
import FoundationEssentials
import OmniCodec
import OmniSystem
import OmniTransport

/// Something the relay did, for its log.
public enum ConnectRelayEvent: Sendable {
    case sessionCreated(sid: String)
    case attached(sid: String, role: ConnectRole)
    case refused(sid: String?, status: Int, reason: String)
    case detached(sid: String, role: ConnectRole)
    case dropped(sid: String, role: ConnectRole, reason: String)
    case terminated(sid: String, reason: String)
    case expired(sid: String)
    case heartbeatTimeout(sid: String, role: ConnectRole)
    case deleted(sid: String)
}

/// A local, Torii-compatible Connect relay on omni's HTTP/WebSocket server. It registers sessions
/// (`POST /v1/connect/session`), serves `/v1/connect/ws`, `DELETE /v1/connect/session/{sid}` and
/// `GET /v1/connect/status`, and enforces Torii's bus rules — token hashes and one-time tokens, role/direction
/// binding, strict sequences with dedupe, buffering for an absent peer, Open/Approve validation (Gen B),
/// termination fan-out with the relay's own sequence, idle TTL (4001), heartbeat (4003) and delivery timeout
/// (a peer that stops reading) — without ever holding a traffic key. Its own resources are bounded too: sessions,
/// bytes buffered across sessions, registrations per peer address, a silent socket (idle timeout) and a peer that
/// never answers the relay's close (close timeout).
public final class ConnectRelay: @unchecked Sendable {
    public let configuration: ConnectRelayConfiguration
    private let lock = Lock()
    private var sessions: [[UInt8]: RelaySession] = [:]
    private let budget: RelayBufferBudget
    private var registrations: RegistrationRateLimiter
    /// Sockets the relay has sent its close to, and when they are dropped if the peer has not answered.
    private var closing: [ObjectIdentifier: (socket: WebSocketConnection, deadline: Date)] = [:]
    private var servedSockets = 0
    private let onEvent: @Sendable (ConnectRelayEvent) -> Void
    private weak var server: HTTPServer?
    private let sweeperStop = Condition()
    private var stopping = false
    /// The base URL put in wallet URIs when a registration names no node.
    private var publicURL = ""

    public init(configuration: ConnectRelayConfiguration, onEvent: @escaping @Sendable (ConnectRelayEvent) -> Void = { _ in }) {
        self.configuration = configuration
        self.onEvent = onEvent
        budget = RelayBufferBudget(limit: configuration.maxBufferedBytes)
        registrations = RegistrationRateLimiter(perMinute: configuration.registrationsPerMinute)
    }

    /// Adds the Connect routes to `server` and starts the TTL/heartbeat sweeper. `publicURL` is this relay's base URL.
    public func install(on server: HTTPServer, publicURL: String) {
        self.server = server
        self.publicURL = publicURL
        server.route("POST", "/v1/connect/session") { [self] request in register(request) }
        server.route("GET", "/v1/connect/status") { [self] request in status(request) }
        server.route("DELETE", "/v1/connect/session/*") { [self] request in delete(request) }
        var options = server.configuration.webSocket
        options.maxMessageBytes = configuration.frameMaxBytes
        // A peer that stops reading may hold at most one session buffer (plus one frame) in its socket's queue, and
        // a send waits for it at most Torii's delivery timeout, min(heartbeat, 1 s); then the session ends.
        options.maxPendingOutboundBytes = 2 * configuration.sessionBufferMaxBytes + configuration.frameMaxBytes
        options.sendTimeout = min(configuration.heartbeatInterval, 1)
        // No socket holds its thread forever: silence ends it, and so does ignoring the relay's close.
        options.idleTimeout = configuration.socketIdleTimeout
        options.closeTimeout = configuration.closeTimeout
        server.webSocket("/v1/connect/ws", options: options, gate: { [self] request in gate(request) },
                         subprotocol: { offered, _ in offered.first { $0.hasPrefix(ConnectURI.subprotocolPrefix) } },
                         handler: { [self] socket, request in serve(socket, request) })
        Threads.start(name: "omni-connect-sweeper") { [weak self] in self?.sweep() }
    }

    /// Stops the sweeper (the server is stopped by its owner).
    public func stop() {
        sweeperStop.withLock {
            stopping = true
            sweeperStop.broadcast()
        }
    }

    public var sessionCount: Int { lock.withLock { sessions.count } }

    /// WebSockets the relay is serving now (each holds a thread until it is closed and reclaimed).
    public var openSocketCount: Int { lock.withLock { servedSockets } }

    /// Bytes buffered for absent peers across all sessions.
    public var bufferedByteCount: Int { lock.withLock { budget.used } }

    // MARK: - POST /v1/connect/session

    private func register(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let address = RegistrationRateLimiter.host(of: request.remoteAddress)
        guard lock.withLock({ registrations.allow(address, now: Date()) }) else {
            return refuse(nil, 429, "connect: per-ip registration rate (\(configuration.registrationsPerMinute) a minute)")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(request.body, limits: JSONLimits(maxDepth: 4, maxBytes: 16 << 10))
        } catch {
            return refuse(nil, 400, "malformed request")
        }
        guard let sidText = json["sid"]?.stringValue, let sid = try? ConnectText.parseBase64URL(sidText, byteCount: 32, what: "sid") else {
            return refuse(nil, 400, "malformed request: sid")
        }
        let generation = configuration.generation
        let constraints: ConnectConstraints
        var appPublicKey: [UInt8]?
        var nonce: [UInt8]?
        switch generation {
        case .genB:
            guard let networkText = json["network_id"]?.stringValue, let network = try? ConnectNetworkID(parsing: networkText),
                  let keyText = json["app_pk"]?.stringValue, let key = try? ConnectText.parseBase64URL(keyText, byteCount: 32, what: "app_pk"),
                  let nonceText = json["nonce"]?.stringValue,
                  let nonceBytes = try? ConnectText.parseBase64URL(nonceText, byteCount: 16, what: "nonce") else {
                return refuse(sidText, 400, "malformed request: network_id, app_pk and nonce are required")
            }
            if let own = configuration.networkID, own != network { return refuse(sidText, 400, "connect: network id mismatch") }
            guard ConnectCrypto.sid(generation: .genB, constraints: .network(network), appPublicKey: key, nonce: nonceBytes) == sid else {
                return refuse(sidText, 400, "InvalidIdentity: sid is not BLAKE2b-256 of network id, app key and nonce")
            }
            constraints = .network(network)
            appPublicKey = key
            nonce = nonceBytes
        case .genA:
            constraints = .chain(configuration.chainID)
        }
        let node = json["node"]?.stringValue ?? publicURL
        guard (try? ConnectURI.checkNode(node)) != nil else { return refuse(sidText, 400, "malformed request: node") }

        var tokens: [ConnectTokenKind: String] = [.app: ConnectCrypto.makeToken(), .wallet: ConnectCrypto.makeToken()]
        var relayToken: String?
        if generation == .genB {
            tokens[.management] = ConnectCrypto.makeToken()
            relayToken = ConnectCrypto.makeToken()
        }
        let now = Date()
        let created: Bool = lock.withLock {
            guard sessions[sid] == nil, sessions.count < configuration.maxSessions else { return false }
            sessions[sid] = RelaySession(sid: sid, generation: generation, constraints: constraints, appPublicKey: appPublicKey, tokens: tokens,
                                         relayToken: relayToken, configuration: configuration, budget: budget, now: now)
            return true
        }
        guard created else {
            return refuse(sidText, 400, lock.withLock { sessions[sid] != nil }
                ? "connect session already exists for provided sid" : "connect session capacity reached; try again later")
        }
        onEvent(.sessionCreated(sid: sidText))

        func uri(_ role: ConnectRole, _ token: String) -> String {
            ConnectURI(generation: generation, sid: sid, role: role, token: token, node: node, constraints: constraints,
                       appPublicKey: appPublicKey, nonce: nonce, relayToken: relayToken).text
        }
        var body = JSONObject()
        body["sid"] = .string(sidText)
        if case .network(let network) = constraints, let appPublicKey, let nonce, let relayToken, let management = tokens[.management] {
            body["network_id"] = .string(network.typedLiteral)
            body["app_pk"] = .string(ConnectText.base64URL(appPublicKey))
            body["nonce"] = .string(ConnectText.base64URL(nonce))
            body["wallet_uri"] = .string(uri(.wallet, tokens[.wallet] ?? ""))
            body["app_uri"] = .string(uri(.app, tokens[.app] ?? ""))
            body["token_app"] = .string(tokens[.app] ?? "")
            body["token_wallet"] = .string(tokens[.wallet] ?? "")
            body["token_management"] = .string(management)
            body["token_relay"] = .string(relayToken)
        } else {
            body["wallet_uri"] = .string(uri(.wallet, tokens[.wallet] ?? ""))
            body["app_uri"] = .string(uri(.app, tokens[.app] ?? ""))
            body["token_app"] = .string(tokens[.app] ?? "")
            body["token_wallet"] = .string(tokens[.wallet] ?? "")
        }
        return .json(JSONValue.object(body).serialized())
    }

    // MARK: - DELETE and status

    private func delete(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let sidText = String(request.path.dropFirst("/v1/connect/session/".count))
        guard let sid = try? ConnectText.parseBase64URL(sidText, byteCount: 32, what: "sid") else {
            return .text("connect: unknown sid", status: 404)
        }
        let outcome: (HTTPServerResponse, [RelayAction]) = lock.withLock {
            guard let session = sessions[sid] else { return (.text("connect: unknown sid", status: 404), []) }
            if configuration.generation == .genB {
                guard let token = Self.bearer(request), session.tokenMatches(.management, token) else {
                    return (.text("connect: bad token", status: 401), [])
                }
            }
            sessions[sid] = nil
            return (HTTPServerResponse(status: 204), session.terminate("connect_session_purged").1)
        }
        perform(outcome.1, sid: sid)
        if outcome.0.status == 204 { onEvent(.deleted(sid: sidText)) }
        return outcome.0
    }

    private func status(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let now = Date()
        guard configuration.generation == .genB else {
            let count = sessionCount
            return .json(JSONValue.object(["enabled": true, "sessions_active": .int(count), "generation": "gen-a"]).serialized())
        }
        guard let sidText = request.queryValue("sid"), let sid = try? ConnectText.parseBase64URL(sidText, byteCount: 32, what: "sid") else {
            return .text("connect: sid query parameter required", status: 400)
        }
        return lock.withLock {
            guard let session = sessions[sid] else { return .text("connect: unknown sid", status: 404) }
            guard let token = Self.bearer(request), session.tokenMatches(.management, token) else {
                return .text("connect: bad token", status: 401)
            }
            return .json(session.statusJSON(now: now).serialized())
        }
    }

    // MARK: - WebSocket

    private struct Join {
        let sid: [UInt8]
        let role: ConnectRole
        let token: String
    }

    private enum JoinResult {
        case success(Join)
        case failure(HTTPServerResponse)
    }

    /// Parses `sid`/`role` and the token (Bearer and/or subprotocol, equal if both). A `token` query parameter
    /// is refused, as Torii does.
    private func parseJoin(_ request: HTTPServerRequest) -> JoinResult {
        guard request.queryValue("token") == nil else { return .failure(HTTPServerResponse.text("connect: token must not be in the query", status: 400)) }
        guard let sidText = request.queryValue("sid"), let sid = try? ConnectText.parseBase64URL(sidText, byteCount: 32, what: "sid") else {
            return .failure(HTTPServerResponse.text("connect: bad sid", status: 400))
        }
        let role: ConnectRole
        switch request.queryValue("role")?.lowercased() {
        case "app": role = .app
        case "wallet": role = .wallet
        default: return .failure(HTTPServerResponse.text("connect: bad role", status: 400))
        }
        let bearer = Self.bearer(request)
        let fromProtocol = Self.subprotocolToken(request)
        if let bearer, let fromProtocol, bearer != fromProtocol {
            return .failure(HTTPServerResponse.text("connect: bearer and subprotocol tokens differ", status: 400))
        }
        guard let token = bearer ?? fromProtocol, !token.isEmpty else {
            return .failure(HTTPServerResponse.text("connect: missing token", status: 400))
        }
        return .success(Join(sid: sid, role: role, token: token))
    }

    private func gate(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        let join: Join
        switch parseJoin(request) {
        case .failure(let response):
            onEvent(.refused(sid: request.queryValue("sid"), status: response.status, reason: String(decoding: response.body, as: UTF8.self)))
            return response
        case .success(let parsed):
            join = parsed
        }
        let refusal: String? = lock.withLock {
            guard let session = sessions[join.sid] else { return "connect: unknown sid" }
            return session.consumeToken(role: join.role, token: join.token) ? nil : "connect: bad token"
        }
        if let refusal {
            onEvent(.refused(sid: ConnectText.base64URL(join.sid), status: 401, reason: refusal))
            return .text(refusal, status: 401)
        }
        return nil
    }

    private func serve(_ socket: WebSocketConnection, _ request: HTTPServerRequest) {
        var joined: Join?
        lock.withLock { servedSockets += 1 }
        // The socket stops counting before `detached` is reported, so a listener that saw the event sees the count.
        defer {
            lock.withLock {
                servedSockets -= 1
                closing[ObjectIdentifier(socket)] = nil
                if let joined { sessions[joined.sid]?.detach(socket, role: joined.role) }
            }
            if let joined { onEvent(.detached(sid: ConnectText.base64URL(joined.sid), role: joined.role)) }
        }
        guard case .success(let join) = parseJoin(request) else { return }
        let sidText = ConnectText.base64URL(join.sid)
        let attached: Bool = lock.withLock {
            guard let session = sessions[join.sid] else { return false }
            session.attach(socket, role: join.role, now: Date())
            return true
        }
        guard attached else {
            _ = try? socket.close(code: WebSocketCloseCode(1008), reason: "connect: unknown sid", timeout: 1)
            return
        }
        joined = join
        onEvent(.attached(sid: sidText, role: join.role))
        // What was buffered while this role was away goes out first; the peer's newer frames queue behind it.
        while let frames = lock.withLock({ sessions[join.sid]?.takeBuffered(for: join.role) }) {
            perform(frames.map { .send(socket, $0) }, sid: join.sid)
        }
        while socket.isOpen {
            let message: WebSocketMessage
            do {
                // Bounded by the idle timeout; a close the relay sent is bounded by the sweeper (close timeout).
                message = try socket.receive()
            } catch {
                return
            }
            switch message {
            case .binary(let bytes):
                let outcome: (RelayDisposition, [RelayAction])? = lock.withLock {
                    guard let session = sessions[join.sid] else { return nil }
                    let result = session.relay(bytes, from: join.role, now: Date())
                    if case .terminated = result.0 { sessions[join.sid] = nil }
                    return result
                }
                // A session that is gone was ended by another thread, which also closes this socket (after its
                // Close frame, so this thread must not close first).
                guard let (disposition, actions) = outcome else {
                    onEvent(.dropped(sid: sidText, role: join.role, reason: "session already ended"))
                    continue
                }
                switch disposition {
                case .dropped(let reason): onEvent(.dropped(sid: sidText, role: join.role, reason: reason))
                case .terminated(let reason): onEvent(.terminated(sid: sidText, reason: reason))
                case .relayed, .buffered: break
                }
                perform(actions, sid: join.sid)
            case .text, .pong:
                continue
            case .close:
                return
            }
        }
    }

    // MARK: - Timers

    private func sweep() {
        let tick = max(0.05, min(1, configuration.sessionTTL / 4, configuration.heartbeatInterval / 4, configuration.closeTimeout / 2))
        while true {
            let stop = sweeperStop.withLock { () -> Bool in
                if !stopping { _ = sweeperStop.wait(until: Date(timeIntervalSinceNow: tick)) }
                return stopping
            }
            if stop { return }
            let now = Date()
            var actions: [RelayAction] = []
            var events: [ConnectRelayEvent] = []
            var unanswered: [WebSocketConnection] = []
            lock.withLock {
                for (key, entry) in closing where entry.deadline <= now {
                    unanswered.append(entry.socket)
                    closing[key] = nil
                }
                if registrations.rememberedAddresses > 0 { registrations.forgetIdle(now: now) }
                for (sid, session) in sessions {
                    if now.timeIntervalSince(session.lastActivity) > configuration.sessionTTL {
                        actions += session.expire(code: 4001, reason: "connect_ttl_expired")
                        sessions[sid] = nil
                        events.append(.expired(sid: ConnectText.base64URL(sid)))
                        continue
                    }
                    for (role, socket) in session.heartbeatFailures(now: now) {
                        actions.append(.close(socket, code: 4003, reason: "connect_heartbeat_timeout"))
                        events.append(.heartbeatTimeout(sid: ConnectText.base64URL(sid), role: role))
                    }
                }
            }
            events.forEach(onEvent)
            // The peer never answered our close: drop the connection now (a zero timeout does not wait), which
            // wakes its handler thread out of receive.
            for socket in unanswered { _ = try? socket.close(code: .normal, timeout: 0) }
            // Closing waits for a slow peer's queue to drain; the timers of the other sessions must not.
            if !actions.isEmpty { DispatchQueue.global().async { [self, actions] in perform(actions, sid: nil) } }
        }
    }

    // MARK: - Helpers

    /// Performs one session's side effects outside the lock (sends may wait for a slow peer). A peer that leaves
    /// its queue full for the delivery timeout ends the session (`connect_delivery_timeout`, as Torii does).
    private func perform(_ actions: [RelayAction], sid: [UInt8]?) {
        var stalled = false
        for action in actions {
            switch action {
            case .send(let socket, let bytes):
                do {
                    try socket.send(binary: bytes)
                } catch {
                    if error.kind == .limitExceeded { stalled = true }
                }
            case .close(let socket, let code, let reason):
                // The handler thread is blocked in receive: send our close and let it finish the handshake, which
                // the sweeper cuts short if the peer has not answered within the close timeout.
                try? socket.sendClose(code: WebSocketCloseCode(code), reason: reason)
                let deadline = Date(timeIntervalSinceNow: configuration.closeTimeout)
                // An entry for a socket whose handler has already ended lasts only until its deadline.
                lock.withLock { if socket.isOpen { closing[ObjectIdentifier(socket)] = (socket, deadline) } }
            }
        }
        if stalled, let sid { terminate(sid: sid, reason: "connect_delivery_timeout") }
    }

    /// Ends a session that is still registered: Close 4002 to each attached side, then their sockets are closed.
    private func terminate(sid: [UInt8], reason: String) {
        let actions: [RelayAction]? = lock.withLock { sessions.removeValue(forKey: sid)?.terminate(reason).1 }
        guard let actions else { return }
        onEvent(.terminated(sid: ConnectText.base64URL(sid), reason: reason))
        perform(actions, sid: sid)
    }

    private func refuse(_ sid: String?, _ status: Int, _ reason: String) -> HTTPServerResponse {
        onEvent(.refused(sid: sid, status: status, reason: reason))
        return .text(reason, status: status)
    }

    static func bearer(_ request: HTTPServerRequest) -> String? {
        guard let value = request.headers["Authorization"], value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst(7)).trimmingSpaces
    }

    static func subprotocolToken(_ request: HTTPServerRequest) -> String? {
        for header in request.headers.values("Sec-WebSocket-Protocol") {
            for offered in HTTP1Head.listElements(header) {
                guard offered.hasPrefix(ConnectURI.subprotocolPrefix) else { continue }
                let encoded = String(offered.dropFirst(ConnectURI.subprotocolPrefix.count))
                guard let bytes = try? ConnectText.parseBase64URL(encoded, what: "token subprotocol"),
                      let token = String(validating: bytes, as: UTF8.self) else { return nil }
                return token
            }
        }
        return nil
    }
}
