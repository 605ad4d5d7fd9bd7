/// Variable-time ristretto255 arithmetic for verification, where every input is public: decoding (RFC 9496
/// §4.3.1), encoding (§4.3.2) and the double-scalar multiplication a·A + b·B by interleaved wNAF (Straus), in
/// the extended twisted Edwards coordinates of curve25519 with a radix-2⁵¹ field.
///
/// libsodium exposes only constant-time, encoding-to-encoding operations: s·B − k·A through it costs a
/// constant-time variable-base multiplication and four decodings and three encodings, which made sr25519 verify
/// more than twice schnorrkel's time. Nothing here may touch a secret: branches and table indices depend on the
/// scalars and points.
enum Ristretto255Vartime {
    /// Whether `encoding(s·B − k·A)` equals `commitment` (so false when `commitment` is not a canonical
    /// encoding) for the public key A.
    static func verifiesCommitment(
        _ commitment: some Collection<UInt8>, publicKey point: EdwardsPoint,
        response s: RistrettoScalar, challenge k: RistrettoScalar
    ) -> Bool {
        let recomputed = EdwardsPoint.baseMinus(baseScalar: s, point: point, pointScalar: k)
        return recomputed.ristrettoEncoding().elementsEqual(commitment)
    }
}

/// An element of GF(2²⁵⁵ − 19) as five 51-bit limbs, little-endian. Limbs may exceed 51 bits between
/// operations (products and squares take limbs below 2⁵⁴); `bytes` reduces fully.
struct FieldElement {
    var l0, l1, l2, l3, l4: UInt64

