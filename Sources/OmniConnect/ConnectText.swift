/// The text forms Connect uses: lowercase hex, and base64url without padding in its one canonical spelling
/// (sids, keys, nonces and tokens; a decoder that accepted two spellings of one sid would let a URI be
/// substituted without changing its meaning).
public enum ConnectText {
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var text = [UInt8]()
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Hex in either case, optionally `0x`-prefixed, optionally of an exact byte length.
    public static func parseHex(_ text: String, byteCount: Int? = nil, what: String) throws(ConnectError) -> [UInt8] {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let utf8 = Array(digits.utf8)
        guard utf8.count % 2 == 0 else { throw ConnectError(.malformed, "\(what): odd number of hex digits (\(utf8.count))") }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else {
                throw ConnectError(.malformed, "\(what): not hex at character \(index + 1)")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        if let byteCount, bytes.count != byteCount {
            throw ConnectError(.malformed, "\(what): expected \(byteCount) bytes, got \(bytes.count)")
        }
        return bytes
    }

    static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// base64url without padding (RFC 4648 §5).
    public static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { out.append(base64URLAlphabet[Int(chunk >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            var chunk = UInt32(input[index]) << 16
            if rest == 2 { chunk |= UInt32(input[index + 1]) << 8 }
            let symbols = rest == 1 ? [18, 12] : [18, 12, 6]
            for shift in symbols { out.append(base64URLAlphabet[Int(chunk >> UInt32(shift) & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url and requires the canonical spelling (re-encoding gives the same text, so the
    /// unused low bits of the last symbol are zero), optionally of an exact byte length.
    public static func parseBase64URL(_ text: String, byteCount: Int? = nil, what: String) throws(ConnectError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 != 1 else { throw ConnectError(.malformed, "\(what): \(utf8.count) characters is not a base64url length") }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (position, symbol) in utf8.enumerated() {
            guard let value = base64URLValue(symbol) else {
                let reason = symbol == UInt8(ascii: "=") ? "padding is not allowed" : "not base64url"
                throw ConnectError(.malformed, "\(what): \(reason) at character \(position + 1)")
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { throw ConnectError(.malformed, "\(what): non-canonical base64url (trailing bits set)") }
        if let byteCount, bytes.count != byteCount {
            throw ConnectError(.malformed, "\(what): expected \(byteCount) bytes, got \(bytes.count)")
        }
        return bytes
    }

    private static func base64URLValue(_ symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): symbol - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): symbol - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): symbol - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }

    /// Bytes given as 64/32-digit hex or as base64url (keys, nonces and sids are accepted in either form).
    public static func parseBytes(_ text: String, byteCount: Int, what: String) throws(ConnectError) -> [UInt8] {
        let trimmed = text.trimmingSpaces
        if trimmed.utf8.count == byteCount * 2 || trimmed.hasPrefix("0x"), let bytes = try? parseHex(trimmed, byteCount: byteCount, what: what) {
            return bytes
        }
        return try parseBase64URL(trimmed, byteCount: byteCount, what: what)
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
