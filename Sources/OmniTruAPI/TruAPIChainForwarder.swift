import OmniCodec
import Synchronization

/// The chain methods (reference §6.1) forwarded to the nodes of `--chain` and `--network`: TrUAPI's typed requests
/// become JSON-RPC v2 calls of the new API (`chainHead_v1_*`, `chainSpec_v1_*`, `transaction_v1_*`), and the
/// answers and follow events become TrUAPI's types again. Hex hashes become bytes; `chainSpec_v1_properties` is
/// passed on as the exact JSON text the node sent.
///
/// - A follow is named by the request id of the product's `_start` frame, scoped to its connection (`c<n>:<id>`),
///   and mapped to the node's subscription id. Requests may name it before its setup finished: they wait for it.
///   A product SDK that names the follow by an id of its own gets the connection's one follow on that chain that
///   has no such alias yet, as the reference does.
/// - When the node drops the connection, each follow receives `Stop` and ends (the product follows again after
///   the reconnect), and calls in flight fail.
/// - `transaction_v1_broadcast` answers a handle of the bridge's own, `truapi-tx-<n>` (the last 256 are kept);
///   stopping an operation the node already finished counts as success.
/// - Every RPC failure answers `HostFailure { "<method>: <detail>" }`, with the reference's method names.
public final class TruAPIChainForwarder: Sendable {
    public let nodes: [String: TruAPIChainNode]
    private let onEvent: @Sendable (TruAPIBridgeEvent) -> Void

    static let maximumTrackedTransactions = 256
    /// How long a request waits for a follow setup it names.
    static let followSetupWait: Duration = .seconds(30)
    static let maximumFollowsPerConnection = 64

    private final class Follow: @unchecked Sendable {
        let connection: Int
        let requestID: String
        /// Order of creation, so the oldest of a connection's unstarted intents can be let go.
        var sequence = 0
        var genesis: [UInt8]?
        var withRuntime = false
        var alias: String?
        /// The node's subscription id once set up; `failure` when the setup failed.
        var nodeSubscription: String?
        var failure: String?
        var node: TruAPIChainNode?
        var waiters: [CheckedContinuation<Void, Never>] = []
        var settled: Bool { nodeSubscription != nil || failure != nil }

        init(connection: Int, requestID: String) {
            self.connection = connection
            self.requestID = requestID
        }
    }

    private struct State {
        var follows: [String: Follow] = [:]
        var nextSequence = 0
        var nextTransaction: UInt64 = 1
        var transactions: [UInt64: (genesis: [UInt8], operation: String)] = [:]
    }

    private let state = Mutex(State())

    public init(nodes: [TruAPIChainNode], onEvent: @escaping @Sendable (TruAPIBridgeEvent) -> Void = { _ in }) {
        var table: [String: TruAPIChainNode] = [:]
        for node in nodes { table[Hex.encode(node.genesis)] = node }
        self.nodes = table
        self.onEvent = onEvent
    }

    public func serves(genesis: [UInt8]) -> Bool { nodes[Hex.encode(genesis)] != nil }

    /// Follows (started or only announced by a `_start` frame) the forwarder keeps, for tests and diagnostics.
    var followCount: Int { state.withLock { $0.follows.count } }

    public func close() { nodes.values.forEach { $0.close() } }

    static func followKey(connection: Int, requestID: String) -> String { "c\(connection):\(requestID)" }

    private func node(_ genesis: [UInt8]?, _ method: String) -> Result<TruAPIChainNode, TruAPICallError> {
        guard let genesis, let node = nodes[Hex.encode(genesis)] else {
            return .failure(.hostFailure(reason: "\(method): no chain is configured for genesis 0x\(Hex.encode(genesis ?? [])) (--chain GENESIS=URL)"))
        }
        return .success(node)
    }

    private static func failure(_ method: String, _ failure: TruAPINodeFailure) -> TruAPICallError {
        .hostFailure(reason: "\(method): \(failure)")
    }

    // MARK: - Follow

