/// Base 16 (RFC 4648 §8). Output is lowercase; input may be either case.
public enum Hex {
    private static let lowerDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    public static func encode(_ bytes: some Collection<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for byte in bytes {
                out[i] = digits[Int(byte >> 4)]
                out[i + 1] = digits[Int(byte & 0x0F)]
                i += 2
            }
            return i
        }
    }

    /// Decodes hex digits. `allowPrefix` accepts (and skips) a leading `0x`/`0X`; otherwise it is an error.
    /// Errors give the offset of the offending character.
    public static func decode(_ text: some StringProtocol, allowPrefix: Bool = false) throws(CodecError) -> [UInt8] {
        let result = text.utf8.withContiguousStorageIfAvailable { buffer in decode(utf8: buffer, allowPrefix: allowPrefix) }
            ?? Array(text.utf8).withUnsafeBufferPointer { decode(utf8: $0, allowPrefix: allowPrefix) }
        return try result.get()
    }

    /// Decodes hex digits given as UTF-8/ASCII bytes.
    public static func decode(utf8 bytes: [UInt8], allowPrefix: Bool = false) throws(CodecError) -> [UInt8] {
        try bytes.withUnsafeBufferPointer { decode(utf8: $0, allowPrefix: allowPrefix) }.get()
    }

    /// The value of one hex digit, or 0xFF.
    static let digitValues: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in lowerDigits.enumerated() { table[Int(c)] = UInt8(i) }
        for (i, c) in upperDigits.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    private static func decode(utf8 input: UnsafeBufferPointer<UInt8>, allowPrefix: Bool) -> Result<[UInt8], CodecError> {
        var start = 0
        if allowPrefix, input.count >= 2, input[0] == UInt8(ascii: "0"), input[1] | 0x20 == UInt8(ascii: "x") {
            start = 2
        }
        let digitCount = input.count - start
        let table = digitValues
        var failure: CodecError?
        let output = [UInt8](unsafeUninitializedCapacity: digitCount / 2) { out, initialized in
            var i = start
            var o = 0
            while i + 1 < input.count {
                let high = table[Int(input[i])], low = table[Int(input[i + 1])]
                if (high | low) > 0x0F {
                    failure = badDigit(input, at: high > 0x0F ? i : i + 1)
                    break
                }
                out[o] = high << 4 | low
                o += 1
                i += 2
            }
            initialized = o
        }
        if let failure { return .failure(failure) }
        if digitCount % 2 != 0 {
            let last = input.count - 1
            if digitValues[Int(input[last])] == 0xFF { return .failure(badDigit(input, at: last)) }
            return .failure(CodecError(.malformed, format: "hex", "odd number of hex digits (\(digitCount))", offset: last))
        }
        return .success(output)
    }

    private static func badDigit(_ input: UnsafeBufferPointer<UInt8>, at offset: Int) -> CodecError {
        CodecError(.malformed, format: "hex", "invalid hex digit \(describeASCII(input[offset]))", offset: offset)
    }
}

/// `'c'` for printable ASCII, `0xNN` otherwise; used in error messages of the text codecs.
func describeASCII(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
}
