import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC
import OmniTransport

/// What `omni ic query`, `call`, `sign`, `request-status` and `send` share: the canister and method arguments, Candid
/// interfaces (from `--did` or the canister's verified `candid:service`), argument reading and encoding, and how a
/// reply, reject or status is printed.
enum ICCanisterCallSupport {
    static let canister = Argument<Principal>("CANISTER", help: "The canister id (textual principal).")
    static let method = Argument<String>("METHOD", help: "The method name.")
    static let arguments = OptionalArgument<String>(
        "ARGS", help: "The arguments, e.g. '(\"world\", 42)'; @FILE or - for stdin. Default: ().", source: .content)
    static let did = Option<InputFile>(
        "did", valueName: "FILE",
        help: "The canister's .did file, for argument and result types.",
        absentMeans: "the canister's candid:service metadata (verified), read whenever types are needed",
        group: "Candid")
    static let inputFormat = DefaultedOption<InputFormat>(
        "input-format", valueName: "FORMAT",
        help: "How ARGS is written: candid (text), json (needs the method's types), hex, or binary (raw bytes from @FILE or -).",
        default: .candid, group: "Candid")
    static let effectiveCanister = Option<Principal>(
        "effective-canister-id", valueName: "ID",
        help: "For aaaaa-aa: route the request to this canister's subnet (create_canister needs it or --subnet). Any other "
            + "canister is its own effective id.",
        absentMeans: "the argument's canister_id", group: "Network")

    /// Options every command that sends a call or query takes besides the connection's: where it goes, and what a
    /// scoped session is checked against.
    static let routing: [any OptionDeclaration] = [effectiveCanister, ICNetworkOptions.subnet, ICNetworkOptions.delegationTarget]
    static let routingRelations: [Relation] = [.conflicting(effectiveCanister, ICNetworkOptions.subnet)]

    enum InputFormat: String, CaseIterable, ArgumentValue { case candid, json, hex, binary }

    /// `--output` names these commands add: Candid text (the default), the reply as hex, or its raw bytes.
    static let outputAliases = [
        OutputAlias("candid", as: .text, meaning: "the reply as Candid text, the default"),
        OutputAlias("hex", as: .text, meaning: "the reply bytes as hex"),
        OutputAlias("raw", as: .text, meaning: "the reply bytes themselves"),
    ]

    enum ReplyFormat { case candid, json, hex, raw }

    static func replyFormat(_ invocation: Invocation) -> ReplyFormat {
        switch invocation.outputAlias?.name {
        case "hex": return .hex
        case "raw": return .raw
        default: return invocation.outputFormat.isJSON ? .json : .candid
        }
    }

    // MARK: Interfaces

    /// The `--did` file, read and checked (nil when not given).
    static func fileInterface(_ invocation: Invocation) throws -> CandidInterface? {
        try invocation.value(did).map { try CandidTypeOptions.loadInterface($0, invocation: invocation, label: "--did") }
    }

    /// The canister's verified `candid:service`. A canister without one, or with one that does not parse, is used
    /// untyped with a note.
    static func fetchedInterface(_ invocation: Invocation, agent: ICAgent, canister: Principal) throws -> CandidInterface? {
        guard canister != .managementCanister else { return nil }
        let service: CandidServiceMetadata?
        do {
            service = try agent.candidService(canister: canister)
        } catch let error as TransportError where error.kind == .rejected {
            invocation.note("note: cannot read the candid:service metadata of \(canister) (\(error.message)); values are untyped")
            return nil
        }
        guard let service else {
            invocation.note("note: \(canister) publishes no candid:service metadata; values are untyped (give --did FILE for field names)")
            return nil
        }
        do {
            let interface = try CandidInterface.parse(service.text, file: "candid:service of \(canister)")
            invocation.detail("typed with the verified candid:service of \(canister)")
            return interface
        } catch {
            invocation.note("note: the candid:service metadata of \(canister) does not parse (\(error)); values are untyped")
            return nil
        }
    }

