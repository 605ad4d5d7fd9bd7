import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing

/// Our client against Python `websockets` 17 (Tests/Peers/ws_server_peer.py).
@Suite("WebSocket client ↔ Python websockets server", .serialized, .offPool)
struct WebSocketClientPeerTests {
    /// The peer's listening ports: `ws` (websockets), `raw` (hand-written answers), `wss` (with `--tls`).
    private struct Ports {
        let ws: Int, raw: Int, wss: Int?
    }

    private func withPeer(_ arguments: [String] = [], _ body: (Ports) throws -> Void) throws {
        let peer = try PeerProcess(script: "ws_server_peer.py", arguments: arguments)
        defer { peer.stop() }
        try body(Ports(ws: try peer.int("ws"), raw: try peer.int("raw"), wss: arguments.contains("--tls") ? try peer.int("wss") : nil))
    }

    private func report(_ port: Int, _ id: String) throws -> JSONValue {
        let socket = try WebSocketClient.connect("ws://127.0.0.1:\(port)/report?id=\(id)")
        defer { _ = try? socket.close() }
        guard case .text(let text) = try socket.receive(timeout: 5) else { throw TestSupportError("report was not text") }
        return try JSONValue.parse(text)
    }

    @Test func echoesTextAndBinaryOfEdgeSizes() throws {
        let seed = SeededGenerator.freshSeed()
        var random = SeededGenerator(seed: seed)
        try withPeer { ports in
            let socket = try WebSocketClient.connect("ws://127.0.0.1:\(ports.ws)/echo")
            for size in [0, 1, 125, 126, 127, 65535, 65536, 1 << 20] {
                let text = random.text(byteCount: size)
                try socket.send(text: text)
                #expect(try socket.receive(timeout: 5) == .text(text), "text of \(size) bytes, seed \(seed)")
                let bytes = random.bytes(size)
                try socket.send(binary: bytes)
                #expect(try socket.receive(timeout: 5) == .binary(bytes), "binary of \(size) bytes, seed \(seed)")
            }
            #expect(try socket.close() == WebSocketCloseInfo(code: .normal))
            #expect(!socket.isOpen)
        }
    }

    @Test func reassemblesAndSendsFragmentedMessages() throws {
        let seed = SeededGenerator.freshSeed()
        var random = SeededGenerator(seed: seed)
        try withPeer { ports in
            let socket = try WebSocketClient.connect("ws://127.0.0.1:\(ports.ws)/fragments")
            #expect(try socket.receive(timeout: 5) == .text("héllo wörld!"))
            #expect(try socket.receive(timeout: 5) == .binary([UInt8](repeating: 0, count: 70000) + [UInt8](repeating: 1, count: 10)))
            // Fragment boundaries that split multi-byte code points: the peer must reassemble before decoding.
            let text = random.text(byteCount: 5000)
            try socket.send(text: text, fragmentSize: 7)
            #expect(try socket.receive(timeout: 5) == .text(text), "seed \(seed)")
            let bytes = random.bytes(100_000)
            try socket.send(binary: bytes, fragmentSize: 4096)
            #expect(try socket.receive(timeout: 5) == .binary(bytes), "seed \(seed)")
            try socket.close()
        }
    }

    @Test func answersServerPingsAndGetsPongs() throws {
        try withPeer { ports in
            var configuration = WebSocketClient.Configuration()
            configuration.options.deliverPongs = true
            let socket = try WebSocketClient.connect("ws://127.0.0.1:\(ports.ws)/ping", configuration: configuration)
            // The server only sends this after our automatic pong carried its payload back.
            #expect(try socket.receive(timeout: 5) == .text("pong:omni-ping"))
            try socket.ping(Array("abc".utf8))
            #expect(try socket.receive(timeout: 5) == .pong(Array("abc".utf8)))
            #expect(socket.pongsReceived == 1)
            try socket.close()
        }
    }

    @Test func closeCodesAndReasonsBothWays() throws {
        try withPeer { ports in
            let port = ports.ws
            let closedByServer = try WebSocketClient.connect("ws://127.0.0.1:\(port)/close?code=4001&reason=ttl")
            #expect(try closedByServer.receive(timeout: 5) == .close(WebSocketCloseInfo(code: WebSocketCloseCode(4001), reason: "ttl")))
            #expect(closedByServer.sentCloseInfo?.code == WebSocketCloseCode(4001), "we echo the server's code")
            #expect(throws: TransportError.self) { try closedByServer.receive(timeout: 1) }

            let id = "client-close-\(UInt32.random(in: 0...UInt32.max))"
            let closedByUs = try WebSocketClient.connect("ws://127.0.0.1:\(port)/echo?id=\(id)")
            let answer = try closedByUs.close(code: WebSocketCloseCode(4001), reason: "ttl")
            #expect(answer?.code == WebSocketCloseCode(4001))
            let seen = try report(port, id)
            #expect(seen["code"]?.intValue == 4001)
            #expect(seen["reason"]?.stringValue == "ttl")
            #expect(throws: TransportError.self) { try closedByUs.send(text: "after close") }
        }
    }

    @Test func refusesOversizedMessageWith1009() throws {
        try withPeer { ports in
            var configuration = WebSocketClient.Configuration()
            configuration.options.maxMessageBytes = 65536
            let id = "oversize-\(UInt32.random(in: 0...UInt32.max))"
            let socket = try WebSocketClient.connect(
                "ws://127.0.0.1:\(ports.ws)/oversize?size=100000&id=\(id)", configuration: configuration)
            let error = #expect(throws: TransportError.self) { try socket.receive(timeout: 5) }
            #expect(error?.kind == .limitExceeded)
            #expect(socket.sentCloseInfo?.code == .messageTooBig)
            #expect(try report(ports.ws, id)["code"]?.intValue == 1009)
        }
    }

