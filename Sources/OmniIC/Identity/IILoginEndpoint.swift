import FoundationEssentials
import OmniCandid
import OmniCodec
import OmniSystem
import OmniTransport

/// A successful login: the verified session and what the answer said about itself.
public struct IILoginResult: Sendable {
    public let session: DelegatedSession
    /// `authnMethod` of the answer (`passkey`, `pin`, `recovery`, …), when given.
    public let authenticationMethod: String?
    /// The canister that signed the user's key, when it is a canister signature key (Internet Identity's canister).
    public let providerCanister: Principal?
    /// What the store callback said (where the identity went), for the page and the output.
    public let storedAs: String
}

/// How the login ended.
public enum IILoginOutcome: Sendable {
    case loggedIn(IILoginResult)
    /// The answer was malformed or failed verification; nothing was stored.
    case refused(ICError)
    /// The provider answered `authorize-client-failure` (the user cancelled, or the request was refused).
    case providerRefused(String)
    /// The answer verified but could not be stored.
    case notStored(ICError)
}

/// What happened along the way, for progress messages.
public enum IILoginEvent: Sendable {
    /// A browser fetched the page.
    case pageServed(remote: String)
    /// A request was refused without touching the login: a wrong or used token, a foreign Host or Origin, a body that
    /// is not an answer. `reason` is what the response said.
    case refused(status: Int, reason: String, remote: String)
    /// The page ignored `postMessage`s from other windows or origins than the provider's.
    case ignoredMessages(origins: [String])
}

/// The local end of a terminal login: serves the login page at `/` and takes the one answer at `POST /answer`.
///
/// Every request must name this server in `Host` (a page from elsewhere that rebinds a DNS name to 127.0.0.1 cannot
/// talk to it); the POST must be JSON, from this origin when the browser says one, and carry the state token. The
/// first POST with the token is the answer — it is verified completely (`IILoginAnswer.verifiedSession`) and only then
/// handed to `store`; a wrong token is answered 403 and changes nothing. The outcome is available through
/// `waitForOutcome`.
public final class IILoginEndpoint: @unchecked Sendable {
    /// Largest body accepted on `/answer`: 20 delegations of up to 1000 targets as hex fit.
    public static let maximumAnswerBytes = 4 << 20

    public let request: IILoginRequest
    /// `http://HOST:PORT`: the origin Internet Identity sees, and therefore the one the principal belongs to.
    public let pageOrigin: String
    private let hostHeader: String
    private let sessionKey: ICIdentity
    private let token: IILoginStateToken
    private let rootKey: ICRootKey
    private let clock: @Sendable () -> UInt64
    private let store: @Sendable (DelegatedSession) throws(ICError) -> String
    private let events: @Sendable (IILoginEvent) -> Void
    private let condition = Condition()
    private var outcome: IILoginOutcome?
    private var cancelled = false

    /// `listening` is the address the server is bound to (its real port). `store` saves the verified session and
    /// returns where it went ("identity alice"); it runs before the page learns the outcome.
    public init(request: IILoginRequest, sessionKey: ICIdentity, token: IILoginStateToken, listening: HostPort,
                rootKey: ICRootKey, clock: @escaping @Sendable () -> UInt64 = { IngressExpiry.currentTime() },
                store: @escaping @Sendable (DelegatedSession) throws(ICError) -> String,
                events: @escaping @Sendable (IILoginEvent) -> Void = { _ in }) {
        self.request = request
        self.sessionKey = sessionKey
        self.token = token
        self.rootKey = rootKey
        self.clock = clock
        self.store = store
        self.events = events
        hostHeader = listening.description.lowercased()
        pageOrigin = "http://" + hostHeader
    }

    /// The URL to open: the page, with the token in the fragment.
    public var pageURL: String { pageOrigin + "/#" + token.text }

    public func install(on server: HTTPServer) {
        server.route("GET", "/") { [self] request in handle(request) }
        server.route("POST", "/answer") { [self] request in handle(request) }
    }

    // MARK: - Requests

    public func handle(_ http: HTTPServerRequest) -> HTTPServerResponse {
        guard http.headers["Host"]?.lowercased() == hostHeader else {
            return refuse(http, status: 421, "this server answers only to \(hostHeader)")
        }
        switch (http.method, http.path) {
        case ("GET", "/"), ("HEAD", "/"):
            events(.pageServed(remote: http.remoteAddress))
            var response = HTTPServerResponse(status: 200, body: Array(IILoginPage.html(configuration: request.pageConfiguration,
                                                                                         origin: pageOrigin).utf8))
            response.headers.set("Content-Type", "text/html; charset=utf-8")
            for (name, value) in IILoginPage.headers { response.headers.set(name, value) }
            return response
        case ("POST", "/answer"):
            return answer(http)
        default:
            return refuse(http, status: 404, "not found")
        }
    }

