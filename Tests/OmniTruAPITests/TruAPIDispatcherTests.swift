import Foundation
import OmniCodec
import OmniTestSupport
import OmniTruAPI
import Synchronization
import Testing

/// A value behind a lock, shareable by reference.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// An in-memory connection: frames the dispatcher sends arrive in `next()`; events are recorded.
final class MemoryConnection: Sendable {
    let frames: AsyncStream<TruAPIFrame>
    private let continuation: AsyncStream<TruAPIFrame>.Continuation
    private let recorded = Locked<[TruAPIDispatchEvent]>([])
    private let sent = Locked<[TruAPIFrame]>([])
    let dispatcher: TruAPIDispatcher

    init(host: any TruAPIHost) {
        let (frames, continuation) = AsyncStream<TruAPIFrame>.makeStream()
        self.frames = frames
        self.continuation = continuation
        let recorded = recorded, sent = sent
        dispatcher = TruAPIDispatcher(host: host, sink: { frame in
            sent.withLock { $0.append(frame) }
            continuation.yield(frame)
        }, log: { event in recorded.withLock { $0.append(event) } })
    }

    var events: [TruAPIDispatchEvent] { recorded.withLock { $0 } }
    var allSent: [TruAPIFrame] { sent.withLock { $0 } }

    func send(_ hex: String) { dispatcher.receive(hexBytes(hex)) }
    func send(_ frame: TruAPIFrame) { dispatcher.receive(frame.bytes) }
}

/// A one-shot event a test opens and handlers wait for.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// A host whose answers the test scripts: each request or start waits for the gate named by its request id (if
/// any), then answers with the default host's answer unless the test gave one.
final class ScriptedHost: TruAPIDefaultHost, @unchecked Sendable {
    let gates = Mutex<[String: Gate]>([:])
    let answers = Mutex<[String: Result<SCALEValue, TruAPICallError>]>([:])
    let streams = Mutex<[String: TruAPISubscription]>([:])
    let started = Mutex<[String]>([])
    let onStart = Gate()

    func gate(_ id: String) -> Gate {
        gates.withLock { gates in
            if let gate = gates[id] { return gate }
            let gate = Gate()
            gates[id] = gate
            return gate
        }
    }

    override func respond(to call: TruAPICall) async -> Result<SCALEValue, TruAPICallError> {
        if let gate = gates.withLock({ $0[call.requestID] }) { await gate.wait() }
        if let answer = answers.withLock({ $0[call.requestID] }) { return answer }
        return await super.respond(to: call)
    }

    override func subscribe(to call: TruAPICall) async -> TruAPISubscription {
        started.withLock { $0.append(call.requestID) }
        onStart.open()
        if let gate = gates.withLock({ $0[call.requestID] }) { await gate.wait() }
        if let scripted = streams.withLock({ $0.removeValue(forKey: call.requestID) }) { return scripted }
        return await super.subscribe(to: call)
    }
}

func frame(_ id: String, _ method: String, _ kind: TruAPIFrameKind, _ payloadHex: String = "") -> TruAPIFrame {
    TruAPIFrame(requestID: id, discriminant: TruAPIWireTable.method(named: method)!.discriminant(of: kind)!, payload: hexBytes(payloadHex))
}

@Suite("TrUAPI dispatcher rules", .timeLimit(.minutes(1)))
struct TruAPIDispatcherTests {
    @Test("every request gets exactly one response on its response id, even when the host answers out of order")
    func outOfOrderResponses() async throws {
        let host = ScriptedHost()
        let slow = host.gate("p:1")
        let connection = MemoryConnection(host: host)
        var frames = connection.frames.makeAsyncIterator()
        connection.send(frame("p:1", "system_handshake", .request, "0001"))
        connection.send(frame("p:2", "system_feature_supported", .request, "0000" + "80" + String(repeating: "00", count: 32)))
        let first = try #require(await frames.next())
        #expect(first.requestID == "p:2" && first.discriminant == 3 && Hex.encode(first.payload) == "000000")
        slow.open()
        let second = try #require(await frames.next())
        #expect(second.requestID == "p:1" && second.discriminant == 1 && Hex.encode(second.payload) == "0000")
        await connection.dispatcher.waitUntilSettled()
        #expect(connection.allSent.count == 2)
    }