    /// The method's type, when the interface has it. A method missing from a `--did` file is a usage error; missing
    /// from fetched metadata it is a note (the canister will answer for itself).
    static func method(_ name: String, in interface: CandidInterface?, fromFile: Bool, invocation: Invocation) throws -> CandidFunctionType? {
        guard let interface else { return nil }
        let function: CandidFunctionType?
        do { function = try interface.method(name) } catch {
            throw ICError(.malformed, "the interface's method \(name): \(error)")
        }
        if function == nil {
            let available = interface.service?.methods.map(\.name).joined(separator: ", ") ?? ""
            if fromFile {
                throw ICError(.invalidArgument, "the interface has no method \"\(name)\"" + (available.isEmpty ? "" : " (methods: \(available))"))
            }
            invocation.note("note: candid:service has no method \"\(name)\"; values are untyped")
        }
        return function
    }

    // MARK: A call prepared offline

    /// Everything about a query or call that can be checked on this machine, checked before the first byte goes on
    /// the network: canister, method, ARGS (hex decoded, Candid text and JSON parsed), the `--did` file and the method
    /// in it, the signer's key, the root key. With `--did` (or when no types are needed) the argument is encoded here too.
    struct PreparedCall {
        let canister: Principal
        let method: String
        let effectiveCanister: Principal?
        let subnet: Principal?
        let delegationTarget: Principal?
        let arguments: CallArguments
        let interface: CandidInterface?
        let function: CandidFunctionType?
        /// The canister's candid:service is read for types (no --did, and the arguments or the reply need them).
        let fetchesTypes: Bool
        /// The encoded argument, when it did not wait for fetched types.
        let encoded: [UInt8]?
        let connection: ICConnection

        /// The interface, the method's type and the argument message: fetched types first when needed.
        func typed(_ invocation: Invocation, agent: ICAgent) throws -> (CandidInterface?, CandidFunctionType?, [UInt8]) {
            if let encoded { return (interface, function, encoded) }
            let fetched = try ICCanisterCallSupport.fetchedInterface(invocation, agent: agent, canister: canister)
            let function = try ICCanisterCallSupport.method(method, in: fetched, fromFile: false, invocation: invocation)
            return (fetched, function, try arguments.encode(function: function, environment: fetched?.environment).bytes)
        }
    }

    /// `typesForReply`: whether the reply will be decoded (candid or json output) and so wants the method's types.
    /// `isQuery`: a query (else an update call). Besides the inputs, the route (`--subnet`, the effective canister
    /// id) and the signer's right to make the request (a scoped session's delegation targets) are checked here.
    static func prepare(_ invocation: Invocation, typesForReply: Bool, isQuery: Bool) throws -> PreparedCall {
        let target = try invocation.value(canister)
        let methodName = try invocation.value(method)
        let effective = try invocation.value(effectiveCanister)
        let subnet = try invocation.value(ICNetworkOptions.subnet)
        let explicitTarget = try invocation.value(ICNetworkOptions.delegationTarget)
        let arguments = try CallArguments.read(invocation, argument: Self.arguments, format: try invocation.value(inputFormat))
        let interface = try fileInterface(invocation)
        let function = try method(methodName, in: interface, fromFile: true, invocation: invocation)
        let fetchesTypes = interface == nil && target != .managementCanister && (arguments.wantsTypes || typesForReply)
        let encoded = fetchesTypes ? nil : try arguments.encode(function: function, environment: interface?.environment).bytes
        // Types are fetched only for other canisters, whose route and delegation target do not depend on the argument.
        let argument = encoded ?? []
        let body: ICRequest.Body = isQuery ? .query(canister: target, method: methodName, arg: argument)
            : .call(canister: target, method: methodName, arg: argument)
        _ = try ICAgent.route(body, effectiveCanister: effective, subnet: subnet)
        let connection = try ICNetworkOptions.prepare(invocation)
        try checkDelegationTarget(body, explicit: explicitTarget, signer: connection.signer, invocation: invocation)
        return PreparedCall(canister: target, method: methodName, effectiveCanister: effective, subnet: subnet,
                            delegationTarget: explicitTarget, arguments: arguments, interface: interface, function: function,
                            fetchesTypes: fetchesTypes, encoded: encoded, connection: connection)
    }