    static let mask: UInt64 = (1 << 51) - 1
    static let zero = FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)
    /// The Edwards d = −121665/121666.
    static let d = FieldElement(hex: "a3785913ca4deb75abd841414d0a700098e879777940c78c73fe6f2bee6c0352")
    static let d2 = FieldElement(hex: "59f1b226949bd6eb56b183829a14e00030d1f3eef2808e19e7fcdf56dcd90624")
    /// √−1 = 2^((p − 1)/4).
    static let sqrtM1 = FieldElement(hex: "b0a00e4a271beec478e42fad0618432fa7d7fb3d99004d2b0bdfc14f8024832b")
    /// 1/√(a − d) for a = −1 (RFC 9496 §4.1).
    static let invSqrtAMinusD = FieldElement(hex: "ea405d80aafdc899be72415a17162f9d40d801fe917bc216a2fcafcf05896c78")

    @inline(__always)
    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        (self.l0, self.l1, self.l2, self.l3, self.l4) = (l0, l1, l2, l3, l4)
    }

    private init(hex: String) {
        let utf8 = Array(hex.utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
        for index in 0..<32 { bytes[index] = nibble(utf8[2 * index]) << 4 | nibble(utf8[2 * index + 1]) }
        self.init(bytes: bytes)
    }

    /// The 255 low bits of 32 little-endian bytes (bit 255 is ignored: callers check canonicity).
    init(bytes: some Collection<UInt8>) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            for (index, byte) in bytes.prefix(32).enumerated() { raw[index] = byte }
        }
        let w0 = UInt64(littleEndian: words.0), w1 = UInt64(littleEndian: words.1)
        let w2 = UInt64(littleEndian: words.2), w3 = UInt64(littleEndian: words.3)
        self.init(l0: w0 & Self.mask, l1: (w0 >> 51 | w1 << 13) & Self.mask, l2: (w1 >> 38 | w2 << 26) & Self.mask,
                  l3: (w2 >> 25 | w3 << 39) & Self.mask, l4: (w3 >> 12) & Self.mask)
    }

    /// The canonical little-endian encoding (fully reduced below p).
    var bytes: [UInt8] {
        var r = reduced()
        // q = 1 exactly when the weakly reduced value is ≥ p.
        var q = (r.l0 &+ 19) >> 51
        q = (r.l1 &+ q) >> 51
        q = (r.l2 &+ q) >> 51
        q = (r.l3 &+ q) >> 51
        q = (r.l4 &+ q) >> 51
        r.l0 &+= 19 &* q
        r.l1 &+= r.l0 >> 51; r.l0 &= Self.mask
        r.l2 &+= r.l1 >> 51; r.l1 &= Self.mask
        r.l3 &+= r.l2 >> 51; r.l2 &= Self.mask
        r.l4 &+= r.l3 >> 51; r.l3 &= Self.mask
        r.l4 &= Self.mask
        var words = (
            (r.l0 | r.l1 << 51).littleEndian, (r.l1 >> 13 | r.l2 << 38).littleEndian,
            (r.l2 >> 26 | r.l3 << 25).littleEndian, (r.l3 >> 39 | r.l4 << 12).littleEndian
        )
        return withUnsafeBytes(of: &words) { Array($0) }
    }

    var isNegative: Bool { bytes[0] & 1 == 1 }
    var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Limbs below 2⁵¹ + 2¹⁸ (the carries of one pass).
    @inline(__always)
    func reduced() -> FieldElement {
        let c0 = l0 >> 51, c1 = l1 >> 51, c2 = l2 >> 51, c3 = l3 >> 51, c4 = l4 >> 51
        return FieldElement(l0: (l0 & Self.mask) &+ c4 &* 19, l1: (l1 & Self.mask) &+ c0, l2: (l2 & Self.mask) &+ c1,
                            l3: (l3 & Self.mask) &+ c2, l4: (l4 & Self.mask) &+ c3)
    }

    @inline(__always)
    static func + (a: FieldElement, b: FieldElement) -> FieldElement {
        FieldElement(l0: a.l0 &+ b.l0, l1: a.l1 &+ b.l1, l2: a.l2 &+ b.l2, l3: a.l3 &+ b.l3, l4: a.l4 &+ b.l4)
    }

    /// a − b as a + 16p − b, so that no limb goes negative for b's limbs below 2⁵⁵.
    @inline(__always)
    static func - (a: FieldElement, b: FieldElement) -> FieldElement {
        FieldElement(l0: (a.l0 &+ 36_028_797_018_963_664) &- b.l0, l1: (a.l1 &+ 36_028_797_018_963_952) &- b.l1,
                     l2: (a.l2 &+ 36_028_797_018_963_952) &- b.l2, l3: (a.l3 &+ 36_028_797_018_963_952) &- b.l3,
                     l4: (a.l4 &+ 36_028_797_018_963_952) &- b.l4).reduced()
    }

    @inline(__always)
    static prefix func - (a: FieldElement) -> FieldElement { zero - a }

    @inline(__always)
    private static func m(_ a: UInt64, _ b: UInt64) -> UInt128 { UInt128(a) &* UInt128(b) }

    /// The carry chain of a product: five sums below 2¹¹⁵ to limbs below 2⁵¹ + 2¹³.
    @inline(__always)
    private static func carry(_ r0: UInt128, _ r1: UInt128, _ r2: UInt128, _ r3: UInt128, _ r4: UInt128) -> FieldElement {
        var r1 = r1, r2 = r2, r3 = r3, r4 = r4
        r1 &+= r0 >> 51
        let o0 = UInt64(truncatingIfNeeded: r0) & mask
        r2 &+= r1 >> 51
        let o1 = UInt64(truncatingIfNeeded: r1) & mask
        r3 &+= r2 >> 51
        let o2 = UInt64(truncatingIfNeeded: r2) & mask
        r4 &+= r3 >> 51
        let o3 = UInt64(truncatingIfNeeded: r3) & mask
        let c4 = UInt64(truncatingIfNeeded: r4 >> 51)
        let o4 = UInt64(truncatingIfNeeded: r4) & mask
        let z0 = o0 &+ c4 &* 19
        return FieldElement(l0: z0 & mask, l1: o1 &+ (z0 >> 51), l2: o2, l3: o3, l4: o4)
    }

    @inline(__always)
    static func * (a: FieldElement, b: FieldElement) -> FieldElement {
        let b1 = b.l1 &* 19, b2 = b.l2 &* 19, b3 = b.l3 &* 19, b4 = b.l4 &* 19
        let r0 = m(a.l0, b.l0) &+ m(a.l1, b4) &+ m(a.l2, b3) &+ m(a.l3, b2) &+ m(a.l4, b1)
        let r1 = m(a.l0, b.l1) &+ m(a.l1, b.l0) &+ m(a.l2, b4) &+ m(a.l3, b3) &+ m(a.l4, b2)
        let r2 = m(a.l0, b.l2) &+ m(a.l1, b.l1) &+ m(a.l2, b.l0) &+ m(a.l3, b4) &+ m(a.l4, b3)
        let r3 = m(a.l0, b.l3) &+ m(a.l1, b.l2) &+ m(a.l2, b.l1) &+ m(a.l3, b.l0) &+ m(a.l4, b4)
        let r4 = m(a.l0, b.l4) &+ m(a.l1, b.l3) &+ m(a.l2, b.l2) &+ m(a.l3, b.l1) &+ m(a.l4, b.l0)
        return carry(r0, r1, r2, r3, r4)
    }

    @inline(__always)
    func squared() -> FieldElement {
        let d0 = l0 &* 2, d1 = l1 &* 2, d2 = l2 &* 2, d3 = l3 &* 2
        let t3 = l3 &* 19, t4 = l4 &* 19
        let r0 = Self.m(l0, l0) &+ Self.m(d1, t4) &+ Self.m(d2, t3)
        let r1 = Self.m(d0, l1) &+ Self.m(d2, t4) &+ Self.m(l3, t3)
        let r2 = Self.m(d0, l2) &+ Self.m(l1, l1) &+ Self.m(d3, t4)
        let r3 = Self.m(d0, l3) &+ Self.m(d1, l2) &+ Self.m(l4, t4)
        let r4 = Self.m(d0, l4) &+ Self.m(d1, l3) &+ Self.m(l2, l2)
        return Self.carry(r0, r1, r2, r3, r4)
    }

    func squared(times count: Int) -> FieldElement {
        var result = self
        for _ in 0..<count { result = result.squared() }
        return result
    }

    /// self^((p − 5)/8) = self^(2²⁵² − 3), the exponent of the square root ratio.
    func powP58() -> FieldElement {
        let t0 = squared()                              // 2
        let t1 = self * t0.squared(times: 2)            // 9
        let t2 = t0 * t1                                // 11
        let t3 = t1 * t2.squared()                      // 2⁵ − 1
        let t4 = t3.squared(times: 5) * t3              // 2¹⁰ − 1
        let t5 = t4.squared(times: 10) * t4             // 2²⁰ − 1
        let t6 = t5.squared(times: 20) * t5             // 2⁴⁰ − 1
        let t7 = t6.squared(times: 10) * t4             // 2⁵⁰ − 1
        let t8 = t7.squared(times: 50) * t7             // 2¹⁰⁰ − 1
        let t9 = t8.squared(times: 100) * t8            // 2²⁰⁰ − 1
        let t10 = t9.squared(times: 50) * t7            // 2²⁵⁰ − 1
        return t10.squared(times: 2) * self             // 2²⁵² − 3
    }

    func equals(_ other: FieldElement) -> Bool { bytes == other.bytes }

    var absolute: FieldElement { isNegative ? -self : self }

    /// RFC 9496 §4.2 SQRT_RATIO_M1(u, v): whether u/v is a square, and the non-negative root of u/v or of i·u/v.
    static func sqrtRatioM1(_ u: FieldElement, _ v: FieldElement) -> (wasSquare: Bool, root: FieldElement) {
        let v3 = v.squared() * v
        let v7 = v3.squared() * v
        var r = (u * v3) * (u * v7).powP58()
        let check = (v * r.squared()).bytes
        let correctSign = check == u.bytes
        let flippedSign = check == (-u).bytes
        let flippedSignI = check == (-(u * sqrtM1)).bytes
        if flippedSign || flippedSignI { r = r * sqrtM1 }
        return (correctSign || flippedSign, r.absolute)
    }
}

