import FoundationEssentials
import OmniCodec
import OmniSystem
import OmniTransport
import Synchronization

/// What a JSON-RPC call to a node came to when it did not return a result.
public enum TruAPINodeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node answered with a JSON-RPC error object.
    case rpc(code: Int64, message: String)
    /// No connection to the node (it refused, timed out or dropped us); `detail` says what happened last.
    case unavailable(String)
    /// The node's answer was not a JSON-RPC response we can use.
    case malformed(String)
    case timeout(Double)

    public var description: String {
        switch self {
        case .rpc(let code, let message): "node answered error \(code): \(message)"
        case .unavailable(let detail): detail
        case .malformed(let detail): "malformed answer from the node: \(detail)"
        case .timeout(let seconds): "the node did not answer within \(seconds) s"
        }
    }
}

/// A node's answer: the result as JSON and as the exact text the node sent.
public struct TruAPINodeReply: Sendable {
    public let result: JSONValue
    public let text: String
    let requestID: Int64
}

/// One JSON-RPC 2.0 connection to a chain node (`--chain GENESIS=ws(s)://…`), over omni's WebSocket client,
/// shared by every product connection of the bridge.
///
/// It connects on first use and stays connected; when the node drops the connection, calls in flight fail, every
/// subscription stream ends (the follow forwarder then tells the product with `stop`), and a background thread
/// reconnects with exponential backoff (0.1 s doubling to 10 s; reset once a connection lasted 10 s). A call made
/// while disconnected waits for the next attempt and fails with that attempt's error if it fails.
public final class TruAPIChainNode: @unchecked Sendable {
    public let genesis: [UInt8]
    public let url: String
    public let requestTimeout: Double
    private let onEvent: @Sendable (TruAPIBridgeEvent) -> Void
    private let connectTimeout: Double

    static let firstBackoff = 0.1
    static let maximumBackoff = 10.0
    static let stableConnection = 10.0
    /// A node message larger than a frame could not be forwarded anyway.
    static let maximumMessageBytes = TruAPIFrame.maximumBytes
    /// Notifications buffered per subscription before the oldest are dropped (a product that does not read).
    static let subscriptionBuffer = 4096

    private enum Phase {
        case idle, connecting, connected(WebSocketConnection), waiting, closed
    }

    private struct Pending {
        let method: String
        let continuation: CheckedContinuation<Result<TruAPINodeReply, TruAPINodeFailure>, Never>
        /// Set for a call that opens a subscription: its notifications' method.
        let subscription: Bool
    }

    private let condition = Condition()
    private var phase = Phase.idle
    private var started = false
    private var nextID: Int64 = 1
    private var pending: [Int64: Pending] = [:]
    private var timers: [Int64: Task<Void, Never>] = [:]
    private var subscriptions: [String: AsyncStream<JSONValue>.Continuation] = [:]
    /// The stream created when a subscribing call's answer arrives, until the caller takes it.
    private var openedStreams: [Int64: AsyncStream<JSONValue>] = [:]
    /// Waiters for the outcome of the next connection attempt.
    private var attemptWaiters: [CheckedContinuation<Void, Never>] = []
    private var lastProblem = "not connected yet"
    private var generation = 0
    private var droppedNotifications = 0

    public init(genesis: [UInt8], url: String, requestTimeout: Double = 60, connectTimeout: Double = 10,
                onEvent: @escaping @Sendable (TruAPIBridgeEvent) -> Void = { _ in }) {
        self.genesis = genesis
        self.url = url
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.onEvent = onEvent
    }

    /// How many connections have been made so far (1 after the first, 2 after a reconnect).
    public var connectionCount: Int { condition.withLock { generation } }

    public var isConnected: Bool {
        condition.withLock { if case .connected = phase { return true } else { return false } }
    }

    // MARK: - Calls

    /// Calls `method` with `params` and returns its result, or why there is none.
    public func call(_ method: String, _ params: [JSONValue]) async -> Result<TruAPINodeReply, TruAPINodeFailure> {
        await send(method, params, subscription: false)
    }

    /// Calls a subscribing method (`chainHead_v1_follow`): the node's subscription id and the stream of its
    /// notifications' `result`s, which ends when the connection drops or `unsubscribe` is called.
    public func subscribe(_ method: String, _ params: [JSONValue]) async
        -> Result<(id: String, events: AsyncStream<JSONValue>), TruAPINodeFailure>
    {
        switch await send(method, params, subscription: true) {
        case .failure(let failure): return .failure(failure)
        case .success(let reply):
            guard let id = reply.result.stringValue else { return .failure(.malformed("\(method) answered no subscription id")) }
            let stream: AsyncStream<JSONValue>? = condition.withLock { openedStreams.removeValue(forKey: Self.key(for: reply)) }
            guard let stream else { return .failure(.unavailable("the connection to the node closed")) }
            return .success((id, stream))
        }
    }

