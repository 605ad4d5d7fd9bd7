import OmniCodec

/// Frames as JSON for the CLI and traces: `{request_id, discriminant, method, kind, payload, payload_hex}`, the
/// payload in `SCALECodec`'s JSON mapping (`omni help truapi-json`).
public enum TruAPIJSON {
    /// A decoded frame. `payload` is null for an empty payload; `payload_hex` always has the raw bytes.
    public static func json(_ message: TruAPIMessage, payloadBytes: [UInt8]) throws(CodecError) -> JSONValue {
        var object = JSONObject()
        object.append("request_id", .string(message.requestID))
        object.append("discriminant", .int(message.discriminant))
        object.append("method", .string(message.method.name))
        object.append("kind", .string(message.kind.rawValue))
        object.append("payload", try payloadJSON(message))
        object.append("payload_hex", .string("0x" + Hex.encode(payloadBytes)))
        if message.trailingBytes > 0 { object.append("trailing_bytes", .int(message.trailingBytes)) }
        return .object(object)
    }

    public static func payloadJSON(_ message: TruAPIMessage) throws(CodecError) -> JSONValue {
        guard let payload = message.payload, let type = TruAPIMessage.payloadType(method: message.method, kind: message.kind) else {
            return .null
        }
        return try TruAPITypes.codec.json(payload, as: type)
    }

    /// Reads a frame description: `request_id`, then `method` and `kind` or `discriminant`, then `payload` (JSON
    /// in the mapping) and/or `payload_hex` (raw bytes; used as given when `payload` is absent or null, and
    /// checked against `payload` otherwise). Errors name the JSON path.
    public static func message(from json: JSONValue) throws(TruAPIError) -> (message: TruAPIMessage, rawPayload: [UInt8]?) {
        guard let object = json.objectValue else { throw TruAPIError(.malformed, "frame description: expected a JSON object") }
        let known: Set<String> = ["request_id", "method", "kind", "discriminant", "payload", "payload_hex", "trailing_bytes"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw TruAPIError(.malformed, "frame description: unknown key \(unknown) (expected request_id, method, kind, payload)")
        }
        guard let requestID = object["request_id"]?.stringValue else {
            throw TruAPIError(.malformed, "frame description: request_id must be a string")
        }
        let (method, kind) = try methodAndKind(object)
        var rawPayload: [UInt8]?
        if let hex = object["payload_hex"] {
            guard let text = hex.stringValue else { throw TruAPIError(.malformed, "frame description: payload_hex must be a string") }
            do { rawPayload = try Hex.decode(text, allowPrefix: true) } catch { throw TruAPIError.malformed(error, "payload_hex") }
        }
        // payload_hex alone (or beside a null payload) gives the bytes as they are: an empty start stays empty.
        if let rawPayload, object["payload"]?.isNull ?? true {
            return (TruAPIMessage(requestID: requestID, method: method, kind: kind, payload: nil), rawPayload)
        }
        let payloadJSON = object["payload"] ?? .null
        let payload: SCALEValue?
        if let type = TruAPIMessage.payloadType(method: method, kind: kind) {
            // null is the empty payload where one may be empty (an interrupt that ends a stream).
            if payloadJSON.isNull, kind == .interrupt {
                payload = nil
            } else {
                do {
                    payload = try TruAPITypes.codec.value(fromJSON: payloadJSON, as: type, root: "$.payload")
                } catch {
                    throw TruAPIError(.malformed, "frame description: \(error.description)")
                }
            }
        } else {
            guard payloadJSON.isNull else {
                throw TruAPIError(.malformed, "frame description: a \(kind.rawValue) of \(method.name) carries no payload")
            }
            payload = nil
        }
        let message = TruAPIMessage(requestID: requestID, method: method, kind: kind, payload: payload)
        if let rawPayload {
            // Both given (as 'frame decode' prints them): they must say the same, or an edit was half done.
            let encoded: [UInt8]
            do { encoded = try message.payloadBytes() } catch { throw TruAPIError(.malformed, "frame description: \(error.description)") }
            guard encoded == rawPayload else {
                throw TruAPIError(.malformed, "frame description: payload and payload_hex disagree (payload encodes to 0x"
                                  + Hex.encode(encoded) + "); drop one of them")
            }
        }
        return (message, nil)
    }

