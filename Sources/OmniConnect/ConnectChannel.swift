import FoundationEssentials
import OmniCrypto
import OmniTransport

/// A session on a WebSocket: sends frames, answers the peer's pings, keeps the session alive with pings of its
/// own while waiting, and turns the socket's end into a clear error.
final class ConnectChannel {
    let socket: WebSocketConnection
    var session: ConnectSession
    let pingInterval: Double
    private var lastPing = Date()
    /// Receive slices stay short so cancellation (Ctrl-C) and keep-alive pings are handled promptly.
    private let tick = 0.2

    init(socket: WebSocketConnection, session: ConnectSession, pingInterval: Double) {
        self.socket = socket
        self.session = session
        self.pingInterval = pingInterval
    }

    func send(_ frame: ConnectFrame) throws {
        try socket.send(binary: session.encode(frame))
    }

    func send(control: ConnectControl) throws {
        try send(session.frame(control))
    }

    func send(encrypted payload: ConnectPayload) throws {
        try send(try session.encrypt(payload))
    }

    /// The next inbound message that needs the caller's attention. Pings are answered here; our own pings go
    /// out every `pingInterval`. Throws `.timeout` at `deadline` and `.rejected` when the relay closes.
    func next(until deadline: Date, isCancelled: () -> Bool) throws -> ConnectInbound {
        while true {
            if isCancelled() { throw TransportError(.cancelled, "interrupted") }
            let now = Date()
            guard now < deadline else { throw ConnectError(.timeout, "no answer within the time allowed (--timeout)") }
            if now.timeIntervalSince(lastPing) >= pingInterval {
                lastPing = now
                try send(control: .ping(nonce: UInt64.random(in: 1...UInt64.max)))
            }
            let wait = min(tick, deadline.timeIntervalSince(now))
            let message: WebSocketMessage
            do {
                message = try socket.receive(timeout: max(wait, 0.001))
            } catch {
                if error.kind == .timeout { continue }
                throw ConnectError(.rejected, "the connection to the node ended: \(error.message)")
            }
            switch message {
            case .binary(let bytes):
                let inbound = try session.receive(bytes)
                if case .control(.ping(let nonce), false) = inbound {
                    try send(control: .pong(nonce: nonce))
                    continue
                }
                if case .control(.pong, false) = inbound { continue }
                return inbound
            case .text, .pong:
                continue
            case .close(let info):
                throw Self.closedError(info)
            }
        }
    }

    /// Best-effort WebSocket close (1000).
    func close(reason: String = "done") {
        _ = try? socket.close(code: .normal, reason: reason, timeout: 2)
    }

    static func closedError(_ info: WebSocketCloseInfo) -> ConnectError {
        switch info.code.rawValue {
        case 4001: ConnectError(.timeout, "the node closed the session: idle TTL expired (4001 \(info.reason))", code: 4001)
        case 4003: ConnectError(.timeout, "the node closed the connection: heartbeat timeout (4003 \(info.reason))", code: 4003)
        default: ConnectError(.rejected, "the node closed the connection (\(info))", code: Int(info.code.rawValue))
        }
    }

    static func terminated(_ close: ConnectClose) -> ConnectError {
        ConnectError(.rejected, "the node terminated the session: \(close.reason) (\(close.code))", code: Int(close.code))
    }
}
