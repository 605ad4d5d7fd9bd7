import FoundationEssentials
internal import Glibc
internal import OmniSystem

/// An HTTP/1.1 server with RFC 6455 WebSocket routes, for loopback bridges and relays.
///
/// One thread accepts; each connection gets its own thread (up to `maxConnections`; beyond that a connection is
/// answered 503 and closed). Plain routes map method + path to a handler; WebSocket routes may have a gate that
/// inspects the upgrade request and refuses it (e.g. 401) before any upgrade, and a subprotocol selector.
///
/// Shutdown: `requestStop()` only writes one byte to a pipe, so a CLI may call it from a signal handler (or write
/// to `stopRequestDescriptor` itself); the accept thread then closes the listeners, sends close 1001 to every
/// WebSocket, waits `shutdownGracePeriod` for connections to finish, aborts the rest and reports stopped.
/// `stop()` is `requestStop()` plus `waitUntilStopped()`. The library installs no signal handlers; sockets use
/// MSG_NOSIGNAL, so a vanished peer never raises SIGPIPE.
public final class HTTPServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Listening addresses: IPv4 or IPv6 literals (`127.0.0.1`, `::1`), or `localhost` for both loopbacks.
        public var addresses: [String] = ["127.0.0.1"]
        /// 0 picks an ephemeral port (shared by all addresses); read it from `port` after `start()`.
        public var port: UInt16 = 0
        /// Refuse non-loopback addresses unless set: these servers hold local secrets.
        public var allowNonLoopback = false
        public var maxConnections = 256
        /// Limit on the request line plus header fields.
        public var maxHeadBytes = 16 << 10
        public var maxHeaderCount = 100
        public var maxRequestBodyBytes = 1 << 20
        /// Seconds from the first byte of a request to the end of its head (slow-loris guard).
        public var headReadTimeout: Double = 10
        public var bodyReadTimeout: Double = 30
        /// Seconds an idle keep-alive connection waits for its next request.
        public var keepAliveTimeout: Double = 15
        public var writeTimeout: Double = 30
        public var maxRequestsPerConnection = 1000
        /// Seconds `stop` lets connections finish (WebSocket closing handshakes) before aborting them.
        public var shutdownGracePeriod: Double = 3
        /// Default options of WebSocket connections (routes may override).
        public var webSocket = WebSocketConnection.Options()

        public init() {}

        /// The limits the request parser applies.
        var requestLimits: HTTPRequestParser.Limits {
            HTTPRequestParser.Limits(maxHeadBytes: maxHeadBytes, maxHeaderCount: maxHeaderCount, maxBodyBytes: maxRequestBodyBytes)
        }
    }

    public typealias Handler = @Sendable (HTTPServerRequest) throws -> HTTPServerResponse
    /// Returns nil to allow the upgrade, or the response to send instead (e.g. `.text("invalid token", status: 401)`).
    public typealias WebSocketGate = @Sendable (HTTPServerRequest) -> HTTPServerResponse?
    /// Picks one of the offered subprotocols (in the client's order), or nil for none.
    public typealias SubprotocolSelector = @Sendable ([String], HTTPServerRequest) -> String?
    /// Runs on the connection's thread for the life of the WebSocket. When it returns (or throws: close 1011)
    /// the server completes the closing handshake if needed.
    public typealias WebSocketHandler = @Sendable (WebSocketConnection, HTTPServerRequest) throws -> Void

    struct WebSocketRoute {
        let options: WebSocketConnection.Options
        let gate: WebSocketGate?
        let selectSubprotocol: SubprotocolSelector?
        let handler: WebSocketHandler
    }

    /// A live connection: its socket (for aborting) and, after an upgrade, its WebSocket.
    final class ConnectionRecord: @unchecked Sendable {
        let stream: WebSocketSocketStream
        var webSocket: WebSocketConnection?
        var webSocketPath: String?
        init(stream: WebSocketSocketStream) { self.stream = stream }
    }

    public let configuration: Configuration
    let stopSignal: WebSocketWakeup
    private let condition = Condition()
    private var routes: [String: [String: Handler]] = [:]
    private var webSocketRoutes: [String: WebSocketRoute] = [:]
    private var listeners: [Int32] = []
    private var boundPort: UInt16 = 0
    private var boundAddressList: [String] = []
    private var connections: [Int: ConnectionRecord] = [:]
    private var nextConnectionID = 0
    private var lingeringRefusals = 0
    private var started = false
    private var stopped = false

    public init(configuration: Configuration = Configuration()) throws(TransportError) {
        self.configuration = configuration
        stopSignal = try WebSocketWakeup()
    }

    deinit {
        for descriptor in listeners { close(descriptor) }
    }

    // MARK: - Routes (register before or after start)

    /// A plain HTTP route. `path` is matched exactly (without the query), or, when it ends in `/*`, as a prefix
    /// (`/v1/session/*` serves `/v1/session/<anything>`; the longest prefix wins, exact paths first). `HEAD` falls
    /// back to `GET`.
    public func route(_ method: String, _ path: String, _ handler: @escaping Handler) {
        condition.withLock { routes[path, default: [:]][method.uppercased()] = handler }
    }

    /// A WebSocket route. `path` is matched exactly, or `*` matches any path without a more specific route.
    public func webSocket(
        _ path: String, options: WebSocketConnection.Options? = nil, gate: WebSocketGate? = nil,
        subprotocol: SubprotocolSelector? = nil, handler: @escaping WebSocketHandler
    ) {
        let route = WebSocketRoute(options: options ?? configuration.webSocket, gate: gate, selectSubprotocol: subprotocol, handler: handler)
        condition.withLock { webSocketRoutes[path] = route }
    }

    func lookup(path: String) -> (handlers: [String: Handler]?, webSocket: WebSocketRoute?) {
        condition.withLock {
            let handlers = routes[path] ?? routes.keys
                .filter { $0.hasSuffix("/*") && path.hasPrefix($0.dropLast()) }
                .max { $0.count < $1.count }
                .flatMap { routes[$0] }
            return (handlers, webSocketRoutes[path] ?? (handlers == nil ? webSocketRoutes["*"] : nil))
        }
    }

    // MARK: - Lifecycle

    /// The bound port (valid after `start`).
    public var port: UInt16 { condition.withLock { boundPort } }
    /// The addresses actually listened on, as `address:port` / `[address]:port`.
    public var boundAddresses: [String] { condition.withLock { boundAddressList } }
    /// Write any byte here to request a stop (what `requestStop` does); usable from a C signal handler.
    public var stopRequestDescriptor: Int32 { stopSignal.writeDescriptor }
    /// Open connections (HTTP and WebSocket).
    public var connectionCount: Int { condition.withLock { connections.count } }

    /// Binds every address and starts accepting. Throws `.invalidArgument` for an address it may not listen on,
    /// `.io` if an address cannot be bound.
    public func start() throws(TransportError) {
        let alreadyStarted = condition.withLock { () -> Bool in
            defer { started = true }
            return started
        }
        guard !alreadyStarted else { throw TransportError(.invalidArgument, "server already started") }
        let bound: [(Int32, String)], port: UInt16
        do {
            (bound, port) = try bindListeners()
        } catch {
            // No accept loop will ever report the stop, so `stop()` and `waitUntilStopped()` must not wait for one.
            condition.withLock {
                stopped = true
                condition.broadcast()
            }
            throw error
        }
        condition.withLock {
            listeners = bound.map(\.0)
            boundPort = port
            boundAddressList = bound.map { HostPort(host: $0.1, port: port).description }
        }
        Threads.start(name: "omni-http-accept") { [self] in acceptLoop() }
    }

    /// Binds every configured address (`localhost` is both loopbacks), all on the same port.
    private func bindListeners() throws(TransportError) -> (listeners: [(Int32, String)], port: UInt16) {
        var addresses: [String] = []
        for address in configuration.addresses {
            if address.lowercased() == "localhost" { addresses += ["127.0.0.1", "::1"] } else { addresses.append(address) }
        }
        guard !addresses.isEmpty else { throw TransportError(.invalidArgument, "no listening address configured") }
        var port = configuration.port
        var bound: [(Int32, String)] = []
        do {
            for address in addresses {
                let listener = try HTTPServerListener.bind(address: address, port: port, allowNonLoopback: configuration.allowNonLoopback)
                bound.append(listener)
                if port == 0 { port = HTTPServerListener.localPort(of: listener.0) }
            }
        } catch {
            for (descriptor, _) in bound { close(descriptor) }
            throw error
        }
        return (bound, port)
    }

    /// Asks the server to stop; returns at once. Async-signal-safe (one write to a socket pair).
    public func requestStop() { stopSignal.signal() }

    /// Requests a stop and waits until every connection thread has finished (or was aborted).
    public func stop() {
        requestStop()
        let wasStarted = condition.withLock { () -> Bool in
            if !started { stopped = true }
            return started
        }
        if wasStarted { waitUntilStopped() }
    }

    /// Blocks until the server has stopped (after `requestStop`, `stop`, or a write to `stopRequestDescriptor`).
    public func waitUntilStopped() {
        condition.lock()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    public var isStopped: Bool { condition.withLock { stopped } }

    // MARK: - WebSocket helpers

    /// Open WebSockets, optionally only those upgraded on `path`.
    public func webSockets(path: String? = nil) -> [WebSocketConnection] {
        condition.withLock {
            connections.values.compactMap { record in
                guard let socket = record.webSocket, socket.isOpen else { return nil }
                return path == nil || record.webSocketPath == path ? socket : nil
            }
        }
    }

    /// Sends a text message to every open WebSocket (on `path`); returns how many sends succeeded.
    @discardableResult
    public func broadcast(text: String, path: String? = nil) -> Int {
        webSockets(path: path).reduce(0) { count, socket in ((try? socket.send(text: text)) != nil) ? count + 1 : count }
    }

    @discardableResult
    public func broadcast(binary: [UInt8], path: String? = nil) -> Int {
        webSockets(path: path).reduce(0) { count, socket in ((try? socket.send(binary: binary)) != nil) ? count + 1 : count }
    }

    // MARK: - Accepting

    private func acceptLoop() {
        let listening = condition.withLock { listeners }
        var descriptors = listening.map { POSIXPoll.descriptor($0, POSIXPoll.readable) }
        descriptors.append(POSIXPoll.descriptor(stopSignal.readDescriptor, POSIXPoll.readable))
        acceptLoop: while true {
            guard POSIXPoll.wait(&descriptors, until: .never) else { continue }
            if descriptors[descriptors.count - 1].revents != 0 { break acceptLoop }
            for index in listening.indices where descriptors[index].revents != 0 {
                acceptPending(on: listening[index])
            }
        }
        shutDown()
    }

    private func acceptPending(on listener: Int32) {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let descriptor = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
            if descriptor < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE { usleep(10_000) }
                return
            }
            POSIXPoll.setCloseOnExec(descriptor)
            POSIXPoll.setNonBlocking(descriptor)
            var one: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let remote = HTTPServerListener.describe(&address)
            let stream = WebSocketSocketStream(descriptor: descriptor)
            let record = ConnectionRecord(stream: stream)
            let id: Int? = condition.withLock {
                guard connections.count < configuration.maxConnections else { return nil }
                nextConnectionID += 1
                connections[nextConnectionID] = record
                return nextConnectionID
            }
            guard let id else {
                refuseOverCapacity(stream)
                continue
            }
            let worker = HTTPServerConnectionWorker(server: self, record: record, remoteAddress: remote)
            Threads.start(name: "omni-http-connection", stackSize: 1 << 20) { [self] in
                worker.run()
                connectionFinished(id)
            }
        }
    }

    /// Answers 503 to a connection beyond `maxConnections`. A few refusals linger briefly on their own thread,
    /// reading the request, so closing does not reset the connection before the client has read the 503.
    private func refuseOverCapacity(_ stream: WebSocketSocketStream) {
        let refusal = HTTPServerResponse.text("too many connections\n", status: 503).serialized(closeConnection: true, headOnly: false)
        _ = refusal.withUnsafeBytes { try? stream.write($0) }
        stream.shutdownWrite()
        let linger = condition.withLock { () -> Bool in
            guard lingeringRefusals < 16 else { return false }
            lingeringRefusals += 1
            return true
        }
        guard linger else {
            stream.shutdown()
            return
        }
        Threads.start(name: "omni-http-refusal") { [self] in
            stream.discardInput(until: .after(1))
            stream.shutdown()
            condition.withLock { lingeringRefusals -= 1 }
        }
    }

    private func connectionFinished(_ id: Int) {
        condition.withLock {
            connections[id] = nil
            condition.broadcast()
        }
    }

    /// Registers the WebSocket of an upgraded connection; false if the server is stopping (then it is closed).
    func attach(_ socket: WebSocketConnection, path: String, to record: ConnectionRecord) -> Bool {
        condition.withLock {
            record.webSocket = socket
            record.webSocketPath = path
        }
        return !isStopRequested
    }

    /// True once a stop was requested (the stop pipe stays readable from then on).
    var isStopRequested: Bool {
        var descriptors = [POSIXPoll.descriptor(stopSignal.readDescriptor, POSIXPoll.readable)]
        return POSIXPoll.wait(&descriptors, until: .after(0)) && descriptors[0].revents != 0
    }

    private func shutDown() {
        let listening = condition.withLock { () -> [Int32] in
            defer { listeners = [] }
            return listeners
        }
        for descriptor in listening { close(descriptor) }
        let graceEnd = MonotonicDeadline.after(configuration.shutdownGracePeriod)
        // As a Date for Lock, from the clamped monotonic deadline: an infinite grace period must not become an
        // infinite Date, which Foundation cannot turn into a timespec.
        let lockDeadline = Date(timeIntervalSinceNow: Double(max(0, graceEnd.pollTimeout)) / 1000)
        for socket in webSockets() {
            socket.sendCloseWithoutWaiting(code: .goingAway, reason: "server shutting down", lockDeadline: lockDeadline)
        }
        if !waitForConnections(until: graceEnd) {
            let remaining = condition.withLock { Array(connections.values) }
            for record in remaining {
                if let socket = condition.withLock({ record.webSocket }) { socket.abort() } else { record.stream.shutdown() }
            }
            // Handlers that ignore the aborted socket can hold their thread; do not wait for them forever.
            _ = waitForConnections(until: .after(2))
        }
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    private func waitForConnections(until deadline: MonotonicDeadline) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !connections.isEmpty {
            let milliseconds = deadline.pollTimeout
            if milliseconds == 0 { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(milliseconds) / 1000))
        }
        return true
    }
}

