/// Receives HTTP traffic one line at a time, already redacted: `> ` request lines and headers, `< ` response
/// status and headers, `* ` libcurl's connection notes. Bodies are never logged. Called on the client's transfer
/// thread, so it must be quick and must not call back into the same `HTTPClient` synchronously.
public typealias HTTPLogger = @Sendable (String) -> Void

/// Removes secrets from log lines: values of credential-bearing headers (Authorization, cookies, anything named
/// like a token, secret, password, API key or session), URL user-info, and credential-like query parameters.
enum HTTPLogRedaction {
    static let placeholder = "[REDACTED]"

    private static let sensitiveNameFragments = [
        "auth", "cookie", "token", "secret", "passw", "api-key", "apikey", "api_key", "session", "signature",
    ]
    /// Query parameters additionally hide OAuth-style codes, keys and signatures (`device_code`, `key`, `sig`).
    private static let sensitiveQueryFragments = sensitiveNameFragments + ["code", "key", "sig"]

    static func isSensitiveHeader<S: StringProtocol>(_ name: S) -> Bool {
        let lowered = name.lowercased()
        // WWW-Authenticate / Proxy-Authenticate carry challenges, not credentials, and help debugging a 401.
        if lowered.hasSuffix("authenticate") { return false }
        return sensitiveNameFragments.contains { lowered.contains($0) }
    }

    static func isSensitiveQueryParameter<S: StringProtocol>(_ name: S) -> Bool {
        let lowered = name.lowercased()
        return sensitiveQueryFragments.contains { lowered.contains($0) }
    }

    /// Redacts one line of HTTP traffic or libcurl commentary (without its prefix or line ending).
    static func redact(line: String) -> String {
        if let headerLine = redactHeader(line[...]) { return headerLine }
        return redactBracketedHeaders(in: redactURLs(in: line))
    }

    /// `Name: value` → `Name: [REDACTED]` when the name is sensitive; nil when `line` is not a header field.
    private static func redactHeader(_ line: Substring) -> String? {
        // Bytes, not Characters: `Authorization:` followed by a combining mark is one grapheme, and a Character
        // search for ":" would miss it and log the credential.
        let bytes = line.utf8
        guard let colon = bytes.firstIndex(of: 0x3A), colon > bytes.startIndex,
              !bytes[..<colon].contains(where: { $0 == 0x20 || $0 == 0x09 })
        else { return nil }
        let name = Substring(bytes[..<colon])
        if isSensitiveHeader(name) { return "\(name): \(placeholder)" }
        // A Location or Link value can itself carry a credential in its URL.
        return String(name) + ":" + redactURLs(in: String(Substring(bytes[bytes.index(after: colon)...])))
    }

    /// libcurl's notes can quote header fields in brackets (HTTP/2: `h2h3 [authorization: Bearer …]`).
    private static func redactBracketedHeaders(in line: String) -> String {
        let bytes = Array(line.utf8)
        var result: [UInt8] = []
        var rest = bytes.startIndex
        while let open = bytes[rest...].firstIndex(of: 0x5B), let close = bytes[open...].firstIndex(of: 0x5D) {
            result += bytes[rest...open]
            let inner = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
            result += (redactHeader(inner[...]) ?? inner).utf8
            rest = close
        }
        return String(decoding: result + bytes[rest...], as: UTF8.self)
    }

    /// Redacts user-info and credential-like query parameters in every URL-looking word of `text`. Works on
    /// bytes: every delimiter is ASCII, and a combining mark after one must not hide it.
    static func redactURLs(in text: String) -> String {
        guard text.utf8.contains(0x3F) || text.utf8.contains(0x40) else { return text }
        let words = Array(text.utf8).split(separator: 0x20, omittingEmptySubsequences: false).map { redactURLWord(Array($0)) }
        return String(decoding: Array(words.joined(separator: [0x20])), as: UTF8.self)
    }

    private static let authorityEnds = Set("/?#'\"]>".utf8)
    private static let queryEnds = Set("#'\"]>".utf8)

    private static func redactURLWord(_ word: [UInt8]) -> [UInt8] {
        var result = word
        let separator = Array("://".utf8)
        if let schemeEnd = result.indices.first(where: { result[$0...].starts(with: separator) }).map({ $0 + separator.count }) {
            let authorityEnd = result[schemeEnd...].firstIndex { authorityEnds.contains($0) } ?? result.endIndex
            if let at = result[schemeEnd..<authorityEnd].lastIndex(of: 0x40) {
                result.replaceSubrange(schemeEnd..<at, with: placeholder.utf8)
            }
        }
        guard let questionMark = result.firstIndex(of: 0x3F) else { return result }
        let queryStart = questionMark + 1
        let queryEnd = result[queryStart...].firstIndex { queryEnds.contains($0) } ?? result.endIndex
        let query = result[queryStart..<queryEnd].split(separator: 0x26, omittingEmptySubsequences: false)
            .map { pair -> [UInt8] in
                guard let equals = pair.firstIndex(of: 0x3D) else { return Array(pair) }
                let name = String(decoding: pair[..<equals], as: UTF8.self)
                return isSensitiveQueryParameter(name) ? Array(pair[...equals]) + placeholder.utf8 : Array(pair)
            }
            .joined(separator: [0x26])
        result.replaceSubrange(queryStart..<queryEnd, with: Array(query))
        return result
    }
}
