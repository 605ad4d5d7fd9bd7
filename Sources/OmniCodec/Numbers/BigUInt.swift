/// An arbitrary-precision unsigned integer (Candid `nat`, LEB128 values of any length).
///
/// Values below 2^64 are stored inline, so the common small case never allocates; larger values keep
/// little-endian 64-bit limbs with no high zero limb. Arithmetic is schoolbook (Knuth algorithm D for
/// division), which is ample for the few hundred digits protocol numbers reach; callers that parse untrusted
/// input bound the size first (`LEB128.decodeBigUInt(maxBytes:)`, digit limits in text parsers).
public struct BigUInt: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    @usableFromInline enum Storage: Sendable, Hashable {
        case small(UInt64)
        /// At least two limbs, the last one non-zero.
        case large([UInt64])
    }

    @usableFromInline var storage: Storage

    @inlinable public init(_ value: UInt64) { storage = .small(value) }
    public init(integerLiteral value: UInt64) { storage = .small(value) }

    /// Builds a value from little-endian 64-bit limbs (high zero limbs are dropped).
    public init(limbs: [UInt64]) {
        var limbs = limbs
        while let last = limbs.last, last == 0 { limbs.removeLast() }
        switch limbs.count {
        case 0: storage = .small(0)
        case 1: storage = .small(limbs[0])
        default: storage = .large(limbs)
        }
    }

    /// The value of a binary integer, or nil when it is negative.
    public init?<T: BinaryInteger>(exactly value: T) {
        guard value >= 0 else { return nil }
        if let small = UInt64(exactly: value) { self.init(small); return }
        self.init(limbs: value.words.map { UInt64($0) })
    }

    public static let zero = BigUInt(0)

    /// Little-endian 64-bit limbs; zero has no limbs.
    public var limbs: [UInt64] {
        switch storage {
        case .small(let value): return value == 0 ? [] : [value]
        case .large(let limbs): return limbs
        }
    }

    public var isZero: Bool { if case .small(0) = storage { return true }; return false }

    /// The value as a UInt64 when it fits.
    @inlinable public var uint64Value: UInt64? {
        if case .small(let value) = storage { return value }
        return nil
    }

    /// Number of significant bits (0 for zero).
    public var bitWidth: Int {
        switch storage {
        case .small(let value): return 64 - value.leadingZeroBitCount
        case .large(let limbs): return limbs.count * 64 - (limbs.last ?? 0).leadingZeroBitCount
        }
    }

    // MARK: Comparison

    public static func < (lhs: BigUInt, rhs: BigUInt) -> Bool { compare(lhs.limbs, rhs.limbs) < 0 }

    static func compare(_ a: [UInt64], _ b: [UInt64]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        var i = a.count - 1
        while i >= 0 {
            if a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
            i -= 1
        }
        return 0
    }

    // MARK: Arithmetic

    public static func + (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        if case .small(let a) = lhs.storage, case .small(let b) = rhs.storage {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? BigUInt(limbs: [sum, 1]) : BigUInt(sum)
        }
        return BigUInt(limbs: add(lhs.limbs, rhs.limbs))
    }

    public static func += (lhs: inout BigUInt, rhs: BigUInt) { lhs = lhs + rhs }

    /// `lhs - rhs`, or nil when the result would be negative.
    public func subtracting(_ other: BigUInt) -> BigUInt? {
        if case .small(let a) = storage, case .small(let b) = other.storage {
            return a >= b ? BigUInt(a - b) : nil
        }
        let a = limbs, b = other.limbs
        guard BigUInt.compare(a, b) >= 0 else { return nil }
        return BigUInt(limbs: BigUInt.subtract(a, b))
    }

    /// Traps when `rhs > lhs`, like unsigned integer subtraction; use `subtracting(_:)` on untrusted values.
    public static func - (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        guard let difference = lhs.subtracting(rhs) else { preconditionFailure("BigUInt subtraction underflow") }
        return difference
    }

    public static func * (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        if case .small(let a) = lhs.storage, case .small(let b) = rhs.storage {
            let (high, low) = a.multipliedFullWidth(by: b)
            return high == 0 ? BigUInt(low) : BigUInt(limbs: [low, high])
        }
        return BigUInt(limbs: multiply(lhs.limbs, rhs.limbs))
    }

    public static func *= (lhs: inout BigUInt, rhs: BigUInt) { lhs = lhs * rhs }

    /// Truncating division; traps on a zero divisor like the standard integer types.
    public func quotientAndRemainder(dividingBy divisor: BigUInt) -> (quotient: BigUInt, remainder: BigUInt) {
        precondition(!divisor.isZero, "BigUInt division by zero")
        if case .small(let a) = storage, case .small(let b) = divisor.storage {
            return (BigUInt(a / b), BigUInt(a % b))
        }
        let a = limbs, b = divisor.limbs
        if BigUInt.compare(a, b) < 0 { return (.zero, self) }
        if b.count == 1 {
            var quotient = a
            let remainder = BigUInt.divideInPlace(&quotient, by: b[0])
            return (BigUInt(limbs: quotient), BigUInt(remainder))
        }
        let (quotient, remainder) = BigUInt.knuthDivide(a, b)
        return (BigUInt(limbs: quotient), BigUInt(limbs: remainder))
    }

    public static func / (lhs: BigUInt, rhs: BigUInt) -> BigUInt { lhs.quotientAndRemainder(dividingBy: rhs).quotient }
    public static func % (lhs: BigUInt, rhs: BigUInt) -> BigUInt { lhs.quotientAndRemainder(dividingBy: rhs).remainder }

    public static func << (lhs: BigUInt, shift: Int) -> BigUInt {
        guard shift > 0, !lhs.isZero else { return lhs }
        let source = lhs.limbs
        let limbShift = shift / 64, bitShift = shift % 64
        var result = [UInt64](repeating: 0, count: source.count + limbShift + 1)
        for (i, limb) in source.enumerated() {
            result[i + limbShift] |= limb << UInt64(bitShift)
            if bitShift > 0 { result[i + limbShift + 1] |= limb >> UInt64(64 - bitShift) }
        }
        return BigUInt(limbs: result)
    }

    public static func >> (lhs: BigUInt, shift: Int) -> BigUInt {
        guard shift > 0 else { return lhs }
        let source = lhs.limbs
        let limbShift = shift / 64, bitShift = shift % 64
        guard limbShift < source.count else { return .zero }
        var result = [UInt64](repeating: 0, count: source.count - limbShift)
        for i in 0..<result.count {
            result[i] = source[i + limbShift] >> UInt64(bitShift)
            if bitShift > 0, i + limbShift + 1 < source.count {
                result[i] |= source[i + limbShift + 1] << UInt64(64 - bitShift)
            }
        }
        return BigUInt(limbs: result)
    }

    // MARK: Text

    /// Parses digits in `radix` (2...36); no sign, no separators, at least one digit.
    public init?(_ text: some StringProtocol, radix: Int = 10) {
        guard (2...36).contains(radix), !text.isEmpty else { return nil }
        // Work in chunks that fit one limb: radix^chunk < 2^64.
        var chunkLength = 1
        var chunkScale = UInt64(radix)
        while true {
            let (next, overflow) = chunkScale.multipliedReportingOverflow(by: UInt64(radix))
            if overflow { break }
            chunkScale = next
            chunkLength += 1
        }
        var limbs: [UInt64] = []
        var chunk: UInt64 = 0, chunkDigits = 0
        for unit in text.utf8 {
            guard let digit = BigUInt.digitValue(unit), digit < radix else { return nil }
            chunk = chunk &* UInt64(radix) &+ UInt64(digit)
            chunkDigits += 1
            if chunkDigits == chunkLength {
                BigUInt.multiplyAdd(&limbs, chunkScale, chunk)
                chunk = 0
                chunkDigits = 0
            }
        }
        if chunkDigits > 0 {
            var scale: UInt64 = 1
            for _ in 0..<chunkDigits { scale &*= UInt64(radix) }
            BigUInt.multiplyAdd(&limbs, scale, chunk)
        }
        self.init(limbs: limbs)
    }

    static func digitValue(_ unit: UInt8) -> Int? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(unit - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(unit - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(unit - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }

    public var description: String { toString(radix: 10) }

    /// Digits in `radix` (2...36), lowercase letters, no prefix.
    public func toString(radix: Int = 10) -> String {
        precondition((2...36).contains(radix), "radix must be in 2...36")
        if case .small(let value) = storage { return String(value, radix: radix) }
        var chunkLength = 1
        var chunkScale = UInt64(radix)
        while true {
            let (next, overflow) = chunkScale.multipliedReportingOverflow(by: UInt64(radix))
            if overflow { break }
            chunkScale = next
            chunkLength += 1
        }
        var remaining = limbs
        var chunks: [UInt64] = []
        while !remaining.isEmpty {
            chunks.append(BigUInt.divideInPlace(&remaining, by: chunkScale))
            while let last = remaining.last, last == 0 { remaining.removeLast() }
        }
        var text = String(chunks.removeLast(), radix: radix)
        for chunk in chunks.reversed() {
            let digits = String(chunk, radix: radix)
            text += String(repeating: "0", count: chunkLength - digits.count) + digits
        }
        return text
    }

    // MARK: Limb algorithms

    static func add(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let (long, short) = a.count >= b.count ? (a, b) : (b, a)
        var result = long
        var carry: UInt64 = 0
        for i in 0..<long.count {
            let addend = i < short.count ? short[i] : 0
            if addend == 0 && carry == 0 && i >= short.count { break }
            let (s1, o1) = result[i].addingReportingOverflow(addend)
            let (s2, o2) = s1.addingReportingOverflow(carry)
            result[i] = s2
            carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        if carry != 0 { result.append(carry) }
        return result
    }

    /// Requires a >= b.
    static func subtract(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result = a
        var borrow: UInt64 = 0
        for i in 0..<a.count {
            let subtrahend = i < b.count ? b[i] : 0
            if subtrahend == 0 && borrow == 0 && i >= b.count { break }
            let (d1, o1) = result[i].subtractingReportingOverflow(subtrahend)
            let (d2, o2) = d1.subtractingReportingOverflow(borrow)
            result[i] = d2
            borrow = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        return result
    }

    static func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        var result = [UInt64](repeating: 0, count: a.count + b.count)
        for i in 0..<a.count {
            var carry: UInt64 = 0
            let ai = a[i]
            if ai == 0 { continue }
            for j in 0..<b.count {
                let (high, low) = ai.multipliedFullWidth(by: b[j])
                let (s1, o1) = result[i + j].addingReportingOverflow(low)
                let (s2, o2) = s1.addingReportingOverflow(carry)
                result[i + j] = s2
                carry = high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
            }
            result[i + b.count] = carry
        }
        return result
    }

    /// limbs = limbs * factor + addend.
    static func multiplyAdd(_ limbs: inout [UInt64], _ factor: UInt64, _ addend: UInt64) {
        var carry = addend
        for i in 0..<limbs.count {
            let (high, low) = limbs[i].multipliedFullWidth(by: factor)
            let (sum, overflow) = low.addingReportingOverflow(carry)
            limbs[i] = sum
            carry = high &+ (overflow ? 1 : 0)
        }
        if carry != 0 { limbs.append(carry) }
    }

    /// Divides in place by a non-zero single limb and returns the remainder.
    static func divideInPlace(_ limbs: inout [UInt64], by divisor: UInt64) -> UInt64 {
        var remainder: UInt64 = 0
        var i = limbs.count - 1
        while i >= 0 {
            let (quotient, rest) = divisor.dividingFullWidth((high: remainder, low: limbs[i]))
            limbs[i] = quotient
            remainder = rest
            i -= 1
        }
        return remainder
    }

    /// Knuth TAOCP vol. 2, 4.3.1 algorithm D. Requires b.count >= 2, top limb non-zero, a >= b.
    static func knuthDivide(_ a: [UInt64], _ b: [UInt64]) -> ([UInt64], [UInt64]) {
        let n = b.count, m = a.count - b.count
        let shift = UInt64((b.last ?? 1).leadingZeroBitCount)
        // Normalise so the divisor's top bit is set; u gets one extra limb.
        var v = [UInt64](repeating: 0, count: n)
        var u = [UInt64](repeating: 0, count: a.count + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            v[i] = b[i] << shift
            if shift > 0, i > 0 { v[i] |= b[i - 1] >> (64 - shift) }
        }
        u[a.count] = shift > 0 ? a[a.count - 1] >> (64 - shift) : 0
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            u[i] = a[i] << shift
            if shift > 0, i > 0 { u[i] |= a[i - 1] >> (64 - shift) }
        }
        var quotient = [UInt64](repeating: 0, count: m + 1)
        let vTop = v[n - 1], vNext = v[n - 2]
        for j in stride(from: m, through: 0, by: -1) {
            var qhat: UInt64, rhat: UInt64
            var rhatOverflow = false
            if u[j + n] >= vTop {
                // Only equality is possible here; the two-limb quotient would overflow, so start from B-1,
                // whose remainder is u[j+n-1] + vTop.
                qhat = UInt64.max
                (rhat, rhatOverflow) = u[j + n - 1].addingReportingOverflow(vTop)
            } else {
                (qhat, rhat) = vTop.dividingFullWidth((high: u[j + n], low: u[j + n - 1]))
            }
            while !rhatOverflow {
                let (high, low) = qhat.multipliedFullWidth(by: vNext)
                if high > rhat || (high == rhat && low > u[j + n - 2]) {
                    qhat -= 1
                    let (r, overflow) = rhat.addingReportingOverflow(vTop)
                    rhat = r
                    rhatOverflow = overflow
                } else {
                    break
                }
            }
            // Multiply and subtract qhat·v from u[j...j+n].
            var borrow: UInt64 = 0, carry: UInt64 = 0
            for i in 0..<n {
                let (high, low) = qhat.multipliedFullWidth(by: v[i])
                let (product, o1) = low.addingReportingOverflow(carry)
                carry = high &+ (o1 ? 1 : 0)
                let (d1, b1) = u[i + j].subtractingReportingOverflow(product)
                let (d2, b2) = d1.subtractingReportingOverflow(borrow)
                u[i + j] = d2
                borrow = (b1 ? 1 : 0) + (b2 ? 1 : 0)
            }
            let (d1, b1) = u[j + n].subtractingReportingOverflow(carry)
            let (d2, b2) = d1.subtractingReportingOverflow(borrow)
            u[j + n] = d2
            if b1 || b2 {
                // qhat was one too large: add v back.
                qhat -= 1
                var addCarry: UInt64 = 0
                for i in 0..<n {
                    let (s1, o1) = u[i + j].addingReportingOverflow(v[i])
                    let (s2, o2) = s1.addingReportingOverflow(addCarry)
                    u[i + j] = s2
                    addCarry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
                }
                u[j + n] = u[j + n] &+ addCarry
            }
            quotient[j] = qhat
        }
        // Denormalise the remainder.
        var remainder = [UInt64](repeating: 0, count: n)
        for i in 0..<n {
            remainder[i] = u[i] >> shift
            if shift > 0 { remainder[i] |= u[i + 1] << (64 - shift) }
        }
        return (quotient, remainder)
    }
}
