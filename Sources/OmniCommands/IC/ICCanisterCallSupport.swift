import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC
import OmniTransport

/// What `omni ic query`, `call`, `request-status` and `send` share: Candid interfaces (from `--candid` or the
/// canister's verified `candid:service`), argument encoding, and how a reply, reject or status is printed.
enum ICCanisterCallSupport {
    static let candid = Option<String>(
        "candid", valueName: "FILE",
        help: "The canister's .did file, for argument and result types. Without it, omni reads the canister's "
            + "candid:service metadata (verified) whenever types are needed.",
        source: .path, group: "Candid")
    static let argsFormat = Option<ArgsFormat>(
        "args-format", valueName: "FORMAT",
        help: "How ARGS is written: candid (text), json (needs the method's types), hex, or binary (raw bytes from @FILE or -).",
        default: .candid, group: "Candid")
    static let effectiveCanister = Option<String>(
        "effective-canister-id", valueName: "ID",
        help: "For aaaaa-aa: route the request to this canister's subnet (default: the argument's canister_id; needed for "
            + "create_canister). Any other canister is its own effective id.",
        group: "Network")

    enum ArgsFormat: String, CaseIterable, ArgumentValue { case candid, json, hex, binary }

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

    /// The interface to type values with: `--candid FILE`, else (when `needed`) the canister's verified
    /// `candid:service`. A canister without one, or with one that does not parse, is used untyped with a note.
    static func interface(_ invocation: Invocation, agent: ICAgent, canister: Principal, needed: Bool) throws -> CandidInterface? {
        if let path = try invocation.value(candid) {
            return try CandidTypeOptions.loadInterface(path, invocation: invocation, label: "--candid")
        }
        guard needed, canister != .managementCanister else { return nil }
        let service: CandidServiceMetadata?
        do {
            service = try agent.candidService(canister: canister)
        } catch let error as TransportError where error.kind == .rejected {
            invocation.note("note: cannot read the candid:service metadata of \(canister) (\(error.message)); values are untyped")
            return nil
        }
        guard let service else {
            invocation.note("note: \(canister) publishes no candid:service metadata; values are untyped (give --candid FILE for field names)")
            return nil
        }
        do {
            let interface = try CandidInterface.parse(service.text, file: "candid:service of \(canister)")
            invocation.detail("typed with the \(service.verified ? "verified" : "unverified (--unsafe)") candid:service of \(canister)")
            return interface
        } catch {
            invocation.note("note: the candid:service metadata of \(canister) does not parse (\(error)); values are untyped")
            return nil
        }
    }

    /// The method's type, when the interface has it. A method missing from a `--candid` file is a usage error;
    /// missing from fetched metadata it is a note (the canister will answer for itself).
    static func method(_ name: String, in interface: CandidInterface?, invocation: Invocation) throws -> CandidFunctionType? {
        guard let interface else { return nil }
        let function: CandidFunctionType?
        do { function = try interface.method(name) } catch {
            throw ICError(.malformed, "the interface's method \(name): \(error)")
        }
        if function == nil {
            let available = interface.service?.methods.map(\.name).joined(separator: ", ") ?? ""
            if invocation.isGiven(candid) {
                throw ICError(.invalidArgument, "the interface has no method \"\(name)\"" + (available.isEmpty ? "" : " (methods: \(available))"))
            }
            invocation.note("note: candid:service has no method \"\(name)\"; values are untyped")
        }
        return function
    }

    // MARK: Arguments

