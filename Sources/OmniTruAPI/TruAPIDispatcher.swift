import OmniCodec
import Synchronization

/// What the dispatcher dropped or worked around, for the bridge's log (never sent to the product).
public enum TruAPIDispatchEvent: Sendable, Equatable {
    /// The envelope did not decode: dropped without an answer.
    case droppedUndecodable(error: CodecError, byteCount: Int)
    /// An unused wire id: dropped without an answer.
    case droppedUnknownDiscriminant(UInt8, requestID: String)
    /// A frame only the other side may send here (a response, receive or interrupt to the host; a host-initiated
    /// start from the product), or one for an `h:` stream that is not open.
    case droppedWrongDirection(method: String, kind: TruAPIFrameKind, requestID: String)
    /// A request or start whose payload did not decode (answered MalformedFrame, or an interrupt).
    case malformedPayload(method: String, requestID: String, error: CodecError)
    /// The host's answer did not fit the method's types; HostFailure was sent instead.
    case unencodableAnswer(method: String, requestID: String, error: CodecError)
    /// A second start with a live id replaced the old stream (which got no interrupt).
    case replacedSubscription(method: String, requestID: String)
    /// A stop for an id with no live subscription: ignored.
    case ignoredStop(method: String, requestID: String)
}

/// The dispatch rules of reference §4 over one connection, without a transport: `receive` takes each inbound frame
/// in arrival order, the host answers, and outbound frames go to `sink`.
///
/// - Every request gets exactly one response on the method's response id (a payload that does not decode is
///   answered `MalformedFrame`; an answer that does not fit the types becomes `HostFailure`). Handlers run
///   concurrently, so responses may leave in another order than the requests came.
/// - Unknown discriminants, undecodable envelopes and frames addressed to the product are dropped (and reported
///   through `log`); `h:` ids go to host-initiated exchanges.
/// - Subscriptions: a start reserves its id before the host answers; a stop in the meantime cancels it and nothing
///   is sent; a second start with a live id replaces the old stream silently; items go out as `_receive`; a stream
///   that ends sends an empty `_interrupt`; a typed start failure sends one typed interrupt; a stop for an unknown id
///   is ignored; nothing follows a stop.
/// - `close()` (the socket went away) aborts handlers and subscriptions without sending anything.
///
/// `sink` is called from the dispatcher's tasks while an internal lock is held (that is how nothing can follow a
/// stop): it must enqueue and return, never block or call back into the dispatcher.
public final class TruAPIDispatcher: Sendable {
    public typealias Sink = @Sendable (TruAPIFrame) -> Void

    private struct Subscription {
        let generation: Int
        let task: Task<Void, Never>?
    }

    private struct State {
        var closed = false
        var generation = 0
        var subscriptions: [String: Subscription] = [:]
        var requests: [Int: Task<Void, Never>] = [:]
        /// Request tasks that ended before they were registered in `requests`.
        var unregistered: Set<Int> = []
        /// Requests whose task has not ended yet.
        var requestsInFlight = 0
        var nextRequest = 0
        /// Tasks of subscriptions that were stopped or replaced, until they have wound down.
        var draining: [Int: Task<Void, Never>] = [:]
        /// Subscription generations whose task is being created, and those of them whose task already ended.
        var awaitingTask: Set<Int> = []
        var endedEarly: Set<Int> = []
        /// `h:N` counter shared by host requests and host-initiated subscriptions.
        var nextHostID = 1
        var hostRequests: [String: CheckedContinuation<TruAPIMessage?, Never>] = [:]
        var hostStreams: [String: AsyncStream<SCALEValue>.Continuation] = [:]
    }

    private let host: any TruAPIHost
    private let sink: Sink
    private let log: @Sendable (TruAPIDispatchEvent) -> Void
    private let state = Mutex(State())

    public init(host: any TruAPIHost, sink: @escaping Sink, log: @escaping @Sendable (TruAPIDispatchEvent) -> Void = { _ in }) {
        self.host = host
        self.sink = sink
        self.log = log
    }

