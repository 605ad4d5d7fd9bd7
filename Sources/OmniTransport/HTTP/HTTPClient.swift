import Dispatch
import Synchronization

/// An HTTP(S) client over libcurl.
///
/// Each client owns one libcurl multi handle driven by its own thread, so connections (and TLS sessions) are
/// reused across requests, and blocking calls never occupy Swift's cooperative thread pool. Requests run
/// concurrently up to `Configuration.maxConcurrentTransfers`; the rest wait in submission order.
///
/// TLS peer and host-name verification are always on. Proxy settings come from the environment as libcurl
/// reads them (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`; uppercase too except `HTTP_PROXY`).
public final class HTTPClient: Sendable {
    public struct Configuration: Sendable {
        /// Sent as `User-Agent` unless a request sets its own; the CLI passes `omni/<version>`.
        public var userAgent: String
        public var connectTimeout: Duration
        public var totalTimeout: Duration
        /// Response body limit in bytes (default 10 MiB).
        public var maxResponseBytes: Int
        /// Redirects to follow (default 0: a 3xx response is returned as it is).
        public var maxRedirects: Int
        /// A PEM file of extra trusted CA certificates (`--cacert`). It is ADDED to the system trust store that
        /// libcurl loads by default, never substituted for it, so public endpoints keep working.
        public var caCertificatesPath: String?
        public var maxConcurrentTransfers: Int
        /// Receives redacted request/response header lines; nil disables tracing.
        public var logger: HTTPLogger?
        /// Tests only: a CA file that replaces libcurl's default trust store, standing in for "the system store"
        /// so that the extend-not-replace behaviour of `caCertificatesPath` can be checked without real roots.
        var baseTrustStoreOverride: String?

        public init(
            userAgent: String = "omni",
            connectTimeout: Duration = .seconds(10),
            totalTimeout: Duration = .seconds(60),
            maxResponseBytes: Int = 10 * 1024 * 1024,
            maxRedirects: Int = 0,
            caCertificatesPath: String? = nil,
            maxConcurrentTransfers: Int = 8,
            logger: HTTPLogger? = nil
        ) {
            self.userAgent = userAgent
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.maxResponseBytes = maxResponseBytes
            self.maxRedirects = maxRedirects
            self.caCertificatesPath = caCertificatesPath
            self.maxConcurrentTransfers = maxConcurrentTransfers
            self.logger = logger
        }
    }

    public let configuration: Configuration
    private let engine: HTTPTransferEngine

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        engine = HTTPTransferEngine(
            maxConcurrentTransfers: max(1, configuration.maxConcurrentTransfers),
            extraCAFile: configuration.caCertificatesPath,
            baseTrustStoreOverride: configuration.baseTrustStoreOverride
        )
    }

    deinit {
        engine.shutdown()
    }

    /// The runtime libcurl version, e.g. `7.88.1`.
    public static var libcurlVersion: String { Libcurl.version }
    /// libcurl's full self-description, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 … nghttp2/1.52.0`.
    public static var libcurlDescription: String { Libcurl.description }

    /// Performs one request, blocking the calling thread. Any HTTP status is a response; transport failures throw.
    public func perform(
        _ request: HTTPRequest, cancellation: HTTPCancellation? = nil
    ) throws(TransportError) -> HTTPResponse {
        try perform([request], cancellation: cancellation)[0].get()
    }

    /// Performs many requests concurrently (up to `maxConcurrentTransfers` at a time), blocking until all finish.
    /// Results are in request order.
    public func perform(
        _ requests: [HTTPRequest], cancellation: HTTPCancellation? = nil
    ) -> [Result<HTTPResponse, TransportError>] {
        let finished = DispatchSemaphore(value: 0)
        let collector = ResultCollector(count: requests.count) { _ in finished.signal() }
        submit(requests, cancellations: [cancellation].compactMap { $0 }, collector: collector)
        finished.wait()
        return collector.results
    }

    /// Performs one request without blocking a Swift concurrency thread. Task cancellation cancels the transfer.
    public func perform(
        _ request: HTTPRequest, cancellation: HTTPCancellation? = nil
    ) async throws(TransportError) -> HTTPResponse {
        try await perform([request], cancellation: cancellation)[0].get()
    }

    /// The asynchronous batch: concurrent transfers, results in request order. Task cancellation cancels them all.
    public func perform(
        _ requests: [HTTPRequest], cancellation: HTTPCancellation? = nil
    ) async -> [Result<HTTPResponse, TransportError>] {
        let taskCancellation = HTTPCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let collector = ResultCollector(count: requests.count) { continuation.resume(returning: $0) }
                let cancellations = [cancellation, taskCancellation].compactMap { $0 }
                submit(requests, cancellations: cancellations, collector: collector)
            }
        } onCancel: {
            taskCancellation.cancel()
        }
    }

    private func submit(_ requests: [HTTPRequest], cancellations: [HTTPCancellation], collector: ResultCollector) {
        var transfers: [HTTPTransfer] = []
        transfers.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            let finish: @Sendable (Result<HTTPResponse, TransportError>) -> Void = { collector.store($0, at: index) }
            do throws(TransportError) {
                let settings = try HTTPTransferSettings(request, configuration)
                transfers.append(HTTPTransfer(settings, cancellations: cancellations, logger: configuration.logger,
                                              completion: finish))
            } catch {
                finish(.failure(error))
            }
        }
        engine.submit(transfers)
    }
}

