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
        var parser = HTTPRequestParser(limits: configuration.requestLimits, remoteAddress: remoteAddress)
        let headDeadline = MonotonicDeadline.after(configuration.headReadTimeout)
        var bodyDeadline = headDeadline
        var method = ""
        var handlers: [String: HTTPServer.Handler]?
        var webSocketRoute: HTTPServer.WebSocketRoute?
        var request: HTTPServerRequest
        var keepAlive: Bool
        steps: while true {
            switch parser.advance(&buffer) {
            case .needHead:
                switch readMore(until: headDeadline, watchStop: true) {
                case .data: continue
                case .timeout:
                    respond(.text("request head not received in time\n", status: 408), close: true, headOnly: false)
                    return .close
                case .endOfStream, .stopRequested: return .close
                }
            case .head(let head, let expectsBody):
                method = head.method
                (handlers, webSocketRoute) = server.lookup(path: head.path)
                bodyDeadline = .after(configuration.bodyReadTimeout)
                if expectsBody, handlers != nil, buffer.isEmpty, head.headers.tokens("Expect").contains("100-continue") {
                    _ = writeAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
            case .needBody:
                switch readMore(until: bodyDeadline, watchStop: false) {
                case .data: continue
                case .timeout:
                    respond(.text("request body not received in time\n", status: 408), close: true, headOnly: method == "HEAD")
                    return .close
                case .endOfStream, .stopRequested:
                    respond(.text("connection closed in the body\n", status: 400), close: true, headOnly: method == "HEAD")
                    return .close
                }
            case .complete(let complete, let canKeepAlive):
                request = complete
                keepAlive = canKeepAlive
                break steps
            case .refused(let response, let headOnly):
                respond(response, close: true, headOnly: headOnly)
                return .close
            }
        }

        if let webSocketRoute, request.headers.tokens("Upgrade").contains("websocket") {
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
        let offered = headers.values("Sec-WebSocket-Protocol").flatMap { HTTP1Head.listElements($0) }
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
