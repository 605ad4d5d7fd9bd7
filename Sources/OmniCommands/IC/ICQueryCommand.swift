import OmniCandid
import OmniCLI
import OmniIC

/// `omni ic query CANISTER METHOD [ARGS|-]`: a query whose response is verified (node signatures) before printing.
enum ICQueryCommand {
    static let canister = Argument<String>("CANISTER", help: "The canister id (textual principal).")
    static let method = Argument<String>("METHOD", help: "The method name.")
    static let arguments = Argument<String>(
        "ARGS", help: "The arguments, e.g. '(\"world\", 42)'; @FILE or - for stdin. Default: ().", optional: true, source: .content)

    static let command = Command(
        "query", abstract: "Query a canister; the response is verified before it is printed.",
        discussion: """
            Sends a query (POST /api/v3/canister/<id>/query, v2 if the replica lacks v3) and checks every node \
            signature on the response with the subnet's node keys, which come from a verified certificate and are \
            cached for an hour under $XDG_CACHE_HOME/omni/ic-subnets. If a node is unknown or a signature fails, the \
            keys are fetched again once; if the check still fails, nothing is printed (exit 1). Rejects are verified \
            the same way and printed with their code (exit 4). Without --candid, the canister's candid:service \
            metadata (read from a verified certificate) gives the types, so records show field names. \
            --output candid (the default) prints Candid text, json the values with the request id and how they \
            were verified, hex the reply bytes as hex, raw the reply bytes themselves.
            """,
        options: [ICCanisterCallSupport.candid, ICCanisterCallSupport.argsFormat, ICCanisterCallSupport.effectiveCanister]
            + ICNetworkOptions.connection + ICNetworkOptions.signing,
        arguments: [canister.spec, method.spec, arguments.spec],
        examples: [
            Example("omni ic query ryjl3-tyaaa-aaaaa-aaaba-cai icrc1_name", "The ledger's token name, verified."),
            Example("omni ic query ryjl3-tyaaa-aaaaa-aaaba-cai icrc1_balance_of '(record { owner = principal \"2vxsx-fae\" })' -o json",
                    "A balance as JSON (nat values are strings)."),
            Example("omni ic query bkyz2-fmaaa-aaaaa-qaaaq-cai greet '(\"me\")' --network local --root-key @root.hex",
                    "Against a local replica, with its root key."),
        ],
        outputAliases: ICCanisterCallSupport.outputAliases
    ) { invocation in
        let target = try ICInput.principal(try invocation.argument(canister) ?? "", label: "CANISTER")
        let methodName = try invocation.argument(method) ?? ""
        let progress = invocation.progress("Waiting")
        defer { progress.finish() }
        let agent = try ICNetworkOptions.agent(invocation, progress: progress)
        let hasArguments = invocation.parsed.positionals.count > 2
        let interface = try ICCanisterCallSupport.interface(
            invocation, agent: agent, canister: target,
            needed: try ICCanisterCallSupport.needsTypes(invocation, hasArguments: hasArguments))
        let function = try ICCanisterCallSupport.method(methodName, in: interface, invocation: invocation)
        if let function, !function.isQuery {
            invocation.note("note: \(methodName) is an update method; as a query its changes are discarded (use 'omni ic call')")
        }
        let arg = try ICCanisterCallSupport.encodeArguments(invocation, argument: arguments, function: function, interface: interface)
        let effective = try invocation.value(ICCanisterCallSupport.effectiveCanister).map {
            try ICInput.principal($0, label: "--effective-canister-id")
        }
        let result = try agent.query(canister: target, method: methodName, arg: arg, effectiveCanister: effective)
        let context = ReplyContext.query(result, canister: target, method: methodName, function: function, interface: interface)
        invocation.detail(context.verificationText)
        switch result.outcome {
        case .replied(let bytes): return ICCanisterCallSupport.result(.replied(bytes), context: context, invocation: invocation)
        case .rejected(let reject): return ICCanisterCallSupport.result(.rejected(reject), context: context, invocation: invocation)
        }
    }
}
