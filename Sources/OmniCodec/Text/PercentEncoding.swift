/// RFC 3986 percent-encoding for URL components: one home for the Connect URI fields, the TrUAPI host page's
/// `url=` parameter and ird's path and query parameters (a value can never add a path segment, a query parameter or
/// a fragment). `+` is a plus sign, not a space (that is HTML form encoding, not URLs).
public enum PercentEncoding {
    /// Escapes everything except RFC 3986 unreserved characters (what `encodeURIComponent` does, minus `!'()*`).
    public static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + Hex.encode([byte], uppercase: true)
            }
        }
        return out
    }

    /// `name=value&…` with both sides encoded, in the order given.
    public static func query(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// The bytes `text` stands for; nil when a `%` is not followed by two hex digits.
    public static func decodeBytes(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let byte = try? Hex.decode(utf8: [utf8[index + 1], utf8[index + 2]]).first else { return nil }
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return bytes
    }

    /// `decodeBytes` read as UTF-8; nil for a broken escape or bytes that are not UTF-8.
    public static func decode(_ text: some StringProtocol) -> String? {
        decodeBytes(text).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
