internal import CBLS12381
import OmniCodec

/// A point of E1(Fp): y² = x³ + 4 (signatures live in its prime-order subgroup G1). Values are affine and
/// canonical, so equality is equality of points. Group operations and hashing results are exposed for tests and
/// tools; verification never needs them.
public struct BLSG1Point: Equatable, Sendable, CustomStringConvertible {
    var raw: bls_g1_affine

    init(raw: bls_g1_affine) { self.raw = raw }

    public static let compressedLength = 48

    public static var generator: BLSG1Point {
        var raw = bls_g1_affine()
        bls_g1_generator(&raw)
        return BLSG1Point(raw: raw)
    }

    public static var identity: BLSG1Point {
        var raw = bls_g1_affine()
        raw.infinity = 1
        return BLSG1Point(raw: raw)
    }

    /// Decodes a 48-byte ZCash-format compressed point with every check: flags, canonical x, on the curve,
    /// in G1. The identity (c0 00…00) is a valid encoding here; keys and signatures refuse it separately.
    public init(compressed bytes: [UInt8]) throws(BLSError) {
        try self.init(compressed: bytes, checkingSubgroup: true)
    }

    /// Decoding with the subgroup test optional (tests build points outside G1 this way).
    init(compressed bytes: [UInt8], checkingSubgroup: Bool, subject: BLSError.Subject = .g1Point) throws(BLSError) {
        guard bytes.count == Self.compressedLength else {
            throw BLSError(.wrongLength, subject, detail: "\(bytes.count) bytes, expected 48")
        }
        var raw = bls_g1_affine()
        let status = bytes.withUnsafeBufferPointer { bls_g1_decompress(&raw, $0.baseAddress, checkingSubgroup ? 1 : 0) }
        if let error = BLSError(status: status, subject: subject, encoding: bytes) { throw error }
        self.raw = raw
    }

    /// A point from big-endian affine coordinates (48 bytes each). Checks that both are canonical and that the
    /// point is on the curve; it need not be in G1 (see `isInSubgroup`).
    public init(x: [UInt8], y: [UInt8]) throws(BLSError) {
        guard x.count == 48, y.count == 48 else {
            throw BLSError(.wrongLength, .g1Point, detail: "coordinates of \(x.count) and \(y.count) bytes, expected 48")
        }
        var raw = bls_g1_affine()
        let status = x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in bls_g1_from_xy(&raw, xs.baseAddress, ys.baseAddress) }
        }
        if let error = BLSError(status: status, subject: .g1Point, encoding: nil) { throw error }
        self.raw = raw
    }

    /// The 48-byte compressed encoding.
    public var compressed: [UInt8] {
        var out = [UInt8](repeating: 0, count: 48)
        withUnsafePointer(to: raw) { point in out.withUnsafeMutableBufferPointer { bls_g1_compress($0.baseAddress, point) } }
        return out
    }

    /// Big-endian affine coordinates, or nil for the identity.
    public var affineCoordinates: (x: [UInt8], y: [UInt8])? {
        if isIdentity { return nil }
        var x = [UInt8](repeating: 0, count: 48), y = [UInt8](repeating: 0, count: 48)
        withUnsafePointer(to: raw) { point in
            x.withUnsafeMutableBufferPointer { xs in
                y.withUnsafeMutableBufferPointer { ys in bls_g1_to_xy(xs.baseAddress, ys.baseAddress, point) }
            }
        }
        return (x, y)
    }

    public var isIdentity: Bool { raw.infinity != 0 }

    /// Membership in G1 by the endomorphism test σ(P) = −[x²]P (Scott, ePrint 2021/1130).
    public var isInSubgroup: Bool { withUnsafePointer(to: raw) { bls_g1_in_subgroup($0) } != 0 }

    /// Membership in G1 by [r]P = O: slow, obviously correct; the oracle for `isInSubgroup` in tests.
    var isInSubgroupByOrder: Bool { withUnsafePointer(to: raw) { bls_g1_in_subgroup_slow($0) } != 0 }

    public static func + (lhs: BLSG1Point, rhs: BLSG1Point) -> BLSG1Point {
        var out = bls_g1_affine()
        withUnsafePointer(to: lhs.raw) { a in withUnsafePointer(to: rhs.raw) { b in bls_g1_add(&out, a, b) } }
        return BLSG1Point(raw: out)
    }

    public static prefix func - (point: BLSG1Point) -> BLSG1Point {
        var out = bls_g1_affine()
        withUnsafePointer(to: point.raw) { bls_g1_neg(&out, $0) }
        return BLSG1Point(raw: out)
    }

    /// [k]P for a big-endian scalar of any length (not reduced modulo r).
    public func multiplied(by scalar: [UInt8]) -> BLSG1Point {
        var out = bls_g1_affine()
        withUnsafePointer(to: raw) { point in
            scalar.withUnsafeBufferPointer { bls_g1_mul(&out, point, $0.baseAddress, $0.count) }
        }
        return BLSG1Point(raw: out)
    }

    /// [h_eff]P with h_eff = 1 − x (RFC 9380 clear_cofactor for G1); maps every curve point into G1.
    public func clearingCofactor() -> BLSG1Point {
        var out = bls_g1_affine()
        withUnsafePointer(to: raw) { bls_g1_clear_cofactor(&out, $0) }
        return BLSG1Point(raw: out)
    }

    public static func == (lhs: BLSG1Point, rhs: BLSG1Point) -> Bool {
        withUnsafePointer(to: lhs.raw) { a in withUnsafePointer(to: rhs.raw) { b in bls_g1_equal(a, b) } } != 0
    }

    public var description: String { "G1(\(Hex.encode(compressed)))" }
}

