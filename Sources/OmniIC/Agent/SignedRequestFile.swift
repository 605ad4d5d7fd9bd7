import OmniCandid
import OmniCodec

/// A request signed on one machine (`omni ic sign`) and sent from another (`omni ic send`): the exact envelope
/// bytes to post, plus readable copies of what they say so the user can review the request before sending it.
///
/// JSON (UTF-8, one object; 64-bit numbers as decimal strings, bytes as lowercase hex):
///
///     {
///       "format": "omni-ic-signed-request", "version": 1,
///       "kind": "call" | "query" | "read_state",
///       "network": "ic" | "local" | "<url>",            optional hint; `send --network` overrides it
///       "canister_id": "<principal>",                     call and query
///       "method_name": "<name>",                          call and query
///       "arg_hex": "<Candid message>",                    call and query
///       "paths": [["<label hex>", …], …],                 read_state
///       "effective_canister_id": "<principal>",           where the request is routed
///       "sender": "<principal>",
///       "ingress_expiry": "<ns since the epoch>",
///       "expires_at": "<RFC 3339>",                       informational
///       "request_id": "<64 hex>",
///       "envelope_hex": "d9d9f7…",                        the signed CBOR envelope, posted as is
///       "request_status": {                               optional, calls only: a signed read_state of
///         "request_id": "<64 hex>",                       /request_status/<the call's id>, so that `send` can
///         "ingress_expiry": "<ns>",                       poll for the result without the signing key
///         "envelope_hex": "d9d9f7…"                       (request_id here is the read_state's own id)
///       }
///     }
///
/// Reading checks that every readable field agrees with the envelope (the request id is recomputed from the
/// envelope's content), so what the user reviews is what gets sent. Unknown keys are ignored.
public struct SignedRequestFile: Sendable, Equatable {
    public static let format = "omni-ic-signed-request"
    public static let version = 1
    /// Files larger than this are refused (an envelope is at most a few MiB: the IC's ingress limit).
    public static let maxFileBytes = 16 << 20