    /// ARGS (or `()` when absent) as a Candid message, typed by `function` when known.
    static func encodeArguments(_ invocation: Invocation, argument: Argument<String>, function: CandidFunctionType?,
                                interface: CandidInterface?) throws -> [UInt8] {
        let format = try invocation.value(argsFormat) ?? .candid
        // ARGS is the third word (after CANISTER and METHOD).
        let raw = invocation.parsed.positionals.dropFirst(2).first
        if format == .binary, let raw, raw != "-", !raw.hasPrefix("@") || raw.hasPrefix("@@") {
            throw CLIError.usage("--args-format binary reads raw bytes: give ARGS as @FILE or - (stdin)", commandPath: invocation.commandPath)
        }
        guard raw != nil, let bytes = try invocation.bytes(of: argument) else {
            return try candidCall("ARGS") { () throws(CandidError) in
                try Candid.encode([], types: function?.argumentTypes, environment: interface?.environment ?? CandidTypeEnvironment())
            }
        }
        let environment = interface?.environment ?? CandidTypeEnvironment()
        switch format {
        case .binary:
            return bytes
        case .hex:
            let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
            do { return try Hex.decode(text, allowPrefix: true) } catch {
                throw error.labelled("ARGS")
            }
        case .candid:
            let text = String(decoding: bytes, as: UTF8.self)
            return try candidCall("ARGS") { () throws(CandidError) in
                let values = try Candid.parseArguments(text, types: function?.argumentTypes, environment: environment)
                return try Candid.encode(values, types: function?.argumentTypes, environment: environment)
            }
        case .json:
            guard let function else {
                throw ICError(.invalidArgument, "--args-format json needs the method's argument types: give --candid FILE "
                              + "(or call a canister that publishes candid:service)")
            }
            let json: JSONValue
            do { json = try JSONValue.parse(bytes) } catch { throw ICError(.malformed, "ARGS: \(error)") }
            return try candidCall("ARGS") { () throws(CandidError) in
                let values = try Candid.arguments(fromJSON: json, types: function.argumentTypes, environment: environment)
                return try Candid.encode(values, types: function.argumentTypes, environment: environment)
            }
        }
    }

    /// Whether decoding or encoding needs the method's types (and so the candid:service read).
    static func needsTypes(_ invocation: Invocation, hasArguments: Bool) throws -> Bool {
        let format = try invocation.value(argsFormat) ?? .candid
        let output = replyFormat(invocation)
        return (hasArguments && (format == .candid || format == .json)) || output == .candid || output == .json
    }

    /// Runs a Candid operation, turning its error into malformed input about `what`.
    static func candidCall<T>(_ what: String, _ body: () throws(CandidError) -> T) throws(ICError) -> T {
        do { return try body() } catch {
            throw ICError(.malformed, "\(what): \(error)")
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
                invocation.note("note: without types, record fields show hash numbers; give --candid FILE to see the names")
            }
            return values
        } catch {
            invocation.note("note: the reply is not a Candid message (\(error)); shown as hex")
            return nil
        }
    }

    /// Prints an update call's outcome (see `result`). A reject the replica sent outside consensus
    /// (`non_replicated_rejection`, a v2 reject body) carries no certificate and no signature: unless `--unsafe` was
    /// given it is reported on stderr as an error (exit 4), so that nothing unauthenticated reaches stdout.
    static func callResult(_ call: CallResult, context: ReplyContext, invocation: Invocation) throws -> CommandResult {
        if call.verified, call.certificate == nil, case .rejected(let reject) = call.outcome {
            throw TransportError(.rejected, "the replica refused call \(call.requestID) before consensus; this reject is not "
                                 + "certified, so it is not printed as a result: \(reject)")
        }
        return result(call.outcome, context: context, invocation: invocation)
    }

    /// Prints an outcome: the reply in the chosen form (exit 0), a reject (exit 4), done without reply (exit 1),
    /// accepted (exit 0, the request id).
    static func result(_ outcome: CallOutcome, context: ReplyContext, invocation: Invocation) -> CommandResult {
        switch outcome {
        case .replied(let bytes):
            let format = replyFormat(invocation)
            if format == .raw {
                invocation.streams.outBytes(bytes)
                return CommandResult(exitCode: .ok)
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
            invocation.note("accepted; check its status with: omni ic request-status \(context.requestID) \(context.effectiveCanisterID)")
            return .output(StatusOutput(context: context, status: "accepted", message: nil))
        }
    }
}

/// Where an answer came from and how it was checked (shared by every output model below).
struct ReplyContext {
    let kind: String
    let requestID: RequestID
    let canister: Principal?
    let effectiveCanisterID: Principal
    let method: String?
    let function: CandidFunctionType?
    let interface: CandidInterface?
    /// `{"kind": "node_signatures" | "certificate" | "none", …}`.
    let verification: JSONValue
    let verificationText: String

