import OmniCodec
import OmniCrypto

/// The forms an App Attest public key travels in: X9.62 point (what key ids hash), SPKI PEM, and JWK (RFC 7518).
public enum AttestPublicKey {
    /// `{"kty":"EC","crv":"P-256","x":…,"y":…}` with unpadded base64url coordinates.
    public static func jwk(_ key: ECDSA.PublicKey) -> JSONValue {
        let point = key.uncompressedRepresentation
        return .object(["kty": "EC", "crv": "P-256",
                        "x": .string(AttestBase64.encodeURL(point[1...32])),
                        "y": .string(AttestBase64.encodeURL(point[33...64]))])
    }

    /// The key id Apple uses: SHA256 of the X9.62 uncompressed point.
    public static func keyID(_ key: ECDSA.PublicKey) -> [UInt8] { SHA256.hash(key.uncompressedRepresentation) }

    /// The JSON block verdicts carry: X9.62 hex, PEM and JWK.
    public static func json(_ key: ECDSA.PublicKey) -> JSONValue {
        .object(["x962": .string(Hex.encode(key.uncompressedRepresentation)), "pem": .string(key.pemRepresentation),
                 "jwk": jwk(key)])
    }

    /// Reads a P-256 key given as SPKI PEM, a JWK object, or base64/hex of an X9.62 point (65 or 33 bytes) or of SPKI
    /// DER. Anything else is an unusable argument.
    public static func parse(_ text: String) throws(AttestError) -> ECDSA.PublicKey {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        let key: ECDSA.PublicKey
        do {
            if PEM.containsBlock(trimmed) {
                key = try ECDSA.PublicKey(pemRepresentation: trimmed)
            } else if trimmed.hasPrefix("{") {
                key = try parseJWK(trimmed)
            } else if let bytes = keyBytes(trimmed) {
                key = bytes.first == 0x30 ? try ECDSA.PublicKey(derRepresentation: bytes)
                                          : try ECDSA.PublicKey(pointRepresentation: bytes, curve: .p256)
            } else {
                throw AttestError.invalidArgument("public key is not PEM, JWK, or base64/hex of an X9.62 point or SPKI DER")
            }
        } catch let error as AttestError {
            throw error
        } catch {
            throw AttestError.invalidArgument("public key: \(error)")
        }
        guard key.curve == .p256 else { throw AttestError.invalidArgument("public key is \(key.curve.rawValue); App Attest keys are P-256") }
        return key
    }

    /// Base64 when it yields a plausible key encoding (65/33-byte point or DER), otherwise hex.
    private static func keyBytes(_ text: String) -> [UInt8]? {
        if let bytes = AttestBase64.decode(text), bytes.count == 65 || bytes.count == 33 || bytes.first == 0x30 { return bytes }
        return try? Hex.decode(text)
    }

    private static func parseJWK(_ text: String) throws -> ECDSA.PublicKey {
        let json = try JSONValue.parse(text)
        guard json["kty"]?.stringValue == "EC", json["crv"]?.stringValue == "P-256",
              let x = json["x"]?.stringValue.flatMap(AttestBase64.decode), let y = json["y"]?.stringValue.flatMap(AttestBase64.decode),
              x.count == 32, y.count == 32
        else { throw AttestError.invalidArgument("JWK must be {\"kty\":\"EC\",\"crv\":\"P-256\",\"x\",\"y\"} with 32-byte coordinates") }
        return try ECDSA.PublicKey(pointRepresentation: [0x04] + x + y, curve: .p256)
    }
}

/// JSON for CBOR extension values: text stays text, byte strings become lowercase hex, integers numbers; anything
/// else its diagnostic notation. Keys that are not text are written in diagnostic notation.
enum ExtensionJSON {
    static func value(_ item: CBOR?) -> JSONValue {
        guard let item else { return .null }
        guard let pairs = item.map else { return scalar(item) }
        return .object(JSONObject(pairs.map { pair in (pair.key.text ?? pair.key.diagnostic(), scalar(pair.value)) }))
    }

    private static func scalar(_ item: CBOR) -> JSONValue {
        if let text = item.text { return .string(text) }
        if let bytes = item.bytes { return .string(Hex.encode(bytes)) }
        if let number = item.uint { return .number(String(number)) }
        if let number = item.int { return .number(String(number)) }
        if let pairs = item.map { return .object(JSONObject(pairs.map { ($0.key.text ?? $0.key.diagnostic(), scalar($0.value)) })) }
        if let items = item.array { return .array(items.map(scalar)) }
        return .string(item.diagnostic())
    }
}
