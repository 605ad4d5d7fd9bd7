import FoundationEssentials
internal import Glibc
internal import OmniSystem

/// A message delivered by `WebSocketConnection.receive`.
public enum WebSocketMessage: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
    /// Only when `Options.deliverPongs` is set; pongs are always counted in `pongsReceived`.
    case pong([UInt8])
    /// The peer closed; the closing handshake is complete and the connection is finished.
    case close(WebSocketCloseInfo)
}

/// An open WebSocket, client or server side, after the opening handshake.
///
/// Threading: one reader at a time (`receive` and `close` serialise on a read lock); `send`, `ping` and `sendClose`
/// may be called from any thread (frames are written under a write lock and never interleave). Pings are answered
/// automatically while receiving. Outbound bytes the socket cannot take yet are queued; when the queue exceeds
/// `maxPendingOutboundBytes`, `send` waits up to `sendTimeout` for the peer to drain it and otherwise fails the
/// connection (a peer that stops reading cannot make us buffer without bound).
public final class WebSocketConnection: @unchecked Sendable {
    public struct Options: Sendable {
        /// Largest reassembled message accepted; bigger ones are refused with close 1009.
        public var maxMessageBytes = 16 << 20
        /// Queued outbound bytes allowed before `send` blocks (then fails after `sendTimeout`).
        public var maxPendingOutboundBytes = 16 << 20
        /// Seconds a send may wait for the peer to drain the queue. 0 fails at once.
        public var sendTimeout: Double = 30
        /// Seconds `receive()` without a timeout waits for any byte before closing with 1001; nil waits forever.
        public var idleTimeout: Double?
        /// Seconds to wait for the peer's close frame, and then for the TCP close, in the closing handshake.
        public var closeTimeout: Double = 5
        /// Surface pongs from `receive` as `.pong` messages.
        public var deliverPongs = false
        /// Split outgoing text and binary messages into frames of at most this many payload bytes.
        public var fragmentSize: Int?
        /// Seconds `receive` keeps polling the socket without sleeping once it runs dry right after reading bytes
        /// (0: sleep at once). In a request–response exchange the peer's next frame often comes within
        /// microseconds, and waking a thread that slept costs more than that on an idle machine; the spin follows
        /// only bytes read, so an idle connection sleeps after at most this long.
        public var receiveSpin: Double = 0

        public init() {}
    }

    public let role: WebSocketRole
    public let options: Options
    /// The negotiated subprotocol, if any.
    public let subprotocol: String?
    /// Client: the server's 101 response headers. Server: the upgrade request's headers.
    public let handshakeHeaders: HTTPHeaderFields

    private let stream: WebSocketByteStream
    private let wakeup: WebSocketWakeup
    private let readLock = Lock()
    private let writeLock = Lock()
    private let stateLock = Lock()

    // Read side (readLock).
    private var decoder: WebSocketFrameDecoder
    private var scratch: [UInt8]
    /// Bytes arrived since the last spin: the next time the socket runs dry, spin before sleeping.
    private var spinArmed = false

    // Write side (writeLock).
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var closeFrameSent = false
    private var random = SystemRandomNumberGenerator()

    // Shared state (stateLock).
    private var peerCloseState: WebSocketCloseInfo?
    private var sentCloseState: WebSocketCloseInfo?
    private var failureState: TransportError?
    private var finishedState = false
    private var pongCount = 0
    private var endingObserver: (@Sendable () -> Void)?
    private var endingAnnounced = false

    init(
        stream: WebSocketByteStream, role: WebSocketRole, options: Options, subprotocol: String?,
        handshakeHeaders: HTTPHeaderFields, bufferedBytes: ArraySlice<UInt8>
    ) throws(TransportError) {
        self.stream = stream
        self.role = role
        self.options = options
        self.subprotocol = subprotocol
        self.handshakeHeaders = handshakeHeaders
        self.wakeup = try WebSocketWakeup()
        decoder = WebSocketFrameDecoder(role: role, maxMessageBytes: options.maxMessageBytes)
        scratch = [UInt8](repeating: 0, count: 32 << 10)
        if !bufferedBytes.isEmpty { bufferedBytes.withUnsafeBytes { decoder.append($0) } }
    }

    deinit { stream.shutdown() }

    // MARK: - State