/// A point of E2(Fp2): y² = x³ + 4(1 + u) (public keys live in its prime-order subgroup G2).
public struct BLSG2Point: Equatable, Sendable, CustomStringConvertible {
    var raw: bls_g2_affine

    init(raw: bls_g2_affine) { self.raw = raw }

    public static let compressedLength = 96

    public static var generator: BLSG2Point {
        var raw = bls_g2_affine()
        bls_g2_generator(&raw)
        return BLSG2Point(raw: raw)
    }

    public static var identity: BLSG2Point {
        var raw = bls_g2_affine()
        raw.infinity = 1
        return BLSG2Point(raw: raw)
    }

    /// Decodes a 96-byte compressed point (x.c1 then x.c0) with every check, including membership in G2.
    public init(compressed bytes: [UInt8]) throws(BLSError) {
        try self.init(compressed: bytes, checkingSubgroup: true)
    }

    init(compressed bytes: [UInt8], checkingSubgroup: Bool, subject: BLSError.Subject = .g2Point) throws(BLSError) {
        guard bytes.count == Self.compressedLength else {
            throw BLSError(.wrongLength, subject, detail: "\(bytes.count) bytes, expected 96")
        }
        var raw = bls_g2_affine()
        let status = bytes.withUnsafeBufferPointer { bls_g2_decompress(&raw, $0.baseAddress, checkingSubgroup ? 1 : 0) }
        if let error = BLSError(status: status, subject: subject, encoding: bytes) { throw error }
        self.raw = raw
    }

    public var compressed: [UInt8] {
        var out = [UInt8](repeating: 0, count: 96)
        withUnsafePointer(to: raw) { point in out.withUnsafeMutableBufferPointer { bls_g2_compress($0.baseAddress, point) } }
        return out
    }

