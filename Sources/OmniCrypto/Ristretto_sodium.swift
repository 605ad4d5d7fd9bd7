internal import CSodium

/// An element of the ristretto255 group (RFC 9496) held as its canonical 32-byte encoding, which is what
/// libsodium's `crypto_core_ristretto255_*` and `crypto_scalarmult_ristretto255*` take and return. Values are
/// made only from a validated encoding or by group operations, so every operation below has valid inputs.
/// The identity is the all-zero encoding.
struct RistrettoPoint: Equatable, Sendable {
    static let byteCount = 32
    static let identity = RistrettoPoint(trusted: [UInt8](repeating: 0, count: byteCount))

    let encoding: [UInt8]

    private init(trusted encoding: [UInt8]) {
        self.encoding = encoding
    }

    /// The element with this canonical encoding, or nil when the bytes are not one (RFC 9496 §4.3.1: wrong
    /// length, a non-canonical or negative field element, or no square root).
    init?(encoding: some Collection<UInt8>) {
        let bytes = Array(encoding)
        guard bytes.count == Self.byteCount else { return nil }
        // libsodium 1.0.18 ignores bit 255 when it checks canonicity, so an encoding with the top bit set would
        // pass as the point without it; RFC 9496 (and curve25519-dalek, hence schnorrkel) refuse it.
        guard bytes[31] & 0x80 == 0 else { return nil }
        Sodium.ensureInitialized()
        guard crypto_core_ristretto255_is_valid_point(bytes) == 1 else { return nil }
        self.encoding = bytes
    }

    /// An encoding already checked (by `EdwardsPoint(ristrettoEncoding:)`, which accepts exactly what `init?`
    /// accepts).
    init(validEncoding: [UInt8]) {
        encoding = validEncoding
    }

    var isIdentity: Bool { encoding.allSatisfy { $0 == 0 } }

    /// `scalar`·B for the ristretto255 generator B.
    static func base(_ scalar: RistrettoScalar) -> RistrettoPoint {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: byteCount)
        // −1 only when the product is the identity, and then `out` holds its (all-zero) encoding.
        _ = scalar.withBytes { crypto_scalarmult_ristretto255_base(&out, $0) }
        return RistrettoPoint(trusted: out)
    }

    /// `scalar`·self.
    func multiplied(by scalar: RistrettoScalar) -> RistrettoPoint {
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        // −1 only for an identity product (the input is valid by construction); `out` is then all zeros.
        _ = scalar.withBytes { crypto_scalarmult_ristretto255(&out, $0, encoding) }
        return RistrettoPoint(trusted: out)
    }

    static func + (lhs: RistrettoPoint, rhs: RistrettoPoint) -> RistrettoPoint {
        var out = [UInt8](repeating: 0, count: byteCount)
        _ = crypto_core_ristretto255_add(&out, lhs.encoding, rhs.encoding)
        return RistrettoPoint(trusted: out)
    }

    static func - (lhs: RistrettoPoint, rhs: RistrettoPoint) -> RistrettoPoint {
        var out = [UInt8](repeating: 0, count: byteCount)
        _ = crypto_core_ristretto255_sub(&out, lhs.encoding, rhs.encoding)
        return RistrettoPoint(trusted: out)
    }

    /// The one-way map of 64 uniform bytes to the group (RFC 9496 §4.3.4), curve25519-dalek's
    /// `RistrettoPoint::from_uniform_bytes`.
    static func fromUniformBytes(_ bytes: [UInt8]) -> RistrettoPoint {
        precondition(bytes.count == 64, "the ristretto255 one-way map takes 64 bytes")
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: byteCount)
        _ = crypto_core_ristretto255_from_hash(&out, bytes)
        return RistrettoPoint(trusted: out)
    }
}

/// A scalar modulo ℓ = 2²⁵² + 27742317777372353535851937790883648493, as 32 canonical little-endian bytes in
/// memory that is zeroed on release (scalars here are mostly secret keys and nonces).
struct RistrettoScalar: Sendable {
    static let byteCount = 32
    /// ℓ, little-endian.
    static let order: [UInt8] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
    ]

    private let storage: SecretBytes

    private init(storage: SecretBytes) {
        self.storage = storage
    }

    /// The scalar with these canonical bytes, or nil when they are not 32 bytes or encode a value ≥ ℓ.
    init?(canonical bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        let storage = withContiguousBytes(bytes) { SecretBytes(copying: $0) }
        guard storage.withUnsafeBytes({ Self.isCanonical($0) }) else { return nil }
        self.storage = storage
    }

    /// `Scalar::from_bytes_mod_order_wide`: 64 little-endian bytes reduced modulo ℓ.
    init(reducingWide bytes: [UInt8]) {
        precondition(bytes.count == 64, "wide reduction takes 64 bytes")
        Sodium.ensureInitialized()
        storage = SecretBytes(count: Self.byteCount)
        storage.withUnsafeMutableBytes { out in
            crypto_core_ristretto255_scalar_reduce(out.bindMemory(to: UInt8.self).baseAddress!, bytes)
        }
    }

    /// A 128-bit little-endian integer as a scalar (always below ℓ).
    init(uint128LittleEndian bytes: [UInt8]) {
        precondition(bytes.count == 16, "a 128-bit scalar takes 16 bytes")
        storage = SecretBytes(count: Self.byteCount)
        storage.withUnsafeMutableBytes { out in
            for (index, byte) in bytes.enumerated() { out[index] = byte }
        }
    }

    /// Whether 32 little-endian bytes encode a value below ℓ (public values only: not constant time).
    static func isCanonical(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for index in stride(from: byteCount - 1, through: 0, by: -1) where bytes[index] != order[index] {
            return bytes[index] < order[index]
        }
        return false
    }

    var isZero: Bool { storage.withUnsafeBytes { $0.allSatisfy { $0 == 0 } } }

    /// A copy of the canonical bytes (for signatures and exported keys).
    var bytes: [UInt8] { storage.bytes }

    func withBytes<R>(_ body: (UnsafePointer<UInt8>) -> R) -> R {
        storage.withUnsafeBytes { body($0.bindMemory(to: UInt8.self).baseAddress!) }
    }

    private static func combine(
        _ lhs: RistrettoScalar, _ rhs: RistrettoScalar,
        _ operation: (UnsafeMutablePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> Void
    ) -> RistrettoScalar {
        let out = SecretBytes(count: byteCount)
        out.withUnsafeMutableBytes { out in
            lhs.withBytes { left in rhs.withBytes { right in operation(out.bindMemory(to: UInt8.self).baseAddress!, left, right) } }
        }
        return RistrettoScalar(storage: out)
    }

    static func + (lhs: RistrettoScalar, rhs: RistrettoScalar) -> RistrettoScalar {
        combine(lhs, rhs) { crypto_core_ristretto255_scalar_add($0, $1, $2) }
    }

    static func - (lhs: RistrettoScalar, rhs: RistrettoScalar) -> RistrettoScalar {
        combine(lhs, rhs) { crypto_core_ristretto255_scalar_sub($0, $1, $2) }
    }

    static func * (lhs: RistrettoScalar, rhs: RistrettoScalar) -> RistrettoScalar {
        combine(lhs, rhs) { crypto_core_ristretto255_scalar_mul($0, $1, $2) }
    }

    /// Equality of public scalars (challenges); not constant time.
    func equals(_ other: RistrettoScalar) -> Bool {
        storage.withUnsafeBytes { left in other.storage.withUnsafeBytes { right in left.elementsEqual(right) } }
    }
}