    /// The peer's close frame, once received.
    public var peerCloseInfo: WebSocketCloseInfo? { stateLock.withLock { peerCloseState } }
    /// The close frame we sent, if any (including 1002/1007/1009 after a protocol violation).
    public var sentCloseInfo: WebSocketCloseInfo? { stateLock.withLock { sentCloseState } }
    /// Pongs received so far (answers to our pings or unsolicited).
    public var pongsReceived: Int { stateLock.withLock { pongCount } }
    /// False once the connection is finished (closed cleanly, failed, or shut down).
    public var isOpen: Bool { stateLock.withLock { !finishedState } }
    /// Outbound bytes queued but not yet accepted by the socket.
    public var pendingOutboundBytes: Int { writeLock.withLock { pending.count - pendingStart } }

    /// Runs `body` once, the moment this connection starts to end and before the peer can learn it has: before our
    /// close frame (or the echo of the peer's) is written, before the socket is shut down. A server frees the
    /// connection's slot here, so a peer that reconnects the instant it sees the close is not refused for the slot
    /// its own old connection still held. Runs at once if the connection is ending already. `body` may run on any
    /// thread while this connection holds its read or write lock: it must not call back into the connection.
    public func onEnding(_ body: @escaping @Sendable () -> Void) {
        let now = stateLock.withLock { () -> Bool in
            if endingAnnounced { return true }
            endingObserver = body
            return false
        }
        if now { body() }
    }

    private func announceEnding() {
        let observer = stateLock.withLock { () -> (@Sendable () -> Void)? in
            guard !endingAnnounced else { return nil }
            endingAnnounced = true
            defer { endingObserver = nil }
            return endingObserver
        }
        observer?()
    }

    // MARK: - Receiving

    /// The next text or binary message (or pong, or the peer's close). Answers pings meanwhile.
    /// `timeout` nil waits up to `Options.idleTimeout`; a receive timeout leaves the connection open, an idle
    /// timeout closes it with 1001.
    public func receive(timeout: Double? = nil) throws(TransportError) -> WebSocketMessage {
        readLock.lock()
        defer { readLock.unlock() }
        let message = try nextMessage(until: .after(timeout), discardData: false)
        guard let message else {
            throw TransportError(.timeout, "no WebSocket message within \(timeout.map { "\($0)" } ?? "the timeout") s")
        }
        return message
    }

    /// Runs the read loop until a deliverable message, the deadline (nil), or an error. Caller holds readLock.
    private func nextMessage(until deadline: MonotonicDeadline, discardData: Bool) throws(TransportError) -> WebSocketMessage? {
        var idleDeadline = MonotonicDeadline.after(options.idleTimeout)
        while true {
            // Another thread may have ended the connection (failed send, close timeout, server abort).
            if let error = terminalError() { throw error }
            let event: WebSocketFrameDecoder.Event?
            do {
                event = try decoder.nextEvent()
            } catch {
                fail(error, closeCode: decoder.failureCloseCode ?? .protocolError, reason: "")
                throw error
            }
            if let event {
                switch event {
                case .ping(let payload):
                    try sendFrame(.pong, payload, skipIfClosing: true)
                case .pong(let payload):
                    stateLock.withLock { pongCount += 1 }
                    if options.deliverPongs, !discardData { return .pong(payload) }
                case .text(let text):
                    if !discardData { return .text(text) }
                case .binary(let bytes):
                    if !discardData { return .binary(bytes) }
                case .close(let info):
                    completePeerClose(info)
                    return .close(info)
                }
                continue
            }
            let result: StreamReadResult
            do {
                result = try scratch.withMutableBytesThrowingTransportError { buffer throws(TransportError) in try stream.read(into: buffer) }
            } catch {
                finish(error)
                throw error
            }
            switch result {
            case .bytes(let count):
                scratch.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                idleDeadline = .after(options.idleTimeout)
                spinArmed = options.receiveSpin > 0
            case .endOfStream:
                let error = TransportError(.closed, "WebSocket connection closed without a closing handshake (1006)")
                finish(error)
                throw error
            case .wouldBlock:
                if spinArmed {
                    spinArmed = false
                    if spinForInput(until: MonotonicDeadline.after(options.receiveSpin).earlier(deadline)) { continue }
                }
                if waitForInput(until: deadline.earlier(idleDeadline)) { continue }
                if idleDeadline.hasPassed, !deadline.hasPassed {
                    let seconds = options.idleTimeout ?? 0
                    let error = TransportError(.timeout, "WebSocket peer idle for \(seconds) s")
                    fail(error, closeCode: .goingAway, reason: "idle timeout")
                    throw error
                }
                return nil
            }
        }
    }

