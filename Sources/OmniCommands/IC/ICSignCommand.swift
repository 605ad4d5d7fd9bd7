import FoundationEssentials
import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC
import OmniSystem

/// `omni ic sign`: build and sign a call or query offline and write it for `omni ic send`.
enum ICSignCommand {
    static let canister = Option<String>("canister", valueName: "ID", help: "The canister to call.")
    static let method = Option<String>("method", valueName: "NAME", help: "The method to call.")
    static let args = Argument<String>("ARGS", help: "The argument: Candid text like '(42, \"hi\")' by default; '()' when omitted.",
                                       optional: true, source: .content)
    static let argsFormat = Option<ICCanisterCallSupport.ArgsFormat>("args-format", valueName: "FORMAT", help: "How ARGS is written (json needs --candid).", default: .candid)
    static let candid = Option<String>("candid", valueName: "FILE", help: "The canister's .did file: ARGS are typed by the method's argument types.",
                                       source: .path)
    static let query = Flag("query", help: "Sign a query.")
    static let update = Flag("update", help: "Sign an update call.")
    static let expiry = Option<Duration>("expiry", valueName: "DURATION", help: "How long the request stays valid; the IC accepts it only within its last 5 minutes.",
                                         default: .seconds(300), defaultDescription: "5m")
    static let expiresAt = Option<String>("expires-at", valueName: "TIME",
                                          help: "The exact ingress expiry (RFC 3339 or ns), when this machine's clock is not to be trusted.")
    static let nonce = Option<String>("nonce", valueName: "HEX", help: "A nonce (up to 32 bytes) to tell otherwise identical requests apart.")
    static let file = Option<String>("file", valueName: "FILE", help: "Where to write the signed request (JSON, mode 0600).", source: .path)
    static let force = Flag("force", help: "Overwrite FILE if it exists.")

    /// The longest expiry offered: requests can be signed well ahead and sent in their last 5 minutes.
    static let maxExpiry: UInt64 = 30 * 24 * 3600 * 1_000_000_000

    static let command = Command(
        "sign", abstract: "Sign a call or query offline and write it to a file for 'omni ic send' (air-gapped signing).",
        discussion: """
            Builds the request (Candid argument, sender, ingress_expiry rounded down to the minute), signs its \
            request id with the identity, and writes a JSON file with the CBOR envelope, the request id and the \
            plain facts (canister, method, sender, expiry) to check before sending. For an update call the file \
            also holds a signed read_state of the request's status, so the sending machine can poll for the \
            result without the key. Nothing is sent; no network is used.
            The IC refuses a request whose expiry is in the past or more than 5 minutes ahead: send it within \
            --expiry (default 5m), or sign with a later --expires-at and send it in its last 5 minutes.
            """,
        options: [canister, method, query, update, candid, argsFormat] + ICIdentitySelection.options
            + [expiry, expiresAt, ICCanisterCallSupport.effectiveCanister, nonce, file, force],
        arguments: [args.spec],
        examples: [
            Example("omni ic sign --canister ryjl3-tyaaa-aaaaa-aaaba-cai --method icrc1_transfer --update --candid ledger.did "
                    + "'(record { to = record { owner = principal \"…\" }; amount = 100_000 })' --identity cold --file transfer.json",
                    "Sign a ledger transfer on an offline machine."),
            Example("omni ic send transfer.json", "Then send it from a connected one."),
        ]
    ) { invocation in
        let path = invocation.commandPath
        let target = try ICInput.principal(try invocation.require(canister), label: "--canister")
        let methodName = try invocation.require(method)
        let output = try invocation.require(file)
        if !(try invocation.flag(force)), FileManager.default.fileExists(atPath: output) {
            throw CLIError.usage("\(output) exists; add --force to overwrite it", commandPath: path)
        }
        let interface = try invocation.value(candid).map { try CandidTypeOptions.loadInterface($0, invocation: invocation, label: "--candid") }
        let isQuery = try kind(invocation, interface: interface, method: methodName)
        let (argument, values) = try encodeArguments(invocation, interface: interface, method: methodName)

        let explicit = try invocation.value(ICCanisterCallSupport.effectiveCanister).map {
            try ICInput.principal($0, label: "--effective-canister-id")
        }
        let effective = try ICAgent.effectiveCanisterID(canister: target, method: methodName, arg: argument, explicit: explicit)
        let now = IngressExpiry.currentTime()
        let ingressExpiry: UInt64
        if let text = try invocation.value(expiresAt) {
            if invocation.isGiven(expiry) { throw CLIError.usage("--expiry and --expires-at cannot be combined", commandPath: path) }
            ingressExpiry = try ICInput.time(text, label: "--expires-at")
            if ingressExpiry <= now { invocation.note("warning: --expires-at is in the past by this machine's clock") }
        } else {
            let lifetime = ICInput.nanoseconds(try invocation.value(expiry) ?? .seconds(300))
            guard lifetime >= IngressExpiry.minute, lifetime <= maxExpiry else {
                throw CLIError.usage("--expiry must be between 1m and 30d", commandPath: path)
            }
            ingressExpiry = IngressExpiry.expiry(now: now, lifetime: lifetime)
        }
        let nonceBytes = try invocation.value(nonce).map { try ICInput.bytes(Array($0.utf8), encoding: .hex, label: "--nonce") }

        let (identity, source) = try ICIdentitySelection.resolve(invocation)
        if identity.keyType == .anonymous { invocation.note("signing as the anonymous principal 2vxsx-fae (\(source))") }
        let body: ICRequest.Body = isQuery ? .query(canister: target, method: methodName, arg: argument)
            : .call(canister: target, method: methodName, arg: argument)
        let request = try ICRequest(body, sender: identity.principal, ingressExpiry: ingressExpiry, nonce: nonceBytes)
        let envelope = try identity.envelope(for: request, at: now)
        var statusEnvelope: ICEnvelope?
        if !isQuery {
            let status = try ICRequest(.readState(paths: [.requestStatus(request.requestID)]), sender: identity.principal,
                                       ingressExpiry: ingressExpiry)
            statusEnvelope = try identity.envelope(for: status, at: now)
        }
        let signed = try SignedRequestFile(envelope: envelope, effectiveCanisterID: effective, requestStatus: statusEnvelope)
        try AtomicFile.write(signed.text, to: output, mode: 0o600, createDirectories: true)

        var json = JSONObject()
        json.append("file", .string(output))
        json.append("request_id", .string(signed.requestID.hex))
        json.append("request_type", .string(signed.kind))
        json.append("canister_id", .string(target.text))
        json.append("effective_canister_id", .string(effective.text))
        json.append("method_name", .string(methodName))
        json.append("sender", .string(signed.request.sender.text))
        ICTimeFields.add("ingress_expiry", ingressExpiry, to: &json)
        var report = ICReport(json: .object(json))
        report.line("file", output)
        report.line("request id", signed.requestID.prefixedHex)
        report.line(isQuery ? "query" : "call", "\(target.text).\(methodName)")
        report.line("sender", signed.request.sender.text + " (\(source))")
        report.line("expires", ICTime.format(ingressExpiry))
        // What is being signed, in words, for a last look before the file leaves this machine.
        report.line("argument", Candid.print(arguments: values, style: .compact))
        return .output(report)
    }

