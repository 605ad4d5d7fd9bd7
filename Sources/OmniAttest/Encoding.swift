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