    /// Polls the socket and the wake-up pipe without sleeping until one is readable (true) or `deadline` passes.
    /// Between polls the core is offered to others (`sched_yield`): on a busy machine the peer this side waits
    /// for may be the one that needs it.
    private func spinForInput(until deadline: MonotonicDeadline) -> Bool {
        var descriptors = [
            POSIXPoll.descriptor(stream.descriptor, POSIXPoll.readable),
            POSIXPoll.descriptor(wakeup.readDescriptor, POSIXPoll.readable),
        ]
        repeat {
            if POSIXPoll.wait(&descriptors, until: .after(0)) { return true }
            sched_yield()
        } while !deadline.hasPassed
        return false
    }

    /// Polls the socket (and for writability while bytes are queued) plus the wake-up pipe. False on timeout.
    private func waitForInput(until deadline: MonotonicDeadline) -> Bool {
        let hasPending = writeLock.withLock { pending.count > pendingStart }
        var descriptors = [
            POSIXPoll.descriptor(stream.descriptor, POSIXPoll.readable | (hasPending ? POSIXPoll.writable : 0)),
            POSIXPoll.descriptor(wakeup.readDescriptor, POSIXPoll.readable),
        ]
        guard POSIXPoll.wait(&descriptors, until: deadline) else { return false }
        if descriptors[1].revents != 0 { wakeup.drain() }
        if descriptors[0].revents & POSIXPoll.writable != 0 {
            // A sender holding the lock is flushing already; otherwise drain the queue here.
            if writeLock.tryLock() {
                defer { writeLock.unlock() }
                do {
                    try flushLocked(allowedPending: Int.max, deadline: .after(0))
                } catch {
                    failWriteLocked(error)
                }
            } else if descriptors[0].revents & POSIXPoll.readableOrClosed == 0 {
                // Avoid spinning on POLLOUT while the sender finishes.
                var idle = [POSIXPoll.descriptor(stream.descriptor, POSIXPoll.readable)]
                _ = POSIXPoll.wait(&idle, until: MonotonicDeadline.after(0.005).earlier(deadline))
            }
        }
        return true
    }

    // MARK: - Sending

    public func send(text: String, fragmentSize: Int? = nil) throws(TransportError) {
        var bytes = Array(text.utf8)
        try sendMessage(.text, &bytes, fragmentSize: fragmentSize ?? options.fragmentSize)
    }

    public func send(binary: [UInt8], fragmentSize: Int? = nil) throws(TransportError) {
        var bytes = binary
        try sendMessage(.binary, &bytes, fragmentSize: fragmentSize ?? options.fragmentSize)
    }

    /// Sends one binary message only if that needs no waiting: no other send holds the connection, it is open, the
    /// message is one frame (within `fragmentSize`), and what is queued stays within `maxPendingOutboundBytes`. What
    /// the socket does not take at once stays queued and is written as it drains (by the reading thread). False when
    /// nothing was sent or queued: use `send`, which waits; a write that fails also returns false (and ends the
    /// connection, as `send` would).
    public func trySend(binary: [UInt8]) -> Bool {
        if let limit = options.fragmentSize, binary.count > limit { return false }
        guard writeLock.tryLock() else { return false }
        defer { writeLock.unlock() }
        guard (try? checkWritableLocked()) != nil,
              pending.count - pendingStart + binary.count + 14 <= options.maxPendingOutboundBytes else { return false }
        binary.withUnsafeBytes { appendFrameLocked(opcode: .binary, fin: true, payload: $0) }
        do {
            try flushLocked(allowedPending: Int.max, deadline: .after(0))
        } catch {
            failWriteLocked(error)
            return false
        }
        if pending.count > pendingStart { wakeup.signal() }
        return true
    }

    public func ping(_ payload: [UInt8] = []) throws(TransportError) {
        guard payload.count <= 125 else { throw TransportError(.invalidArgument, "ping payload is longer than 125 bytes") }
        try sendFrame(.ping, payload)
    }

    /// An unsolicited pong (a unidirectional heartbeat, RFC 6455 §5.5.3).
    public func pong(_ payload: [UInt8] = []) throws(TransportError) {
        guard payload.count <= 125 else { throw TransportError(.invalidArgument, "pong payload is longer than 125 bytes") }
        try sendFrame(.pong, payload)
    }

    /// Blocks until every queued byte has been handed to the socket.
    public func flush(timeout: Double? = nil) throws(TransportError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkWritableLocked()
        do {
            try flushLocked(allowedPending: 0, deadline: .after(timeout ?? options.sendTimeout))
        } catch {
            failWriteLocked(error)
            throw error
        }
    }

