#if canImport(Glibc)
internal import Glibc
#endif
import Dispatch
import Synchronization

/// SIGINT/SIGTERM handling. By default an interrupt exits at once with 130 (SIGINT) or 143 (SIGTERM). A command
/// that must clean up (close a server, send a WebSocket close) registers a handler; the first interrupt then runs it
/// and the command returns — the process still exits 130 or 143 — and a second interrupt exits immediately.
public final class Interrupts: @unchecked Sendable {
    private struct State {
        var handlers: [@Sendable () -> Void] = []
        var signal: Int32?
        var count = 0
    }
    private let state = Mutex(State())
    private var sources: [DispatchSourceSignal] = []

    init() {}

    /// True once an interrupt arrived; long loops poll this to stop early. Only after `onInterrupt`: without a
    /// handler the first interrupt exits before anything could read this.
    public var isInterrupted: Bool { state.withLock { $0.count > 0 } }

    /// The exit code the first interrupt asks for (130 for SIGINT, 143 for SIGTERM), nil when none arrived.
    public var exitCode: ExitCode? {
        state.withLock { state in state.signal.map { $0 == SIGTERM ? .terminated : .interrupted } }
    }

    /// Runs `handler` on the first SIGINT/SIGTERM instead of exiting. Handlers run on a background queue.
    public func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handlers.append(handler) }
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

    /// Delivers an interrupt as if the signal had arrived (tests, and in-process callers).
    func received(_ signalNumber: Int32) {
        let (first, pending) = state.withLock { state -> (Bool, [@Sendable () -> Void]) in
            state.count += 1
            if state.signal == nil { state.signal = signalNumber }
            return (state.count == 1, state.handlers)
        }
        if first, !pending.isEmpty {
            pending.forEach { $0() }
            return
        }
        _exit(signalNumber == SIGTERM ? 143 : 130)
    }
}
