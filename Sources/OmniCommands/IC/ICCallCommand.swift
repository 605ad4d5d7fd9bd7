import OmniCandid
import OmniCLI
import OmniIC

/// `omni ic call CANISTER METHOD [ARGS|-]`: an update call whose outcome is read from a verified certificate.
enum ICCallCommand {
    typealias Support = ICCanisterCallSupport

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
            reply (exit 1). Each call carries a random nonce, so repeating a command makes a new call. Every \
            input (ARGS, files, keys, the root key, the identity) is checked before anything is sent, and so is \
            a scoped session's right to call: its delegation targets must include the canister called (aaaaa-aa \
            for management calls; exit 6 otherwise). A transient failure (HTTP 429, 502, 503, 504, a broken \
            connection) is retried with the same signed bytes (--retries), never signed again; a call still \
            unanswered is looked up by its request id and followed when the network knows it. --subnet ID sends \
            canister creation to /api/v4/subnet/ID/call, verified as that subnet's. \
            --output candid (the default) prints Candid text, json the values with the request id and how they \
            were verified, hex the reply bytes as hex, raw the reply bytes themselves.
            """,
        options: [Support.did, Support.inputFormat] + Support.routing + [asyncFlag] + ICNetworkOptions.connection
            + ICNetworkOptions.signing + ICNetworkOptions.waiting,
        arguments: [Support.canister, Support.method, Support.arguments],
        relations: ICNetworkOptions.relations + Support.routingRelations,
        examples: [
            Example("omni ic call bkyz2-fmaaa-aaaaa-qaaaq-cai greet '(\"me\")' --network local --root-key @root.hex --identity alice",
                    "A signed update call to a local canister."),
            Example("omni ic call aaaaa-aa canister_status '(record { canister_id = principal \"bkyz2-fmaaa-aaaaa-qaaaq-cai\" })' "
                        + "--identity controller", "The management canister, routed by the argument's canister_id."),
            Example("omni ic call --async ryjl3-tyaaa-aaaaa-aaaba-cai transfer @args.did --identity me",
                    "Submit only; prints the request id."),
        ],
        outputAliases: Support.outputAliases
    ) { invocation in
        let wait = !(try invocation.value(asyncFlag))
        let reply = Support.replyFormat(invocation)
        let call = try Support.prepare(invocation, typesForReply: wait && (reply == .candid || reply == .json), isQuery: false)
        let progress = invocation.progress("Waiting")
        defer { progress.finish() }
        let agent = try call.connection.agent(invocation, progress: progress)
        let (interface, function, arg) = try call.typed(invocation, agent: agent)
        let result = try agent.call(canister: call.canister, method: call.method, arg: arg, effectiveCanister: call.effectiveCanister,
                                    subnet: call.subnet, delegationTarget: call.delegationTarget, wait: wait)
        let context = ReplyContext.call(result, canister: call.canister, method: call.method, function: function, interface: interface)
        invocation.detail(context.verificationText)
        return try Support.callResult(result, context: context, invocation: invocation)
    }
}
