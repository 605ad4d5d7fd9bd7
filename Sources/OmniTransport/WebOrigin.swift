/// A web origin as browsers compare them in `postMessage` (`event.origin`): scheme, host and port —
/// `https://identity.ic0.app`, `http://127.0.0.1:53817`. The host is lowercased and a default port (80 for http, 443
/// for https) is dropped, as a browser serialises an origin. Internet Identity derives principals from it; the TrUAPI
/// host page pins its product frame to it.
public struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    /// Lowercase host name, IPv4 literal, or IPv6 literal in brackets.
    public let host: String
    /// Nil for the scheme's default port.
    public let port: UInt16?

    /// Longest URL text accepted (this bounds what a page embeds).
    public static let maximumLength = 2048

    public init(scheme: String, host: String, port: UInt16?) {
        self.scheme = scheme
        self.host = host
        let defaultPort: UInt16 = scheme == "https" ? 443 : 80
        self.port = port == defaultPort ? nil : port
    }

    /// Parses an origin alone (e.g. `--derivation-origin`): `https://HOST[:PORT]`, at most a trailing `/` after it.
    public init(parsingOrigin text: String) throws(TransportError) {
        let (origin, rest) = try WebOrigin.split(text, what: "origin")
        guard rest.isEmpty || rest == "/" else {
            throw TransportError(.invalidURL, "origin \(WebOrigin.quoted(text)) has a path, query or fragment; an origin is scheme://host[:port]")
        }
        self = origin
    }

    /// `scheme://host[:port]`, exactly as a browser reports `event.origin`.
    public var description: String { scheme + "://" + host + (port.map { ":\($0)" } ?? "") }

    /// 127.0.0.0/8, `localhost` or `[::1]`: where plain http is acceptable (a local identity provider or replica).
    public var isLoopback: Bool {
        if host == "localhost" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy { (0x30...0x39).contains($0) } && Int(part)! <= 255
        }
    }

    /// Splits `scheme://authority` from the rest (path, query, fragment). Only http and https, no user info, a host
    /// of letters, digits, '-' and '.' (or a bracketed IPv6 literal), a decimal port 1…65535, printable ASCII
    /// without quotes, angle brackets, backslash or backtick anywhere (the text is embedded in a page).
    public static func split(_ text: String, what: String) throws(TransportError) -> (WebOrigin, rest: String) {
        func refuse(_ problem: String) -> TransportError {
            TransportError(.invalidURL, "\(what) \(quoted(text)) \(problem)")
        }
        guard !text.isEmpty else { throw refuse("is empty") }
        guard text.utf8.count <= maximumLength else { throw refuse("is longer than \(maximumLength) characters") }
        let forbidden: Set<UInt8> = Set("\"'<>\\`^{}|".utf8)
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }) else {
            throw refuse("has a space, a control character, a non-ASCII character or one of \" ' < > \\ ` ^ { } | (percent-encode them)")
        }
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else {
            throw refuse("does not start with https:// or http://")
        }
        let afterScheme = text.dropFirst(scheme.count + 3)
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd].lowercased()
        let rest = String(afterScheme[authorityEnd...])
        guard !authority.contains("@") else { throw refuse("has user information (user@host); give the host alone") }
        var host = Substring(authority), portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("has an IPv6 address without its closing ']'") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("has something other than :PORT after the IPv6 address") }
                portText = after.dropFirst()
            }
            let inside = host.dropFirst().dropLast()
            guard inside.contains(":"), inside.utf8.allSatisfy({ $0.isHexDigit || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                throw refuse("has \(quoted(String(host))) in brackets, which is not an IPv6 address")
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            }
            guard !host.isEmpty else { throw refuse("has no host") }
            guard host.utf8.allSatisfy({ $0.isHostNameCharacter }), !host.hasPrefix("."), !host.hasPrefix("-") else {
                throw refuse("has the host \(quoted(String(host))), which is not a host name (letters, digits, '-' and '.')")
            }
        }
        var port: UInt16?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let value = UInt16(portText), value > 0 else {
                throw refuse("has the port \(quoted(String(portText))), not a number from 1 to 65535")
            }
            port = value
        }
        return (WebOrigin(scheme: scheme, host: String(host), port: port), rest)
    }

    /// At most 60 characters of what the user gave, in quotes, control characters as '?'.
    public static func quoted(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(60).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        return "\"" + shown + (text.unicodeScalars.count > 60 ? "…" : "") + "\""
    }
}

private extension UInt8 {
    var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
    var isHostNameCharacter: Bool {
        (0x30...0x39).contains(self) || (0x61...0x7A).contains(self) || (0x41...0x5A).contains(self)
            || self == UInt8(ascii: "-") || self == UInt8(ascii: ".")
    }
}
