/// STROBE-128 (STROBE v1.0.2, security level 128, so R = 166) reduced to what Merlin transcripts use: the meta-AD,
/// AD, KEY and PRF operations, never the transport (T) flag. The operation framing follows the STROBE
/// specification §5 and §6; Merlin's use of it is https://merlin.cool/transcript/ops.html.
///
/// A value type: copies share the state until one of them changes it. The state is wiped when the last copy goes
/// away, because transcripts absorb secret keys and nonces.
struct Strobe128: Sendable {
    /// Bytes of the rate: 200 − 2·(128 / 4) − 2, where the last 2 bytes are reserved for padding.
    static let rate = 166

    private static let flagI: UInt8 = 1 << 0
    private static let flagA: UInt8 = 1 << 1
    private static let flagC: UInt8 = 1 << 2
    private static let flagM: UInt8 = 1 << 4
    private static let flagK: UInt8 = 1 << 5

    private var storage: StrobeStorage
    private var position = 0
    private var positionBegin: UInt8 = 0
    private var currentFlags: UInt8 = 0

    /// `STROBE-128` initialised with `protocolLabel` (spec §5.1: the header block, then meta-AD of the label).
    init(protocolLabel: some Collection<UInt8>) {
        storage = StrobeStorage()
        storage.withBytes { state in
            let header: [UInt8] = [1, UInt8(Self.rate + 2), 1, 0, 1, 96] + Array("STROBEv1.0.2".utf8)
            for (index, byte) in header.enumerated() { state[index] = byte }
        }
        storage.permute()
        metaAD(protocolLabel, more: false)
    }

    /// meta-AD: framing data absorbed with the M flag (labels and lengths in Merlin).
    mutating func metaAD(_ data: some Collection<UInt8>, more: Bool) {
        beginOperation(Self.flagM | Self.flagA, more: more)
        absorb(data)
    }

    /// AD: associated data absorbed into the state.
    mutating func ad(_ data: some Collection<UInt8>, more: Bool) {
        beginOperation(Self.flagA, more: more)
        absorb(data)
    }

    /// PRF: `count` bytes squeezed out of the state (the squeezed bytes are zeroed in the state).
    mutating func prf(count: Int, more: Bool) -> [UInt8] {
        beginOperation(Self.flagI | Self.flagA | Self.flagC, more: more)
        var output = [UInt8](repeating: 0, count: count)
        makeUnique()
        storage.withBytes { state in
            for index in 0..<count {
                output[index] = state[position]
                state[position] = 0
                advance(state)
            }
        }
        return output
    }

    /// KEY: `data` overwrites the state (re-keying with secret material).
    mutating func key(_ data: some Collection<UInt8>, more: Bool) {
        beginOperation(Self.flagA | Self.flagC, more: more)
        makeUnique()
        storage.withBytes { state in
            withContiguousBytes(data) { input in
                for byte in input {
                    state[position] = byte
                    advance(state)
                }
            }
        }
    }

    private mutating func absorb(_ data: some Collection<UInt8>) {
        makeUnique()
        storage.withBytes { state in
            withContiguousBytes(data) { input in
                for byte in input {
                    state[position] ^= byte
                    advance(state)
                }
            }
        }
    }

    /// Moves to the next byte of the rate, running F when the rate is full.
    @inline(__always)
    private mutating func advance(_ state: UnsafeMutablePointer<UInt8>) {
        position += 1
        if position == Self.rate { runF(state) }
    }

    /// Spec §6.1: mark where the operation began, pad, permute.
    private mutating func runF(_ state: UnsafeMutablePointer<UInt8>) {
        state[position] ^= positionBegin
        state[position + 1] ^= 0x04
        state[Self.rate + 1] ^= 0x80
        keccakF1600(UnsafeMutableRawPointer(state))
        position = 0
        positionBegin = 0
    }

    /// Spec §6.2: absorb the previous begin position and the flags; C and K force a permutation first.
    /// A continued operation (`more`) keeps the framing of the one it continues (callers pass its own flags).
    private mutating func beginOperation(_ flags: UInt8, more: Bool) {
        if more {
            assert(flags == currentFlags, "a STROBE operation was continued with different flags")
            return
        }
        let previousBegin = positionBegin
        positionBegin = UInt8(position + 1)
        currentFlags = flags
        absorb([previousBegin, flags])
        if flags & (Self.flagC | Self.flagK) != 0, position != 0 {
            makeUnique()
            storage.withBytes { runF($0) }
        }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }
}

/// The 200-byte Keccak state of a STROBE object (bytes, 8-byte aligned for the permutation), zeroed on release.
private final class StrobeStorage: @unchecked Sendable {
    private let bytes: UnsafeMutablePointer<UInt8>

    init() {
        bytes = UnsafeMutableRawPointer.allocate(byteCount: Keccak.stateByteCount, alignment: 8)
            .initializeMemory(as: UInt8.self, repeating: 0, count: Keccak.stateByteCount)
    }

    func copy() -> StrobeStorage {
        let duplicate = StrobeStorage()
        duplicate.bytes.update(from: bytes, count: Keccak.stateByteCount)
        return duplicate
    }

    @inline(__always)
    func withBytes<R>(_ body: (UnsafeMutablePointer<UInt8>) -> R) -> R { body(bytes) }

    func permute() { keccakF1600(UnsafeMutableRawPointer(bytes)) }

    deinit {
        secureZero(UnsafeMutableRawBufferPointer(start: bytes, count: Keccak.stateByteCount))
        bytes.deallocate()
    }
}
