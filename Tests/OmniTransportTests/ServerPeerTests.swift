import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing

/// Thread-safe box for values handlers record.
final class Recorded<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Echoes text and binary messages until the peer closes.
func echoLoop(_ socket: WebSocketConnection) throws {
    while true {
        switch try socket.receive() {
        case .text(let text): try socket.send(text: text)
        case .binary(let bytes): try socket.send(binary: bytes)
        case .pong: continue
        case .close: return
        }
    }
}

/// The server every peer scenario runs against (routes are listed in Tests/Peers/ws_client_peer.py).
func makeTestServer(
    addresses: [String] = ["127.0.0.1"], recordedClose: Recorded<WebSocketCloseInfo?> = Recorded(nil),
    configure: (inout HTTPServer.Configuration) -> Void = { _ in }
) throws -> HTTPServer {
    var configuration = HTTPServer.Configuration()
    configuration.addresses = addresses
    configuration.maxRequestBodyBytes = 4096
    configuration.headReadTimeout = 1
    configure(&configuration)
    let server = try HTTPServer(configuration: configuration)
    server.webSocket("/echo") { socket, _ in try echoLoop(socket) }
    server.webSocket("/fragmented-sender") { socket, _ in
        try socket.send(text: "fragmented ✓ text", fragmentSize: 3)
        try socket.send(binary: (0..<70000).map { UInt8($0 % 251) }, fragmentSize: 1000)
        try echoLoop(socket)
    }
    var pongOptions = configuration.webSocket
    pongOptions.deliverPongs = true
    server.webSocket("/ping-client", options: pongOptions) { socket, _ in
        try socket.ping(Array("srv".utf8))
        while true {
            if case .pong(let payload) = try socket.receive(timeout: 5) {
                try socket.send(text: "got pong:" + String(decoding: payload, as: UTF8.self))
                break
            }
        }
        try echoLoop(socket)
    }
    server.webSocket("/close-with") { socket, request in
        let code = WebSocketCloseCode(UInt16(request.queryValue("code") ?? "") ?? 1000)
        try socket.close(code: code, reason: request.queryValue("reason") ?? "")
    }
    server.webSocket("/record-close") { socket, _ in
        while true {
            if case .close(let info) = try socket.receive() {
                recordedClose.value = info
                return
            }
        }
    }
    var smallOptions = configuration.webSocket
    smallOptions.maxMessageBytes = 1024
    server.webSocket("/small", options: smallOptions) { socket, _ in try echoLoop(socket) }
    server.webSocket("/gated", gate: { request in
        request.queryValue("token") == "secret" ? nil : .text("invalid token", status: 401)
    }) { socket, _ in try echoLoop(socket) }
    server.webSocket("/proto", subprotocol: { offered, _ in offered.first { $0 == "b.v1" } }) { socket, _ in try echoLoop(socket) }
    server.route("GET", "/health") { _ in .text("ok") }
    server.route("POST", "/echo-body") { request in HTTPServerResponse(status: 200, body: request.body) }
    try server.start()
    return server
}

/// Python `websockets` 17, raw sockets and urllib against our server (Tests/Peers/ws_client_peer.py).
@Suite("HTTP/WebSocket server ↔ Python clients", .serialized, .offPool)
struct ServerPeerTests {
    private func drive(_ scenario: String, _ server: HTTPServer, host: String = "127.0.0.1", _ arguments: String = "{}") throws -> JSONValue {
        try peerJSON(try Subprocess.python("ws_client_peer.py", [scenario, "ws://\(host):\(server.port)", arguments]))
    }

    @Test func echoesEdgeSizes() throws {
        let seed = SeededGenerator.freshSeed() >> 1
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("echo", server, #"{"seed": \#(seed), "sizes": [0, 1, 125, 126, 127, 65535, 65536, 1048576]}"#)
        #expect(result["checked"]?.intValue == 16, "seed \(seed)")
        #expect(result["failures"] == .array([]), "seed \(seed)")
    }

    @Test func fragmentedMessagesBothWays() throws {
        let seed = SeededGenerator.freshSeed() >> 1
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("fragments", server, #"{"seed": \#(seed)}"#)
        #expect(result["text_echo_ok"] == .bool(true), "seed \(seed)")
        #expect(result["binary_echo_ok"] == .bool(true), "seed \(seed)")
        #expect(result["received_text"]?.stringValue == "fragmented ✓ text")
        #expect(result["received_binary_length"]?.intValue == 70000)
        #expect(result["received_binary_pattern_ok"] == .bool(true))
    }

    @Test func pingPongBothWays() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("ping", server)
        #expect(result["client_ping_answered"] == .bool(true))
        #expect(result["server_report"]?.stringValue == "got pong:srv")
    }

    @Test func closeCodesAndReasonsBothWays() throws {
        let recorded = Recorded<WebSocketCloseInfo?>(nil)
        let server = try makeTestServer(recordedClose: recorded)
        defer { server.stop() }
        let result = try drive("close", server)
        #expect(recorded.value == WebSocketCloseInfo(code: WebSocketCloseCode(4001), reason: "ttl"))
        #expect(result["echoed"]?["code"]?.intValue == 4001, "our server echoes the client's code")
        #expect(result["received"]?["code"]?.intValue == 4002)
        #expect(result["received"]?["reason"]?.stringValue == "purged")
    }

    @Test func oversizedMessageGets1009() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("oversize", server)
        #expect(result["small_ok"] == .bool(true))
        #expect(result["code"]?.intValue == 1009)
    }

