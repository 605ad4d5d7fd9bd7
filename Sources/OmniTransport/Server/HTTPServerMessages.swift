/// A request received by `HTTPServer` (head and complete body).
public struct HTTPServerRequest: Sendable {
    public let method: String
    /// The request-target exactly as sent, e.g. `/ws?t=abc`.
    public let target: String
    /// The target up to `?` (not percent-decoded).
    public let path: String
    /// The target after `?`, if any (not percent-decoded).
    public let query: String?
    /// `HTTP/1.1` or `HTTP/1.0`.
    public let version: String
    public let headers: HTTPHeaderFields
    public let body: [UInt8]
    /// The peer as `address:port` (`[address]:port` for IPv6).
    public let remoteAddress: String

    public init(
        method: String, target: String, version: String = "HTTP/1.1", headers: HTTPHeaderFields = [:], body: [UInt8] = [],
        remoteAddress: String = ""
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
    }

    /// Query pairs split on `&` and then on the first `=`, without percent-decoding (a token gate compares the
    /// raw bytes). A pair without `=` has an empty value.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (name: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...]))
            }
            return (name: String(pair), value: "")
        }
    }

    /// The first value of query parameter `name`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A response produced by a route handler or a WebSocket gate. `Content-Length` and `Connection` are set by
/// the server; handler values for them are ignored.
public struct HTTPServerResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaderFields
    public var body: [UInt8]

    public init(status: Int = 200, headers: HTTPHeaderFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// An `application/json` response from already serialised JSON.
    public static func json(_ json: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(json.utf8))
    }

    /// The standard reason phrase for the status codes this server uses or handlers commonly return.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 426: return "Upgrade Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }

    /// Serialises status line, headers and (unless `headOnly`) body.
    func serialized(closeConnection: Bool, headOnly: Bool) -> [UInt8] {
        let hasNoBody = (100..<200).contains(status) || status == 204 || status == 304
        var text = "HTTP/1.1 \(status) \(HTTPServerResponse.reasonPhrase(status))\r\n"
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower == "content-length" || lower == "connection" || lower == "transfer-encoding" { continue }
            text += "\(name): \(value)\r\n"
        }
        if !hasNoBody { text += "Content-Length: \(body.count)\r\n" }
        if closeConnection { text += "Connection: close\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if !headOnly, !hasNoBody { bytes += body }
        return bytes
    }

    /// True if every header can be written without enabling header injection.
    var hasValidHeaders: Bool {
        (100...999).contains(status) && headers.allSatisfy { HTTPHeaderFields.isValidField(name: $0.name, value: $0.value) }
    }
}
