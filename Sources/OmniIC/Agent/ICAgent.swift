import FoundationEssentials
import OmniCandid
import OmniCodec
import OmniSystem
import OmniTransport
import Synchronization

/// The IC's HTTPS interface with verification always on.
///
/// - Queries: `POST /api/v3/canister/<ecid>/query` (v2 on 404); every node signature is checked with node keys
///   from a verified `/subnet` certificate (cached per subnet, see `NodeKeyCache`); an unknown node or a bad
///   signature triggers exactly one forced key refresh, then the failure is final. Only a query asked for by
///   name unverified (`verified: false`, the CLI's `omni ic query --unsafe`) skips this.
/// - Calls: `/api/v4/…/call` (synchronous; v3 then v2 on 404); a certificate in the answer is verified and
///   its `/request_status` read; a 202 is followed by `read_state` polls (interval and attempts configurable).
/// - read_state for canisters and subnets: v3, v2 on 404; certificates verified for their scope (BLS under the
///   root key, delegation, canister ranges in both layouts, `/time` freshness).
/// - Subnet routes: `/api/v3/subnet/<id>/query` (`aaaaa-aa.list_canisters`), `/api/v4/subnet/<id>/call`
///   (canister creation), `/api/v3/subnet/<id>/read_state`; their certificates and node keys must be that
///   subnet's (the delegation's subnet id, or the root subnet without a delegation).
/// - Retries (`RetryPolicy`): the same bytes again after 429/502/503/504 or a broken connection, never a new
///   signature; a call still unanswered after every retry is looked up by its request id and followed when the
///   network knows it.
/// - Delegation targets: a scoped session is refused locally for a request the IC would refuse
///   (`DelegationTarget`).
/// - Clock skew: verified certificates' `/time` keeps the estimate of the network's clock current. An "ingress_expiry
///   not within expected range" answer is unauthenticated: its hint of the replica's time is believed only within
///   `freshnessTolerance` (beyond it the error says how far off the local clock seems), and only reads are signed
///   again with it. A refused call is never simply signed again (a second request id could run it twice): its
///   request status is read first; a call that was accepted after all is followed, and a new call is signed only
///   when the network's certified time proves the first one expired.
/// - Node keys and subnet ranges (`/subnet`) are public: they are read anonymously, never with the user's identity.
///
/// Blocking: call it from a plain thread. Errors: `ICError` (malformed answers, failed verification), `TransportError` (network,
/// timeouts, HTTP refusals with their status).
public final class ICAgent: Sendable {
    public struct Configuration: Sendable {
        public var network: ICNetwork
        /// The root of trust: the pinned mainnet key, or a local replica's key.
        public var rootKey: ICRootKey
        /// How far a certificate's `/time` or a query signature's timestamp may be from the local clock; also the
        /// largest clock difference an unauthenticated expiry refusal is believed about.
        public var freshnessTolerance: UInt64 = Freshness.defaultTolerance
        public var pollInterval: Duration = .seconds(1)
        public var pollAttempts: Int = 30
        /// Timeout of each HTTP request.
        public var requestTimeout: Duration = .seconds(20)
        /// Cap on each response body (at most `ResponseLimits.maxBytes`, 10 MiB).
        public var maxResponseBytes: Int = ResponseLimits.maxBytes
        /// How long requests stay valid (ingress expiry = replica time + this, rounded down to the minute).
        public var ingressLifetime: UInt64 = IngressExpiry.defaultLifetime
        /// Where node keys are cached between runs; nil keeps them in memory only.
        public var nodeKeyCache: NodeKeyCache?
        /// When the same request is sent again after a transient failure.
        public var retryPolicy = RetryPolicy()

        public init(network: ICNetwork, rootKey: ICRootKey = .mainnet) {
            self.network = network
            self.rootKey = rootKey
        }

        func validated() throws(ICError) -> Configuration {
            guard (1...ResponseLimits.maxBytes).contains(maxResponseBytes) else {
                throw ICError(.invalidArgument, "the response size cap must be between 1 byte and \(ResponseLimits.maxBytes) bytes (10 MiB), got \(maxResponseBytes)")
            }
            guard (1...10_000).contains(pollAttempts) else {
                throw ICError(.invalidArgument, "poll attempts must be between 1 and 10000, got \(pollAttempts)")
            }
            guard pollInterval >= .zero, pollInterval <= .seconds(3600) else {
                throw ICError(.invalidArgument, "the poll interval must be between 0 and 1 hour")
            }
            guard requestTimeout > .zero else { throw ICError(.invalidArgument, "the request timeout must be positive") }
            guard ingressLifetime >= 10 * IngressExpiry.nanosecondsPerSecond, ingressLifetime <= 5 * IngressExpiry.minute else {
                throw ICError(.invalidArgument, "the ingress lifetime must be between 10 s and 5 min (the IC refuses later expiries)")
            }
            _ = try retryPolicy.validated()
            return self
        }
    }

    public let configuration: Configuration
    public let identity: ICIdentity
    private let transport: any ICTransport
    private let cancellation: HTTPCancellation?
    private let onEvent: @Sendable (ICAgentEvent) -> Void
    /// Shared by the agents `signing(as:)` makes, so what one learns (clock, subnets, endpoints) serves them all.
    private let shared: SharedState

    private final class SharedState: Sendable {
        let state = Mutex(MutableState())
    }

    private struct MutableState {
        /// Replica clock minus ours, in nanoseconds.
        var clockSkew: Int64 = 0
        /// Endpoints that answered 404 (`call v4`, …): later requests start with the next version.
        var unavailable: Set<String> = []
        /// Subnet facts fetched or loaded during this agent's life.
        var subnets: [SubnetInfo] = []
    }