    @Test func gateAnswers401BeforeUpgrade() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("gate", server)
        #expect(result["wrong"]?.intValue == 401)
        #expect(result["wrong_body"]?.stringValue == "invalid token")
        #expect(result["right"]?.stringValue == "hi")

        // Our own client sees the same refusal as `.rejected` with status 401.
        let error = #expect(throws: TransportError.self) {
            try WebSocketClient.connect("ws://127.0.0.1:\(server.port)/gated?token=nope")
        }
        #expect(error?.kind == .rejected)
        #expect(error?.status == 401)
    }

    @Test func selectsSubprotocol() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("subprotocol", server)
        #expect(result["selected"]?.stringValue == "b.v1")
        #expect(result["none"] == .null)
    }

    @Test func rejectsBadFramesWithTheRightCloseCode() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("raw-frames", server)
        #expect(result["unmasked"]?.intValue == 1002)
        #expect(result["invalid_utf8"]?.intValue == 1007)
        #expect(result["reserved_bits"]?.intValue == 1002)
        #expect(result["bad_opcode"]?.intValue == 1002)
        #expect(result["long_ping"]?.intValue == 1002)
        #expect(result["bad_close_code"]?.intValue == 1002)
        #expect(result["continuation_first"]?.intValue == 1002)
        #expect(result["split_utf8_text"]?.stringValue == "€")
    }

    @Test func rejectsBadUpgradeRequests() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("raw-handshakes", server)
        #expect(result["no_key"]?.intValue == 400)
        #expect(result["short_key"]?.intValue == 400)
        #expect(result["version_8"]?.intValue == 426)
        #expect(result["no_connection"]?.intValue == 400)
        #expect(result["post"]?.intValue == 400)
        #expect(result["plain_get_on_ws_route"]?.intValue == 426)
        #expect(result["accept_ok"] == .bool(true))
    }

    @Test func plainHTTPRoutes() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("http", server)
        #expect(result["health"] == [200, "ok", "text/plain; charset=utf-8"])
        #expect(result["missing"]?.arrayValue?.first?.intValue == 404)
        #expect(result["wrong_method"]?.arrayValue?.first?.intValue == 405)
        #expect(result["wrong_method"]?.arrayValue?.last?.stringValue == "GET, HEAD")
        #expect(result["too_large"]?.arrayValue?.first?.intValue == 413)
        #expect(result["echo_body"]?.stringValue == "body ü")
        #expect(result["keep_alive_statuses"] == [200, 200, 200])
        #expect(result["head"] == [200, "2", ""])
        #expect(result["chunked"]?.stringValue == "chunk-1 chunk-2")
        #expect(result["connection_close"] == ["HTTP/1.1 200 OK", true])
        #expect(result["malformed"]?.stringValue == "HTTP/1.1 400 Bad Request")
        #expect(result["huge_head"]?.stringValue == "HTTP/1.1 431 Request Header Fields Too Large")
        #expect(result["negative_chunk"]?.stringValue == "HTTP/1.1 400 Bad Request")
        #expect(result["signed_chunk"]?.stringValue == "HTTP/1.1 400 Bad Request")
        #expect(result["spaced_chunk"]?.stringValue == "HTTP/1.1 400 Bad Request")
        #expect(result["slow_loris"]?.stringValue == "HTTP/1.1 408 Request Timeout")
        #expect(result["slow_loris_closed"] == .bool(true))
    }

    @Test func handlesMoreThanHundredConcurrentClients() throws {
        let server = try makeTestServer()
        defer { server.stop() }
        let result = try drive("concurrent", server, #"{"clients": 120, "messages": 5}"#)
        #expect(result["ok"]?.intValue == 600, "errors: \(String(describing: result["errors"]))")
    }

    @Test func stopSendsGoingAwayToWebSockets() throws {
        let server = try makeTestServer()
        let port = server.port
        let outcome = Recorded<Result<JSONValue, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            outcome.value = Result { try peerJSON(try Subprocess.python("ws_client_peer.py", ["await-close", "ws://127.0.0.1:\(port)"])) }
            done.signal()
        }.start()
        var waited = 0
        while server.webSockets().isEmpty, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(server.webSockets().count == 1)
        server.stop()
        #expect(server.isStopped)
        #expect(server.connectionCount == 0)
        #expect(done.wait(timeout: .now() + 10) == .success)
        let result = try #require(outcome.value).get()
        #expect(result["code"]?.intValue == 1001)
        #expect(result["reason"]?.stringValue == "server shutting down")
        let refused = #expect(throws: TransportError.self) { try WebSocketClient.connect("ws://127.0.0.1:\(port)/echo") }
        #expect(refused?.kind == .connect)
    }

    @Test func servesIPv6AndIPv4Loopback() throws {
        let server = try makeTestServer(addresses: ["::1", "127.0.0.1"])
        defer { server.stop() }
        #expect(server.boundAddresses == ["[::1]:\(server.port)", "127.0.0.1:\(server.port)"])
        let result = try drive("echo", server, host: "[::1]", #"{"seed": 7, "sizes": [0, 200]}"#)
        #expect(result["checked"]?.intValue == 4)
        for host in ["[::1]", "127.0.0.1"] {
            let socket = try WebSocketClient.connect("ws://\(host):\(server.port)/echo")
            try socket.send(text: host)
            #expect(try socket.receive(timeout: 5) == .text(host))
            try socket.close()
        }
    }
}