    /// The frame a description stands for.
    public static func frame(from json: JSONValue) throws(TruAPIError) -> TruAPIFrame {
        let (message, raw) = try message(from: json)
        if let raw { return TruAPIFrame(requestID: message.requestID, discriminant: message.discriminant, payload: raw) }
        do { return try message.frame() } catch { throw TruAPIError(.malformed, "frame description: \(error.description)") }
    }

    private static func methodAndKind(_ object: JSONObject) throws(TruAPIError) -> (TruAPIMethod, TruAPIFrameKind) {
        if let discriminant = object["discriminant"] {
            guard let number = discriminant.int64Value, (0...255).contains(number) else {
                throw TruAPIError(.malformed, "frame description: discriminant must be 0…255")
            }
            guard let (method, kind) = TruAPIWireTable.lookup(UInt8(number)) else {
                throw TruAPIError(.malformed, "frame description: discriminant \(number) names no method (see 'omni truapi methods')")
            }
            if let name = object["method"]?.stringValue, name != method.name {
                throw TruAPIError(.malformed, "frame description: discriminant \(number) is \(method.name), not \(name)")
            }
            if let kindName = object["kind"]?.stringValue, kindName != kind.rawValue {
                throw TruAPIError(.malformed, "frame description: discriminant \(number) is a \(kind.rawValue), not a \(kindName)")
            }
            return (method, kind)
        }
        guard let name = object["method"]?.stringValue else {
            throw TruAPIError(.malformed, "frame description: give method (and kind) or discriminant")
        }
        guard let method = TruAPIWireTable.method(named: name) else {
            let close = TruAPIWireTable.methods.map(\.name).filter { $0.contains(name) || name.contains($0) }.prefix(3)
            throw TruAPIError(.malformed, "frame description: unknown method \(name)"
                              + (close.isEmpty ? " (see 'omni truapi methods')" : "; did you mean \(close.joined(separator: ", "))?"))
        }
        let kindName = object["kind"]?.stringValue ?? (method.kind == .request ? "request" : "start")
        guard let kind = TruAPIFrameKind(rawValue: kindName), method.discriminant(of: kind) != nil else {
            let kinds = method.discriminants.map(\.0.rawValue).joined(separator: ", ")
            throw TruAPIError(.malformed, "frame description: \(name) has no \(kindName) frame (its kinds: \(kinds))")
        }
        return (method, kind)
    }

    /// One wire-table row as JSON (`omni truapi methods`).
    public static func json(_ method: TruAPIMethod) -> JSONValue {
        var object = JSONObject()
        object.append("method", .string(method.name))
        object.append("kind", .string(method.kind.rawValue))
        object.append("direction", .string(method.direction.rawValue))
        var ids = JSONObject()
        for (kind, id) in method.discriminants { ids.append(kind.rawValue + "_id", .int(id)) }
        object.append("ids", .object(ids))
        object.append("request_type", method.requestType.map(JSONValue.string) ?? .null)
        switch method.kind {
        case .request:
            object.append("ok_type", method.okType.map(JSONValue.string) ?? .null)
            object.append("error_type", method.errorType.map(JSONValue.string) ?? .null)
        case .subscription:
            object.append("item_type", method.itemType.map(JSONValue.string) ?? .null)
            object.append("interrupt_error_type", method.errorType.map(JSONValue.string) ?? .null)
        }
        if let execution = method.requiredExecution { object.append("required_execution", .string(execution)) }
        return .object(object)
    }
}