    /// - transport: defaults to a fresh `HTTPClient`; `cancellation` also interrupts waits between polls.
    /// - onEvent: progress and notes (called on the calling thread).
    public init(configuration: Configuration, identity: ICIdentity = .anonymous, transport: (any ICTransport)? = nil,
                cancellation: HTTPCancellation? = nil, onEvent: @escaping @Sendable (ICAgentEvent) -> Void = { _ in }) throws(ICError) {
        self.configuration = try configuration.validated()
        self.identity = identity
        self.cancellation = cancellation
        self.transport = transport ?? HTTPClientTransport(client: HTTPClient(configuration: .init(userAgent: "omni")),
                                                          cancellation: cancellation)
        self.onEvent = onEvent
        self.shared = SharedState()
    }

    private init(sharing agent: ICAgent, identity: ICIdentity) {
        configuration = agent.configuration
        self.identity = identity
        transport = agent.transport
        cancellation = agent.cancellation
        onEvent = agent.onEvent
        shared = agent.shared
    }

    /// An agent that signs as `identity` and otherwise is this one: the same network, root key, settings, transport
    /// and cancellation, and the same knowledge of the network's clock, subnets and endpoints (shared, not copied).
    public func signing(as identity: ICIdentity) -> ICAgent {
        ICAgent(sharing: self, identity: identity)
    }

    /// The clock skew currently applied to ingress expiries (replica − local, ns).
    public var clockSkew: Int64 { shared.state.withLock { $0.clockSkew } }

    // MARK: - Status and root keys

    /// `GET /api/v2/status` (not authenticated: informational only).
    public func status() throws -> ReplicaStatus {
        let (request, limit) = ICAgent.statusRequest(network: configuration.network, timeout: configuration.requestTimeout)
        let response = try perform(request, endpoint: "status")
        guard response.status == 200 else { throw ICAgent.refusal(response, url: request.url) }
        return try ReplicaStatus(decoding: response.body, maxBytes: limit)
    }

    static func statusRequest(network: ICNetwork, timeout: Duration) -> (HTTPRequest, limit: Int) {
        let limit = 1 << 20
        return (HTTPRequest(method: "GET", url: network.url + "/api/v2/status", headers: ["Accept": "application/cbor"],
                            totalTimeout: timeout, maxResponseBytes: limit), limit)
    }

    /// The root key a local replica reports about itself. Allowed only for loopback URLs (the user's own machine),
    /// never for the mainnet, whose key is pinned. The status GET is idempotent, so it is retried under `retryPolicy`
    /// like every other such request (a replica still starting answers 503 or resets connections).
    public static func fetchRootKey(network: ICNetwork, transport: (any ICTransport)? = nil,
                                    timeout: Duration = .seconds(20), retryPolicy: RetryPolicy = RetryPolicy(),
                                    cancellation: HTTPCancellation? = nil,
                                    onEvent: @Sendable (ICAgentEvent) -> Void = { _ in }) throws -> ICRootKey {
        guard network.isLoopback, !network.isMainnet else {
            throw ICError(.configuration, "the root key may be fetched only from a replica on this machine (localhost, 127.0.0.0/8, ::1), "
                          + "not from \(network.url); give it with --root-key")
        }
        let policy = try retryPolicy.validated()
        let transport = transport ?? HTTPClientTransport(client: HTTPClient(), cancellation: cancellation)
        let (request, limit) = statusRequest(network: network, timeout: timeout)
        let response = try perform(request, endpoint: "status", transport: transport, policy: policy, cancellation: cancellation,
                                   onEvent: onEvent)
        guard response.status == 200 else { throw ICAgent.refusal(response, url: request.url) }
        guard let der = try ReplicaStatus(decoding: response.body, maxBytes: limit).rootKey else {
            throw ICError(.configuration, "the replica at \(network.url) does not report a root key; give it with --root-key")
        }
        return try ICRootKey(der: der)
    }

    // MARK: - Queries

    /// A query, verified unless `verified` is false. It goes to `subnet` when given (`/api/v3/subnet/<id>/query`,
    /// only for `aaaaa-aa.list_canisters`), else to its effective canister id: `effectiveCanister`, which defaults
    /// to `canister` (for `aaaaa-aa`, to the argument's `canister_id`). A delegated identity must have the
    /// request's `DelegationTarget` among its targets, or `delegationTarget` when given.
    public func query(canister: Principal, method: String, arg: [UInt8], effectiveCanister: Principal? = nil,
                      subnet: Principal? = nil, delegationTarget: Principal? = nil, verified: Bool = true) throws -> QueryResult {
        let body = ICRequest.Body.query(canister: canister, method: method, arg: arg)
        let route = try ICAgent.route(body, effectiveCanister: effectiveCanister, subnet: subnet)
        let target = delegationTarget.map(DelegationTarget.explicit) ?? DelegationTarget.of(body)
        return try submitQuery(.fresh(body, nonce: nil, target: target), route: route, verified: verified)
    }

    private func submitQuery(_ signing: Signing, route: CertificateScope, verified: Bool = true) throws -> QueryResult {
        let sent = try post(.query, route: route, versions: route.subnet == nil ? [3, 2] : [3], signing: signing)
        guard sent.response.status == 200 else { throw ICAgent.unexpectedStatus(sent) }
        let response = try QueryResponse(decoding: sent.response.body, maxBytes: configuration.maxResponseBytes)
        let requestID = sent.request.requestID
        let verification = verified ? try verify(response, requestID: requestID, route: route) : .skipped
        return QueryResult(requestID: requestID, route: route, outcome: response.outcome, endpoint: "v\(sent.version)",
                           verification: verification)
    }