    /// Waits until every request handler has answered and every stopped or replaced subscription has wound down
    /// (live subscriptions keep running). For tests that must know nothing more is coming, and for shutdown.
    public func waitUntilSettled() async {
        while true {
            let (tasks, drained) = state.withLock { (Array($0.requests.values) + Array($0.draining.values), Array($0.draining.keys)) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
            state.withLock { state in for key in drained { state.draining.removeValue(forKey: key) } }
        }
    }

    /// Live subscription ids (for tests and diagnostics).
    public var liveSubscriptions: Set<String> { state.withLock { Set($0.subscriptions.keys) } }

    // MARK: - Inbound

    /// Handles one inbound frame. Call it in arrival order from one task per connection; it returns at once and
    /// the answers follow through `sink`.
    public func receive(_ bytes: [UInt8]) {
        let frame: TruAPIFrame
        do {
            frame = try TruAPIFrame.decode(bytes)
        } catch {
            log(.droppedUndecodable(error: error, byteCount: bytes.count))
            return
        }
        guard let (method, kind) = frame.wireEntry else {
            log(.droppedUnknownDiscriminant(frame.discriminant, requestID: frame.requestID))
            return
        }
        if frame.isHostInitiatedID {
            receiveHostInitiated(frame, bytes: bytes, method: method, kind: kind)
            return
        }
        switch (method.direction, kind) {
        case (.productInitiated, .request): startRequest(frame, bytes: bytes, method: method)
        case (.productInitiated, .start): startSubscription(frame, bytes: bytes, method: method)
        case (.productInitiated, .stop): stopSubscription(frame.requestID, method: method)
        default: log(.droppedWrongDirection(method: method.name, kind: kind, requestID: frame.requestID))
        }
    }

    /// The connection is gone: cancels every handler and subscription; nothing more is sent.
    public func close() {
        let (tasks, pending, streams, wasClosed) = state.withLock { state in
            let wasClosed = state.closed
            state.closed = true
            let tasks = Array(state.requests.values) + state.subscriptions.values.compactMap(\.task) + Array(state.draining.values)
            let pending = Array(state.hostRequests.values)
            let streams = Array(state.hostStreams.values)
            state.requests = [:]
            state.subscriptions = [:]
            state.draining = [:]
            state.hostRequests = [:]
            state.hostStreams = [:]
            return (tasks, pending, streams, wasClosed)
        }
        tasks.forEach { $0.cancel() }
        pending.forEach { $0.resume(returning: nil) }
        streams.forEach { $0.finish() }
        if !wasClosed { host.connectionClosed() }
    }

    // MARK: - Requests

    /// Decoding, a malformed payload's answer and an answer the host has at once (`TruAPIHost.immediateAnswer`, taken
    /// only when no earlier request is still being answered) happen here, in arrival order, without a task; an answer
    /// that may wait runs on a task of its own.
    private func startRequest(_ frame: TruAPIFrame, bytes: [UInt8], method: TruAPIMethod) {
        let message: TruAPIMessage
        do {
            message = try TruAPIMessage.decode(frame, frameBytes: bytes)
        } catch {
            log(.malformedPayload(method: method.name, requestID: frame.requestID, error: error))
            let request = TruAPIMessage(requestID: frame.requestID, method: method, kind: .request, payload: nil)
            send(request.response(.failure(.malformedFrame(reason: error.description))))
            return
        }
        let call = TruAPICall(requestID: frame.requestID, method: method, version: message.version, request: message.content)
        // Only while no earlier request is still being answered: a read must not overtake the write before it.
        if state.withLock({ $0.requestsInFlight == 0 }), let answer = host.immediateAnswer(to: call) {
            send(message.response(answer))
            return
        }
        let reserved: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            state.requestsInFlight += 1
            defer { state.nextRequest += 1 }
            return state.nextRequest
        }
        guard let id = reserved else { return }
        let task = Task { [self] in
            let answer = await host.respond(to: call)
            if !Task.isCancelled { send(message.response(answer)) }
            state.withLock { state in
                state.requestsInFlight -= 1
                if state.requests.removeValue(forKey: id) == nil { state.unregistered.insert(id) }
            }
        }
        // Registered once it exists, not while it is created: a task that starts at once would otherwise wait for
        // this lock before it can answer.
        state.withLock { state in
            if state.unregistered.remove(id) != nil { return }
            if state.closed { task.cancel() } else { state.requests[id] = task }
        }
    }

    /// Sends a response, replacing an answer that does not fit the types with HostFailure (never a bad frame).
    private func send(_ response: TruAPIMessage) {
        let frame: TruAPIFrame
        do {
            frame = try response.frame()
        } catch {
            log(.unencodableAnswer(method: response.method.name, requestID: response.requestID, error: error))
            var fallback = response
            fallback.payload = .variant(TruAPIMessage.versionName(0), .err(TruAPICallError.hostFailure(reason: "unencodable answer").value))
            guard let safe = try? fallback.frame() else { return }
            frame = safe
        }
        state.withLock { state in
            guard !state.closed else { return }
            sink(frame)
        }
    }

    // MARK: - Subscriptions

