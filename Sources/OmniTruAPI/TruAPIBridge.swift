import Dispatch
import FoundationEssentials
import OmniCodec
import OmniCrypto
import OmniSystem
import OmniTransport
import Synchronization

/// Limits and switches of a bridge (reference §2 for the defaults).
public struct TruAPIBridgeConfiguration: Sendable {
    /// The `?t=` token; nil serves without one (`--token none`).
    public var token: String?
    /// Browser origins allowed to connect; empty allows any (the reference checks none). A request without an
    /// `Origin` header (a script, not a browser) is always allowed.
    public var allowedOrigins: [String] = []
    public var maxConnections = 32
    public var maxFrameBytes = TruAPIFrame.maximumBytes
    /// Frames queued for one connection before it counts as closed (a product that stops reading).
    public var outboundQueueFrames = 4096
    /// Bytes queued for one connection before the same happens (4096 frames of 8 MiB would be 32 GiB).
    public var outboundQueueBytes = 64 << 20
    /// A connection silent this long is closed with 1001; the bridge pings at a third of it, and browsers answer.
    public var idleTimeout: Double? = 120
    /// Seconds a connection's reader polls for the next frame before sleeping (`WebSocketConnection.Options`).
    public var receiveSpin: Double = 50e-6
    /// How long a product has to answer the bridge's Close before its socket is dropped.
    public var closeTimeout: Double = 5
    /// How long one send may wait for a product to read before the connection fails.
    public var sendTimeout: Double = 10
    /// Send `system_handshake` to each new connection (`--send-handshake`).
    public var sendHandshake = false
    public var handshakeTimeout: Duration = .seconds(10)
    /// Per connection, drops and ignored text messages logged one by one before only their count is kept.
    public var loggedDropsPerConnection = 100

    public init() {}
}

/// `omni truapi bridge`'s server side (reference §2), on omni's HTTP/WebSocket server like `ConnectRelay`: the
/// `?t=` token gate (HTTP 401 `invalid token` before any upgrade), an optional Origin allow-list, at most
/// `maxConnections` connections (extras refused and logged), 8 MiB messages, and per connection its own dispatcher
/// and subscription table over a host from `makeHost` (sharing the bridge's state through it), a bounded outbound
/// queue drained by a writer thread, text messages ignored, and Close 1000 `bridge closing` when it ends.
///
/// The WebSocket route is `*`: any path upgrades (the reference does not check it), except paths that have a plain
/// route of their own — which is how the browser glue (`TruAPIBrowserGlue`: `GET /bootstrap.js`, `GET /host`) shares
/// the port; such routes check the token with `refusePage(_:)`.
public final class TruAPIBridge: @unchecked Sendable {
    public let configuration: TruAPIBridgeConfiguration
    private let makeHost: @Sendable (Int) -> any TruAPIHost
    private let trace: TruAPITrace?
    let onEvent: @Sendable (TruAPIBridgeEvent) -> Void
    private let lock = Lock()
    private var connections: [Int: TruAPIBridgeConnection] = [:]
    private var active = 0
    private var nextID = 0
    private var stopping = false

    public init(configuration: TruAPIBridgeConfiguration, trace: TruAPITrace? = nil,
                onEvent: @escaping @Sendable (TruAPIBridgeEvent) -> Void = { _ in },
                makeHost: @escaping @Sendable (_ connectionID: Int) -> any TruAPIHost) {
        self.configuration = configuration
        self.trace = trace
        self.onEvent = onEvent
        self.makeHost = makeHost
    }

    /// 32 bytes from the CSPRNG as 64 lowercase hex digits, as the reference's token.
    public static func makeToken() -> String { Hex.encode(SecureRandom.bytes(32)) }

