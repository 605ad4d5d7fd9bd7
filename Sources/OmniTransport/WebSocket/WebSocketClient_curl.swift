import FoundationEssentials
import OmniCodec
internal import CCurl
internal import COmniShims
internal import Glibc
internal import OmniSystem

/// Opens RFC 6455 client connections to `ws://` and `wss://` URLs.
///
/// libcurl 7.88 here has no WebSocket support, so libcurl only opens the TCP (and TLS, always verified) connection
/// (`CURLOPT_CONNECT_ONLY`); the upgrade request, response checks and framing are ours.
public enum WebSocketClient {
    public struct Configuration: Sendable {
        /// Extra request headers, e.g. `Authorization: Bearer …`.
        public var headers: HTTPHeaderFields = [:]
        /// Offered subprotocols, in order of preference.
        public var subprotocols: [String] = []
        /// Seconds for DNS, TCP, TLS and the upgrade exchange together.
        public var connectTimeout: Double = 10
        /// PEM file with CA certificates trusted in addition to the system store (wss:// only).
        public var extraCACertificatePath: String?
        /// Largest upgrade response head accepted.
        public var maxHandshakeBytes = 16 << 10
        public var options = WebSocketConnection.Options()

        public init() {}
    }

    /// Connects and performs the opening handshake. A refused upgrade (any status but 101) throws
    /// `.rejected` with `status` set, so a 401 from a token gate is distinguishable.
    public static func connect(_ urlText: String, configuration: Configuration = Configuration()) throws(TransportError)
        -> WebSocketConnection
    {
        let url = try WebSocketURL(urlText)
        let deadline = MonotonicDeadline.after(configuration.connectTimeout)
        let key = WebSocketHandshake.makeKey()
        let request = try WebSocketHandshake.request(
            url: url, key: key, subprotocols: configuration.subprotocols, headers: configuration.headers)
        let stream = try WebSocketCurlStream.open(url: url, configuration: configuration)
        do {
            try stream.writeAll(request, until: deadline)
        } catch {
            throw error.kind == .timeout ? TransportError(.timeout, "timed out sending the upgrade request", url: urlText) : error
        }

        var buffer: [UInt8] = []
        var scanFrom = 0
        var headEnd: Int?
        while headEnd == nil {
            try readMore(into: &buffer, from: stream, until: deadline, url: urlText, what: "upgrade response")
            headEnd = HTTP1Head.findEnd(in: buffer, start: 0, scanFrom: scanFrom)
            scanFrom = max(0, buffer.count - 3)
            if headEnd == nil, buffer.count > configuration.maxHandshakeBytes {
                throw TransportError(.limitExceeded, "upgrade response head exceeds \(configuration.maxHandshakeBytes) bytes", url: urlText)
            }
        }
        guard let end = headEnd, end <= configuration.maxHandshakeBytes else {
            throw TransportError(.limitExceeded, "upgrade response head exceeds \(configuration.maxHandshakeBytes) bytes", url: urlText)
        }
        let head: HTTP1Head
        do {
            head = try HTTP1Head.parse(buffer[..<end], isRequest: false, maxHeaderCount: 100)
        } catch {
            throw TransportError(.protocolViolation, "invalid upgrade response: \(error.message)", url: urlText)
        }
        var body = ""
        if head.startLine.1 != "101" {
            body = refusalBody(head: head, buffer: &buffer, bodyStart: end, stream: stream, deadline: deadline, url: urlText)
        }
        let subprotocol = try WebSocketHandshake.validateResponse(
            head, key: key, offeredSubprotocols: configuration.subprotocols, url: urlText, body: body)
        return try WebSocketConnection(
            stream: stream, role: .client, options: configuration.options, subprotocol: subprotocol,
            handshakeHeaders: head.headers, bufferedBytes: buffer[end...])
    }

    /// Up to 4 KiB of a refusal's body (e.g. "invalid token"), read within a short time; best effort.
    private static func refusalBody(
        head: HTTP1Head, buffer: inout [UInt8], bodyStart: Int, stream: WebSocketCurlStream, deadline: MonotonicDeadline, url: String
    ) -> String {
        guard let length = head.headers["Content-Length"].flatMap({ Int($0) }), length > 0 else { return "" }
        let wanted = min(length, 4096)
        let bodyDeadline = deadline.earlier(.after(1))
        while buffer.count - bodyStart < wanted {
            do {
                try readMore(into: &buffer, from: stream, until: bodyDeadline, url: url, what: "refusal body")
            } catch {
                break
            }
        }
        let body = buffer[bodyStart..<min(buffer.count, bodyStart + wanted)]
        return String(decoding: body, as: UTF8.self).trimmingWhitespaceAndNewlines()
    }

    private static func readMore(
        into buffer: inout [UInt8], from stream: WebSocketCurlStream, until deadline: MonotonicDeadline, url: String, what: String
    ) throws(TransportError) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = try chunk.withMutableBytesThrowingTransportError { bytes throws(TransportError) in try stream.read(into: bytes) }
            switch result {
            case .bytes(let count):
                buffer.append(contentsOf: chunk[..<count])
                return
            case .endOfStream:
                throw TransportError(.protocolViolation, "connection closed before the complete \(what)", url: url)
            case .wouldBlock:
                var descriptors = [POSIXPoll.descriptor(stream.descriptor, POSIXPoll.readable)]
                guard POSIXPoll.wait(&descriptors, until: deadline) else {
                    throw TransportError(.timeout, "timed out waiting for the \(what)", url: url)
                }
            }
        }
    }
}

