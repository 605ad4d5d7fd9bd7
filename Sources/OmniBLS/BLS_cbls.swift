internal import CBLS12381

/// BLS signatures over BLS12-381 as the Internet Computer uses them ("min-sig"): signatures are compressed G1
/// points (48 bytes), public keys compressed G2 points (96 bytes), messages are hashed to G1 with
/// `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_`, and a signature is valid iff e(sig, g2) = e(H(m), pk),
/// evaluated as e(sig, −g2)·e(H(m), pk) = 1 with two Miller loops and one final exponentiation.
public enum BLS {
    /// The IC ciphersuite's domain separation tag.
    public static let icDST: [UInt8] = Array("BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_".utf8)
    /// The 37-byte DER prefix of IC BLS public keys (followed by the 96-byte compressed key).
    public static let icPublicKeyDERPrefix: [UInt8] = [
        0x30, 0x81, 0x82, 0x30, 0x1d, 0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0xdc, 0x7c, 0x05, 0x03, 0x01,
        0x02, 0x01, 0x06, 0x0c, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0xdc, 0x7c, 0x05, 0x03, 0x02, 0x01, 0x03, 0x61,
        0x00,
    ]
    public static let signatureLength = 48
    public static let publicKeyLength = 96

    /// Verifies a compressed signature against a compressed public key. Throws `BLSError` for an input that is
    /// not a valid signature or key (wrong length, bad flags, non-canonical, not on the curve, not in the
    /// subgroup, the identity); returns `.invalid(.pairingCheckFailed)` for a well-formed mismatch.
    public static func verify(
        signature: [UInt8], publicKey: [UInt8], message: [UInt8], dst: [UInt8] = icDST
    ) throws(BLSError) -> BLSVerification {
        try checkLength(signature, publicKey: publicKey)
        let uniform = expandXMD(message, dstPrime: dstPrime(dst), length: 128)
        let result = signature.withUnsafeBufferPointer { sig in
            publicKey.withUnsafeBufferPointer { pk in
                uniform.withUnsafeBufferPointer { bls_verify_compressed(sig.baseAddress, pk.baseAddress, $0.baseAddress) }
            }
        }
        return try verdict(result, signature: signature, publicKey: publicKey)
    }

    /// Verifies against a decoded key (decompression, subgroup check and Miller-loop lines done once).
    public static func verify(
        signature: [UInt8], publicKey: BLSPublicKey, message: [UInt8], dst: [UInt8] = icDST
    ) throws(BLSError) -> BLSVerification {
        try checkLength(signature, publicKey: nil)
        let uniform = expandXMD(message, dstPrime: dstPrime(dst), length: 128)
        let result = signature.withUnsafeBufferPointer { sig in
            uniform.withUnsafeBufferPointer { bls_verify_with_lines(sig.baseAddress, publicKey.lines.pointer, $0.baseAddress) }
        }
        return try verdict(result, signature: signature, publicKey: nil)
    }

    /// Fail-closed convenience: true only for a well-formed, matching signature.
    public static func isValid(signature: [UInt8], publicKey: [UInt8], message: [UInt8], dst: [UInt8] = icDST) -> Bool {
        (try? verify(signature: signature, publicKey: publicKey, message: message, dst: dst)) == .valid
    }

    private static func checkLength(_ signature: [UInt8], publicKey: [UInt8]?) throws(BLSError) {
        guard signature.count == signatureLength else {
            throw BLSError(.wrongLength, .signature, detail: "\(signature.count) bytes, expected \(signatureLength)")
        }
        if let publicKey, publicKey.count != publicKeyLength {
            throw BLSError(.wrongLength, .publicKey, detail: "\(publicKey.count) bytes, expected \(publicKeyLength)")
        }
    }

    private static func verdict(
        _ result: bls_verify_result, signature: [UInt8], publicKey: [UInt8]?
    ) throws(BLSError) -> BLSVerification {
        if result.valid != 0 { return .valid }
        let status = bls_decode_status(rawValue: UInt32(bitPattern: result.status))
        switch result.subject {
        case Int32(BLS_SUBJECT_SIGNATURE):
            if let error = BLSError(status: status, subject: .signature, encoding: signature) { throw error }
        case Int32(BLS_SUBJECT_PUBLIC_KEY):
            if let error = BLSError(status: status, subject: .publicKey, encoding: publicKey) { throw error }
        default:
            break
        }
        return .invalid(.pairingCheckFailed)
    }

    // MARK: Hashing to G1 (RFC 9380, suites BLS12381G1_XMD:SHA-256_SSWU_RO_ and _NU_)

    /// hash_to_field with L = 64: `count` field elements as 48-byte big-endian integers.
    public static func hashToField(_ message: [UInt8], dst: [UInt8], count: Int) throws(BLSError) -> [[UInt8]] {
        guard (1...127).contains(count) else {
            throw BLSError(.invalidParameter, .parameter, detail: "hash_to_field count \(count), expected 1…127")
        }
        let uniform = expandXMD(message, dstPrime: dstPrime(dst), length: 64 * count)
        return (0..<count).map { index in
            var element = bls_fp()
            uniform[64 * index..<64 * index + 64].withUnsafeBufferPointer { bls_fp_from_wide_bytes(&element, $0.baseAddress) }
            return fieldBytes(element)
        }
    }

