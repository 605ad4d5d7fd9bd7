import OmniCandid
import OmniCodec
import OmniTransport

extension WebOrigin {
    /// `WebOrigin(parsingOrigin:)` with IC's error type (`--derivation-origin`).
    public init(parsing text: String) throws(ICError) {
        do { self = try WebOrigin(parsingOrigin: text) } catch { throw ICError(.invalidArgument, error.message) }
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
        let origin: WebOrigin, rest: String
        do { (origin, rest) = try WebOrigin.split(text, what: "identity provider URL") } catch { throw ICError(.invalidArgument, error.message) }
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
