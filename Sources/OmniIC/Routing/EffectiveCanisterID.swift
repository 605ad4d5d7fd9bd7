import OmniCandid

/// Which canister a call is routed to and range-checked against (interface spec § Effective canister id): the
/// addressed canister, except for the management canister `aaaaa-aa`, where it is the canister the call is
/// about — the `canister_id` field of the argument record (`target_canister` for `install_chunked_code`).
public enum EffectiveCanisterID: Sendable, Equatable {
    case canister(Principal)
    /// Canister creation and `list_canisters`: any canister id is accepted; the caller chooses (e.g. one on the
    /// desired subnet), or sends the request to a subnet instead.
    case any

    /// The effective canister id of a call or query to `canister` with `method` and Candid `arg`.
    public static func resolve(canister: Principal, method: String, arg: [UInt8]) throws(ICError) -> EffectiveCanisterID {
        guard canister == .managementCanister else { return .canister(canister) }
        switch method {
        case "create_canister", "provisional_create_canister_with_cycles", "list_canisters":
            return .any
        default:
            let field = method == "install_chunked_code" ? "target_canister" : "canister_id"
            let values: [CandidValue]
            do { values = try Candid.decode(arg) } catch {
                throw ICError.malformed("the argument of aaaaa-aa.\(method) is not valid Candid: \(error.message)")
            }
            guard case .principal(let target)? = values.first?[field: field] else {
                throw ICError(.invalidArgument,
                              "aaaaa-aa.\(method) has no \(field) in its argument record; give the effective canister id explicitly")
            }
            return .canister(target)
        }
    }
}
