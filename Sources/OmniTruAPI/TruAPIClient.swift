import FoundationEssentials
import OmniCodec
import OmniTransport

/// A product's side of a bridge connection for scripts (`omni truapi call|subscribe|replay`): connects to
/// `ws://…/?t=TOKEN`, sends frames, reads the host's frames. The URL's token is a secret: every message this type
/// produces shows the URL with the token replaced by `…`. Host handshakes (`h:N`, `--send-handshake`) are answered
/// as the TS client answers them.
public final class TruAPIClient: @unchecked Sendable {
    private let socket: WebSocketConnection
    private let secret: String?
    private let answersHostHandshakes: Bool
    public let redactedURL: String

    private init(socket: WebSocketConnection, secret: String?, redactedURL: String, answersHostHandshakes: Bool) {
        self.socket = socket
        self.secret = secret
        self.redactedURL = redactedURL
        self.answersHostHandshakes = answersHostHandshakes
    }

    /// The URL with every `t=` value replaced by `…`.
    public static func redact(_ url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return url }
        let pairs = url[url.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            pair.hasPrefix("t=") ? "t=…" : String(pair)
        }
        return String(url[...mark]) + pairs.joined(separator: "&")
    }

    /// The token in a URL (the first `t=` value), to keep it out of messages.
    static func token(in url: String) -> String? {
        guard let mark = url.firstIndex(of: "?") else { return nil }
        return url[url.index(after: mark)...].split(separator: "&").first { $0.hasPrefix("t=") }.map { String($0.dropFirst(2)) }
    }

    /// Connects within `timeout` seconds. 401 is `.unauthorized` (exit 6), another refusal `.callError` (4), a
    /// failed or timed-out connection `.network` (5), a URL that is not ws:// or wss:// `.configuration`.
    /// `answerHostHandshakes` false hands host handshakes to the caller like any frame (a replay sends the recorded answer).
    public static func connect(_ url: String, timeout: Double, origin: String? = nil, answerHostHandshakes: Bool = true) throws(TruAPIError)
        -> TruAPIClient
    {
        var configuration = WebSocketClient.Configuration()
        configuration.connectTimeout = timeout
        configuration.options.maxMessageBytes = TruAPIFrame.maximumBytes
        configuration.options.idleTimeout = nil
        if let origin { configuration.headers = ["Origin": origin] }
        let secret = token(in: url).flatMap { $0.isEmpty ? nil : $0 }
        let shown = redact(url)
        do {
            let socket = try WebSocketClient.connect(url, configuration: configuration)
            return TruAPIClient(socket: socket, secret: secret, redactedURL: shown, answersHostHandshakes: answerHostHandshakes)
        } catch {
            let message = scrub(error.message, secret)
            switch error.kind {
            case .rejected where error.status == 401:
                throw TruAPIError(.unauthorized, "\(shown): the bridge refused the token: \(message)")
            case .rejected:
                throw TruAPIError(.callError, "\(shown): the bridge refused the connection: \(message)")
            case .invalidURL, .invalidArgument:
                throw TruAPIError(.configuration, "\(shown): \(message)")
            default:
                throw TruAPIError(.network, "\(shown): \(message)")
            }
        }
    }

    private static func scrub(_ text: String, _ secret: String?) -> String {
        guard let secret, !secret.isEmpty else { return text }
        return text.replacing(secret, with: "…")
    }

    public func send(_ bytes: [UInt8]) throws(TruAPIError) {
        do { try socket.send(binary: bytes) } catch { throw failure(error) }
    }

    public func send(_ message: TruAPIMessage) throws(TruAPIError) {
        let frame: TruAPIFrame
        do { frame = try message.frame() } catch { throw TruAPIError.malformed(error, "request") }
        try send(frame.bytes)
    }

    /// The next frame from the host, or nil when `deadline` passes first (nil deadline: wait as long as it takes).
    /// Text messages are skipped; a host handshake is answered and not returned.
    public func receive(until deadline: Date?) throws(TruAPIError) -> [UInt8]? {
        while true {
            let remaining = deadline.map { max(0, $0.timeIntervalSinceNow) }
            if let remaining, remaining <= 0 { return nil }
            let message: WebSocketMessage
            do {
                message = try socket.receive(timeout: remaining)
            } catch {
                if error.kind == .timeout { return nil }
                throw failure(error)
            }
            switch message {
            case .binary(let bytes):
                if try answerHostRequest(bytes) { continue }
                return bytes
            case .text, .pong:
                continue
            case .close(let info):
                throw TruAPIError(.network, "\(redactedURL): the bridge closed the connection (\(info))")
            }
        }
    }

    /// Answers `system_handshake` from the host (`h:N`): codec version 1 is SCALE, Ok.
    private func answerHostRequest(_ bytes: [UInt8]) throws(TruAPIError) -> Bool {
        guard answersHostHandshakes, let frame = try? TruAPIFrame.decode(bytes), frame.isHostInitiatedID,
              let (method, kind) = frame.wireEntry, method.name == "system_handshake", kind == .request else { return false }
        try send(TruAPIFrame(requestID: frame.requestID, discriminant: method.responseID, payload: [0, 0]).bytes)
        return true
    }

    /// Sends Close 1000 and waits briefly for the host's.
    public func close() {
        _ = try? socket.close(code: .normal, timeout: 2)
    }

    private func failure(_ error: TransportError) -> TruAPIError {
        if let info = socket.peerCloseInfo {
            return TruAPIError(.network, "\(redactedURL): the bridge closed the connection (\(info))")
        }
        return TruAPIError(.network, "\(redactedURL): \(Self.scrub(error.message, secret))")
    }

    // MARK: - One request

    /// Sends a request and returns the response with the same id, or fails after `timeout` seconds.
    public func call(_ request: TruAPIMessage, timeout: Double) throws(TruAPIError) -> TruAPIMessage {
        try send(request)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while let bytes = try receive(until: deadline) {
            guard let frame = try? TruAPIFrame.decode(bytes), frame.requestID == request.requestID,
                  frame.discriminant == request.method.responseID else { continue }
            do { return try TruAPIMessage.decode(frame, frameBytes: bytes) } catch {
                throw TruAPIError(.malformed, "the bridge answered \(request.method.name) with an undecodable frame: \(error.description)")
            }
        }
        throw TruAPIError(.network, "\(redactedURL): no answer to \(request.method.name) within \(Duration.seconds(timeout).formattedSeconds)")
    }
}

extension Duration {
    /// `10 s`, `1.5 s`.
    var formattedSeconds: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
