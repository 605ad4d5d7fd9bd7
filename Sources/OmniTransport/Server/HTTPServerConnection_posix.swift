import FoundationEssentials
internal import Glibc

/// Serves one TCP connection: HTTP/1.1 requests (keep-alive, pipelining in order) until it closes, or until an
/// upgrade hands the socket to a WebSocket handler.
final class HTTPServerConnectionWorker: @unchecked Sendable {
    private let server: HTTPServer
    private let record: HTTPServer.ConnectionRecord
    private let stream: WebSocketSocketStream
    private let remoteAddress: String
    private var configuration: HTTPServer.Configuration { server.configuration }
    /// Received bytes not yet consumed (the start of the next request when pipelined).
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16 << 10)

    init(server: HTTPServer, record: HTTPServer.ConnectionRecord, remoteAddress: String) {
        self.server = server
        self.record = record
        self.stream = record.stream
        self.remoteAddress = remoteAddress
    }

    /// How a request ended the exchange.
    private enum Outcome {
        case keepAlive
        case close
        case upgraded
    }

    private enum ReadOutcome {
        case data
        case timeout
        case endOfStream
        case stopRequested
    }

    private struct Refusal: Error {
        let response: HTTPServerResponse
    }

    func run() {
        var served = 0
        while served < configuration.maxRequestsPerConnection {
            let outcome = serveOneRequest(isFirst: served == 0)
            served += 1
            if outcome != .keepAlive {
                if outcome == .close { lingeringClose() }
                return
            }
        }
        lingeringClose()
    }

    // MARK: - Request

    private func serveOneRequest(isFirst: Bool) -> Outcome {
        // Wait for the first byte of a request (an idle keep-alive connection may just go away).
        if buffer.isEmpty {
            switch readMore(until: .after(isFirst ? configuration.headReadTimeout : configuration.keepAliveTimeout), watchStop: true) {
            case .data: break
            case .timeout, .endOfStream, .stopRequested: return .close
            }
        }
        let headDeadline = MonotonicDeadline.after(configuration.headReadTimeout)
        var scanFrom = 0
        var headEnd: Int?
        while true {
            headEnd = HTTP1Head.findEnd(in: buffer, start: 0, scanFrom: scanFrom)
            if headEnd != nil { break }
            if buffer.count > configuration.maxHeadBytes {
                respond(.text("request head too large\n", status: 431), close: true, headOnly: false)
                return .close
            }
            scanFrom = max(0, buffer.count - 3)
            switch readMore(until: headDeadline, watchStop: true) {
            case .data: continue
            case .timeout:
                respond(.text("request head not received in time\n", status: 408), close: true, headOnly: false)
                return .close
            case .endOfStream, .stopRequested: return .close
            }
        }
        guard let end = headEnd else { return .close }
        if end > configuration.maxHeadBytes {
            respond(.text("request head too large\n", status: 431), close: true, headOnly: false)
            return .close
        }
        let head: HTTP1Head
        do {
            head = try HTTP1Head.parse(buffer[..<end], isRequest: true, maxHeaderCount: configuration.maxHeaderCount)
        } catch {
            let status = error.isLimit ? 431 : 400
            respond(.text("\(error.message)\n", status: status), close: true, headOnly: false)
            return .close
        }
        buffer.removeSubrange(0..<end)
        let (method, target, version) = head.startLine
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            respond(.text("only HTTP/1.0 and HTTP/1.1 are supported\n", status: 505), close: true, headOnly: false)
            return .close
        }
        let headers = head.headers
        let connectionTokens = headers.tokens("Connection")
        var keepAlive = version == "HTTP/1.1" ? !connectionTokens.contains("close") : connectionTokens.contains("keep-alive")
        if version == "HTTP/1.1", headers.values("Host").count != 1 {
            respond(.text("exactly one Host header is required\n", status: 400), close: true, headOnly: false)
            return .close
        }
        let probe = HTTPServerRequest(method: method, target: target, version: version, headers: headers, remoteAddress: remoteAddress)
        let (handlers, webSocketRoute) = server.lookup(path: probe.path)
        let isUpgrade = headers.tokens("Upgrade").contains("websocket")

        let body: [UInt8]
        do {
            body = try readBody(headers: headers, expectsContinue: handlers != nil)
        } catch {
            respond(error.response, close: true, headOnly: method == "HEAD")
            return .close
        }
        let request = HTTPServerRequest(
            method: method, target: target, version: version, headers: headers, body: body, remoteAddress: remoteAddress)

        if let webSocketRoute, isUpgrade {
            return upgrade(request, route: webSocketRoute)
        }
        if server.isStopRequested { keepAlive = false }
        let response: HTTPServerResponse
        if let handlers {
            if let handler = handlers[method] ?? (method == "HEAD" ? handlers["GET"] : nil) {
                do {
                    let produced = try handler(request)
                    response = produced.hasValidHeaders ? produced : .text("handler produced an invalid response\n", status: 500)
                } catch {
                    response = .text("internal error\n", status: 500)
                }
            } else {
                var allowed = handlers.keys.sorted()
                if allowed.contains("GET"), !allowed.contains("HEAD") { allowed.append("HEAD") }
                var refusal = HTTPServerResponse.text("method \(method) not allowed\n", status: 405)
                refusal.headers.add("Allow", allowed.joined(separator: ", "))
                response = refusal
            }
        } else if webSocketRoute != nil {
            var refusal = HTTPServerResponse.text("this endpoint requires a WebSocket upgrade\n", status: 426)
            refusal.headers.add("Upgrade", "websocket")
            response = refusal
        } else {
            response = .text("not found\n", status: 404)
        }
        guard respond(response, close: !keepAlive, headOnly: method == "HEAD") else { return .close }
        return keepAlive ? .keepAlive : .close
    }

    /// Reads the body announced by Content-Length or chunked coding, within the size limit and body timeout.
    private func readBody(headers: HTTPHeaderFields, expectsContinue: Bool) throws(Refusal) -> [UInt8] {
        let limit = configuration.maxRequestBodyBytes
        let deadline = MonotonicDeadline.after(configuration.bodyReadTimeout)
        let transferCodings = headers.tokens("Transfer-Encoding")
        let lengths = Set(headers.values("Content-Length").flatMap { $0.split(separator: ",") }.map { HTTP1Head.trimWhitespace($0) })
        if !transferCodings.isEmpty {
            // Both framings at once is the classic request-smuggling shape.
            guard lengths.isEmpty else { throw Refusal(response: .text("both Content-Length and Transfer-Encoding\n", status: 400)) }
            guard transferCodings == ["chunked"] else {
                throw Refusal(response: .text("unsupported transfer coding\n", status: 501))
            }
            sendContinueIfExpected(headers, expectsContinue)
            return try readChunkedBody(limit: limit, deadline: deadline)
        }
        guard !lengths.isEmpty else { return [] }
        guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.utf8.count <= 18,
              text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text)
        else { throw Refusal(response: .text("invalid Content-Length\n", status: 400)) }
        guard length <= limit else {
            throw Refusal(response: .text("request body of \(length) bytes exceeds the limit of \(limit) bytes\n", status: 413))
        }
        if length == 0 { return [] }
        sendContinueIfExpected(headers, expectsContinue)
        while buffer.count < length {
            try readOrRefuse(until: deadline)
        }
        let body = Array(buffer[..<length])
        buffer.removeSubrange(0..<length)
        return body
    }

    private func sendContinueIfExpected(_ headers: HTTPHeaderFields, _ expectsContinue: Bool) {
        guard expectsContinue, buffer.isEmpty, headers.tokens("Expect").contains("100-continue") else { return }
        _ = writeAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    private func readChunkedBody(limit: Int, deadline: MonotonicDeadline) throws(Refusal) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine(maxLength: 1024, deadline: deadline)
            guard let size = Self.chunkSize(line) else {
                throw Refusal(response: .text("invalid chunk size\n", status: 400))
            }
            if size == 0 { break }
            guard size <= limit - body.count else {
                throw Refusal(response: .text("request body exceeds the limit of \(limit) bytes\n", status: 413))
            }
            while buffer.count < size + 2 { try readOrRefuse(until: deadline) }
            guard buffer[size] == 0x0D, buffer[size + 1] == 0x0A else {
                throw Refusal(response: .text("chunk not terminated by CRLF\n", status: 400))
            }
            body.append(contentsOf: buffer[..<size])
            buffer.removeSubrange(0..<(size + 2))
        }
        // Trailer fields are read and dropped, within the head size limit.
        var trailerBytes = 0
        while true {
            let line = try readLine(maxLength: configuration.maxHeadBytes, deadline: deadline)
            if line.isEmpty { return body }
            trailerBytes += line.count + 2
            guard trailerBytes <= configuration.maxHeadBytes else {
                throw Refusal(response: .text("trailer section too large\n", status: 431))
            }
        }
    }

    /// The size of a chunk-size line (`1*HEXDIG [BWS ";" extensions]`). Only hex digits count: `Int(_:radix:)`
    /// alone would take a sign, and a negative size would index before the buffer.
    static func chunkSize(_ line: [UInt8]) -> Int? {
        var digits = line.prefix { $0 != 0x3B }[...]
        while let last = digits.last, last == 0x20 || last == 0x09 { digits.removeLast() }
        let isHexDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte | 0x20) }
        guard (1...15).contains(digits.count), digits.allSatisfy(isHexDigit) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self), radix: 16)
    }

    /// One CRLF-terminated line (without the CRLF).
    private func readLine(maxLength: Int, deadline: MonotonicDeadline) throws(Refusal) -> [UInt8] {
        var scanned = 0
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                guard newline > 0, buffer[newline - 1] == 0x0D else { throw Refusal(response: .text("bare LF in chunked body\n", status: 400)) }
                let line = Array(buffer[..<(newline - 1)])
                buffer.removeSubrange(0...newline)
                return line
            }
            scanned = buffer.count
            guard buffer.count <= maxLength else { throw Refusal(response: .text("chunk line too long\n", status: 400)) }
            try readOrRefuse(until: deadline)
        }
    }

    private func readOrRefuse(until deadline: MonotonicDeadline) throws(Refusal) {
        switch readMore(until: deadline, watchStop: false) {
        case .data: return
        case .timeout: throw Refusal(response: .text("request body not received in time\n", status: 408))
        case .endOfStream, .stopRequested: throw Refusal(response: .text("connection closed in the body\n", status: 400))
        }
    }

    // MARK: - Upgrade

    private func upgrade(_ request: HTTPServerRequest, route: HTTPServer.WebSocketRoute) -> Outcome {
        let headers = request.headers
        guard request.method == "GET", request.version == "HTTP/1.1", request.body.isEmpty else {
            respond(.text("a WebSocket upgrade is a GET over HTTP/1.1 without a body\n", status: 400), close: true, headOnly: false)
            return .close
        }
        guard headers.tokens("Connection").contains("upgrade") else {
            respond(.text("missing \"Connection: Upgrade\"\n", status: 400), close: true, headOnly: false)
            return .close
        }
        guard headers.values("Sec-WebSocket-Version").map({ HTTP1Head.trimWhitespace($0) }) == ["13"] else {
            var refusal = HTTPServerResponse.text("unsupported WebSocket version\n", status: 426)
            refusal.headers.add("Sec-WebSocket-Version", "13")
            respond(refusal, close: true, headOnly: false)
            return .close
        }
        let keys = headers.values("Sec-WebSocket-Key").map { HTTP1Head.trimWhitespace($0) }
        guard keys.count == 1, WebSocketHandshake.isValidKey(keys[0]) else {
            respond(.text("invalid Sec-WebSocket-Key\n", status: 400), close: true, headOnly: false)
            return .close
        }
        if let refusal = route.gate?(request) {
            respond(refusal.hasValidHeaders ? refusal : .text("refused\n", status: 403), close: true, headOnly: false)
            return .close
        }
        let offered = headers.values("Sec-WebSocket-Protocol")
            .flatMap { $0.split(separator: ",") }.map { HTTP1Head.trimWhitespace($0) }.filter { !$0.isEmpty }
        let selected = route.selectSubprotocol?(offered, request)
        if let selected, !offered.contains(selected) {
            respond(.text("subprotocol selection failed\n", status: 500), close: true, headOnly: false)
            return .close
        }
        var answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        answer += "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: keys[0]))\r\n"
        if let selected { answer += "Sec-WebSocket-Protocol: \(selected)\r\n" }
        answer += "\r\n"
        guard writeAll(Array(answer.utf8)) else { return .close }
        let socket: WebSocketConnection
        do {
            socket = try WebSocketConnection(
                stream: stream, role: .server, options: route.options, subprotocol: selected, handshakeHeaders: headers,
                bufferedBytes: buffer[...])
        } catch {
            return .close
        }
        buffer = []
        if !server.attach(socket, path: request.path, to: record) {
            socket.sendCloseWithoutWaiting(code: .goingAway, reason: "server shutting down")
        }
        do {
            try route.handler(socket, request)
            if socket.isOpen { _ = try? socket.close(code: .normal) }
        } catch {
            if socket.isOpen { _ = try? socket.close(code: .internalError, reason: "handler failed") }
        }
        socket.lingerUntilPeerCloses(seconds: 1)
        return .upgraded
    }

    // MARK: - I/O

    /// Sends a response; false if the connection failed.
    @discardableResult
    private func respond(_ response: HTTPServerResponse, close: Bool, headOnly: Bool) -> Bool {
        writeAll(response.serialized(closeConnection: close, headOnly: headOnly))
    }

    /// False if the connection failed or the peer did not take the bytes within the write timeout.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        (try? stream.writeAll(bytes, until: .after(configuration.writeTimeout))) != nil
    }

    /// Appends whatever the socket has; waits (also on the server's stop pipe if `watchStop`) until the deadline.
    private func readMore(until deadline: MonotonicDeadline, watchStop: Bool) -> ReadOutcome {
        while true {
            let result: StreamReadResult
            do {
                result = try chunk.withMutableBytesThrowingTransportError { raw throws(TransportError) in try stream.read(into: raw) }
            } catch {
                return .endOfStream
            }
            switch result {
            case .bytes(let count):
                buffer.append(contentsOf: chunk[..<count])
                return .data
            case .endOfStream:
                return .endOfStream
            case .wouldBlock:
                var descriptors = [POSIXPoll.descriptor(stream.descriptor, POSIXPoll.readable)]
                if watchStop { descriptors.append(POSIXPoll.descriptor(server.stopSignal.readDescriptor, POSIXPoll.readable)) }
                guard POSIXPoll.wait(&descriptors, until: deadline) else { return .timeout }
                if watchStop, descriptors[1].revents != 0, descriptors[0].revents == 0 { return .stopRequested }
            }
        }
    }

    /// Half-closes, then drains input briefly so unread request bytes do not turn our close into a reset that
    /// could destroy the response in flight.
    private func lingeringClose() {
        stream.shutdownWrite()
        stream.discardInput(until: .after(1))
        stream.shutdown()
    }
}