    /// A host that has some answers at once: what it answers immediately must never reach `respond`.
    final class ImmediateHost: TruAPIDefaultHost, @unchecked Sendable {
        let responded = Mutex<[String]>([])
        let slow = Gate()

        override func immediateAnswer(to call: TruAPICall) -> Result<SCALEValue, TruAPICallError>? {
            call.method.name == "system_handshake" ? TruAPIDefaultHost.defaultAnswer(to: call) : nil
        }

        override func respond(to call: TruAPICall) async -> Result<SCALEValue, TruAPICallError> {
            responded.withLock { $0.append(call.requestID) }
            await slow.wait()
            return TruAPIDefaultHost.defaultAnswer(to: call)
        }
    }

    @Test("an answer the host has at once is sent before receive returns, without respond, unless an earlier request is still out")
    func immediateAnswers() async throws {
        let host = ImmediateHost()
        let connection = MemoryConnection(host: host)
        let sent = { connection.allSent.map { $0.requestID + " " + Hex.encode($0.payload) } }
        connection.send(frame("p:1", "system_handshake", .request, "0001"))
        connection.send(frame("p:2", "system_handshake", .request, "0002"))
        #expect(sent() == ["p:1 0000", "p:2 0001000001"], "sent synchronously, in arrival order")
        // A request the host answers later; a handshake behind it waits its turn (a read must not overtake a write).
        connection.send(frame("p:3", "system_feature_supported", .request, "0000" + "80" + String(repeating: "00", count: 32)))
        connection.send(frame("p:4", "system_handshake", .request, "0001"))
        #expect(sent().count == 2)
        host.slow.open()
        await connection.dispatcher.waitUntilSettled()
        #expect(Set(sent().dropFirst(2)) == ["p:3 000000", "p:4 0000"])
        #expect(Set(host.responded.withLock { $0 }) == ["p:3", "p:4"])
        connection.send(frame("p:5", "system_handshake", .request, "0001"))
        #expect(sent().last == "p:5 0000" && host.responded.withLock { $0.count } == 2, "nothing out: immediate again")
        connection.dispatcher.close()
        connection.send(frame("p:6", "system_handshake", .request, "0001"))
        #expect(sent().count == 5, "nothing is sent after close, immediate or not")
    }

    @Test("a request payload that does not decode is answered MalformedFrame, never dropped")
    func malformedRequest() async throws {
        let connection = MemoryConnection(host: TruAPIDefaultHost())
        var frames = connection.frames.makeAsyncIterator()
        connection.send(frame("p:7", "local_storage_read", .request, "0005"))
        let answer = try #require(await frames.next())
        #expect(answer.requestID == "p:7" && answer.discriminant == 13)
        #expect(Hex.encode(answer.payload).hasPrefix("000103"))
        let payload = try TruAPIMessage.decode(answer.bytes).payload
        guard case .variant("V1", .err(.variant("MalformedFrame", let fields)))? = payload else {
            Issue.record("not a MalformedFrame answer: \(String(describing: payload))")
            return
        }
        #expect(fields["reason"]?.stringValue?.contains("byte") == true, "the reason says where: \(fields)")
        #expect(connection.events.contains { if case .malformedPayload = $0 { return true }; return false })
    }

    @Test("unknown discriminants, undecodable envelopes and frames for the product are dropped and logged")
    func drops() async throws {
        let connection = MemoryConnection(host: TruAPIDefaultHost())
        var frames = connection.frames.makeAsyncIterator()
        connection.send("0c703a31faaabb")          // unknown discriminant 250
        connection.send("ffffffff")                // garbage
        connection.send("")                        // empty
        connection.send("0c703a31010000")          // a handshake *response* sent to the host
        connection.send("0c703a311500")            // a connection-status *receive* sent to the host
        connection.send("0c703a39370000")          // a host-initiated start (chat render, 52+3=55 receive) without h:
        connection.send(frame("p:9", "system_handshake", .request, "0001"))
        let answer = try #require(await frames.next())
        #expect(answer.requestID == "p:9", "the first frame out answers the handshake; nothing came of the dropped ones")
        await connection.dispatcher.waitUntilSettled()
        #expect(connection.allSent.count == 1)
        let events = connection.events
        #expect(events.contains(.droppedUnknownDiscriminant(250, requestID: "p:1")))
        #expect(events.filter { if case .droppedUndecodable = $0 { return true }; return false }.count == 2)
        #expect(events.filter { if case .droppedWrongDirection = $0 { return true }; return false }.count == 3)
    }

