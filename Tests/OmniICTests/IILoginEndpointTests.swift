import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

/// The local end of a login: the page, and the one answer POST (token, Host, Origin, verification, then storage).
@Suite(.serialized, .offPool) struct IILoginEndpointTests {
    /// Records what the endpoint stored and reported.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var storedSessions: [DelegatedSession] = []
        private var seen: [IILoginEvent] = []
        var failStore: ICError?

        func store(_ session: DelegatedSession) throws(ICError) -> String {
            if let failStore { throw failStore }
            lock.withLock { storedSessions.append(session) }
            return "identity test"
        }
        func record(_ event: IILoginEvent) { lock.withLock { seen.append(event) } }
        var stored: [DelegatedSession] { lock.withLock { storedSessions } }
        var events: [IILoginEvent] { lock.withLock { seen } }
    }

    let ii: IIFixture
    let token = IILoginStateToken()
    let recorder = Recorder()
    let endpoint: IILoginEndpoint
    static let host = "127.0.0.1:53817"

    init() throws {
        ii = try IIFixture()
        let ii = self.ii, recorder = self.recorder
        endpoint = IILoginEndpoint(request: try ii.request(), sessionKey: ii.sessionKey, token: token,
                                   listening: HostPort(host: "127.0.0.1", port: 53817), rootKey: try ii.rootKey,
                                   clock: { ii.now }, store: { session throws(ICError) in try recorder.store(session) },
                                   events: { recorder.record($0) })
    }

    func post(_ body: JSONValue, headers: [(String, String)] = [("Content-Type", "application/json")],
              host: String = IILoginEndpointTests.host) -> (status: Int, json: JSONValue?) {
        var fields = HTTPHeaderFields([(name: "Host", value: host)])
        for (name, value) in headers { fields.add(name, value) }
        let response = endpoint.handle(HTTPServerRequest(method: "POST", target: "/answer", headers: fields,
                                                         body: Array(body.serialized().utf8), remoteAddress: "127.0.0.1:40000"))
        return (response.status, try? JSONValue.parse(response.body))
    }

    func answer(_ chain: DelegationChain? = nil, state: String? = nil) throws -> JSONValue {
        ["state": .string(state ?? token.text), "answer": ii.answerJSON(try chain ?? ii.chain())]
    }

    var noOutcomeYet: Bool { endpoint.waitForOutcome(until: Date(timeIntervalSinceNow: -1)) == nil }

    @Test func thePageCarriesTheRequestAndAStrictPolicy() throws {
        let response = endpoint.handle(HTTPServerRequest(method: "GET", target: "/", headers: ["Host": Self.host]))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        let html = String(decoding: response.body, as: UTF8.self)
        #expect(html.contains(Hex.encode(ii.sessionPublicKey)))
        #expect(html.contains("https://identity.ic0.app#authorize"))
        #expect(html.contains("http://127.0.0.1:53817"))
        #expect(!html.contains(token.text), "the token travels in the URL's fragment only")
        // The inline script and style are exactly what the policy's hashes allow.
        let policy = try #require(response.headers["Content-Security-Policy"])
        for (open, close) in [("<script>", "</script>"), ("<style>", "</style>")] {
            let start = try #require(html.range(of: open)).upperBound
            let end = try #require(html.range(of: close, range: start..<html.endIndex)).lowerBound
            let hash = "sha256-" + Base64.encode(SHA256.hash(Array(html[start..<end].utf8)))
            #expect(policy.contains("'\(hash)'"), "\(open) hash \(hash) not in \(policy)")
        }
        #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"))
        #expect(response.headers["Cache-Control"] == "no-store" && response.headers["Referrer-Policy"] == "no-referrer")
        if case .pageServed? = recorder.events.first {} else { Issue.record("no pageServed event: \(recorder.events)") }
    }

    @Test func configurationCannotCloseTheScriptElement() {
        let html = IILoginPage.html(configuration: ["x": "</script><script>alert(1)</script>"], origin: "http://127.0.0.1:1")
        #expect(!html.contains("</script><script>alert"))
        #expect(html.contains("\\u003c/script>"))
    }

    @Test func aForeignHostIsRefused() throws {
        let page = endpoint.handle(HTTPServerRequest(method: "GET", target: "/", headers: ["Host": "evil.example:53817"]))
        #expect(page.status == 421)
        #expect(post(try answer(), host: "localhost:53817").status == 421)
        #expect(!token.isUsed && recorder.stored.isEmpty)
    }

    /// A wrong token: 403, nothing stored, no outcome, and the real answer still works afterwards.
    @Test func aWrongTokenIsRefusedAndChangesNothing() throws {
        let wrong = IILoginStateToken().text
        let refused = post(try answer(state: wrong))
        #expect(refused.status == 403)
        #expect(refused.json?["message"]?.stringValue?.contains("wrong state token") == true)
        #expect(recorder.stored.isEmpty && noOutcomeYet && !token.isUsed)
        guard case .refused(403, let reason, "127.0.0.1:40000")? = recorder.events.last else {
            Issue.record("no refusal event: \(recorder.events)")
            return
        }
        #expect(reason.contains("wrong state token"))

        let accepted = post(try answer())
        #expect(accepted.status == 200)
        #expect(accepted.json?["principal"]?.stringValue == Principal.selfAuthenticating(publicKeyDER: ii.userKey).text)
        #expect(recorder.stored.count == 1)
        guard case .loggedIn(let result)? = endpoint.waitForOutcome(until: Date()) else {
            Issue.record("no login")
            return
        }
        #expect(result.session.principal == Principal.selfAuthenticating(publicKeyDER: ii.userKey))
        #expect(result.providerCanister == ii.canister && result.authenticationMethod == "passkey" && result.storedAs == "identity test")
    }

    /// The token works once: a replay of the same (valid) answer is refused and not stored again.
    @Test func theTokenWorksOnce() throws {
        #expect(post(try answer()).status == 200)
        let replay = post(try answer())
        #expect(replay.status == 409)
        #expect(recorder.stored.count == 1)
    }

    /// Requests that are not an answer are refused before the token is looked at, so they cannot use it up.
    @Test func malformedRequestsDoNotUseTheToken() throws {
        #expect(post(try answer(), headers: [("Content-Type", "application/json"), ("Origin", "https://evil.example")]).status == 403)
        #expect(post(try answer(), headers: [("Content-Type", "text/plain")]).status == 415)
        #expect(post(try answer(), headers: []).status == 415)
        #expect(post(["answer": ii.answerJSON(try ii.chain())]).status == 403)
        var fields = HTTPHeaderFields([(name: "Host", value: Self.host), (name: "Content-Type", value: "application/json")])
        fields.add("Origin", "http://127.0.0.1:53817")
        let notJSON = endpoint.handle(HTTPServerRequest(method: "POST", target: "/answer", headers: fields, body: Array("{\"state\":".utf8)))
        #expect(notJSON.status == 400)
        #expect(endpoint.handle(HTTPServerRequest(method: "GET", target: "/answer", headers: ["Host": Self.host])).status == 404)
        #expect(!token.isUsed && recorder.stored.isEmpty && noOutcomeYet)
        #expect(post(try answer(), headers: [("Content-Type", "application/json; charset=utf-8"), ("Origin", "http://127.0.0.1:53817")]).status == 200)
    }

    @Test func aRefusedAnswerEndsTheLoginWithItsReasonAndStoresNothing() throws {
        var chain = try ii.chain()
        chain.delegations[0].signature[chain.delegations[0].signature.count - 1] ^= 1
        let response = post(try answer(chain))
        #expect(response.status == 422)
        #expect(response.json?["ok"] == false)
        #expect(recorder.stored.isEmpty)
        guard case .refused(let error)? = endpoint.waitForOutcome(until: Date()) else {
            Issue.record("no refusal")
            return
        }
        #expect(error.kind == .verificationFailed && error.reason == .delegationChain, "\(error)")
        #expect(response.json?["reason"] == "delegation_chain")
        #expect(post(try answer()).status == 409, "the token was used by the refused answer")
        #expect(recorder.stored.isEmpty)
    }

    @Test func theProvidersFailureEndsTheLogin() throws {
        let response = post(["state": .string(token.text), "answer": ["kind": "authorize-client-failure", "text": "UserInterrupt"]])
        #expect(response.status == 422 && response.json?["reason"] == "provider_refused")
        guard case .providerRefused("UserInterrupt")? = endpoint.waitForOutcome(until: Date()) else {
            Issue.record("no provider refusal")
            return
        }
        #expect(recorder.stored.isEmpty)
    }

    @Test func aStorageFailureIsReported() throws {
        recorder.failStore = ICError(.storage, "disk full")
        let response = post(try answer())
        #expect(response.status == 500)
        guard case .notStored(let error)? = endpoint.waitForOutcome(until: Date()) else {
            Issue.record("no storage failure")
            return
        }
        #expect(error.message == "disk full")
    }

    @Test func ignoredMessagesAreReported() throws {
        var body = try answer()
        if case .object(var object) = body {
            object.append("ignored_origins", ["http://localhost:1", "https://evil.example"])
            body = .object(object)
        }
        #expect(post(body).status == 200)
        #expect(recorder.events.contains { event in
            if case .ignoredMessages(let origins) = event { return origins == ["http://localhost:1", "https://evil.example"] }
            return false
        })
    }

    /// After Ctrl-C the wait ends without an outcome, and an answer arriving then is not stored.
    @Test func cancellingStopsTheWaitAndStorage() throws {
        endpoint.cancel()
        #expect(endpoint.waitForOutcome(until: Date(timeIntervalSinceNow: 3600)) == nil)
        #expect(post(try answer()).status == 422)
        #expect(recorder.stored.isEmpty)
    }
}
