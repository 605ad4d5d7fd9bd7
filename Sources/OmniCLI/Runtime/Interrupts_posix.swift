#if canImport(Glibc)
internal import Glibc
#endif
import Foundation

/// SIGINT/SIGTERM handling. By default an interrupt exits at once with 130. A command that must clean up (close a
/// server, send a WebSocket close) registers a handler; the first interrupt then runs it and the command returns,
/// and a second interrupt exits immediately.
public final class Interrupts: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [() -> Void] = []
    private var count = 0
    private var sources: [DispatchSourceSignal] = []

    init() {}

    /// True once an interrupt arrived; long loops poll this to stop early. Only after `onInterrupt`: without a
    /// handler the first interrupt exits before anything could read this.
    public var isInterrupted: Bool {
        lock.lock(); defer { lock.unlock() }
        return count > 0
    }

    /// Runs `handler` on the first SIGINT/SIGTERM instead of exiting. Handlers run on a background queue.
    public func onInterrupt(_ handler: @escaping () -> Void) {
        lock.lock(); defer { lock.unlock() }
        handlers.append(handler)
    }

    func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in self?.received(signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    private func received(_ signalNumber: Int32) {
        lock.lock()
        count += 1
        let first = count == 1
        let pending = handlers
        lock.unlock()
        if first, !pending.isEmpty {
            pending.forEach { $0() }
            return
        }
        _exit(signalNumber == SIGINT ? 130 : 143)
    }
}
