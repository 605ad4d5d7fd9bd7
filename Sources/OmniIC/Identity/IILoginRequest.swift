import OmniCandid
import OmniCodec

/// A web origin as browsers compare them in `postMessage` (`event.origin`) and Internet Identity derives principals
/// from: scheme, host and port — `https://identity.ic0.app`, `http://127.0.0.1:53817`. The host is lowercased and a
/// default port (80 for http, 443 for https) is dropped, as a browser serialises an origin.
public struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    /// Lowercase host name, IPv4 literal, or IPv6 literal in brackets.
    public let host: String
    /// Nil for the scheme's default port.
    public let port: UInt16?

    /// Longest URL text accepted (identity provider URLs are short; this bounds what the page embeds).
    static let maximumLength = 2048

    public init(scheme: String, host: String, port: UInt16?) {
        self.scheme = scheme
        self.host = host
        let defaultPort: UInt16 = scheme == "https" ? 443 : 80
        self.port = port == defaultPort ? nil : port
    }

    /// Parses an origin alone (`--derivation-origin`): `https://HOST[:PORT]`, at most a trailing `/` after it.
    public init(parsing text: String) throws(ICError) {
        let (origin, rest) = try WebOrigin.split(text, what: "origin")
        guard rest.isEmpty || rest == "/" else {
            throw ICError(.invalidArgument, "origin \(WebOrigin.quoted(text)) has a path, query or fragment; an origin is scheme://host[:port]")
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
    static func split(_ text: String, what: String) throws(ICError) -> (WebOrigin, rest: String) {
        func refuse(_ problem: String) -> ICError {
            ICError(.invalidArgument, "\(what) \(quoted(text)) \(problem)")
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
    static func quoted(_ text: String) -> String {
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

/// The identity provider's page (`--ii-url`): `https://identity.ic0.app`, or a local Internet Identity such as
/// `http://127.0.0.1:4943/?canisterId=…`. The login window opens it with `#authorize` appended; answers are
/// accepted only from its origin. Plain http is refused except on loopback, where no one else can intercept it.
public struct IdentityProviderURL: Sendable, Equatable, CustomStringConvertible {
    public static let mainnet = IdentityProviderURL(uncheckedText: "https://identity.ic0.app",
                                                    origin: WebOrigin(scheme: "https", host: "identity.ic0.app", port: nil))

    /// The URL as given (without a fragment).
    public let text: String
    /// Where answers must come from.
    public let origin: WebOrigin

    private init(uncheckedText text: String, origin: WebOrigin) {
        self.text = text
        self.origin = origin
    }

    public init(parsing text: String) throws(ICError) {
        let (origin, rest) = try WebOrigin.split(text, what: "identity provider URL")
        guard !rest.contains("#") else {
            throw ICError(.invalidArgument, "identity provider URL \(WebOrigin.quoted(text)) has a fragment (#…); give it without one, omni appends #authorize")
        }
        guard origin.scheme == "https" || origin.isLoopback else {
            throw ICError(.invalidArgument, "identity provider URL \(WebOrigin.quoted(text)) uses plain http on a host other than 127.0.0.1, localhost or [::1]; use https")
        }
        self.init(uncheckedText: text, origin: origin)
    }

    /// The page the login window opens: the URL with the client authentication fragment.
    public var authorizeURL: String { text + "#authorize" }

    public var description: String { text }
}

/// What a terminal login asks of Internet Identity: the `authorize-client` message's contents (Internet Identity
/// specification, client authentication protocol) and the provider to ask. The answer must match it exactly
/// (`IILoginAnswer.verifiedSession`): a chain ending in `sessionPublicKey`, expiring no later than `timeToLive` from
/// when it arrives, restricted to `targets` exactly (none unless asked).
public struct IILoginRequest: Sendable {
    /// 8 hours, as agent-js and Internet Identity default to.
    public static let defaultTimeToLive = DelegatedSession.defaultLifetime
    /// 30 days, Internet Identity's maximum.
    public static let maximumTimeToLive = DelegatedSession.maxLifetime
    /// How much later than asked an answer may expire: the provider computes the expiry when the user has signed in
    /// (minutes after the request), on its own clock.
    public static let expiryAllowance: UInt64 = 10 * 60 * 1_000_000_000

    public let provider: IdentityProviderURL
    /// DER of the session key the chain must end in.
    public let sessionPublicKey: [UInt8]
    /// `maxTimeToLive`, nanoseconds.
    public let timeToLive: UInt64
    /// `derivationOrigin`: the origin Internet Identity derives the principal for instead of the page's own.
    public let derivationOrigin: WebOrigin?
    /// The canisters the session may call; nil asks for an unscoped session.
    public let targets: [Principal]?

    public init(provider: IdentityProviderURL, sessionPublicKey: [UInt8], timeToLive: UInt64 = defaultTimeToLive,
                derivationOrigin: WebOrigin? = nil, targets: [Principal]? = nil) throws(ICError) {
        guard timeToLive > 0, timeToLive <= IILoginRequest.maximumTimeToLive else {
            throw ICError(.invalidArgument, "a login session lives between 1 ns and 30 days; \(Freshness.describe(timeToLive)) was asked")
        }
        if let targets {
            guard !targets.isEmpty else { throw ICError(.invalidArgument, "a scoped login needs at least one target canister") }
            guard targets.count <= Delegation.maxTargets else {
                throw ICError(.invalidArgument, "at most \(Delegation.maxTargets) target canisters, got \(targets.count)")
            }
        }
        self.provider = provider
        self.sessionPublicKey = sessionPublicKey
        self.timeToLive = timeToLive
        self.derivationOrigin = derivationOrigin
        self.targets = targets.map { list in
            var seen: Set<Principal> = []
            return list.filter { seen.insert($0).inserted }
        }
    }

    /// What the login page needs to run the exchange: where to open and whom to trust, and the fields of the
    /// `authorize-client` message (bytes as hex, `maxTimeToLive` as decimal text: the page makes a Uint8Array and a
    /// BigInt of them; targets as principal text).
    public var pageConfiguration: JSONValue {
        var object = JSONObject()
        object.append("provider_url", .string(provider.authorizeURL))
        object.append("provider_origin", .string(provider.origin.description))
        object.append("session_public_key", .string(Hex.encode(sessionPublicKey)))
        object.append("max_time_to_live", .string(String(timeToLive)))
        object.append("derivation_origin", derivationOrigin.map { .string($0.description) } ?? .null)
        object.append("targets", targets.map { .array($0.map { .string($0.text) }) } ?? .null)
        return .object(object)
    }
}
