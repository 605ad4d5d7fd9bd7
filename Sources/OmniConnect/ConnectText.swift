import OmniCodec
/// The text forms Connect uses: lowercase hex, and base64url without padding in its one canonical spelling
/// (sids, keys, nonces and tokens; a decoder that accepted two spellings of one sid would let a URI be
/// substituted without changing its meaning).
public enum ConnectText {
    public static func hex(_ bytes: some Sequence<UInt8>) -> String { Hex.encode(Array(bytes)) }

    /// Hex in either case, optionally `0x`-prefixed, optionally of an exact byte length.
    public static func parseHex(_ text: String, byteCount: Int? = nil, what: String) throws(ConnectError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try Hex.decode(text, allowPrefix: true)
        } catch {
            throw ConnectError.malformed(error, what)
        }
        try check(bytes, byteCount: byteCount, what: what)
        return bytes
    }

    /// base64url without padding (RFC 4648 §5).
    public static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        Base64.encode(bytes, alphabet: .urlSafe, padded: false)
    }

    /// Decodes unpadded base64url and requires the canonical spelling (the unused low bits of the last symbol are
    /// zero), optionally of an exact byte length.
    public static func parseBase64URL(_ text: String, byteCount: Int? = nil, what: String) throws(ConnectError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try Base64.decode(text, alphabet: .urlSafe, padding: .forbidden, strict: true)
        } catch {
            throw ConnectError.malformed(error, what)
        }
        try check(bytes, byteCount: byteCount, what: what)
        return bytes
    }

    private static func check(_ bytes: [UInt8], byteCount: Int?, what: String) throws(ConnectError) {
        if let byteCount, bytes.count != byteCount {
            throw ConnectError(.malformed, "\(what): expected \(byteCount) bytes, got \(bytes.count)")
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