    private func verify(_ response: QueryResponse, requestID: RequestID, route: CertificateScope) throws -> QueryVerification {
        guard !response.signatures.isEmpty else {
            throw ICError.verification(.nodeSignature, "the query response carries no node signature")
        }
        let freshness = Freshness.now(tolerance: configuration.freshnessTolerance)
        let nodes = response.signatures.map(\.identity)
        let (subnet, fromCache) = try subnetInfo(for: route, refresh: false)
        let first = Result { () throws(ICError) in try response.verify(requestID: requestID, subnet: subnet, freshness: freshness) }
        switch first {
        case .success:
            return .nodeSignatures(subnet: subnet.subnetID, nodes: nodes, keysFromCache: fromCache, keysRefreshed: false)
        case .failure(let error) where error.reason == .nodeSignature:
            // Node keys rotate: keys from the cache (or fetched a moment ago) may miss the node that answered.
            onEvent(.nodeKeysRefreshing(reason: error.message))
            let (refreshed, _) = try subnetInfo(for: route, refresh: true)
            try response.verify(requestID: requestID, subnet: refreshed, freshness: freshness)
            return .nodeSignatures(subnet: refreshed.subnetID, nodes: nodes, keysFromCache: false, keysRefreshed: true)
        case .failure(let error):
            throw error
        }
    }

    private func subnetInfo(for route: CertificateScope, refresh: Bool) throws -> (info: SubnetInfo, fromCache: Bool) {
        switch route {
        case .canister(let id): try subnetInfo(serving: id, refresh: refresh)
        case .subnet(let id): try subnetInfo(subnet: id, refresh: refresh)
        }
    }

    /// The verified facts (node keys, ranges) of the subnet serving `canister`: from memory, the disk cache, or a
    /// verified `read_state` of `/subnet`; `refresh` forces the read.
    ///
    /// The read is anonymous: the path is public, so it needs no signature, and signing it would tell the network
    /// who is asking and fail for a session whose targets do not include `canister`. The subnet must serve
    /// `canister` by its certified ranges (the interface spec's check for node keys): a root-signed certificate
    /// vouches for every subnet, but its node keys are those of the root subnet, which serves only its own ranges.
    public func subnetInfo(serving canister: Principal, refresh: Bool = false) throws -> (info: SubnetInfo, fromCache: Bool) {
        if !refresh {
            if let known = shared.state.withLock({ $0.subnets.first { $0.serves(canister) } }) { return (known, false) }
            if let cached = configuration.nodeKeyCache?.load(serving: canister, rootKey: configuration.rootKey) {
                remember(cached)
                onEvent(.nodeKeysFromCache(subnet: cached.subnetID))
                return (cached, true)
            }
        }
        let read = try readState(route: .canister(canister), paths: [["subnet"]], signing: .anonymous)
        let info = try read.certificate.subnetInfo()
        guard info.serves(canister) else {
            let ranges = info.canisterRanges.isEmpty ? "certifies no canister ranges for it"
                : "certifies its ranges as " + info.canisterRanges.map(\.description).joined(separator: ", ")
            throw ICError.verification(.range, "subnet \(info.subnetID) does not serve canister \(canister): the certificate "
                                       + ranges + ", so its node keys do not speak for that canister",
                                       location: "/subnet/\(info.subnetID)/canister_ranges")
        }
        store(info)
        return (info, false)
    }

    /// The verified facts of `subnet` itself (for subnet queries): from memory, the disk cache, or a verified
    /// read of `/subnet` at `/api/v3/subnet/<id>/read_state`, whose certificate must be that subnet's (its
    /// delegation's subnet id, or the root subnet when the root key signed it). Read anonymously, like
    /// `subnetInfo(serving:)`.
    public func subnetInfo(subnet: Principal, refresh: Bool = false) throws -> (info: SubnetInfo, fromCache: Bool) {
        if !refresh {
            if let known = shared.state.withLock({ $0.subnets.first { $0.subnetID == subnet } }) { return (known, false) }
            if let cached = configuration.nodeKeyCache?.load(subnet: subnet, rootKey: configuration.rootKey) {
                remember(cached)
                onEvent(.nodeKeysFromCache(subnet: cached.subnetID))
                return (cached, true)
            }
        }
        let read = try readState(route: .subnet(subnet), paths: [["subnet"]], signing: .anonymous)
        let info = try read.certificate.subnetInfo()
        guard info.subnetID == subnet else {
            throw ICError.verification(.delegation, "the certificate read from subnet \(subnet) is subnet \(info.subnetID)'s")
        }
        store(info)
        return (info, false)
    }

    private func store(_ info: SubnetInfo) {
        remember(info)
        onEvent(.nodeKeysFetched(subnet: info.subnetID))
        if let cache = configuration.nodeKeyCache {
            do { try cache.store(info, rootKey: configuration.rootKey) } catch { onEvent(.cacheWriteFailed(error.message)) }
        }
    }

    private func remember(_ info: SubnetInfo) {
        shared.state.withLock { state in
            state.subnets.removeAll { $0.subnetID == info.subnetID }
            state.subnets.append(info)
        }
    }

    // MARK: - Calls

