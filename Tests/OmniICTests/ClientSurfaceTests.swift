import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import OmniTransport
import Testing
@testable import OmniIC

/// Issue 12's client pieces that need no replica: the retry policy and the agent's retries with a scripted
/// transport (same bytes every time, unanswered calls looked up), delegation targets as the specification checks
/// them, subnet routes, and identities from a seed.
struct ClientSurfaceTests {
    // MARK: Retry policy

    @Test func backoffDoublesUpToItsCapAndRetryAfterWins() {
        let policy = RetryPolicy(retries: 5, initialDelay: .milliseconds(250), maxDelay: .seconds(1), maxRetryAfter: .seconds(3))
        #expect((1...5).map { policy.delay(beforeRetry: $0, retryAfter: nil) }
                == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(1), .seconds(1)])
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(2)) == .seconds(2))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(120)) == .seconds(3), "a long Retry-After is capped")
        #expect(RetryPolicy.retriedStatuses == [429, 502, 503, 504])
        #expect(!RetryPolicy.isRetried(status: 500) && !RetryPolicy.isRetried(status: 400) && RetryPolicy.isRetried(status: 429))
        #expect(RetryPolicy.isRetried(TransportError(.closed, "reset")) && RetryPolicy.isRetried(TransportError(.connect, "refused")))
        #expect(!RetryPolicy.isRetried(TransportError(.timeout, "slow")) && !RetryPolicy.isRetried(TransportError(.cancelled, "^C")))
    }

    @Test func retryAfterSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryPolicy.retryAfter("7", now: now) == .seconds(7))
        #expect(RetryPolicy.retryAfter(" 0 ", now: now) == .zero)
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == .seconds(30))
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now: now) == .zero, "a past date means now")
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: Date(timeIntervalSince1970: 784_111_777)) == .zero)
        for bad in ["", "-1", "1.5", "soon", "Wed, 21 Oct 2015 07:28:30 UTC", "Wed, 32 Oct 2015 07:28:30 GMT"] {
            #expect(RetryPolicy.retryAfter(bad, now: now) == nil, "\(bad)")
        }
        #expect(throws: ICError.self) { _ = try RetryPolicy(retries: 11).validated() }
    }

    // MARK: Retries through the agent

    /// Answers in order; each answer is an HTTP status (with an optional Retry-After) or a transport failure.
    final class FaultyTransport: ICTransport, @unchecked Sendable {
        enum Answer {
            case status(Int, [UInt8], retryAfter: String? = nil)
            case failure(TransportError.Kind)
        }

        private let lock = NSLock()
        private var answers: [Answer]
        private(set) var requests: [HTTPRequest] = []

        init(_ answers: [Answer]) { self.answers = answers }

        func perform(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
            let answer: Answer? = lock.withLock {
                requests.append(request)
                return answers.isEmpty ? nil : answers.removeFirst()
            }
            switch answer {
            case .status(let status, let body, let retryAfter)?:
                var headers = HTTPHeaders()
                if let retryAfter { headers.append(name: "Retry-After", value: retryAfter) }
                return HTTPResponse(status: status, version: .http1_1, headers: headers, body: body, effectiveURL: request.url,
                                    redirectCount: 0, totalSeconds: 0)
            case .failure(let kind)?:
                throw TransportError(kind, "scripted \(kind.rawValue)", url: request.url)
            case nil:
                throw TransportError(.io, "no more scripted answers")
            }
        }

        var paths: [String] { lock.withLock { requests.map { URLComponents(string: $0.url)?.path ?? $0.url } } }
        var bodies: [[UInt8]?] { lock.withLock { requests.map(\.body) } }
    }

    func agent(_ transport: FaultyTransport, retries: Int = 2, identity: ICIdentity = .anonymous, events: EventLog? = nil) throws -> ICAgent {
        var configuration = ICAgent.Configuration(network: try ICNetwork("http://127.0.0.1:9"))
        configuration.pollInterval = .milliseconds(1)
        configuration.retryPolicy = RetryPolicy(retries: retries, initialDelay: .zero, maxDelay: .zero)
        return try ICAgent(configuration: configuration, identity: identity, transport: transport, onEvent: { events?.append($0) })
    }

    static let canister = try! Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")

    @Test func transientFailuresAreRetriedWithTheSameBytes() throws {
        let reject = try ICCBOR.encode(.map([("reject_code", .unsigned(3)), ("reject_message", .text("no such canister"))]).selfDescribed,
                                       what: "reject")
        let transport = FaultyTransport([.status(503, [], retryAfter: "0"), .failure(.closed), .status(200, reject)])
        let events = EventLog()
        let result = try agent(transport, identity: try ICIdentity.generate(), events: events)
            .call(canister: Self.canister, method: "m", arg: try Candid.encode([]))
        guard case .rejected = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(transport.paths == Array(repeating: "/api/v4/canister/\(Self.canister)/call", count: 3))
        #expect(Set(transport.bodies.map { $0 ?? [] }).count == 1, "one signed envelope, sent three times")
        let retries = events.events.compactMap { event -> Int? in
            if case .retrying(_, _, let attempt, let total, _) = event, total == 2 { return attempt }
            return nil
        }
        #expect(retries == [1, 2], "\(events.descriptions)")
    }

    @Test func refusalsAndTimeoutsAreNotRetried() throws {
        for answer in [FaultyTransport.Answer.status(400, Array("bad".utf8)), .status(500, Array("broken".utf8)), .failure(.timeout)] {
            let transport = FaultyTransport([answer])
            #expect(throws: TransportError.self) { _ = try agent(transport).readState(canister: Self.canister, paths: [.time]) }
            #expect(transport.requests.count == 1)
        }
        let transport = FaultyTransport([.status(429, []), .status(429, [])])
        let error = thrownError(TransportError.self) { _ = try agent(transport, retries: 1).readState(canister: Self.canister, paths: [.time]) }
        #expect(error?.status == 429 && transport.requests.count == 2, "the last answer stands when the retries run out")
    }

    /// A call that stays unanswered is looked up by its request id (one status read, here: unknown): never signed
    /// again, and the error says so.
    @Test func anUnansweredCallIsLookedUpNotSignedAgain() throws {
        let transport = FaultyTransport([.status(504, []), .status(504, []), .status(504, [])])
        let error = thrownError(Error.self) {
            _ = try agent(transport, retries: 2, identity: try ICIdentity.generate())
                .call(canister: Self.canister, method: "m", arg: try Candid.encode([]))
        }
        #expect(transport.paths.prefix(3).allSatisfy { $0.hasSuffix("/call") } && transport.paths.last?.hasSuffix("/read_state") == true)
        #expect(transport.paths.filter { $0.hasSuffix("/call") }.count == 3)
        #expect(Set(transport.bodies.prefix(3).map { $0 ?? [] }).count == 1)
        // The scripted transport has no certificate to give, so the status read itself fails: the call is still not
        // signed again.
        #expect(error != nil)
    }

    // MARK: Delegation targets

    @Test func delegationTargetsAsTheSpecificationChecksThem() throws {
        let bucket = try Principal(icText: "rrkah-fqaaa-aaaaa-aaaaq-cai")
        let about = try Candid.encode([.record([CandidFieldValue(CandidLabel("canister_id"), .principal(bucket))])])
        #expect(DelegationTarget.of(.call(canister: Self.canister, method: "m", arg: [])).canister == Self.canister)
        #expect(DelegationTarget.of(.call(canister: .managementCanister, method: "canister_status", arg: about)).canister
                == .managementCanister, "update calls: the signed canister id, aaaaa-aa itself")
        for method in ["canister_status", "canister_metrics", "fetch_canister_logs"] {
            let target = DelegationTarget.of(.query(canister: .managementCanister, method: method, arg: about))
            #expect(target.canister == bucket && target.basis == .argumentCanister(method: method), "\(method)")
        }
        #expect(DelegationTarget.of(.query(canister: .managementCanister, method: "list_canisters", arg: try Candid.encode([]))).canister
                == .managementCanister)
        #expect(DelegationTarget.of(.query(canister: .managementCanister, method: "canister_status", arg: [0xff])).canister
                == .managementCanister, "an argument naming no canister: the IC refuses it anyway")
        #expect(DelegationTarget.of(.readState(paths: [.time, .subnetPublicKey(bucket.bytes)])) == .unchecked)
        let status = StatePath.requestStatus(try RequestID(bytes: [UInt8](repeating: 1, count: 32)))
        #expect(DelegationTarget.of(.readState(paths: [status]), statusOf: bucket).canister == bucket)
        #expect(DelegationTarget.of(.readState(paths: [status])) == .unchecked, "the call's canister unknown: left to the IC")

        let session = ICIdentity(session: try DelegatedSession.create(root: try ICIdentity.generate(), targets: [bucket]))
        try session.checkAuthorized(DelegationTarget.of(.query(canister: .managementCanister, method: "canister_metrics", arg: about)))
        try session.checkAuthorized(.unchecked)
        let refused = thrownError(ICError.self) {
            try session.checkAuthorized(DelegationTarget.of(.call(canister: .managementCanister, method: "canister_status", arg: about)))
        }
        #expect(refused?.kind == .unauthorized && refused?.reason == .target)
        #expect(refused?.message.contains("checked against aaaaa-aa, the canister the request is signed for") == true,
                "\(String(describing: refused))")
        // Keys and the anonymous identity may make any request.
        try ICIdentity.anonymous.checkAuthorized(.explicit(bucket))
        try ICIdentity.generate().checkAuthorized(.explicit(bucket))
        // Two delegations with disjoint targets allow nothing.
        let narrower = ICIdentity(session: try DelegatedSession.create(root: session, targets: [Self.canister]))
        let none = thrownError(ICError.self) { try narrower.checkAuthorized(.explicit(bucket)) }
        #expect(none?.message.contains("have nothing in common") == true, "\(String(describing: none))")
    }

    // MARK: Subnet routes

    @Test func subnetRoutesAreOnlyForWhatTheSpecificationOpensThem() throws {
        let subnet = try Principal(icText: "tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe")
        let empty = try Candid.encode([])
        #expect(try ICAgent.route(.query(canister: .managementCanister, method: "list_canisters", arg: empty), effectiveCanister: nil,
                                  subnet: subnet) == .subnet(subnet))
        for method in ["create_canister", "provisional_create_canister_with_cycles"] {
            #expect(try ICAgent.route(.call(canister: .managementCanister, method: method, arg: empty), effectiveCanister: nil,
                                      subnet: subnet) == .subnet(subnet))
        }
        for body in [ICRequest.Body.query(canister: Self.canister, method: "greet", arg: empty),
                     .query(canister: .managementCanister, method: "canister_status", arg: empty),
                     .call(canister: .managementCanister, method: "list_canisters", arg: empty),
                     .call(canister: Self.canister, method: "create_canister", arg: empty)] {
            #expect(throws: ICError.self, "\(body)") { _ = try ICAgent.route(body, effectiveCanister: nil, subnet: subnet) }
        }
        #expect(throws: ICError.self) {
            _ = try ICAgent.route(.query(canister: .managementCanister, method: "list_canisters", arg: empty),
                                  effectiveCanister: Self.canister, subnet: subnet)
        }
        // Without a subnet, list_canisters may go anywhere: the caller must say where.
        let anywhere = thrownError(ICError.self) {
            _ = try ICAgent.route(.query(canister: .managementCanister, method: "list_canisters", arg: empty), effectiveCanister: nil,
                                  subnet: nil)
        }
        #expect(anywhere?.message.contains("--subnet ID") == true)
        #expect(try ICAgent.route(.query(canister: Self.canister, method: "greet", arg: empty), effectiveCanister: nil, subnet: nil)
                == .canister(Self.canister))
    }

    // MARK: Identities from a seed

    @Test func seedsInEveryForm() throws {
        let key = Ed25519.PrivateKey()
        let expected = ICIdentity(ed25519: key).principal
        let seed = key.seed
        let forms: [[UInt8]] = [seed, Array(Hex.encode(seed).utf8), Array(("0x" + Hex.encode(seed, uppercase: true) + "\r\n").utf8),
                                key.pkcs8DERRepresentation, Array(key.pemRepresentation.utf8)]
        for form in forms {
            #expect(try ICIdentity(ed25519Secret: form).principal == expected)
        }
        for bad: [UInt8] in [[], [UInt8](repeating: 1, count: 31), Array(String(repeating: "a", count: 63).utf8),
                             Array(String(repeating: "g", count: 64).utf8), [0x30, 0x03, 0x02, 0x01, 0x00], [0xff, 0xfe, 0x00]] {
            let error = thrownError(ICError.self) { _ = try ICIdentity(ed25519Secret: bad) }
            #expect(error?.kind == .malformed, "\(bad.prefix(8)): \(String(describing: error))")
        }
        let ecdsa = try ICIdentity.generate(.p256).exportPrivateKeyPEM()
        let refused = thrownError(ICError.self) { _ = try ICIdentity(ed25519Secret: Array(ecdsa.utf8)) }
        #expect(refused?.kind == .unsupported, "\(String(describing: refused))")
        let encrypted = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n"
        #expect(thrownError(ICError.self) { _ = try ICIdentity(ed25519Secret: Array(encrypted.utf8)) }?.kind == .unsupported)
    }
}
