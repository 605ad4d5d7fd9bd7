import Foundation
import OmniCodec
import OmniTestSupport

/// Reads a JSON object from a Python peer's stdout.
func peerJSON(_ result: ProcessResult) throws -> JSONValue {
    guard result.status == 0 else {
        throw TestSupportError("peer failed (\(result.status)): \(result.stderrText) \(result.stdoutText)")
    }
    return try JSONValue.parse(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
}

extension JSONValue {
    var intValue: Int? { int64Value.map { Int($0) } }
}

extension SeededGenerator {
    /// Random text mixing ASCII with 2-, 3- and 4-byte UTF-8 sequences, of exactly `byteCount` UTF-8 bytes.
    mutating func text(byteCount: Int) -> String {
        var scalars = String.UnicodeScalarView()
        var remaining = byteCount
        let pools: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x7FF, 0x800...0xD7FF, 0x10000...0x10FFFF]
        while remaining > 0 {
            let width = Int.random(in: 1...min(4, remaining), using: &self)
            let pool = pools[width - 1]
            if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &self)) {
                scalars.append(scalar)
                remaining -= width
            }
        }
        return String(scalars)
    }
}