    /// An update call. With `wait` (the default) it returns the final outcome: synchronously from v4/v3, or by
    /// polling after a 202. Without `wait` it submits through the asynchronous v2 endpoint and returns
    /// `.accepted` with the request id (or a non-replicated reject). It goes to `subnet` when given
    /// (`/api/v4/subnet/<id>/call`, only for canister creation), else to its effective canister id. A delegated
    /// identity must have `aaaaa-aa` or `canister` (or `delegationTarget`) among its targets.
    public func call(canister: Principal, method: String, arg: [UInt8], effectiveCanister: Principal? = nil,
                     subnet: Principal? = nil, delegationTarget: Principal? = nil, wait: Bool = true) throws -> CallResult {
        let body = ICRequest.Body.call(canister: canister, method: method, arg: arg)
        let route = try ICAgent.route(body, effectiveCanister: effectiveCanister, subnet: subnet)
        let explicit = delegationTarget.map(DelegationTarget.explicit)
        let statusTarget = explicit ?? DelegationTarget.statusOf(call: canister)
        // A nonce per call: identical calls within the same expiry minute would otherwise share a request id and
        // the IC would treat the second as a duplicate of the first.
        return try submitCall(.fresh(body, nonce: ICRequest.randomNonce(), target: explicit ?? DelegationTarget.of(body)),
                              route: route, statusSigning: .fresh(statusTarget), wait: wait)
    }

    private func submitCall(_ signing: Signing, route: CertificateScope, statusSigning: StatusSigning?, wait: Bool,
                            afterRefusal: Bool = false) throws -> CallResult {
        let sent: Sent
        let versions = route.subnet != nil ? [4] : wait ? [4, 3, 2] : [2, 4, 3]
        do {
            sent = try post(.call, route: route, versions: versions, signing: signing)
        } catch let refusal as ExpiryRefusal {
            if afterRefusal { throw refusal.error }
            return try recover(from: refusal, signing: signing, route: route, statusSigning: statusSigning, wait: wait)
        } catch let unanswered as UnansweredCall {
            return try recover(from: unanswered, route: route, statusSigning: statusSigning, wait: wait)
        }
        let requestID = sent.request.requestID
        let endpoint = "v\(sent.version)"
        if sent.response.status == 200 {
            switch try CallResponse(decoding: sent.response.body, maxBytes: configuration.maxResponseBytes) {
            case .rejected(let reject):
                return CallResult(requestID: requestID, route: route, outcome: .rejected(reject), endpoint: endpoint,
                                  polls: 0, certificate: nil)
            case .certificate(let bytes):
                let certificate = try verifiedCertificate(bytes, scope: route)
                let status = try certificate.requestStatus(requestID)
                if let outcome = CallOutcome(status) {
                    return CallResult(requestID: requestID, route: route, outcome: outcome, endpoint: endpoint,
                                      polls: 0, certificate: certificate)
                }
            }
        } else if sent.response.status != 202 {
            throw ICAgent.unexpectedStatus(sent)
        }
        onEvent(.accepted(requestID, endpoint: endpoint))
        return try follow(requestID, route: route, endpoint: endpoint, statusSigning: statusSigning, wait: wait, sleepFirst: true)
    }

    /// The outcome of an accepted call: polled until final, or `.accepted` when not waiting (or unable to poll).
    private func follow(_ requestID: RequestID, route: CertificateScope, endpoint: String, statusSigning: StatusSigning?,
                        wait: Bool, sleepFirst: Bool) throws -> CallResult {
        guard wait, let statusSigning else {
            return CallResult(requestID: requestID, route: route, outcome: .accepted, endpoint: endpoint, polls: 0,
                              certificate: nil)
        }
        let polled = try poll(requestID, route: route, signing: statusSigning, sleepFirst: sleepFirst)
        guard let outcome = CallOutcome(polled.status) else {
            throw ICError(.internalFailure, "polling ended on a non-terminal status")
        }
        return CallResult(requestID: requestID, route: route, outcome: outcome, endpoint: endpoint,
                          polls: polled.polls, certificate: polled.certificate)
    }

    /// A call that got no answer after every retry (429/5xx, a broken connection, a timeout): it may have been
    /// accepted all the same, so it is never signed again; its certified request status decides. Known to the
    /// network: followed to its outcome under the same request id. Unknown: the failure stands, saying so.
    private func recover(from unanswered: UnansweredCall, route: CertificateScope, statusSigning: StatusSigning?,
                         wait: Bool) throws -> CallResult {
        let id = unanswered.request.requestID
        let failure = unanswered.error
        let check = ICAgent.statusCommand(id, route: route)
        guard let statusSigning else {
            throw TransportError(failure.kind, failure.message + "; call \(id.prefixedHex) may still have been accepted: check it with "
                                 + check, url: failure.url, status: failure.status)
        }
        let read = try readState(route: route, paths: [StatePath.requestStatus(id)], signing: statusSigning)
        let status = try read.certificate.requestStatus(id)
        guard status != .unknown else {
            throw TransportError(failure.kind, failure.message + "; the network does not know call \(id.prefixedHex) (certified), "
                                 + "and it was not signed again: it may still arrive, check it later with " + check,
                                 url: failure.url, status: failure.status)
        }
        onEvent(.callKnownAfterFailure(id, failure: failure.status.map { "HTTP \($0)" } ?? failure.message))
        if let outcome = CallOutcome(status) {
            return CallResult(requestID: id, route: route, outcome: outcome, endpoint: unanswered.endpoint, polls: 1,
                              certificate: read.certificate)
        }
        return try follow(id, route: route, endpoint: unanswered.endpoint, statusSigning: statusSigning, wait: wait, sleepFirst: true)
    }