    private func startSubscription(_ frame: TruAPIFrame, bytes: [UInt8], method: TruAPIMethod) {
        let requestID = frame.requestID
        guard !state.withLock({ $0.closed }) else { return }
        // Before the id is reserved: a host that must see the start first (a chain follow) learns of it here.
        host.prepareSubscription(requestID: requestID, method: method)
        let reserved: Int? = state.withLock { locked in
            guard !locked.closed else { return nil }
            locked.generation += 1
            let generation = locked.generation
            if let old = locked.subscriptions[requestID] {
                old.task?.cancel()
                if let task = old.task { locked.draining[old.generation] = task }
                log(.replacedSubscription(method: method.name, requestID: requestID))
            }
            // The id is reserved before the host is asked, so a stop that arrives meanwhile finds it.
            locked.subscriptions[requestID] = Subscription(generation: generation, task: nil)
            locked.awaitingTask.insert(generation)
            return generation
        }
        guard let generation = reserved else { return }
        let task = Task { [self] in
            await runSubscription(frame, bytes: bytes, method: method, generation: generation)
            // A task only ends after its entry left `subscriptions` (finished, or moved here by a stop or a
            // replacing start), so this forgets it for good.
            state.withLock { locked in
                locked.draining.removeValue(forKey: generation)
                if locked.awaitingTask.contains(generation) { locked.endedEarly.insert(generation) }
            }
        }
        // Registered once it exists (as requests are); stopped, replaced or closed meanwhile, it is cancelled now.
        state.withLock { locked in
            locked.awaitingTask.remove(generation)
            if locked.endedEarly.remove(generation) != nil { return }
            if !locked.closed, locked.subscriptions[requestID]?.generation == generation {
                locked.subscriptions[requestID] = Subscription(generation: generation, task: task)
            } else {
                task.cancel()
                if !locked.closed { locked.draining[generation] = task }
            }
        }
    }

    private func runSubscription(_ frame: TruAPIFrame, bytes: [UInt8], method: TruAPIMethod, generation: Int) async {
        let requestID = frame.requestID
        let start: TruAPIMessage
        if method.requestType == nil {
            // The host ignores the start bytes of a subscription without arguments.
            start = TruAPIMessage(requestID: requestID, method: method, kind: .start, payload: nil)
        } else {
            do {
                start = try TruAPIMessage.decode(frame, frameBytes: bytes)
            } catch {
                log(.malformedPayload(method: method.name, requestID: requestID, error: error))
                let failed = TruAPIMessage(requestID: requestID, method: method, kind: .start, payload: nil)
                finishSubscription(failed.interrupt(.malformedFrame(reason: error.description)), generation: generation)
                return
            }
        }
        let call = TruAPICall(requestID: requestID, method: method, version: start.version, request: start.content)
        switch await host.subscribe(to: call) {
        case .failure(let error):
            finishSubscription(start.interrupt(error), generation: generation)
        case .stream(let items):
            for await item in items {
                guard !Task.isCancelled, sendIfCurrent(start.item(item), generation: generation) else { return }
            }
            guard !Task.isCancelled else { return }
            finishSubscription(start.interrupt(), generation: generation)
        }
    }

    /// Sends a subscription frame only while that subscription is the live one for its id.
    private func sendIfCurrent(_ message: TruAPIMessage, generation: Int) -> Bool {
        let frame: TruAPIFrame
        do {
            frame = try message.frame()
        } catch {
            log(.unencodableAnswer(method: message.method.name, requestID: message.requestID, error: error))
            finishSubscription(message.interrupt(.hostFailure(reason: "unencodable item")), generation: generation)
            return false
        }
        return state.withLock { state in
            guard !state.closed, state.subscriptions[message.requestID]?.generation == generation else { return false }
            sink(frame)
            return true
        }
    }

    /// Sends the subscription's last frame (an interrupt) and forgets it, unless it was stopped or replaced.
    private func finishSubscription(_ interrupt: TruAPIMessage, generation: Int) {
        let frame = (try? interrupt.frame()) ?? TruAPIFrame(requestID: interrupt.requestID, discriminant: interrupt.method.interruptID)
        state.withLock { state in
            guard !state.closed, state.subscriptions[interrupt.requestID]?.generation == generation else { return }
            state.subscriptions.removeValue(forKey: interrupt.requestID)
            sink(frame)
        }
    }

    private func stopSubscription(_ requestID: String, method: TruAPIMethod) {
        let task: Task<Void, Never>?? = state.withLock { state in
            guard let stopped = state.subscriptions.removeValue(forKey: requestID) else { return nil }
            if let task = stopped.task { state.draining[stopped.generation] = task }
            return .some(stopped.task)
        }
        guard let task else {
            log(.ignoredStop(method: method.name, requestID: requestID))
            return
        }
        task?.cancel()
    }

    // MARK: - Host-initiated exchanges (`h:N`)