/// Socket setup for listeners.
enum HTTPServerListener {
    static func bind(address: String, port: UInt16, allowNonLoopback: Bool) throws(TransportError) -> (Int32, String) {
        var literal = address
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        let family: Int32
        if inet_pton(AF_INET, literal, &v4) == 1 {
            family = AF_INET
            if !allowNonLoopback, UInt32(bigEndian: v4.s_addr) >> 24 != 127 {
                throw TransportError(.invalidArgument, "refusing to listen on non-loopback address \(address)")
            }
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            family = AF_INET6
            let loopback = withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
            if !allowNonLoopback, !loopback {
                throw TransportError(.invalidArgument, "refusing to listen on non-loopback address \(address)")
            }
        } else {
            throw TransportError(.invalidArgument, "listening address \(address) is not an IPv4 or IPv6 literal")
        }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let descriptor = socket(family, type, 0)
        guard descriptor >= 0 else { throw TransportError(.io, "socket failed: \(POSIXPoll.errorText(errno))") }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var result: Int32
        if family == AF_INET {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            socketAddress.sin_addr = v4
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            socketAddress.sin6_addr = v6
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        if result != 0 || listen(descriptor, 511) != 0 {
            let message = POSIXPoll.errorText(errno)
            close(descriptor)
            throw TransportError(.io, "cannot listen on \(address) port \(port): \(message)")
        }
        return (descriptor, literal)
    }

    static func localPort(of descriptor: Int32) -> UInt16 {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return port(of: &address)
    }

    static func port(of address: inout sockaddr_storage) -> UInt16 {
        let family = Int32(address.ss_family)
        return withUnsafePointer(to: &address) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// `address:port`, or `[address]:port` for IPv6.
    static func describe(_ address: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let port = port(of: &address)
        let family = Int32(address.ss_family)
        withUnsafePointer(to: &address) { pointer in
            if family == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { value in
                    var raw = value.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { value in
                    var raw = value.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            }
        }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
