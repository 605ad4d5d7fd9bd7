import OmniCandid
import OmniCodec

/// A request signed on one machine (`omni ic sign`) and sent from another (`omni ic send`): the exact envelope
/// bytes to post, plus readable copies of what they say so the user can review the request before sending it.
///
/// JSON (UTF-8, one object; 64-bit numbers as decimal strings, bytes as lowercase hex), keys in this order:
///
///     {
///       "format": "omni-ic-signed-request", "version": 1,
///       "request_type": "call" | "query" | "read_state",
///       "request_id": "<64 hex>",
///       "canister_id": "<principal>",                     call and query
///       "effective_canister_id": "<principal>",           where the request is routed, or:
///       "subnet_id": "<principal>",                       the subnet it is sent to (list_canisters, canister
///                                                         creation); a file has exactly one of the two
///       "method_name": "<name>",                          call and query
///       "paths": [["<label hex>", …], …],                 read_state
///       "sender": "<principal>",
///       "ingress_expiry": "<ns since the epoch>",
///       "ingress_expiry_rfc3339": "<RFC 3339>",           informational
///       "arg": "<hex Candid message>",                    call and query
///       "envelope": "d9d9f7…",                            the signed CBOR envelope, posted as is
///       "request_status_envelope": "d9d9f7…",             optional, calls only: a signed read_state of
///                                                         /request_status/<request_id> by the same sender, so
///                                                         that `send` can poll without the signing key
///       "network": "ic" | "local" | "<url>"               optional hint; `send --network` overrides it
///     }
///
/// The keys are those `SignedRequest` (written by `omni ic sign`) uses; this type adds the network hint and
/// read_state requests. Reading checks that every readable field agrees with the envelope (the request id is
/// recomputed from the envelope's content), so what the user reviews is what gets sent. Unknown keys are ignored;
/// a subnet-routed file has no `effective_canister_id`, so a reader that knows nothing of `subnet_id` refuses it
/// rather than sending it along another route.
public struct SignedRequestFile: Sendable, Equatable {
    public static let format = "omni-ic-signed-request"
    public static let version = 1
    /// Files larger than this are refused (an envelope is at most a few MiB: the IC's ingress limit).
    public static let maxFileBytes = 16 << 20

    /// The envelope exactly as signed and as it will be posted.
    public let envelopeBytes: [UInt8]
    public let envelope: ICEnvelope
    /// Where the request goes and whose certificates vouch for its answer: its effective canister id, or a subnet.
    public let route: CertificateScope
    /// The effective canister id (nil for a subnet-routed request).
    public var effectiveCanisterID: Principal? { route.canister }
    /// The subnet a subnet-routed request goes to.
    public var subnet: Principal? { route.subnet }
    /// Network hint: `ic`, `local` or a URL.
    public let network: String?
    /// The signed read_state polling for this call's status.
    public let requestStatus: StatusRequest?

    /// A signed `read_state` of `/request_status/<id>`.
    public struct StatusRequest: Sendable, Equatable {
        public let envelopeBytes: [UInt8]
        public let envelope: ICEnvelope
    }

    public var requestID: RequestID { envelope.requestID }
    public var request: ICRequest { envelope.content }
    /// `call`, `query` or `read_state`.
    public var kind: String { envelope.content.requestType }

    /// Wraps a signed envelope (and, for a call, optionally its signed status read) for writing to a file.
    public init(envelope: ICEnvelope, effectiveCanisterID: Principal, network: String? = nil,
                requestStatus: ICEnvelope? = nil) throws(ICError) {
        try self.init(envelope: envelope, route: .canister(effectiveCanisterID), network: network, requestStatus: requestStatus)
    }

    /// Wraps a signed envelope routed to its effective canister id or to a subnet.
    public init(envelope: ICEnvelope, route: CertificateScope, network: String? = nil,
                requestStatus: ICEnvelope? = nil) throws(ICError) {
        try self.init(envelopeBytes: try envelope.encoded(), route: route, network: network,
                      requestStatusBytes: try requestStatus?.encoded())
    }

    /// Wraps envelope bytes (checked by decoding them).
    public init(envelopeBytes: [UInt8], effectiveCanisterID: Principal, network: String? = nil,
                requestStatusBytes: [UInt8]? = nil) throws(ICError) {
        try self.init(envelopeBytes: envelopeBytes, route: .canister(effectiveCanisterID), network: network,
                      requestStatusBytes: requestStatusBytes)
    }

