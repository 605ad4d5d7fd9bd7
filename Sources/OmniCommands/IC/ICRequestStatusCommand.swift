import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC

/// `omni ic request-status RID CANISTER` / `RID --subnet ID`: the certified status of an update call, waited for by
/// default.
enum ICRequestStatusCommand {
    static let requestID = Argument<RequestID>("REQUEST_ID", help: "The request id: 64 hex digits, with or without 0x.")
    static let canister = OptionalArgument<Principal>(
        "CANISTER", help: "The canister the call was sent to (its effective canister id); --subnet ID for a subnet call.")
    static let noWait = Flag("no-wait", help: "Read the status once instead of polling until it is final.")
    static let method = Option<String>(
        "method", valueName: "NAME",
        help: "The called method: decode the reply with its result types (from --did or the canister's candid:service).",
        group: "Candid")

    static let command = Command(
        "request-status", abstract: "Read the certified status of an update call, waiting until it is final.",
        discussion: """
            Reads /request_status/<id> through a verified read_state and polls (--poll-interval, --poll-attempts) \
            until the call is replied, rejected or done. Only the identity that made the call may read its status: \
            give the same --identity or --pem. A call sent to a subnet (--subnet on 'omni ic call') is read there: \
            give --subnet ID instead of CANISTER. A scoped session reading the status of a call to another canister \
            than CANISTER (an aaaaa-aa call) names it with --delegation-target. Exit codes: 0 replied, 4 rejected (with code, message, error code), \
            1 done without reply (or, with --no-wait, not final yet: received, processing, or unknown to the IC), \
            5 still not final after the polls.
            """,
        options: [noWait, method, ICCanisterCallSupport.did, ICNetworkOptions.subnet, ICNetworkOptions.delegationTarget]
            + ICNetworkOptions.connection + ICNetworkOptions.signing + ICNetworkOptions.waiting,
        arguments: [requestID, canister],
        relations: [.requires(ICCanisterCallSupport.did, method), .exactlyOne(canister, ICNetworkOptions.subnet)]
            + ICNetworkOptions.relations,
        examples: [
            Example("omni ic request-status 0x5e9b1c0d2a3f4e5b6c7d8e9fa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8c1 ryjl3-tyaaa-aaaaa-aaaba-cai --identity me",
                    "Wait for the outcome of a call made with --async."),
        ],
        outputAliases: ICCanisterCallSupport.outputAliases
    ) { invocation in
        let id = try invocation.value(requestID)
        let route: CertificateScope
        if let subnet = try invocation.value(ICNetworkOptions.subnet) {
            route = .subnet(subnet)
        } else if let target = try invocation.value(canister) {
            route = .canister(target)
        } else {
            throw CLIError.usage("give CANISTER or --subnet ID", commandPath: invocation.commandPath)
        }
        // The call's own canister is unknown here (CANISTER is where it was routed): checked only when named.
        let delegationTarget = try invocation.value(ICNetworkOptions.delegationTarget)
        let methodName = try invocation.value(method)
        let file = try ICCanisterCallSupport.fileInterface(invocation)
        let fileFunction = try methodName.flatMap { try ICCanisterCallSupport.method($0, in: file, fromFile: true, invocation: invocation) }
        let connection = try ICNetworkOptions.prepare(invocation)
        try connection.signer.identity.checkAuthorized(delegationTarget.map(DelegationTarget.statusOf(call:)) ?? .unchecked)
        let progress = invocation.progress("Waiting")
        defer { progress.finish() }
        let agent = try connection.agent(invocation, progress: progress)
        let result = try agent.requestStatus(id, route: route, delegationTarget: delegationTarget, wait: !(try invocation.value(noWait)))
        var interface = file
        var function = fileFunction
        let format = ICCanisterCallSupport.replyFormat(invocation)
        if let methodName, file == nil, case .replied = result.status, format == .candid || format == .json,
           let target = route.canister {
            interface = try ICCanisterCallSupport.fetchedInterface(invocation, agent: agent, canister: target)
            function = try ICCanisterCallSupport.method(methodName, in: interface, fromFile: false, invocation: invocation)
        }
        let (verification, text) = ReplyContext.certificateVerification(result.certificate)
        invocation.detail(text)
        let context = ReplyContext(kind: "request_status", requestID: id, canister: nil, route: route,
                                   method: methodName, function: function, interface: interface,
                                   verification: verification, verificationText: text)
        switch result.status {
        case .replied(let bytes): return try ICCanisterCallSupport.result(.replied(bytes), context: context, invocation: invocation)
        case .rejected(let reject): return try ICCanisterCallSupport.result(.rejected(reject), context: context, invocation: invocation)
        case .done: return try ICCanisterCallSupport.result(.done, context: context, invocation: invocation)
        case .unknown:
            return .output(StatusOutput(context: context, status: "unknown",
                                        message: "the IC does not know this request (not received yet, expired, or never sent to this canister)"),
                           exitCode: .failure)
        case .received, .processing:
            return .output(StatusOutput(context: context, status: ICAgent.name(of: result.status), message: "not final yet"),
                           exitCode: .failure)
        }
    }
}
