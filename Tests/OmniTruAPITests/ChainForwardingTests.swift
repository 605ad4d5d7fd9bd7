import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
@testable import OmniTruAPI
import Testing

/// Chain methods through the real bridge to Tests/Peers/chain_node_peer.py, a scripted JSON-RPC v2 node on loopback
/// (PyPI websockets): follow events and operations, the follow-id mapping per connection, chainSpec's JSON text,
/// transaction handles, RPC errors as HostFailure, and a node that drops the connection once.
@Suite("TrUAPI chain forwarding to a JSON-RPC node", .serialized, .timeLimit(.minutes(10)), .offPool)
struct ChainForwardingTests {
    /// The node peer, its events file, and a bridge forwarding the peer's genesis to it.
    final class Setup: @unchecked Sendable {
        let directory: TemporaryDirectory
        let node: PeerProcess
        let harness: BridgeHarness
        let genesis: [UInt8]
        let h0: [UInt8], h1: [UInt8], bad: [UInt8]
        let properties: String

        init(policy: String = #"{"remote": {"chain_submit": "allow"}}"#) throws {
            directory = try TemporaryDirectory()
            node = try PeerProcess(script: "chain_node_peer.py", arguments: ["--events", directory.file("node.jsonl")])
            genesis = hexBytes(try node.string("genesis_hash"))
            h0 = hexBytes(try node.string("h0"))
            h1 = hexBytes(try node.string("h1"))
            bad = hexBytes(try node.string("bad"))
            properties = try node.string("properties")
            harness = try BridgeHarness(policy: try TruAPIPolicy.parse(policy, source: "test"), chainNodes: [(genesis, try node.string("url"))])
        }

        /// The node's log lines so far.
        var nodeEvents: [JSONValue] {
            (try? JSONValue.parseLines(String(contentsOfFile: directory.file("node.jsonl"), encoding: .utf8))) ?? []
        }

        /// Waits until the node logged a line matching `predicate` (the file grows as the node works).
        @discardableResult
        func waitForNode(_ what: String, timeout: Double = 20, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while Date() < deadline {
                if let found = nodeEvents.first(where: predicate) { return found }
                Thread.sleep(forTimeInterval: 0.02)
            }
            throw TestSupportError("the node never logged \(what); it logged \(nodeEvents.suffix(10).map { $0.serialized() })")
        }

        func requests(_ method: String) -> [JSONValue] {
            nodeEvents.filter { $0["event"]?.stringValue == "request" && $0["method"]?.stringValue == method }
        }

        var violations: [JSONValue] { nodeEvents.filter { $0["event"]?.stringValue == "violation" } }

        /// Starts the node and the bridge off the concurrency pool (the peer takes a moment to announce itself, and
        /// the pool's threads answer every in-process bridge of the run).
        static func start(policy: String = #"{"remote": {"chain_submit": "allow"}}"#) async throws -> Setup {
            try await offPool { try Setup(policy: policy) }
        }

        func stop() {
            harness.stop()
            node.stop()
            directory.remove()
        }

        /// `stop` on a thread of its own: a deferred cleanup must not hold a pool thread while the bridge closes.
        func stopInBackground() { Thread { self.stop() }.start() }
    }

    /// A product connection that keeps the frames it has not been asked for yet (responses and items interleave).
    final class Product {
        let client: TruAPIClient
        private var inbox: [TruAPIMessage] = []
        private var next = 0

        init(_ harness: BridgeHarness) throws { client = try harness.client() }

        func id() -> String {
            next += 1
            return "p:\(next)"
        }

        func send(_ name: String, _ kind: TruAPIFrameKind, id: String, _ request: SCALEValue?) throws {
            try client.send(TruAPIMessage(requestID: id, method: method(name), kind: kind, payload: request.map { .variant("V1", $0) }))
        }