    /// The reference gate (`path_token_matches_exact`): the query (after the first `?`) split on `&`, each pair on
    /// its first `=`; accepted when a pair's key is exactly `t` and its value byte-equals the token, compared in
    /// constant time. No percent-decoding; the path is not looked at; no target, no match.
    public static func tokenMatches(_ target: String?, token: String) -> Bool {
        guard let target, let mark = target.firstIndex(of: "?") else { return false }
        let expected = Array(token.utf8)
        var matched = false
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            guard let equals = pair.firstIndex(of: "="), pair[..<equals] == "t" else { continue }
            // Every candidate is compared (no early exit), so timing says nothing about which pair matched.
            if ConstantTime.equals(Array(pair[pair.index(after: equals)...].utf8), expected) { matched = true }
        }
        return matched
    }

    /// The gate for a plain route on the bridge's port (the browser glue): nil to serve it, else the refusal to
    /// send (401 `invalid token`, 403 for an Origin not allowed), logged as the WebSocket's refusals are.
    public func refusePage(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard let (event, response) = refusal(request) else { return nil }
        onEvent(.refused(event, remote: request.remoteAddress, status: response.status, reason: response.bodyText))
        return response
    }

    /// The bridge's own host page: a browser sends `Origin: http://HOST` with the `Host` it dialled, and that host is
    /// a loopback name. Allowed besides `--allow-origin`, since the page only relays for the product it embeds.
    static func isOwnPage(origin: String, host: String?) -> Bool {
        guard let host, origin.lowercased() == "http://" + host.lowercased() else { return false }
        let name = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }) + "]" : String(host.prefix { $0 != ":" })
        return ["127.0.0.1", "localhost", "[::1]"].contains(name.lowercased())
    }

    /// Open connections now.
    public var connectionCount: Int { lock.withLock { active } }

    /// Adds the bridge's WebSocket route to `server` (configure the server with more connections than
    /// `maxConnections`, so the extras reach the bridge and are refused by it, with a log line).
    public func install(on server: HTTPServer) {
        var options = server.configuration.webSocket
        options.maxMessageBytes = configuration.maxFrameBytes
        options.maxPendingOutboundBytes = configuration.maxFrameBytes + (1 << 20)
        options.sendTimeout = configuration.sendTimeout
        options.idleTimeout = configuration.idleTimeout
        options.closeTimeout = configuration.closeTimeout
        // A product's requests come one after another on a connection: answering on the reading thread and
        // spinning briefly for the next frame keeps a round trip from paying two thread wake-ups.
        options.receiveSpin = configuration.receiveSpin
        server.webSocket("*", options: options, gate: { [self] request in gate(request) },
                         handler: { [self] socket, request in serve(socket, request) })
    }

    /// Ends every connection with Close 1000 `bridge closing` (in parallel, each bounded by the close timeout) and
    /// refuses new ones; returns when they are gone. Stop the server afterwards: its own shutdown would say 1001.
    public func shutdown() {
        let open: [TruAPIBridgeConnection] = lock.withLock {
            stopping = true
            return Array(connections.values)
        }
        onEvent(.shutdown)
        let group = DispatchGroup()
        for connection in open {
            group.enter()
            DispatchQueue.global().async {
                connection.shutdown()
                group.leave()
            }
        }
        group.wait()
    }

    // MARK: - Gate

    private func refusal(_ request: HTTPServerRequest) -> (event: String, response: HTTPServerResponse)? {
        if let token = configuration.token, !Self.tokenMatches(request.target, token: token) {
            return ("reject_unauthorized", .text("invalid token", status: 401))
        }
        if !configuration.allowedOrigins.isEmpty, let origin = request.headers["Origin"],
           !configuration.allowedOrigins.contains(where: { $0.lowercased() == origin.lowercased() }),
           !Self.isOwnPage(origin: origin, host: request.headers["Host"]) {
            return ("reject_origin", .text("origin not allowed", status: 403))
        }
        return nil
    }

    private func gate(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        if let (event, response) = refusal(request) {
            onEvent(.refused(event, remote: request.remoteAddress, status: response.status, reason: response.bodyText))
            return response
        }
        let (closing, full) = lock.withLock { (stopping, active >= configuration.maxConnections) }
        if closing {
            onEvent(.refused("reject_closing", remote: request.remoteAddress, status: 503, reason: "bridge closing"))
            return .text("bridge closing", status: 503)
        }
        if full {
            onEvent(.connectionLimit(remote: request.remoteAddress, limit: configuration.maxConnections))
            return .text("too many connections", status: 503)
        }
        return nil
    }

    // MARK: - Connections

    private func serve(_ socket: WebSocketConnection, _ request: HTTPServerRequest) {
        // The gate's count is advisory (two upgrades may pass it at once); this one is authoritative.
        let admitted: (Int, TruAPIBridgeConnection)? = lock.withLock {
            guard !stopping, active < configuration.maxConnections else { return nil }
            active += 1
            nextID += 1
            let id = nextID
            let connection = TruAPIBridgeConnection(id: id, socket: socket, host: makeHost(id), configuration: configuration,
                                                    trace: trace, onEvent: onEvent)
            connections[id] = connection
            return (id, connection)
        }
        guard let (id, connection) = admitted else {
            onEvent(.connectionLimit(remote: request.remoteAddress, limit: configuration.maxConnections))
            _ = try? socket.close(code: WebSocketCloseCode(1013), reason: "too many connections", timeout: configuration.closeTimeout)
            return
        }
        // The slot is free the moment the connection starts to end (before the product sees the close), not when
        // this thread has wound it down: a product that reconnects at once must find it free. The registry keeps
        // the connection until then, so `shutdown` still waits for it.
        let slot = OnceFlag()
        let releaseSlot: @Sendable () -> Void = { [self] in
            if slot.first() { lock.withLock { active -= 1 } }
        }
        socket.onEnding(releaseSlot)
        defer {
            releaseSlot()
            lock.withLock { connections[id] = nil }
        }
        connection.run(remote: request.remoteAddress, origin: request.headers["Origin"])
    }
}