/// Gathers results by index from the transfer thread and reports once, when the last one arrives.
private final class ResultCollector: Sendable {
    private struct State {
        var results: [Result<HTTPResponse, TransportError>?]
        var remaining: Int
    }
    private let state: Mutex<State>
    private let onComplete: @Sendable ([Result<HTTPResponse, TransportError>]) -> Void

    init(count: Int, onComplete: @escaping @Sendable ([Result<HTTPResponse, TransportError>]) -> Void) {
        state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count))
        self.onComplete = onComplete
        if count == 0 { onComplete([]) }
    }

    var results: [Result<HTTPResponse, TransportError>] {
        state.withLock { $0.results.compactMap { $0 } }
    }

    func store(_ result: Result<HTTPResponse, TransportError>, at index: Int) {
        let completed: [Result<HTTPResponse, TransportError>]? = state.withLock { state in
            state.results[index] = result
            state.remaining -= 1
            return state.remaining == 0 ? state.results.compactMap { $0 } : nil
        }
        if let completed { onComplete(completed) }
    }
}

/// A request checked and merged with the client defaults, ready to hand to libcurl.
struct HTTPTransferSettings: Sendable {
    let method: String
    let url: String
    let headers: HTTPHeaders
    let body: [UInt8]?
    let bodyFile: HTTPBodyFile?
    let userAgent: String
    let connectTimeoutMilliseconds: Int
    let totalTimeoutMilliseconds: Int
    let maxResponseBytes: Int
    let maxRedirects: Int

    init(_ request: HTTPRequest, _ configuration: HTTPClient.Configuration) throws(TransportError) {
        let url = request.url
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw TransportError(.invalidURL, "unsupported URL (only http:// and https:// are allowed)", url: url)
        }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw TransportError(.invalidURL, "URL contains spaces or control characters", url: url)
        }
        guard Self.isToken(request.method) else {
            throw TransportError(.invalidArgument, "invalid HTTP method \"\(request.method)\"", url: url)
        }
        for header in request.headers {
            guard Self.isToken(header.name) else {
                throw TransportError(.invalidArgument, "invalid request header name \"\(header.name)\"", url: url)
            }
            guard !header.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw TransportError(.invalidArgument,
                                     "request header \"\(header.name)\" has a line break or NUL in its value", url: url)
            }
        }
        guard !configuration.userAgent.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw TransportError(.invalidArgument, "the User-Agent has a line break or NUL in it", url: url)
        }
        if request.body != nil && request.bodyFile != nil {
            throw TransportError(.invalidArgument, "a request has a body or a body file, not both", url: url)
        }
        if request.method.uppercased() == "HEAD" && (request.body != nil || request.bodyFile != nil) {
            throw TransportError(.invalidArgument, "a HEAD request cannot carry a body", url: url)
        }
        let maxResponseBytes = request.maxResponseBytes ?? configuration.maxResponseBytes
        guard maxResponseBytes > 0 else {
            throw TransportError(.invalidArgument, "response size limit must be positive (got \(maxResponseBytes))",
                                 url: url)
        }
        let maxRedirects = request.maxRedirects ?? configuration.maxRedirects
        guard maxRedirects >= 0 else {
            throw TransportError(.invalidArgument, "redirect limit must not be negative (got \(maxRedirects))", url: url)
        }
        method = request.method
        self.url = url
        headers = request.headers
        body = request.body
        bodyFile = request.bodyFile
        userAgent = configuration.userAgent
        connectTimeoutMilliseconds = Self.milliseconds(request.connectTimeout ?? configuration.connectTimeout)
        totalTimeoutMilliseconds = Self.milliseconds(request.totalTimeout ?? configuration.totalTimeout)
        self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects
    }

    /// RFC 9110 `token`: what a method or field name may consist of.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(HTTP1Head.isTokenByte)
    }

    /// libcurl treats 0 as "no timeout"; a timeout is always at least 1 ms and at most a day, so nothing hangs.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let day: Int64 = 86_400
        guard seconds < day else { return Int(day * 1000) }
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int(max(1, total))
    }
}