    /// Wraps envelope bytes (checked by decoding them) with their route.
    public init(envelopeBytes: [UInt8], route: CertificateScope, network: String? = nil,
                requestStatusBytes: [UInt8]? = nil) throws(ICError) {
        let envelope = try ICEnvelope(decoding: envelopeBytes, maxBytes: SignedRequestFile.maxFileBytes)
        self.envelopeBytes = envelopeBytes
        self.envelope = envelope
        self.route = route
        self.network = network
        if let requestStatusBytes {
            let status = try ICEnvelope(decoding: requestStatusBytes, maxBytes: SignedRequestFile.maxFileBytes)
            try SignedRequestFile.checkStatusRequest(status, for: envelope)
            requestStatus = StatusRequest(envelopeBytes: requestStatusBytes, envelope: status)
        } else {
            requestStatus = nil
        }
        switch route {
        case .canister(let effective): try SignedRequestFile.checkEffectiveCanisterID(effective, of: envelope.content)
        case .subnet(let subnet): try SignedRequestFile.checkSubnetRoute(subnet, of: envelope.content)
        }
    }

    /// Only what the subnet endpoints take may carry a subnet route (the same rule `ICAgent.route` applies before
    /// a live request); a subnet read_state may read anything of the subnet's state.
    private static func checkSubnetRoute(_ subnet: Principal, of content: ICRequest) throws(ICError) {
        if case .readState = content.body { return }
        do {
            _ = try ICAgent.route(content.body, effectiveCanister: nil, subnet: subnet)
        } catch {
            throw ICError.malformed("the signed request cannot go to subnet \(subnet): " + error.message, location: "subnet_id")
        }
    }

    /// The effective canister id decides which subnet's certificate vouches for the answer, so the file's copy must
    /// be the one the signed content implies: the called canister, or for `aaaaa-aa` the canister the argument
    /// names (any id only for canister creation).
    private static func checkEffectiveCanisterID(_ effective: Principal, of content: ICRequest) throws(ICError) {
        let canister: Principal, method: String, arg: [UInt8]
        switch content.body {
        case .call(let called, let name, let bytes), .query(let called, let name, let bytes):
            (canister, method, arg) = (called, name, bytes)
        case .readState:
            return
        }
        let verb = content.requestType == "query" ? "queried" : "called"
        let implied: EffectiveCanisterID
        do {
            implied = try EffectiveCanisterID.resolve(canister: canister, method: method, arg: arg)
        } catch {
            throw ICError.malformed("the effective canister id \(effective) cannot be checked against the signed request: "
                                    + error.message, location: "effective_canister_id")
        }
        switch implied {
        case .any:
            return
        case .canister(let expected) where expected == effective:
            return
        case .canister(let expected):
            let source = canister == .managementCanister ? "\(expected), the canister the signed argument of aaaaa-aa.\(method) names"
                : "the \(verb) canister \(expected)"
            throw ICError.malformed("the effective canister id \(effective) is not \(source)", location: "effective_canister_id")
        }
    }

    private static func checkStatusRequest(_ status: ICEnvelope, for call: ICEnvelope) throws(ICError) {
        guard case .call = call.content.body else {
            throw ICError.malformed("request_status is only meaningful for a call, this request is a \(call.content.requestType)")
        }
        guard case .readState(let paths) = status.content.body,
              paths == [StatePath.requestStatus(call.requestID)]
        else {
            throw ICError.malformed("request_status must be a read_state of exactly /request_status/\(call.requestID.hex)")
        }
        guard status.content.sender == call.content.sender else {
            throw ICError.malformed("request_status is signed by \(status.content.sender), the call by \(call.content.sender)")
        }
    }

    // MARK: JSON

    public var json: JSONValue {
        let content = envelope.content
        var object = JSONObject()
        object["format"] = .string(SignedRequestFile.format)
        object["version"] = .int(SignedRequestFile.version)
        object["request_type"] = .string(kind)
        object["request_id"] = .string(requestID.hex)
        if let canister = content.canister { object["canister_id"] = .string(canister.text) }
        switch route {
        case .canister(let effective): object["effective_canister_id"] = .string(effective.text)
        case .subnet(let subnet): object["subnet_id"] = .string(subnet.text)
        }
        switch content.body {
        case .call(_, let method, _), .query(_, let method, _):
            object["method_name"] = .string(method)
        case .readState(let paths):
            object["paths"] = .array(paths.map { .array($0.labels.map { .string(Hex.encode($0)) }) })
        }
        object["sender"] = .string(content.sender.text)
        object["ingress_expiry"] = .string(String(content.ingressExpiry))
        object["ingress_expiry_rfc3339"] = .string(ICTime.format(content.ingressExpiry))
        switch content.body {
        case .call(_, _, let arg), .query(_, _, let arg): object["arg"] = .string(Hex.encode(arg))
        case .readState: break
        }
        object["envelope"] = .string(Hex.encode(envelopeBytes))
        if let requestStatus { object["request_status_envelope"] = .string(Hex.encode(requestStatus.envelopeBytes)) }
        if let network { object["network"] = .string(network) }
        return .object(object)
    }