extension HTTPServerResponse {
    var bodyText: String { (try? UTF8Validation.string(body)) ?? "" }
}

/// Frames waiting for a connection's writer. `push` runs under the dispatcher's lock, so it never waits: with nothing
/// queued or being written it hands the frame to `sendNow` (a send that does not wait), else it appends and signals
/// the writer; a queue that overflows drops everything and reports once.
final class TruAPIOutboundQueue: @unchecked Sendable {
    enum Next { case frame([UInt8]), timeout, finished }

    private let condition = Condition()
    private var frames: [[UInt8]] = []
    private var head = 0
    private var bytes = 0
    private var finished = false
    /// The writer took a frame and has not finished sending it.
    private var writing = false
    private(set) var overflowed = false
    let maxFrames: Int
    let maxBytes: Int
    private let sendNow: @Sendable ([UInt8]) -> Bool
    private let onOverflow: @Sendable (_ frames: Int, _ bytes: Int) -> Void

    init(maxFrames: Int, maxBytes: Int, sendNow: @escaping @Sendable ([UInt8]) -> Bool = { _ in false },
         onOverflow: @escaping @Sendable (Int, Int) -> Void) {
        self.maxFrames = maxFrames
        self.maxBytes = maxBytes
        self.sendNow = sendNow
        self.onOverflow = onOverflow
    }

    func push(_ frame: [UInt8]) {
        let overflow: (Int, Int)? = condition.withLock {
            guard !finished else { return nil }
            // Nothing ahead of it: straight to the socket, without waking the writer (a thread hand-off per frame).
            if head == frames.count, !writing, sendNow(frame) { return nil }
            guard frames.count - head < maxFrames, bytes + frame.count <= maxBytes else {
                let counts = (frames.count - head, bytes)
                overflowed = true
                finished = true
                frames = []
                head = 0
                bytes = 0
                condition.broadcast()
                return counts
            }
            frames.append(frame)
            bytes += frame.count
            condition.signal()
            return nil
        }
        if let (count, size) = overflow { onOverflow(count, size) }
    }

