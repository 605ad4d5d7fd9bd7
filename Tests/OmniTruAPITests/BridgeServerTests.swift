import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
@testable import OmniTruAPI
import Testing

/// The bridge on a real loopback socket, in process: the exchanges, the gate, limits, hostile input, a product that
/// stops reading, shutdown, and a recorded session replayed. Blocking socket work runs off the concurrency pool.
@Suite("TrUAPI bridge over WebSocket", .serialized, .timeLimit(.minutes(10)), .offPool)
struct BridgeServerTests {
    static let zeros = [UInt8](repeating: 0, count: 32)
    static let aa = [UInt8](repeating: 0xaa, count: 32)

    /// The chains and product the exchanges' hosts have: supported_chains {paseo: AssetHub 0xaa…}, a host that
    /// supports the zero genesis (the iOS stub), the pairing host's product dotli.dot.
    static func exchangeHarness() throws -> BridgeHarness {
        try BridgeHarness(product: "dotli.dot", chains: TruAPIChainSet(network: "paseo", chains: [(.relay, zeros), (.assetHub, aa)]))
    }

    /// Exchanges that need a platform failing in a way no real store does (a read that answers Full).
    static let platformOnly: Set<String> = ["local_storage_read_full"]

    @Test("every exchange a host can reproduce, through the real bridge, byte for byte", .vectors("truapi/exchanges.json"))
    func exchanges() async throws {
        let harness = try Self.exchangeHarness()
        defer { harness.stop() }
        let vectors = try #require(try truapiVector("exchanges.json")["vectors"]?.arrayValue)
        var replayed: [String] = []
        for vector in vectors {
            let name = try #require(vector["name"]?.stringValue)
            if Self.platformOnly.contains(name) { continue }
            let request = hexBytes(try #require(vector["request"]?["hex"]?.stringValue))
            let expected = vector["expect"]?.arrayValue ?? []
            let frames = try await offPool { () -> [TruAPIFrame] in
                let client = try harness.client()
                defer { client.close() }
                try client.send(request)
                var frames: [TruAPIFrame] = []
                for _ in expected { frames.append(try client.nextFrame()) }
                if name == "connection_status_start_then_stop" {
                    // After the stop nothing more comes: the next frame is the answer to a later request.
                    try client.send(TruAPIFrame(requestID: "p:1", discriminant: 19).bytes)
                    try client.send(hexBytes("0c703a32000001"))
                    frames.append(try client.nextFrame())
                }
                return frames
            }
            for (want, got) in zip(expected, frames) {
                if let hex = want["hex"]?.stringValue {
                    #expect(Hex.encode(got.bytes) == hex.lowercased(), "\(name)")
                } else {
                    #expect(got.requestID == want["request_id"]?.stringValue && Int64(got.discriminant) == want["discriminant"]?.int64Value, "\(name)")
                    let prefix = want["payload_prefix_hex"]?.stringValue ?? ""
                    #expect(Hex.encode(got.payload).hasPrefix(prefix), "\(name)")
                    var reader = SCALEReader(got.payload, start: prefix.count / 2)
                    #expect(try !reader.string().isEmpty, "\(name): a non-empty reason")
                }
            }
            if name == "connection_status_start_then_stop" {
                #expect(frames.last.map { Hex.encode($0.bytes) } == "0c703a32010000", "nothing between the stop and the next answer")
            }
            replayed.append(name)
        }
        #expect(replayed.contains("create_account_proof_foreign_key_not_allowlisted"), "the exchange part 1 left to the bridge")
        #expect(replayed.count == vectors.count - Self.platformOnly.count)
    }

    @Test("a wrong or missing token: HTTP 401 invalid token before any upgrade, logged")
    func unauthorized() async throws {
        let harness = try BridgeHarness()
        defer { harness.stop() }
        let base = "ws://127.0.0.1:\(harness.server.port)"
        for target in ["/", "/?t=", "/?t=" + String(repeating: "0", count: 64), "/?token=" + (harness.token ?? "")] {
            let error = try await offPool { () -> TransportError? in
                do { _ = try WebSocketClient.connect(base + target).close() } catch { return error as? TransportError }
                return nil
            }
            #expect(error?.kind == .rejected && error?.status == 401 && error?.message.contains("invalid token") == true, "\(target): \(String(describing: error))")
        }
        #expect(harness.events.count("reject_unauthorized") == 4)
        // The path is not checked; the client layer reports 401 as unauthorized without the token.
        let url = base + "/any/path?x=1&t=" + (harness.token ?? "")
        try await offPool { try TruAPIClient.connect(url, timeout: 5).close() }
        let refused = try await offPool { () -> TruAPIError? in
            do { _ = try TruAPIClient.connect(base + "/?t=wrongwrongwrong", timeout: 5) } catch { return error as? TruAPIError }
            return nil
        }
        #expect(refused?.kind == .unauthorized && refused?.message.contains("wrongwrongwrong") == false, "\(String(describing: refused))")
    }

    @Test("--allow-origin: a listed origin or none connects, another gets 403")
    func origins() async throws {
        let harness = try BridgeHarness { $0.allowedOrigins = ["http://localhost:3000"] }
        defer { harness.stop() }
        try await offPool { try TruAPIClient.connect(harness.url, timeout: 5, origin: "http://localhost:3000").close() }
        try await offPool { try TruAPIClient.connect(harness.url, timeout: 5).close() }
        let refused = try await offPool { () -> TruAPIError? in
            do { _ = try TruAPIClient.connect(harness.url, timeout: 5, origin: "http://evil.example") } catch { return error as? TruAPIError }
            return nil
        }
        #expect(refused?.kind == .callError && refused?.message.contains("403") == true, "\(String(describing: refused))")
        #expect(harness.events.count("reject_origin") == 1)
    }

    @Test("33 connections: the 33rd is refused and logged, the 32 others keep answering")
    func connectionLimit() async throws {
        let harness = try BridgeHarness()
        defer { harness.stop() }
        let clients = try await offPool { try (0..<32).map { _ in try harness.client() } }
        let refused = try await offPool { () -> TruAPIError? in
            do { _ = try harness.client() } catch { return error as? TruAPIError }
            return nil
        }
        #expect(refused?.kind == .callError && refused?.message.contains("503") == true, "\(String(describing: refused))")
        try await harness.events.next(for: "connection_limit") { $0.name == "connection_limit" }
        #expect(harness.bridge.connectionCount == 32)
        try await offPool {
            for client in clients {
                let answer = try client.call("system_handshake", .record(["codec_version": .int(1)]))
                guard answer.okBody == .unit else { throw TestSupportError("a connection did not answer") }
            }
        }
        clients[0].close()
        try await harness.events.next(for: "a close") { $0.name == "connection_closed" }
        let again = try await offPool { try harness.client() }
        #expect(try await offPool { try again.call("system_handshake", .record(["codec_version": .int(1)])) }.okBody == .unit)
        clients.dropFirst().forEach { $0.close() }
        again.close()
    }

    @Test("a product that reconnects the instant its close is answered gets the freed slot, every time (limit 1, 200 rounds)")
    func reconnectAtOnceFindsTheSlotFree() async throws {
        let harness = try BridgeHarness { $0.maxConnections = 1 }
        defer { harness.stop() }
        let rounds = 200
        try await offPool {
            for round in 0..<rounds {
                let client: TruAPIClient
                do { client = try harness.client() } catch { throw TestSupportError("round \(round): \(error)") }
                let answer = try client.call("system_handshake", .record(["codec_version": .int(1)]))
                guard answer.okBody == .unit else { throw TestSupportError("round \(round): no answer") }
                client.close()  // returns once the bridge has answered the close; the next connect follows at once
            }
        }
        #expect(harness.events.count("connection_limit") == 0, "a reconnect was refused for a slot still held")
        try await harness.events.next(for: "the last close") { $0.name == "connection_closed" && $0["connection"] == .int(rounds) }
        #expect(harness.bridge.connectionCount == 0)
    }

    @Test("truncated, garbage, nested, misdirected, unknown and text frames are dropped and logged; the connection still answers")
    func hostileFrames() async throws {
        let harness = try BridgeHarness()
        defer { harness.stop() }
        var random = SeededGenerator(seed: 0x7a11)
        var hostile: [[UInt8]] = [
            [], [0x0c], [0x0c, 0x70, 0x3a], hexBytes("fdffffff"), hexBytes("03ffffffffff"), hexBytes("00fa"),
            hexBytes("0c703a3101000001"),                       // a response, sent to the host
            hexBytes("0c703a31" + "15" + "0000"),                // a receive of a product-initiated subscription
            hexBytes("0c703a31"),                               // no discriminant
            [0xff] + [UInt8](repeating: 0xee, count: 300),
        ]
        // chat_custom_message_render receive on an h: id that is not open, nesting Box nodes 200 deep.
        var nested: [UInt8] = [0x00]
        for _ in 0..<200 { nested += [0x02, 0x00, 0x00, 0x04] }
        hostile.append(TruAPIFrame(requestID: "h:1", discriminant: 55, payload: nested).bytes)
        // Garbage behind 0xff, a request-id length in compact mode 3 (67 length bytes): never a frame.
        for _ in 0..<40 { hostile.append([0xff] + (0..<Int.random(in: 0...63, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }) }
        let frames = hostile
        let socket = try await offPool { try WebSocketClient.connect(harness.url) }
        try await offPool {
            for frame in frames { try socket.send(binary: frame) }
            try socket.send(text: "not a frame")
            // A request with a payload that does not decode is answered MalformedFrame, not dropped.
            try socket.send(binary: hexBytes("0c703a390cff"))
            try socket.send(binary: hexBytes("0c703a32000001"))
        }
        let answers = try await offPool { () -> [TruAPIFrame] in
            var frames: [TruAPIFrame] = []
            while frames.count < 2 {
                guard case .binary(let bytes) = try socket.receive(timeout: 10) else { continue }
                frames.append(try TruAPIFrame.decode(bytes))
            }
            return frames
        }
        #expect(Set(answers.map(\.requestID)) == ["p:9", "p:2"])
        #expect(answers.first { $0.requestID == "p:9" }.map { Hex.encode($0.payload.prefix(3)) } == "000103", "MalformedFrame")
        #expect(answers.first { $0.requestID == "p:2" }.map { Hex.encode($0.bytes) } == "0c703a32010000")
        try await harness.events.next(for: "text_frame_ignored") { $0.name == "text_frame_ignored" }
        #expect(harness.events.count("frame_dropped") == 51, "\(harness.events.all.map(\.name))")
        #expect(harness.events.count("malformed_payload") == 1)
        try await offPool { _ = try socket.close() }
    }

    @Test("an oversized message closes only its own connection (1009), logged; the bridge answers the others")
    func oversized() async throws {
        let harness = try BridgeHarness()
        defer { harness.stop() }
        let other = try await offPool { try harness.client() }
        let big = try await offPool { try WebSocketClient.connect(harness.url) }
        let closing = try await offPool { () -> WebSocketMessage? in
            try big.send(binary: [UInt8](repeating: 0, count: TruAPIFrame.maximumBytes + 1))
            return try? big.receive(timeout: 20)
        }
        if case .close(let info)? = closing { #expect(info.code == .messageTooBig) }
        try await harness.events.next(for: "read_error") { $0.name == "read_error" }
        #expect(try await offPool { try other.call("system_handshake", .record(["codec_version": .int(1)])) }.okBody == .unit)
        other.close()
    }

    @Test("a product that stops reading is dropped once its queue is full, logged; the others are answered")
    func stalledReader() async throws {
        let harness = try BridgeHarness {
            $0.outboundQueueBytes = 4 << 20
            $0.sendTimeout = 3
        }
        defer { harness.stop() }
        let value = [UInt8](repeating: 0x5a, count: 1 << 20)
        let write = try TruAPIMessage(requestID: "w", method: method("local_storage_write"), kind: .request,
                                      payload: .variant("V1", .record(["key": .string("big"), "value": .bytes(value)]))).frame().bytes
        let read = try TruAPIMessage(requestID: "r", method: method("local_storage_read"), kind: .request,
                                     payload: .variant("V1", .record(["key": .string("big")]))).frame().bytes
        let stalled = try await offPool { try WebSocketClient.connect(harness.url) }
        try await offPool {
            try stalled.send(binary: write)
            // Never read: every answer is 1 MiB, far more than the socket buffers and the queue together hold.
            for _ in 0..<200 { try stalled.send(binary: read) }
        }
        let dropped = try await harness.events.next(timeout: 60, for: "queue_full or send_error") { ["queue_full", "send_error"].contains($0.name) }
        #expect(dropped["connection"] == .int(1))
        try await harness.events.next(for: "connection_closed") { $0.name == "connection_closed" && $0["connection"] == .int(1) }
        let other = try await offPool { try harness.client() }
        #expect(try await offPool { try other.call("local_storage_read", .record(["key": .string("big")])) }.okBody
                == .record(["value": .some(.bytes(value))]))
        other.close()
        stalled.abort()
    }

    @Test("shutdown ends every connection with Close 1000 bridge closing and refuses new ones")
    func shutdown() async throws {
        let harness = try BridgeHarness()
        let socket = try await offPool { try WebSocketClient.connect(harness.url) }
        try await harness.events.next(for: "connection_open") { $0.name == "connection_open" }
        async let stopped: Void = offPool { harness.bridge.shutdown() }
        let message = try await offPool { try socket.receive(timeout: 20) }
        try await stopped
        #expect(message == .close(WebSocketCloseInfo(code: .normal, reason: "bridge closing")))
        let refused = try await offPool { () -> TransportError? in
            do { _ = try WebSocketClient.connect(harness.url) } catch { return error as? TransportError }
            return nil
        }
        #expect(refused?.status == 503)
        harness.server.stop()
        harness.context.close()
    }

    @Test("--send-handshake: each new connection is asked, and the answer is logged")
    func hostHandshake() async throws {
        let harness = try BridgeHarness { $0.sendHandshake = true }
        defer { harness.stop() }
        let socket = try await offPool { try WebSocketClient.connect(harness.url) }
        let asked = try await offPool { () -> [UInt8] in
            guard case .binary(let bytes) = try socket.receive(timeout: 10) else { throw TestSupportError("no handshake") }
            try socket.send(binary: hexBytes("0c683a31010000"))
            return bytes
        }
        #expect(Hex.encode(asked) == "0c683a31000001", "h:1, system_handshake, codec version 1")
        let logged = try await harness.events.next(for: "handshake") { $0.name == "handshake" }
        #expect(logged["result"]?.stringValue == "ok")
        try await offPool { _ = try socket.close() }
    }

    @Test("a trace records frames with secrets redacted; replaying it against a fresh bridge matches, an edit shows as a difference")
    func traceAndReplay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("trace.jsonl")
        let harness = try BridgeHarness(trace: try TruAPITrace(path: path))
        let secretKey = String(repeating: "ab", count: 64)
        try await offPool {
            let client = try harness.client()
            _ = try client.call("system_handshake", .record(["codec_version": .int(1)]), id: "p:1")
            _ = try client.call("local_storage_write", .record(["key": .string("k"), "value": .bytes([1, 2, 3])]), id: "p:2")
            _ = try client.call("local_storage_read", .record(["key": .string("k")]), id: "p:3")
            try client.send(TruAPIFrame(requestID: "p:4", discriminant: 104, payload: [0]).bytes)
            _ = try client.nextFrame()
            try client.send(TruAPIFrame(requestID: "p:4", discriminant: 105).bytes)
            try client.send([0xde, 0xad])
            _ = try client.call("system_handshake", .record(["codec_version": .int(7)]), id: "p:5")
            client.close()
            let secret = try harness.client()
            let topUp = SCALEValue.record(["into": .absent, "amount": .int(5),
                                           "source": .variant("PrivateKey", .record(["sr25519_secret_key": .bytes(hexBytes(secretKey))]))])
            _ = try secret.call("payment_top_up", topUp, id: "p:1")
            secret.close()
        }
        try await harness.events.next(for: "second close") { $0.name == "connection_closed" && $0["connection"] == .int(2) }
        harness.stop()

        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains(secretKey), "the secret key is not in the trace")
        let lines = try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        let topUpLine = try #require(lines.first { $0["method"]?.stringValue == "payment_top_up" && $0["kind"]?.stringValue == "request" })
        #expect(topUpLine["redacted"]?.boolValue == true && topUpLine["payload_hex"] == nil)
        #expect(topUpLine["payload"]?["source"]?["PrivateKey"]?["sr25519_secret_key"]?.stringValue == TruAPITrace.redactedMarker)
        #expect(lines.allSatisfy { $0["protocol"]?.stringValue == "0.9" })
        #expect(lines.contains { $0["frame_hex"]?.stringValue == "0xdead" && $0["error"] != nil })
        #expect(lines.contains { $0["direction"]?.stringValue == "out" && $0["method"]?.stringValue == "theme_subscribe" && $0["kind"]?.stringValue == "receive" })

        // The whole recording cannot be replayed: the redacted frame is named by its line.
        #expect(throws: TruAPIError.self) { try TruAPIReplay.parse(text, source: "trace.jsonl") }
        let first = lines.filter { $0["connection"]?.int64Value == 1 }.map { $0.serialized() }.joined(separator: "\n")
        let entries = try TruAPIReplay.parse(first, source: "trace.jsonl")
        let fresh = try BridgeHarness()
        defer { fresh.stop() }
        let report = try await offPool { try TruAPIReplay.run(entries, url: fresh.url, timeout: 10) }
        #expect(report.differences.isEmpty, "\(report.differences.map { $0.json.serialized() })")
        #expect(report.framesSent == 7 && report.framesExpected == 5 && report.framesMatched == 5)

        let edited = first.replacingOccurrences(of: #""payload":{"Ok":{"value":"0x010203"}}"#, with: #""payload":{"Ok":{"value":"0x09"}}"#)
            .replacingOccurrences(of: "\"payload_hex\":\"0x0000010c010203\"", with: "\"payload_hex\":\"0x0000010409\"")
        #expect(edited != first)
        let changed = try await offPool { try TruAPIReplay.run(try TruAPIReplay.parse(edited, source: "edited"), url: fresh.url, timeout: 10) }
        #expect(changed.differences.map(\.kind) == [.changed], "\(changed.differences.map { $0.json.serialized() })")
        #expect(changed.differences.first?.expected?["payload"]?["Ok"]?["value"]?.stringValue == "0x09")
    }
}
