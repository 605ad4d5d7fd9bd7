import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
@testable import OmniTruAPI

/// The bridge's events as they happen; tests wait for the one they expect instead of sleeping.
final class BridgeEventLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [TruAPIBridgeEvent] = []

    func record(_ event: TruAPIBridgeEvent) {
        condition.lock()
        events.append(event)
        condition.broadcast()
        condition.unlock()
    }

    var all: [TruAPIBridgeEvent] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    /// The first event matching `predicate`, waiting up to `timeout` seconds for it.
    @discardableResult
    func wait(timeout: Double = 30, for what: String, where predicate: (TruAPIBridgeEvent) -> Bool) throws -> TruAPIBridgeEvent {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let event = events.first(where: predicate) { return event }
            guard condition.wait(until: deadline) else {
                throw TestSupportError("no \(what) event within \(timeout) s; got \(events.map(\.name))")
            }
        }
    }

    /// `wait` off the concurrency pool: a test blocking pool threads would starve the bridge's own tasks.
    @discardableResult
    func next(timeout: Double = 30, for what: String, where predicate: @escaping @Sendable (TruAPIBridgeEvent) -> Bool) async throws
        -> TruAPIBridgeEvent
    {
        try await offPool { try self.wait(timeout: timeout, for: what, where: predicate) }
    }

    func count(_ name: String) -> Int { all.filter { $0.name == name }.count }
}

/// A prompter that answers from a script and records what it was asked.
final class ScriptedPrompter: TruAPIPrompter, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Bool?]
    private(set) var asked: [TruAPIPrompt] = []

    init(_ answers: [Bool?]) { self.answers = answers }

    func ask(_ prompt: TruAPIPrompt) async -> Bool? {
        lock.withLock {
            asked.append(prompt)
            return answers.isEmpty ? nil : answers.removeFirst()
        }
    }

    var questions: [TruAPIPrompt] { lock.withLock { asked } }
}

/// A bridge on 127.0.0.1:0 over an in-memory state, for in-process tests.
final class BridgeHarness: @unchecked Sendable {
    let events = BridgeEventLog()
    let server: HTTPServer
    let bridge: TruAPIBridge
    let context: TruAPIBridgeContext
    let token: String?
    var url: String { "ws://127.0.0.1:\(server.port)/" + (token.map { "?t=" + $0 } ?? "") }

    init(product: String = "myapp.dot", chains: TruAPIChainSet = .empty, policy: TruAPIPolicy = .promptEverything,
         prompter: (any TruAPIPrompter)? = nil, token: String? = TruAPIBridge.makeToken(), trace: TruAPITrace? = nil,
         state: TruAPIBridgeState = .ephemeral(), session: TruAPISession? = nil, chainNodes: [(genesis: [UInt8], url: String)] = [],
         autoAccept: Bool = false, denyAll: Bool = false, configure: (inout TruAPIBridgeConfiguration) -> Void = { _ in }) throws {
        self.token = token
        let events = events
        let productID = try TruAPIProductID(product)
        let broker = TruAPIPermissionBroker(productID: productID, policy: policy, state: state, prompter: prompter, autoAccept: autoAccept,
                                            denyAll: denyAll, onEvent: { events.record($0) })
        let context = TruAPIBridgeContext(productID: productID, session: session, chains: chains, chainNodes: chainNodes, state: state,
                                          permissions: broker, onEvent: { events.record($0) })
        self.context = context
        var configuration = TruAPIBridgeConfiguration()
        configuration.token = token
        configure(&configuration)
        bridge = TruAPIBridge(configuration: configuration, trace: trace, onEvent: { events.record($0) }) { id in
            TruAPIBridgeHost(context: context, connectionID: id)
        }
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.maxConnections = configuration.maxConnections + 16
        serverConfiguration.shutdownGracePeriod = 2
        server = try HTTPServer(configuration: serverConfiguration)
        bridge.install(on: server)
        TruAPIBrowserGlue.install(on: server, bridge: bridge) { [weak server] in
            TruAPIBridgeEndpoint(host: "127.0.0.1", port: server?.port ?? 0, token: token)
        }
        try server.start()
    }

    func client(timeout: Double = BridgeTimeouts.answer) throws -> TruAPIClient { try TruAPIClient.connect(url, timeout: timeout) }

    func stop() {
        bridge.shutdown()
        server.stop()
        context.close()
    }
}

/// How long a test waits for the in-process bridge to answer. The bridge dispatches every frame on Swift's
/// concurrency pool, which in the test process has one thread per core and is shared with every suite: blocking
/// tests elsewhere can hold it for many seconds on a 2-core machine, delaying (never losing) an answer. A wait
/// that ends is a failure, so it is generous; it never slows a passing test.
enum BridgeTimeouts {
    static let answer: Double = 60
}

extension TruAPIClient {
    /// A request built from a JSON description's payload, answered within `BridgeTimeouts.answer`.
    func call(_ methodName: String, _ payload: SCALEValue?, id: String = "p:1") throws -> TruAPIMessage {
        let request = TruAPIMessage(requestID: id, method: method(methodName), kind: .request, payload: payload.map { .variant("V1", $0) })
        return try call(request, timeout: BridgeTimeouts.answer)
    }

    /// The next frame within `timeout` seconds, decoded.
    func nextFrame(timeout: Double = BridgeTimeouts.answer) throws -> TruAPIFrame {
        guard let bytes = try receive(until: Date(timeIntervalSinceNow: timeout)) else {
            throw TestSupportError("no frame within \(timeout) s")
        }
        return try TruAPIFrame.decode(bytes)
    }
}

extension TruAPIMessage {
    /// The Ok body of a response, nil for an Err.
    var okBody: SCALEValue? {
        if case .variant(_, .ok(let body))? = payload { return body }
        return nil
    }

    var callError: TruAPICallError? {
        if case .variant(_, .err(let error))? = payload { return TruAPICallError(value: error) }
        return nil
    }
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("omni-bridge-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