        /// The first frame with `id` and `kind`, reading until it arrives.
        func take(_ id: String, _ kind: TruAPIFrameKind, timeout: Double = BridgeTimeouts.answer) throws -> TruAPIMessage {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while true {
                if let index = inbox.firstIndex(where: { $0.requestID == id && $0.kind == kind }) { return inbox.remove(at: index) }
                guard let bytes = try client.receive(until: deadline) else { throw TestSupportError("no \(kind.rawValue) for \(id) within \(timeout) s") }
                inbox.append(try TruAPIMessage.decode(bytes))
            }
        }

        /// A request's answer: the Ok body or the call error.
        func call(_ name: String, _ request: SCALEValue) throws -> Result<SCALEValue, TruAPICallError> {
            let id = id()
            try send(name, .request, id: id, request)
            let response = try take(id, .response)
            if let body = response.okBody { return .success(body) }
            return .failure(try #require(response.callError))
        }

        /// Starts a follow; its id.
        func follow(_ genesis: [UInt8], withRuntime: Bool = true) throws -> String {
            let id = id()
            try send("chain_follow_head_subscribe", .start, id: id, .record(["genesis_hash": .bytes(genesis), "with_runtime": .bool(withRuntime)]))
            return id
        }

        /// The follow's next item (the receive's V1 content).
        func item(_ follow: String) throws -> SCALEValue { try take(follow, .receive).content }

        func close() { client.close() }
    }

    static func headRequest(_ genesis: [UInt8], _ follow: String, _ hash: [UInt8]) -> SCALEValue {
        .record(["genesis_hash": .bytes(genesis), "follow_subscription_id": .string(follow), "hash": .bytes(hash)])
    }

    static func started(_ body: SCALEValue?) -> String? {
        if case .variant("Started", let fields)? = body?["operation"] { return fields["operation_id"]?.stringValue }
        return nil
    }

