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
        guard let colon = line.firstIndex(of: ":"), colon > line.startIndex,
              !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
        else { return nil }
        let name = line[..<colon]
        if isSensitiveHeader(name) { return "\(name): \(placeholder)" }
        // A Location or Link value can itself carry a credential in its URL.
        return String(name) + ":" + redactURLs(in: String(line[line.index(after: colon)...]))
    }

    /// libcurl's notes can quote header fields in brackets (HTTP/2: `h2h3 [authorization: Bearer …]`).
    private static func redactBracketedHeaders(in line: String) -> String {
        var result = ""
        var rest = line[...]
        while let open = rest.firstIndex(of: "["), let close = rest[open...].firstIndex(of: "]") {
            result += rest[...open]
            let inner = rest[rest.index(after: open)..<close]
            result += redactHeader(inner) ?? String(inner)
            rest = rest[close...]
        }
        return result + rest
    }

    /// Redacts user-info and credential-like query parameters in every URL-looking word of `text`.
    static func redactURLs(in text: String) -> String {
        guard text.contains("?") || text.contains("@") else { return text }
        return text.split(separator: " ", omittingEmptySubsequences: false)
            .map { redactURLWord(String($0)) }
            .joined(separator: " ")
    }

    private static func redactURLWord(_ word: String) -> String {
        var result = word
        if let schemeEnd = result.firstRange(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = result[authorityStart...].firstIndex { "/?#'\"]>".contains($0) } ?? result.endIndex
            if let at = result[authorityStart..<authorityEnd].lastIndex(of: "@") {
                result.replaceSubrange(authorityStart..<at, with: placeholder)
            }
        }
        guard let questionMark = result.firstIndex(of: "?") else { return result }
        let queryStart = result.index(after: questionMark)
        let queryEnd = result[queryStart...].firstIndex { "#'\"]>".contains($0) } ?? result.endIndex
        let query = result[queryStart..<queryEnd].split(separator: "&", omittingEmptySubsequences: false)
            .map { pair -> String in
                guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
                let name = pair[..<equals]
                return isSensitiveQueryParameter(name) ? "\(name)=\(placeholder)" : String(pair)
            }
            .joined(separator: "&")
        result.replaceSubrange(queryStart..<queryEnd, with: query)
        return result
    }
}
