import FoundationEssentials
internal import Glibc
internal import CCurl
internal import COmniShims

/// One request's life on a libcurl easy handle: option setup, the C callbacks that stream the response into
/// memory (enforcing the size limit), and the mapping of the outcome to `HTTPResponse` or `TransportError`.
///
/// Between `start` and `finish` only the engine thread touches the mutable state below; the cancellation flags
/// are atomics and may be set from anywhere.
final class HTTPTransfer: @unchecked Sendable {
    /// Response header limits, per response in a redirect chain (libcurl itself caps single lines at 100 KB).
    static let maxHeaderBytes = 256 * 1024
    static let maxHeaderCount = 500
    static let maxUpfrontReservation: UInt64 = 16 * 1024 * 1024

    let settings: HTTPTransferSettings
    private let cancellations: [HTTPCancellation]
    private let logger: HTTPLogger?
    private let completion: @Sendable (Result<HTTPResponse, TransportError>) -> Void

    private var easy: UnsafeMutableRawPointer?
    private var requestHeaderList: UnsafeMutablePointer<curl_slist>?
    private var uploadBuffer: UnsafeMutableRawBufferPointer?
    /// The open body file (`HTTPRequest.bodyFile`) and how much of it was sent.
    private var uploadFile: Int32 = -1
    private var uploadedBytes: UInt64 = 0
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var extraCAFile: String?
    private var isFinished = false

    private var body: [UInt8] = []
    private var responseFields: [HTTPHeader] = []
    private var responseHeaderBytes = 0
    private var responseStatus = 0
    /// Set by a callback that aborts the transfer for exceeding a limit; wins over libcurl's generic error.
    private var limitFailure: TransportError?

    init(
        _ settings: HTTPTransferSettings, cancellations: [HTTPCancellation], logger: HTTPLogger?,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        self.settings = settings
        self.cancellations = cancellations
        self.logger = logger
        self.completion = completion
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        releaseCurlResources()
        errorBuffer.deallocate()
    }

    var isCancelled: Bool { cancellations.contains { $0.isCancelled } }

    // MARK: - Setup

    /// Creates and configures the easy handle. On success the handle belongs to the caller's multi handle until
    /// `finish`.
    func start(trust: HTTPTrustSettings) -> Result<UnsafeMutableRawPointer, TransportError> {
        guard let handle = omni_curl_easy_init() else {
            return .failure(TransportError(.io, Libcurl.unavailableReason ?? "libcurl could not create a transfer handle", url: settings.url))
        }
        easy = handle
        do throws(TransportError) {
            try configure(handle, trust: trust)
            return .success(handle)
        } catch {
            return .failure(error)
        }
    }

