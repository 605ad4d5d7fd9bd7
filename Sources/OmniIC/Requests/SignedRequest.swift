import OmniCandid
import OmniCodec

/// A request signed on one machine and sent from another (`omni ic sign` writes it, `omni ic send` reads it):
/// the signed CBOR envelope plus, in plain JSON, what a sender needs to route it and what a person needs to check
/// it before sending.
///
/// The file is JSON:
///
///     {"format": "omni-ic-signed-request", "version": 1,
///      "request_type": "call" | "query", "request_id": "<64 hex>",
///      "canister_id": "<text>", "effective_canister_id": "<text>", "method_name": "<name>",
///      "sender": "<text>", "ingress_expiry": "<ns, decimal>", "ingress_expiry_rfc3339": "<time>",
///      "arg": "<hex>", "envelope": "<hex CBOR>", "request_status_envelope": "<hex CBOR>"?}
///
/// `request_status_envelope` (calls only) is a read_state of `/request_status/<id>` signed by the same sender
/// with the same expiry: the IC answers status reads only from the request's sender, so an offline signer must
/// sign the poll too. The envelopes are the truth; every plain field must agree with them, or reading fails.
public struct SignedRequest: Sendable, Equatable {
    public static let format = "omni-ic-signed-request"
    public static let version = 1
    /// Envelopes hold a Candid argument; the IC's ingress limit is 2 MiB, the file may hold two of them in hex.
    public static let maxFileBytes = 12 << 20

    /// The signed call or query.
    public let envelope: ICEnvelope
    /// For calls: the signed read_state of `/request_status/<request id>`.
    public let statusEnvelope: ICEnvelope?
    /// Where to send it (the HTTP route and the canister-range check).
    public let effectiveCanister: Principal
    /// The HTTP bodies: the envelopes as CBOR with the self-describe tag.
    public let encodedEnvelope: [UInt8]
    public let encodedStatusEnvelope: [UInt8]?

    /// Bundles an envelope for a call or query (and, for calls, the status read) for sending later. The status
    /// read must ask exactly for this request's status, from the same sender.
    public init(envelope: ICEnvelope, statusEnvelope: ICEnvelope?, effectiveCanister: Principal) throws(ICError) {
        try self.init(envelope: envelope, statusEnvelope: statusEnvelope, effectiveCanister: effectiveCanister,
                      encodedEnvelope: try envelope.encoded(), encodedStatusEnvelope: try statusEnvelope?.encoded())
    }

    /// `encoded…` are the bytes the envelopes were read from (sent as they are, whoever encoded them).
    private init(envelope: ICEnvelope, statusEnvelope: ICEnvelope?, effectiveCanister: Principal, encodedEnvelope: [UInt8],
                 encodedStatusEnvelope: [UInt8]?) throws(ICError) {
        switch envelope.content.body {
        case .call, .query: break
        case .readState:
            throw ICError(.invalidArgument, "a signed request holds a call or a query, not a read_state")
        }
        if let statusEnvelope {
            guard case .readState(let paths) = statusEnvelope.content.body,
                  paths == [StatePath.requestStatus(envelope.requestID)] else {
                throw ICError(.invalidArgument, "the status envelope must read exactly /request_status/\(envelope.requestID.hex)")
            }
            guard envelope.content.requestType == "call" else {
                throw ICError(.invalidArgument, "only calls have a request status to read")
            }
            guard statusEnvelope.content.sender == envelope.content.sender else {
                throw ICError(.invalidArgument, "the status envelope's sender differs from the request's")
            }
        }
        self.envelope = envelope
        self.statusEnvelope = statusEnvelope
        self.effectiveCanister = effectiveCanister
        self.encodedEnvelope = encodedEnvelope
        self.encodedStatusEnvelope = encodedStatusEnvelope
    }

    public var requestID: RequestID { envelope.requestID }
    public var requestType: String { envelope.content.requestType }
    public var isQuery: Bool { requestType == "query" }
    public var sender: Principal { envelope.content.sender }
    public var ingressExpiry: UInt64 { envelope.content.ingressExpiry }

    /// The addressed canister (always present: the envelope is a call or a query).
    public var canister: Principal { envelope.content.canister ?? .managementCanister }

    public var methodName: String {
        switch envelope.content.body {
        case .call(_, let method, _), .query(_, let method, _): method
        case .readState: ""
        }
    }

    public var arg: [UInt8] {
        switch envelope.content.body {
        case .call(_, _, let arg), .query(_, _, let arg): arg
        case .readState: []
        }
    }

    /// Whether the IC would still accept the request at `time` (it refuses expired requests).
    public func isExpired(at time: UInt64) -> Bool { ingressExpiry < time }

