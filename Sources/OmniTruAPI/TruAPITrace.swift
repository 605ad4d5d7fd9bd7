import OmniCodec

/// `--trace-frames FILE.jsonl`: one JSON line per frame the bridge received or sent, in the order it handled them:
///
/// ```json
/// {"connection":1,"direction":"in","protocol":"0.9","request_id":"p:1","discriminant":0,"method":"system_handshake",
///  "kind":"request","payload":{"codec_version":1},"payload_hex":"0x0001"}
/// ```
/// The payload is decoded at the method's types in the JSON mapping of `omni help truapi-json`. Secrets and
/// signatures (secret keys, signatures and signed transactions, proofs, derived entropy, decryption keys) are replaced by `"<redacted>"`,
/// and then `payload_hex` is left out, so such a frame cannot be replayed. A frame whose envelope does not decode is
/// kept as `frame_hex` (the first 64 KiB) with the error. `omni truapi replay` reads this format.
public final class TruAPITrace: Sendable {
    public enum Direction: String, Sendable { case incoming = "in", outgoing = "out" }

    public static let redactedMarker = "<redacted>"
    /// Undecodable frames are kept up to this many bytes.
    public static let maximumRawBytes = 64 << 10

    private let file: TruAPILineFile

    public var path: String { file.path }

    public init(path: String) throws(TruAPIError) {
        file = try TruAPILineFile(path: path)
    }

    public func record(connection: Int, _ direction: Direction, _ bytes: [UInt8]) {
        file.append(Self.line(connection: connection, direction, bytes).serialized())
    }

    /// The trace line of one frame.
    public static func line(connection: Int, _ direction: Direction, _ bytes: [UInt8]) -> JSONValue {
        var object = JSONObject()
        object.append("connection", .int(connection))
        object.append("direction", .string(direction.rawValue))
        object.append("protocol", .string(TruAPITypes.protocolVersion))
        for (key, value) in frameFields(bytes) { object.append(key, value) }
        return .object(object)
    }

    /// The frame's part of a trace line: request id, discriminant, method, kind, payload (redacted) and payload_hex,
    /// or the error and the raw bytes.
    public static func frameFields(_ bytes: [UInt8]) -> JSONObject {
        var object = JSONObject()
        let frame: TruAPIFrame
        do {
            frame = try TruAPIFrame.decode(bytes)
        } catch {
            object.append("error", .string(error.description))
            object.append("frame_bytes", .int(bytes.count))
            object.append("frame_hex", .string("0x" + Hex.encode(bytes.prefix(maximumRawBytes))))
            if bytes.count > maximumRawBytes { object.append("frame_truncated", .bool(true)) }
            return object
        }
        object.append("request_id", .string(frame.requestID))
        object.append("discriminant", .int(frame.discriminant))
        guard let (method, kind) = frame.wireEntry else {
            object.append("error", .string("unused wire id \(frame.discriminant)"))
            object.append("payload_hex", .string("0x" + Hex.encode(frame.payload.prefix(maximumRawBytes))))
            return object
        }
        object.append("method", .string(method.name))
        object.append("kind", .string(kind.rawValue))
        do {
            let message = try TruAPIMessage.decode(frame, frameBytes: bytes)
            let (payload, redacted) = redact(try TruAPIJSON.payloadJSON(message))
            object.append("payload", payload)
            if redacted {
                object.append("redacted", .bool(true))
            } else {
                object.append("payload_hex", .string("0x" + Hex.encode(frame.payload)))
            }
            if message.trailingBytes > 0 { object.append("trailing_bytes", .int(message.trailingBytes)) }
        } catch {
            // An undecodable payload cannot be searched for secrets, but it is what a replay must send.
            object.append("error", .string(error.description))
            object.append("payload_hex", .string("0x" + Hex.encode(frame.payload.prefix(maximumRawBytes))))
        }
        return object
    }

    /// Fields whose values are secrets or signatures, by name.
    static func isSecretField(_ name: String, _ value: JSONValue) -> Bool {
        let lower = name.lowercased()
        if lower.contains("secret") || lower.contains("signature") { return true }
        // A signed transaction carries a signature (create_transaction's `transaction`, sign_payload's
        // `signed_transaction`); entropy is the product's derived secret.
        if ["decryption_key", "entropy", "pre_output", "signed_transaction", "transaction"].contains(lower) { return true }
        // A proof as bytes (ring-VRF, VRF); a StatementProof is an enum whose signature field is redacted itself.
        return lower == "proof" && value.stringValue != nil
    }

    /// `json` with secret fields replaced, and whether anything was.
    public static func redact(_ json: JSONValue) -> (JSONValue, Bool) {
        switch json {
        case .object(let object):
            var result = JSONObject()
            var any = false
            for (key, value) in object {
                if isSecretField(key, value), value != .null {
                    result.append(key, .string(redactedMarker))
                    any = true
                } else {
                    let (inner, redacted) = redact(value)
                    result.append(key, inner)
                    any = any || redacted
                }
            }
            return (.object(result), any)
        case .array(let items):
            var any = false
            let mapped = items.map { item in
                let (inner, redacted) = redact(item)
                any = any || redacted
                return inner
            }
            return (.array(mapped), any)
        default:
            return (json, false)
        }
    }
}