    private func sendMessage(_ opcode: WebSocketOpcode, _ payload: inout [UInt8], fragmentSize: Int?) throws(TransportError) {
        let chunk = max(1, fragmentSize ?? Int.max)
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkWritableLocked()
        let deadline = MonotonicDeadline.after(options.sendTimeout)
        do {
            try payload.withBytesThrowingTransportError { bytes throws(TransportError) in
                var offset = 0
                repeat {
                    let end = bytes.count - offset > chunk ? offset + chunk : bytes.count
                    appendFrameLocked(opcode: offset == 0 ? opcode : .continuation, fin: end == bytes.count,
                                      payload: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                    try flushLocked(allowedPending: options.maxPendingOutboundBytes, deadline: deadline)
                } while offset < bytes.count
            }
        } catch {
            failWriteLocked(error)
            throw error
        }
        if pending.count > pendingStart { wakeup.signal() }
    }

    /// Sends one control frame. Pong answers are skipped once our close frame is out (nothing may follow it).
    private func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], skipIfClosing: Bool = false) throws(TransportError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        if skipIfClosing, closeFrameSent { return }
        try checkWritableLocked()
        payload.withUnsafeBytes { appendFrameLocked(opcode: opcode, fin: true, payload: $0) }
        do {
            try flushLocked(allowedPending: options.maxPendingOutboundBytes, deadline: .after(options.sendTimeout))
        } catch {
            failWriteLocked(error)
            throw error
        }
        if pending.count > pendingStart { wakeup.signal() }
    }

    private func checkWritableLocked() throws(TransportError) {
        if let error = stateLock.withLock({ failureState }) { throw error }
        if closeFrameSent { throw TransportError(.closed, "WebSocket is closing; no more messages can be sent") }
        if !stateLock.withLock({ !finishedState }) { throw TransportError(.closed, "WebSocket connection is closed") }
    }

    private func appendFrameLocked(opcode: WebSocketOpcode, fin: Bool, payload: UnsafeRawBufferPointer) {
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
            pendingStart = 0
        }
        let mask: UInt32? = role == .client ? random.next() : nil
        WebSocketFrameEncoder.append(opcode: opcode, fin: fin, payload: payload, mask: mask, to: &pending)
    }

    /// Writes queued bytes until at most `allowedPending` remain; waits for writability until the deadline.
    private func flushLocked(allowedPending: Int, deadline: MonotonicDeadline) throws(TransportError) {
        while pending.count - pendingStart > 0 {
            let written = try pending.withBytesThrowingTransportError { bytes throws(TransportError) in
                try stream.write(UnsafeRawBufferPointer(rebasing: bytes[pendingStart...]))
            }
            if written > 0 {
                pendingStart += written
                continue
            }
            let remaining = pending.count - pendingStart
            if remaining <= allowedPending { break }
            var descriptors = [POSIXPoll.descriptor(stream.descriptor, POSIXPoll.writable)]
            if !POSIXPoll.wait(&descriptors, until: deadline) {
                throw TransportError(
                    .limitExceeded, "WebSocket peer is not reading: \(remaining) bytes still queued after \(options.sendTimeout) s")
            }
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0, descriptors[0].revents & POSIXPoll.writable == 0 {
                throw TransportError(.closed, "WebSocket connection closed while sending")
            }
        }
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
            pendingStart = 0
        } else if pendingStart >= 1 << 20 {
            pending.removeSubrange(0..<pendingStart)
            pendingStart = 0
        }
    }

    /// A write failed: the connection is unusable. Caller holds writeLock.
    private func failWriteLocked(_ error: TransportError) {
        pending = []
        pendingStart = 0
        finish(error)
    }

    // MARK: - Closing

    /// Performs the closing handshake: sends a close frame, waits for the peer's (discarding data messages), then
    /// closes the connection. Returns the peer's close, or nil if it did not answer in time.
    @discardableResult
    public func close(code: WebSocketCloseCode = .normal, reason: String = "", timeout: Double? = nil) throws(TransportError)
        -> WebSocketCloseInfo?
    {
        let deadline = MonotonicDeadline.after(timeout ?? options.closeTimeout)
        try sendClose(code: code, reason: reason)
        let waitUntil = Date(timeIntervalSinceNow: Double(max(0, deadline.pollTimeout)) / 1000)
        guard readLock.lock(before: waitUntil) else {
            finish(nil)
            return peerCloseInfo
        }
        defer { readLock.unlock() }
        while peerCloseInfo == nil, isOpen {
            do {
                if try nextMessage(until: deadline, discardData: true) == nil { break }
            } catch {
                break
            }
        }
        finish(nil)
        return peerCloseInfo
    }

    /// Sends a close frame without waiting for the answer; the reader sees the peer's close as a `.close` message.
    /// Does nothing if a close frame was sent already or the connection is finished.
    public func sendClose(code: WebSocketCloseCode = .normal, reason: String = "") throws(TransportError) {
        guard code.isValidOnWire || code == .noStatusReceived else {
            throw TransportError(.invalidArgument, "close code \(code) may not be sent")
        }
        guard reason.utf8.count <= 123, code != .noStatusReceived || reason.isEmpty else {
            throw TransportError(.invalidArgument, "close reason is longer than 123 bytes or has no code")
        }
        writeLock.lock()
        defer { writeLock.unlock() }
        sendCloseLocked(WebSocketCloseInfo(code: code, reason: reason))
    }

    /// Queues a close frame without waiting for it to leave (server shutdown: one slow peer must not delay the
    /// others); the reader flushes what the socket could not take yet. With a `lockDeadline`, sends nothing if a
    /// sender still holds the write lock then: one stuck on a peer that does not read could hold it for
    /// `sendTimeout`, and the server's abort after the grace period ends that connection anyway.
    func sendCloseWithoutWaiting(code: WebSocketCloseCode, reason: String, lockDeadline: Date? = nil) {
                if let lockDeadline {
            guard writeLock.lock(before: lockDeadline) else { return }
        } else {
            writeLock.lock()
        }
        defer { writeLock.unlock() }
        sendCloseLocked(WebSocketCloseInfo(code: code, reason: reason), wait: false)
    }

    /// Best effort: queue the close frame and (if `wait`) give it up to `closeTimeout` to leave.
    private func sendCloseLocked(_ info: WebSocketCloseInfo, wait: Bool = true) {
        guard !closeFrameSent, stateLock.withLock({ !finishedState && failureState == nil }) else { return }
        announceEnding()
        closeFrameSent = true
        stateLock.withLock { sentCloseState = info }
        let payload = WebSocketFrameEncoder.closePayload(code: info.code, reason: info.reason)
        payload.withUnsafeBytes { appendFrameLocked(opcode: .close, fin: true, payload: $0) }
        do {
            try flushLocked(allowedPending: wait ? 0 : Int.max, deadline: .after(wait ? options.closeTimeout : 0))
        } catch {
            failWriteLocked(error)
        }
        if pending.count > pendingStart { wakeup.signal() }
    }

    /// The peer's close arrived: answer it (echoing the code) unless we started the close, then end the connection.
    /// The server closes TCP first; the client waits briefly for that (RFC 6455 §7.1.1).
    private func completePeerClose(_ info: WebSocketCloseInfo) {
        stateLock.withLock { peerCloseState = info }
        writeLock.withLock { sendCloseLocked(WebSocketCloseInfo(code: info.code)) }
        if role == .client { stream.discardInput(until: .after(options.closeTimeout)) }
        finish(nil)
    }

    /// A protocol or limit violation (or idle timeout): send our close code, then drop the connection.
    private func fail(_ error: TransportError, closeCode: WebSocketCloseCode, reason: String) {
        writeLock.withLock { sendCloseLocked(WebSocketCloseInfo(code: closeCode, reason: reason)) }
        finish(error)
    }

    /// Ends the connection once; `error` (if any) is what later operations report.
    private func finish(_ error: TransportError?) {
        let first = stateLock.withLock { () -> Bool in
            if failureState == nil, let error { failureState = error }
            defer { finishedState = true }
            return !finishedState
        }
        if first {
            announceEnding()
            if role == .server { stream.shutdownWrite() } else { stream.shutdown() }
            wakeup.signal()
        }
    }

    /// Closes the socket without a handshake (server shutdown after the grace period; a bridge dropping a peer
    /// whose queue overflowed). Takes no lock a blocked sender holds, so it also frees a thread stuck in `send`.
    public func abort() {
        finish(TransportError(.cancelled, "WebSocket connection aborted"))
        stream.shutdown()
    }

    /// Drains what the peer still sends until it closes (bounded), so closing our socket does not reset the
    /// connection before the peer has read our last frames.
    func lingerUntilPeerCloses(seconds: Double) {
        readLock.withLock { stream.discardInput(until: .after(seconds)) }
        stream.shutdown()
    }

    private func terminalError() -> TransportError? {
        stateLock.withLock {
            guard finishedState else { return nil }
            if let failureState { return failureState }
            if let peerCloseState { return TransportError(.closed, "WebSocket connection is closed (peer sent \(peerCloseState))") }
            return TransportError(.closed, "WebSocket connection is closed")
        }
    }
}
