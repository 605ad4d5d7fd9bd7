internal import CSodium

/// libsodium must be initialised once before use (it picks CPU-specific implementations and opens the RNG).
/// A Swift `static let` runs its initialiser exactly once, thread-safely, on first access.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Call before any libsodium function. `sodium_init` only fails when the OS offers no randomness source,
    /// which no input can cause and nothing above this layer could recover from.
    @inline(__always)
    static func ensureInitialized() {
        if !initialized { fatalError("libsodium failed to initialise (no system randomness source)") }
    }
}

/// The operating system's cryptographically secure random generator (through libsodium `randombytes_buf`).
public enum SecureRandom {
    /// `count` fresh random bytes; a negative count yields no bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        fill(&bytes)
        return bytes
    }

    /// Overwrites every byte of `bytes` with random bytes.
    public static func fill(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { fill($0) }
    }

    /// Overwrites every byte of `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        Sodium.ensureInitialized()
        randombytes_buf(base, buffer.count)
    }
}

/// Comparisons whose running time does not depend on where the inputs differ (for MACs and tags).
public enum ConstantTime {
    /// True when both inputs have the same length and the same bytes. Only the lengths may leak through timing.
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        Sodium.ensureInitialized()
        return withContiguousBytes(lhs) { left in
            withContiguousBytes(rhs) { right in
                sodium_memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
    }
}

/// Zeroes memory in a way the optimiser cannot remove.
func secureZero(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    sodium_memzero(base, buffer.count)
}

/// A fixed-size heap buffer for secret bytes that is zeroed when the last reference goes away.
/// Key types hold one of these privately and never hand out the buffer itself; other layers keep a session's
/// secret (TrUAPI's BIP-39 entropy) in one instead of an array that copies freely.
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    /// At least one byte is allocated so that the base address is never nil; `count` is the logical length.
    private let storage: UnsafeMutableRawBufferPointer
    public let count: Int

    /// `count` zero bytes, to be filled through `withUnsafeMutableBytes`.
    init(count: Int) {
        self.count = max(count, 0)
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// A copy of `bytes`.
    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 {
            storage.baseAddress!.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    /// A copy of `bytes` (the caller wipes its own copy).
    public convenience init(_ bytes: some Collection<UInt8>) {
        self.init(count: bytes.count)
        withContiguousBytes(bytes) { source in
            if let base = source.baseAddress, source.count > 0 { storage.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
    }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Calls `body` with a copy of the bytes in an array that is wiped when `body` returns.
    public func withBytes<R, E: Error>(_ body: ([UInt8]) throws(E) -> R) throws(E) -> R {
        var copy = bytes
        defer { wipe(&copy) }
        return try body(copy)
    }

    /// Constant-time equality with `other`'s bytes (lengths are not secret).
    public func equals(_ other: some Collection<UInt8>) -> Bool {
        withUnsafeBytes { ConstantTime.equals($0, other) }
    }

    public var description: String { "SecretBytes(\(count) bytes, <redacted>)" }

    func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// A plain copy, for callers that explicitly ask for the secret (key export, the session store).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    deinit {
        secureZero(storage)
        storage.deallocate()
    }
}

extension CryptoLibraries {
    /// The libsodium version string, e.g. "1.0.18".
    public static var libsodiumVersion: String {
        String(cString: sodium_version_string())
    }
}