    /// A call refused for its ingress expiry. The refusal is not authenticated and the call may have reached the
    /// replica anyway, so it is not signed again blindly: its certified request status decides.
    /// - known to the network: the refusal was false; the call is followed like any accepted call;
    /// - unknown, and its expiry already past in the network's certified time: it can never run, so one new call is
    ///   signed with that time;
    /// - unknown, and its expiry not yet past: it may still run; signing a second one could run it twice, so this
    ///   fails and says how to check on it.
    private func recover(from refusal: ExpiryRefusal, signing: Signing, route: CertificateScope, statusSigning: StatusSigning?,
                         wait: Bool) throws -> CallResult {
        let first = refusal.request
        let read = try readState(route: route, paths: [StatePath.requestStatus(first.requestID)],
                                 signing: .fresh(first.canister.map(DelegationTarget.statusOf(call:)) ?? .unchecked))
        let status = try read.certificate.requestStatus(first.requestID)
        let endpoint = refusal.endpoint
        if status != .unknown {
            onEvent(.refusalContradicted(first.requestID, refusal: refusal.error.message))
            if let outcome = CallOutcome(status) {
                return CallResult(requestID: first.requestID, route: route, outcome: outcome, endpoint: endpoint,
                                  polls: 1, certificate: read.certificate)
            }
            return try follow(first.requestID, route: route, endpoint: endpoint, statusSigning: statusSigning, wait: wait,
                              sleepFirst: true)
        }
        let networkTime = read.certificate.time
        let skew = ClockSkew.skew(replicaTime: networkTime, localNow: IngressExpiry.currentTime())
        let check = ICAgent.statusCommand(first.requestID, route: route)
        guard first.ingressExpiry < networkTime else {
            let stillValid = "the network's certified time "
                + "\(ICTime.format(networkTime)) says call \(first.requestID.prefixedHex), signed to expire at "
                + "\(ICTime.format(first.ingressExpiry)), may still run, so it is not signed again (that could run it twice)"
            if first.ingressExpiry > ClockSkew.apply(Int64(IngressExpiry.maxAcceptedLifetime), to: networkTime) {
                throw ICError(.configuration, ClockSkew.describeLocalClock(skew) + "; fix the clock: " + stillValid
                              + "; check it later with " + check, reason: .time)
            }
            throw ICError.verification(.time, "the replica refused the call's ingress expiry (\(refusal.error.message)), but "
                                       + stillValid + "; check it with " + check)
        }
        shared.state.withLock { $0.clockSkew = skew }
        onEvent(.clockSkewCorrected(nanoseconds: skew, source: .certifiedTime))
        return try submitCall(signing, route: route, statusSigning: statusSigning, wait: wait, afterRefusal: true)
    }

    /// The status of `requestID` (sent by this identity to the effective canister or subnet `route`); with `wait`,
    /// polled until final. `delegationTarget`: the canister the call was signed for, when known (a scoped session
    /// is checked against it).
    public func requestStatus(_ requestID: RequestID, route: CertificateScope, delegationTarget: Principal? = nil,
                              wait: Bool = true) throws -> RequestStatusResult {
        let signing = StatusSigning.fresh(delegationTarget.map(DelegationTarget.explicit) ?? .unchecked)
        if wait {
            let polled = try poll(requestID, route: route, signing: signing, sleepFirst: false)
            return RequestStatusResult(requestID: requestID, status: polled.status, polls: polled.polls,
                                       certificate: polled.certificate)
        }
        let read = try readState(route: route, paths: [StatePath.requestStatus(requestID)], signing: signing)
        return RequestStatusResult(requestID: requestID, status: try read.certificate.requestStatus(requestID), polls: 1,
                                   certificate: read.certificate)
    }

    private func poll(_ requestID: RequestID, route: CertificateScope, signing: StatusSigning,
                      sleepFirst: Bool) throws -> (status: RequestStatus, certificate: VerifiedCertificate, polls: Int) {
        var last = "unknown"
        let total = configuration.pollAttempts
        for attempt in 1...total {
            if sleepFirst || attempt > 1 { try pause(configuration.pollInterval) }
            let read = try readState(route: route, paths: [StatePath.requestStatus(requestID)], signing: signing)
            let status = try read.certificate.requestStatus(requestID)
            last = ICAgent.name(of: status)
            onEvent(.polled(requestID, attempt: attempt, of: total, status: last))
            if status.isTerminal { return (status, read.certificate, attempt) }
        }
        throw TransportError(.timeout, "request \(requestID) has no final status after \(total) polls, "
                             + "\(ICAgent.describe(configuration.pollInterval)) apart (last status: \(last)); it may still complete: "
                             + "check later with " + ICAgent.statusCommand(requestID, route: route),
                             url: configuration.network.url)
    }

    /// The command that reads a request's status later: `'omni ic request-status 0x… <canister>'` (or `--subnet <id>`).
    static func statusCommand(_ requestID: RequestID, route: CertificateScope) -> String {
        switch route {
        case .canister(let id): "'omni ic request-status \(requestID.prefixedHex) \(id)'"
        case .subnet(let id): "'omni ic request-status \(requestID.prefixedHex) --subnet \(id)'"
        }
    }

    /// `replied`, `rejected`, `done`, `received`, `processing` or `unknown`.
    public static func name(of status: RequestStatus) -> String {
        switch status {
        case .unknown: "unknown"
        case .received: "received"
        case .processing: "processing"
        case .replied: "replied"
        case .rejected: "rejected"
        case .done: "done"
        }
    }

    // MARK: - read_state

    /// A verified read of `paths` in the state of `canister` (scope: the canister must be in the signing subnet's
    /// canister ranges).
    public func readState(canister: Principal, paths: [StatePath]) throws -> StateRead {
        try readState(route: .canister(canister), paths: paths, signing: .fresh(.unchecked))
    }