/// A point of edwards25519 in extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, xy = T/Z.
struct EdwardsPoint {
    var x, y, z, t: FieldElement

    static let identity = EdwardsPoint(x: .zero, y: .one, z: .one, t: .zero)

    /// RFC 9496 §4.3.1 decoding; nil for a non-canonical or negative s or an encoding of no point.
    init?(ristrettoEncoding encoding: some Collection<UInt8>) {
        let bytes = Array(encoding)
        guard bytes.count == 32, bytes[31] & 0x80 == 0 else { return nil }
        let s = FieldElement(bytes: bytes)
        let canonical = s.bytes
        guard canonical == bytes, canonical[0] & 1 == 0 else { return nil }
        let ss = s.squared()
        let u1 = FieldElement.one - ss
        let u2 = FieldElement.one + ss
        let u2Squared = u2.squared()
        let v = -(FieldElement.d * u1.squared()) - u2Squared
        let (wasSquare, invSqrt) = FieldElement.sqrtRatioM1(.one, v * u2Squared)
        let denX = invSqrt * u2
        let denY = invSqrt * denX * v
        let x = ((s + s) * denX).absolute
        let y = u1 * denY
        let t = x * y
        guard wasSquare, !t.isNegative, !y.isZero else { return nil }
        self.init(x: x, y: y, z: .one, t: t)
    }

    init(x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement) {
        (self.x, self.y, self.z, self.t) = (x, y, z, t)
    }

    /// RFC 9496 §4.3.2 encoding.
    func ristrettoEncoding() -> [UInt8] {
        let u1 = (z + y) * (z - y)
        let u2 = x * y
        let (_, invSqrt) = FieldElement.sqrtRatioM1(.one, u1 * u2.squared())
        let den1 = invSqrt * u1
        let den2 = invSqrt * u2
        let zInv = den1 * den2 * t
        let rotate = (t * zInv).isNegative
        let xr = rotate ? y * FieldElement.sqrtM1 : x
        var yr = rotate ? x * FieldElement.sqrtM1 : y
        let denInv = rotate ? den1 * FieldElement.invSqrtAMinusD : den2
        if (xr * zInv).isNegative { yr = -yr }
        return (denInv * (z - yr)).absolute.bytes
    }

