/// Keccak-f[1600] (FIPS 202 §3) and the SHA-3 sponge on it. Merlin transcripts (STROBE-128) need the bare
/// permutation, which OpenSSL does not expose; SHA3-256 and SHAKE here exist so that the permutation can be checked
/// against OpenSSL's SHA-3 and the Keccak team's known answers.
public enum Keccak {
    /// Lanes of the 1600-bit state; lane (x, y) sits at index x + 5·y.
    public static let laneCount = 25
    static let stateByteCount = 200

    /// Applies Keccak-f[1600] to `lanes` (25 lanes, each a little-endian 64-bit word of the state).
    public static func permute(_ lanes: inout [UInt64]) throws(CryptoError) {
        guard lanes.count == laneCount else {
        throw CryptoError(.invalidInput, "Keccak-f[1600] state must be 25 lanes, got \(lanes.count)")
        }
        // The permutation works on the state's bytes in memory order; lanes are little-endian words of them.
        for index in 0..<laneCount { lanes[index] = lanes[index].littleEndian }
        lanes.withUnsafeMutableBytes { keccakF1600($0.baseAddress!) }
        for index in 0..<laneCount { lanes[index] = UInt64(littleEndian: lanes[index]) }
    }

    /// SHA3-256 (FIPS 202 §6.1).
    public static func sha3_256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        sponge(bytes, rateByteCount: 136, domainSuffix: 0x06, outputByteCount: 32)
    }

    /// SHA3-512 (FIPS 202 §6.1).
    public static func sha3_512(_ bytes: some Collection<UInt8>) -> [UInt8] {
        sponge(bytes, rateByteCount: 72, domainSuffix: 0x06, outputByteCount: 64)
    }

    /// SHAKE128 (FIPS 202 §6.2) with `outputByteCount` bytes of output (0…1 MiB).
    public static func shake128(_ bytes: some Collection<UInt8>, outputByteCount: Int) throws(CryptoError) -> [UInt8] {
        try checkOutputLength(outputByteCount)
        return sponge(bytes, rateByteCount: 168, domainSuffix: 0x1f, outputByteCount: outputByteCount)
    }

    /// SHAKE256 (FIPS 202 §6.2) with `outputByteCount` bytes of output (0…1 MiB).
    public static func shake256(_ bytes: some Collection<UInt8>, outputByteCount: Int) throws(CryptoError) -> [UInt8] {
        try checkOutputLength(outputByteCount)
        return sponge(bytes, rateByteCount: 136, domainSuffix: 0x1f, outputByteCount: outputByteCount)
    }

    /// Output is capped so that a hostile length cannot ask for an arbitrarily large allocation.
    public static let maximumOutputByteCount = 1 << 20

    private static func checkOutputLength(_ count: Int) throws(CryptoError) {
        guard (0...maximumOutputByteCount).contains(count) else {
        throw CryptoError(.invalidInput, "SHAKE output length must be 0…\(maximumOutputByteCount) bytes, got \(count)")
        }
    }

    /// The FIPS 202 sponge with pad10*1 after the domain-separation bits.
    private static func sponge(
        _ bytes: some Collection<UInt8>, rateByteCount: Int, domainSuffix: UInt8, outputByteCount: Int
    ) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: outputByteCount)
        withKeccakState { state in
        let stateBytes = UnsafeMutableRawPointer(state).assumingMemoryBound(to: UInt8.self)
        var position = 0
        withContiguousBytes(bytes) { input in
            for byte in input {
                stateBytes[position] ^= byte
                position += 1
                if position == rateByteCount {
                    keccakF1600(state)
                    position = 0
                }
            }
        }
        stateBytes[position] ^= domainSuffix
        stateBytes[rateByteCount - 1] ^= 0x80
        keccakF1600(state)
        var written = 0
        while written < outputByteCount {
            let chunk = min(rateByteCount, outputByteCount - written)
            for index in 0..<chunk { output[written + index] = stateBytes[index] }
            written += chunk
            if written < outputByteCount { keccakF1600(state) }
        }
        }
        return output
    }
}

/// Runs `body` on a zeroed 200-byte Keccak state (bound to bytes) that is wiped afterwards: it may have absorbed
/// secrets.
@inline(__always)
func withKeccakState<R>(_ body: (UnsafeMutableRawPointer) -> R) -> R {
    withUnsafeTemporaryAllocation(byteCount: Keccak.stateByteCount, alignment: 8) { buffer in
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        defer { secureZero(buffer) }
        return body(buffer.baseAddress!)
    }
}

/// The 24 round constants of ι (FIPS 202 §3.2.5).
private let keccakRoundConstants: [UInt64] = [
    0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
    0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
    0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
    0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
    0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
    0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
]

