/// Strict UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) without
/// allocating, shared by the binary decoders (CBOR, Candid) and the TOML reader.
public enum UTF8Validation {
    /// Offset of the first byte that does not start or continue a valid UTF-8 sequence (RFC 3629), or the count
    /// when all is valid.
    public static func firstInvalidByte(_ units: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = units.baseAddress else { return 0 }
        var i = 0
        while i < units.count {
            // ASCII runs are checked eight bytes at a time.
            if i + 8 <= units.count,
               UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let lead = units[i]
            let length: Int
            var lowest: UInt8 = 0x80, highest: UInt8 = 0xBF
            switch lead {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowest = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; highest = 0x9F
            case 0xF0: length = 4; lowest = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; highest = 0x8F
            default: return i
            }
            guard i + length <= units.count else { return i }
            guard (lowest...highest).contains(units[i + 1]) else { return i }
            for k in 2..<max(2, length) where units[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return units.count
    }

    public static func isValid(_ units: UnsafeBufferPointer<UInt8>) -> Bool {
        firstInvalidByte(units) == units.count
    }
}

extension UTF8Validation {
    /// The one strict byte → text decoder: the bytes as a String, or an error at the first byte that does not start or
    /// continue a valid sequence (never a replacement character standing in for data).
    public static func string(_ bytes: [UInt8]) throws(CodecError) -> String {
        let invalid = bytes.withUnsafeBufferPointer { firstInvalidByte($0) }
        guard invalid == bytes.count else {
            let hex = String(bytes[invalid], radix: 16)
            throw CodecError(.malformed, format: "UTF-8", "invalid UTF-8 (0x\(hex.count == 1 ? "0" + hex : hex))",
                             offset: invalid)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