    private func receiveHostInitiated(_ frame: TruAPIFrame, bytes: [UInt8], method: TruAPIMethod, kind: TruAPIFrameKind) {
        let requestID = frame.requestID
        switch kind {
        case .response:
            let pending = state.withLock { $0.hostRequests.removeValue(forKey: requestID) }
            guard let pending else {
                log(.droppedWrongDirection(method: method.name, kind: kind, requestID: requestID))
                return
            }
            pending.resume(returning: try? TruAPIMessage.decode(frame, frameBytes: bytes))
        case .receive, .interrupt:
            let stream = state.withLock { state in
                kind == .interrupt ? state.hostStreams.removeValue(forKey: requestID) : state.hostStreams[requestID]
            }
            guard let stream, method.direction == .hostInitiated else {
                log(.droppedWrongDirection(method: method.name, kind: kind, requestID: requestID))
                return
            }
            if kind == .interrupt {
                stream.finish()
                return
            }
            do {
                let message = try TruAPIMessage.decode(frame, frameBytes: bytes)
                stream.yield(message.content)
                Task { await host.hostStreamItem(message.content, requestID: requestID, method: method) }
            } catch {
                log(.malformedPayload(method: method.name, requestID: requestID, error: error))
            }
        default:
            log(.droppedWrongDirection(method: method.name, kind: kind, requestID: requestID))
        }
    }

    private func nextHostID(_ state: inout State) -> String {
        defer { state.nextHostID += 1 }
        return "h:\(state.nextHostID)"
    }

    /// Sends a host-initiated request (`h:N`) and waits for the product's response; nil when the connection closes
    /// first, the response does not decode, or `timeout` passes first (a late response is then dropped and logged).
    /// Cancelling the calling task does not cancel the wait: give a timeout, or end it with `close()`.
    public func sendHostRequest(method: TruAPIMethod, request: SCALEValue, timeout: Duration? = nil) async throws(CodecError)
        -> TruAPIMessage?
    {
        let template = TruAPIMessage(requestID: "", method: method, kind: .request, payload: .variant("V1", request))
        _ = try template.frame()
        return await withCheckedContinuation { (continuation: CheckedContinuation<TruAPIMessage?, Never>) in
            let requestID: String? = state.withLock { state in
                guard !state.closed else { return nil }
                var message = template
                message.requestID = nextHostID(&state)
                guard let frame = try? message.frame() else { return nil }
                state.hostRequests[message.requestID] = continuation
                sink(frame)
                return message.requestID
            }
            guard let requestID else {
                continuation.resume(returning: nil)
                return
            }
            if let timeout {
                Task { [self] in
                    try? await Task.sleep(for: timeout)
                    // Whoever removes the entry resumes it: the response, close(), or this timer.
                    state.withLock { $0.hostRequests.removeValue(forKey: requestID) }?.resume(returning: nil)
                }
            }
        }
    }

    /// The host's handshake (`--send-handshake`): sends `system_handshake` with `codecVersion` and returns the
    /// product's answer, for products built on SDKs that wait for the host to speak first; nil without an answer
    /// within `timeout` (the design document's 10 s).
    public func sendHandshake(codecVersion: UInt8 = 1, timeout: Duration = .seconds(10)) async -> Result<SCALEValue, TruAPICallError>? {
        guard let method = TruAPIWireTable.method(named: "system_handshake"),
              let answer = try? await sendHostRequest(method: method, request: .record(["codec_version": .int(codecVersion)]),
                                                      timeout: timeout),
              case .variant(_, let result)? = answer.payload else { return nil }
        switch result {
        case .ok(let body): return .success(body)
        case .err(let error): return TruAPICallError(value: error).map { .failure($0) }
        default: return nil
        }
    }

    /// Starts a host-initiated subscription (`chat_custom_message_render`): sends `_start` with a fresh `h:N` id
    /// and returns it with the stream of the product's items (finished by its interrupt or `stopHostSubscription`).
    public func startHostSubscription(method: TruAPIMethod, request: SCALEValue) throws(CodecError) -> (requestID: String, items: AsyncStream<SCALEValue>) {
        let template = TruAPIMessage(requestID: "", method: method, kind: .start, payload: .variant("V1", request))
        _ = try template.frame()
        let (stream, continuation) = AsyncStream<SCALEValue>.makeStream()
        let requestID: String = state.withLock { state in
            var message = template
            message.requestID = nextHostID(&state)
            guard !state.closed, let frame = try? message.frame() else {
                continuation.finish()
                return message.requestID
            }
            state.hostStreams[message.requestID] = continuation
            sink(frame)
            return message.requestID
        }
        return (requestID, stream)
    }

    /// Stops a host-initiated subscription: sends `_stop` and finishes its stream.
    public func stopHostSubscription(_ requestID: String, method: TruAPIMethod) {
        let stream: AsyncStream<SCALEValue>.Continuation? = state.withLock { state in
            guard let stream = state.hostStreams.removeValue(forKey: requestID) else { return nil }
            if !state.closed { sink(TruAPIFrame(requestID: requestID, discriminant: method.stopID)) }
            return stream
        }
        stream?.finish()
    }
}
