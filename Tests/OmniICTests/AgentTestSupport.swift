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

    func agent(identity: ICIdentity = .anonymous, verifies: Bool = true, cache: NodeKeyCache? = nil,
               events: EventLog? = nil, configure: (inout ICAgent.Configuration) -> Void = { _ in }) throws -> ICAgent {
        var configuration = ICAgent.Configuration(network: network, rootKey: rootKey)
        configuration.verifies = verifies
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
