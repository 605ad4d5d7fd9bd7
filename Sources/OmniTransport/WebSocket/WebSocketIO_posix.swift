import Dispatch
internal import Glibc

/// Result of one non-blocking read.
enum StreamReadResult {
    case bytes(Int)
    case wouldBlock
    case endOfStream
}

/// A non-blocking byte pipe under a WebSocket: a plain socket (server) or a libcurl connection (client, maybe TLS).
/// `descriptor` is polled for readiness; reads are always tried before polling, so data buffered above the
/// socket (TLS records) is never missed.
protocol WebSocketByteStream: AnyObject, Sendable {
    var descriptor: Int32 { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> StreamReadResult
    /// Bytes accepted, 0 when the stream would block.
    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int
    /// Sends FIN after queued data; reads still work.
    func shutdownWrite()
    /// Ends both directions, waking any thread blocked in poll on the descriptor. The descriptor stays valid
    /// until the stream is deinitialised, so no other thread can poll a recycled descriptor.
    func shutdown()
}

extension WebSocketByteStream {
    /// Writes all of `bytes`, waiting for the socket to take more until `deadline`; throws `.timeout` then.
    func writeAll(_ bytes: [UInt8], until deadline: MonotonicDeadline) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            let written = try bytes.withBytesThrowingTransportError { raw throws(TransportError) in
                try write(UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            offset += written
            if written == 0 {
                var descriptors = [POSIXPoll.descriptor(descriptor, POSIXPoll.writable)]
                guard POSIXPoll.wait(&descriptors, until: deadline) else {
                    throw TransportError(.timeout, "timed out with \(bytes.count - offset) bytes not sent")
                }
            }
        }
    }

    /// Reads and drops whatever arrives until the peer closes, reading fails, or `deadline` passes; used before
    /// closing, so unread bytes do not turn the close into a reset that destroys what we sent last.
    func discardInput(until deadline: MonotonicDeadline) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = try? scratch.withMutableBytesThrowingTransportError { raw throws(TransportError) in try read(into: raw) }
            switch result {
            case .bytes?: continue
            case .wouldBlock?:
                var descriptors = [POSIXPoll.descriptor(descriptor, POSIXPoll.readable)]
                if !POSIXPoll.wait(&descriptors, until: deadline) { return }
            case .endOfStream?, nil: return
            }
        }
    }
}

/// A point in monotonic time, or never.
struct MonotonicDeadline {
    let nanoseconds: UInt64?

    static let never = MonotonicDeadline(nanoseconds: nil)

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// nil seconds means no deadline; negative counts as zero.
    static func after(_ seconds: Double?) -> MonotonicDeadline {
        guard let seconds, seconds.isFinite else { return .never }
        let delta = seconds <= 0 ? 0 : UInt64(min(seconds, 1e9) * 1e9)
        return MonotonicDeadline(nanoseconds: now() &+ delta)
    }

    var hasPassed: Bool {
        guard let nanoseconds else { return false }
        return MonotonicDeadline.now() >= nanoseconds
    }

    /// The earlier of two deadlines.
    func earlier(_ other: MonotonicDeadline) -> MonotonicDeadline {
        switch (nanoseconds, other.nanoseconds) {
        case (nil, _): return other
        case (_, nil): return self
        case let (lhs?, rhs?): return lhs <= rhs ? self : other
        }
    }

    /// Milliseconds for poll(): -1 forever, 0 when passed, rounded up otherwise.
    var pollTimeout: Int32 {
        guard let nanoseconds else { return -1 }
        let now = MonotonicDeadline.now()
        guard nanoseconds > now else { return 0 }
        return Int32(min((nanoseconds - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }
}

enum POSIXPoll {
    static let readable = Int16(POLLIN)
    static let writable = Int16(POLLOUT)
    /// Bits that mean "look at the descriptor now": data, hang-up or error.
    static let readableOrClosed = Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL)

    /// Waits until one of `descriptors` is ready or the deadline passes; retries after EINTR.
    /// Returns false on timeout.
    static func wait(_ descriptors: inout [pollfd], until deadline: MonotonicDeadline) -> Bool {
        while true {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            let result = poll(&descriptors, nfds_t(descriptors.count), deadline.pollTimeout)
            if result > 0 { return true }
            if result == 0 { return false }
            if errno != EINTR { return false }
        }
    }

    static func descriptor(_ fd: Int32, _ events: Int16) -> pollfd {
        pollfd(fd: fd, events: events, revents: 0)
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD)
        if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// A self-pipe (a socket pair) that lets one thread wake another blocked in poll(). Signalling is a single
/// non-blocking write(), so it is async-signal-safe.
final class WebSocketWakeup: @unchecked Sendable {
    let readDescriptor: Int32
    let writeDescriptor: Int32

    init() throws(TransportError) {
        var pair: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            throw TransportError(.io, "socketpair failed: \(POSIXPoll.errorText(errno))")
        }
        readDescriptor = pair[0]
        writeDescriptor = pair[1]
    }

    func signal() {
        var byte: UInt8 = 1
        _ = Glibc.send(writeDescriptor, &byte, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
    }

    func drain() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while recv(readDescriptor, &scratch, scratch.count, Int32(MSG_DONTWAIT)) > 0 {}
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }
}

/// A connected, non-blocking TCP socket owned by the server.
final class WebSocketSocketStream: WebSocketByteStream, @unchecked Sendable {
    let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> StreamReadResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ECONNRESET, ENOTCONN, EPIPE: return .endOfStream
            case let code: throw TransportError(.io, "recv failed: \(POSIXPoll.errorText(code))")
            }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        while true {
            let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            case EPIPE, ECONNRESET, ENOTCONN: throw TransportError(.closed, "connection reset by peer")
            case let code: throw TransportError(.io, "send failed: \(POSIXPoll.errorText(code))")
            }
        }
    }

    // glibc's SHUT_* constants come from an anonymous enum that Clang may attribute to whichever module included
    // <sys/socket.h> first (CCurl here), hiding them from this file; the values are fixed by Linux's ABI.
    func shutdownWrite() { _ = Glibc.shutdown(descriptor, 1 /* SHUT_WR */) }

    func shutdown() { _ = Glibc.shutdown(descriptor, 2 /* SHUT_RDWR */) }

    deinit { close(descriptor) }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for bodies with typed throws (the standard one only rethrows untyped errors).
    func withBytesThrowingTransportError<R>(_ body: (UnsafeRawBufferPointer) throws(TransportError) -> R) throws(TransportError) -> R {
        let result: Result<R, TransportError> = withUnsafeBytes { bytes in
            do throws(TransportError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    mutating func withMutableBytesThrowingTransportError<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws(TransportError) -> R
    ) throws(TransportError) -> R {
        let result: Result<R, TransportError> = withUnsafeMutableBytes { bytes in
            do throws(TransportError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