    /// Checks both envelopes' senders and signatures the way the IC will (see `ICEnvelope.verifySender`).
    public func verifySignatures(at time: UInt64, rootKey: ICRootKey = .mainnet) throws(ICError) {
        try envelope.verifySender(at: time, effectiveCanister: effectiveCanister, rootKey: rootKey)
        try statusEnvelope?.verifySender(at: time, effectiveCanister: effectiveCanister, rootKey: rootKey)
    }

    // MARK: JSON

    public var json: JSONValue {
        var object = JSONObject()
        object.append("format", .string(SignedRequest.format))
        object.append("version", .int(SignedRequest.version))
        object.append("request_type", .string(requestType))
        object.append("request_id", .string(requestID.hex))
        object.append("canister_id", .string(canister.text))
        object.append("effective_canister_id", .string(effectiveCanister.text))
        object.append("method_name", .string(methodName))
        object.append("sender", .string(sender.text))
        object.append("ingress_expiry", .string(String(ingressExpiry)))
        object.append("ingress_expiry_rfc3339", .string(ICTime.format(ingressExpiry)))
        object.append("arg", .string(Hex.encode(arg)))
        object.append("envelope", .string(Hex.encode(encodedEnvelope)))
        if let encodedStatusEnvelope {
            object.append("request_status_envelope", .string(Hex.encode(encodedStatusEnvelope)))
        }
        return .object(object)
    }

    /// The file's text (pretty JSON and a final newline).
    public func fileText() -> String { json.serialized(pretty: true) + "\n" }

    /// Reads the JSON form, refusing other formats, newer versions, and plain fields that disagree with the
    /// envelopes (a file edited by hand must not show one request and send another).
    public init(json: JSONValue) throws(ICError) {
        guard json.objectValue != nil else { throw ICError.malformed("signed request: not a JSON object") }
        guard json["format"]?.stringValue == SignedRequest.format else {
            throw ICError.malformed("not a signed request file (format is not \"\(SignedRequest.format)\")")
        }
        guard let versionText = json["version"]?.numberText, let version = Int(versionText) else {
            throw ICError.malformed("signed request: version is missing or not an integer")
        }
        guard version == SignedRequest.version else {
            throw ICError(.unsupported, "signed request version \(version) is not supported (this omni reads version \(SignedRequest.version))")
        }
        func text(_ key: String) throws(ICError) -> String {
            guard let value = json[key]?.stringValue else { throw ICError.malformed("signed request: \(key) is missing or not a string", location: key) }
            return value
        }
        func hex(_ key: String) throws(ICError) -> [UInt8] {
            let digits = try text(key)
            do { return try Hex.decode(digits) } catch {
                throw ICError.malformed("signed request: \(key) is not hex: \(error.message)", location: key, offset: error.offset)
            }
        }
        func principal(_ key: String) throws(ICError) -> Principal {
            do { return try Principal(icText: try text(key)) } catch {
                throw ICError.malformed("signed request: \(key): \(error.message)", location: key)
            }
        }
        let envelopeBytes = try hex("envelope")
        let envelope = try ICEnvelope(decoding: envelopeBytes, maxBytes: SignedRequest.maxFileBytes)
        var statusBytes: [UInt8]?
        var statusEnvelope: ICEnvelope?
        if let value = json["request_status_envelope"], !value.isNull {
            let bytes = try hex("request_status_envelope")
            statusEnvelope = try ICEnvelope(decoding: bytes, maxBytes: SignedRequest.maxFileBytes)
            statusBytes = bytes
        }
        do {
            try self.init(envelope: envelope, statusEnvelope: statusEnvelope, effectiveCanister: try principal("effective_canister_id"),
                          encodedEnvelope: envelopeBytes, encodedStatusEnvelope: statusBytes)
        } catch {
            throw error.kind == .malformed ? error : ICError.malformed("signed request: \(error.message)")
        }
        func agree(_ key: String, _ expected: String) throws(ICError) {
            let given = try text(key)
            guard given == expected else {
                throw ICError.malformed("signed request: \(key) is \"\(given.prefix(80))\" but the envelope says \"\(expected.prefix(80))\"", location: key)
            }
        }
        try agree("request_type", requestType)
        try agree("request_id", requestID.hex)
        try agree("canister_id", canister.text)
        try agree("method_name", methodName)
        try agree("sender", sender.text)
        try agree("ingress_expiry", String(ingressExpiry))
        try agree("arg", Hex.encode(arg))
        if requestType == "call" && statusEnvelope == nil {
            throw ICError.malformed("signed request: a call needs request_status_envelope to poll its status", location: "request_status_envelope")
        }
    }

    /// Reads the file's text.
    public init(jsonText: String) throws(ICError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(jsonText, limits: JSONLimits(maxDepth: 8, maxBytes: SignedRequest.maxFileBytes))
        } catch {
            throw ICError.codec(error, "signed request")
        }
        try self.init(json: value)
    }
}