    /// The envelope exactly as signed and as it will be posted.
    public let envelopeBytes: [UInt8]
    public let envelope: ICEnvelope
    public let effectiveCanisterID: Principal
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
        try self.init(envelopeBytes: try envelope.encoded(), effectiveCanisterID: effectiveCanisterID, network: network,
                      requestStatusBytes: try requestStatus?.encoded())
    }

    /// Wraps envelope bytes (checked by decoding them).
    public init(envelopeBytes: [UInt8], effectiveCanisterID: Principal, network: String? = nil,
                requestStatusBytes: [UInt8]? = nil) throws(ICError) {
        let envelope = try ICEnvelope(decoding: envelopeBytes, maxBytes: SignedRequestFile.maxFileBytes)
        self.envelopeBytes = envelopeBytes
        self.envelope = envelope
        self.effectiveCanisterID = effectiveCanisterID
        self.network = network
        if let requestStatusBytes {
            let status = try ICEnvelope(decoding: requestStatusBytes, maxBytes: SignedRequestFile.maxFileBytes)
            try SignedRequestFile.checkStatusRequest(status, for: envelope)
            requestStatus = StatusRequest(envelopeBytes: requestStatusBytes, envelope: status)
        } else {
            requestStatus = nil
        }
        if case .call(let canister, _, _) = envelope.content.body, canister != .managementCanister, canister != effectiveCanisterID {
            throw ICError.malformed("the effective canister id \(effectiveCanisterID) is not the called canister \(canister)")
        }
        if case .query(let canister, _, _) = envelope.content.body, canister != .managementCanister, canister != effectiveCanisterID {
            throw ICError.malformed("the effective canister id \(effectiveCanisterID) is not the queried canister \(canister)")
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
        object["kind"] = .string(kind)
        if let network { object["network"] = .string(network) }
        switch content.body {
        case .call(let canister, let method, let arg), .query(let canister, let method, let arg):
            object["canister_id"] = .string(canister.text)
            object["method_name"] = .string(method)
            object["arg_hex"] = .string(Hex.encode(arg))
        case .readState(let paths):
            object["paths"] = .array(paths.map { .array($0.labels.map { .string(Hex.encode($0)) }) })
        }
        object["effective_canister_id"] = .string(effectiveCanisterID.text)
        object["sender"] = .string(content.sender.text)
        object["ingress_expiry"] = .string(String(content.ingressExpiry))
        object["expires_at"] = .string(ICTime.format(content.ingressExpiry))
        object["request_id"] = .string(requestID.hex)
        object["envelope_hex"] = .string(Hex.encode(envelopeBytes))
        if let requestStatus {
            object["request_status"] = .object([
                "request_id": .string(requestStatus.envelope.requestID.hex),
                "ingress_expiry": .string(String(requestStatus.envelope.content.ingressExpiry)),
                "envelope_hex": .string(Hex.encode(requestStatus.envelopeBytes)),
            ])
        }
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
        func string(_ key: String, in object: JSONValue = json) throws(ICError) -> String {
            guard let value = object[key]?.stringValue else {
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
        func hex(_ key: String, in object: JSONValue = json) throws(ICError) -> [UInt8] {
            do { return try Hex.decode(try string(key, in: object)) } catch let error as CodecError {
                throw ICError.malformed("signed request file: \"\(key)\": \(error.message)", location: key, offset: error.offset)
            } catch let error as ICError {
                throw error
            } catch {
                throw ICError.malformed("signed request file: \"\(key)\": \(error)", location: key)
            }
        }
        var statusBytes: [UInt8]?
        if let status = json["request_status"], !status.isNull {
            guard status.objectValue != nil else { throw ICError.malformed("signed request file: \"request_status\" is not an object") }
            statusBytes = try hex("envelope_hex", in: status)
        }
        try self.init(envelopeBytes: try hex("envelope_hex"), effectiveCanisterID: try Principal(icText: try string("effective_canister_id")),
                      network: try optionalString("network"), requestStatusBytes: statusBytes)
        try checkMirrors(json)
    }

    /// Every readable copy must say what the envelope says.
    private func checkMirrors(_ json: JSONValue) throws(ICError) {
        func mismatch(_ key: String, _ expected: String) -> ICError {
            ICError.malformed("signed request file: \"\(key)\" disagrees with the signed envelope (the envelope says \(expected))",
                              location: key)
        }
        func expect(_ key: String, _ expected: String, optional: Bool = false, in object: JSONValue? = nil) throws(ICError) {
            let value = (object ?? json)[key]
            if optional, value == nil || value == .null { return }
            guard value?.stringValue == expected else { throw mismatch(key, expected) }
        }
        let content = envelope.content
        try expect("kind", kind)
        try expect("sender", content.sender.text)
        try expect("ingress_expiry", String(content.ingressExpiry))
        let requestIDText = json["request_id"]?.stringValue.map { $0.hasPrefix("0x") ? String($0.dropFirst(2)) : $0 }?.lowercased()
        guard requestIDText == requestID.hex else { throw mismatch("request_id", requestID.hex) }
        switch content.body {
        case .call(let canister, let method, let arg), .query(let canister, let method, let arg):
            try expect("canister_id", canister.text)
            try expect("method_name", method)
            try expect("arg_hex", Hex.encode(arg), optional: true)
        case .readState(let paths):
            if let listed = json["paths"], listed != .null {
                let expected: JSONValue = .array(paths.map { .array($0.labels.map { .string(Hex.encode($0)) }) })
                guard listed == expected else { throw mismatch("paths", expected.serialized()) }
            }
        }
        if let requestStatus, let status = json["request_status"] {
            try expect("request_id", requestStatus.envelope.requestID.hex, in: status)
            try expect("ingress_expiry", String(requestStatus.envelope.content.ingressExpiry), optional: true, in: status)
        }
    }
}