    @Test("a stop that arrives before the host resolves the start cancels it: nothing is sent")
    func stopBeforeStart() async throws {
        let host = ScriptedHost()
        let gate = host.gate("p:1")
        host.streams.withLock { $0["p:1"] = .stream(truAPIFiniteStream([.unitVariant("Connected")])) }
        let connection = MemoryConnection(host: host)
        connection.send(frame("p:1", "account_connection_status_subscribe", .start, "00"))
        #expect(connection.dispatcher.liveSubscriptions == ["p:1"], "the id is reserved at once")
        connection.send(frame("p:1", "account_connection_status_subscribe", .stop))
        #expect(connection.dispatcher.liveSubscriptions.isEmpty)
        gate.open()
        await connection.dispatcher.waitUntilSettled()
        #expect(connection.allSent.isEmpty, "\(connection.allSent)")
    }

    @Test("items go out as receive; a stream that ends sends one empty interrupt")
    func streamEnds() async throws {
        let host = ScriptedHost()
        host.streams.withLock {
            $0["p:3"] = .stream(truAPIFiniteStream([.unitVariant("Connected"), .unitVariant("Disconnected")]))
        }
        let connection = MemoryConnection(host: host)
        var frames = connection.frames.makeAsyncIterator()
        connection.send(frame("p:3", "account_connection_status_subscribe", .start))
        let one = try #require(await frames.next()), two = try #require(await frames.next()), end = try #require(await frames.next())
        #expect([one, two].map { "\($0.discriminant):\(Hex.encode($0.payload))" } == ["21:0001", "21:0000"])
        #expect(end.discriminant == 20 && end.payload.isEmpty)
        #expect(connection.dispatcher.liveSubscriptions.isEmpty)
    }

    @Test("a second start with a live id replaces the old stream; the old one gets no interrupt")
    func replacedSubscription() async throws {
        let host = ScriptedHost()
        let connection = MemoryConnection(host: host)
        var frames = connection.frames.makeAsyncIterator()
        connection.send(frame("p:5", "theme_subscribe", .start, "00"))
        #expect(try #require(await frames.next()).discriminant == 107)
        #expect(host.theme.subscriberCount == 1)
        connection.send(frame("p:5", "theme_subscribe", .start, "00"))
        #expect(try #require(await frames.next()).discriminant == 107)
        connection.send(frame("p:5", "theme_subscribe", .stop))
        await connection.dispatcher.waitUntilSettled()
        #expect(connection.events.contains(.replacedSubscription(method: "theme_subscribe", requestID: "p:5")))
        #expect(!connection.allSent.contains { $0.discriminant == 106 }, "no interrupt: \(connection.allSent)")
        #expect(host.theme.subscriberCount == 0, "both streams were torn down")
    }

    @Test("nothing follows a stop, not even when the value changes; a stop for an unknown id is ignored")
    func nothingAfterStop() async throws {
        let host = ScriptedHost()
        let connection = MemoryConnection(host: host)
        var frames = connection.frames.makeAsyncIterator()
        connection.send(frame("p:1", "account_connection_status_subscribe", .start))
        let first = try #require(await frames.next())
        #expect(Hex.encode(first.bytes) == "0c703a31150000")
        host.connectionStatus.update(.unitVariant("Connected"))
        #expect(Hex.encode(try #require(await frames.next()).payload) == "0001", "a change is pushed")
        connection.send(frame("p:1", "account_connection_status_subscribe", .stop))
        await connection.dispatcher.waitUntilSettled()
        host.connectionStatus.update(.unitVariant("Disconnected"))
        connection.send(frame("p:404", "account_connection_status_subscribe", .stop))
        connection.send(frame("p:2", "system_handshake", .request, "0001"))
        #expect(try #require(await frames.next()).requestID == "p:2")
        #expect(connection.allSent.count == 3)
        #expect(connection.events.contains(.ignoredStop(method: "account_connection_status_subscribe", requestID: "p:404")))
    }

