internal import CSodium

/// BLAKE2b (RFC 7693) through libsodium `crypto_generichash`: any output length from 1 to 64 bytes and an
/// optional key of 1 to 64 bytes. The output length is part of BLAKE2b's parameter block, so BLAKE2b-256 is
/// *not* a truncated BLAKE2b-512.
public enum BLAKE2b {
    public static let maximumOutputByteCount = 64
    public static let maximumKeyByteCount = 64

    /// One-shot BLAKE2b with `outputByteCount` (1…64) bytes of output, keyed when `key` is non-empty.
    public static func hash(
        _ bytes: some Collection<UInt8>, outputByteCount: Int = 64, key: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        try checkParameters(outputByteCount: outputByteCount, keyByteCount: key.count)
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let status = withContiguousBytes(bytes) { input in
            withContiguousBytes(key) { key in
                out.withUnsafeMutableBufferPointer { output in
                    crypto_generichash(output.baseAddress!, outputByteCount,
                                       input.bindMemory(to: UInt8.self).baseAddress, UInt64(input.count),
                                       key.count == 0 ? nil : key.bindMemory(to: UInt8.self).baseAddress, key.count)
                }
            }
        }
        guard status == 0 else { throw CryptoError(.library, "libsodium crypto_generichash failed") }
        return out
    }

    /// Unkeyed BLAKE2b-256 (32-byte output), the common case in Substrate and Iroha protocols.
    public static func hash256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        // Valid fixed parameters: cannot throw.
        (try? hash(bytes, outputByteCount: 32)) ?? []
    }

    /// Unkeyed BLAKE2b-512.
    public static func hash512(_ bytes: some Collection<UInt8>) -> [UInt8] {
        (try? hash(bytes, outputByteCount: 64)) ?? []
    }

    static func checkParameters(outputByteCount: Int, keyByteCount: Int) throws(CryptoError) {
        guard (1...maximumOutputByteCount).contains(outputByteCount) else {
            throw CryptoError(.invalidInput, "BLAKE2b output length must be 1…64 bytes, got \(outputByteCount)")
        }
        guard keyByteCount <= maximumKeyByteCount else {
            throw CryptoError(.invalidInput, "BLAKE2b key must be at most 64 bytes, got \(keyByteCount)")
        }
    }

    /// Incremental BLAKE2b. A value type (copy-on-write); `finalize()` leaves the state usable.
    /// The state holds the key until it is released, then it is zeroed.
    public struct Hasher: Sendable {
        private var state: GenerichashState
        public let outputByteCount: Int

        public init(outputByteCount: Int = 64, key: some Collection<UInt8> = [UInt8]()) throws(CryptoError) {
            try checkParameters(outputByteCount: outputByteCount, keyByteCount: key.count)
            Sodium.ensureInitialized()
            self.outputByteCount = outputByteCount
            state = GenerichashState()
            let pointer = state.pointer
            let status = withContiguousBytes(key) { key in
                crypto_generichash_init(pointer, key.count == 0 ? nil : key.bindMemory(to: UInt8.self).baseAddress,
                                        key.count, outputByteCount)
            }
            guard status == 0 else { throw CryptoError(.library, "libsodium crypto_generichash_init failed") }
        }

        public mutating func update(_ bytes: some Collection<UInt8>) {
            if !isKnownUniquelyReferenced(&state) { state = state.copy() }
            let pointer = state.pointer
            withContiguousBytes(bytes) { input in
                // Only fails for inputs longer than 2^64 bytes.
                _ = crypto_generichash_update(pointer, input.bindMemory(to: UInt8.self).baseAddress, UInt64(input.count))
            }
        }

        /// The digest of everything passed to `update` so far.
        public func finalize() -> [UInt8] {
            let finishing = state.copy()
            var out = [UInt8](repeating: 0, count: outputByteCount)
            out.withUnsafeMutableBufferPointer { _ = crypto_generichash_final(finishing.pointer, $0.baseAddress!, outputByteCount) }
            return out
        }
    }
}

/// libsodium's BLAKE2b state, allocated with the 64-byte alignment its type demands and zeroed on release.
private final class GenerichashState: @unchecked Sendable {
    private static let byteCount = crypto_generichash_statebytes()
    private let memory: UnsafeMutableRawPointer

    /// Swift cannot import the over-aligned struct type, so libsodium's functions take it as an opaque pointer.
    var pointer: OpaquePointer { OpaquePointer(memory) }

    init() {
        memory = .allocate(byteCount: Self.byteCount, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: Self.byteCount)
    }

    func copy() -> GenerichashState {
        let duplicate = GenerichashState()
        duplicate.memory.copyMemory(from: memory, byteCount: Self.byteCount)
        return duplicate
    }

    deinit {
        secureZero(UnsafeMutableRawBufferPointer(start: memory, count: Self.byteCount))
        memory.deallocate()
    }
}