    /// A verified read of `paths` in the state of `subnet` (`/api/v3/subnet/<id>/read_state`; the certificate must
    /// come from that subnet).
    public func readSubnetState(subnet: Principal, paths: [StatePath]) throws -> StateRead {
        try readState(route: .subnet(subnet), paths: paths, signing: .fresh(.unchecked))
    }

    /// The metadata section `name` (`candid:service`, …) of `canister`: Found with its bytes, Absent when the
    /// canister has no such public section, Unknown when the certificate hides it.
    public func metadata(canister: Principal, name: String) throws -> (lookup: LookupResult, read: StateRead) {
        let path = StatePath.canisterMetadata(canister.bytes, name: name)
        let read = try readState(canister: canister, paths: [path])
        return (read.certificate.lookup(path), read)
    }

    private func readState(route: CertificateScope, paths: [StatePath], signing: StatusSigning) throws -> StateRead {
        let requestSigning: Signing
        switch signing {
        case .fresh(let target): requestSigning = .fresh(.readState(paths: paths), nonce: nil, target: target)
        case .anonymous: requestSigning = .anonymous(.readState(paths: paths))
        case .presigned(let bytes, let request): requestSigning = .presigned(bytes, request)
        }
        let sent = try post(.readState, route: route, versions: [3, 2], signing: requestSigning)
        guard sent.response.status == 200 else { throw ICAgent.unexpectedStatus(sent) }
        let bytes = try ReadStateResponse.certificate(from: sent.response.body, maxBytes: configuration.maxResponseBytes)
        return StateRead(paths: paths, certificate: try verifiedCertificate(bytes, scope: route), endpoint: "v\(sent.version)")
    }

    // MARK: - Requests signed elsewhere

    /// Sends a request signed offline (`omni ic sign`). A call is waited for (polling with the file's signed status
    /// read, or with this agent's identity when it is the sender); a query is verified like any query; a
    /// read_state certificate is verified for the file's route. A subnet-routed file goes to that subnet's
    /// endpoints, and its certificates and node keys must be that subnet's.
    public func send(_ file: SignedRequestFile, wait: Bool = true) throws -> SentRequestResult {
        let signing = Signing.presigned(file.envelopeBytes, file.request)
        switch file.request.body {
        case .call(let canister, _, _):
            var statusSigning: StatusSigning?
            if let status = file.requestStatus {
                statusSigning = .presigned(status.envelopeBytes, status.envelope.content)
            } else if file.request.sender == identity.principal {
                statusSigning = .fresh(.statusOf(call: canister))
            }
            return .call(try submitCall(signing, route: file.route, statusSigning: statusSigning, wait: wait))
        case .query:
            return .query(try submitQuery(signing, route: file.route))
        case .readState(let paths):
            return .readState(try readState(route: file.route, paths: paths,
                                            signing: .presigned(file.envelopeBytes, file.request)))
        }
    }

    // MARK: - Routing

    /// Where a call or query goes, checked before anything is sent. With `subnet`, the subnet endpoints, which the
    /// specification opens to `aaaaa-aa.list_canisters` (query) and canister creation (call) only; an explicit
    /// effective canister id is then meaningless. Otherwise the effective canister id (`effectiveCanisterID`).
    public static func route(_ body: ICRequest.Body, effectiveCanister: Principal?, subnet: Principal?) throws(ICError) -> CertificateScope {
        let canister: Principal, method: String, arg: [UInt8], isQuery: Bool
        switch body {
        case .call(let c, let m, let a): (canister, method, arg, isQuery) = (c, m, a, false)
        case .query(let c, let m, let a): (canister, method, arg, isQuery) = (c, m, a, true)
        case .readState: throw ICError(.invalidArgument, "a read_state is routed by the canister or subnet it reads")
        }
        guard let subnet else {
            return .canister(try effectiveCanisterID(canister: canister, method: method, arg: arg, explicit: effectiveCanister))
        }
        if let effectiveCanister {
            throw ICError(.invalidArgument, "a request goes either to a subnet or to an effective canister id, not both "
                          + "(--subnet \(subnet), --effective-canister-id \(effectiveCanister))")
        }
        let allowed = isQuery ? ["list_canisters"] : ["create_canister", "provisional_create_canister_with_cycles"]
        guard canister == .managementCanister, allowed.contains(method) else {
            let endpoint = isQuery ? "/api/v3/subnet/<id>/query" : "/api/v4/subnet/<id>/call"
            throw ICError(.invalidArgument, "\(canister).\(method) cannot be sent to a subnet: \(endpoint) takes only "
                          + allowed.map { "aaaaa-aa.\($0)" }.joined(separator: " and ") + " (interface specification)")
        }
        return .subnet(subnet)
    }

    /// The effective canister id per the specification: `canister` itself, or for `aaaaa-aa` the argument's
    /// `canister_id` or `explicit` (canister creation needs an explicit one). An explicit id other than the canister
    /// of a non-management call is refused: the answer would be verified against another canister's subnet.
    public static func effectiveCanisterID(canister: Principal, method: String, arg: [UInt8],
                                           explicit: Principal?) throws(ICError) -> Principal {
        if let explicit {
            guard canister == .managementCanister || explicit == canister else {
                throw ICError(.invalidArgument, "the effective canister id of a request to \(canister) is that canister; only "
                              + "aaaaa-aa requests are routed by another id (got \(explicit))")
            }
            // An argument that names its canister fixes the route (a signed request file is checked the same way).
            if case .canister(let named)? = try? EffectiveCanisterID.resolve(canister: canister, method: method, arg: arg),
               named != explicit {
                throw ICError(.invalidArgument, "the argument of aaaaa-aa.\(method) names canister \(named), so that is its effective "
                              + "canister id, not \(explicit)")
            }
            return explicit
        }
        switch try EffectiveCanisterID.resolve(canister: canister, method: method, arg: arg) {
        case .canister(let id): return id
        case .any:
            throw ICError(.invalidArgument, "aaaaa-aa.\(method) may go to any subnet: choose one with --subnet ID, or with "
                          + "--effective-canister-id (any canister id on the subnet you want)")
        }
    }