    /// A scoped session is refused here, before the network is used, when its targets do not include the canister the
    /// IC will check (exit 6). A `--delegation-target` other than that canister is checked instead, with a note.
    static func checkDelegationTarget(_ body: ICRequest.Body, explicit: Principal?, signer: ICIdentitySelection.Choice,
                                      invocation: Invocation) throws {
        let derived = DelegationTarget.of(body)
        var target = derived
        if let explicit {
            target = .explicit(explicit)
            if explicit != derived.canister, signer.identity.delegatedSession != nil {
                invocation.note("note: the IC checks this request against \(derived); omni checks --delegation-target \(explicit) instead")
            }
        }
        try signer.identity.checkAuthorized(target)
        if let session = signer.identity.delegatedSession, session.chain.effectiveTargets != nil, let canister = target.canister {
            invocation.detail("the session's delegation targets include \(canister)")
        }
    }

    // MARK: Replies

    /// Decodes a reply with the method's result types when known; on a mismatch (or without types) untyped, with
    /// a note. Nil when the bytes are not Candid at all.
    static func decodeReply(_ bytes: [UInt8], function: CandidFunctionType?, interface: CandidInterface?,
                            invocation: Invocation) -> [CandidValue]? {
        if let function {
            do {
                return try Candid.decode(bytes, types: function.resultTypes, environment: interface?.environment ?? CandidTypeEnvironment())
            } catch {
                invocation.note("note: the reply does not match the method's result types (\(error)); shown untyped")
            }
        }
        do {
            let values = try Candid.decode(bytes)
            if function == nil, values.contains(where: \.hasHashedLabels) {
                invocation.note("note: without types, record fields show hash numbers; give --did FILE to see the names")
            }
            return values
        } catch {
            invocation.note("note: the reply is not a Candid message (\(error)); shown as hex")
            return nil
        }
    }

    /// Prints an update call's outcome (see `result`). A reject the replica sent outside consensus
    /// (`non_replicated_rejection`, a v2 reject body) carries no certificate and no signature: it is reported on
    /// stderr as an error (exit 4), so that nothing unauthenticated reaches stdout.
    static func callResult(_ call: CallResult, context: ReplyContext, invocation: Invocation) throws -> CommandResult {
        if call.certificate == nil, case .rejected(let reject) = call.outcome {
            throw TransportError(.rejected, "the replica refused call \(call.requestID) before consensus; this reject is not "
                                 + "certified, so it is not printed as a result: \(reject)")
        }
        return try result(call.outcome, context: context, invocation: invocation)
    }

    /// Prints an outcome: the reply in the chosen form (exit 0), a reject (exit 4), done without reply (exit 1),
    /// accepted (exit 0, the request id).
    static func result(_ outcome: CallOutcome, context: ReplyContext, invocation: Invocation) throws -> CommandResult {
        switch outcome {
        case .replied(let bytes):
            let format = replyFormat(invocation)
            if format == .raw {
                try invocation.write(bytes, to: .standardOutput, label: "reply")
                return .success
            }
            let values = format == .hex ? nil : decodeReply(bytes, function: context.function, interface: context.interface,
                                                           invocation: invocation)
            return .output(ReplyOutput(context: context, reply: bytes, values: values, hexOnly: format == .hex))
        case .rejected(let reject):
            return .output(RejectOutput(context: context, reject: reject), exitCode: .rejected)
        case .done:
            return .output(StatusOutput(context: context, status: "done",
                                        message: "the call completed, but its reply is no longer available (done without reply)"),
                           exitCode: .failure)
        case .accepted:
            let where_ = context.route.subnet.map { "--subnet \($0)" } ?? context.route.canister.map(\.text) ?? ""
            invocation.note("accepted; check its status with: omni ic request-status \(context.requestID) \(where_)")
            return .output(StatusOutput(context: context, status: "accepted", message: nil))
        }
    }
}