    private func answer(_ http: HTTPServerRequest) -> HTTPServerResponse {
        if let origin = http.headers["Origin"], origin.lowercased() != pageOrigin {
            return refuse(http, status: 403, "answers are accepted from \(pageOrigin) only")
        }
        guard let type = http.headers["Content-Type"], type.lowercased().hasPrefix("application/json") else {
            return refuse(http, status: 415, "the answer must be application/json")
        }
        guard http.body.count <= IILoginEndpoint.maximumAnswerBytes else {
            return refuse(http, status: 413, "the answer is larger than \(IILoginEndpoint.maximumAnswerBytes) bytes")
        }
        let body: JSONValue
        do { body = try JSONValue.parse(http.body, limits: JSONLimits(maxDepth: 16, maxBytes: IILoginEndpoint.maximumAnswerBytes)) } catch {
            return refuse(http, status: 400, "the body is not JSON: \(error.summary)")
        }
        guard let presented = body["state"]?.stringValue else {
            return refuse(http, status: 403, "the state token is missing")
        }
        switch token.claim(presented) {
        case .wrong: return refuse(http, status: 403, "wrong state token: this is not the page omni opened")
        case .alreadyUsed: return refuse(http, status: 409, "this login already received its answer")
        case .accepted: break
        }
        if let origins = body["ignored_origins"]?.arrayValue, !origins.isEmpty {
            events(.ignoredMessages(origins: origins.prefix(16).map { String(($0.stringValue ?? "?").prefix(100)) }))
        }
        let result = conclude(body["answer"] ?? .null)
        finish(result)
        switch result {
        case .loggedIn(let login):
            return reply(200, ["ok": true, "principal": .string(login.session.principal.text),
                               "message": .string("Logged in as \(login.session.principal.text), stored as \(login.storedAs). "
                                   + "You can close this window.")])
        case .refused(let error):
            return reply(422, ["ok": false, "reason": .string(error.reason?.rawValue ?? error.kind.rawValue),
                               "message": .string("omni refused the answer: \(error.message)")])
        case .providerRefused(let text):
            return reply(422, ["ok": false, "reason": "provider_refused",
                               "message": .string("Internet Identity did not log you in: \(text)")])
        case .notStored(let error):
            return reply(500, ["ok": false, "reason": "storage", "message": .string("The session verified but was not stored: \(error.message)")])
        }
    }

    /// Verification, then storage: the outcome of the one accepted answer.
    private func conclude(_ json: JSONValue) -> IILoginOutcome {
        let session: DelegatedSession, method: String?
        do {
            switch try IILoginAnswer(json: json) {
            case .failure(let text):
                return .providerRefused(text.isEmpty ? "no reason given" : text)
            case .success(let chain, let authenticationMethod):
                session = try IILoginAnswer.verifiedSession(chain: chain, sessionKey: sessionKey, request: request, at: clock(),
                                                            rootKey: rootKey)
                method = authenticationMethod
            }
        } catch {
            return .refused(error)
        }
        let canister: Principal?
        if case .canisterSignature(let id, _)? = try? SenderPublicKey(der: session.chain.publicKey) { canister = id } else { canister = nil }
        if condition.withLock({ cancelled }) { return .refused(ICError(.configuration, "the login was cancelled before the answer arrived")) }
        do {
            let storedAs = try store(session)
            return .loggedIn(IILoginResult(session: session, authenticationMethod: method, providerCanister: canister, storedAs: storedAs))
        } catch {
            return .notStored(error)
        }
    }

    private func refuse(_ http: HTTPServerRequest, status: Int, _ reason: String) -> HTTPServerResponse {
        events(.refused(status: status, reason: reason, remote: http.remoteAddress))
        return reply(status, ["ok": false, "reason": "refused", "message": .string(reason)])
    }

    private func reply(_ status: Int, _ pairs: KeyValuePairs<String, JSONValue>) -> HTTPServerResponse {
        var response = HTTPServerResponse.json(JSONValue.object(pairs).serialized(), status: status)
        for (name, value) in IILoginPage.headers { response.headers.set(name, value) }
        return response
    }

    // MARK: - Waiting

    private func finish(_ result: IILoginOutcome) {
        condition.withLock {
            outcome = result
            condition.broadcast()
        }
    }

    /// Blocks until the answer has been handled, `cancel()` was called, or `deadline` passed (nil then).
    public func waitForOutcome(until deadline: Date) -> IILoginOutcome? {
        condition.lock()
        defer { condition.unlock() }
        while outcome == nil && !cancelled {
            if !condition.wait(until: deadline) { break }
        }
        return outcome
    }

    /// Ends the wait (Ctrl-C); an answer verified after this is not stored. The caller stops the server next.
    public func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }
}

