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
///   signature triggers exactly one forced key refresh, then the failure is final.
/// - Calls: `/api/v4/…/call` (synchronous; v3 then v2 on 404); a certificate in the answer is verified and
///   its `/request_status` read; a 202 is followed by `read_state` polls (interval and attempts configurable).
/// - read_state for canisters and subnets: v3, v2 on 404; certificates verified for their scope (BLS under the
///   root key, delegation, canister ranges in both layouts, `/time` freshness).
/// - Clock skew: verified certificates' `/time` keeps the estimate of the network's clock current. An "ingress_expiry
///   not within expected range" answer is unauthenticated: its hint of the replica's time is believed only within
///   `freshnessTolerance` (beyond it the error says how far off the local clock seems), and only reads are signed
///   again with it. A refused call is never simply signed again (a second request id could run it twice): its
///   request status is read first; a call that was accepted after all is followed, and a new call is signed only
///   when the network's certified time proves the first one expired.
/// - Node keys and subnet ranges (`/subnet`) are public: they are read anonymously, never with the user's identity.
///
/// Only `Configuration.verifies = false` (the CLI's `--unsafe`) turns the checks off. Blocking: call it from a
/// plain thread. Errors: `ICError` (malformed answers, failed verification), `TransportError` (network,
/// timeouts, HTTP refusals with their status).
public final class ICAgent: Sendable {
    public struct Configuration: Sendable {
        public var network: ICNetwork
        /// The root of trust: the pinned mainnet key, or a local replica's key.
        public var rootKey: ICRootKey
        /// False skips every check (`--unsafe`). Results then say `verified: false`.
        public var verifies: Bool = true
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
        try ICAgent.status(network: configuration.network, transport: transport, timeout: configuration.requestTimeout)
    }

