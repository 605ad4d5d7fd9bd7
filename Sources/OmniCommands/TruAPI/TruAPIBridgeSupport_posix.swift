#if canImport(Glibc)
internal import Glibc
#endif
import Dispatch
import OmniCLI
import OmniCodec
import OmniSystem
import OmniTruAPI
import Synchronization

/// The bridge's prompts on the terminal: one question at a time on stderr, the answer read from stdin, y or yes
/// allows. No answer within the timeout, end of input, or more than `maximumWaiting` questions queued counts as no
/// answer (refused, not remembered), so a prompt never holds a request forever.
final class TerminalPrompter: TruAPIPrompter, @unchecked Sendable {
    static let maximumWaiting = 16

    private let invocation: Invocation
    private let timeout: Double
    private let queue = DispatchQueue(label: "omni-truapi-prompt")
    private struct State {
        var waiting = 0
        var closed = false
        var inputEnded = false
    }
    private let state = Mutex(State())

    init(invocation: Invocation, timeout: Double) {
        self.invocation = invocation
        self.timeout = timeout
    }

    func ask(_ prompt: TruAPIPrompt) async -> Bool? {
        let admitted = state.withLock { state -> Bool in
            guard !state.closed, !state.inputEnded, state.waiting < Self.maximumWaiting else { return false }
            state.waiting += 1
            return true
        }
        guard admitted else { return nil }
        return await withCheckedContinuation { continuation in
            queue.async { [self] in
                let answer = state.withLock { $0.closed } ? nil : askNow(prompt)
                state.withLock { $0.waiting -= 1 }
                continuation.resume(returning: answer)
            }
        }
    }

    /// Refuses every later question (the bridge is closing).
    func close() { state.withLock { $0.closed = true } }

    private func askNow(_ prompt: TruAPIPrompt) -> Bool? {
        // The card: what is asked, then the decoded request (sanitised by warn: a payload cannot drive the terminal).
        if let review = prompt.review {
            invocation.warn("── \(prompt.productID.value): \(review.title) " + String(repeating: "─", count: max(4, 60 - review.title.count)))
            for line in review.details { invocation.warn("   " + line) }
        }
        invocation.warn(prompt.question + " [y/N]")
        guard let line = readLine(timeout: timeout) else {
            invocation.warn("no answer: refused")
            return nil
        }
        switch line.trimmingWhitespaceAndNewlines().lowercased() {
        case "y", "yes": return true
        default: return false
        }
    }

    /// One line from stdin within `timeout` seconds; nil on timeout or end of input.
    private func readLine(timeout: Double) -> String? {
        var bytes: [UInt8] = []
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        while bytes.count < 1024 {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < end else { return nil }
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min((end - now) / 1_000_000 + 1, UInt64(Int32.max))))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var byte: UInt8 = 0
            let count = read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else {
                state.withLock { $0.inputEnded = true }
                return nil
            }
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Runs a helper program (`--opener`, `notify-send`) without a shell: argv as given, stdin from /dev/null, its
/// stdout sent to our stderr (stdout is the bridge's event stream).
enum TruAPIHelperProcess {
    /// Starts `arguments` and waits up to `timeout` seconds: nil when it exited 0 or is still running (an opener that
    /// stays up is not a failure), else what went wrong.
    static func run(_ arguments: [String], timeout: Double) async -> String? {
        let child: Int32
        switch ChildProcess.spawn(arguments, output: .stderr) {
        case .success(let pid): child = pid
        case .failure(let error): return "cannot run \(arguments.first ?? ""): \(error.message)"
        }
        let program = arguments[0]
        let outcome = Mutex<(done: Bool, continuation: CheckedContinuation<String?, Never>?)>((false, nil))
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            outcome.withLock { $0.continuation = continuation }
            @Sendable func finish(_ result: String?) {
                let waiting: CheckedContinuation<String?, Never>? = outcome.withLock { state in
                    guard !state.done else { return nil }
                    state.done = true
                    return state.continuation
                }
                waiting?.resume(returning: result)
            }
            // Reaps the child whenever it exits, also after the caller stopped waiting.
            DispatchQueue.global().async { finish(ChildProcess.waitForExit(child).problem.map { "\(program) \($0)" }) }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { finish(nil) }
        }
    }
}

/// `--open`'s launcher file: a 0600 page in the runtime directory that replaces itself with the host page, so the
/// opener's argv (readable by every user through `ps` and /proc) names a file, never the URL with the token. It is
/// removed once a browser fetched the host page, when the opener fails, or when the bridge stops; a SIGKILL leaves
/// it behind, private, in a directory the session clears.
final class HostPageLauncher: Sendable {
    let path: String
    private let removed = OnceFlag()

    private init(path: String) { self.path = path }

    /// `$XDG_RUNTIME_DIR/omni/truapi` (per user, private, emptied at logout), else under the state directory.
    static func directory(_ environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/omni/truapi" }
        return Directories(environment: environment).state + "/run/truapi"
    }

    static func write(hostURL: String, directory: String) throws -> HostPageLauncher {
        let path = directory + "/truapi-open-" + String(TruAPIBridge.makeToken().prefix(16)) + ".html"
        do throws(SystemError) {
            try AtomicFile.makeDirectories(directory, mode: 0o700)
            try AtomicFile.write(TruAPIBrowserGlue.launcherPage(hostURL: hostURL), to: path, mode: 0o600)
        } catch {
            throw TruAPIError(.configuration, "--open: cannot write the launcher page \(path): \(error.message)")
        }
        return HostPageLauncher(path: path)
    }

    func remove() {
        guard removed.first() else { return }
        try? LocalFile.remove(path)
    }
}

/// SIGHUP as an event (`--theme-file` is re-read on it), instead of its default of ending the process.
final class HangupSignal: @unchecked Sendable {
    private let source: DispatchSourceSignal

    init(_ handler: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
    }

    func cancel() { source.cancel() }
}
