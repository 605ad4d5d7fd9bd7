import OmniCodec
import Synchronization

/// One product request (or subscription start) as the host sees it: decoded, with the frame's request id.
public struct TruAPICall: Sendable {
    public let requestID: String
    public let method: TruAPIMethod
    /// The request envelope's version index (0 = V1).
    public let version: UInt8
    /// The request's V1 content (`.unit` for methods without arguments).
    public let request: SCALEValue

    public init(requestID: String, method: TruAPIMethod, version: UInt8 = 0, request: SCALEValue) {
        self.requestID = requestID
        self.method = method
        self.version = version
        self.request = request
    }
}

/// What a subscription start turns into.
public enum TruAPISubscription: Sendable {
    /// Items (each the item envelope's V1 content) sent as `_receive`; when the stream finishes, an empty
    /// `_interrupt`. Current-value subscriptions yield the current item first.
    case stream(AsyncStream<SCALEValue>)
    /// The start failed: a typed subscription sends this error as its one interrupt; a plain one an empty interrupt.
    case failure(TruAPICallError)
}

/// What a product's host does, one entry per method kind. The dispatcher calls these concurrently (each frame on
/// its own task), so implementations must be safe to call from several tasks at once; a slow answer (a prompt)
/// delays only its own response.
public protocol TruAPIHost: Sendable {
    /// Answers a request; the dispatcher sends exactly one response for it. The Ok value is the content of the
    /// method's Ok envelope (`.unit` for a unit Ok).
    func respond(to call: TruAPICall) async -> Result<SCALEValue, TruAPICallError>

    /// The answer when the host has it at once — no prompt, no disk write, nothing that waits — else nil. The
    /// dispatcher then answers on the connection's reader instead of starting a task (the common, cheap calls skip
    /// two thread hand-offs). It must be what `respond` would answer; hosts implement `respond` on top of it.
    func immediateAnswer(to call: TruAPICall) -> Result<SCALEValue, TruAPICallError>?

    /// Starts a subscription. A stop cancels the task consuming the stream (the stream's `onTermination` runs).
    func subscribe(to call: TruAPICall) async -> TruAPISubscription

    /// An item the product sent on a host-initiated stream (`h:N`, chat_custom_message_render), besides the
    /// stream returned by `TruAPIDispatcher.startHostSubscription`.
    func hostStreamItem(_ item: SCALEValue, requestID: String, method: TruAPIMethod) async

    /// A subscription's `_start` frame arrived; called synchronously in arrival order, before its payload is
    /// decoded and `subscribe` runs, so that requests in later frames can find what it will start (a chain follow
    /// named by its request id).
    func prepareSubscription(requestID: String, method: TruAPIMethod)

    /// The connection is gone (after every handler and subscription was cancelled).
    func connectionClosed()
}

extension TruAPIHost {
    public func hostStreamItem(_ item: SCALEValue, requestID: String, method: TruAPIMethod) async {}
    public func prepareSubscription(requestID: String, method: TruAPIMethod) {}
    public func connectionClosed() {}

    /// None: every answer goes through `respond` on its own task.
    public func immediateAnswer(to call: TruAPICall) -> Result<SCALEValue, TruAPICallError>? { nil }
}

/// A value subscribers see now and whenever it changes: connection status, theme. `stream()` yields the current
/// value at once (reference §4: "current-value subscriptions emit the current item immediately after start").
public final class TruAPICurrentValue: Sendable {
    private struct State {
        var value: SCALEValue
        var next = 0
        var subscribers: [Int: AsyncStream<SCALEValue>.Continuation] = [:]
    }

    private let state: Mutex<State>

    public init(_ value: SCALEValue) { state = Mutex(State(value: value)) }

    public var value: SCALEValue { state.withLock { $0.value } }

    /// Sets the value and sends it to every open stream (nothing when it did not change).
    public func update(_ value: SCALEValue) {
        let subscribers: [AsyncStream<SCALEValue>.Continuation] = state.withLock { state in
            guard state.value != value else { return [] }
            state.value = value
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(value) }
    }

    /// A stream that starts with the current value and stays open until its consumer stops.
    public func stream() -> AsyncStream<SCALEValue> {
        let (stream, continuation) = AsyncStream<SCALEValue>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            let id = state.next
            state.next += 1
            state.subscribers[id] = continuation
            continuation.yield(state.value)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Streams currently open (for tests and diagnostics).
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// A stream that yields `items` and then stays open until its consumer stops (a lookup answered once whose
/// subscription lives on, as the reference's preimage lookup does).
public func truAPIOpenStream(_ items: [SCALEValue]) -> AsyncStream<SCALEValue> {
    let (stream, continuation) = AsyncStream<SCALEValue>.makeStream()
    // Never finished: an AsyncStream whose continuation is dropped unfinished stays open for its consumer.
    for item in items { continuation.yield(item) }
    return stream
}

/// A stream that yields `items` and ends (the dispatcher then sends the empty interrupt).
public func truAPIFiniteStream(_ items: [SCALEValue]) -> AsyncStream<SCALEValue> {
    let (stream, continuation) = AsyncStream<SCALEValue>.makeStream()
    for item in items { continuation.yield(item) }
    continuation.finish()
    return stream
}