    /// --query or --update; without either, the .did file's method annotation decides.
    static func kind(_ invocation: Invocation, interface: CandidInterface?, method: String) throws -> Bool {
        let path = invocation.commandPath
        let isQuery = try invocation.flag(query), isUpdate = try invocation.flag(update)
        if isQuery && isUpdate { throw CLIError.usage("--query and --update cannot be combined", commandPath: path) }
        if isQuery || isUpdate { return isQuery }
        guard let interface else {
            throw CLIError.usage("say what to sign: --query or --update (or give --candid FILE to take it from the method)", commandPath: path)
        }
        let function: CandidFunctionType
        do { function = try interface.requireMethod(method) } catch { throw ICInput.candid(error, "--candid") }
        return function.modes.contains(.query) || function.modes.contains(.compositeQuery)
    }

    /// The Candid argument from ARGS (default '()'): its bytes and its values (field names where the text or the
    /// interface gives them).
    static func encodeArguments(_ invocation: Invocation, interface: CandidInterface?, method: String) throws -> ([UInt8], [CandidValue]) {
        let format = try invocation.value(argsFormat) ?? .candid
        let raw = try invocation.bytes(of: args)
        switch format {
        case .hex, .binary:
            let bytes = try ICInput.bytes(raw ?? [], encoding: format == .hex ? .hex : .binary, label: "ARGS")
            // A raw argument is sent as given; it must at least be a Candid message (at the method's types when known).
            do throws(CandidError) {
                if let interface { return (bytes, try interface.decodeArguments(bytes, method: method)) }
                return (bytes, try Candid.decode(bytes))
            } catch {
                throw ICInput.candid(error, "ARGS")
            }
        case .candid, .json:
            let text = raw.map { String(decoding: $0, as: UTF8.self) } ?? "()"
            do {
                if format == .json {
                    guard let interface else {
                        throw CLIError.usage("--args-format json needs --candid FILE for the argument types", commandPath: invocation.commandPath)
                    }
                    let json: JSONValue
                    do { json = try JSONValue.parse(text) } catch {
                        throw error.labelled("ARGS")
                    }
                    let function = try interface.requireMethod(method)
                    let values = try Candid.arguments(fromJSON: json, types: function.argumentTypes, environment: interface.environment)
                    return (try interface.encodeArguments(values, method: method), values)
                }
                if let interface {
                    let values = try interface.parseArguments(text, method: method)
                    return (try interface.encodeArguments(values, method: method), values)
                }
                let values = try Candid.parseArguments(text)
                return (try Candid.encode(values), values)
            } catch let error as CandidError {
                throw ICInput.candid(error, "ARGS")
            }
        }
    }
}
