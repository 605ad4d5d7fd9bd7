import OmniCandid
import OmniCLI
import OmniIC

/// `omni ic query CANISTER METHOD [ARGS|-]`: a query whose response is verified (node signatures) before printing.
enum ICQueryCommand {
    typealias Support = ICCanisterCallSupport

    static let command = Command(
        "query", abstract: "Query a canister; the response is verified before it is printed.",
        discussion: """
            Sends a query (POST /api/v3/canister/<id>/query, v2 if the replica lacks v3) and checks every node \
            signature on the response with the subnet's node keys, which come from a verified certificate and are \
            cached for an hour under $XDG_CACHE_HOME/omni/ic-subnets. If a node is unknown or a signature fails, the \
            keys are fetched again once; if the check still fails, nothing is printed (exit 1). Rejects are verified \
            the same way and printed with their code (exit 4). Without --did, the canister's candid:service \
            metadata (read from a verified certificate) gives the types, so records show field names. Every \
            input (ARGS, files, keys, the root key, the identity) is checked before anything is sent. \
            --output candid (the default) prints Candid text, json the values with the request id and how they \
            were verified, hex the reply bytes as hex, raw the reply bytes themselves.
            """,
        options: [Support.did, Support.inputFormat, Support.effectiveCanister] + ICNetworkOptions.connection
            + ICNetworkOptions.signing,
        arguments: [Support.canister, Support.method, Support.arguments],
        relations: ICNetworkOptions.relations,
        examples: [
            Example("omni ic query ryjl3-tyaaa-aaaaa-aaaba-cai icrc1_name", "The ledger's token name, verified."),
            Example("omni ic query ryjl3-tyaaa-aaaaa-aaaba-cai icrc1_balance_of '(record { owner = principal \"2vxsx-fae\" })' -o json",
                    "A balance as JSON (nat values are strings)."),
            Example("omni ic query bkyz2-fmaaa-aaaaa-qaaaq-cai greet '(\"me\")' --network local --root-key @root.hex",
                    "Against a local replica, with its root key."),
        ],
        outputAliases: Support.outputAliases
    ) { invocation in
        let reply = Support.replyFormat(invocation)
        let call = try Support.prepare(invocation, typesForReply: reply == .candid || reply == .json)
        let progress = invocation.progress("Waiting")
        defer { progress.finish() }
        let agent = try call.connection.agent(invocation, progress: progress)
        let (interface, function, arg) = try call.typed(invocation, agent: agent)
        if let function, !function.isQuery {
            invocation.note("note: \(call.method) is an update method; as a query its changes are discarded (use 'omni ic call')")
        }
        let result = try agent.query(canister: call.canister, method: call.method, arg: arg, effectiveCanister: call.effectiveCanister)
        let context = ReplyContext.query(result, canister: call.canister, method: call.method, function: function, interface: interface)
        invocation.detail(context.verificationText)
        switch result.outcome {
        case .replied(let bytes): return try Support.result(.replied(bytes), context: context, invocation: invocation)
        case .rejected(let reject): return try Support.result(.rejected(reject), context: context, invocation: invocation)
        }
    }
}
