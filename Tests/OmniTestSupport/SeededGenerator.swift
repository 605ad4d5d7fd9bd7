import Foundation

/// A small, fast, seedable generator (SplitMix64) for randomized and differential tests. Each run draws a fresh
/// seed and tests print it with every failure; `OMNI_TEST_SEED=<n>` replays a failing run.
public struct SeededGenerator: RandomNumberGenerator {
    public let seed: UInt64
    private var state: UInt64

    public init(seed: UInt64 = SeededGenerator.freshSeed()) {
        self.seed = seed
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// A fresh seed per run, or `OMNI_TEST_SEED` when set.
    public static func freshSeed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["OMNI_TEST_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0 ... .max)
    }
}
