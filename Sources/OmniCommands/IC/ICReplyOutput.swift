import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC

/// Where an answer came from and how it was checked (shared by every output model below).
struct ReplyContext {
    let kind: String
    let requestID: RequestID
    let canister: Principal?
    /// Where the request went: its effective canister id or subnet.
    let route: CertificateScope
    let method: String?
    let function: CandidFunctionType?
    let interface: CandidInterface?
    /// `{"kind": "node_signatures" | "certificate" | "none", …}`.
    let verification: JSONValue
    let verificationText: String
    /// For queries, `"verified": true|false` in JSON (false only for `omni ic query --unsafe`).
    var queryVerified: Bool?

    var commonJSON: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("kind", .string(kind)), ("request_id", .string(requestID.hex))]
        if let canister { fields.append(("canister_id", .string(canister.text))) }
        if let method { fields.append(("method", .string(method))) }
        if let subnet = route.subnet { fields.append(("subnet_id", .string(subnet.text))) }
        if let queryVerified { fields.append(("verified", .bool(queryVerified))) }
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
            text = "NOT verified (--unsafe): no node signature was checked"
        case .nodeSignatures(let subnet, let nodes, let fromCache, let refreshed):
            verification = .object([
                "kind": "node_signatures", "subnet_id": .string(subnet.text), "nodes": .array(nodes.map { .string($0.text) }),
                "keys_from_cache": .bool(fromCache), "keys_refreshed": .bool(refreshed),
            ])
            text = "verified: signed by node \(nodes.map(\.text).joined(separator: ", ")) of subnet \(subnet)"
        }
        return ReplyContext(kind: "query", requestID: result.requestID, canister: canister, route: result.route,
                            method: method, function: function, interface: interface, verification: verification,
                            verificationText: text, queryVerified: result.verified)
    }

    static func call(_ result: CallResult, canister: Principal?, method: String?, function: CandidFunctionType?,
                     interface: CandidInterface?) -> ReplyContext {
        let (verification, text) = certificateVerification(result.certificate)
        return ReplyContext(kind: "call", requestID: result.requestID, canister: canister, route: result.route,
                            method: method, function: function, interface: interface, verification: verification,
                            verificationText: text)
    }

    static func certificateVerification(_ certificate: VerifiedCertificate?) -> (JSONValue, String) {
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
