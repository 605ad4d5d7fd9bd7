import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC
import OmniSystem

/// `omni ic sign CANISTER METHOD [ARGS]`: build and sign a call or query offline and write it for `omni ic send`.
enum ICSignCommand {
    typealias Support = ICCanisterCallSupport

    static let query = Flag("query", help: "Sign a query.")
    static let update = Flag("update", help: "Sign an update call.")
    static let expiry = DefaultedOption<Duration>(
        "expiry", valueName: "DURATION",
        help: "How long the request stays valid (1m to 30d); the IC accepts it only within its last 5 minutes.",
        default: .seconds(300))
    static let expiresAt = Option<Instant>(
        "expires-at", valueName: "INSTANT",
        help: "The exact ingress expiry, when this machine's clock is not to be trusted: RFC 3339 or Unix seconds.")
    static let nonce = Option<HexBytes>("nonce", valueName: "HEX", help: "A nonce (up to 32 bytes) to tell otherwise identical requests apart.")
    static let outFile = RequiredOption<OutputFile>(
        "out-file", valueName: "FILE", help: "Where to write the signed request (JSON, mode 0600); - for stdout.")
    static let force = Flag("force", help: "Overwrite the --out-file if it exists.")
    static let subnet = Option<Principal>(
        "subnet", valueName: "ID",
        help: "Route the request to this subnet (aaaaa-aa list_canisters and canister creation only); the file records "
            + "it, and 'omni ic send' uses that subnet's endpoints and checks its certificates against it.")

    /// The longest expiry offered: requests can be signed well ahead and sent in their last 5 minutes.
    static let maxExpiry: Duration = .seconds(30 * 24 * 3600)