    // MARK: - HTTP

    private enum Operation: String {
        case query, call
        case readState = "read_state"
    }

    /// How a request's body is produced: signed here by the agent's identity (a session checked against `target`
    /// first), sent unsigned from the anonymous principal (public paths), or given as signed bytes.
    private enum Signing {
        case fresh(ICRequest.Body, nonce: [UInt8]?, target: DelegationTarget)
        case anonymous(ICRequest.Body)
        case presigned([UInt8], ICRequest)

        var isSignedHere: Bool {
            if case .presigned = self { return false }
            return true
        }
    }

    private enum StatusSigning {
        /// Signed here; `target` is the canister of the call whose status is read, when known.
        case fresh(DelegationTarget)
        case anonymous
        case presigned([UInt8], ICRequest)
    }

    /// An update call refused for its ingress expiry (the caller decides whether signing it again is safe).
    private struct ExpiryRefusal: Error {
        let request: ICRequest
        let endpoint: String
        let error: TransportError
    }

    /// An update call that got no answer after every retry: 429/5xx, a broken connection or a timeout. It may have
    /// been accepted; the caller reads its status instead of failing or signing it again.
    private struct UnansweredCall: Error {
        let request: ICRequest
        let endpoint: String
        let error: TransportError
    }

    private struct Sent {
        let response: HTTPResponse
        let version: Int
        let request: ICRequest
        let url: String
    }

    private func endpointName(_ operation: Operation, _ route: CertificateScope, _ version: Int) -> String {
        if case .subnet = route { return "subnet \(operation.rawValue) v\(version)" }
        return "\(operation.rawValue) v\(version)"
    }

    /// Posts a request, newest endpoint version first (falling back on 404 with the same signed bytes: a fallback
    /// never makes a second request id), retrying transient failures with the same bytes (`perform`). An expiry
    /// refusal is handled as `ICAgent` describes: a hint beyond `freshnessTolerance` is an error about the local
    /// clock; a read is signed again once with the hint; a call throws `ExpiryRefusal` for `submitCall` to resolve.
    /// A call still unanswered after the retries throws `UnansweredCall`. Returns 200 and 202 answers; refusals throw.
    private func post(_ operation: Operation, route: CertificateScope, versions: [Int], signing: Signing) throws -> Sent {
        let known = shared.state.withLock { $0.unavailable }
        var candidates = versions.filter { !known.contains(endpointName(operation, route, $0)) }
        if candidates.isEmpty { candidates = versions.suffix(1) }
        var index = 0
        var signedAgain = false
        var (request, body) = try prepare(signing)
        while true {
            let version = candidates[index]
            let url = configuration.network.url + "/api/v\(version)/" + route.urlPath + "/" + operation.rawValue
            let name = endpointName(operation, route, version)
            let response: HTTPResponse
            do {
                response = try perform(HTTPRequest(
                    method: "POST", url: url, headers: ["Content-Type": "application/cbor"], body: body,
                    totalTimeout: configuration.requestTimeout, maxResponseBytes: configuration.maxResponseBytes), endpoint: name)
            } catch let error as TransportError where operation == .call && (RetryPolicy.isRetried(error) || error.kind == .timeout) {
                throw UnansweredCall(request: request, endpoint: "v\(version)", error: error)
            }
            if response.status == 404, index + 1 < candidates.count {
                shared.state.withLock { _ = $0.unavailable.insert(name) }
                onEvent(.endpointFallback(from: name, to: endpointName(operation, route, candidates[index + 1])))
                index += 1
                continue
            }
            if operation == .call, RetryPolicy.isRetried(status: response.status) {
                throw UnansweredCall(request: request, endpoint: "v\(version)", error: ICAgent.refusal(response, url: url))
            }
            if response.status == 400, signing.isSignedHere,
               let replicaTime = ClockSkew.replicaTime(fromExpiryError: ICAgent.printable(response.body, limit: 2048)) {
                let hinted = ClockSkew.skew(replicaTime: replicaTime, localNow: IngressExpiry.currentTime())
                let refusal = ICAgent.refusal(response, url: url)
                guard hinted.magnitude <= configuration.freshnessTolerance else {
                    let call = operation == .call ? "; call \(request.requestID.prefixedHex) was not signed again" : ""
                    throw ICError(.configuration, ClockSkew.describeLocalClock(hinted) + "; fix the clock or pass --time-tolerance"
                                  + call + " (the replica says so, unverified: " + refusal.message + ")", reason: .time)
                }
                if operation == .call {
                    throw ExpiryRefusal(request: request, endpoint: "v\(version)", error: refusal)
                }
                if !signedAgain {
                    signedAgain = true
                    shared.state.withLock { $0.clockSkew = hinted }
                    onEvent(.clockSkewCorrected(nanoseconds: hinted, source: .replicaHint))
                    (request, body) = try prepare(signing)
                    continue
                }
            }
            guard response.status == 200 || response.status == 202 else {
                var error = ICAgent.refusal(response, url: url)
                if case .presigned = signing, response.status == 400, error.message.contains("ingress_expiry") {
                    error = TransportError(error.kind, error.message + " (the request was signed for "
                                           + "\(ICTime.format(request.ingressExpiry)); sign it again)", url: url, status: response.status)
                }
                throw error
            }
            return Sent(response: response, version: version, request: request, url: url)
        }
    }

