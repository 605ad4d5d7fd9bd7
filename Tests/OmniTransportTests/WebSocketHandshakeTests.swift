import Foundation
import OmniTestSupport
import OmniTransport
import Testing

@Suite("WebSocket handshake and our client ↔ our server", .serialized, .offPool)
struct WebSocketHandshakeTests {
    @Test func acceptValueMatchesRFC6455Example() {
        // RFC 6455 §1.3.
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let key = WebSocketHandshake.makeKey()
        #expect(WebSocketHandshake.isValidKey(key))
        #expect(key != WebSocketHandshake.makeKey())
        #expect(!WebSocketHandshake.isValidKey("dGhlIHNhbXBsZSBub25jZQ"))
        #expect(!WebSocketHandshake.isValidKey("c2hvcnQ="))
    }

    @Test func headerFieldsAreCaseInsensitiveTokenLists() {
        var headers: HTTPHeaderFields = ["Connection": "keep-alive, Upgrade", "upgrade": "WebSocket"]
        headers.add("CONNECTION", "close")
        #expect(headers["connection"] == "keep-alive, Upgrade")
        #expect(headers.tokens("Connection") == ["keep-alive", "upgrade", "close"])
        #expect(headers.tokens("Upgrade") == ["websocket"])
        headers.set("Connection", "x")
        #expect(headers.values("connection") == ["x"])
    }

    @Test func refusesHeaderInjectionAndBadSubprotocols() {
        var configuration = WebSocketClient.Configuration()
        configuration.headers = ["X-Evil": "a\r\nInjected: yes"]
        let injected = #expect(throws: TransportError.self) { try WebSocketClient.connect("ws://127.0.0.1:1/", configuration: configuration) }
        #expect(injected?.kind == .invalidArgument)
        configuration.headers = [:]
        configuration.subprotocols = ["has space"]
        let badSubprotocol = #expect(throws: TransportError.self) {
            try WebSocketClient.connect("ws://127.0.0.1:1/", configuration: configuration)
        }
        #expect(badSubprotocol?.kind == .invalidArgument)
    }

    @Test func slowReaderHitsThePendingOutboundLimit() throws {
        var configuration = HTTPServer.Configuration()
        configuration.webSocket.maxPendingOutboundBytes = 64 << 10
        configuration.webSocket.sendTimeout = 0.3
        let server = try HTTPServer(configuration: configuration)
        let failure = Recorded<TransportError?>(nil)
        let done = DispatchSemaphore(value: 0)
        server.webSocket("/flood") { socket, _ in
            defer { done.signal() }
            let chunk = [UInt8](repeating: 0x55, count: 64 << 10)
            do throws(TransportError) {
                // The client never reads: socket buffers fill, then the queue, then the send times out.
                for _ in 0..<10_000 { try socket.send(binary: chunk) }
            } catch {
                failure.value = error
            }
        }
        try server.start()
        defer { server.stop() }
        let client = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/flood")
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(failure.value?.kind == .limitExceeded)
        _ = client
    }

    @Test func idleTimeoutClosesWith1001() throws {
        var configuration = HTTPServer.Configuration()
        configuration.webSocket.idleTimeout = 0.3
        let server = try HTTPServer(configuration: configuration)
        let serverError = Recorded<TransportError?>(nil)
        let handlerDone = DispatchSemaphore(value: 0)
        server.webSocket("/idle") { socket, _ in
            defer { handlerDone.signal() }
            do throws(TransportError) { _ = try socket.receive() } catch { serverError.value = error }
        }
        try server.start()
        defer { server.stop() }
        let client = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/idle")
        #expect(try client.receive(timeout: 5) == .close(WebSocketCloseInfo(code: .goingAway, reason: "idle timeout")))
        #expect(handlerDone.wait(timeout: .now() + 5) == .success)
        #expect(serverError.value?.kind == .timeout)
    }

    @Test func connectionCapAnswers503() throws {
        var configuration = HTTPServer.Configuration()
        configuration.maxConnections = 2
        let server = try HTTPServer(configuration: configuration)
        server.webSocket("/echo") { socket, _ in try echoLoop(socket) }
        try server.start()
        defer { server.stop() }
        let first = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/echo")
        let second = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/echo")
        let third = #expect(throws: TransportError.self) { try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/echo") }
        #expect(third?.kind == .rejected)
        #expect(third?.status == 503)
        try first.close()
        try second.close()
    }

    @Test func handlerErrorClosesWith1011AndServerSendsFromOtherThreads() throws {
        let server = try HTTPServer()
        struct Boom: Error {}
        server.webSocket("/boom") { socket, _ in
            _ = try socket.receive()
            throw Boom()
        }
        server.webSocket("/broadcast") { socket, _ in try echoLoop(socket) }
        try server.start()
        defer { server.stop() }
        let boom = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/boom")
        try boom.send(text: "trigger")
        #expect(try boom.receive(timeout: 5) == .close(WebSocketCloseInfo(code: .internalError, reason: "handler failed")))

        let listeners = try (0..<3).map { _ in try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/broadcast") }
        var waited = 0
        while server.webSockets(path: "/broadcast").count < 3, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(server.broadcast(text: "to all", path: "/broadcast") == 3)
        for listener in listeners {
            #expect(try listener.receive(timeout: 5) == .text("to all"))
            try listener.close()
        }
    }

    @Test func concurrentSendersNeverInterleaveFrames() throws {
        let server = try HTTPServer()
        server.webSocket("/echo") { socket, _ in try echoLoop(socket) }
        try server.start()
        defer { server.stop() }
        let client = try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/echo")
        let group = DispatchGroup()
        for sender in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                for index in 0..<50 {
                    try? client.send(binary: [UInt8](repeating: UInt8(sender), count: 1000 + index), fragmentSize: 300)
                }
            }.start()
        }
        var received = 0
        while received < 200 {
            guard case .binary(let bytes) = try client.receive(timeout: 5) else { Issue.record("unexpected message"); break }
            #expect(Set(bytes).count == 1 && (1000..<1050).contains(bytes.count))
            received += 1
        }
        #expect(group.wait(timeout: .now() + 5) == .success)
        try client.close()
    }
}
