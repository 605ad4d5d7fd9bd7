import Synchronization

/// A one-line status on stderr for long waits. Drawn only when stderr is a terminal and output is for people;
/// otherwise every call is a no-op, so commands can use it unconditionally.
public final class Progress: @unchecked Sendable {
    private let title: String
    private let enabled: Bool
    private let streams: StandardStreams
    private let drawn = Mutex(false)

    init(title: String, enabled: Bool, streams: StandardStreams) {
        self.title = title
        self.enabled = enabled
        self.streams = streams
    }

    public func update(_ status: String) {
        guard enabled else { return }
        drawn.withLock { drawn in
            streams.err("\r\u{1B}[2K" + TerminalText.escaped("\(title) \(status)"))
            drawn = true
        }
    }

    /// Clears the line; call when the wait is over.
    public func finish() {
        guard enabled else { return }
        drawn.withLock { drawn in
            if drawn { streams.err("\r\u{1B}[2K") }
            drawn = false
        }
    }
}