    @Test("follow events become RemoteChainHeadFollowItems; header, body, storage, call, unpin, continue and stop reach the node")
    func followAndOperations() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let product = try Product(setup.harness)
            defer { product.close() }
            let follow = try product.follow(setup.genesis)
            let runtime = SCALEValue.some(.variant("Valid", .record([
                "spec_name": .string("omni-test"), "impl_name": .string("omni-test-node"), "spec_version": .int(1002), "impl_version": .int(3),
                "transaction_version": .some(.int(7)),
                "apis": .sequence([.record(["name": .string("0x37e397fc7c91f5e4"), "version": .int(2)]),
                                   .record(["name": .string("0xdf6acb689907609b"), "version": .int(5)])]),
            ])))
            #expect(try product.item(follow) == .variant("Initialized", .record(["finalized_block_hashes": .sequence([.bytes(setup.h0)]),
                                                                                "finalized_block_runtime": runtime])))
            #expect(try product.item(follow) == .variant("NewBlock", .record(["block_hash": .bytes(setup.h1), "parent_block_hash": .bytes(setup.h0),
                                                                             "new_runtime": .absent])))
            #expect(try product.item(follow) == .variant("BestBlockChanged", .record(["best_block_hash": .bytes(setup.h1)])))
            #expect(try product.item(follow) == .variant("Finalized", .record(["finalized_block_hashes": .sequence([.bytes(setup.h1)]),
                                                                              "pruned_block_hashes": .sequence([])])))

            let header = try product.call("chain_get_head_header", Self.headRequest(setup.genesis, follow, setup.h1))
            #expect(header == .success(.record(["header": .some(.bytes(hexBytes("1111111111111111c0de")))])))
            #expect(try product.call("chain_get_head_header", Self.headRequest(setup.genesis, follow, [UInt8](repeating: 0x33, count: 32)))
                    == .success(.record(["header": .absent])))

            let body = try product.call("chain_get_head_body", Self.headRequest(setup.genesis, follow, setup.h1))
            let bodyOperation = try #require(Self.started(try body.get()))
            #expect(try product.item(follow) == .variant("OperationBodyDone", .record(["operation_id": .string(bodyOperation),
                                                                                      "value": .sequence([.bytes([1, 2]), .bytes([3])])])))

            var storage = Self.headRequest(setup.genesis, follow, setup.h1)
            storage = .record(storage.recordFields.merging([
                "items": .sequence([.record(["key": .bytes([0x01, 0x02]), "query_type": .unitVariant("Value")]),
                                    .record(["key": .bytes([0x03]), "query_type": .unitVariant("Hash")])]),
                "child_trie": .absent]) { $1 })
            let storageOperation = try #require(Self.started(try product.call("chain_get_head_storage", storage).get()))
            #expect(try product.item(follow) == .variant("OperationStorageItems", .record(["operation_id": .string(storageOperation), "items": .sequence([
                .record(["key": .bytes([1, 2]), "value": .some(.bytes([0xab, 0xab, 0xab, 0xab])), "hash": .absent, "closest_descendant_merkle_value": .absent]),
                .record(["key": .bytes([3]), "value": .absent, "hash": .some(.bytes([UInt8](repeating: 0xcd, count: 32))), "closest_descendant_merkle_value": .absent]),
            ])])))
            #expect(try product.item(follow) == .variant("OperationWaitingForContinue", .record(["operation_id": .string(storageOperation)])))
            let operationRequest = SCALEValue.record(["genesis_hash": .bytes(setup.genesis), "follow_subscription_id": .string(follow),
                                                      "operation_id": .string(storageOperation)])
            #expect(try product.call("chain_continue_head", operationRequest) == .success(.unit))
            #expect(try product.item(follow) == .variant("OperationStorageDone", .record(["operation_id": .string(storageOperation)])))
            #expect(try product.call("chain_stop_head_operation", operationRequest) == .success(.unit))

            var call = Self.headRequest(setup.genesis, follow, setup.h1)
            call = .record(call.recordFields.merging(["function": .string("Core_version"), "call_parameters": .bytes([1, 2, 3])]) { $1 })
            let callOperation = try #require(Self.started(try product.call("chain_call_head", call).get()))
            #expect(try product.item(follow) == .variant("OperationCallDone", .record(["operation_id": .string(callOperation), "output": .bytes([3, 2, 1])])))
            call = .record(call.recordFields.merging(["function": .string("TestNode_limit")]) { $1 })
            #expect(try product.call("chain_call_head", call) == .success(.record(["operation": .unitVariant("LimitReached")])))

            let unpin = SCALEValue.record(["genesis_hash": .bytes(setup.genesis), "follow_subscription_id": .string(follow),
                                           "hashes": .sequence([.bytes(setup.h0), .bytes(setup.h1)])])
            #expect(try product.call("chain_unpin_head", unpin) == .success(.unit))
        }
        // Every request used the node's subscription id, one unpin per hash, and fit the spec's shapes.
        let subscription = "follow-1-1"
        for method in ["chainHead_v1_header", "chainHead_v1_body", "chainHead_v1_storage", "chainHead_v1_call", "chainHead_v1_unpin",
                       "chainHead_v1_continue", "chainHead_v1_stopOperation"] {
            let requests = setup.requests(method)
            #expect(!requests.isEmpty && requests.allSatisfy { $0["params"]?.arrayValue?.first?.stringValue == subscription }, "\(method)")
        }
        #expect(setup.requests("chainHead_v1_unpin").compactMap { $0["params"]?.arrayValue?.last?.stringValue } == ["0x" + Hex.encode(setup.h0), "0x" + Hex.encode(setup.h1)])
        #expect(setup.requests("chainHead_v1_storage").first?["params"]?.arrayValue?[2]
                == .array([.object(["key": "0x0102", "type": "value"]), .object(["key": "0x03", "type": "hash"])]))
        #expect(setup.violations.isEmpty, "\(setup.violations.map { $0.serialized() })")
    }

    @Test("a request right after the start waits for the follow's setup; an SDK's own id names the only follow; unknown ids and chains fail")
    func followIDs() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let product = try Product(setup.harness)
            defer { product.close() }
            // The header request leaves in the frame after the start, before the node has answered the follow.
            let follow = product.id()
            let header = product.id()
            try product.send("chain_follow_head_subscribe", .start, id: follow, .record(["genesis_hash": .bytes(setup.genesis), "with_runtime": .bool(false)]))
            try product.send("chain_get_head_header", .request, id: header, Self.headRequest(setup.genesis, follow, setup.h0))
            #expect(try product.take(header, .response).okBody == .record(["header": .some(.bytes(hexBytes("0000000000000000c0de")))]))
            // An SDK that names the follow itself (follow_0) gets the connection's one follow without an alias.
            #expect(try product.call("chain_get_head_header", Self.headRequest(setup.genesis, "follow_0", setup.h1)).map { $0["header"] != .absent } == .success(true))
            #expect(try product.call("chain_get_head_header", Self.headRequest(setup.genesis, "follow_0", setup.h1)).map { $0["header"] != .absent } == .success(true))
            guard case .failure(.hostFailure(let reason)) = try product.call("chain_get_head_header", Self.headRequest(setup.genesis, "p:99", setup.h1)) else {
                Issue.record("an unknown follow id answered")
                return
            }
            #expect(reason == "remote_chain_head_header: unknown follow subscription id \"p:99\"")
            let elsewhere = [UInt8](repeating: 0x77, count: 32)
            guard case .failure(.hostFailure(let missing)) = try product.call("chain_get_spec_chain_name", .record(["genesis_hash": .bytes(elsewhere)])) else {
                Issue.record("an unknown chain answered")
                return
            }
            #expect(missing.hasPrefix("remote_chain_spec_chain_name: no chain is configured for genesis 0x7777"))
            // A call needs a follow made with the runtime.
            var call = Self.headRequest(setup.genesis, follow, setup.h1)
            call = .record(call.recordFields.merging(["function": .string("Core_version"), "call_parameters": .bytes([])]) { $1 })
            #expect(try product.call("chain_call_head", call) == .failure(.hostFailure(reason: "remote_chain_head_call: follow subscription was created without runtime metadata")))
        }
    }

    @Test("chainSpec: the genesis hash, the name, and the properties as the exact JSON text the node sent; feature_supported")
    func chainSpec() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let product = try Product(setup.harness)
            defer { product.close() }
            let genesis = SCALEValue.record(["genesis_hash": .bytes(setup.genesis)])
            #expect(try product.call("chain_get_spec_genesis_hash", genesis) == .success(.record(["genesis_hash": .bytes(setup.genesis)])))
            #expect(try product.call("chain_get_spec_chain_name", genesis) == .success(.record(["chain_name": .string("Omni Test Chain")])))
            #expect(try product.call("chain_get_spec_properties", genesis) == .success(.record(["properties": .string(setup.properties)])))
            #expect(try product.call("system_feature_supported", .variant("Chain", genesis)) == .success(.record(["supported": .bool(true)])))
            #expect(try product.call("system_feature_supported", .variant("Chain", .record(["genesis_hash": .bytes([UInt8](repeating: 1, count: 32))])))
                    == .success(.record(["supported": .bool(false)])))
        }
    }

    @Test("transactions: broadcast needs chain_submit and answers the bridge's handle; stop, an operation already finished, unknown handles")
    func transactions() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let product = try Product(setup.harness)
            defer { product.close() }
            let broadcast = SCALEValue.record(["genesis_hash": .bytes(setup.genesis), "transaction": .bytes([0x84, 1, 2, 3])])
            #expect(try product.call("chain_broadcast_transaction", broadcast) == .success(.record(["operation_id": .some(.string("truapi-tx-1"))])))
            #expect(try product.call("chain_broadcast_transaction", broadcast) == .success(.record(["operation_id": .some(.string("truapi-tx-2"))])))
            func stop(_ handle: String) throws -> Result<SCALEValue, TruAPICallError> {
                try product.call("chain_stop_transaction", .record(["genesis_hash": .bytes(setup.genesis), "operation_id": .string(handle)]))
            }
            #expect(try stop("truapi-tx-1") == .success(.unit))
            #expect(try stop("truapi-tx-2") == .success(.unit), "the node says Invalid operation id: it finished, which counts as stopped")
            #expect(try stop("truapi-tx-1") == .failure(.hostFailure(reason: "remote_chain_transaction_stop: unknown transaction operation id")))
            #expect(try stop("tx-op-1") == .failure(.hostFailure(reason: "remote_chain_transaction_stop: unknown transaction operation id")))
        }
        #expect(setup.requests("transaction_v1_broadcast").first?["params"] == .array(["0x84010203"]))
        #expect(setup.requests("transaction_v1_stop").compactMap { $0["params"]?.arrayValue?.first?.stringValue } == ["tx-op-1", "tx-op-2"])

        let denied = try await Setup.start(policy: #"{"remote": {"chain_submit": "deny"}}"#)
        defer { denied.stopInBackground() }
        try await offPool {
            let product = try Product(denied.harness)
            defer { product.close() }
            let broadcast = SCALEValue.record(["genesis_hash": .bytes(denied.genesis), "transaction": .bytes([1])])
            #expect(try product.call("chain_broadcast_transaction", broadcast) == .failure(.domainV1(.record(["reason": .string("Permission denied")]))))
        }
        #expect(denied.requests("transaction_v1_broadcast").isEmpty, "nothing reaches the node without the permission")
    }

    @Test("RPC errors answer HostFailure with the method and the node's error")
    func rpcErrors() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let product = try Product(setup.harness)
            defer { product.close() }
            let follow = try product.follow(setup.genesis)
            _ = try product.item(follow)
            #expect(try product.call("chain_get_head_header", Self.headRequest(setup.genesis, follow, setup.bad))
                    == .failure(.hostFailure(reason: "remote_chain_head_header: node answered error -32602: Invalid block hash")))
            var storage = Self.headRequest(setup.genesis, follow, setup.h1)
            storage = .record(storage.recordFields.merging(["items": .sequence([.record(["key": .bytes([0xde, 0xad]), "query_type": .unitVariant("Value")])]),
                                                            "child_trie": .absent]) { $1 })
            #expect(try product.call("chain_get_head_storage", storage)
                    == .failure(.hostFailure(reason: "remote_chain_head_storage: node answered error -32000: storage backend failed")))
            #expect(try product.call("chain_get_head_header", Self.headRequest(setup.genesis, follow, [1, 2]))
                    == .failure(.hostFailure(reason: "remote_chain_head_header: expected 32-byte hash, got 2")))
        }
    }

    @Test("the node drops the connection once: the call fails, the follow gets Stop and ends, the bridge reconnects, a new follow works")
    func reconnect() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let product = try Product(setup.harness)
            defer { product.close() }
            let follow = try product.follow(setup.genesis)
            _ = try product.item(follow)
            var call = Self.headRequest(setup.genesis, follow, setup.h1)
            call = .record(call.recordFields.merging(["function": .string("TestNode_drop"), "call_parameters": .bytes([])]) { $1 })
            guard case .failure(.hostFailure(let reason)) = try product.call("chain_call_head", call) else {
                Issue.record("the dropped call answered")
                return
            }
            #expect(reason.hasPrefix("remote_chain_head_call: the connection to the node closed"), "\(reason)")
            // The follow's remaining items, then Stop, then the empty interrupt that ends it.
            var items: [SCALEValue] = []
            while items.last != .unitVariant("Stop") { items.append(try product.item(follow)) }
            #expect(try product.take(follow, .interrupt).payload == nil)
            try setup.waitForNode("a second connection") { $0["event"]?.stringValue == "open" && $0["connection"]?.int64Value == 2 }
            let again = try product.follow(setup.genesis)
            guard case .variant("Initialized", _) = try product.item(again) else {
                Issue.record("the new follow did not initialise")
                return
            }
            #expect(try product.call("chain_get_head_header", Self.headRequest(setup.genesis, again, setup.h1)).map { $0["header"] != .absent } == .success(true))
        }
        let events = setup.harness.events
        try await events.next(for: "chain_disconnected") { $0.name == "chain_disconnected" }
        #expect(events.all.filter { $0.name == "chain_connected" }.map { $0["connection"] } == [.int(1), .int(2)])
        #expect(events.all.contains { $0.name == "chain_follow_ended" })
        #expect(setup.requests("chainHead_v1_follow").count == 2)
    }

    @Test("follow starts that never decode are bounded per connection and forgotten when it closes")
    func malformedFollowStarts() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let product = try Product(setup.harness)
            for index in 0..<100 {
                // A start whose payload is not a RemoteChainHeadFollowRequest: announced, never started.
                try product.client.send(TruAPIFrame(requestID: "bad:\(index)", discriminant: 76, payload: [0x07]).bytes)
            }
            let follow = try product.follow(setup.genesis)
            guard case .variant("Initialized", _) = try product.item(follow) else {
                Issue.record("the good follow did not initialise")
                return
            }
            #expect(setup.harness.context.chainForwarder.followCount <= ChainForwardingTests.limit + 1)
            product.close()
        }
        try await setup.harness.events.next(for: "connection_closed") { $0.name == "connection_closed" }
        // The follow's own stream ends a moment after the connection: wait for it to let go.
        let remaining = try await offPool { () -> Int in
            let deadline = Date(timeIntervalSinceNow: 10)
            while setup.harness.context.chainForwarder.followCount > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            return setup.harness.context.chainForwarder.followCount
        }
        #expect(remaining == 0)
    }

    static let limit = TruAPIChainForwarder.maximumFollowsPerConnection

    @Test("follow ids are scoped per connection; a product's stop unfollows at the node")
    func perConnection() async throws {
        let setup = try await Setup.start()
        defer { setup.stopInBackground() }
        try await offPool {
            let first = try Product(setup.harness), second = try Product(setup.harness)
            defer { first.close(); second.close() }
            // Both products call their follow p:1.
            let one = try first.follow(setup.genesis), two = try second.follow(setup.genesis)
            #expect(one == two)
            _ = try first.item(one)
            _ = try second.item(two)
            #expect(try first.call("chain_get_head_header", Self.headRequest(setup.genesis, one, setup.h0)).map { $0["header"] != .absent } == .success(true))
            #expect(try second.call("chain_get_head_header", Self.headRequest(setup.genesis, two, setup.h0)).map { $0["header"] != .absent } == .success(true))
            try first.send("chain_follow_head_subscribe", .stop, id: one, nil)
            try setup.waitForNode("an unfollow") { $0["method"]?.stringValue == "chainHead_v1_unfollow" }
            // Before the connections close (which ends the other follow too): one unfollow, of the first product's.
            let headers = setup.requests("chainHead_v1_header").compactMap { $0["params"]?.arrayValue?.first?.stringValue }
            #expect(Set(headers).count == 2, "each connection's p:1 is its own node subscription: \(headers)")
            let unfollowed = setup.requests("chainHead_v1_unfollow").compactMap { $0["params"]?.arrayValue?.first?.stringValue }
            #expect(unfollowed == Array(headers.prefix(1)), "\(unfollowed) \(headers)")
            #expect(try second.call("chain_get_head_header", Self.headRequest(setup.genesis, two, setup.h1)).map { $0["header"] != .absent } == .success(true),
                    "the other product's follow lives on")
        }
        #expect(setup.violations.isEmpty)
    }
}

extension SCALEValue {
    var recordFields: [String: SCALEValue] {
        if case .record(let fields) = self { return fields }
        return [:]
    }
}
