import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC

/// `omni ic send FILE`: posts a request signed elsewhere (`omni ic sign`) and verifies the answer.
enum ICSendCommand {
    static let file = Argument<InputFile>("FILE", help: "The signed request file written by 'omni ic sign' (- for stdin).")
    static let noWait = Flag("no-wait", help: "For a call: print the request id once accepted instead of waiting for the outcome.")
    static let review = Flag("review", help: "Print what the file would send (and check its signature) without sending it.")
    static let subnet = Option<Principal>(
        "subnet", valueName: "ID",
        help: "The subnet the file must be routed to ('omni ic sign --subnet'); a file routed elsewhere is refused, never rerouted.",
        group: "Network")

    static let command = Command(
        "send", abstract: "Send a request signed offline and print its verified outcome.",
        discussion: """
            For air-gapped signing: 'omni ic sign' writes the signed envelope into a JSON file (format \
            omni-ic-signed-request, version 1) on the offline machine; this command posts it unchanged from an \
            online one. Before sending, the file's readable fields are checked against the envelope and the sender's \
            signature is verified, and an expired request is refused. A call is then followed like 'omni ic call': \
            polling uses the file's signed request-status read when present (so no key is needed here), or this \
            machine's identity when it is the sender. Queries are verified like 'omni ic query'. The network is \
            --network when given, else the file's hint. A file signed with --subnet goes to that subnet's \
            endpoints and its answer must be certified by that subnet; --subnet ID here asserts the route, and a \
            file that records another route (a subnet or an effective canister id) is refused before sending.
            """,
        options: [noWait, review, subnet, ICCanisterCallSupport.did] + ICNetworkOptions.connection + ICNetworkOptions.signing
            + ICNetworkOptions.waiting,
        arguments: [file],
        relations: ICNetworkOptions.relations,
        examples: [
            Example("omni ic send transfer.json", "Send a call signed on an offline machine and wait for its outcome."),
            Example("omni ic send --review transfer.json", "Show what would be sent."),
        ],
        outputAliases: ICCanisterCallSupport.outputAliases
    ) { invocation in
        let input = try invocation.value(file)
        let text = try invocation.readText(input, label: "FILE", limit: SignedRequestFile.maxFileBytes)
        let signed: SignedRequestFile
        do throws(ICError) { signed = try SignedRequestFile(text: text) } catch {
            throw error.labelled(input.displayName)
        }
        let now = IngressExpiry.currentTime()
        let request = signed.request
        // The signature is checked before anything leaves this machine: a corrupted file fails here, not remotely.
        try signed.envelope.verifySender(at: now)
        // The route is not signed: an explicit --subnet that disagrees with the file is a mistake, not a reroute.
        if let expected = try invocation.value(subnet), signed.subnet != expected {
            let recorded = signed.subnet.map { "subnet \($0)" } ?? signed.effectiveCanisterID.map { "effective canister id \($0)" } ?? "no route"
            throw CLIError.usage("\(input.displayName) is routed to \(recorded), not --subnet \(expected); sign it again with --subnet "
                                 + "\(expected) to send it there", commandPath: invocation.commandPath)
        }
        if try invocation.value(review) {
            return .output(SimpleOutput(text: reviewText(signed), json: signed.json))
        }
        guard request.ingressExpiry > now else {
            throw ICError.verification(.expired, "the signed request expired at \(ICTime.format(request.ingressExpiry)); sign it again")
        }
        let interface = try ICCanisterCallSupport.fileInterface(invocation)
        let connection = try ICNetworkOptions.prepare(invocation, networkHint: signed.network)
        let progress = invocation.progress("Waiting")
        defer { progress.finish() }
        let agent = try connection.agent(invocation, progress: progress)
        invocation.detail("sending the signed \(signed.kind) \(signed.requestID) from \(request.sender) to \(agent.configuration.network)")
        switch try agent.send(signed, wait: !(try invocation.value(noWait))) {
        case .call(let result):
            guard case .call(let canister, let method, _) = request.body else { throw ICError(.internalFailure, "not a call") }
            let (interface, function) = try types(invocation, agent: agent, file: interface, canister: canister, method: method,
                                                  outcome: result.outcome)
            let context = ReplyContext.call(result, canister: canister, method: method, function: function, interface: interface)
            invocation.detail(context.verificationText)
            return try ICCanisterCallSupport.callResult(result, context: context, invocation: invocation)
        case .query(let result):
            guard case .query(let canister, let method, _) = request.body else { throw ICError(.internalFailure, "not a query") }
            var outcome: CallOutcome
            switch result.outcome {
            case .replied(let reply): outcome = .replied(reply)
            case .rejected(let reject): outcome = .rejected(reject)
            }
            let (interface, function) = try types(invocation, agent: agent, file: interface, canister: canister, method: method,
                                                  outcome: outcome)
            let context = ReplyContext.query(result, canister: canister, method: method, function: function, interface: interface)
            invocation.detail(context.verificationText)
            return try ICCanisterCallSupport.result(outcome, context: context, invocation: invocation)
        case .readState(let read):
            var entries: [StateEntry] = []
            for statePath in read.paths { entries += StateEntry.entries(for: statePath, in: read.certificate) }
            let output = StateReadOutput(read: read, entries: entries)
            invocation.note(output.verification)
            return .output(output, exitCode: entries.allSatisfy { $0.lookup == "found" } ? .ok : .failure)
        }
    }

    /// Types for decoding a reply (only when there is one to decode in Candid or JSON form): the `--did` file's, else
    /// the canister's candid:service.
    private static func types(_ invocation: Invocation, agent: ICAgent, file: CandidInterface?, canister: Principal, method: String,
                              outcome: CallOutcome) throws -> (CandidInterface?, CandidFunctionType?) {
        guard case .replied = outcome else { return (nil, nil) }
        if let file { return (file, try ICCanisterCallSupport.method(method, in: file, fromFile: true, invocation: invocation)) }
        let format = ICCanisterCallSupport.replyFormat(invocation)
        guard format == .candid || format == .json else { return (nil, nil) }
        let interface = try ICCanisterCallSupport.fetchedInterface(invocation, agent: agent, canister: canister)
        return (interface, try ICCanisterCallSupport.method(method, in: interface, fromFile: false, invocation: invocation))
    }

    static func reviewText(_ signed: SignedRequestFile) -> String {
        let request = signed.request
        var lines = ["\(signed.kind) \(signed.requestID)", "sender: \(request.sender)",
                     "expires: \(ICTime.format(request.ingressExpiry))"]
        switch signed.route {
        case .canister(let id): lines.append("effective canister: \(id)")
        case .subnet(let id): lines.append("subnet: \(id)")
        }
        switch request.body {
        case .call(let canister, let method, let arg), .query(let canister, let method, let arg):
            lines.append("canister: \(canister)")
            lines.append("method: \(method)")
            if let values = try? Candid.decode(arg) {
                lines.append("arguments: " + Candid.print(arguments: values, style: .compact))
            } else {
                lines.append("arguments (hex): " + Hex.encode(arg))
            }
        case .readState(let paths):
            lines.append("paths: " + paths.map(\.description).joined(separator: ", "))
        }
        if let network = signed.network { lines.append("network: \(network)") }
        lines.append("request status read: " + (signed.requestStatus == nil ? "not included" : "included"))
        lines.append("signature: valid")
        return lines.joined(separator: "\n")
    }
}
