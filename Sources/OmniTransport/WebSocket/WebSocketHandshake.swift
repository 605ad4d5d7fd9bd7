import OmniCodec
import OmniCrypto

/// The opening handshake of RFC 6455 §4: key and accept values, the client's upgrade request and the checks on
/// the server's answer.
public enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64(SHA-1(key ‖ GUID)).
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(Insecure.SHA1.hash(Array((key + guid).utf8)))
    }

    /// A fresh `Sec-WebSocket-Key`: 16 random bytes, base64.
    public static func makeKey() -> String {
        Base64.encode(SecureRandom.bytes(16))
    }

    /// True if `key` is base64 of exactly 16 bytes, as servers must check. Like other servers, the unused bits
    /// of the last symbol are not checked.
    public static func isValidKey(_ key: String) -> Bool {
        key.utf8.count == 24 && (try? Base64.decode(key, padding: .required, strict: false))?.count == 16
    }

    /// Subprotocol names are tokens (RFC 6455 §4.1).
    static func isValidSubprotocol(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTP1Head.isTokenByte)
    }

    /// The client's upgrade request.
    static func request(
        url: WebSocketURL, key: String, subprotocols: [String], headers: HTTPHeaderFields
    ) throws(TransportError) -> [UInt8] {
        for name in subprotocols where !isValidSubprotocol(name) {
            throw TransportError(.invalidArgument, "subprotocol \"\(name)\" is not a valid token", url: url.text)
        }
        var text = "GET \(url.requestTarget) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUpgrade: websocket\r\n"
        text += "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !subprotocols.isEmpty { text += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n" }
        let reserved = ["host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
                        "sec-websocket-protocol", "sec-websocket-extensions", "content-length", "transfer-encoding"]
        for (name, value) in headers {
            guard HTTPHeaderFields.isValidField(name: name, value: value) else {
                throw TransportError(.invalidArgument, "request header \"\(name)\" has an invalid name or value", url: url.text)
            }
            guard !reserved.contains(name.lowercased()) else {
                throw TransportError(.invalidArgument, "request header \"\(name)\" is set by the WebSocket handshake", url: url.text)
            }
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Checks a complete response head to the upgrade request; returns the selected subprotocol.
    /// A status other than 101 is `.rejected` with that status; anything else wrong is `.protocolViolation`.
    public static func validateResponse(
        _ head: HTTP1Head, key: String, offeredSubprotocols: [String], url: String, body: String = ""
    ) throws(TransportError) -> String? {
        guard let status = Int(head.startLine.1) else {
            throw TransportError(.protocolViolation, "malformed status in the upgrade response", url: url)
        }
        guard status == 101 else {
            var message = "WebSocket upgrade refused: \(status) \(head.startLine.2)"
            if !body.isEmpty { message += ": \(body)" }
            throw TransportError(.rejected, message, url: url, status: status)
        }
        let headers = head.headers
        guard headers.tokens("Upgrade").contains("websocket") else {
            throw TransportError(.protocolViolation, "upgrade response lacks \"Upgrade: websocket\"", url: url, status: status)
        }
        guard headers.tokens("Connection").contains("upgrade") else {
            throw TransportError(.protocolViolation, "upgrade response lacks \"Connection: Upgrade\"", url: url, status: status)
        }
        let accept = headers.values("Sec-WebSocket-Accept")
        guard accept.count == 1, accept[0] == acceptValue(forKey: key) else {
            throw TransportError(.protocolViolation, "upgrade response has a wrong Sec-WebSocket-Accept", url: url, status: status)
        }
        if !headers.values("Sec-WebSocket-Extensions").allSatisfy({ HTTP1Head.trimWhitespace($0).isEmpty }) {
            throw TransportError(.protocolViolation, "server enabled extensions that were not requested", url: url, status: status)
        }
        let protocols = headers.values("Sec-WebSocket-Protocol").map { HTTP1Head.trimWhitespace($0) }
        switch protocols.count {
        case 0: return nil
        case 1 where offeredSubprotocols.contains(protocols[0]): return protocols[0]
        default:
            throw TransportError(
                .protocolViolation, "server selected subprotocol \"\(protocols.joined(separator: ", "))\" that was not offered",
                url: url, status: status)
        }
    }
}

/// A parsed `ws://` or `wss://` URL.
struct WebSocketURL: Sendable {
    let text: String
    let secure: Bool
    /// Host as written in the URL (IPv6 literals keep their brackets).
    let host: String
    let port: Int
    /// Path and query, at least "/".
    let requestTarget: String

    /// The Host header: the default port is omitted.
    var hostHeader: String { port == (secure ? 443 : 80) ? host : "\(host):\(port)" }

    /// The URL libcurl connects to (it only opens the TCP/TLS connection).
    var transportURL: String { "\(secure ? "https" : "http")://\(host):\(port)/" }

    init(_ text: String) throws(TransportError) {
        self.text = text
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("ws://") {
            secure = false
            rest = text.dropFirst(5)
        } else if lower.hasPrefix("wss://") {
            secure = true
            rest = text.dropFirst(6)
        } else {
            throw TransportError(.invalidURL, "WebSocket URL must start with ws:// or wss://", url: text)
        }
        guard !text.contains("#") else { throw TransportError(.invalidURL, "WebSocket URL must not have a fragment", url: text) }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw TransportError(.invalidURL, "WebSocket URL contains spaces, control or non-ASCII characters", url: text)
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[rest.startIndex..<authorityEnd]
        guard !authority.contains("@") else {
            throw TransportError(.invalidURL, "credentials in a WebSocket URL are not supported; use a header", url: text)
        }
        var target = String(rest[authorityEnd...])
        if target.hasPrefix("?") { target = "/" + target }
        requestTarget = target.isEmpty ? "/" : target
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw TransportError(.invalidURL, "unterminated IPv6 literal", url: text) }
            host = String(authority[...close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw TransportError(.invalidURL, "garbage after IPv6 literal", url: text) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, host != "[]" else { throw TransportError(.invalidURL, "WebSocket URL has no host", url: text) }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw TransportError(.invalidURL, "invalid port \"\(portText)\"", url: text)
            }
            self.port = port
        } else {
            port = secure ? 443 : 80
        }
    }
}
