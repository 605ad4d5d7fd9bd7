/// How the server reads one HTTP/1.1 request out of the bytes a connection received: the head (strict, see
/// `HTTP1Head`), then the body framed by Content-Length or chunked coding, within the server's limits. It does no
/// I/O and keeps no clock: the connection worker appends what arrives, acts on each step (route lookup and
/// `100 Continue` after the head, deadlines while it waits), and the fuzz target drives it with arbitrary bytes.
public struct HTTPRequestParser: Sendable {
    public struct Limits: Sendable, Equatable {
        /// The request line plus header fields (431 beyond it).
        public var maxHeadBytes: Int
        public var maxHeaderCount: Int
        /// The body after decoding (413 beyond it).
        public var maxBodyBytes: Int
        /// A chunk-size line with its extensions.
        public var maxChunkLineBytes: Int

        public init(maxHeadBytes: Int = 16 << 10, maxHeaderCount: Int = 100, maxBodyBytes: Int = 1 << 20, maxChunkLineBytes: Int = 1024) {
            self.maxHeadBytes = maxHeadBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
            self.maxChunkLineBytes = maxChunkLineBytes
        }
    }

    public enum Step: Sendable {
        /// The head is not complete yet.
        case needHead
        /// The head is complete and valid (returned once, before any body step). `request` has no body yet;
        /// `expectsBody` is true when a body is still to be read (a positive Content-Length or chunked coding).
        case head(HTTPServerRequest, expectsBody: Bool)
        /// The body is not complete yet.
        case needBody
        /// The whole request; `keepAlive` says whether the connection may carry another one.
        case complete(HTTPServerRequest, keepAlive: Bool)
        /// The request is refused with `response`; the connection closes after it (`headOnly` for a HEAD request
        /// whose body framing was refused). Every later step repeats the refusal.
        case refused(HTTPServerResponse, headOnly: Bool)
    }

    private enum Framing: Sendable {
        case none
        case length(Int)
        case chunked
    }

    private enum Phase: Sendable {
        /// Reading the head; the terminator search resumes at `scanFrom`.
        case head(scanFrom: Int)
        /// The head was returned; the body starts on the next step.
        case announced
        case fixedBody(length: Int)
        case chunkSize
        case chunkData(size: Int)
        /// Trailer fields after the last chunk, `bytes` of them so far (read and dropped).
        case trailers(bytes: Int)
        case complete
        case refused(HTTPServerResponse, headOnly: Bool)
    }

    public let limits: Limits
    private let remoteAddress: String
    private var phase = Phase.head(scanFrom: 0)
    private var request = HTTPServerRequest(method: "", target: "")
    private var framing = Framing.none
    private var keepAlive = false
    private var body: [UInt8] = []

    public init(limits: Limits = Limits(), remoteAddress: String = "") {
        self.limits = limits
        self.remoteAddress = remoteAddress
    }

    /// Consumes what it can of `buffer` (the head, then body bytes) and says what comes next. Bytes after a
    /// complete request (a pipelined next request) stay in `buffer`.
    public mutating func advance(_ buffer: inout [UInt8]) -> Step {
        while true {
            switch phase {
            case .head(let scanFrom):
                return readHead(&buffer, scanFrom: scanFrom)
            case .announced:
                switch framing {
                case .none: phase = .complete
                case .length(let length): phase = .fixedBody(length: length)
                case .chunked: phase = .chunkSize
                }
            case .fixedBody(let length):
                guard buffer.count >= length else { return .needBody }
                body = Array(buffer[..<length])
                buffer.removeSubrange(0..<length)
                phase = .complete
            case .chunkSize:
                guard let line = readLine(&buffer, maxLength: limits.maxChunkLineBytes) else { return stepAfterLine() }
                guard let size = Self.chunkSize(line) else { return refuseBody(.text("invalid chunk size\n", status: 400)) }
                if size == 0 {
                    phase = .trailers(bytes: 0)
                } else {
                    guard size <= limits.maxBodyBytes - body.count else {
                        return refuseBody(.text("request body exceeds the limit of \(limits.maxBodyBytes) bytes\n", status: 413))
                    }
                    phase = .chunkData(size: size)
                }
            case .chunkData(let size):
                guard buffer.count >= size + 2 else { return .needBody }
                guard buffer[size] == 0x0D, buffer[size + 1] == 0x0A else {
                    return refuseBody(.text("chunk not terminated by CRLF\n", status: 400))
                }
                body.append(contentsOf: buffer[..<size])
                buffer.removeSubrange(0..<(size + 2))
                phase = .chunkSize
            case .trailers(let bytes):
                guard let line = readLine(&buffer, maxLength: limits.maxHeadBytes) else { return stepAfterLine() }
                if line.isEmpty {
                    phase = .complete
                } else {
                    let total = bytes + line.count + 2
                    guard total <= limits.maxHeadBytes else { return refuseBody(.text("trailer section too large\n", status: 431)) }
                    phase = .trailers(bytes: total)
                }
            case .complete:
                let complete = HTTPServerRequest(method: request.method, target: request.target, version: request.version,
                                                 headers: request.headers, body: body, remoteAddress: remoteAddress)
                return .complete(complete, keepAlive: keepAlive)
            case .refused(let response, let headOnly):
                return .refused(response, headOnly: headOnly)
            }
        }
    }

    // MARK: - Head