    /// 2·self (dbl-2008-hwcd for a = −1).
    @inline(__always)
    func doubled() -> EdwardsPoint {
        let a = x.squared(), b = y.squared()
        let zz = z.squared()
        let c = zz + zz
        let h = a + b
        let e = h - (x + y).squared()
        let g = a - b
        let f = c + g
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// self ± a cached point (add-2008-hwcd-3 with a = −1; subtraction swaps Y+X and Y−X and negates 2dT).
    @inline(__always)
    func adding(_ q: CachedPoint, negated: Bool) -> EdwardsPoint {
        let a = (y - x) * (negated ? q.yPlusX : q.yMinusX)
        let b = (y + x) * (negated ? q.yMinusX : q.yPlusX)
        let c = t * q.t2d
        let zz = z * q.z
        let d = zz + zz
        let e = b - a, h = b + a
        let f = negated ? d + c : d - c
        let g = negated ? d - c : d + c
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// s·B − k·A in variable time, interleaving the width-5 NAF of k over a table of A's odd multiples with the
    /// width-8 NAF of s over a table of B's, computed once.
    static func baseMinus(baseScalar s: RistrettoScalar, point: EdwardsPoint, pointScalar k: RistrettoScalar) -> EdwardsPoint {
        let pointTable = CachedPoint.oddMultiples(of: point, count: 8)
        let baseTable = basepointOddMultiples
        let sDigits = s.withBytes { nonAdjacentForm(UnsafeBufferPointer(start: $0, count: 32), width: 8) }
        let kDigits = k.withBytes { nonAdjacentForm(UnsafeBufferPointer(start: $0, count: 32), width: 5) }
        var top = 255
        while top >= 0, sDigits[top] == 0, kDigits[top] == 0 { top -= 1 }
        var result = identity
        var index = top
        while index >= 0 {
            result = result.doubled()
            let kDigit = Int(kDigits[index]), sDigit = Int(sDigits[index])
            if kDigit > 0 {
                result = result.adding(pointTable[kDigit / 2], negated: true)
            } else if kDigit < 0 {
                result = result.adding(pointTable[-kDigit / 2], negated: false)
            }
            if sDigit > 0 {
                result = result.adding(baseTable[sDigit / 2], negated: false)
            } else if sDigit < 0 {
                result = result.adding(baseTable[-sDigit / 2], negated: true)
            }
            index -= 1
        }
        return result
    }

    /// B, 3B, …, 127B.
    static let basepointOddMultiples: [CachedPoint] = {
        var one = [UInt8](repeating: 0, count: 32)
        one[0] = 1
        let encoding = RistrettoPoint.base(RistrettoScalar(canonical: one)!).encoding
        return CachedPoint.oddMultiples(of: EdwardsPoint(ristrettoEncoding: encoding)!, count: 64)
    }()

    /// The width-`width` non-adjacent form of a 256-bit little-endian scalar below 2²⁵⁵: 256 signed digits, each
    /// zero or odd with magnitude below 2^(width − 1), at least `width` − 1 zeros between non-zero ones.
    static func nonAdjacentForm(_ scalar: UnsafeBufferPointer<UInt8>, width: Int) -> [Int8] {
        var words = [UInt64](repeating: 0, count: 5)
        for index in 0..<32 { words[index / 8] |= UInt64(scalar[index]) << (8 * UInt64(index % 8)) }
        var digits = [Int8](repeating: 0, count: 256)
        let windowSize = UInt64(1) << width
        let windowMask = windowSize - 1
        var position = 0
        var carry: UInt64 = 0
        while position < 256 {
            let word = position / 64, bit = position % 64
            let buffer = bit < 64 - width ? words[word] >> bit : (words[word] >> bit) | (words[word + 1] << (64 - bit))
            let window = carry + (buffer & windowMask)
            if window & 1 == 0 {
                position += 1
                continue
            }
            if window < windowSize / 2 {
                carry = 0
                digits[position] = Int8(window)
            } else {
                carry = 1
                digits[position] = Int8(Int(window) - Int(windowSize))
            }
            position += width
        }
        return digits
    }
}

/// A point prepared for addition: (Y + X, Y − X, Z, 2d·T).
struct CachedPoint {
    let yPlusX, yMinusX, z, t2d: FieldElement

    init(_ p: EdwardsPoint) {
        yPlusX = p.y + p.x
        yMinusX = p.y - p.x
        z = p.z
        t2d = p.t * FieldElement.d2
    }

    /// P, 3P, 5P, … (`count` entries).
    static func oddMultiples(of point: EdwardsPoint, count: Int) -> [CachedPoint] {
        let double = CachedPoint(point.doubled())
        var table = [CachedPoint(point)]
        table.reserveCapacity(count)
        var current = point
        for _ in 1..<count {
            current = current.adding(double, negated: false)
            table.append(CachedPoint(current))
        }
        return table
    }
}