    /// The file's text: pretty JSON and a final newline.
    public var text: String { json.serialized(pretty: true) + "\n" }

    /// Reads a file's text.
    public init(text: String) throws(ICError) {
        guard text.utf8.count <= SignedRequestFile.maxFileBytes else {
            throw ICError.malformed("the signed request file is larger than \(SignedRequestFile.maxFileBytes) bytes")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(text, limits: JSONLimits(maxDepth: 8, maxBytes: SignedRequestFile.maxFileBytes))
        } catch {
            throw ICError.codec(error, "signed request file")
        }
        try self.init(json: json)
    }

    public init(json: JSONValue) throws(ICError) {
        guard json.objectValue != nil else { throw ICError.malformed("a signed request file is a JSON object") }
        guard json["format"]?.stringValue == SignedRequestFile.format else {
            throw ICError.malformed("not a signed request file: \"format\" is not \"\(SignedRequestFile.format)\"")
        }
        guard json["version"]?.int64Value == Int64(SignedRequestFile.version) else {
            throw ICError(.unsupported, "signed request file version \(json["version"]?.serialized() ?? "(missing)") is not supported (expected \(SignedRequestFile.version))")
        }
        func string(_ key: String) throws(ICError) -> String {
            guard let value = json[key]?.stringValue else {
                throw ICError.malformed("signed request file: \"\(key)\" is missing or not a string", location: key)
            }
            return value
        }
        func optionalString(_ key: String) throws(ICError) -> String? {
            guard let value = json[key], !value.isNull else { return nil }
            guard let text = value.stringValue else {
                throw ICError.malformed("signed request file: \"\(key)\" is not a string", location: key)
            }
            return text
        }
        func hex(_ key: String) throws(ICError) -> [UInt8] {
            do { return try Hex.decode(try string(key)) } catch let error as CodecError {
                throw ICError.codec(error, "signed request file: \"\(key)\"")
            } catch let error as ICError {
                throw error
            } catch {
                throw ICError.malformed("signed request file: \"\(key)\": \(error)", location: key)
            }
        }
        var statusBytes: [UInt8]?
        if let status = json["request_status_envelope"], !status.isNull {
            statusBytes = try hex("request_status_envelope")
        }
        let route: CertificateScope
        if let subnet = try optionalString("subnet_id") {
            guard json["effective_canister_id"] == nil else {
                throw ICError.malformed("signed request file: \"subnet_id\" and \"effective_canister_id\" are two routes; a request has one",
                                        location: "subnet_id")
            }
            route = .subnet(try Principal(icText: subnet))
        } else {
            route = .canister(try Principal(icText: try string("effective_canister_id")))
        }
        try self.init(envelopeBytes: try hex("envelope"), route: route, network: try optionalString("network"),
                      requestStatusBytes: statusBytes)
        try checkMirrors(json)
    }

    /// Every readable copy must say what the envelope says.
    private func checkMirrors(_ json: JSONValue) throws(ICError) {
        func expect(_ key: String, _ expected: String) throws(ICError) {
            guard let given = json[key]?.stringValue else {
                throw ICError.malformed("signed request file: \"\(key)\" is missing or not a string", location: key)
            }
            guard given == expected else {
                throw ICError.malformed("signed request file: \"\(key)\" is \"\(given.prefix(80))\" but the signed envelope says "
                                        + "\"\(expected.prefix(80))\"", location: key)
            }
        }
        let content = envelope.content
        try expect("request_type", kind)
        try expect("request_id", requestID.hex)
        try expect("sender", content.sender.text)
        try expect("ingress_expiry", String(content.ingressExpiry))
        switch content.body {
        case .call(let canister, let method, let arg), .query(let canister, let method, let arg):
            try expect("canister_id", canister.text)
            try expect("method_name", method)
            try expect("arg", Hex.encode(arg))
        case .readState(let paths):
            if let listed = json["paths"], listed != .null {
                let expected: JSONValue = .array(paths.map { .array($0.labels.map { .string(Hex.encode($0)) }) })
                guard listed == expected else {
                    throw ICError.malformed("signed request file: \"paths\" disagrees with the signed envelope", location: "paths")
                }
            }
        }
    }
}