    @Test func refusesBadHandshakes() throws {
        try withPeer { ports in
            let raw = ports.raw, port = ports.ws
            for path in ["/bad-accept", "/no-upgrade", "/no-connection", "/extension", "/unoffered-protocol"] {
                let error = #expect(throws: TransportError.self, "\(path)") {
                    try WebSocketClient.connect("ws://127.0.0.1:\(raw)\(path)")
                }
                #expect(error?.kind == .protocolViolation, "\(path): \(String(describing: error))")
            }
            let forbidden = #expect(throws: TransportError.self) { try WebSocketClient.connect("ws://127.0.0.1:\(raw)/status?code=403") }
            #expect(forbidden?.kind == .rejected)
            #expect(forbidden?.status == 403)
            #expect(forbidden?.message.contains("refused by peer") == true)

            let gated = #expect(throws: TransportError.self) { try WebSocketClient.connect("ws://127.0.0.1:\(port)/gate?token=wrong") }
            #expect(gated?.kind == .rejected)
            #expect(gated?.status == 401)
            #expect(gated?.message.contains("invalid token") == true)

            let byQuery = try WebSocketClient.connect("ws://127.0.0.1:\(port)/gate?token=secret")
            try byQuery.send(text: "in")
            #expect(try byQuery.receive(timeout: 5) == .text("in"))
            try byQuery.close()

            var configuration = WebSocketClient.Configuration()
            configuration.headers = ["Authorization": "Bearer secret"]
            let byHeader = try WebSocketClient.connect("ws://127.0.0.1:\(port)/gate", configuration: configuration)
            try byHeader.close()
        }
    }

    @Test(arguments: [("/invalid-utf8", 1007), ("/masked-frame", 1002), ("/reserved-bits", 1002), ("/fragmented-ping", 1002)])
    func failsOnBadServerFrames(path: String, code: Int) throws {
        try withPeer { ports in
            let id = "bad-frame-\(UInt32.random(in: 0...UInt32.max))"
            let socket = try WebSocketClient.connect("ws://127.0.0.1:\(ports.raw)\(path)?id=\(id)")
            let error = #expect(throws: TransportError.self) { try socket.receive(timeout: 5) }
            #expect(error?.kind == .protocolViolation)
            #expect(socket.sentCloseInfo?.code.rawValue == UInt16(code))
            #expect(try report(ports.ws, id)["code"]?.intValue == code)
        }
    }

    @Test func negotiatesSubprotocolAndSendsExtraHeaders() throws {
        try withPeer { ports in
            var configuration = WebSocketClient.Configuration()
            configuration.subprotocols = ["chat.v1", "chat.v2"]
            let socket = try WebSocketClient.connect("ws://127.0.0.1:\(ports.ws)/subprotocol", configuration: configuration)
            #expect(socket.subprotocol == "chat.v2")
            #expect(try socket.receive(timeout: 5) == .text("chat.v2"))
            try socket.close()

            var withHeaders = WebSocketClient.Configuration()
            withHeaders.headers = ["Authorization": "Bearer abc", "X-Omni": "1"]
            let echoHeaders = try WebSocketClient.connect("ws://127.0.0.1:\(ports.ws)/headers", configuration: withHeaders)
            guard case .text(let json) = try echoHeaders.receive(timeout: 5) else { Issue.record("no headers"); return }
            let pairs = try JSONValue.parse(json).arrayValue ?? []
            let names = pairs.compactMap { $0.arrayValue?.first?.stringValue?.lowercased() }
            #expect(names.contains("authorization") && names.contains("x-omni"))
            #expect(!names.contains("sec-websocket-extensions"))
            try echoHeaders.close()
        }
    }

    @Test func wssWithExtraCertificateAuthority() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-wss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try withPeer(["--tls", directory.path]) { ports in
            let url = "wss://localhost:\(try #require(ports.wss))/echo"
            let untrusted = #expect(throws: TransportError.self) { try WebSocketClient.connect(url) }
            #expect(untrusted?.kind == .tls)

            var configuration = WebSocketClient.Configuration()
            configuration.extraCACertificatePath = directory.appendingPathComponent("missing.pem").path
            let unreadable = #expect(throws: TransportError.self) { try WebSocketClient.connect(url, configuration: configuration) }
            #expect(unreadable?.kind == .tls)
            #expect(unreadable?.message.contains("missing.pem") == true)

            configuration.extraCACertificatePath = directory.appendingPathComponent("ca.pem").path
            let socket = try WebSocketClient.connect(url, configuration: configuration)
            let payload = [UInt8](repeating: 7, count: 200_000)
            try socket.send(binary: payload)
            #expect(try socket.receive(timeout: 5) == .binary(payload))
            try socket.send(text: "über TLS")
            #expect(try socket.receive(timeout: 5) == .text("über TLS"))
            #expect(try socket.close()?.code == .normal)
        }
    }

    @Test func reportsConnectAndURLErrors() throws {
        for url in ["http://127.0.0.1/", "ws://", "ws://host:99999/", "ws://a/#frag", "ws://user@host/"] {
            let error = #expect(throws: TransportError.self, "\(url)") { try WebSocketClient.connect(url) }
            #expect(error?.kind == .invalidURL, "\(url)")
        }
        // A port nobody listens on: bind one, note it, close it.
        let server = try HTTPServer()
        try server.start()
        let port = server.port
        server.stop()
        let refused = #expect(throws: TransportError.self) { try WebSocketClient.connect("ws://127.0.0.1:\(port)/") }
        #expect(refused?.kind == .connect)
    }
}