    @Test("typed start failures send one typed interrupt; plain ones an empty interrupt; malformed starts too")
    func startFailures() async throws {
        let connection = MemoryConnection(host: TruAPIDefaultHost())
        var frames = connection.frames.makeAsyncIterator()
        connection.send(frame("p:b", "payment_balance_subscribe", .start, "0000"))
        #expect(Hex.encode(try #require(await frames.next()).payload) == "00000000")
        connection.send(frame("p:c", "chat_list_subscribe", .start, "00"))
        let plain = try #require(await frames.next())
        #expect(plain.discriminant == 44 && plain.payload.isEmpty)
        connection.send(frame("p:m", "payment_balance_subscribe", .start, "ff"))
        let malformed = try #require(await frames.next())
        #expect(Hex.encode(malformed.payload).hasPrefix("0003"))
        connection.send(frame("p:f", "chain_follow_head_subscribe", .start, "07"))
        let malformedPlain = try #require(await frames.next())
        #expect(malformedPlain.discriminant == 78 && malformedPlain.payload.isEmpty)
    }

    @Test("an answer that does not fit the method's types becomes HostFailure, never a bad frame")
    func unencodableAnswer() async throws {
        let host = ScriptedHost()
        host.answers.withLock { $0["p:1"] = .success(.string("not a struct")) }
        let connection = MemoryConnection(host: host)
        var frames = connection.frames.makeAsyncIterator()
        connection.send(frame("p:1", "system_feature_supported", .request, "0000" + "00"))
        let answer = try #require(await frames.next())
        #expect(Hex.encode(answer.payload).hasPrefix("000104"))
        #expect(connection.events.contains { if case .unencodableAnswer = $0 { return true }; return false })
    }

    @Test("the host-initiated handshake goes out as h:1 and resolves with the product's answer")
    func hostHandshake() async throws {
        let connection = MemoryConnection(host: TruAPIDefaultHost())
        var frames = connection.frames.makeAsyncIterator()
        async let answer = connection.dispatcher.sendHandshake()
        let request = try #require(await frames.next())
        #expect(Hex.encode(request.bytes) == "0c683a31000001")
        connection.send("0c683a31010000")
        let result = await answer
        #expect(result == .success(.unit))
        // A stray h: response for nothing pending is dropped.
        connection.send("0c683a39010000")
        #expect(connection.events.contains(.droppedWrongDirection(method: "system_handshake", kind: .response, requestID: "h:9")))
    }

    @Test("host-initiated subscriptions: start h:N, the product's items arrive, its interrupt ends the stream")
    func hostInitiatedSubscription() async throws {
        let connection = MemoryConnection(host: TruAPIDefaultHost())
        var frames = connection.frames.makeAsyncIterator()
        let render = method("chat_custom_message_render")
        let (id, items) = try connection.dispatcher.startHostSubscription(
            method: render, request: .record(["message_id": .string("m"), "message_type": .string("t"), "payload": .bytes([])]))
        let start = try #require(await frames.next())
        #expect(start.requestID == id && id == "h:1" && start.discriminant == 52)
        connection.send(TruAPIFrame(requestID: id, discriminant: 55, payload: hexBytes("00" + "01" + "0868 69")))
        connection.send(TruAPIFrame(requestID: id, discriminant: 54))
        var received: [SCALEValue] = []
        for await item in items { received.append(item) }
        #expect(received == [.variant("String", .record(["text": .string("hi")]))])
    }

