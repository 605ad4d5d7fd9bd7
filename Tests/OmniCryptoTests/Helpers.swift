import Foundation
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// Hex → bytes for typed-in vectors (spaces allowed). A malformed literal is a bug in the test itself.
func hex(_ text: String) -> [UInt8] {
    do { return try Hex.decode(text.filter { !$0.isWhitespace }) } catch { preconditionFailure("bad hex literal in a test: \(error)") }
}

extension Collection<UInt8> {
    var hexString: String { Hex.encode(self) }
}

extension SeededGenerator {
    mutating func bytes(in range: ClosedRange<Int>) -> [UInt8] {
        bytes(Int.random(in: range, using: &self))
    }

    /// A valid private scalar for `curve` (1…n−1), by rejection sampling.
    mutating func scalar(for curve: ECDSA.Curve) -> [UInt8] {
        while true {
            let candidate = bytes(curve.byteCount)
            if (try? ECDSA.PrivateKey(rawRepresentation: candidate, curve: curve)) != nil { return candidate }
        }
    }
}

/// One run of Tests/Peers/crypto_peer.py: all requests go in on stdin, one response per request comes back.
enum CryptoPeer {
    static func run(_ requests: [JSONValue]) throws -> [JSONValue] {
        let input = requests.map { $0.serialized() }.joined(separator: "\n") + "\n"
        let result = try Subprocess.python("crypto_peer.py", stdin: Data(input.utf8))
        guard result.status == 0 else {
            throw TestSupportError("crypto_peer.py exited with \(result.status): \(result.stderrText)")
        }
        let responses = try JSONValue.parseLines(result.stdoutText)
        guard responses.count == requests.count else {
            throw TestSupportError("crypto_peer.py answered \(responses.count) of \(requests.count) requests: \(result.stderrText)")
        }
        return responses
    }
}

extension JSONValue {
    /// A required string field of a peer response.
    func string(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else {
            throw TestSupportError("peer response lacks string \"\(key)\": \(serialized())")
        }
        return value
    }

    /// A required hex field of a peer response, decoded.
    func bytes(_ key: String) throws -> [UInt8] {
        try Hex.decode(try string(key))
    }

    func bool(_ key: String) throws -> Bool {
        guard let value = self[key]?.boolValue else {
            throw TestSupportError("peer response lacks bool \"\(key)\": \(serialized())")
        }
        return value
    }

    func int(_ key: String) throws -> Int64 {
        guard let value = self[key]?.int64Value else {
            throw TestSupportError("peer response lacks integer \"\(key)\": \(serialized())")
        }
        return value
    }

    var isOK: Bool { self["ok"]?.boolValue == true }
}