    /// Big-endian affine coordinates x = x0 + x1·u, y = y0 + y1·u (48 bytes each), or nil for the identity.
    public var affineCoordinates: (x0: [UInt8], x1: [UInt8], y0: [UInt8], y1: [UInt8])? {
        if isIdentity { return nil }
        return withUnsafePointer(to: raw) { point in
            (fieldBytes(point.pointee.x.c0), fieldBytes(point.pointee.x.c1),
             fieldBytes(point.pointee.y.c0), fieldBytes(point.pointee.y.c1))
        }
    }

    public var isIdentity: Bool { raw.infinity != 0 }

    /// Membership in G2 by the endomorphism test ψ(Q) = [x]Q (Scott, ePrint 2021/1130).
    public var isInSubgroup: Bool { withUnsafePointer(to: raw) { bls_g2_in_subgroup($0) } != 0 }

    /// Membership in G2 by [r]Q = O (test oracle).
    var isInSubgroupByOrder: Bool { withUnsafePointer(to: raw) { bls_g2_in_subgroup_slow($0) } != 0 }

    public static func + (lhs: BLSG2Point, rhs: BLSG2Point) -> BLSG2Point {
        var out = bls_g2_affine()
        withUnsafePointer(to: lhs.raw) { a in withUnsafePointer(to: rhs.raw) { b in bls_g2_add(&out, a, b) } }
        return BLSG2Point(raw: out)
    }

    public static prefix func - (point: BLSG2Point) -> BLSG2Point {
        var out = bls_g2_affine()
        withUnsafePointer(to: point.raw) { bls_g2_neg(&out, $0) }
        return BLSG2Point(raw: out)
    }

    public func multiplied(by scalar: [UInt8]) -> BLSG2Point {
        var out = bls_g2_affine()
        withUnsafePointer(to: raw) { point in
            scalar.withUnsafeBufferPointer { bls_g2_mul(&out, point, $0.baseAddress, $0.count) }
        }
        return BLSG2Point(raw: out)
    }

    public static func == (lhs: BLSG2Point, rhs: BLSG2Point) -> Bool {
        withUnsafePointer(to: lhs.raw) { a in withUnsafePointer(to: rhs.raw) { b in bls_g2_equal(a, b) } } != 0
    }

    public var description: String { "G2(\(Hex.encode(compressed)))" }
}

func fieldBytes(_ element: bls_fp) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 48)
    withUnsafePointer(to: element) { value in out.withUnsafeMutableBufferPointer { bls_fp_to_bytes($0.baseAddress, value) } }
    return out
}

extension BLSError {
    /// Maps a C decoding status; nil for success. `encoding` (the compressed bytes) locates a non-canonical half.
    init?(status: bls_decode_status, subject: Subject, encoding: [UInt8]?) {
        switch status {
        case BLS_DECODE_OK: return nil
        case BLS_DECODE_NOT_COMPRESSED: self.init(.notCompressed, subject, offset: 0)
        case BLS_DECODE_BAD_INFINITY: self.init(.badInfinityEncoding, subject, offset: 0)
        case BLS_DECODE_NON_CANONICAL: self.init(.nonCanonical, subject, offset: encoding.map(nonCanonicalOffset))
        case BLS_DECODE_NOT_ON_CURVE: self.init(.notOnCurve, subject)
        case BLS_DECODE_NOT_IN_SUBGROUP: self.init(.notInSubgroup, subject)
        case BLS_DECODE_IDENTITY: self.init(.identity, subject)
        default: self.init(.notOnCurve, subject, detail: "unknown decoding status \(status.rawValue)")
        }
    }
}

/// The offset of the first 48-byte field element (flags masked) that is not below p.
private func nonCanonicalOffset(_ encoding: [UInt8]) -> Int {
    var offset = 0
    while offset + 48 <= encoding.count {
        var element = Array(encoding[offset..<offset + 48])
        if offset == 0 { element[0] &= 0x1f }
        var scratch = bls_fp()
        if element.withUnsafeBufferPointer({ bls_fp_from_bytes(&scratch, $0.baseAddress) }) == 0 { return offset }
        offset += 48
    }
    return 0
}