    private mutating func readHead(_ buffer: inout [UInt8], scanFrom: Int) -> Step {
        guard let end = HTTP1Head.findEnd(in: buffer, start: 0, scanFrom: scanFrom) else {
            if buffer.count > limits.maxHeadBytes { return refuse(.text("request head too large\n", status: 431)) }
            phase = .head(scanFrom: max(0, buffer.count - 3))
            return .needHead
        }
        if end > limits.maxHeadBytes { return refuse(.text("request head too large\n", status: 431)) }
        let head: HTTP1Head
        do {
            head = try HTTP1Head.parse(buffer[..<end], isRequest: true, maxHeaderCount: limits.maxHeaderCount)
        } catch {
            return refuse(.text("\(error.message)\n", status: error.isLimit ? 431 : 400))
        }
        buffer.removeSubrange(0..<end)
        let (method, target, version) = head.startLine
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return refuse(.text("only HTTP/1.0 and HTTP/1.1 are supported\n", status: 505))
        }
        let headers = head.headers
        let connectionTokens = headers.tokens("Connection")
        keepAlive = version == "HTTP/1.1" ? !connectionTokens.contains("close") : connectionTokens.contains("keep-alive")
        if version == "HTTP/1.1", headers.values("Host").count != 1 {
            return refuse(.text("exactly one Host header is required\n", status: 400))
        }
        request = HTTPServerRequest(method: method, target: target, version: version, headers: headers, remoteAddress: remoteAddress)
        switch Self.framing(headers, limit: limits.maxBodyBytes) {
        case .success(let found): framing = found
        case .failure(let refusal): return refuseBody(refusal.response)
        }
        phase = .announced
        let expectsBody: Bool
        switch framing {
        case .none: expectsBody = false
        case .length, .chunked: expectsBody = true
        }
        return .head(request, expectsBody: expectsBody)
    }

    private struct Refusal: Error {
        let response: HTTPServerResponse
    }

    /// How the body is delimited. Both framings at once is refused: it is the classic request-smuggling shape.
    private static func framing(_ headers: HTTPHeaderFields, limit: Int) -> Result<Framing, Refusal> {
        let transferCodings = headers.tokens("Transfer-Encoding")
        let lengths = Set(headers.values("Content-Length").flatMap { HTTP1Head.listElements($0, keepingEmpty: true) })
        if !transferCodings.isEmpty {
            guard lengths.isEmpty else { return .failure(Refusal(response: .text("both Content-Length and Transfer-Encoding\n", status: 400))) }
            guard transferCodings == ["chunked"] else { return .failure(Refusal(response: .text("unsupported transfer coding\n", status: 501))) }
            return .success(.chunked)
        }
        guard !lengths.isEmpty else { return .success(.none) }
        guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.utf8.count <= 18,
              text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text)
        else { return .failure(Refusal(response: .text("invalid Content-Length\n", status: 400))) }
        guard length <= limit else {
            return .failure(Refusal(response: .text("request body of \(length) bytes exceeds the limit of \(limit) bytes\n", status: 413)))
        }
        return .success(length == 0 ? .none : .length(length))
    }

    // MARK: - Chunked body

    /// The size of a chunk-size line (`1*HEXDIG [BWS ";" extensions]`). Only hex digits count: `Int(_:radix:)`
    /// alone would take a sign, and a negative size would index before the buffer.
    static func chunkSize(_ line: [UInt8]) -> Int? {
        var digits = line.prefix { $0 != 0x3B }[...]
        while let last = digits.last, last == 0x20 || last == 0x09 { digits.removeLast() }
        let isHexDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte | 0x20) }
        guard (1...15).contains(digits.count), digits.allSatisfy(isHexDigit) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self), radix: 16)
    }

    /// Set by `readLine` when a line is refused rather than incomplete.
    private var lineRefusal: HTTPServerResponse?

    /// One CRLF-terminated line (without the CRLF), or nil when it is not complete yet or is refused. A line
    /// longer than `maxLength` is refused whether or not its end has arrived, so the answer does not depend on
    /// how the bytes were split into reads.
    private mutating func readLine(_ buffer: inout [UInt8], maxLength: Int) -> [UInt8]? {
        guard let newline = buffer.firstIndex(of: 0x0A), newline <= maxLength else {
            if buffer.count > maxLength { lineRefusal = .text("chunk line too long\n", status: 400) }
            return nil
        }
        guard newline > 0, buffer[newline - 1] == 0x0D else {
            lineRefusal = .text("bare LF in chunked body\n", status: 400)
            return nil
        }
        let line = Array(buffer[..<(newline - 1)])
        buffer.removeSubrange(0...newline)
        return line
    }

    private mutating func stepAfterLine() -> Step {
        guard let refusal = lineRefusal else { return .needBody }
        return refuseBody(refusal)
    }

    // MARK: - Refusals

    /// Refuses before the head was accepted: the whole response is sent.
    private mutating func refuse(_ response: HTTPServerResponse) -> Step {
        phase = .refused(response, headOnly: false)
        return .refused(response, headOnly: false)
    }

    /// Refuses the body of an accepted head: a HEAD request gets the response without its body.
    private mutating func refuseBody(_ response: HTTPServerResponse) -> Step {
        let headOnly = request.method == "HEAD"
        phase = .refused(response, headOnly: headOnly)
        return .refused(response, headOnly: headOnly)
    }
}
