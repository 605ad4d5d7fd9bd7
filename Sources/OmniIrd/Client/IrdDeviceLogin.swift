import OmniCodec
import OmniSystem
import OmniTransport

/// Device login, its three operations found from what the document says about them (all anonymous POSTs): the
/// start answers `device_code` and `user_code`; the poll takes a `device_code` only; the completion takes the
/// `device_code` and a `confirmation_code` and answers an `access_token`.
public struct IrdDeviceLogin {
    public let start: Operation
    public let poll: Operation
    public let complete: Operation

    public struct Started: Sendable {
        public let deviceCode: String
        public let userCode: String
        public let verificationURI: String
        /// The URI with the user code in it, when the service gives one.
        public let verificationURIComplete: String?
        public let interval: Duration
        public let expiresIn: Duration?
    }

    public init(document: OpenAPIDocument) throws(IrdError) {
        func bodyFields(_ operation: Operation) -> Set<String> {
            guard let ref = operation.requestBody?.json?.schema else { return [] }
            return Set(IrdDomainGate.topLevelFields(ref, document))
        }
        func answerFields(_ operation: Operation) -> Set<String> {
            guard let ref = operation.success?.json?.schema else { return [] }
            return Set(IrdDomainGate.topLevelFields(ref, document))
        }
        let candidates = document.operations.filter { $0.method == "POST" && document.isAnonymous($0) }
        guard let start = candidates.first(where: { answerFields($0).isSuperset(of: ["device_code", "user_code"]) }),
              let complete = candidates.first(where: { bodyFields($0).isSuperset(of: ["device_code", "confirmation_code"]) && answerFields($0).contains("access_token") }),
              let poll = candidates.first(where: { bodyFields($0) == ["device_code"] && $0.display != complete.display }) else {
            throw IrdError(.invalidDocument, "the document has no device login: omni looks for anonymous POST operations that start it "
                           + "(answering device_code and user_code), poll it (taking a device_code) and complete it (taking a "
                           + "confirmation_code, answering an access_token)")
        }
        self.start = start
        self.poll = poll
        self.complete = complete
    }

    public func begin(_ client: IrdClient, cancellation: HTTPCancellation? = nil) throws -> Started {
        let answer = try client.call(start, IrdCallInput(body: start.requestBody?.required == true ? .object(JSONObject()) : nil), cancellation: cancellation)
        guard let json = answer.json, let device = json["device_code"]?.stringValue, let user = json["user_code"]?.stringValue,
              let uri = json["verification_uri"]?.stringValue ?? json["verification_uri_complete"]?.stringValue else {
            throw IrdError(.invalidResponse, "\(start.display): the answer has no device_code, user_code and verification_uri", operation: start.display)
        }
        let interval = json["interval"]?.int64Value.map { Duration.seconds($0) } ?? .seconds(5)
        return Started(deviceCode: device, userCode: user, verificationURI: uri,
                       verificationURIComplete: json["verification_uri_complete"]?.stringValue, interval: max(interval, .milliseconds(100)),
                       expiresIn: json["expires_in"]?.int64Value.map { Duration.seconds($0) })
    }

    /// Polls until the login is approved: 400 "pending" and 429 "slow down" mean not yet (a slow-down waits its
    /// Retry-After, else five seconds more from then on); any other answer ends the wait.
    public func waitForApproval(_ client: IrdClient, _ started: Started, deadline: Duration, cancellation: HTTPCancellation? = nil) throws {
        let clock = ContinuousClock()
        let end = clock.now + min(deadline, started.expiresIn ?? deadline)
        var interval = started.interval
        var wait = interval
        while true {
            if clock.now + wait > end {
                throw IrdError(.timedOut, "device login: not approved before the deadline; start again with 'omni ird login'", operation: poll.display)
            }
            Threads.sleep(seconds: IrdWaiter.seconds(wait))
            if cancellation?.isCancelled == true { throw TransportError(.cancelled, "device login: interrupted while waiting") }
            do {
                _ = try client.call(poll, IrdCallInput(body: .object(JSONObject([("device_code", .string(started.deviceCode))]))),
                                    cancellation: cancellation)
                return
            } catch let error as IrdError where Self.isPending(error) {
                wait = interval
            } catch let error as IrdError where Self.isSlowDown(error) {
                if let seconds = error.retryAfter.flatMap(Int64.init) {
                    wait = max(interval, .seconds(seconds))
                } else {
                    interval += .seconds(5)
                    wait = interval
                }
            }
        }
    }

    public func finish(_ client: IrdClient, _ started: Started, confirmationCode: String, cancellation: HTTPCancellation? = nil) throws -> IrdSession {
        let body: JSONValue = .object(JSONObject([("device_code", .string(started.deviceCode)), ("confirmation_code", .string(confirmationCode))]))
        let answer = try client.call(complete, IrdCallInput(body: body), cancellation: cancellation)
        guard let token = answer.json?["access_token"]?.stringValue, !token.isEmpty else {
            throw IrdError(.invalidResponse, "\(complete.display): the answer has no access_token", operation: complete.display)
        }
        return IrdSession(accessToken: token, tokenType: answer.json?["token_type"]?.stringValue ?? "Bearer", createdAt: IrdSpecFetcher.now(),
                          expiresAt: answer.json?["expires_at"]?.stringValue)
    }

    static func isPending(_ error: IrdError) -> Bool {
        error.status == 400 && ["authorization_pending", "authorization-pending", "pending"].contains(error.code ?? "")
    }

    static func isSlowDown(_ error: IrdError) -> Bool {
        error.status == 429 || ["slow_down", "slow-down"].contains(error.code ?? "")
    }
}
