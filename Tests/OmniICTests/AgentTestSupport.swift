import Foundation
import OmniCandid
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

/// One `Tests/Peers/ic_replica.py` shared by the agent tests (they are serialized and reset it before each use).
/// Its keys come from a fresh random seed, printed once so a failing run can be reproduced with `--seed`.
final class ReplicaFixture: @unchecked Sendable {
    static let shared = Result { try ReplicaFixture() }

    let peer: PeerProcess
    let network: ICNetwork
    let rootKey: ICRootKey
    let canister: Principal
    let subnet: Principal
    let seed: String

    init(arguments: [String] = []) throws {
        peer = try PeerProcess(script: "ic_replica.py", arguments: arguments)
        network = try ICNetwork(try peer.string("url"))
        rootKey = try ICRootKey(hex: try peer.string("root_key"))
        canister = try Principal(icText: try peer.string("canister_id"))
        subnet = try Principal(icText: try peer.string("subnet_id"))
        seed = try peer.string("seed")
        FileHandle.standardError.write(Data("ic_replica.py for the agent tests: --seed \(seed)\n".utf8))
    }

    static func get() throws -> ReplicaFixture { try shared.get() }

    /// Startup switches plus `switches`, fresh statistics.
    func reset(_ switches: [(String, JSONValue)] = []) throws {
        var body = JSONObject([("action", .string("reset_config"))])
        for (key, value) in switches { body[key] = value }
        try peer.requestJSON("/_control", method: "POST", body: .object(body))
        try peer.requestJSON("/_control", method: "POST", body: ["action": "reset_stats"])
    }

    func set(_ switches: [(String, JSONValue)]) throws {
        try peer.requestJSON("/_control", method: "POST", body: .object(JSONObject(switches)))
    }

    func stat(_ name: String) throws -> Int {
        let view = try peer.requestJSON("/_control")
        return Int(view["stats"]?[name]?.int64Value ?? 0)
    }

    func agent(identity: ICIdentity = .anonymous, cache: NodeKeyCache? = nil,
               events: EventLog? = nil, configure: (inout ICAgent.Configuration) -> Void = { _ in }) throws -> ICAgent {
        var configuration = ICAgent.Configuration(network: network, rootKey: rootKey)
        configuration.nodeKeyCache = cache
        configuration.pollInterval = .milliseconds(50)
        configuration.requestTimeout = .seconds(10)
        configure(&configuration)
        return try ICAgent(configuration: configuration, identity: identity, onEvent: { event in events?.append(event) })
    }
}

/// Collects agent events for assertions.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ICAgentEvent] = []

    func append(_ event: ICAgentEvent) { lock.withLock { stored.append(event) } }
    var events: [ICAgentEvent] { lock.withLock { stored } }
    var descriptions: [String] { events.map(\.description) }
}

/// A fresh temporary directory, removed by the caller with `removeDirectory`.
func temporaryDirectory(_ prefix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func candidText(_ text: String) throws -> [UInt8] { try Candid.encode([.text(text)]) }

func decodedText(_ bytes: [UInt8]) throws -> String? {
    guard case .text(let text)? = try Candid.decode(bytes).first else { return nil }
    return text
}

/// The error thrown by `body`, as `T`.
func thrownError<T: Error>(_ type: T.Type, _ body: () throws -> Void) -> T? {
    do {
        try body()
    } catch let error as T {
        return error
    } catch {
        Issue.record("expected \(T.self), got \(error)")
        return nil
    }
    Issue.record("expected \(T.self), but nothing was thrown")
    return nil
}

/// A replica played by `handler`, which gets each request with its decoded envelope and its index (0-based).
final class HandlerTransport: ICTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [(request: HTTPRequest, envelope: ICEnvelope)] = []
    private let handler: (HTTPRequest, ICEnvelope, Int) throws -> (Int, [UInt8])

    init(_ handler: @escaping (HTTPRequest, ICEnvelope, Int) throws -> (Int, [UInt8])) { self.handler = handler }

    func perform(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        let envelope: ICEnvelope
        do { envelope = try ICEnvelope(decoding: request.body ?? []) } catch {
            throw TransportError(.protocolViolation, "the test replica cannot read the request: \(error)")
        }
        let index = lock.withLock { () -> Int in
            seen.append((request, envelope))
            return seen.count - 1
        }
        let answer: (Int, [UInt8])
        do { answer = try handler(request, envelope, index) } catch {
            throw TransportError(.protocolViolation, "the test replica failed: \(error)")
        }
        return HTTPResponse(status: answer.0, version: .http1_1, headers: [:], body: answer.1, effectiveURL: request.url,
                            redirectCount: 0, totalSeconds: 0)
    }

    var envelopes: [ICEnvelope] { lock.withLock { seen.map(\.envelope) } }
    var calls: [ICEnvelope] { envelopes.filter { $0.content.requestType == "call" } }
    var bodies: [[UInt8]] { lock.withLock { seen.map { $0.request.body ?? [] } } }
}
