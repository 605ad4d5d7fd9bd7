import Foundation

/// Runs blocking work (a subprocess, sockets, waits) on a thread of its own and awaits it, so Swift's concurrency
/// pool stays free. Tests run on that pool, which has one thread per core: a test that blocks one for minutes (a
/// compiler run, a package build) starves every async test meanwhile, and their time limits fire.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }.start()
    }
}