@inline(__always)
private func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value &<< count) | (value &>> (64 &- count))
}

/// Keccak-f[1600] in place on a 200-byte, 8-byte-aligned state whose lanes are little-endian words (FIPS 202
/// §1.3 bit order). Unrolled over the lanes (the steps of FIPS 202 §3.2 with the offsets of Table 2 spelled
/// out), so that the whole state lives in locals.
func keccakF1600(_ state: UnsafeMutableRawPointer) {
    var a0 = UInt64(littleEndian: state.load(fromByteOffset: 0, as: UInt64.self))
    var a1 = UInt64(littleEndian: state.load(fromByteOffset: 8, as: UInt64.self))
    var a2 = UInt64(littleEndian: state.load(fromByteOffset: 16, as: UInt64.self))
    var a3 = UInt64(littleEndian: state.load(fromByteOffset: 24, as: UInt64.self))
    var a4 = UInt64(littleEndian: state.load(fromByteOffset: 32, as: UInt64.self))
    var a5 = UInt64(littleEndian: state.load(fromByteOffset: 40, as: UInt64.self))
    var a6 = UInt64(littleEndian: state.load(fromByteOffset: 48, as: UInt64.self))
    var a7 = UInt64(littleEndian: state.load(fromByteOffset: 56, as: UInt64.self))
    var a8 = UInt64(littleEndian: state.load(fromByteOffset: 64, as: UInt64.self))
    var a9 = UInt64(littleEndian: state.load(fromByteOffset: 72, as: UInt64.self))
    var a10 = UInt64(littleEndian: state.load(fromByteOffset: 80, as: UInt64.self))
    var a11 = UInt64(littleEndian: state.load(fromByteOffset: 88, as: UInt64.self))
    var a12 = UInt64(littleEndian: state.load(fromByteOffset: 96, as: UInt64.self))
    var a13 = UInt64(littleEndian: state.load(fromByteOffset: 104, as: UInt64.self))
    var a14 = UInt64(littleEndian: state.load(fromByteOffset: 112, as: UInt64.self))
    var a15 = UInt64(littleEndian: state.load(fromByteOffset: 120, as: UInt64.self))
    var a16 = UInt64(littleEndian: state.load(fromByteOffset: 128, as: UInt64.self))
    var a17 = UInt64(littleEndian: state.load(fromByteOffset: 136, as: UInt64.self))
    var a18 = UInt64(littleEndian: state.load(fromByteOffset: 144, as: UInt64.self))
    var a19 = UInt64(littleEndian: state.load(fromByteOffset: 152, as: UInt64.self))
    var a20 = UInt64(littleEndian: state.load(fromByteOffset: 160, as: UInt64.self))
    var a21 = UInt64(littleEndian: state.load(fromByteOffset: 168, as: UInt64.self))
    var a22 = UInt64(littleEndian: state.load(fromByteOffset: 176, as: UInt64.self))
    var a23 = UInt64(littleEndian: state.load(fromByteOffset: 184, as: UInt64.self))
    var a24 = UInt64(littleEndian: state.load(fromByteOffset: 192, as: UInt64.self))
    for constant in keccakRoundConstants {
        // θ
        let c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20
        let c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21
        let c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22
        let c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23
        let c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24
        let d0 = c4 ^ rotateLeft(c1, 1)
        let d1 = c0 ^ rotateLeft(c2, 1)
        let d2 = c1 ^ rotateLeft(c3, 1)
        let d3 = c2 ^ rotateLeft(c4, 1)
        let d4 = c3 ^ rotateLeft(c0, 1)
        // ρ and π: lane (x, y) moves to (y, 2x + 3y) after rotating by its offset
        let b0 = a0 ^ d0
        let b10 = rotateLeft(a1 ^ d1, 1)
        let b20 = rotateLeft(a2 ^ d2, 62)
        let b5 = rotateLeft(a3 ^ d3, 28)
        let b15 = rotateLeft(a4 ^ d4, 27)
        let b16 = rotateLeft(a5 ^ d0, 36)
        let b1 = rotateLeft(a6 ^ d1, 44)
        let b11 = rotateLeft(a7 ^ d2, 6)
        let b21 = rotateLeft(a8 ^ d3, 55)
        let b6 = rotateLeft(a9 ^ d4, 20)
        let b7 = rotateLeft(a10 ^ d0, 3)
        let b17 = rotateLeft(a11 ^ d1, 10)
        let b2 = rotateLeft(a12 ^ d2, 43)
        let b12 = rotateLeft(a13 ^ d3, 25)
        let b22 = rotateLeft(a14 ^ d4, 39)
        let b23 = rotateLeft(a15 ^ d0, 41)
        let b8 = rotateLeft(a16 ^ d1, 45)
        let b18 = rotateLeft(a17 ^ d2, 15)
        let b3 = rotateLeft(a18 ^ d3, 21)
        let b13 = rotateLeft(a19 ^ d4, 8)
        let b14 = rotateLeft(a20 ^ d0, 18)
        let b24 = rotateLeft(a21 ^ d1, 2)
        let b9 = rotateLeft(a22 ^ d2, 61)
        let b19 = rotateLeft(a23 ^ d3, 56)
        let b4 = rotateLeft(a24 ^ d4, 14)
        // χ
        a0 = b0 ^ (~b1 & b2)
        a1 = b1 ^ (~b2 & b3)
        a2 = b2 ^ (~b3 & b4)
        a3 = b3 ^ (~b4 & b0)
        a4 = b4 ^ (~b0 & b1)
        a5 = b5 ^ (~b6 & b7)
        a6 = b6 ^ (~b7 & b8)
        a7 = b7 ^ (~b8 & b9)
        a8 = b8 ^ (~b9 & b5)
        a9 = b9 ^ (~b5 & b6)
        a10 = b10 ^ (~b11 & b12)
        a11 = b11 ^ (~b12 & b13)
        a12 = b12 ^ (~b13 & b14)
        a13 = b13 ^ (~b14 & b10)
        a14 = b14 ^ (~b10 & b11)
        a15 = b15 ^ (~b16 & b17)
        a16 = b16 ^ (~b17 & b18)
        a17 = b17 ^ (~b18 & b19)
        a18 = b18 ^ (~b19 & b15)
        a19 = b19 ^ (~b15 & b16)
        a20 = b20 ^ (~b21 & b22)
        a21 = b21 ^ (~b22 & b23)
        a22 = b22 ^ (~b23 & b24)
        a23 = b23 ^ (~b24 & b20)
        a24 = b24 ^ (~b20 & b21)
        // ι
        a0 ^= constant
    }
    state.storeBytes(of: a0.littleEndian, toByteOffset: 0, as: UInt64.self)
    state.storeBytes(of: a1.littleEndian, toByteOffset: 8, as: UInt64.self)
    state.storeBytes(of: a2.littleEndian, toByteOffset: 16, as: UInt64.self)
    state.storeBytes(of: a3.littleEndian, toByteOffset: 24, as: UInt64.self)
    state.storeBytes(of: a4.littleEndian, toByteOffset: 32, as: UInt64.self)
    state.storeBytes(of: a5.littleEndian, toByteOffset: 40, as: UInt64.self)
    state.storeBytes(of: a6.littleEndian, toByteOffset: 48, as: UInt64.self)
    state.storeBytes(of: a7.littleEndian, toByteOffset: 56, as: UInt64.self)
    state.storeBytes(of: a8.littleEndian, toByteOffset: 64, as: UInt64.self)
    state.storeBytes(of: a9.littleEndian, toByteOffset: 72, as: UInt64.self)
    state.storeBytes(of: a10.littleEndian, toByteOffset: 80, as: UInt64.self)
    state.storeBytes(of: a11.littleEndian, toByteOffset: 88, as: UInt64.self)
    state.storeBytes(of: a12.littleEndian, toByteOffset: 96, as: UInt64.self)
    state.storeBytes(of: a13.littleEndian, toByteOffset: 104, as: UInt64.self)
    state.storeBytes(of: a14.littleEndian, toByteOffset: 112, as: UInt64.self)
    state.storeBytes(of: a15.littleEndian, toByteOffset: 120, as: UInt64.self)
    state.storeBytes(of: a16.littleEndian, toByteOffset: 128, as: UInt64.self)
    state.storeBytes(of: a17.littleEndian, toByteOffset: 136, as: UInt64.self)
    state.storeBytes(of: a18.littleEndian, toByteOffset: 144, as: UInt64.self)
    state.storeBytes(of: a19.littleEndian, toByteOffset: 152, as: UInt64.self)
    state.storeBytes(of: a20.littleEndian, toByteOffset: 160, as: UInt64.self)
    state.storeBytes(of: a21.littleEndian, toByteOffset: 168, as: UInt64.self)
    state.storeBytes(of: a22.littleEndian, toByteOffset: 176, as: UInt64.self)
    state.storeBytes(of: a23.littleEndian, toByteOffset: 184, as: UInt64.self)
    state.storeBytes(of: a24.littleEndian, toByteOffset: 192, as: UInt64.self)
}