    /// The next frame, waiting until `deadline`; `.finished` once finished and empty.
    func next(until deadline: Date?) -> Next {
        condition.withLock {
            while head == frames.count {
                if finished { return .finished }
                if let deadline {
                    if !condition.wait(until: deadline) && head == frames.count && !finished { return .timeout }
                } else {
                    condition.wait()
                }
            }
            let frame = frames[head]
            frames[head] = []
            head += 1
            bytes -= frame.count
            writing = true
            if head > 1024, head * 2 > frames.count {
                frames.removeSubrange(0..<head)
                head = 0
            }
            return .frame(frame)
        }
    }

    /// The writer is done with the frame `next` gave it.
    func written() { condition.withLock { writing = false } }

    /// Accepts nothing more; the writer delivers what is queued, then sees `.finished`.
    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }
}

/// One product connection: the reader (the server's connection thread), a writer thread, the dispatcher.
final class TruAPIBridgeConnection: @unchecked Sendable {
    let id: Int
    private let socket: WebSocketConnection
    private let configuration: TruAPIBridgeConfiguration
    private let trace: TruAPITrace?
    private let onEvent: @Sendable (TruAPIBridgeEvent) -> Void
    private let queue: TruAPIOutboundQueue
    private var dispatcher: TruAPIDispatcher!

    private let condition = Condition()
    private var writerDone = false
    private var readerDone = false
    private var stopping = false
    private var closeAfterDrain = false
    private var closeReason: String?
    private var framesIn = 0
    private let framesOutCounter: FrameCounter
    private var logged = 0
    private var unlogged = 0

    init(id: Int, socket: WebSocketConnection, host: any TruAPIHost, configuration: TruAPIBridgeConfiguration, trace: TruAPITrace?,
         onEvent: @escaping @Sendable (TruAPIBridgeEvent) -> Void) {
        self.id = id
        self.socket = socket
        self.configuration = configuration
        self.trace = trace
        self.onEvent = onEvent
        let overflowed = OverflowHandler()
        let counter = FrameCounter()
        framesOutCounter = counter
        // With a trace, every frame goes through the writer, which records it before sending it: recorded after
        // the send, an answer could land behind the product's next frame in the trace, and replay would misorder it.
        let direct = trace == nil
        let sendNow: @Sendable ([UInt8]) -> Bool = { bytes in
            guard direct, socket.trySend(binary: bytes) else { return false }
            counter.count.add(1, ordering: .relaxed)
            return true
        }
        queue = TruAPIOutboundQueue(maxFrames: configuration.outboundQueueFrames, maxBytes: configuration.outboundQueueBytes,
                                    sendNow: sendNow) { frames, bytes in
            overflowed.fire(frames, bytes)
        }
        let queue = self.queue
        dispatcher = TruAPIDispatcher(host: host, sink: { frame in queue.push(frame.bytes) }, log: { [weak self] event in
            self?.log(.dispatch(id, event))
        })
        overflowed.connection = self
    }

    final class FrameCounter: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Runs the overflow's consequences off the dispatcher's lock (where `push` is called from).
    private final class OverflowHandler: @unchecked Sendable {
        weak var connection: TruAPIBridgeConnection?
        func fire(_ frames: Int, _ bytes: Int) {
            let connection = connection
            DispatchQueue.global().async { connection?.dropForOverflow(frames: frames, bytes: bytes) }
        }
    }

