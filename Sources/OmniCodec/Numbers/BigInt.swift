/// An arbitrary-precision signed integer (Candid `int`): a sign and a `BigUInt` magnitude.
/// Zero is never negative, so equal values compare and hash equal.
public struct BigInt: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public private(set) var isNegative: Bool
    public private(set) var magnitude: BigUInt

    public init(isNegative: Bool, magnitude: BigUInt) {
        self.magnitude = magnitude
        self.isNegative = isNegative && !magnitude.isZero
    }

    @inlinable public init(_ value: Int64) {
        self.init(isNegative: value < 0, magnitude: BigUInt(value.magnitude))
    }

    public init(integerLiteral value: Int64) { self.init(value) }

    public init(_ value: BigUInt) { self.init(isNegative: false, magnitude: value) }

    public init?<T: BinaryInteger>(exactly value: T) {
        guard let magnitude = BigUInt(exactly: value.magnitude) else { return nil }
        self.init(isNegative: value < 0, magnitude: magnitude)
    }

    public static let zero = BigInt(0)

    public var isZero: Bool { magnitude.isZero }

    /// The value as an Int64 when it fits.
    public var int64Value: Int64? {
        guard let small = magnitude.uint64Value else { return nil }
        if isNegative {
            if small == UInt64(Int64.max) + 1 { return Int64.min }
            return small <= UInt64(Int64.max) ? -Int64(small) : nil
        }
        return small <= UInt64(Int64.max) ? Int64(small) : nil
    }

    public static func < (lhs: BigInt, rhs: BigInt) -> Bool {
        switch (lhs.isNegative, rhs.isNegative) {
        case (true, false): return true
        case (false, true): return false
        case (false, false): return lhs.magnitude < rhs.magnitude
        case (true, true): return rhs.magnitude < lhs.magnitude
        }
    }

    public static prefix func - (value: BigInt) -> BigInt {
        BigInt(isNegative: !value.isNegative, magnitude: value.magnitude)
    }

    public static func + (lhs: BigInt, rhs: BigInt) -> BigInt {
        if lhs.isNegative == rhs.isNegative {
            return BigInt(isNegative: lhs.isNegative, magnitude: lhs.magnitude + rhs.magnitude)
        }
        if let difference = lhs.magnitude.subtracting(rhs.magnitude) {
            return BigInt(isNegative: lhs.isNegative, magnitude: difference)
        }
        return BigInt(isNegative: rhs.isNegative, magnitude: rhs.magnitude - lhs.magnitude)
    }

    public static func - (lhs: BigInt, rhs: BigInt) -> BigInt { lhs + (-rhs) }

    public static func * (lhs: BigInt, rhs: BigInt) -> BigInt {
        BigInt(isNegative: lhs.isNegative != rhs.isNegative, magnitude: lhs.magnitude * rhs.magnitude)
    }

    /// Truncating division (the quotient rounds toward zero, the remainder has the dividend's sign), like `Int`.
    /// Traps on a zero divisor.
    public func quotientAndRemainder(dividingBy divisor: BigInt) -> (quotient: BigInt, remainder: BigInt) {
        let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: divisor.magnitude)
        return (BigInt(isNegative: isNegative != divisor.isNegative, magnitude: quotient),
                BigInt(isNegative: isNegative, magnitude: remainder))
    }

    public static func / (lhs: BigInt, rhs: BigInt) -> BigInt { lhs.quotientAndRemainder(dividingBy: rhs).quotient }
    public static func % (lhs: BigInt, rhs: BigInt) -> BigInt { lhs.quotientAndRemainder(dividingBy: rhs).remainder }

    /// Parses an optional `+`/`-` sign followed by digits in `radix`.
    public init?(_ text: some StringProtocol, radix: Int = 10) {
        var digits = Substring(text)
        var negative = false
        if let first = digits.first, first == "-" || first == "+" {
            negative = first == "-"
            digits = digits.dropFirst()
        }
        guard let magnitude = BigUInt(digits, radix: radix) else { return nil }
        self.init(isNegative: negative, magnitude: magnitude)
    }

    public var description: String { toString(radix: 10) }

    public func toString(radix: Int = 10) -> String {
        (isNegative ? "-" : "") + magnitude.toString(radix: radix)
    }
}
