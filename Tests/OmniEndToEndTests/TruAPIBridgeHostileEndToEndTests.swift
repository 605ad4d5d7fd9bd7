import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing

/// Issue 13's hostile-input line against the `omni truapi bridge` binary with its default limits (the same rules are
/// tested in process in OmniTruAPITests.BridgeServerTests): 33 connections, truncated, garbage, deeply nested and
/// text frames, an oversized message, and a product that stops reading. The bridge stays up, keeps answering the
/// others, and says on its event stream what it dropped.
@Suite(.serialized, .timeLimit(.minutes(5)), .offPool)
struct TruAPIBridgeHostileEndToEndTests {
    typealias E2E = TruAPIBridgeE2E
    static let handshake = E2E.string("p:1") + [0, 0, 1]
    static let handshakeAnswer = E2E.string("p:1") + [1, 0, 0]

    /// Sends a handshake on `socket` and checks the one answer.
    static func answers(_ socket: WebSocketConnection) throws -> Bool {
        try socket.send(binary: handshake)
        while true {
            switch try socket.receive(timeout: 20) {
            case .binary(let bytes): return bytes == handshakeAnswer
            case .pong: continue
            default: return false
            }
        }
    }

    @Test func theBridgeOutlivesHostileClientsAndLogsWhatItDropped() throws {
        let bridge = try BridgeProcess(["--product-id", "a.test", "--ephemeral"])
        var sockets = try (0..<32).map { _ in try WebSocketClient.connect(bridge.url) }
        try bridge.event("connection_open", 32)
        do {
            _ = try WebSocketClient.connect(bridge.url)
            Issue.record("a 33rd connection was accepted")
        } catch {
            #expect(error.status == 503, "\(error)")
        }
        #expect(try bridge.event("connection_limit")["limit"] == 32)

        // Garbage on connection 1: nothing decodable is answered, a malformed request payload is (MalformedFrame).
        var nested: [UInt8] = [0x00]
        for _ in 0..<200 { nested += [0x02, 0x00, 0x00, 0x04] }
        let garbage: [[UInt8]] = [[], [0x0c, 0x70], [0xff] + [UInt8](repeating: 0xee, count: 64), [0xfd, 0xff, 0xff, 0xff],
                                  E2E.string("h:1") + [55] + nested, E2E.string("p:1") + [250]]
        for frame in garbage { try sockets[0].send(binary: frame) }
        try sockets[0].send(text: "not a frame")
        try sockets[0].send(binary: E2E.string("p:9") + [12, 0xff])
        guard case .binary(let malformed) = try sockets[0].receive(timeout: 20) else { throw TestSupportError("no MalformedFrame answer") }
        #expect(Array(malformed.prefix(8)) == E2E.string("p:9") + [13, 0x00, 0x01, 0x03], "local_storage_read: [ver 0][Err][MalformedFrame]")
        try bridge.event("frame_dropped", garbage.count)
        try bridge.event("text_frame_ignored")
        #expect(try Self.answers(sockets[0]), "the connection that sent garbage still answers")

        // An oversized message ends only its own connection.
        try sockets[1].send(binary: [UInt8](repeating: 0, count: (8 << 20) + 1))
        if case .close(let info) = try sockets[1].receive(timeout: 30) { #expect(info.code == .messageTooBig) }
        let refused = try bridge.event("read_error")
        #expect(refused["message"]?.stringValue?.contains("1009") == true)
        try bridge.event(timeout: 30) { $0["event"] == "connection_closed" && $0["connection"] == refused["connection"] }
        sockets[1].abort()
        sockets.remove(at: 1)
        for socket in sockets { #expect(try Self.answers(socket)) }

        // A product that writes a 1 MiB value and asks for it back 200 times without reading is dropped once its
        // answers fill the queue; everyone else is still answered.
        let stalled = try WebSocketClient.connect(bridge.url)
        let stalledID = try bridge.event("connection_open", 33)["connection"]
        let value = [UInt8](repeating: 0x5a, count: 1 << 20)
        try stalled.send(binary: E2E.storageWrite(id: "w", key: "big", value: value))
        let read = E2E.string("r") + [12, 0] + E2E.string("big")
        for _ in 0..<200 { try stalled.send(binary: read) }
        let dropped = try bridge.event(timeout: 120) { ["queue_full", "send_error"].contains($0["event"]?.stringValue ?? "") }
        #expect(dropped["connection"] == stalledID)
        try bridge.event(timeout: 60) { $0["event"] == "connection_closed" && $0["connection"] == stalledID }
        stalled.abort()
        for socket in sockets { #expect(try Self.answers(socket)) }
        let call = try E2E.truapi(["call", "system_handshake", "--json", #"{"codec_version":1}"#, "--output", "json"], url: bridge.url)
        #expect(call.status == 0 && call.stdoutText == "{\"Ok\":null}\n", "\(call.stderrText)")

        for socket in sockets { socket.abort() }
        #expect(try bridge.stop() == 143)
    }
}