    var commonJSON: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("kind", .string(kind)), ("request_id", .string(requestID.hex))]
        if let canister { fields.append(("canister_id", .string(canister.text))) }
        if let method { fields.append(("method", .string(method))) }
        fields.append(("verification", verification))
        return fields
    }

    static func query(_ result: QueryResult, canister: Principal, method: String, function: CandidFunctionType?,
                      interface: CandidInterface?) -> ReplyContext {
        let verification: JSONValue
        let text: String
        switch result.verification {
        case .skipped:
            verification = ["kind": "none"]
            text = "NOT verified (--unsafe)"
        case .nodeSignatures(let subnet, let nodes, let fromCache, let refreshed):
            verification = .object([
                "kind": "node_signatures", "subnet_id": .string(subnet.text), "nodes": .array(nodes.map { .string($0.text) }),
                "keys_from_cache": .bool(fromCache), "keys_refreshed": .bool(refreshed),
            ])
            text = "verified: signed by node \(nodes.map(\.text).joined(separator: ", ")) of subnet \(subnet)"
        }
        return ReplyContext(kind: "query", requestID: result.requestID, canister: canister, effectiveCanisterID: result.effectiveCanisterID,
                            method: method, function: function, interface: interface, verification: verification,
                            verificationText: text)
    }

    static func call(_ result: CallResult, canister: Principal?, method: String?, function: CandidFunctionType?,
                     interface: CandidInterface?) -> ReplyContext {
        let (verification, text) = certificateVerification(result.certificate, verified: result.verified)
        return ReplyContext(kind: "call", requestID: result.requestID, canister: canister, effectiveCanisterID: result.effectiveCanisterID,
                            method: method, function: function, interface: interface, verification: verification,
                            verificationText: text)
    }

    static func certificateVerification(_ certificate: VerifiedCertificate?, verified: Bool) -> (JSONValue, String) {
        guard verified else { return (["kind": "none"], "NOT verified (--unsafe)") }
        // Only a call accepted without waiting has no certificate (uncertified rejects never get here).
        guard let certificate else { return (["kind": "none"], "nothing to verify yet: the call was accepted (202), not waited for") }
        let json: JSONValue = .object([
            "kind": "certificate", "subnet_id": .string(certificate.subnetID.text), "delegated": .bool(certificate.isDelegated),
            "time": .string(String(certificate.time)), "time_rfc3339": .string(ICTime.format(certificate.time)),
        ])
        return (json, "verified: certificate of subnet \(certificate.subnetID) at \(ICTime.format(certificate.time))")
    }
}

/// A reply: Candid text, JSON with the values and the bytes, or hex.
struct ReplyOutput: Renderable {
    let context: ReplyContext
    let reply: [UInt8]
    let values: [CandidValue]?
    let hexOnly: Bool

    func text(style: TextStyle) -> String {
        guard !hexOnly, let values else { return Hex.encode(reply) }
        return Candid.print(arguments: values)
    }

    var json: JSONValue {
        var fields = [("status", JSONValue.string("replied"))] + context.commonJSON
        fields.append(("values", values.map { Candid.json(arguments: $0) } ?? .null))
        fields.append(("reply_hex", .string(Hex.encode(reply))))
        return .object(JSONObject(fields))
    }
}

/// A reject by the canister or the system, with exit code 4.
struct RejectOutput: Renderable {
    let context: ReplyContext
    let reject: Reject

    func text(style: TextStyle) -> String {
        let origin = reject.certified ? "certified" : "not certified"
        return style.bad("rejected") + " (code \(reject.code.rawValue) \(reject.code.name)"
            + (reject.errorCode.map { ", \($0)" } ?? "") + ", \(origin)): " + reject.message
    }

    var json: JSONValue {
        var fields = [("status", JSONValue.string("rejected"))] + context.commonJSON
        fields += [("reject_code", .int(reject.code.rawValue)), ("reject_code_name", .string(reject.code.name)),
                   ("reject_message", .string(reject.message)), ("error_code", reject.errorCode.map { .string($0) } ?? .null),
                   ("certified", .bool(reject.certified))]
        return .object(JSONObject(fields))
    }
}

/// A status without a reply: done (forgotten), accepted (not waited for), or still pending.
struct StatusOutput: Renderable {
    let context: ReplyContext
    let status: String
    let message: String?

    func text(style: TextStyle) -> String {
        if status == "accepted" { return context.requestID.prefixedHex }
        return status + (message.map { ": " + $0 } ?? "")
    }

    var json: JSONValue {
        var fields = [("status", JSONValue.string(status))] + context.commonJSON
        if let message { fields.append(("message", .string(message))) }
        return .object(JSONObject(fields))
    }
}