/// A connection opened by libcurl in connect-only mode; reads and writes go through curl_easy_recv/send (which
/// handle TLS). They share one lock: an OpenSSL connection must not be read and written concurrently.
final class WebSocketCurlStream: WebSocketByteStream, @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    let descriptor: Int32
    private let ioLock = Lock()
    private let url: String

    private init(handle: UnsafeMutableRawPointer, descriptor: Int32, url: String) {
        self.handle = handle
        self.descriptor = descriptor
        self.url = url
    }

    deinit { omni_curl_easy_cleanup(handle) }

    static func open(url: WebSocketURL, configuration: WebSocketClient.Configuration) throws(TransportError) -> WebSocketCurlStream {
        guard let handle = omni_curl_easy_init() else {
            throw TransportError(.io, Libcurl.unavailableReason ?? "curl_easy_init failed", url: url.text)
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        var ok = true
        func setLong(_ option: CURLoption, _ value: Int) { ok = ok && omni_curl_easy_setopt_long(handle, option, value) == CURLE_OK }
        func setString(_ option: CURLoption, _ value: String) {
            ok = ok && value.withCString { omni_curl_easy_setopt_pointer(handle, option, $0) } == CURLE_OK
        }
        let timeoutMilliseconds = Int(max(1, min(configuration.connectTimeout, 86_400) * 1000))
        setString(CURLOPT_URL, url.transportURL)
        setLong(CURLOPT_CONNECT_ONLY, 1)
        setLong(CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds)
        setLong(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        setLong(CURLOPT_NOSIGNAL, 1)
        // A proxy from the environment must tunnel (CONNECT); a plain HTTP proxy cannot carry a WebSocket.
        setLong(CURLOPT_HTTPPROXYTUNNEL, 1)
        setLong(CURLOPT_SSL_VERIFYPEER, 1)
        setLong(CURLOPT_SSL_VERIFYHOST, 2)
        // Added to the trust store libcurl builds, as the HTTP client does: CAINFO would replace the system bundle.
        // libcurl reads the path while connecting, that is inside curl_easy_perform below.
        let extraCAFile = configuration.extraCACertificatePath.flatMap { strdup($0) }
        defer { free(extraCAFile) }
        if let path = configuration.extraCACertificatePath, let extraCAFile {
            guard FileManager.default.isReadableFile(atPath: path) else {
                omni_curl_easy_cleanup(handle)
                throw TransportError(.tls, "cannot read the CA certificates file \(path)", url: url.text)
            }
            setLong(CURLOPT_CA_CACHE_TIMEOUT, 0)
            ok = ok && omni_curl_easy_add_ca_file(handle, extraCAFile) == CURLE_OK
        }
        ok = ok && omni_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
        guard ok else {
            omni_curl_easy_cleanup(handle)
            throw TransportError(.io, "libcurl rejected a connection option", url: url.text)
        }
        let code = omni_curl_easy_perform(handle)
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let message = detail.isEmpty ? String(cString: omni_curl_easy_strerror(code)) : detail
            omni_curl_easy_cleanup(handle)
            throw TransportError(kind(of: code), "cannot connect: \(message)", url: url.text)
        }
        var socket: curl_socket_t = -1
        guard omni_curl_easy_getinfo_socket(handle, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0 else {
            omni_curl_easy_cleanup(handle)
            throw TransportError(.io, "libcurl did not report the connected socket", url: url.text)
        }
        return WebSocketCurlStream(handle: handle, descriptor: socket, url: url.text)
    }

    private static func kind(of code: CURLcode) -> TransportError.Kind {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .dns
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidURL
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            return .tls
        default: return .connect
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> StreamReadResult {
        var received = 0
        let code = ioLock.withLock { omni_curl_easy_recv(handle, buffer.baseAddress, buffer.count, &received) }
        switch code {
        case CURLE_OK: return received == 0 ? .endOfStream : .bytes(received)
        case CURLE_AGAIN: return .wouldBlock
        case CURLE_RECV_ERROR, CURLE_UNSUPPORTED_PROTOCOL: return .endOfStream
        default: throw TransportError(.io, "receive failed: \(String(cString: omni_curl_easy_strerror(code)))", url: url)
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        var sent = 0
        let code = ioLock.withLock { omni_curl_easy_send(handle, bytes.baseAddress, bytes.count, &sent) }
        switch code {
        case CURLE_OK: return sent
        case CURLE_AGAIN: return 0
        case CURLE_SEND_ERROR, CURLE_UNSUPPORTED_PROTOCOL:
            throw TransportError(.closed, "connection closed by peer while sending", url: url)
        default: throw TransportError(.io, "send failed: \(String(cString: omni_curl_easy_strerror(code)))", url: url)
        }
    }

    func shutdownWrite() { _ = Glibc.shutdown(descriptor, Int32(SHUT_WR)) }

    func shutdown() { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
}
