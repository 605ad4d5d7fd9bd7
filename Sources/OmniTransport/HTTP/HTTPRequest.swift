/// One HTTP request. Settings left nil fall back to the client's `HTTPClient.Configuration`.
public struct HTTPRequest: Sendable {
    /// Any method token (GET, POST, PUT, DELETE, PATCH, HEAD, …), sent as written.
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Sent in order after the ones libcurl adds (Host, User-Agent, Accept); a header given here replaces libcurl's
    /// own of the same name. An empty value is sent as an empty field.
    public var headers: HTTPHeaders
    /// Request body. With a body, `Content-Length` is sent; no `Content-Type` is invented, set one in `headers`.
    public var body: [UInt8]?
    /// A request body streamed from a file as libcurl asks for it (constant memory for any size); excludes `body`.
    public var bodyFile: HTTPBodyFile?
    public var connectTimeout: Duration?
    public var totalTimeout: Duration?
    /// The response body limit in bytes; the transfer is aborted as soon as the body would exceed it.
    public var maxResponseBytes: Int?
    /// Redirects to follow; 0 returns 3xx responses as they are.
    public var maxRedirects: Int?

    public init(
        method: String = "GET",
        url: String,
        headers: HTTPHeaders = [:],
        body: [UInt8]? = nil,
        connectTimeout: Duration? = nil,
        totalTimeout: Duration? = nil,
        maxResponseBytes: Int? = nil,
        maxRedirects: Int? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects
    }
}

/// A file sent as a request body, read in libcurl-sized pieces while the request runs. `size` is sent as
/// `Content-Length` and must be the file's size; `progress` is told the bytes sent so far (on the transfer thread).
public struct HTTPBodyFile: Sendable {
    public let path: String
    public let size: UInt64
    public let progress: (@Sendable (UInt64) -> Void)?

    public init(path: String, size: UInt64, progress: (@Sendable (UInt64) -> Void)? = nil) {
        self.path = path
        self.size = size
        self.progress = progress
    }
}