    /// Serves the connection until it ends; on the server's connection thread.
    func run(remote: String, origin: String?) {
        onEvent(.connectionOpen(id, remote: remote, origin: origin))
        Threads.start(name: "omni-truapi-writer") { [self] in
            writeLoop()
            condition.withLock {
                writerDone = true
                condition.broadcast()
            }
        }
        if configuration.sendHandshake {
            let dispatcher = dispatcher!, id = id, timeout = configuration.handshakeTimeout, onEvent = onEvent
            Task {
                let result: String = switch await dispatcher.sendHandshake(timeout: timeout) {
                case .success?: "ok"
                case .failure(let error)?: "refused: " + error.name
                case nil: "no answer"
                }
                onEvent(.handshake(id, result: result))
            }
        }
        var reason = "closed by the product"
        reading: while true {
            let message: WebSocketMessage
            do {
                message = try socket.receive()
            } catch {
                let own = condition.withLock { closeReason }
                reason = own ?? error.message
                if own == nil, condition.withLock({ !stopping }) { onEvent(.readError(id, error.message)) }
                break reading
            }
            switch message {
            case .binary(let bytes):
                if condition.withLock({ stopping }) { continue }
                condition.withLock { framesIn += 1 }
                trace?.record(connection: id, .incoming, bytes)
                dispatcher.receive(bytes)
            case .text(let text):
                log(.textFrameIgnored(id, bytes: text.utf8.count))
            case .pong:
                continue
            case .close(let info):
                reason = condition.withLock { closeReason } ?? "closed by the product (\(info))"
                break reading
            }
        }
        dispatcher.close()
        queue.finish()
        condition.withLock {
            readerDone = true
            condition.broadcast()
            while !writerDone { condition.wait() }
        }
        if socket.isOpen { _ = try? socket.close(code: .normal, reason: "bridge closing", timeout: configuration.closeTimeout) }
        let (inCount, skipped) = condition.withLock { (framesIn, unlogged) }
        let outCount = framesOutCounter.count.load(ordering: .relaxed)
        if skipped > 0 {
            onEvent(TruAPIBridgeEvent("drops_not_logged", [("connection", .int(id)), ("count", .int(skipped))],
                                      summary: "connection \(id): \(skipped) more dropped or ignored frames were not logged one by one"))
        }
        onEvent(.connectionClosed(id, reason: reason, framesIn: inCount, framesOut: outCount))
    }

    private func writeLoop() {
        let pingInterval = configuration.idleTimeout.map { max(0.05, $0 / 3) }
        var nextPing = pingInterval.map { Date(timeIntervalSinceNow: $0) }
        while true {
            switch queue.next(until: nextPing) {
            case .frame(let bytes):
                trace?.record(connection: id, .outgoing, bytes)
                do {
                    try socket.send(binary: bytes)
                    queue.written()
                    framesOutCounter.count.add(1, ordering: .relaxed)
                } catch {
                    if condition.withLock({ closeReason == nil && !stopping }) {
                        condition.withLock { closeReason = "send failed: \(error.message)" }
                        onEvent(.sendError(id, error.message))
                    }
                    dispatcher.close()
                    queue.finish()
                    socket.abort()
                    return
                }
            case .timeout:
                try? socket.ping()
                nextPing = pingInterval.map { Date(timeIntervalSinceNow: $0) }
            case .finished:
                if condition.withLock({ closeAfterDrain }) { try? socket.sendClose(code: .normal, reason: "bridge closing") }
                return
            }
        }
    }

    /// Bridge shutdown: nothing more is dispatched, queued frames go out, then Close 1000 `bridge closing`; a
    /// product that does not answer within the close timeout is dropped.
    func shutdown() {
        condition.withLock {
            stopping = true
            closeAfterDrain = true
            if closeReason == nil { closeReason = "bridge closing" }
        }
        dispatcher.close()
        queue.finish()
        let deadline = Date(timeIntervalSinceNow: configuration.closeTimeout)
        let done = condition.withLock { () -> Bool in
            while !readerDone { if !condition.wait(until: deadline) { break } }
            return readerDone
        }
        if !done { socket.abort() }
    }

    private func dropForOverflow(frames: Int, bytes: Int) {
        condition.withLock { if closeReason == nil { closeReason = "queue full: the product stopped reading" } }
        onEvent(.queueFull(id, frames: frames, bytes: bytes))
        dispatcher.close()
        socket.abort()
    }

    /// Logs drops one by one up to a per-connection budget (a flood of garbage must not flood the log), then counts.
    private func log(_ event: TruAPIBridgeEvent) {
        let show = condition.withLock { () -> Bool in
            if logged < configuration.loggedDropsPerConnection {
                logged += 1
                return true
            }
            unlogged += 1
            return false
        }
        if show { onEvent(event) }
    }
}
