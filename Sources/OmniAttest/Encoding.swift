import OmniCodec

/// Decoding of the base64 values apps and servers pass around (key ids, challenges, objects): either alphabet,
/// padding optional, line breaks allowed (files often wrap base64).
public enum AttestBase64 {
    /// Standard or URL-safe base64; nil when the text is neither.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if let bytes = try? Base64.decode(trimmed, alphabet: .standard, padding: .optional, allowWhitespace: true, strict: false) {
            return bytes
        }
        return try? Base64.decode(trimmed, alphabet: .urlSafe, padding: .optional, allowWhitespace: true, strict: false)
    }

    /// Like `decode`, but an unusable value is an `AttestError` naming it.
    public static func argument(_ text: some StringProtocol, _ name: String) throws(AttestError) -> [UInt8] {
        guard let bytes = decode(text) else {
            throw AttestError.invalidArgument("\(name) is not base64 (standard or URL-safe)")
        }
        return bytes
    }

    public static func encode(_ bytes: some Collection<UInt8>) -> String { Base64.encode(bytes) }
    public static func encodeURL(_ bytes: some Collection<UInt8>) -> String { Base64.encode(bytes, alphabet: .urlSafe, padded: false) }
}

/// A bounded reader of definite-length DER TLVs with one-byte tags, for the two small structures App Attest needs
/// outside X.509: the receipt payload and its fields. Never recursive; every length is checked against what remains.
struct DERScanner {
    private let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int

    init(_ bytes: [UInt8]) {
        self.init(bytes, range: 0..<bytes.count)
    }

    private init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { offset >= end }

    /// Reads one element; returns its tag and a scanner over its content.
    mutating func read() -> (tag: UInt8, content: DERScanner)? {
        guard offset < end, end - offset >= 2 else { return nil }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { return nil }  // multi-byte tags do not occur here
        var cursor = offset + 1
        let first = bytes[cursor]
        cursor += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 3, end - cursor >= count else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[cursor])
                cursor += 1
            }
        }
        guard length <= end - cursor else { return nil }
        offset = cursor + length
        return (tag, DERScanner(bytes, range: cursor..<(cursor + length)))
    }

    /// The content bytes.
    var contentBytes: [UInt8] { Array(bytes[offset..<end]) }

    /// The content as a non-negative INTEGER of at most 8 bytes.
    var unsignedValue: UInt64? {
        let content = bytes[offset..<end]
        guard !content.isEmpty, content.count <= 9, (content.first ?? 0) & 0x80 == 0 else { return nil }
        var value: UInt64 = 0
        for byte in content {
            guard value >> 56 == 0 else { return nil }
            value = value << 8 | UInt64(byte)
        }
        return value
    }
}