/// ARGS as read before anything goes on the network: hex decoded, Candid text parsed for its syntax, JSON parsed.
/// Typing waits for the method's types (from `--did` or the canister's candid:service).
struct CallArguments {
    enum Form {
        /// No ARGS: `()`.
        case empty
        /// Hex or binary: a message sent as given.
        case message([UInt8])
        case candid([UInt8], source: String)
        case json(JSONValue)
    }

    let form: Form

    static func read(_ invocation: Invocation, argument: OptionalArgument<String>,
                     format: ICCanisterCallSupport.InputFormat) throws -> CallArguments {
        if format == .binary, let word = invocation.word(of: argument), word != "-", !word.hasPrefix("@") || word.hasPrefix("@@") {
            throw CLIError.usage("--input-format binary reads raw bytes: give ARGS as @FILE or - (stdin)",
                                 commandPath: invocation.commandPath)
        }
        guard let bytes = try invocation.bytes(of: argument) else { return CallArguments(form: .empty) }
        let source = invocation.sourceName(of: argument) ?? "ARGS"
        switch format {
        case .binary:
            return CallArguments(form: .message(bytes))
        case .hex:
            return CallArguments(form: .message(try ICInput.bytes(bytes, encoding: .hex, label: source)))
        case .candid:
            // The text's form is checked now; a value that only fits with the method's types waits for them.
            do throws(CandidError) { _ = try Candid.parseArguments(utf8: bytes) } catch {
                if error.kind != .typeMismatch && error.kind != .invalidType { throw error.labelled(source) }
            }
            return CallArguments(form: .candid(bytes, source: source))
        case .json:
            do throws(CodecError) { return CallArguments(form: .json(try JSONValue.parse(bytes))) } catch {
                throw error.labelled(source)
            }
        }
    }

    /// Whether encoding wants the method's types: JSON needs them, Candid text takes them (5 becomes a nat8 where one
    /// is expected).
    var wantsTypes: Bool {
        switch form {
        case .empty, .message: false
        case .candid, .json: true
        }
    }

    var isEmpty: Bool {
        if case .empty = form { return true }
        return false
    }

    /// The Candid message, typed by `function` when known, and its values (nil for a message given as bytes).
    func encode(function: CandidFunctionType?, environment: CandidTypeEnvironment?) throws -> (bytes: [UInt8], values: [CandidValue]?) {
        let environment = environment ?? CandidTypeEnvironment()
        let types = function?.argumentTypes
        switch form {
        case .message(let bytes):
            return (bytes, nil)
        case .empty:
            return try Self.candid("ARGS") { () throws(CandidError) in ((try Candid.encode([], types: types, environment: environment)), []) }
        case .candid(let bytes, let source):
            do throws(CandidError) {
                let values = try Candid.parseArguments(utf8: bytes, types: types, environment: environment)
                return (try Candid.encode(values, types: types, environment: environment), values)
            } catch {
                throw error.labelled(source)
            }
        case .json(let json):
            guard let types else {
                throw ICError(.invalidArgument, "--input-format json needs the method's argument types: give --did FILE "
                              + "(or call a canister that publishes candid:service)")
            }
            return try Self.candid("ARGS") { () throws(CandidError) in
                let values = try Candid.arguments(fromJSON: json, types: types, environment: environment)
                return (try Candid.encode(values, types: types, environment: environment), values)
            }
        }
    }

    /// Runs a Candid operation, turning its error into malformed input about `what`.
    static func candid<T>(_ what: String, _ body: () throws(CandidError) -> T) throws(ICError) -> T {
        do { return try body() } catch {
            throw ICError(.malformed, "\(what): \(error)")
        }
    }
}