    @Test("close() aborts handlers and subscriptions: nothing is sent afterwards")
    func close() async throws {
        let host = ScriptedHost()
        let gate = host.gate("p:1")
        let connection = MemoryConnection(host: host)
        connection.send(frame("p:1", "system_handshake", .request, "0001"))
        connection.send(frame("p:2", "theme_subscribe", .start))
        await host.onStart.wait()
        connection.dispatcher.close()
        gate.open()
        host.theme.update(TruAPIDefaultHost.themeValue(name: "x", dark: false))
        await connection.dispatcher.waitUntilSettled()
        connection.send(frame("p:3", "system_handshake", .request, "0001"))
        await connection.dispatcher.waitUntilSettled()
        #expect(!connection.allSent.contains { $0.requestID == "p:1" || $0.requestID == "p:3" })
        #expect(connection.allSent.filter { $0.requestID == "p:2" }.count <= 1, "at most the current theme, sent before close")
    }
}

// Three minutes, not one: the replay walks every exchange, and on a loaded 2-core machine the end-to-end suites'
// blocking tests can hold both concurrency-pool threads for a while (a hang still fails).
@Suite("TrUAPI exchanges replayed against the dispatcher", .vectors("truapi/exchanges.json"), .timeLimit(.minutes(3)))
struct TruAPIExchangeReplayTests {
    /// Exchanges whose answer needs state a default host does not have. local storage uses a host that fails as
    /// the vector's platform does; the account proof needs the pairing host's allowlist (the bridge's).
    static let bridgeOwned: Set<String> = ["create_account_proof_foreign_key_not_allowlisted"]

    final class FullStorageHost: TruAPIDefaultHost, @unchecked Sendable {
        override func respond(to call: TruAPICall) async -> Result<SCALEValue, TruAPICallError> {
            call.method.name == "local_storage_read" ? .failure(.domainV1(.unitVariant("Full"))) : await super.respond(to: call)
        }
    }

    static func host(for name: String) -> TruAPIDefaultHost {
        switch name {
        case "ws_bridge_feature_supported":
            return TruAPIDefaultHost(chains: TruAPIChainSet(network: "test", chains: [(.relay, [UInt8](repeating: 0, count: 32))]))
        case "chain_info_asset_hub_ok", "chain_info_bulletin_not_supported":
            return TruAPIDefaultHost(chains: TruAPIChainSet(network: "paseo", chains: [(.assetHub, [UInt8](repeating: 0xaa, count: 32))]))
        case "local_storage_read_full":
            return FullStorageHost()
        default:
            return TruAPIDefaultHost()
        }
    }

    @Test("every exchange: the host's frames are the expected bytes")
    func replay() async throws {
        let vectors = try #require(try truapiVector("exchanges.json")["vectors"]?.arrayValue)
        var replayed = 0
        for vector in vectors {
            let name = try #require(vector["name"]?.stringValue)
            let connection = MemoryConnection(host: Self.host(for: name))
            var frames = connection.frames.makeAsyncIterator()
            connection.dispatcher.receive(hexBytes(try #require(vector["request"]?["hex"]?.stringValue)))
            let expected = vector["expect"]?.arrayValue ?? []
            var received: [TruAPIFrame] = []
            for _ in expected { received.append(try #require(await frames.next(), "\(name): no answer")) }
            if Self.bridgeOwned.contains(name) {
                // The default host has no ring-VRF: Unsupported, on the right id.
                #expect(received.first.map { Hex.encode($0.payload) } == "000102", "\(name)")
                replayed += 1
                continue
            }
            for (want, got) in zip(expected, received) {
                if let hex = want["hex"]?.stringValue {
                    #expect(Hex.encode(got.bytes) == hex.lowercased(), "\(name)")
                } else {
                    #expect(got.requestID == want["request_id"]?.stringValue && Int64(got.discriminant) == want["discriminant"]?.int64Value,
                            "\(name)")
                    let prefix = want["payload_prefix_hex"]?.stringValue ?? ""
                    #expect(Hex.encode(got.payload).hasPrefix(prefix), "\(name)")
                    var reader = SCALEReader(got.payload, start: prefix.count / 2)
                    #expect(try !reader.string().isEmpty, "\(name): the reason is a non-empty str")
                }
            }
            if name == "connection_status_start_then_stop" {
                connection.send(frame("p:1", "account_connection_status_subscribe", .stop))
                await connection.dispatcher.waitUntilSettled()
                #expect(connection.allSent.count == 1, "nothing after stop")
            }
            connection.dispatcher.close()
            replayed += 1
        }
        #expect(replayed == vectors.count)
    }
}
