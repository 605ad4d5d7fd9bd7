/// The HTTP version a response was received with.
public enum HTTPVersion: String, Sendable {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http3 = "HTTP/3"
    case unknown
}

/// A complete response. Any status code is a response, not an error: callers decide what 4xx/5xx mean.
public struct HTTPResponse: Sendable {
    public let status: Int
    public let version: HTTPVersion
    /// The headers of the final response (after any followed redirects), in received order.
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// The URL that produced this response, after redirects.
    public let effectiveURL: String
    public let redirectCount: Int
    /// Wall time of the whole transfer, for verbose output.
    public let totalSeconds: Double

    public init(
        status: Int, version: HTTPVersion, headers: HTTPHeaders, body: [UInt8], effectiveURL: String,
        redirectCount: Int, totalSeconds: Double
    ) {
        self.status = status
        self.version = version
        self.headers = headers
        self.body = body
        self.effectiveURL = effectiveURL
        self.redirectCount = redirectCount
        self.totalSeconds = totalSeconds
    }
}
