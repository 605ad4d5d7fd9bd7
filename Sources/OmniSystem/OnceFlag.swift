import Synchronization

/// True the first time it is asked, false after: one warning for a failure that repeats, one release of a resource
/// that two paths may free.
public final class OnceFlag: Sendable {
    private let used = Mutex(false)

    public init() {}

    public func first() -> Bool {
        used.withLock { used in
            defer { used = true }
            return !used
        }
    }
}
