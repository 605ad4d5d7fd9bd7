/// LEB128 (unsigned) and SLEB128 (signed) variable-length integers, as used by Candid, WebAssembly and DWARF.
///
/// Encoding is always minimal. Decoding accepts padded (overlong) forms, such as `80 00` for zero, as long as
/// they stay within `maxBytes` and the padding carries no bits beyond the target width; anything else is a
/// `CodecError` with format "LEB128": `.malformed` for truncated input, `.limitExceeded` for values that do not
/// fit or encodings longer than `maxBytes`.
public enum LEB128 {
    /// Enough for any 64-bit value (ceil(64 / 7)).
    public static let maxBytes64 = 10

    // MARK: Encoding

    @inlinable public static func encode(_ value: UInt64, into bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    @inlinable public static func encodeSigned(_ value: Int64, into bytes: inout [UInt8]) {
        var rest = value
        while true {
            let byte = UInt8(truncatingIfNeeded: rest) & 0x7F
            rest >>= 7
            let done = (rest == 0 && byte & 0x40 == 0) || (rest == -1 && byte & 0x40 != 0)
            bytes.append(done ? byte : byte | 0x80)
            if done { return }
        }
    }

    public static func encode(_ value: BigUInt, into bytes: inout [UInt8]) {
        if let small = value.uint64Value { encode(small, into: &bytes); return }
        let limbs = value.limbs
        let bitCount = value.bitWidth
        var bit = 0
        while true {
            let group = extractBits(limbs, from: bit, count: 7)
            bit += 7
            if bit >= bitCount { bytes.append(group); return }
            bytes.append(group | 0x80)
        }
    }

    public static func encodeSigned(_ value: BigInt, into bytes: inout [UInt8]) {
        if let small = value.int64Value { encodeSigned(small, into: &bytes); return }
        // Two's complement over enough limbs for the magnitude plus a sign bit, then the Int64 algorithm:
        // emit 7 bits, shift arithmetically, stop once the rest is all sign bits and the last group agrees.
        let limbCount = (value.magnitude.bitWidth + 1 + 63) / 64
        var limbs = value.magnitude.limbs
        limbs += [UInt64](repeating: 0, count: limbCount - limbs.count)
        if value.isNegative {
            var carry: UInt64 = 1
            for i in 0..<limbs.count {
                let (sum, overflow) = (~limbs[i]).addingReportingOverflow(carry)
                limbs[i] = sum
                carry = overflow ? 1 : 0
            }
        }
        let fill: UInt64 = value.isNegative ? .max : 0
        while true {
            let byte = UInt8(truncatingIfNeeded: limbs[0]) & 0x7F
            for i in 0..<limbs.count {
                let high = i + 1 < limbs.count ? limbs[i + 1] : fill
                limbs[i] = (limbs[i] >> 7) | (high << 57)
            }
            let restIsSign = limbs.allSatisfy { $0 == fill }
            if restIsSign && (byte & 0x40 != 0) == value.isNegative {
                bytes.append(byte)
                return
            }
            bytes.append(byte | 0x80)
        }
    }

    public static func encoded(_ value: UInt64) -> [UInt8] { var out: [UInt8] = []; encode(value, into: &out); return out }
    public static func encodedSigned(_ value: Int64) -> [UInt8] { var out: [UInt8] = []; encodeSigned(value, into: &out); return out }
    public static func encoded(_ value: BigUInt) -> [UInt8] { var out: [UInt8] = []; encode(value, into: &out); return out }
    public static func encodedSigned(_ value: BigInt) -> [UInt8] { var out: [UInt8] = []; encodeSigned(value, into: &out); return out }

    static func extractBits(_ limbs: [UInt64], from bit: Int, count: Int) -> UInt8 {
        let limb = bit / 64, offset = bit % 64
        let low = limb < limbs.count ? limbs[limb] : 0
        var bits = low >> UInt64(offset)
        if offset + count > 64 {
            let high = limb + 1 < limbs.count ? limbs[limb + 1] : 0
            bits |= high << UInt64(64 - offset)
        }
        return UInt8(truncatingIfNeeded: bits) & 0x7F
    }

    // MARK: Decoding

    /// Reads an unsigned value that must fit in 64 bits.
    @inlinable public static func decodeUInt64(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, maxBytes: Int = maxBytes64
    ) throws(CodecError) -> UInt64 {
        if offset < bytes.count, bytes[offset] < 0x80 {
            offset += 1
            return UInt64(bytes[offset - 1])
        }
        return try decodeUInt64Slow(bytes, at: &offset, maxBytes: maxBytes)
    }

    @usableFromInline static func decodeUInt64Slow(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, maxBytes: Int
    ) throws(CodecError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        while true {
            guard index < bytes.count else { throw truncated(at: start) }
            guard index - start < maxBytes else { throw tooLong(at: start, maxBytes: maxBytes) }
            let byte = bytes[index]
            index += 1
            let payload = UInt64(byte & 0x7F)
            if shift < 64 {
                // Bits that fall off the top of 64 must be zero.
                if shift > 57, payload >> (64 - shift) != 0 { throw overflow(at: start, bits: 64) }
                result |= payload << shift
            } else if payload != 0 {
                throw overflow(at: start, bits: 64)
            }
            shift += 7
            if byte < 0x80 { break }
        }
        offset = index
        return result
    }

    /// Reads a signed value that must fit in 64 bits.
    @inlinable public static func decodeInt64(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, maxBytes: Int = maxBytes64
    ) throws(CodecError) -> Int64 {
        if offset < bytes.count, bytes[offset] < 0x80 {
            let byte = bytes[offset]
            offset += 1
            return byte & 0x40 != 0 ? Int64(byte) - 0x80 : Int64(byte)
        }
        return try decodeInt64Slow(bytes, at: &offset, maxBytes: maxBytes)
    }

    @usableFromInline static func decodeInt64Slow(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, maxBytes: Int
    ) throws(CodecError) -> Int64 {
        let start = offset
        let end = try groupEnd(bytes, from: start, maxBytes: maxBytes)
        let negative = bytes[end - 1] & 0x40 != 0
        var result: Int64 = 0
        for i in 0..<(end - start) {
            let group = bytes[start + i] & 0x7F
            if i < 9 {
                result |= Int64(group) << Int64(7 * i)
            } else if group != (negative ? 0x7F : 0) {
                // Group 9 holds bit 63 (the sign) and above; every such bit must equal the sign.
                throw overflow(at: start, bits: 64)
            }
        }
        let count = end - start
        if negative { result |= count < 10 ? -1 << Int64(7 * count) : Int64.min }
        offset = end
        return result
    }

    /// Reads an unsigned value of any size up to `maxBytes` encoded bytes.
    public static func decodeBigUInt(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, maxBytes: Int
    ) throws(CodecError) -> BigUInt {
        if offset < bytes.count, bytes[offset] < 0x80 {
            offset += 1
            return BigUInt(UInt64(bytes[offset - 1]))
        }
        let start = offset
        let end = try groupEnd(bytes, from: start, maxBytes: maxBytes)
        let count = end - start
        if count <= 9 {
            var value: UInt64 = 0
            for i in 0..<count { value |= UInt64(bytes[start + i] & 0x7F) << UInt64(7 * i) }
            offset = end
            return BigUInt(value)
        }
        var limbs = [UInt64](repeating: 0, count: (count * 7 + 63) / 64)
        for i in 0..<count { orBits(&limbs, UInt64(bytes[start + i] & 0x7F), at: 7 * i) }
        offset = end
        return BigUInt(limbs: limbs)
    }

    /// Reads a signed value of any size up to `maxBytes` encoded bytes.
    public static func decodeBigInt(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, maxBytes: Int
    ) throws(CodecError) -> BigInt {
        let start = offset
        let end = try groupEnd(bytes, from: start, maxBytes: maxBytes)
        let count = end - start
        if count <= 9 {
            var probe = start
            let value = try decodeInt64(bytes, at: &probe, maxBytes: maxBytes)
            offset = end
            return BigInt(value)
        }
        let totalBits = count * 7
        var limbs = [UInt64](repeating: 0, count: (totalBits + 63) / 64)
        for i in 0..<count { orBits(&limbs, UInt64(bytes[start + i] & 0x7F), at: 7 * i) }
        let negative = bytes[end - 1] & 0x40 != 0
        offset = end
        guard negative else { return BigInt(BigUInt(limbs: limbs)) }
        // Sign-extend to the full limb width, then negate the two's complement.
        let usedBits = totalBits % 64
        if usedBits != 0 { limbs[limbs.count - 1] |= UInt64.max << UInt64(usedBits) }
        var carry: UInt64 = 1
        for i in 0..<limbs.count {
            let (sum, overflow) = (~limbs[i]).addingReportingOverflow(carry)
            limbs[i] = sum
            carry = overflow ? 1 : 0
        }
        return BigInt(isNegative: true, magnitude: BigUInt(limbs: limbs))
    }

    /// Validates and steps over one LEB128/SLEB128 value without building it.
    @inlinable public static func skip(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, maxBytes: Int
    ) throws(CodecError) {
        if offset < bytes.count, bytes[offset] < 0x80 { offset += 1; return }
        offset = try groupEnd(bytes, from: offset, maxBytes: maxBytes)
    }

    /// Index just past the final (high-bit-clear) byte starting at `start`.
    @usableFromInline static func groupEnd(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, maxBytes: Int
    ) throws(CodecError) -> Int {
        var index = start
        while true {
            guard index < bytes.count else { throw truncated(at: start) }
            guard index - start < maxBytes else { throw tooLong(at: start, maxBytes: maxBytes) }
            let byte = bytes[index]
            index += 1
            if byte < 0x80 { return index }
        }
    }

    static func orBits(_ limbs: inout [UInt64], _ bits: UInt64, at position: Int) {
        let limb = position / 64, offset = UInt64(position % 64)
        limbs[limb] |= bits << offset
        if offset > 57, limb + 1 < limbs.count { limbs[limb + 1] |= bits >> (64 - offset) }
    }

    // MARK: Array conveniences

    public static func decodeUInt64(_ bytes: [UInt8], at offset: inout Int, maxBytes: Int = maxBytes64) throws(CodecError) -> UInt64 {
        try withBuffer(bytes) { (buffer) throws(CodecError) in try decodeUInt64(buffer, at: &offset, maxBytes: maxBytes) }
    }

    public static func decodeInt64(_ bytes: [UInt8], at offset: inout Int, maxBytes: Int = maxBytes64) throws(CodecError) -> Int64 {
        try withBuffer(bytes) { (buffer) throws(CodecError) in try decodeInt64(buffer, at: &offset, maxBytes: maxBytes) }
    }

    public static func decodeBigUInt(_ bytes: [UInt8], at offset: inout Int, maxBytes: Int) throws(CodecError) -> BigUInt {
        try withBuffer(bytes) { (buffer) throws(CodecError) in try decodeBigUInt(buffer, at: &offset, maxBytes: maxBytes) }
    }

    public static func decodeBigInt(_ bytes: [UInt8], at offset: inout Int, maxBytes: Int) throws(CodecError) -> BigInt {
        try withBuffer(bytes) { (buffer) throws(CodecError) in try decodeBigInt(buffer, at: &offset, maxBytes: maxBytes) }
    }

    static func withBuffer<R>(_ bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) throws(CodecError) -> R) throws(CodecError) -> R {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) in try body(buffer) }
    }

    // MARK: Errors

    @usableFromInline static func truncated(at offset: Int) -> CodecError {
        CodecError(.malformed, format: "LEB128", "truncated value: input ends before the final byte", offset: offset)
    }

    @usableFromInline static func tooLong(at offset: Int, maxBytes: Int) -> CodecError {
        CodecError(.limitExceeded, format: "LEB128", "encoding longer than \(maxBytes) bytes", offset: offset)
    }

    @usableFromInline static func overflow(at offset: Int, bits: Int) -> CodecError {
        CodecError(.limitExceeded, format: "LEB128", "value does not fit in \(bits) bits", offset: offset)
    }
}
