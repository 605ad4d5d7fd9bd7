import OmniTestSupport
import Foundation
import OmniCodec


/// Bytes from hex written with optional spaces, for readable test tables.
func bytes(_ hex: String) -> [UInt8] {
    // Test tables are trusted constants; a typo there must fail loudly, not turn into empty bytes.
    do { return try Hex.decode(hex.filter { !$0.isWhitespace }) } catch { preconditionFailure("bad hex literal in a test: \(error)") }
}

/// Decimal text of a big-endian magnitude (schoolbook division by 10), for checking bignums against the RFC.
func decimalString(_ magnitude: [UInt8]) -> String {
    var digits: [UInt8] = magnitude
    var out: [Character] = []
    while digits.contains(where: { $0 != 0 }) {
        var remainder = 0
        for i in digits.indices {
            let value = remainder * 256 + Int(digits[i])
            digits[i] = UInt8(value / 10)
            remainder = value % 10
        }
        out.append(Character(String(remainder)))
    }
    return out.isEmpty ? "0" : String(out.reversed())
}
