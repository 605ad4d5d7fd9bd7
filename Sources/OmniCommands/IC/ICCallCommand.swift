import OmniCandid
import OmniCLI
import OmniIC

/// `omni ic call CANISTER METHOD [ARGS|-]`: an update call whose outcome is read from a verified certificate.
enum ICCallCommand {
    static let asyncFlag = Flag("async", help: "Submit and print the request id without waiting (check later with 'omni ic request-status').")

    static let command = Command(
        "call", abstract: "Call a canister (update); the outcome is read from a verified certificate.",
        discussion: """
            Submits the call synchronously (POST /api/v4/canister/<id>/call, then v3, then v2 when the replica \
            lacks the newer endpoint). The answer's certificate is verified (BLS signature under the root key, \
            subnet delegation, canister ranges, /time within --time-tolerance) and the request status read from it. \
            If the replica answers 202 (still running), omni polls the certified request status every \
            --poll-interval, at most --poll-attempts times, showing progress on stderr. A reply is printed with the \
            method's types; a certified reject with its code, message and error code (exit 4). A reject the \
            replica sends before consensus carries no certificate: it is reported on stderr as an error, never \
            printed as a result (exit 4). A call whose reply was already forgotten is reported as done without \
            reply (exit 1). Each call carries a random nonce, so repeating a command makes a new call. \
            --output candid (the default) prints Candid text, json the values with the request id and how they \
            were verified, hex the reply bytes as hex, raw the reply bytes themselves.
            """,
        options: [ICCanisterCallSupport.candid, ICCanisterCallSupport.argsFormat, ICCanisterCallSupport.effectiveCanister, asyncFlag]
            + ICNetworkOptions.connection + ICNetworkOptions.signing + ICNetworkOptions.waiting,
        arguments: [ICQueryCommand.canister.spec, ICQueryCommand.method.spec, ICQueryCommand.arguments.spec],
        examples: [
            Example("omni ic call bkyz2-fmaaa-aaaaa-qaaaq-cai greet '(\"me\")' --network local --root-key @root.hex --identity alice",
                    "A signed update call to a local canister."),
            Example("omni ic call aaaaa-aa canister_status '(record { canister_id = principal \"bkyz2-fmaaa-aaaaa-qaaaq-cai\" })' "
                        + "--identity controller", "The management canister, routed by the argument's canister_id."),
            Example("omni ic call --async ryjl3-tyaaa-aaaaa-aaaba-cai transfer @args.did --identity me",
                    "Submit only; prints the request id."),
        ],
        outputAliases: ICCanisterCallSupport.outputAliases
    ) { invocation in
        let target = try ICInput.principal(try invocation.argument(ICQueryCommand.canister) ?? "", label: "CANISTER")
        let methodName = try invocation.argument(ICQueryCommand.method) ?? ""
        let wait = !(try invocation.flag(asyncFlag))
        let progress = invocation.progress("Waiting")
        defer { progress.finish() }
        let agent = try ICNetworkOptions.agent(invocation, progress: progress)
        let hasArguments = invocation.parsed.positionals.count > 2
        let interface = try ICCanisterCallSupport.interface(
            invocation, agent: agent, canister: target,
            needed: try ICCanisterCallSupport.needsTypes(invocation, hasArguments: hasArguments) && (wait || hasArguments))
        let function = try ICCanisterCallSupport.method(methodName, in: interface, invocation: invocation)
        let arg = try ICCanisterCallSupport.encodeArguments(invocation, argument: ICQueryCommand.arguments, function: function,
                                                            interface: interface)
        let effective = try invocation.value(ICCanisterCallSupport.effectiveCanister).map {
            try ICInput.principal($0, label: "--effective-canister-id")
        }
        let result = try agent.call(canister: target, method: methodName, arg: arg, effectiveCanister: effective, wait: wait)
        let context = ReplyContext.call(result, canister: target, method: methodName, function: function, interface: interface)
        invocation.detail(context.verificationText)
        return try ICCanisterCallSupport.callResult(result, context: context, invocation: invocation)
    }
}
