import Foundation
import OmniCodec

/// A small, fast, seedable generator (SplitMix64) so differential runs can be replayed from the printed seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A fresh seed per run; `OMNI_TEST_SEED` replays a failing one.
    static func freshSeed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["OMNI_TEST_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0 ... .max)
    }
}

/// Bytes from hex written with optional spaces, for readable test tables.
func bytes(_ hex: String) -> [UInt8] {
    // Test tables are trusted constants; a typo there should fail loudly at the call site.
    (try? Hex.decode(hex.filter { !$0.isWhitespace })) ?? []
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
