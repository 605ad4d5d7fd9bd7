/// Exact conversions between IEEE 754 half/single bit patterns and Double, done on bits so that subnormals and
/// NaN payloads survive a decode/encode round trip unchanged (hardware conversions may quiet NaNs).
enum CBORFloatBits {
    static func double(fromHalf bits: UInt16) -> Double {
        let negative = bits & 0x8000 != 0
        let exponent = Int(bits >> 10 & 0x1F)
        let fraction = UInt64(bits & 0x3FF)
        switch exponent {
        case 0:
            let magnitude = Double(fraction) * 0x1p-24
            return negative ? -magnitude : magnitude
        case 0x1F:
            if fraction == 0 { return negative ? -.infinity : .infinity }
            return Double(bitPattern: (negative ? 1 << 63 : 0) | 0x7FF << 52 | fraction << 42)
        default:
            return Double(sign: negative ? .minus : .plus, exponent: exponent - 25, significand: Double(0x400 | fraction))
        }
    }

    static func double(fromSingle bits: UInt32) -> Double {
        let negative = bits & 0x8000_0000 != 0
        let exponent = Int(bits >> 23 & 0xFF)
        let fraction = UInt64(bits & 0x7F_FFFF)
        switch exponent {
        case 0:
            let magnitude = Double(fraction) * 0x1p-149
            return negative ? -magnitude : magnitude
        case 0xFF:
            if fraction == 0 { return negative ? -.infinity : .infinity }
            return Double(bitPattern: (negative ? 1 << 63 : 0) | 0x7FF << 52 | fraction << 29)
        default:
            return Double(sign: negative ? .minus : .plus, exponent: exponent - 150,
                          significand: Double(0x80_0000 | fraction))
        }
    }

    /// The half-precision bits of `value` when it is exactly representable (NaN payload included), else nil.
    static func halfBits(exactly value: Double) -> UInt16? {
        narrowBits(value, fractionBits: 10, exponentBits: 5).map { UInt16(truncatingIfNeeded: $0) }
    }

    /// The single-precision bits of `value` when it is exactly representable (NaN payload included), else nil.
    static func singleBits(exactly value: Double) -> UInt32? {
        narrowBits(value, fractionBits: 23, exponentBits: 8).map { UInt32(truncatingIfNeeded: $0) }
    }

    static func shortestWidth(_ value: Double) -> CBOR.FloatWidth {
        if halfBits(exactly: value) != nil { return .half }
        if singleBits(exactly: value) != nil { return .single }
        return .double
    }

    /// Whether `value` can be written in `width` without losing anything.
    static func fits(_ value: Double, in width: CBOR.FloatWidth) -> Bool {
        switch width {
        case .half: return halfBits(exactly: value) != nil
        case .single: return singleBits(exactly: value) != nil
        case .double: return true
        }
    }

    private static func narrowBits(_ value: Double, fractionBits: Int, exponentBits: Int) -> UInt64? {
        let bits = value.bitPattern
        let sign: UInt64 = (bits >> 63) << UInt64(fractionBits + exponentBits)
        let maxExponent: UInt64 = (1 << UInt64(exponentBits)) - 1
        let droppedBits = UInt64(52 - fractionBits)
        let droppedMask: UInt64 = (1 << droppedBits) - 1
        let fraction = bits & 0xF_FFFF_FFFF_FFFF
        if value.isNaN {
            guard fraction & droppedMask == 0 else { return nil }
            return sign | maxExponent << UInt64(fractionBits) | fraction >> droppedBits
        }
        if value.isInfinite { return sign | maxExponent << UInt64(fractionBits) }
        if value == 0 { return sign }
        let bias = Int(maxExponent >> 1)
        let exponent = Int(value.exponent)
        if exponent > bias { return nil }
        if exponent >= 1 - bias {
            // Normal in the narrow format: the dropped low fraction bits must be zero.
            let source = value.significandBitPattern
            guard value.isNormal, source & droppedMask == 0 else { return nil }
            return sign | UInt64(exponent + bias) << UInt64(fractionBits) | source >> droppedBits
        }
        // Subnormal in the narrow format: |value| must be an integer multiple of the smallest subnormal.
        let scaled = value.magnitude * Double(sign: .plus, exponent: bias - 1 + fractionBits, significand: 1)
        guard scaled == scaled.rounded(.towardZero), scaled < Double(1 << UInt64(fractionBits)) else { return nil }
        return sign | UInt64(scaled)
    }
}
