import Synchronization

/// A cancellation flag shared between whoever wants transfers stopped and the transfers themselves.
///
/// `cancel()` is a single lock-free atomic store, so it may be called from any thread, including a signal
/// handler (e.g. SIGINT). Transfers notice within about 100 ms and fail with `TransportError.Kind.cancelled`;
/// requests started with an already-cancelled flag fail at once. A flag cannot be reset.
public final class HTTPCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() {
        flag.store(true, ordering: .releasing)
    }

    public var isCancelled: Bool {
        flag.load(ordering: .acquiring)
    }
}