    /// Called synchronously when a follow's `_start` frame arrives, before its setup runs, so that a request in the
    /// next frame finds it.
    func prepareFollow(connection: Int, requestID: String) {
        let released: [CheckedContinuation<Void, Never>] = state.withLock { state in
            let key = Self.followKey(connection: connection, requestID: requestID)
            guard state.follows[key] == nil else { return [] }
            var released: [CheckedContinuation<Void, Never>] = []
            // A product that starts follows whose payloads never decode must not grow this without bound: past the
            // limit the oldest intent that never started is forgotten (a request naming it then fails).
            let unstarted = state.follows.filter { $0.value.connection == connection && $0.value.genesis == nil }
            if unstarted.count >= Self.maximumFollowsPerConnection, let oldest = unstarted.min(by: { $0.value.sequence < $1.value.sequence }) {
                state.follows.removeValue(forKey: oldest.key)
                oldest.value.failure = "too many follow subscriptions were started on this connection"
                released = oldest.value.waiters
                oldest.value.waiters = []
            }
            let follow = Follow(connection: connection, requestID: requestID)
            follow.sequence = state.nextSequence
            state.nextSequence += 1
            state.follows[key] = follow
            return released
        }
        released.forEach { $0.resume() }
    }

    /// Forgets what a closed connection prepared but never started (its live follows end with their streams).
    func forgetFollows(connection: Int) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            let gone = state.follows.filter { $0.value.connection == connection && !$0.value.settled }
            for (key, follow) in gone {
                state.follows.removeValue(forKey: key)
                follow.failure = "the product's connection closed"
            }
            return gone.values.flatMap { follow in
                defer { follow.waiters = [] }
                return follow.waiters
            }
        }
        waiters.forEach { $0.resume() }
    }

    /// `chain_follow_head_subscribe`: `chainHead_v1_follow` and its events as `RemoteChainHeadFollowItem`s.
    func follow(connection: Int, requestID: String, request: SCALEValue) async -> TruAPISubscription {
        let method = "remote_chain_head_follow"
        let key = Self.followKey(connection: connection, requestID: requestID)
        let genesis = request["genesis_hash"]?.bytesValue ?? []
        let withRuntime = request["with_runtime"]?.boolValue ?? false
        let record: Follow = state.withLock { state in
            // A second start with a live id replaces the old follow (the dispatcher replaced its stream).
            let fresh = Follow(connection: connection, requestID: requestID)
            if let prepared = state.follows[key], !prepared.settled, prepared.genesis == nil { return prepared }
            state.follows[key] = fresh
            return fresh
        }
        let node: TruAPIChainNode
        switch self.node(genesis, method) {
        case .failure(let error):
            settle(record, key: key, subscription: nil, failure: "\(error)")
            return .failure(error)
        case .success(let found): node = found
        }
        state.withLock { _ in
            record.genesis = genesis
            record.withRuntime = withRuntime
            record.node = node
        }
        switch await node.subscribe("chainHead_v1_follow", [.bool(withRuntime)]) {
        case .failure(let failure):
            let error = Self.failure(method, failure)
            settle(record, key: key, subscription: nil, failure: "\(method): \(failure)")
            return .failure(error)
        case .success(let (subscription, events)):
            settle(record, key: key, subscription: subscription, failure: nil)
            return .stream(followItems(events, record: record, key: key, node: node, subscription: subscription, genesis: genesis))
        }
    }

    private func settle(_ record: Follow, key: String, subscription: String?, failure: String?) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            record.nodeSubscription = subscription
            record.failure = failure
            if failure != nil, state.follows[key] === record { state.follows.removeValue(forKey: key) }
            defer { record.waiters = [] }
            return record.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// The node's events mapped to follow items; `Stop` (the node's, or ours when the connection dropped) is the
    /// last item. When the product stops first, the node's subscription is unfollowed.
    private func followItems(_ events: AsyncStream<JSONValue>, record: Follow, key: String, node: TruAPIChainNode, subscription: String,
                             genesis: [UInt8]) -> AsyncStream<SCALEValue> {
        let (items, continuation) = AsyncStream<SCALEValue>.makeStream(bufferingPolicy: .bufferingOldest(TruAPIChainNode.subscriptionBuffer))
        let ended = Mutex(false)
        let pump = Task { [onEvent] in
            var reason = "the connection to the node closed"
            for await event in events {
                switch Self.followItem(event) {
                case .success(let item):
                    continuation.yield(item)
                    if item.variantName == "Stop" {
                        reason = "the node stopped the subscription"
                        ended.withLock { $0 = true }
                        continuation.finish()
                        onEvent(.chainFollowEnded(genesis: genesis, connection: record.connection, requestID: record.requestID, reason: reason))
                        return
                    }
                case .failure(let problem):
                    onEvent(.chainMessageDropped(genesis: genesis, reason: "follow event: \(problem.message)"))
                    ended.withLock { $0 = true }
                    node.forget(subscription: subscription)
                    continuation.finish()
                    return
                }
            }
            guard !Task.isCancelled else { return }
            // The stream ended without the node's stop: the connection dropped, and the subscription with it.
            ended.withLock { $0 = true }
            continuation.yield(.unitVariant("Stop"))
            continuation.finish()
            onEvent(.chainFollowEnded(genesis: genesis, connection: record.connection, requestID: record.requestID, reason: reason))
        }
        continuation.onTermination = { [weak self] _ in
            pump.cancel()
            self?.state.withLock { state in
                if state.follows[key] === record { state.follows.removeValue(forKey: key) }
            }
            guard !ended.withLock({ $0 }) else { return }
            // The product stopped (or its connection closed): the node can let the subscription go.
            node.forget(subscription: subscription)
            Task { _ = await node.call("chainHead_v1_unfollow", [.string(subscription)]) }
        }
        return items
    }

    /// The follow a request names: its node, the node's subscription id and whether it has the runtime.
    private func resolveFollow(connection: Int, id: String, genesis: [UInt8]?, method: String) async
        -> Result<(TruAPIChainNode, String, Bool), TruAPICallError>
    {
        let record: Follow? = state.withLock { state in
            if let exact = state.follows[Self.followKey(connection: connection, requestID: id)] { return exact }
            let mine = state.follows.values.filter { $0.connection == connection }
            if let aliased = mine.first(where: { $0.alias == id }) { return aliased }
            let candidates = mine.filter { $0.alias == nil && ($0.genesis == nil || $0.genesis == genesis) }
            guard candidates.count == 1, let only = candidates.first else { return nil }
            only.alias = id
            return only
        }
        guard let record else { return .failure(.hostFailure(reason: "\(method): unknown follow subscription id \"\(id)\"")) }
        let settled = await waitForSetup(record)
        return state.withLock { _ in
            guard settled else { return .failure(.hostFailure(reason: "\(method): follow subscription \"\(id)\" is not established")) }
            if let failure = record.failure { return .failure(.hostFailure(reason: "\(method): \(failure)")) }
            guard let node = record.node, let subscription = record.nodeSubscription, record.genesis == genesis else {
                return .failure(.hostFailure(reason: "\(method): unknown follow subscription id \"\(id)\" on this chain"))
            }
            return .success((node, subscription, record.withRuntime))
        }
    }

    /// Waits (bounded) until the follow's setup finished; false when it did not in time.
    private func waitForSetup(_ record: Follow) async -> Bool {
        let done = Mutex(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settled = state.withLock { _ -> Bool in
                if record.settled { return true }
                record.waiters.append(continuation)
                return false
            }
            if settled {
                continuation.resume()
                return
            }
            Task { [weak self] in
                try? await Task.sleep(for: Self.followSetupWait)
                guard !done.withLock({ $0 }) else { return }
                let waiters: [CheckedContinuation<Void, Never>] = self?.state.withLock { _ in
                    defer { record.waiters = [] }
                    return record.waiters
                } ?? []
                waiters.forEach { $0.resume() }
            }
        }
        done.withLock { $0 = true }
        return state.withLock { _ in record.settled }
    }

    // MARK: - Requests

    /// The answer to a chain method other than the follow itself; nil for any other method.
    func respond(to call: TruAPICall, connection: Int, permissions: TruAPIPermissionBroker) async -> Result<SCALEValue, TruAPICallError>? {
        let request = call.request
        let genesis = request["genesis_hash"]?.bytesValue
        let follow = request["follow_subscription_id"]?.stringValue ?? ""
        let hash = request["hash"]?.bytesValue ?? []

        func onFollow(_ method: String, check hashes: [[UInt8]], needsRuntime: Bool = false,
                      _ body: (TruAPIChainNode, String) async -> Result<SCALEValue, TruAPICallError>) async -> Result<SCALEValue, TruAPICallError> {
            if case .failure(let error) = node(genesis, method) { return .failure(error) }
            let (node, subscription, withRuntime): (TruAPIChainNode, String, Bool)
            switch await resolveFollow(connection: connection, id: follow, genesis: genesis, method: method) {
            case .failure(let error): return .failure(error)
            case .success(let found): (node, subscription, withRuntime) = found
            }
            if needsRuntime, !withRuntime {
                return .failure(.hostFailure(reason: "\(method): follow subscription was created without runtime metadata"))
            }
            if let bad = hashes.first(where: { $0.count != 32 }) {
                return .failure(.hostFailure(reason: "\(method): expected 32-byte hash, got \(bad.count)"))
            }
            return await body(node, subscription)
        }

        switch call.method.name {
        case "chain_get_head_header":
            let method = "remote_chain_head_header"
            return await onFollow(method, check: [hash]) { node, subscription in
                await Self.rpc(node, method, "chainHead_v1_header", [.string(subscription), Self.hex(hash)]) { (reply) throws(NodeAnswerError) in
                    if reply.result.isNull { return .record(["header": .absent]) }
                    return .record(["header": .some(.bytes(try Self.bytes(reply.result, "the header")))])
                }
            }
        case "chain_get_head_body":
            let method = "remote_chain_head_body"
            return await onFollow(method, check: [hash]) { node, subscription in
                await Self.rpc(node, method, "chainHead_v1_body", [.string(subscription), Self.hex(hash)], Self.operationStarted)
            }
        case "chain_get_head_storage":
            let method = "remote_chain_head_storage"
            let items: [JSONValue] = (request["items"]?.sequenceValue ?? []).map { item in
                .object(["key": Self.hex(item["key"]?.bytesValue ?? []), "type": .string(Self.storageQueryType(item["query_type"]))])
            }
            let childTrie = request["child_trie"]?.optionValue.flatMap { $0?.bytesValue }.map(Self.hex) ?? .null
            return await onFollow(method, check: [hash]) { node, subscription in
                await Self.rpc(node, method, "chainHead_v1_storage", [.string(subscription), Self.hex(hash), .array(items), childTrie],
                               Self.operationStarted)
            }
        case "chain_call_head":
            let method = "remote_chain_head_call"
            let function = request["function"]?.stringValue ?? ""
            let parameters = request["call_parameters"]?.bytesValue ?? []
            return await onFollow(method, check: [hash], needsRuntime: true) { node, subscription in
                await Self.rpc(node, method, "chainHead_v1_call", [.string(subscription), Self.hex(hash), .string(function), Self.hex(parameters)],
                               Self.operationStarted)
            }
        case "chain_unpin_head":
            let method = "remote_chain_head_unpin"
            let hashes = (request["hashes"]?.sequenceValue ?? []).map { $0.bytesValue ?? [] }
            return await onFollow(method, check: hashes) { node, subscription in
                for hash in hashes {
                    if case .failure(let failure) = await node.call("chainHead_v1_unpin", [.string(subscription), Self.hex(hash)]) {
                        return .failure(Self.failure(method, failure))
                    }
                }
                return .success(.unit)
            }
        case "chain_continue_head", "chain_stop_head_operation":
            let (method, rpcMethod) = call.method.name == "chain_continue_head"
                ? ("remote_chain_head_continue", "chainHead_v1_continue") : ("remote_chain_head_stop_operation", "chainHead_v1_stopOperation")
            let operation = request["operation_id"]?.stringValue ?? ""
            return await onFollow(method, check: []) { node, subscription in
                await Self.rpc(node, method, rpcMethod, [.string(subscription), .string(operation)]) { (_) throws(NodeAnswerError) in .unit }
            }
        case "chain_get_spec_genesis_hash":
            let method = "remote_chain_spec_genesis_hash"
            return await withNode(genesis, method) { node in
                await Self.rpc(node, method, "chainSpec_v1_genesisHash", []) { (reply) throws(NodeAnswerError) in
                    .record(["genesis_hash": .bytes(try Self.bytes(reply.result, "the genesis hash"))])
                }
            }
        case "chain_get_spec_chain_name":
            let method = "remote_chain_spec_chain_name"
            return await withNode(genesis, method) { node in
                await Self.rpc(node, method, "chainSpec_v1_chainName", []) { (reply) throws(NodeAnswerError) in
                    guard let name = reply.result.stringValue else { throw NodeAnswerError("expected a string, got \(reply.text.prefix(80))") }
                    return .record(["chain_name": .string(name)])
                }
            }
        case "chain_get_spec_properties":
            let method = "remote_chain_spec_properties"
            return await withNode(genesis, method) { node in
                await Self.rpc(node, method, "chainSpec_v1_properties", []) { (reply) throws(NodeAnswerError) in
                    .record(["properties": .string(reply.text)])
                }
            }
        case "chain_broadcast_transaction":
            let method = "remote_chain_transaction_broadcast"
            guard await permissions.resolve([.remote("chain_submit")]) else {
                return .failure(.domainV1(.record(["reason": .string("Permission denied")])))
            }
            let transaction = request["transaction"]?.bytesValue ?? []
            return await withNode(genesis, method) { node in
                await Self.rpc(node, method, "transaction_v1_broadcast", [Self.hex(transaction)]) { (reply) throws(NodeAnswerError) in
                    if reply.result.isNull { return .record(["operation_id": .absent]) }
                    guard let operation = reply.result.stringValue else { throw NodeAnswerError("expected an operation id, got \(reply.text.prefix(80))") }
                    return .record(["operation_id": .some(.string(self.track(genesis: node.genesis, operation: operation)))])
                }
            }
        case "chain_stop_transaction":
            let method = "remote_chain_transaction_stop"
            let handle = request["operation_id"]?.stringValue ?? ""
            guard let sequence = handle.hasPrefix("truapi-tx-") ? UInt64(handle.dropFirst("truapi-tx-".count)) : nil,
                  let operation = state.withLock({ $0.transactions[sequence] }) else {
                return .failure(.hostFailure(reason: "\(method): unknown transaction operation id"))
            }
            guard operation.genesis == genesis else {
                return .failure(.hostFailure(reason: "\(method): transaction operation belongs to a different chain"))
            }
            return await withNode(genesis, method) { node in
                switch await node.call("transaction_v1_stop", [.string(operation.operation)]) {
                case .success:
                    _ = self.state.withLock { $0.transactions.removeValue(forKey: sequence) }
                    return .success(.unit)
                case .failure(.rpc(let code, let message)) where code == -32602 && message.contains("Invalid operation id"):
                    // The operation ended between broadcast and stop: stopping it is done.
                    _ = self.state.withLock { $0.transactions.removeValue(forKey: sequence) }
                    return .success(.unit)
                case .failure(let failure):
                    return .failure(Self.failure(method, failure))
                }
            }
        default:
            return nil
        }
    }

    private func withNode(_ genesis: [UInt8]?, _ method: String,
                          _ body: (TruAPIChainNode) async -> Result<SCALEValue, TruAPICallError>) async -> Result<SCALEValue, TruAPICallError> {
        switch node(genesis, method) {
        case .failure(let error): return .failure(error)
        case .success(let node): return await body(node)
        }
    }

    private func track(genesis: [UInt8], operation: String) -> String {
        state.withLock { state in
            let sequence = state.nextTransaction
            state.nextTransaction += 1
            state.transactions[sequence] = (genesis, operation)
            while state.transactions.count > Self.maximumTrackedTransactions, let oldest = state.transactions.keys.min() {
                state.transactions.removeValue(forKey: oldest)
            }
            return "truapi-tx-\(sequence)"
        }
    }

    /// One call and its result mapped by `map`; a mapping failure is the node's malformed answer.
    private static func rpc(_ node: TruAPIChainNode, _ method: String, _ rpcMethod: String, _ params: [JSONValue],
                            _ map: (TruAPINodeReply) throws(NodeAnswerError) -> SCALEValue) async -> Result<SCALEValue, TruAPICallError> {
        switch await node.call(rpcMethod, params) {
        case .failure(let failure): return .failure(Self.failure(method, failure))
        case .success(let reply):
            do { return .success(try map(reply)) } catch { return .failure(Self.failure(method, .malformed(error.message))) }
        }
    }

    // MARK: - JSON ⇄ TrUAPI

    static func hex(_ bytes: [UInt8]) -> JSONValue { .string("0x" + Hex.encode(bytes)) }

    static func bytes(_ value: JSONValue?, _ what: String) throws(NodeAnswerError) -> [UInt8] {
        guard let text = value?.stringValue, let bytes = try? Hex.decode(text, allowPrefix: true) else {
            throw NodeAnswerError("\(what) is not hex: \(value?.serialized().prefix(80) ?? "nothing")")
        }
        return bytes
    }

    static func operationStarted(_ reply: TruAPINodeReply) throws(NodeAnswerError) -> SCALEValue {
        switch reply.result["result"]?.stringValue {
        case "started":
            guard let operation = reply.result["operationId"]?.stringValue else { throw NodeAnswerError("started without an operationId") }
            return .record(["operation": .variant("Started", .record(["operation_id": .string(operation)]))])
        case "limitReached":
            return .record(["operation": .unitVariant("LimitReached")])
        default:
            throw NodeAnswerError("expected {\"result\": \"started\" | \"limitReached\"}, got \(reply.text.prefix(80))")
        }
    }

    static let storageQueryTypes = [
        "Value": "value", "Hash": "hash", "ClosestDescendantMerkleValue": "closestDescendantMerkleValue",
        "DescendantsValues": "descendantsValues", "DescendantsHashes": "descendantsHashes",
    ]

    static func storageQueryType(_ value: SCALEValue?) -> String { storageQueryTypes[value?.variantName ?? ""] ?? "value" }

    /// A `chainHead_v1_followEvent` result as a `RemoteChainHeadFollowItem` (V1 content).
    static func followItem(_ event: JSONValue) -> Result<SCALEValue, NodeAnswerError> {
        func hashes(_ key: String) throws(NodeAnswerError) -> SCALEValue {
            guard let items = event[key]?.arrayValue else { throw NodeAnswerError("\(key) is not an array") }
            return .sequence(try items.map { (item) throws(NodeAnswerError) in .bytes(try hash(item, key)) })
        }
        func hash(_ value: JSONValue?, _ key: String) throws(NodeAnswerError) -> [UInt8] { try bytes(value, key) }
        func string(_ key: String) throws(NodeAnswerError) -> String {
            guard let text = event[key]?.stringValue else { throw NodeAnswerError("\(key) is not a string") }
            return text
        }
        func operation() throws(NodeAnswerError) -> SCALEValue { .string(try string("operationId")) }
        do throws(NodeAnswerError) {
            switch event["event"]?.stringValue {
            case "initialized":
                // chainHead v1 sends finalizedBlockHashes; early nodes sent one finalizedBlockHash.
                let finalized: SCALEValue = event["finalizedBlockHashes"] != nil ? try hashes("finalizedBlockHashes")
                    : .sequence([.bytes(try hash(event["finalizedBlockHash"], "finalizedBlockHash"))])
                return .success(.variant("Initialized", .record(["finalized_block_hashes": finalized,
                                                                 "finalized_block_runtime": try runtime(event["finalizedBlockRuntime"])])))
            case "newBlock":
                return .success(.variant("NewBlock", .record([
                    "block_hash": .bytes(try hash(event["blockHash"], "blockHash")),
                    "parent_block_hash": .bytes(try hash(event["parentBlockHash"], "parentBlockHash")),
                    "new_runtime": try runtime(event["newRuntime"]),
                ])))
            case "bestBlockChanged":
                return .success(.variant("BestBlockChanged", .record(["best_block_hash": .bytes(try hash(event["bestBlockHash"], "bestBlockHash"))])))
            case "finalized":
                return .success(.variant("Finalized", .record(["finalized_block_hashes": try hashes("finalizedBlockHashes"),
                                                               "pruned_block_hashes": try hashes("prunedBlockHashes")])))
            case "operationBodyDone":
                return .success(.variant("OperationBodyDone", .record(["operation_id": try operation(), "value": try hashes("value")])))
            case "operationCallDone":
                return .success(.variant("OperationCallDone", .record(["operation_id": try operation(),
                                                                       "output": .bytes(try hash(event["output"], "output"))])))
            case "operationStorageItems":
                guard let items = event["items"]?.arrayValue else { throw NodeAnswerError("items is not an array") }
                let mapped: [SCALEValue] = try items.map { (item) throws(NodeAnswerError) in
                    func optional(_ key: String) throws(NodeAnswerError) -> SCALEValue {
                        guard let value = item[key], !value.isNull else { return .absent }
                        return .some(.bytes(try hash(value, key)))
                    }
                    return .record(["key": .bytes(try hash(item["key"], "key")), "value": try optional("value"), "hash": try optional("hash"),
                                    "closest_descendant_merkle_value": try optional("closestDescendantMerkleValue")])
                }
                return .success(.variant("OperationStorageItems", .record(["operation_id": try operation(), "items": .sequence(mapped)])))
            case "operationStorageDone":
                return .success(.variant("OperationStorageDone", .record(["operation_id": try operation()])))
            case "operationWaitingForContinue":
                return .success(.variant("OperationWaitingForContinue", .record(["operation_id": try operation()])))
            case "operationInaccessible":
                return .success(.variant("OperationInaccessible", .record(["operation_id": try operation()])))
            case "operationError":
                return .success(.variant("OperationError", .record(["operation_id": try operation(), "error": .string(try string("error"))])))
            case "stop":
                return .success(.unitVariant("Stop"))
            default:
                throw NodeAnswerError("unknown event \(event["event"]?.serialized().prefix(40) ?? "without a name")")
            }
        } catch {
            return .failure(error)
        }
    }

    struct NodeAnswerError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// `Option<RuntimeType>` from a runtime event (`{"type": "valid", "spec": …}` or `{"type": "invalid", "error"}`);
    /// the API list is sorted by name, as the reference sorts it.
    static func runtime(_ value: JSONValue?) throws(NodeAnswerError) -> SCALEValue {
        guard let value, !value.isNull else { return .absent }
        switch value["type"]?.stringValue {
        case "invalid":
            return .some(.variant("Invalid", .record(["error": .string(value["error"]?.stringValue ?? "")])))
        case "valid":
            guard let spec = value["spec"] else { throw NodeAnswerError("a valid runtime without spec") }
            func number(_ key: String) throws(NodeAnswerError) -> SCALEValue {
                guard let number = spec[key]?.int64Value, let small = UInt32(exactly: number) else { throw NodeAnswerError("spec.\(key) is not a u32") }
                return .int(small)
            }
            var apis: [(String, UInt32)] = []
            if let object = spec["apis"]?.objectValue {
                for (name, version) in object {
                    guard let number = version.int64Value, let small = UInt32(exactly: number) else { throw NodeAnswerError("apis.\(name) is not a u32") }
                    apis.append((name, small))
                }
            } else if let pairs = spec["apis"]?.arrayValue {
                for pair in pairs {
                    guard let name = pair.arrayValue?.first?.stringValue, let number = pair.arrayValue?.last?.int64Value,
                          let small = UInt32(exactly: number) else { throw NodeAnswerError("apis holds an entry that is not [name, version]") }
                    apis.append((name, small))
                }
            }
            apis.sort { $0.0 < $1.0 }
            let transactionVersion: SCALEValue = (spec["transactionVersion"]?.isNull ?? true) ? .absent : .some(try number("transactionVersion"))
            return .some(.variant("Valid", .record([
                "spec_name": .string(spec["specName"]?.stringValue ?? ""), "impl_name": .string(spec["implName"]?.stringValue ?? ""),
                "spec_version": try number("specVersion"), "impl_version": try number("implVersion"),
                "transaction_version": transactionVersion,
                "apis": .sequence(apis.map { .record(["name": .string($0.0), "version": .int($0.1)]) }),
            ])))
        default:
            throw NodeAnswerError("a runtime that is neither valid nor invalid")
        }
    }
}