    private func configure(_ handle: UnsafeMutableRawPointer, trust: HTTPTrustSettings) throws(TransportError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try setPointer(CURLOPT_ERRORBUFFER, errorBuffer)
        try setString(CURLOPT_URL, settings.url)
        try setString(CURLOPT_PROTOCOLS_STR, "http,https")
        try setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // Signals are not safe in a multithreaded process; the threaded resolver does not need them.
        try setLong(CURLOPT_NOSIGNAL, 1)
        try setString(CURLOPT_USERAGENT, settings.userAgent)
        try setLong(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds)
        try setLong(CURLOPT_TIMEOUT_MS, settings.totalTimeoutMilliseconds)
        try setLong(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try setLong(CURLOPT_SSL_VERIFYPEER, 1)
        try setLong(CURLOPT_SSL_VERIFYHOST, 2)
        try setLong(CURLOPT_FOLLOWLOCATION, settings.maxRedirects > 0 ? 1 : 0)
        try setLong(CURLOPT_MAXREDIRS, settings.maxRedirects)
        // A CONNECT through an HTTPS proxy must not look like the origin's response headers.
        try setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try check(omni_curl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, httpWriteCallback))
        try setPointer(CURLOPT_WRITEDATA, context)
        try check(omni_curl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, httpHeaderCallback))
        try setPointer(CURLOPT_HEADERDATA, context)
        try setLong(CURLOPT_NOPROGRESS, 0)
        try check(omni_curl_easy_setopt_xferinfo_callback(handle, httpProgressCallback))
        try setPointer(CURLOPT_XFERINFODATA, context)
        if logger != nil {
            try setLong(CURLOPT_VERBOSE, 1)
            try check(omni_curl_easy_setopt_debug_callback(handle, httpDebugCallback))
            try setPointer(CURLOPT_DEBUGDATA, context)
        }
        try configureTrust(handle, trust)
        try configureMethodAndBody()
        try configureRequestHeaders()
    }

    private func configureTrust(_ handle: UnsafeMutableRawPointer, _ trust: HTTPTrustSettings) throws(TransportError) {
        if let base = trust.baseTrustStoreOverride {
            try setString(CURLOPT_CAINFO, base)
            try setPointer(CURLOPT_CAPATH, nil)
        }
        guard let path = trust.extraCAFile, let cPath = trust.extraCAFileCString else { return }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw TransportError(.tls, "cannot read the CA certificates file \(path)", url: settings.url)
        }
        extraCAFile = path
        // libcurl may share one cached trust store between handles; the extra CAs must go into a fresh one.
        try setLong(CURLOPT_CA_CACHE_TIMEOUT, 0)
        try check(omni_curl_easy_add_ca_file(handle, cPath))
    }

    private func configureMethodAndBody() throws(TransportError) {
        let method = settings.method
        if method == "HEAD" {
            try setLong(CURLOPT_NOBODY, 1)
            return
        }
        if let file = settings.bodyFile {
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw TransportError(.io, "cannot open \(file.path) to send it: \(String(cString: strerror(errno)))", url: settings.url)
            }
            uploadFile = descriptor
            let context = Unmanaged.passUnretained(self).toOpaque()
            try check(omni_curl_easy_setopt_data_callback(easy, CURLOPT_READFUNCTION, httpReadCallback))
            try setPointer(CURLOPT_READDATA, context)
            try setLong(CURLOPT_POST, 1)
            try setOff(CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(file.size))
            if method != "POST" { try setString(CURLOPT_CUSTOMREQUEST, method) }
        } else if let body = settings.body {
            // libcurl does not copy POSTFIELDS; the copy lives until `finish`. One spare byte keeps the
            // allocation valid for an empty body.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: body.count + 1, alignment: 1)
            uploadBuffer = buffer
            body.withUnsafeBytes { buffer.copyMemory(from: $0) }
            try setOff(CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            try setPointer(CURLOPT_POSTFIELDS, buffer.baseAddress)
            if method != "POST" { try setString(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "POST" {
            try setOff(CURLOPT_POSTFIELDSIZE_LARGE, 0)
            try setPointer(CURLOPT_POSTFIELDS, "")
        } else if method != "GET" {
            try setString(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    private func configureRequestHeaders() throws(TransportError) {
        var lines: [String] = settings.headers.map { header in
            // `Name;` is libcurl's spelling for a field with an empty value (`Name:` would delete the field).
            header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
        }
        // Without these, libcurl would invent `Expect: 100-continue` (a round trip of delay for large bodies) and
        // a form `Content-Type` for every body.
        if !settings.headers.contains(name: "Expect") { lines.append("Expect:") }
        if (settings.body != nil || settings.bodyFile != nil) && !settings.headers.contains(name: "Content-Type") { lines.append("Content-Type:") }
        for line in lines {
            guard let appended = omni_curl_slist_append(requestHeaderList, line) else {
                throw TransportError(.io, "out of memory building request headers", url: settings.url)
            }
            requestHeaderList = appended
        }
        try setPointer(CURLOPT_HTTPHEADER, requestHeaderList)
    }

    private func setLong(_ option: CURLoption, _ value: Int) throws(TransportError) {
        try check(omni_curl_easy_setopt_long(easy, option, value))
    }

    private func setOff(_ option: CURLoption, _ value: curl_off_t) throws(TransportError) {
        try check(omni_curl_easy_setopt_off(easy, option, value))
    }

    private func setPointer(_ option: CURLoption, _ value: UnsafeRawPointer?) throws(TransportError) {
        try check(omni_curl_easy_setopt_pointer(easy, option, value))
    }

    /// libcurl copies string options, so a temporary C string is enough.
    private func setString(_ option: CURLoption, _ value: String) throws(TransportError) {
        try check(value.withCString { omni_curl_easy_setopt_pointer(easy, option, $0) })
    }

    private func check(_ code: CURLcode) throws(TransportError) {
        guard code == CURLE_OK else {
            throw TransportError(.io, "libcurl rejected a transfer option: \(Self.describe(code))", url: settings.url)
        }
    }

    // MARK: - Callbacks (engine thread, inside curl_multi_perform)

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= settings.maxResponseBytes - body.count else {
            limitFailure = TransportError(
                .limitExceeded, "response body exceeds the limit of \(settings.maxResponseBytes) bytes",
                url: settings.url)
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func receiveHeaderLine(_ raw: UnsafeRawBufferPointer) -> Bool {
        responseHeaderBytes += raw.count
        // Strip the line ending as bytes: "\r\n" is a single Character in Swift.
        var length = raw.count
        while length > 0, raw[length - 1] == UInt8(ascii: "\n") || raw[length - 1] == UInt8(ascii: "\r") {
            length -= 1
        }
        let line = Substring(decoding: UnsafeRawBufferPointer(rebasing: raw[..<length]), as: UTF8.self)

        if line.hasPrefix("HTTP/") {
            // A new response (after 1xx or a followed redirect): only the last one is reported.
            responseFields.removeAll(keepingCapacity: true)
            body.removeAll(keepingCapacity: true)
            responseHeaderBytes = raw.count
            responseStatus = Self.statusCode(inStatusLine: line)
            return true
        }
        if line.isEmpty {
            return acceptDeclaredLength()
        }
        guard responseHeaderBytes <= Self.maxHeaderBytes, responseFields.count < Self.maxHeaderCount else {
            limitFailure = TransportError(
                .limitExceeded,
                "response headers exceed \(Self.maxHeaderCount) fields or \(Self.maxHeaderBytes) bytes",
                url: settings.url)
            return false
        }
        // Bytes, not Characters: a combining mark after the colon would hide it from firstIndex(of: ":").
        let bytes = line.utf8
        if let first = bytes.first, first == 0x20 || first == 0x09, !responseFields.isEmpty {
            // Obsolete line folding (RFC 9112 §5.2): the line continues the previous value.
            responseFields[responseFields.count - 1].value += " " + HTTP1Head.trimWhitespace(line)
        } else if let colon = bytes.firstIndex(of: 0x3A) {
            responseFields.append(HTTPHeader(name: String(Substring(bytes[..<colon])),
                                             value: HTTP1Head.trimWhitespace(Substring(bytes[bytes.index(after: colon)...]))))
        }
        return true
    }

    /// At the end of a response's header block: refuse a body whose Content-Length is already over the limit,
    /// before reading any of it.
    private func acceptDeclaredLength() -> Bool {
        let status = responseStatus
        let isRedirectToFollow = settings.maxRedirects > 0 && (300..<400).contains(status)
            && responseFields.contains { HTTP1Head.equalsIgnoringCase($0.name, "Location") }
        if (100..<200).contains(status) || isRedirectToFollow || settings.method == "HEAD"
            || status == 204 || status == 304 {
            return true
        }
        guard let field = responseFields.last(where: { HTTP1Head.equalsIgnoringCase($0.name, "Content-Length") }),
              let declared = UInt64(field.value)
        else { return true }
        guard declared <= UInt64(settings.maxResponseBytes) else {
            limitFailure = TransportError(
                .limitExceeded,
                "response body of \(declared) bytes (Content-Length) exceeds the limit of "
                    + "\(settings.maxResponseBytes) bytes",
                url: settings.url)
            return false
        }
        // Trust the declared length only so far: a large limit must not let a server make us pre-allocate it all.
        body.reserveCapacity(Int(min(declared, Self.maxUpfrontReservation)))
        return true
    }

    fileprivate func log(_ type: curl_infotype, _ raw: UnsafeRawBufferPointer) {
        guard let logger else { return }
        let prefix: String
        switch type {
        case CURLINFO_TEXT: prefix = "* "
        case CURLINFO_HEADER_OUT: prefix = "> "
        case CURLINFO_HEADER_IN: prefix = "< "
        default: return
        }
        // "\r\n" is one Character in Swift, so split on all three line-ending spellings.
        let text = String(decoding: raw, as: UTF8.self)
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            logger(prefix + HTTPLogRedaction.redact(line: String(line)))
        }
    }

    private static func statusCode(inStatusLine line: Substring) -> Int {
        guard let space = line.firstIndex(of: " ") else { return 0 }
        return Int(line[line.index(after: space)...].prefix(3)) ?? 0
    }

    // MARK: - Completion

    /// Reports libcurl's outcome for this transfer (already removed from the multi handle).
    func finish(_ code: CURLcode) {
        complete(code == CURLE_OK ? .success(response()) : .failure(error(for: code)))
    }

    func finish(_ error: TransportError) {
        complete(.failure(error))
    }

    private func complete(_ result: Result<HTTPResponse, TransportError>) {
        guard !isFinished else { return }
        isFinished = true
        releaseCurlResources()
        completion(result)
    }

    private func releaseCurlResources() {
        if let easy { omni_curl_easy_cleanup(easy) }
        easy = nil
        omni_curl_slist_free_all(requestHeaderList)
        requestHeaderList = nil
        uploadBuffer?.deallocate()
        uploadBuffer = nil
        if uploadFile >= 0 { close(uploadFile) }
        uploadFile = -1
    }

    /// The next piece of the body file into libcurl's buffer: its length, 0 at the end, abort on a read error or a
    /// file that ends before its announced size.
    fileprivate func sendBodyPiece(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard uploadFile >= 0, let base = buffer.baseAddress, let file = settings.bodyFile else { return Int(CURL_READFUNC_ABORT) }
        if isCancelled { return Int(CURL_READFUNC_ABORT) }
        while true {
            let count = read(uploadFile, base, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                limitFailure = TransportError(.io, "reading \(file.path) while sending it: \(String(cString: strerror(errno)))", url: settings.url)
                return Int(CURL_READFUNC_ABORT)
            }
            if count == 0 && uploadedBytes < file.size {
                limitFailure = TransportError(.io, "\(file.path) ended after \(uploadedBytes) of \(file.size) bytes while sending it", url: settings.url)
                return Int(CURL_READFUNC_ABORT)
            }
            uploadedBytes += UInt64(count)
            file.progress?(uploadedBytes)
            return count
        }
    }

    private func response() -> HTTPResponse {
        var status = 0, versionCode = 0, redirects = 0
        var totalMicroseconds: curl_off_t = 0
        var effectiveURL: UnsafePointer<CChar>?
        omni_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        omni_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &versionCode)
        omni_curl_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &redirects)
        omni_curl_easy_getinfo_off(easy, CURLINFO_TOTAL_TIME_T, &totalMicroseconds)
        omni_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effectiveURL)
        let version: HTTPVersion
        switch versionCode {
        case Int(CURL_HTTP_VERSION_1_0): version = .http1_0
        case Int(CURL_HTTP_VERSION_1_1): version = .http1_1
        case Int(CURL_HTTP_VERSION_2_0): version = .http2
        case Int(CURL_HTTP_VERSION_3): version = .http3
        default: version = .unknown
        }
        return HTTPResponse(
            status: status, version: version, headers: HTTPHeaders(responseFields), body: body,
            effectiveURL: effectiveURL.map { String(cString: $0) } ?? settings.url,
            redirectCount: redirects, totalSeconds: Double(totalMicroseconds) / 1_000_000)
    }

    /// Maps a libcurl failure to the transport error kind, keeping libcurl's own explanation.
    private func error(for code: CURLcode) -> TransportError {
        if let limitFailure { return limitFailure }
        let url = settings.url
        let detail = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : Self.describe(code)
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return TransportError(.invalidURL, "invalid URL: \(detail)", url: url)
        case CURLE_COULDNT_RESOLVE_HOST:
            return TransportError(.dns, "DNS lookup failed: \(detail)", url: url)
        case CURLE_COULDNT_RESOLVE_PROXY:
            return TransportError(.dns, "DNS lookup of the proxy failed: \(detail)", url: url)
        case CURLE_COULDNT_CONNECT:
            return TransportError(.connect, "connection failed: \(detail)", url: url)
        case CURLE_PROXY:
            return TransportError(.connect, "proxy handshake failed: \(detail)", url: url)
        case CURLE_OPERATION_TIMEDOUT:
            return timeoutError(detail)
        case CURLE_PEER_FAILED_VERIFICATION:
            return TransportError(.tls, "TLS certificate verification failed: \(detail)", url: url)
        case CURLE_SSL_CACERT_BADFILE:
            let file = extraCAFile.map { " (check \($0))" } ?? ""
            return TransportError(.tls, "could not load CA certificates\(file): \(detail)", url: url)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT:
            return TransportError(.tls, "TLS handshake failed: \(detail)", url: url)
        case CURLE_FILESIZE_EXCEEDED:
            return TransportError(
                .limitExceeded, "response body exceeds the limit of \(settings.maxResponseBytes) bytes", url: url)
        case CURLE_TOO_MANY_REDIRECTS:
            return TransportError(
                .limitExceeded, "more than \(settings.maxRedirects) redirects: \(detail)", url: url)
        case CURLE_ABORTED_BY_CALLBACK:
            return TransportError(.cancelled, "request cancelled", url: url)
        case CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return TransportError(.closed, "connection closed early: \(detail)", url: url)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_BAD_CONTENT_ENCODING:
            return TransportError(.protocolViolation, "invalid HTTP response: \(detail)", url: url)
        default:
            return TransportError(.io, "HTTP transfer failed: \(detail)", url: url)
        }
    }

    /// Says which phase ran out of time: libcurl's own wording differs between versions and code paths.
    private func timeoutError(_ detail: String) -> TransportError {
        var connectMicroseconds: curl_off_t = 0, tlsMicroseconds: curl_off_t = 0
        omni_curl_easy_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
        omni_curl_easy_getinfo_off(easy, CURLINFO_APPCONNECT_TIME_T, &tlsMicroseconds)
        let needsTLS = settings.url.lowercased().hasPrefix("https://")
        let connected = connectMicroseconds > 0 && (!needsTLS || tlsMicroseconds > 0)
        if connected {
            return TransportError(
                .timeout,
                "timed out waiting for the response (total limit \(settings.totalTimeoutMilliseconds) ms): \(detail)",
                url: settings.url)
        }
        let limit = min(settings.connectTimeoutMilliseconds, settings.totalTimeoutMilliseconds)
        return TransportError(.timeout, "timed out connecting (limit \(limit) ms): \(detail)", url: settings.url)
    }

    static func describe(_ code: CURLcode) -> String {
        omni_curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }
}

// C entry points. `userdata` is the unretained HTTPTransfer, kept alive by the engine while the handle runs.

private let httpWriteCallback: omni_curl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let (length, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return 0 }
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let httpHeaderCallback: omni_curl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let (length, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return 0 }
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let httpReadCallback: omni_curl_data_callback = { data, size, count, userdata in
    guard let userdata, let data else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<HTTPTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let (length, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return Int(CURL_READFUNC_ABORT) }
    return transfer.sendBodyPiece(UnsafeMutableRawBufferPointer(start: data, count: length))
}

/// Returning non-zero makes libcurl abort with CURLE_ABORTED_BY_CALLBACK.
private let httpProgressCallback: omni_curl_xferinfo_callback = { userdata, _, _, _, _ in
    guard let userdata else { return 0 }
    return Unmanaged<HTTPTransfer>.fromOpaque(userdata).takeUnretainedValue().isCancelled ? 1 : 0
}

private let httpDebugCallback: omni_curl_debug_callback = { _, type, data, size, userdata in
    guard let userdata else { return 0 }
    Unmanaged<HTTPTransfer>.fromOpaque(userdata).takeUnretainedValue()
        .log(type, UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
