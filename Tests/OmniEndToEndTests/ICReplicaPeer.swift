import Foundation
import OmniCodec
import OmniTestSupport

/// `Tests/Peers/ic_replica.py` as the IC end-to-end suites use it: started once per suite (fresh keys per run, the
/// seed printed so a failure can be replayed), driven through its `/_control` endpoint.
extension PeerProcess {
    static func icReplica(for suite: String, arguments: [String] = []) throws -> PeerProcess {
        let peer = try PeerProcess(script: "ic_replica.py", arguments: arguments)
        let switches = arguments.isEmpty ? "" : " " + arguments.joined(separator: " ")
        FileHandle.standardError.write(Data("ic_replica.py\(switches) for \(suite): --seed \(try peer.string("seed"))\n".utf8))
        return peer
    }

    /// Changes the replica's behaviour (faults, answers, resets); the answer is its control view.
    @discardableResult
    func control(_ body: JSONValue) throws -> JSONValue {
        try requestJSON("/_control", method: "POST", body: body)
    }

    /// The replica's request counter `name` (0 when it has not counted any).
    func stat(_ name: String) throws -> Int { Int(try requestJSON("/_control")["stats"]?[name]?.int64Value ?? 0) }
}
