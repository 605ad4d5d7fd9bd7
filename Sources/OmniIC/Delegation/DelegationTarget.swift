import OmniCandid

/// The canister a sender delegation's `targets` must include for a request to be accepted, as the interface
/// specification's abstract behaviour checks it (`… ∈ verify_envelope(E, …)` in each request kind's conditions;
/// `verify_envelope` returns the intersection of every delegation's targets):
///
/// - an update call: the `canister_id` it is signed for — `aaaaa-aa` itself for management-canister calls;
/// - a query: its `canister_id`, except a management-canister query that names a canister in its argument
///   (`canister_status`, `canister_metrics`, `fetch_canister_logs`): there the argument's `canister_id`, the same
///   canister as its effective canister id; `list_canisters` is checked against `aaaaa-aa`;
/// - a read_state: only `request_status` paths are checked, against the `canister_id` of the call whose status is
///   read; every other path (`/time`, `/subnet`, `/canister/<id>/…`) is not restricted by targets.
///
/// So a session scoped to a bucket canister may query `aaaaa-aa.canister_metrics` about the bucket (signed
/// canister id `aaaaa-aa`, effective canister id and delegation target the bucket), but not call `aaaaa-aa`.
public struct DelegationTarget: Sendable, Equatable, CustomStringConvertible {
    /// Why a request is checked against this canister (for messages).
    public enum Basis: Sendable, Equatable {
        /// The canister the call or query is signed for.
        case signedCanister
        /// The `canister_id` in the argument of a management-canister query.
        case argumentCanister(method: String)
        /// The canister of the call whose status a read_state asks for.
        case statusOfCall
        /// Named by the caller (`--delegation-target`).
        case explicit
        /// Nothing is checked (a read_state without request_status paths).
        case unrestricted
    }

    /// Nil: the request is not checked against delegation targets at all.
    public let canister: Principal?
    public let basis: Basis

    public init(canister: Principal?, basis: Basis) {
        self.canister = canister
        self.basis = basis
    }

    /// A read_state without request_status paths: not restricted by targets.
    public static let unchecked = DelegationTarget(canister: nil, basis: .unrestricted)

    /// A read of the status of a call signed for `canister`.
    public static func statusOf(call canister: Principal) -> DelegationTarget {
        DelegationTarget(canister: canister, basis: .statusOfCall)
    }

    /// Named by the caller.
    public static func explicit(_ canister: Principal) -> DelegationTarget { DelegationTarget(canister: canister, basis: .explicit) }

    /// The target the specification checks for `body`. `statusOf` is the `canister_id` of the call whose
    /// request status a read_state asks for, when the caller knows it; without it such a read is left to the IC.
    public static func of(_ body: ICRequest.Body, statusOf call: Principal? = nil) -> DelegationTarget {
        switch body {
        case .call(let canister, _, _):
            return DelegationTarget(canister: canister, basis: .signedCanister)
        case .query(let canister, let method, let arg):
            guard canister == .managementCanister, method != "list_canisters" else {
                return DelegationTarget(canister: canister, basis: .signedCanister)
            }
            // A management query whose argument names no canister is refused by the IC whatever the targets.
            guard case .canister(let named)? = try? EffectiveCanisterID.resolve(canister: canister, method: method, arg: arg) else {
                return DelegationTarget(canister: canister, basis: .signedCanister)
            }
            return DelegationTarget(canister: named, basis: .argumentCanister(method: method))
        case .readState(let paths):
            guard let call, paths.contains(where: { $0.labels.first.map { $0 == Array("request_status".utf8) } ?? false }) else {
                return .unchecked
            }
            return DelegationTarget(canister: call, basis: .statusOfCall)
        }
    }

    /// In words: "aaaaa-aa.canister_metrics is checked against the canister_id in its argument, x".
    public var description: String {
        guard let canister else { return "not checked against delegation targets" }
        switch basis {
        case .signedCanister: return "\(canister), the canister the request is signed for"
        case .argumentCanister(let method): return "\(canister), the canister_id in the argument of aaaaa-aa.\(method)"
        case .statusOfCall: return "\(canister), the canister of the call whose status is read"
        case .explicit: return "\(canister) (--delegation-target)"
        case .unrestricted: return "\(canister)"
        }
    }
}

extension DelegationChain {
    /// Refuses `target` when the chain's targets do not include it (reason `target`, kind `unauthorized`): the IC
    /// would refuse the request, so it is not sent.
    public func checkTargets(_ target: DelegationTarget) throws(ICError) {
        guard let canister = target.canister, let allowed = effectiveTargets, !allowed.contains(canister) else { return }
        let list = allowed.isEmpty ? "no canister (the targets of its delegations have nothing in common)"
            : allowed.map(\.text).sorted().joined(separator: ", ")
        throw ICError(.unauthorized, "the delegated session may sign only for \(list); this request is checked against "
                      + target.description + ", which is not among them", reason: .target)
    }
}
