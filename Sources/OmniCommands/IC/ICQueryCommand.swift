import OmniCandid
import OmniCLI
import OmniIC

/// `omni ic query CANISTER METHOD [ARGS|-]`: a query whose response is verified (node signatures) before printing.
enum ICQueryCommand {
    typealias Support = ICCanisterCallSupport

    /// The one unverified path omni offers, asked for by name on the one command where it can make sense.
    static let unsafe = Flag(
        "unsafe",
        help: "Print this query's answer WITHOUT checking its node signatures (no subnet keys are read). The answer is "
            + "marked unverified: a warning on stderr, \"verified\": false in JSON. Types from candid:service are still verified.",
        group: "Trust")

    static let command = Command(
        "query", abstract: "Query a canister; the response is verified before it is printed.",
        discussion: """
            Sends a query (POST /api/v3/canister/<id>/query, v2 if the replica lacks v3) and checks every node \
            signature on the response with the subnet's node keys, which come from a verified certificate and are \
            cached for an hour under $XDG_CACHE_HOME/omni/ic-subnets. If a node is unknown or a signature fails, the \
            keys are fetched again once; if the check still fails, nothing is printed (exit 1). Rejects are verified \
            the same way and printed with their code (exit 4). Without --did, the canister's candid:service \
            metadata (read from a verified certificate) gives the types, so records show field names. Every \
            input (ARGS, files, keys, the root key, the identity) is checked before anything is sent, and so is \
            a scoped session's right to make the query: its delegation targets must include the canister queried, \
            or, for an aaaaa-aa query about a canister (canister_status, canister_metrics, fetch_canister_logs), \
            that canister (exit 6 otherwise). --subnet ID sends aaaaa-aa list_canisters to \
            /api/v3/subnet/ID/query, verified with that subnet's node keys. Transient failures (HTTP 429, 502, \
            503, 504, a broken connection) are retried with the same bytes (--retries). --unsafe prints the answer \
            without checking it, marked unverified. \
            --output candid (the default) prints Candid text, json the values with the request id and how they \
            were verified, hex the reply bytes as hex, raw the reply bytes themselves.
            """,
        options: [Support.did, Support.inputFormat] + Support.routing + [unsafe] + ICNetworkOptions.connection
            + ICNetworkOptions.signing,
        arguments: [Support.canister, Support.method, Support.arguments],
        relations: ICNetworkOptions.relations + Support.routingRelations,
        examples: [
            Example("omni ic query ryjl3-tyaaa-aaaaa-aaaba-cai icrc1_name", "The ledger's token name, verified."),
            Example("omni ic query ryjl3-tyaaa-aaaaa-aaaba-cai icrc1_balance_of '(record { owner = principal \"2vxsx-fae\" })' -o json",
                    "A balance as JSON (nat values are strings)."),
            Example("omni ic query bkyz2-fmaaa-aaaaa-qaaaq-cai greet '(\"me\")' --network local --root-key @root.hex",
                    "Against a local replica, with its root key."),
            Example("omni ic query aaaaa-aa canister_metrics '(record { canister_id = principal \"bkyz2-fmaaa-aaaaa-qaaaq-cai\" })' "
                        + "--identity bucket-session", "Through the management canister, with a session scoped to that canister."),
            Example("omni ic query aaaaa-aa list_canisters --subnet tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe",
                    "A subnet query (subnet admins only)."),
        ],
        outputAliases: Support.outputAliases
    ) { invocation in
        let reply = Support.replyFormat(invocation)
        let call = try Support.prepare(invocation, typesForReply: reply == .candid || reply == .json, isQuery: true)
        let verified = !(try invocation.value(unsafe))
        let progress = invocation.progress("Waiting")
        defer { progress.finish() }
        let agent = try call.connection.agent(invocation, progress: progress)
        let (interface, function, arg) = try call.typed(invocation, agent: agent)
        if let function, !function.isQuery {
            invocation.note("note: \(call.method) is an update method; as a query its changes are discarded (use 'omni ic call')")
        }
        let result = try agent.query(canister: call.canister, method: call.method, arg: arg, effectiveCanister: call.effectiveCanister,
                                     subnet: call.subnet, delegationTarget: call.delegationTarget, verified: verified)
        let context = ReplyContext.query(result, canister: call.canister, method: call.method, function: function, interface: interface)
        if verified {
            invocation.detail(context.verificationText)
        } else {
            // Asked for by name; said every time, whatever the verbosity.
            invocation.warn("warning: --unsafe: this answer is NOT verified (no node signature was checked); "
                            + "anyone between you and the subnet could have written it")
        }
        switch result.outcome {
        case .replied(let bytes): return try Support.result(.replied(bytes), context: context, invocation: invocation)
        case .rejected(let reject): return try Support.result(.rejected(reject), context: context, invocation: invocation)
        }
    }
}