    static let command = Command(
        "sign", abstract: "Sign a call or query offline and write it to a file for 'omni ic send' (air-gapped signing).",
        discussion: """
            Builds the request (Candid argument, sender, ingress_expiry rounded down to the minute), signs its \
            request id with the identity, and writes a JSON file with the CBOR envelope, the request id and the \
            plain facts (canister, method, sender, expiry) to check before sending. For an update call the file \
            also holds a signed read_state of the request's status, so the sending machine can poll for the \
            result without the key. Nothing is sent; no network is used. With --out-file - the file goes to \
            stdout and the summary to stderr.
            The IC refuses a request whose expiry is in the past or more than 5 minutes ahead: send it within \
            --expiry, or sign with a later --expires-at and send it in its last 5 minutes. \
            The file records where the request goes: its effective canister id, or with --subnet ID the subnet \
            (for aaaaa-aa list_canisters and canister creation, which go to /api/v3/subnet/ID/query and \
            /api/v4/subnet/ID/call). \
            A scoped session signs only what the IC would accept from it: its delegation targets must include the \
            canister the request is checked against (see --delegation-target; exit 6 otherwise).
            """,
        options: [query, update, Support.did, Support.inputFormat] + ICIdentitySelection.options
            + [expiry, expiresAt, Support.effectiveCanister, subnet, ICNetworkOptions.delegationTarget, nonce, outFile, force],
        arguments: [Support.canister, Support.method, Support.arguments],
        relations: [.conflicting(query, update), .conflicting(expiry, expiresAt), .conflicting(Support.effectiveCanister, subnet)]
            + ICIdentitySelection.relations,
        examples: [
            Example("omni ic sign ryjl3-tyaaa-aaaaa-aaaba-cai icrc1_transfer --update --did ledger.did "
                    + "'(record { to = record { owner = principal \"…\" }; amount = 100_000 })' --identity cold --out-file transfer.json",
                    "Sign a ledger transfer on an offline machine."),
            Example("omni ic send transfer.json", "Then send it from a connected one."),
            Example("omni ic sign aaaaa-aa provisional_create_canister_with_cycles '(record {})' --update "
                    + "--subnet tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe --out-file create.json",
                    "Sign a canister creation for one subnet."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let target = try invocation.value(Support.canister)
        let methodName = try invocation.value(Support.method)
        let output = try invocation.value(outFile)
        if case .path(let file) = output, !(try invocation.value(force)), LocalFile.exists(FileInput.expandingTilde(file)) {
            throw CLIError.usage("\(file) exists; add --force to overwrite it", commandPath: path)
        }
        let interface = try Support.fileInterface(invocation)
        let isQuery = try kind(invocation, interface: interface, method: methodName)
        let (argument, values) = try encodeArguments(invocation, interface: interface, method: methodName)
        let body: ICRequest.Body = isQuery ? .query(canister: target, method: methodName, arg: argument)
            : .call(canister: target, method: methodName, arg: argument)
        // Checked offline as a live request would be: only what the subnet endpoints take may carry --subnet.
        let route = try ICAgent.route(body, effectiveCanister: try invocation.value(Support.effectiveCanister),
                                      subnet: try invocation.value(subnet))
        let now = IngressExpiry.currentTime()
        let ingressExpiry: UInt64
        if let instant = try invocation.value(expiresAt) {
            ingressExpiry = instant.unixNanoseconds
            if ingressExpiry <= now { invocation.warn("warning: --expires-at is in the past by this machine's clock") }
        } else {
            let lifetime = try invocation.value(expiry)
            guard lifetime >= .seconds(60), lifetime <= maxExpiry else {
                throw CLIError.usage("--expiry must be between 1m and 30d", commandPath: path)
            }
            ingressExpiry = IngressExpiry.expiry(now: now, lifetime: lifetime.nanosecondsValue)
        }
        let signer = try ICIdentitySelection.resolve(invocation)
        if signer.identity.keyType == .anonymous { invocation.note("signing as the anonymous principal 2vxsx-fae (\(signer.description))") }
        let identity = signer.identity
        let explicitTarget = try invocation.value(ICNetworkOptions.delegationTarget)
        try Support.checkDelegationTarget(body, explicit: explicitTarget, signer: signer, invocation: invocation)
        let request = try ICRequest(body, sender: identity.principal, ingressExpiry: ingressExpiry, nonce: try invocation.value(nonce)?.bytes)
        let envelope = try identity.envelope(for: request, at: now,
                                             delegationTarget: explicitTarget.map(DelegationTarget.explicit))
        var statusEnvelope: ICEnvelope?
        if !isQuery {
            let status = try ICRequest(.readState(paths: [.requestStatus(request.requestID)]), sender: identity.principal,
                                       ingressExpiry: ingressExpiry)
            statusEnvelope = try identity.envelope(for: status, at: now,
                                                   delegationTarget: .statusOf(call: explicitTarget ?? target))
        }
        let signed = try SignedRequestFile(envelope: envelope, route: route, requestStatus: statusEnvelope)
        try invocation.write(signed.text, to: output, label: "--out-file", mode: 0o600)

        var json = JSONObject()
        json.append("file", output == .standardOutput ? .null : .string(output.displayName))
        json.append("request_id", .string(signed.requestID.hex))
        json.append("request_type", .string(signed.kind))
        json.append("canister_id", .string(target.text))
        json.append("effective_canister_id", route.canister.map { JSONValue.string($0.text) } ?? JSONValue.null)
        if let subnet = route.subnet { json.append("subnet_id", .string(subnet.text)) }
        json.append("method_name", .string(methodName))
        json.append("sender", .string(signed.request.sender.text))
        ICTimeFields.add("ingress_expiry", ingressExpiry, to: &json)
        var report = ICReport(json: .object(json))
        report.line("file", output.displayName)
        report.line("request id", signed.requestID.prefixedHex)
        report.line(isQuery ? "query" : "call", "\(target.text).\(methodName)")
        if let subnet = route.subnet { report.line("subnet", subnet.text) }
        report.line("sender", signed.request.sender.text + " (\(signer.description))")
        report.line("expires", ICTime.format(ingressExpiry))
        // What is being signed, in words, for a last look before the file leaves this machine.
        report.line("argument", Candid.print(arguments: values, style: .compact))
        guard output == .standardOutput else { return .output(report) }
        // stdout holds the signed file: the summary is for people, on stderr.
        invocation.note(report.text(style: invocation.stderrStyle))
        return .success
    }

    /// --query or --update; without either, the .did file's method annotation decides.
    static func kind(_ invocation: Invocation, interface: CandidInterface?, method: String) throws -> Bool {
        if try invocation.value(query) { return true }
        if try invocation.value(update) { return false }
        guard let interface else {
            throw CLIError.usage("say what to sign: --query or --update (or give --did FILE to take it from the method)",
                                 commandPath: invocation.commandPath)
        }
        let function: CandidFunctionType
        do { function = try interface.requireMethod(method) } catch { throw ICInput.candid(error, "--did") }
        return function.modes.contains(.query) || function.modes.contains(.compositeQuery)
    }

    /// The Candid argument from ARGS (default '()'): its bytes and its values (field names where the text or the
    /// interface gives them). A message given as bytes must be Candid (at the method's types when known).
    static func encodeArguments(_ invocation: Invocation, interface: CandidInterface?, method: String) throws -> ([UInt8], [CandidValue]) {
        let arguments = try CallArguments.read(invocation, argument: Support.arguments, format: try invocation.value(Support.inputFormat))
        if case .json = arguments.form, interface == nil {
            throw CLIError.usage("--input-format json needs --did FILE for the argument types", commandPath: invocation.commandPath)
        }
        let function: CandidFunctionType?
        do { function = try interface?.requireMethod(method) } catch { throw ICInput.candid(error, "--did") }
        let (bytes, values) = try arguments.encode(function: function, environment: interface?.environment)
        if let values { return (bytes, values) }
        do throws(CandidError) {
            if let interface { return (bytes, try interface.decodeArguments(bytes, method: method)) }
            return (bytes, try Candid.decode(bytes))
        } catch {
            throw ICInput.candid(error, "ARGS")
        }
    }
}
