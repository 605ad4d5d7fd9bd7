import Foundation
import OmniCodec
import OmniTestSupport

/// One run of Tests/Peers/sr25519_peer.py (py-sr25519-bindings, py-bip39-bindings, scalecodec, hashlib, and the
/// peer's own VRF on merlin-transcripts): all requests go in on stdin, one response per request comes back.
enum Sr25519Peer {
    static func run(_ requests: [JSONValue]) throws -> [JSONValue] {
        let input = requests.map { $0.serialized() }.joined(separator: "\n") + "\n"
        let result = try Subprocess.python("sr25519_peer.py", stdin: Data(input.utf8))
        guard result.status == 0 else {
            throw TestSupportError("sr25519_peer.py exited with \(result.status): \(result.stderrText)")
        }
        let responses = try JSONValue.parseLines(result.stdoutText)
        guard responses.count == requests.count else {
            throw TestSupportError("sr25519_peer.py answered \(responses.count) of \(requests.count) requests: \(result.stderrText)")
        }
        for (index, response) in responses.enumerated() where !response.isOK && response["refused"] == nil {
            throw TestSupportError("sr25519_peer.py failed request \(index): \(response.serialized())")
        }
        return responses
    }
}

extension SeededGenerator {
    /// A junction name for differential derivation tests: digits (the u64 rule), short text (padded), long text
    /// (hashed) or non-ASCII text.
    mutating func junctionName() -> String {
        switch Int.random(in: 0..<5, using: &self) {
        case 0: return String(UInt64.random(in: 0 ... .max, using: &self) >> UInt64.random(in: 0...63, using: &self))
        case 1: return String((0..<Int.random(in: 1...20, using: &self)).map { _ in "abcdefghijklmnopqrstuvwxyz.-_".randomElement(using: &self)! })
        case 2: return String((0..<Int.random(in: 31...80, using: &self)).map { _ in "abcdefghij0123456789".randomElement(using: &self)! })
        case 3: return ["ünïcødé", "ключ", "鍵", "🔑key", "0x1f"].randomElement(using: &self)!
        default: return ["product", "uid.dot", "myapp.dot", "polkadot", "18446744073709551616", "007"].randomElement(using: &self)!
        }
    }
}
