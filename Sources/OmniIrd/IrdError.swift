import OmniCodec

/// The one error type of OmniIrd: the OpenAPI document, requests built from it, and the service's answers.
///
/// `kind` decides the exit code (the CLI maps it in one place); `location` says where in a document or a body the
/// problem is (`$.paths./domains.get`, `$.records[2].ttl`), with a line and column when the text is known.
public struct IrdError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// No OpenAPI document is cached or given: nothing can be built from it.
        case noDocument = "no_document"
        /// The OpenAPI document is not JSON, breaks a reader limit, or is not a usable OpenAPI 3.0/3.1 document.
        case invalidDocument = "invalid_document"
        /// A parameter given on the command line does not fit the document (type, enum, missing, unknown).
        case invalidParameter = "invalid_parameter"
        /// The request body does not fit the operation's schema; nothing was sent.
        case invalidBody = "invalid_body"
        /// The answer does not fit the document (status, content type, schema): it is not printed.
        case invalidResponse = "invalid_response"
        /// Local setup: no base URL, no credential where one is needed, a credential on argv, a bad session file.
        case configuration
        /// 401/403: the credential is missing, wrong, or not allowed to do this.
        case unauthorized
        /// The operation needs an account session; an API key is refused for it (`sensitive-domain-api-key-blocked`).
        case accountSessionRequired = "account_session_required"
        /// A fresh authenticator code is required (`totp-required`) or the one given was wrong (`invalid-totp`).
        case totpRequired = "totp_required"
        case invalidTotp = "invalid_totp"
        /// 402: the account has too few credits.
        case insufficientCredits = "insufficient_credits"
        /// 429: too many requests; `retryAfter` says how long to wait when the service said.
        case rateLimited = "rate_limited"
        /// 404.
        case notFound = "not_found"
        /// Any other 4xx: the service refused the request.
        case rejected
        /// 5xx: the service failed; the request itself may be fine.
        case serviceError = "service_error"
        /// A poll loop's deadline passed before the work reached a final state.
        case timedOut = "timed_out"
        /// The domain gate refused a mutation before anything was sent.
        case domainGateRefused = "domain_gate_refused"
    }

    public let kind: Kind
    public let message: String
    public let location: String?
    public let line: Int?
    public let column: Int?
    /// The HTTP status of a remote failure.
    public let status: Int?
    /// The service's own error code (`totp-required`, `insufficient-credits`, …), when its answer had one.
    public let code: String?
    /// The `Retry-After` header of a 429, as sent.
    public let retryAfter: String?
    /// The operation (`POST /tunnels`) a remote failure answered.
    public let operation: String?

    public init(_ kind: Kind, _ message: String, location: String? = nil, line: Int? = nil, column: Int? = nil,
                status: Int? = nil, code: String? = nil, retryAfter: String? = nil, operation: String? = nil) {
        self.kind = kind
        self.message = message
        self.location = location
        self.line = line
        self.column = column
        self.status = status
        self.code = code
        self.retryAfter = retryAfter
        self.operation = operation
    }

    public var description: String {
        let place = InputLocation(line: line, column: column, path: location).description
        var text = message
        if !place.isEmpty { text += " (\(place))" }
        return text
    }

    static func codec(_ error: CodecError, what: String) -> IrdError {
        let kind: Kind = what == "OpenAPI document" ? .invalidDocument : .invalidResponse
        return IrdError(kind, "\(what): \(error.summary)", location: error.path, line: error.line, column: error.column)
    }
}