    /// Stops delivering a subscription's notifications (the caller sends the node's unsubscribe call itself).
    public func forget(subscription id: String) {
        condition.withLock { subscriptions.removeValue(forKey: id) }?.finish()
    }

    private static func key(for reply: TruAPINodeReply) -> Int64 { reply.requestID }

    private func send(_ method: String, _ params: [JSONValue], subscription: Bool) async -> Result<TruAPINodeReply, TruAPINodeFailure> {
        startIfNeeded()
        if let problem = await waitUntilConnected() { return .failure(.unavailable(problem)) }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Result<TruAPINodeReply, TruAPINodeFailure>, Never>) in
            let prepared: (Int64, WebSocketConnection)? = condition.withLock {
                guard case .connected(let socket) = phase else { return nil }
                let id = nextID
                nextID += 1
                pending[id] = Pending(method: method, continuation: continuation, subscription: subscription)
                return (id, socket)
            }
            guard let (id, socket) = prepared else {
                continuation.resume(returning: .failure(.unavailable("the connection to the node closed")))
                return
            }
            let request: JSONValue = .object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": .array(params)])
            do {
                try socket.send(text: request.serialized())
            } catch {
                finish(id, .failure(.unavailable("cannot send to the node: \((error as? TransportError)?.message ?? "\(error)")")))
                return
            }
            let timeout = requestTimeout
            let timer = Task { [weak self] in
                do { try await Task.sleep(for: .seconds(timeout)) } catch { return }
                self?.finish(id, .failure(.timeout(timeout)))
            }
            let answered = condition.withLock { () -> Bool in
                guard pending[id] != nil else { return true }
                timers[id] = timer
                return false
            }
            if answered { timer.cancel() }
        }
    }

    /// Resolves a pending call once (an answer, a failure, or its timeout, whichever comes first).
    private func finish(_ id: Int64, _ outcome: Result<TruAPINodeReply, TruAPINodeFailure>) {
        let (waiting, timer) = condition.withLock { (pending.removeValue(forKey: id), timers.removeValue(forKey: id)) }
        timer?.cancel()
        waiting?.continuation.resume(returning: outcome)
    }

    /// Nil once connected; the last attempt's problem when it failed or the node is closed.
    private func waitUntilConnected() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = condition.withLock { () -> Bool in
                switch phase {
                case .connected, .closed: return true
                default:
                    attemptWaiters.append(continuation)
                    return false
                }
            }
            if ready { continuation.resume() }
        }
        return condition.withLock {
            switch phase {
            case .connected: return nil
            case .closed: return "the bridge is closing"
            default: return "cannot connect to the node at \(Self.redacted(url)): \(lastProblem)"
            }
        }
    }

    /// The URL without its query (a node URL may carry an API key there).
    public static func redacted(_ url: String) -> String {
        url.firstIndex(of: "?").map { String(url[..<$0]) + "?…" } ?? url
    }

    // MARK: - The connection thread

    private func startIfNeeded() {
        let start = condition.withLock { () -> Bool in
            guard !started else { return false }
            started = true
            return true
        }
        if start { Threads.start(name: "omni-chain-node") { [self] in run() } }
    }

    private func run() {
        var backoff = Self.firstBackoff
        var attempt = 0
        while true {
            let proceed = condition.withLock { () -> Bool in
                if case .closed = phase { return false }
                phase = .connecting
                return true
            }
            guard proceed else { return }
            attempt += 1
            var configuration = WebSocketClient.Configuration()
            configuration.connectTimeout = connectTimeout
            configuration.options.maxMessageBytes = Self.maximumMessageBytes
            configuration.options.maxPendingOutboundBytes = Self.maximumMessageBytes
            configuration.options.sendTimeout = 10
            do {
                let socket = try WebSocketClient.connect(url, configuration: configuration)
                let (waiters, count, closed) = condition.withLock { () -> ([CheckedContinuation<Void, Never>], Int, Bool) in
                    if case .closed = phase { return ([], generation, true) }
                    phase = .connected(socket)
                    generation += 1
                    defer { attemptWaiters = [] }
                    return (attemptWaiters, generation, false)
                }
                if closed {
                    socket.abort()
                    return
                }
                onEvent(.chainConnected(genesis: genesis, url: Self.redacted(url), connection: count, attempt: attempt))
                waiters.forEach { $0.resume() }
                attempt = 0
                let since = ContinuousClock.now
                let reason = read(socket)
                if ContinuousClock.now - since >= .seconds(Self.stableConnection) { backoff = Self.firstBackoff }
                let stillOpen = dropConnection(reason: reason)
                guard stillOpen else { return }
                onEvent(.chainDisconnected(genesis: genesis, url: Self.redacted(url), reason: reason, retryIn: backoff))
            } catch {
                let waiters = condition.withLock { () -> [CheckedContinuation<Void, Never>] in
                    lastProblem = error.message
                    if case .connecting = phase { phase = .waiting }
                    defer { attemptWaiters = [] }
                    return attemptWaiters
                }
                waiters.forEach { $0.resume() }
                onEvent(.chainConnectFailed(genesis: genesis, url: Self.redacted(url), attempt: attempt, problem: error.message, retryIn: backoff))
            }
            // The backoff wait; close() wakes it.
            let deadline = Date(timeIntervalSinceNow: backoff)
            let closed = condition.withLock { () -> Bool in
                while true {
                    if case .closed = phase { return true }
                    if !condition.wait(until: deadline) { return false }
                }
            }
            if closed { return }
            backoff = min(backoff * 2, Self.maximumBackoff)
        }
    }

    /// Reads until the connection ends; why it ended.
    private func read(_ socket: WebSocketConnection) -> String {
        while true {
            let message: WebSocketMessage
            do { message = try socket.receive() } catch { return error.message }
            switch message {
            case .text(let text): handle(Array(text.utf8))
            case .binary(let bytes): handle(bytes)
            case .pong: continue
            case .close(let info): return "the node closed the connection (\(info))"
            }
        }
    }

    /// Fails what was in flight and ends every subscription; false when the node is closed for good.
    private func dropConnection(reason: String) -> Bool {
        let (calls, streams, open) = condition.withLock { () -> ([Pending], [AsyncStream<JSONValue>.Continuation], Bool) in
            let calls = Array(pending.values)
            let streams = Array(subscriptions.values)
            timers.values.forEach { $0.cancel() }
            timers = [:]
            pending = [:]
            subscriptions = [:]
            openedStreams = [:]
            lastProblem = reason
            if case .closed = phase { return (calls, streams, false) }
            phase = .waiting
            return (calls, streams, true)
        }
        for call in calls { call.continuation.resume(returning: .failure(.unavailable("the connection to the node closed (\(reason))"))) }
        streams.forEach { $0.finish() }
        return open
    }

    private func handle(_ bytes: [UInt8]) {
        let parsed: (value: JSONValue, memberText: [String: String])
        do {
            parsed = try JSONValue.parseKeepingMemberText(bytes, limits: JSONLimits(maxDepth: 64, maxBytes: Self.maximumMessageBytes))
        } catch {
            onEvent(.chainMessageDropped(genesis: genesis, reason: "not JSON: \(error.description)"))
            return
        }
        let message = parsed.value
        if let id = message["id"]?.int64Value {
            let call: Pending? = condition.withLock { pending[id] }
            guard let call else { return }  // answered after its timeout
            if let error = message["error"] {
                finish(id, .failure(.rpc(code: error["code"]?.int64Value ?? 0, message: error["message"]?.stringValue ?? error.serialized())))
            } else if let result = message["result"] {
                let reply = TruAPINodeReply(result: result, text: parsed.memberText["result"] ?? result.serialized(), requestID: id)
                if call.subscription, let subscriptionID = result.stringValue {
                    // Registered before the reader goes on, so no notification can overtake it.
                    let (stream, continuation) = AsyncStream<JSONValue>.makeStream(bufferingPolicy: .bufferingOldest(Self.subscriptionBuffer))
                    condition.withLock {
                        subscriptions[subscriptionID] = continuation
                        openedStreams[id] = stream
                    }
                }
                finish(id, .success(reply))
            } else {
                finish(id, .failure(.malformed("\(call.method): a response without result or error")))
            }
            return
        }
        if let params = message["params"], let subscription = params["subscription"]?.stringValue, let result = params["result"] {
            let stream = condition.withLock { subscriptions[subscription] }
            if let stream {
                if case .dropped = stream.yield(result) { noteDroppedNotification() }
            }
            return
        }
        onEvent(.chainMessageDropped(genesis: genesis, reason: "neither a response nor a notification"))
    }

    private func noteDroppedNotification() {
        let count = condition.withLock { () -> Int in
            droppedNotifications += 1
            return droppedNotifications
        }
        if count == 1 || count % 1000 == 0 {
            onEvent(.chainMessageDropped(genesis: genesis, reason: "a subscription buffer is full; \(count) notifications dropped so far"))
        }
    }

    /// Ends the connection for good: calls fail, streams end, the reconnect loop stops.
    public func close() {
        let (socket, calls, streams, waiters) = condition.withLock {
            () -> (WebSocketConnection?, [Pending], [AsyncStream<JSONValue>.Continuation], [CheckedContinuation<Void, Never>]) in
            var socket: WebSocketConnection?
            if case .connected(let open) = phase { socket = open }
            phase = .closed
            timers.values.forEach { $0.cancel() }
            timers = [:]
            defer {
                pending = [:]
                subscriptions = [:]
                openedStreams = [:]
                attemptWaiters = []
            }
            condition.broadcast()
            return (socket, Array(pending.values), Array(subscriptions.values), attemptWaiters)
        }
        socket?.abort()
        for call in calls { call.continuation.resume(returning: .failure(.unavailable("the bridge is closing"))) }
        streams.forEach { $0.finish() }
        waiters.forEach { $0.resume() }
    }
}
