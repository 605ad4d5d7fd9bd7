import OmniCandid

/// A query's answer, verified unless asked otherwise (`verification` says which).
public struct QueryResult: Sendable {
    public let requestID: RequestID
    /// Where it went: the effective canister id, or the subnet of a subnet query.
    public let route: CertificateScope
    /// The reply bytes or the (node-signed, not consensus-certified) reject.
    public let outcome: QueryResponse.Outcome
    /// `v3` or `v2`.
    public let endpoint: String
    public let verification: QueryVerification

    /// False only for a query asked for unverified (`--unsafe`).
    public var verified: Bool { verification != .skipped }
}

/// How a query response was checked.
public enum QueryVerification: Sendable, Equatable {
    /// Asked for unverified (`omni ic query --unsafe`): nothing was checked.
    case skipped
    /// Every node signature verified with node keys of `subnet` from a verified certificate.
    /// `keysFromCache`: the keys came from the on-disk cache; `keysRefreshed`: a first check failed and the keys
    /// were fetched again once before the check that passed.
    case nodeSignatures(subnet: Principal, nodes: [Principal], keysFromCache: Bool, keysRefreshed: Bool)
}

/// How an update call ended (or that it was not waited for).
public enum CallOutcome: Sendable, Equatable {
    case replied([UInt8])
    /// Certified (`reject.certified`) when it came from the request status, uncertified when the replica
    /// refused the call before consensus (`non_replicated_rejection`, a v2 reject body).
    case rejected(Reject)
    /// The call completed but its reply or reject has been forgotten: there is no reply to show.
    case done
    /// Submitted and not waited for (`--async`, or a signed call sent without a way to poll).
    case accepted

    init?(_ status: RequestStatus) {
        switch status {
        case .replied(let reply): self = .replied(reply)
        case .rejected(let reject): self = .rejected(reject)
        case .done: self = .done
        case .unknown, .received, .processing: return nil
        }
    }
}

/// An update call's result.
public struct CallResult: Sendable {
    public let requestID: RequestID
    /// Where it went: the effective canister id, or the subnet of a subnet call.
    public let route: CertificateScope
    public let outcome: CallOutcome
    /// The endpoint that accepted the call: `v4`, `v3` or `v2`.
    public let endpoint: String
    /// read_state polls made after a 202.
    public let polls: Int
    /// The certificate the outcome was read from (nil for uncertified rejects and accepted calls).
    public let certificate: VerifiedCertificate?
}

/// A request's status as read (and, when waiting, polled) from the certified state.
public struct RequestStatusResult: Sendable {
    public let requestID: RequestID
    public let status: RequestStatus
    public let polls: Int
    public let certificate: VerifiedCertificate
}

/// A verified `read_state` answer.
public struct StateRead: Sendable {
    public let paths: [StatePath]
    /// Verified for the canister or subnet it was read from.
    public let certificate: VerifiedCertificate
    /// `v3` or `v2`.
    public let endpoint: String
}

/// What `ICAgent.send` did with a request signed elsewhere.
public enum SentRequestResult: Sendable {
    case call(CallResult)
    case query(QueryResult)
    case readState(StateRead)
}

/// Where the agent's estimate of the network's clock comes from.
public enum ClockSource: String, Sendable {
    /// A verified certificate's `/time`.
    case certifiedTime = "certified_time"
    /// An expiry refusal's text: unauthenticated.
    case replicaHint = "replica_hint"
}

/// Things worth telling the user while the agent works (progress, fallbacks, corrections).
public enum ICAgentEvent: Sendable, CustomStringConvertible {
    /// An endpoint answered 404; the older one is tried.
    case endpointFallback(from: String, to: String)
    /// The network's clock differs from ours: later requests are signed with its time. `source` says how it is
    /// known: from a verified certificate's `/time`, or from the replica's unauthenticated expiry refusal (then
    /// within the time tolerance, and only reads were signed again with it).
    case clockSkewCorrected(nanoseconds: Int64, source: ClockSource)
    /// A call the replica refused for its expiry turned out to be known to the network (it was accepted after
    /// all): it is followed, not signed again.
    case refusalContradicted(RequestID, refusal: String)
    /// A call was accepted (202) and will be polled.
    case accepted(RequestID, endpoint: String)
    /// One poll of the request status.
    case polled(RequestID, attempt: Int, of: Int, status: String)
    /// Node keys of a subnet were read from a verified certificate (or from the cache).
    case nodeKeysFetched(subnet: Principal)
    case nodeKeysFromCache(subnet: Principal)
    /// A query signature did not check out with the keys at hand; they are fetched again, once.
    case nodeKeysRefreshing(reason: String)
    /// The on-disk node key cache could not be written (the command still succeeds).
    case cacheWriteFailed(String)
    /// The same request bytes are sent again after a transient failure (`reason`: "HTTP 503", "connection closed
    /// early: …"), retry `attempt` of `of`, after waiting `after`.
    case retrying(endpoint: String, reason: String, attempt: Int, of: Int, after: Duration)
    /// A call whose submission failed after every retry is known to the network: it is followed, not signed again.
    case callKnownAfterFailure(RequestID, failure: String)

    public var description: String {
        switch self {
        case .endpointFallback(let from, let to): "\(from) is not available (HTTP 404); using \(to)"
        case .clockSkewCorrected(let skew, .certifiedTime):
            "the network's certified time differs from our clock by \(ICAgent.describeSkew(skew)); signed again with its time"
        case .clockSkewCorrected(let skew, .replicaHint):
            "the replica says its clock differs from ours by \(ICAgent.describeSkew(skew)) (unverified, within the time "
                + "tolerance); signed again with its time"
        case .refusalContradicted(let id, let refusal):
            "the replica refused call \(id) (\(refusal)), but the network knows it: following it instead of signing it again"
        case .accepted(let id, let endpoint): "call \(id) accepted (\(endpoint), 202); waiting for its status"
        case .polled(let id, let attempt, let total, let status): "request \(id): \(status) (poll \(attempt)/\(total))"
        case .nodeKeysFetched(let subnet): "read the node keys of subnet \(subnet) from a verified certificate"
        case .nodeKeysFromCache(let subnet): "using cached node keys of subnet \(subnet)"
        case .nodeKeysRefreshing(let reason): "\(reason); fetching the subnet's node keys again (once)"
        case .cacheWriteFailed(let message): "cannot cache node keys: \(message)"
        case .retrying(let endpoint, let reason, let attempt, let total, let delay):
            "\(endpoint): \(reason); sending the same request again in \(ICAgent.describe(delay)) (retry \(attempt)/\(total))"
        case .callKnownAfterFailure(let id, let failure):
            "call \(id) was not answered (\(failure)), but the network knows it: following it instead of signing it again"
        }
    }
}
