/// The one error type of the transport layer (HTTP client, WebSocket client and server).
///
/// `kind` is what the CLI maps to an exit code (network/timeout → 5, rejected → 4, …); `message` names the cause
/// in words a user can act on, and `url` says which endpoint was involved.
public struct TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The URL could not be parsed or uses an unsupported scheme.
        case invalidURL = "invalid_url"
        /// The caller asked for something that cannot be done (an invalid method, header, User-Agent, limit, ping
        /// or close payload, or listening address); nothing was sent.
        case invalidArgument = "invalid_argument"
        /// Host name resolution failed.
        case dns
        /// TCP connection refused, unreachable or reset while connecting.
        case connect
        /// TLS handshake or certificate verification failed.
        case tls
        /// A connect, total, or idle timeout expired.
        case timeout
        /// The peer sent more than the configured limit (response body, frame or message size).
        case limitExceeded = "limit_exceeded"
        /// The peer violated the protocol (bad HTTP, bad WebSocket handshake or frame).
        case protocolViolation = "protocol_violation"
        /// The peer refused the request (e.g. a WebSocket upgrade answered with 401/403/404).
        case rejected
        /// The connection was closed (cleanly or not) while an operation was pending.
        case closed
        /// The operation was cancelled locally (interrupt, shutdown).
        case cancelled
        /// A local I/O or system-call failure (socket, bind, read, write).
        case io
    }

    public let kind: Kind
    public let message: String
    public let url: String?
    /// HTTP status when the failure came with one (e.g. a refused WebSocket upgrade).
    public let status: Int?

    public init(_ kind: Kind, _ message: String, url: String? = nil, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.url = url
        self.status = status
    }

    public var description: String {
        var text = message
        if let status { text += " (HTTP \(status))" }
        if let url { text += " [\(url)]" }
        return text
    }
}