    /// hash_to_curve (random oracle): clear_cofactor(map(u0) + map(u1)).
    public static func hashToG1(_ message: [UInt8], dst: [UInt8] = icDST) -> BLSG1Point {
        let uniform = expandXMD(message, dstPrime: dstPrime(dst), length: 128)
        var out = bls_g1_affine()
        uniform.withUnsafeBufferPointer { bls_hash_to_g1(&out, $0.baseAddress) }
        return BLSG1Point(raw: out)
    }

    /// encode_to_curve (non-uniform): clear_cofactor(map(u)).
    public static func encodeToG1(_ message: [UInt8], dst: [UInt8]) -> BLSG1Point {
        let uniform = expandXMD(message, dstPrime: dstPrime(dst), length: 64)
        var out = bls_g1_affine()
        uniform.withUnsafeBufferPointer { bls_encode_to_g1(&out, $0.baseAddress) }
        return BLSG1Point(raw: out)
    }

    /// map_to_curve: simplified SWU on the 11-isogenous curve, then the isogeny; no cofactor clearing, so the
    /// result is on E1 but usually not in G1. `fieldElement` is a 48-byte big-endian integer below p.
    public static func mapToG1(fieldElement: [UInt8]) throws(BLSError) -> BLSG1Point {
        guard fieldElement.count == 48 else {
            throw BLSError(.wrongLength, .fieldElement, detail: "\(fieldElement.count) bytes, expected 48")
        }
        var u = bls_fp()
        guard fieldElement.withUnsafeBufferPointer({ bls_fp_from_bytes(&u, $0.baseAddress) }) != 0 else {
            throw BLSError(.nonCanonical, .fieldElement, offset: 0)
        }
        var out = bls_g1_affine()
        withUnsafePointer(to: u) { bls_map_to_g1(&out, $0) }
        return BLSG1Point(raw: out)
    }

    // MARK: Pairing

    /// True iff Π e(Pᵢ, Qᵢ) = 1 (pairs containing an identity contribute 1). The points need not be in the
    /// subgroups, but only then is the result a statement about the pairing on G1 × G2.
    public static func pairingProductIsOne(_ pairs: [(BLSG1Point, BLSG2Point)]) -> Bool {
        let tables = pairs.map { LineTable(point: $0.1.raw) }
        let points = pairs.map { $0.0.raw }
        let pointers: [UnsafePointer<bls_g2_lines>?] = tables.map { UnsafePointer($0.pointer) }
        return withExtendedLifetime(tables) {
            points.withUnsafeBufferPointer { p in
                pointers.withUnsafeBufferPointer { q in bls_pairing_product_is_one(p.baseAddress, q.baseAddress, p.count) }
            }
        } != 0
    }
}

/// Miller-loop lines of one G2 point (about 20 KB), immutable after construction.
final class LineTable: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<bls_g2_lines>

    /// Lines of any curve point (membership in G2 is the caller's business).
    init(point: bls_g2_affine) {
        pointer = .allocate(capacity: 1)
        _ = withUnsafePointer(to: point) { [pointer] in bls_g2_precompute_lines(pointer, $0) }
    }

    /// Takes ownership of a table filled by the caller.
    init(pointer: UnsafeMutablePointer<bls_g2_lines>) {
        self.pointer = pointer
    }

    deinit { pointer.deallocate() }
}

/// A decoded IC public key: strictly decoded (flags, canonical, on the curve, in G2, not the identity) with
/// its Miller-loop lines precomputed, so verifying many signatures under one key decompresses once.
public struct BLSPublicKey: Equatable, Sendable {
    let lines: LineTable
    public let point: BLSG2Point

    /// From the 96-byte compressed key.
    public init(compressed bytes: [UInt8]) throws(BLSError) {
        guard bytes.count == BLS.publicKeyLength else {
            throw BLSError(.wrongLength, .publicKey, detail: "\(bytes.count) bytes, expected 96")
        }
        let table = UnsafeMutablePointer<bls_g2_lines>.allocate(capacity: 1)
        var raw = bls_g2_affine()
        let status = bytes.withUnsafeBufferPointer { bls_public_key_prepare(&raw, table, $0.baseAddress) }
        if let error = BLSError(status: status, subject: .publicKey, encoding: bytes) {
            table.deallocate()
            throw error
        }
        lines = LineTable(pointer: table)
        point = BLSG2Point(raw: raw)
    }

    /// From the 133-byte DER form: the IC prefix followed by the compressed key.
    public init(der bytes: [UInt8]) throws(BLSError) {
        let prefix = BLS.icPublicKeyDERPrefix
        guard bytes.count == prefix.count + BLS.publicKeyLength else {
            throw BLSError(.wrongLength, .publicKey, detail: "DER key of \(bytes.count) bytes, expected 133")
        }
        if let mismatch = prefix.indices.first(where: { bytes[$0] != prefix[$0] }) {
            throw BLSError(.badDERPrefix, .publicKey, offset: mismatch)
        }
        try self.init(compressed: Array(bytes[prefix.count...]))
    }

    /// The 96-byte compressed key.
    public var compressed: [UInt8] { point.compressed }

    /// The 133-byte DER form.
    public var der: [UInt8] { BLS.icPublicKeyDERPrefix + point.compressed }

    public static func == (lhs: BLSPublicKey, rhs: BLSPublicKey) -> Bool { lhs.point == rhs.point }
}