    /// One HTTP exchange, sent again with the same bytes while `RetryPolicy` says so. Returns the last response
    /// (which may still be a 429/5xx when the retries ran out); throws the last transport failure.
    private func perform(_ request: HTTPRequest, endpoint: String) throws -> HTTPResponse {
        try ICAgent.perform(request, endpoint: endpoint, transport: transport, policy: configuration.retryPolicy,
                            cancellation: cancellation, onEvent: onEvent)
    }

    /// `perform` for requests made before there is an agent (the root key fetch).
    private static func perform(_ request: HTTPRequest, endpoint: String, transport: any ICTransport, policy: RetryPolicy,
                                cancellation: HTTPCancellation?, onEvent: (ICAgentEvent) -> Void) throws -> HTTPResponse {
        var attempt = 0
        while true {
            let outcome = Result { () throws(TransportError) in try transport.perform(request) }
            let reason: String
            var retryAfter: Duration?
            switch outcome {
            case .success(let response):
                guard RetryPolicy.isRetried(status: response.status), attempt < policy.retries else { return response }
                reason = "HTTP \(response.status)"
                retryAfter = response.headers["Retry-After"].flatMap { RetryPolicy.retryAfter($0) }
            case .failure(let error):
                guard RetryPolicy.isRetried(error), attempt < policy.retries else { throw error }
                reason = error.message
            }
            attempt += 1
            let delay = policy.delay(beforeRetry: attempt, retryAfter: retryAfter)
            onEvent(.retrying(endpoint: endpoint, reason: reason, attempt: attempt, of: policy.retries, after: delay))
            try pause(delay, cancellation: cancellation)
        }
    }

    private func prepare(_ signing: Signing) throws -> (ICRequest, [UInt8]) {
        switch signing {
        case .presigned(let bytes, let request):
            return (request, bytes)
        case .fresh(let body, let nonce, let target):
            return try sign(body, nonce: nonce, as: identity, target: target)
        case .anonymous(let body):
            return try sign(body, nonce: nil, as: .anonymous, target: .unchecked)
        }
    }

    private func sign(_ body: ICRequest.Body, nonce: [UInt8]?, as signer: ICIdentity,
                      target: DelegationTarget) throws -> (ICRequest, [UInt8]) {
        let now = IngressExpiry.currentTime()
        let expiry = IngressExpiry.expiry(now: now, clockSkew: clockSkew, lifetime: configuration.ingressLifetime)
        let request = try ICRequest(body, sender: signer.principal, ingressExpiry: expiry, nonce: nonce)
        return (request, try signer.envelope(for: request, at: now, delegationTarget: target).encoded())
    }

    private func verifiedCertificate(_ bytes: [UInt8], scope: CertificateScope) throws(ICError) -> VerifiedCertificate {
        let certificate = try ICCertificate(decoding: bytes, limits: CertificateLimits(maxBytes: configuration.maxResponseBytes))
        let verified = try certificate.verify(scope: scope, rootKey: configuration.rootKey,
                                              freshness: .now(tolerance: configuration.freshnessTolerance))
        // Certified time is the replica's clock (a few seconds behind): keep the expiry estimate current.
        let skew = ClockSkew.skew(replicaTime: verified.time, localNow: IngressExpiry.currentTime())
        shared.state.withLock { $0.clockSkew = skew }
        return verified
    }

    /// Sleeps `duration`, waking early (with `.cancelled`) when the cancellation flag is set.
    private func pause(_ duration: Duration) throws(TransportError) {
        try ICAgent.pause(duration, cancellation: cancellation)
    }

    private static func pause(_ duration: Duration, cancellation: HTTPCancellation?) throws(TransportError) {
        let deadline = Date(timeIntervalSinceNow: ICAgent.seconds(duration))
        while Date() < deadline {
            if cancellation?.isCancelled == true { throw TransportError(.cancelled, "interrupted while waiting") }
            Threads.sleep(seconds: min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
        if cancellation?.isCancelled == true { throw TransportError(.cancelled, "interrupted while waiting") }
    }

    private static func unexpectedStatus(_ sent: Sent) -> TransportError {
        TransportError(.protocolViolation, "unexpected HTTP \(sent.response.status) from \(sent.url)", url: sent.url,
                       status: sent.response.status)
    }

    /// A refused request (4xx) or a replica failure (5xx), with the replica's message.
    static func refusal(_ response: HTTPResponse, url: String) -> TransportError {
        let text = printable(response.body, limit: 600)
        let what = response.status >= 500 ? "the replica failed" : "the replica refused the request"
        return TransportError(.rejected, what + (text.isEmpty ? "" : ": " + text), url: url, status: response.status)
    }

    /// The start of a response body as one line of printable text (control characters dropped).
    static func printable(_ body: [UInt8], limit: Int) -> String {
        let text = String(decoding: body.prefix(limit), as: UTF8.self)
        var cleaned = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        cleaned = cleaned.trimmingWhitespace()
        return body.count > limit ? cleaned + "…" : cleaned
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func describe(_ duration: Duration) -> String {
        let value = seconds(duration)
        return value < 1 ? "\(Int((value * 1000).rounded())) ms" : (value == value.rounded() ? "\(Int(value)) s" : "\(value) s")
    }

    static func describeSkew(_ skew: Int64) -> String {
        let seconds = Double(skew) / 1e9
        return (seconds >= 0 ? "+" : "") + seconds.fixedPointText(fractionDigits: 1) + " s"
    }
}