    static func status(network: ICNetwork, transport: any ICTransport, timeout: Duration) throws -> ReplicaStatus {
        let url = network.url + "/api/v2/status"
        let limit = 1 << 20
        let response = try transport.perform(HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/cbor"],
                                                         totalTimeout: timeout, maxResponseBytes: limit))
        guard response.status == 200 else { throw ICAgent.refusal(response, url: url) }
        return try ReplicaStatus(decoding: response.body, maxBytes: limit)
    }

    /// The root key a local replica reports about itself. Allowed only for loopback URLs (the user's own machine),
    /// never for the mainnet, whose key is pinned.
    public static func fetchRootKey(network: ICNetwork, transport: (any ICTransport)? = nil,
                                    timeout: Duration = .seconds(20)) throws -> ICRootKey {
        guard network.isLoopback, !network.isMainnet else {
            throw ICError(.configuration, "the root key may be fetched only from a replica on this machine (localhost, 127.0.0.0/8, ::1), "
                          + "not from \(network.url); give it with --root-key")
        }
        let transport = transport ?? HTTPClientTransport(client: HTTPClient())
        guard let der = try status(network: network, transport: transport, timeout: timeout).rootKey else {
            throw ICError(.configuration, "the replica at \(network.url) does not report a root key; give it with --root-key")
        }
        return try ICRootKey(der: der)
    }

    // MARK: - Queries

    /// A verified query. `effectiveCanister` defaults to `canister` (for `aaaaa-aa`, to the argument's
    /// `canister_id`).
    public func query(canister: Principal, method: String, arg: [UInt8], effectiveCanister: Principal? = nil) throws -> QueryResult {
        let ecid = try ICAgent.effectiveCanisterID(canister: canister, method: method, arg: arg, explicit: effectiveCanister)
        return try submitQuery(.fresh(.query(canister: canister, method: method, arg: arg), nonce: nil), ecid: ecid)
    }

    private func submitQuery(_ signing: Signing, ecid: Principal) throws -> QueryResult {
        let sent = try post(.query, route: .canister(ecid), versions: [3, 2], signing: signing)
        guard sent.response.status == 200 else { throw ICAgent.unexpectedStatus(sent) }
        let response = try QueryResponse(decoding: sent.response.body, maxBytes: configuration.maxResponseBytes)
        let requestID = sent.request.requestID
        let verification = try verify(response, requestID: requestID, ecid: ecid)
        return QueryResult(requestID: requestID, effectiveCanisterID: ecid, outcome: response.outcome,
                           endpoint: "v\(sent.version)", verification: verification)
    }

    private func verify(_ response: QueryResponse, requestID: RequestID, ecid: Principal) throws -> QueryVerification {
        guard configuration.verifies else { return .skipped }
        guard !response.signatures.isEmpty else {
            throw ICError.verification(.nodeSignature, "the query response carries no node signature")
        }
        let freshness = Freshness.now(tolerance: configuration.freshnessTolerance)
        let nodes = response.signatures.map(\.identity)
        let (subnet, fromCache) = try subnetInfo(serving: ecid, refresh: false)
        let first = Result { () throws(ICError) in try response.verify(requestID: requestID, subnet: subnet, freshness: freshness) }
        switch first {
        case .success:
            return .nodeSignatures(subnet: subnet.subnetID, nodes: nodes, keysFromCache: fromCache, keysRefreshed: false)
        case .failure(let error) where error.reason == .nodeSignature:
            // Node keys rotate: keys from the cache (or fetched a moment ago) may miss the node that answered.
            onEvent(.nodeKeysRefreshing(reason: error.message))
            let (refreshed, _) = try subnetInfo(serving: ecid, refresh: true)
            try response.verify(requestID: requestID, subnet: refreshed, freshness: freshness)
            return .nodeSignatures(subnet: refreshed.subnetID, nodes: nodes, keysFromCache: false, keysRefreshed: true)
        case .failure(let error):
            throw error
        }
    }

    /// The verified facts (node keys, ranges) of the subnet serving `canister`: from memory, the disk cache, or a
    /// verified `read_state` of `/subnet`; `refresh` forces the read.
    ///
    /// The read is anonymous: the path is public, so it needs no signature, and signing it would tell the network
    /// who is asking and fail for a session whose targets do not include `canister`. The subnet must serve
    /// `canister` by its certified ranges (the interface spec's check for node keys): a root-signed certificate
    /// vouches for every subnet, but its node keys are those of the root subnet, which serves only its own ranges.
    /// With verification off (`--unsafe`) nothing is checked and nothing is written to the disk cache.
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
        guard !configuration.verifies || info.serves(canister) else {
            let ranges = info.canisterRanges.isEmpty ? "certifies no canister ranges for it"
                : "certifies its ranges as " + info.canisterRanges.map(\.description).joined(separator: ", ")
            throw ICError.verification(.range, "subnet \(info.subnetID) does not serve canister \(canister): the certificate "
                                       + ranges + ", so its node keys do not speak for that canister",
                                       location: "/subnet/\(info.subnetID)/canister_ranges")
        }
        remember(info)
        onEvent(.nodeKeysFetched(subnet: info.subnetID))
        // Only verified facts are worth keeping: an unverified read would poison later, verified runs.
        if configuration.verifies, let cache = configuration.nodeKeyCache {
            do { try cache.store(info, rootKey: configuration.rootKey) } catch { onEvent(.cacheWriteFailed(error.message)) }
        }
        return (info, false)
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
    /// `.accepted` with the request id (or a non-replicated reject).
    public func call(canister: Principal, method: String, arg: [UInt8], effectiveCanister: Principal? = nil,
                     wait: Bool = true) throws -> CallResult {
        let ecid = try ICAgent.effectiveCanisterID(canister: canister, method: method, arg: arg, explicit: effectiveCanister)
        // A nonce per call: identical calls within the same expiry minute would otherwise share a request id and
        // the IC would treat the second as a duplicate of the first.
        return try submitCall(.fresh(.call(canister: canister, method: method, arg: arg), nonce: ICRequest.randomNonce()),
                              ecid: ecid, statusSigning: .fresh, wait: wait)
    }

    private func submitCall(_ signing: Signing, ecid: Principal, statusSigning: StatusSigning?, wait: Bool,
                            afterRefusal: Bool = false) throws -> CallResult {
        let sent: Sent
        do {
            sent = try post(.call, route: .canister(ecid), versions: wait ? [4, 3, 2] : [2, 4, 3], signing: signing)
        } catch let refusal as ExpiryRefusal {
            if afterRefusal { throw refusal.error }
            return try recover(from: refusal, signing: signing, ecid: ecid, statusSigning: statusSigning, wait: wait)
        }
        let requestID = sent.request.requestID
        let endpoint = "v\(sent.version)"
        if sent.response.status == 200 {
            switch try CallResponse(decoding: sent.response.body, maxBytes: configuration.maxResponseBytes) {
            case .rejected(let reject):
                return CallResult(requestID: requestID, effectiveCanisterID: ecid, outcome: .rejected(reject), endpoint: endpoint,
                                  polls: 0, certificate: nil, verified: configuration.verifies)
            case .certificate(let bytes):
                let certificate = try verifiedCertificate(bytes, scope: .canister(ecid))
                let status = try certificate.requestStatus(requestID)
                if let outcome = CallOutcome(status) {
                    return CallResult(requestID: requestID, effectiveCanisterID: ecid, outcome: unsafeAware(outcome), endpoint: endpoint,
                                      polls: 0, certificate: certificate, verified: configuration.verifies)
                }
            }
        } else if sent.response.status != 202 {
            throw ICAgent.unexpectedStatus(sent)
        }
        onEvent(.accepted(requestID, endpoint: endpoint))
        return try follow(requestID, ecid: ecid, endpoint: endpoint, statusSigning: statusSigning, wait: wait, sleepFirst: true)
    }

    /// The outcome of an accepted call: polled until final, or `.accepted` when not waiting (or unable to poll).
    private func follow(_ requestID: RequestID, ecid: Principal, endpoint: String, statusSigning: StatusSigning?, wait: Bool,
                        sleepFirst: Bool) throws -> CallResult {
        guard wait, let statusSigning else {
            return CallResult(requestID: requestID, effectiveCanisterID: ecid, outcome: .accepted, endpoint: endpoint, polls: 0,
                              certificate: nil, verified: configuration.verifies)
        }
        let polled = try poll(requestID, ecid: ecid, signing: statusSigning, sleepFirst: sleepFirst)
        guard let outcome = CallOutcome(polled.status) else {
            throw ICError(.internalFailure, "polling ended on a non-terminal status")
        }
        return CallResult(requestID: requestID, effectiveCanisterID: ecid, outcome: unsafeAware(outcome), endpoint: endpoint,
                          polls: polled.polls, certificate: polled.certificate, verified: configuration.verifies)
    }

    /// A call refused for its ingress expiry. The refusal is not authenticated and the call may have reached the
    /// replica anyway, so it is not signed again blindly: its certified request status decides.
    /// - known to the network: the refusal was false; the call is followed like any accepted call;
    /// - unknown, and its expiry already past in the network's certified time: it can never run, so one new call is
    ///   signed with that time;
    /// - unknown, and its expiry not yet past: it may still run; signing a second one could run it twice, so this
    ///   fails and says how to check on it.
    private func recover(from refusal: ExpiryRefusal, signing: Signing, ecid: Principal, statusSigning: StatusSigning?,
                         wait: Bool) throws -> CallResult {
        let first = refusal.request
        let read = try readState(route: .canister(ecid), paths: [StatePath.requestStatus(first.requestID)], signing: .fresh)
        let status = unsafeAware(try read.certificate.requestStatus(first.requestID))
        let endpoint = refusal.endpoint
        if status != .unknown {
            onEvent(.refusalContradicted(first.requestID, refusal: refusal.error.message))
            if let outcome = CallOutcome(status) {
                return CallResult(requestID: first.requestID, effectiveCanisterID: ecid, outcome: outcome, endpoint: endpoint,
                                  polls: 1, certificate: read.certificate, verified: configuration.verifies)
            }
            return try follow(first.requestID, ecid: ecid, endpoint: endpoint, statusSigning: statusSigning, wait: wait,
                              sleepFirst: true)
        }
        let networkTime = read.certificate.time
        let skew = ClockSkew.skew(replicaTime: networkTime, localNow: IngressExpiry.currentTime())
        let check = "'omni ic request-status \(first.requestID.prefixedHex) \(ecid)'"
        guard first.ingressExpiry < networkTime else {
            let stillValid = "the network's \(configuration.verifies ? "certified" : "reported") time "
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
        onEvent(.clockSkewCorrected(nanoseconds: skew, source: configuration.verifies ? .certifiedTime : .replicaHint))
        return try submitCall(signing, ecid: ecid, statusSigning: statusSigning, wait: wait, afterRefusal: true)
    }

    /// The status of `requestID` (sent to `effectiveCanister` by this identity); with `wait`, polled until final.
    public func requestStatus(_ requestID: RequestID, effectiveCanister: Principal, wait: Bool = true) throws -> RequestStatusResult {
        if wait {
            let polled = try poll(requestID, ecid: effectiveCanister, signing: .fresh, sleepFirst: false)
            return RequestStatusResult(requestID: requestID, status: unsafeAware(polled.status), polls: polled.polls,
                                       certificate: polled.certificate, verified: configuration.verifies)
        }
        let read = try readState(route: .canister(effectiveCanister), paths: [StatePath.requestStatus(requestID)], signing: .fresh)
        return RequestStatusResult(requestID: requestID, status: unsafeAware(try read.certificate.requestStatus(requestID)), polls: 1,
                                   certificate: read.certificate, verified: read.verified)
    }

    private func poll(_ requestID: RequestID, ecid: Principal, signing: StatusSigning,
                      sleepFirst: Bool) throws -> (status: RequestStatus, certificate: VerifiedCertificate, polls: Int) {
        var last = "unknown"
        let total = configuration.pollAttempts
        for attempt in 1...total {
            if sleepFirst || attempt > 1 { try pause(configuration.pollInterval) }
            let read = try readState(route: .canister(ecid), paths: [StatePath.requestStatus(requestID)], signing: signing)
            let status = try read.certificate.requestStatus(requestID)
            last = ICAgent.name(of: status)
            onEvent(.polled(requestID, attempt: attempt, of: total, status: last))
            if status.isTerminal { return (status, read.certificate, attempt) }
        }
        throw TransportError(.timeout, "request \(requestID) has no final status after \(total) polls, "
                             + "\(ICAgent.describe(configuration.pollInterval)) apart (last status: \(last)); it may still complete: "
                             + "check later with 'omni ic request-status \(requestID) \(ecid)'",
                             url: configuration.network.url)
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
        try readState(route: .canister(canister), paths: paths, signing: .fresh)
    }

    /// A verified read of `paths` in the state of `subnet` (the certificate must come from that subnet).
    public func readSubnetState(subnet: Principal, paths: [StatePath]) throws -> StateRead {
        try readState(route: .subnet(subnet), paths: paths, signing: .fresh)
    }

    /// The metadata section `name` (`candid:service`, …) of `canister`: Found with its bytes, Absent when the
    /// canister has no such public section, Unknown when the certificate hides it.
    public func metadata(canister: Principal, name: String) throws -> (lookup: LookupResult, read: StateRead) {
        let path = StatePath.canisterMetadata(canister.bytes, name: name)
        let read = try readState(canister: canister, paths: [path])
        return (read.certificate.lookup(path), read)
    }

    private func readState(route: Route, paths: [StatePath], signing: StatusSigning) throws -> StateRead {
        let requestSigning: Signing
        switch signing {
        case .fresh: requestSigning = .fresh(.readState(paths: paths), nonce: nil)
        case .anonymous: requestSigning = .anonymous(.readState(paths: paths))
        case .presigned(let bytes, let request): requestSigning = .presigned(bytes, request)
        }
        let sent = try post(.readState, route: route, versions: [3, 2], signing: requestSigning)
        guard sent.response.status == 200 else { throw ICAgent.unexpectedStatus(sent) }
        let bytes = try ReadStateResponse.certificate(from: sent.response.body, maxBytes: configuration.maxResponseBytes)
        let scope: CertificateScope
        switch route {
        case .canister(let id): scope = .canister(id)
        case .subnet(let id): scope = .subnet(id)
        }
        return StateRead(paths: paths, certificate: try verifiedCertificate(bytes, scope: scope), verified: configuration.verifies,
                         endpoint: "v\(sent.version)")
    }

    // MARK: - Requests signed elsewhere

    /// Sends a request signed offline (`omni ic sign`). A call is waited for (polling with the file's signed status
    /// read, or with this agent's identity when it is the sender); a query is verified like any query; a
    /// read_state certificate is verified for the file's effective canister id.
    public func send(_ file: SignedRequestFile, wait: Bool = true) throws -> SentRequestResult {
        let signing = Signing.presigned(file.envelopeBytes, file.request)
        switch file.request.body {
        case .call:
            var statusSigning: StatusSigning?
            if let status = file.requestStatus {
                statusSigning = .presigned(status.envelopeBytes, status.envelope.content)
            } else if file.request.sender == identity.principal {
                statusSigning = .fresh
            }
            return .call(try submitCall(signing, ecid: file.effectiveCanisterID, statusSigning: statusSigning, wait: wait))
        case .query:
            return .query(try submitQuery(signing, ecid: file.effectiveCanisterID))
        case .readState(let paths):
            return .readState(try readState(route: .canister(file.effectiveCanisterID), paths: paths,
                                            signing: .presigned(file.envelopeBytes, file.request)))
        }
    }

    // MARK: - Routing

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
            throw ICError(.invalidArgument, "aaaaa-aa.\(method) may go to any subnet: choose one with --effective-canister-id "
                          + "(any canister id on the subnet you want)")
        }
    }

    // MARK: - HTTP

    private enum Operation: String {
        case query, call
        case readState = "read_state"
    }

    private enum Route {
        case canister(Principal)
        case subnet(Principal)

        var path: String {
            switch self {
            case .canister(let id): "canister/" + id.text
            case .subnet(let id): "subnet/" + id.text
            }
        }
    }

    /// How a request's body is produced: signed here by the agent's identity, sent unsigned from the anonymous
    /// principal (public paths), or given as signed bytes.
    private enum Signing {
        case fresh(ICRequest.Body, nonce: [UInt8]?)
        case anonymous(ICRequest.Body)
        case presigned([UInt8], ICRequest)

        var isSignedHere: Bool {
            if case .presigned = self { return false }
            return true
        }
    }

    private enum StatusSigning {
        case fresh
        case anonymous
        case presigned([UInt8], ICRequest)
    }

    /// An update call refused for its ingress expiry (the caller decides whether signing it again is safe).
    private struct ExpiryRefusal: Error {
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

    private func endpointName(_ operation: Operation, _ route: Route, _ version: Int) -> String {
        if case .subnet = route { return "subnet \(operation.rawValue) v\(version)" }
        return "\(operation.rawValue) v\(version)"
    }

    /// Posts a request, newest endpoint version first (falling back on 404 with the same signed bytes: a fallback
    /// never makes a second request id). An expiry refusal is handled as `ICAgent` describes: a hint beyond
    /// `freshnessTolerance` is an error about the local clock; a read is signed again once with the hint; a call
    /// throws `ExpiryRefusal` for `submitCall` to resolve. Returns 200 and 202 answers; refusals throw.
    private func post(_ operation: Operation, route: Route, versions: [Int], signing: Signing) throws -> Sent {
        let known = shared.state.withLock { $0.unavailable }
        var candidates = versions.filter { !known.contains(endpointName(operation, route, $0)) }
        if candidates.isEmpty { candidates = versions.suffix(1) }
        var index = 0
        var signedAgain = false
        var (request, body) = try prepare(signing)
        while true {
            let version = candidates[index]
            let url = configuration.network.url + "/api/v\(version)/" + route.path + "/" + operation.rawValue
            let response = try transport.perform(HTTPRequest(
                method: "POST", url: url, headers: ["Content-Type": "application/cbor"], body: body,
                totalTimeout: configuration.requestTimeout, maxResponseBytes: configuration.maxResponseBytes))
            if response.status == 404, index + 1 < candidates.count {
                let name = endpointName(operation, route, version)
                shared.state.withLock { _ = $0.unavailable.insert(name) }
                onEvent(.endpointFallback(from: name, to: endpointName(operation, route, candidates[index + 1])))
                index += 1
                continue
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

    private func prepare(_ signing: Signing) throws -> (ICRequest, [UInt8]) {
        switch signing {
        case .presigned(let bytes, let request):
            return (request, bytes)
        case .fresh(let body, let nonce):
            return try sign(body, nonce: nonce, as: identity)
        case .anonymous(let body):
            return try sign(body, nonce: nil, as: .anonymous)
        }
    }

    private func sign(_ body: ICRequest.Body, nonce: [UInt8]?, as signer: ICIdentity) throws -> (ICRequest, [UInt8]) {
        let now = IngressExpiry.currentTime()
        let expiry = IngressExpiry.expiry(now: now, clockSkew: clockSkew, lifetime: configuration.ingressLifetime)
        let request = try ICRequest(body, sender: signer.principal, ingressExpiry: expiry, nonce: nonce)
        return (request, try signer.envelope(for: request, at: now).encoded())
    }

    private func verifiedCertificate(_ bytes: [UInt8], scope: CertificateScope) throws(ICError) -> VerifiedCertificate {
        let certificate = try ICCertificate(decoding: bytes, limits: CertificateLimits(maxBytes: configuration.maxResponseBytes))
        guard configuration.verifies else {
            // --unsafe: the facts are read from the tree as sent; nothing vouches for them.
            return VerifiedCertificate(certificate: certificate, time: try certificate.certifiedTime(),
                                       subnetID: certificate.delegation?.subnetID ?? configuration.rootKey.subnetID,
                                       isDelegated: certificate.delegation != nil, signingKeyDER: configuration.rootKey.der,
                                       rootKey: configuration.rootKey)
        }
        let verified = try certificate.verify(scope: scope, rootKey: configuration.rootKey,
                                              freshness: .now(tolerance: configuration.freshnessTolerance))
        // Certified time is the replica's clock (a few seconds behind): keep the expiry estimate current.
        let skew = ClockSkew.skew(replicaTime: verified.time, localNow: IngressExpiry.currentTime())
        shared.state.withLock { $0.clockSkew = skew }
        return verified
    }

    /// With `--unsafe` nothing is certified, whatever the tree claims.
    private func unsafeAware(_ outcome: CallOutcome) -> CallOutcome {
        guard !configuration.verifies, case .rejected(let reject) = outcome else { return outcome }
        return .rejected(Reject(code: reject.code, message: reject.message, errorCode: reject.errorCode, certified: false))
    }

    private func unsafeAware(_ status: RequestStatus) -> RequestStatus {
        guard !configuration.verifies, case .rejected(let reject) = status else { return status }
        return .rejected(Reject(code: reject.code, message: reject.message, errorCode: reject.errorCode, certified: false))
    }

    /// Sleeps `duration`, waking early (with `.cancelled`) when the cancellation flag is set.
    private func pause(_ duration: Duration) throws(TransportError) {
        let deadline = Date(timeIntervalSinceNow: ICAgent.seconds(duration))
        while Date() < deadline {
            if cancellation?.isCancelled == true { throw TransportError(.cancelled, "interrupted while waiting to poll") }
            Threads.sleep(seconds: min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
        if cancellation?.isCancelled == true { throw TransportError(.cancelled, "interrupted while waiting to poll") }
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
