import OmniCodec
import OmniCrypto

/// WebAuthn authenticator data as App Attest lays it out, parsed without trusting flags: Apple sets AT (0x40) on
/// assertions that carry no credential and appends an extension map on iOS 27 without setting ED (0x80), so the
/// layout is decided by the kind of evidence, not by the flag bits.
public struct AuthenticatorData: Sendable {
    /// The 16-byte aaguid of a production key: "appattest" followed by seven zero bytes.
    public static let productionAAGUID: [UInt8] = Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
    /// The 16-byte aaguid of a development (sandbox) key.
    public static let developmentAAGUID: [UInt8] = Array("appattestdevelop".utf8)

    /// Limits for the CBOR inside authenticator data (the COSE key and the extension map): small on purpose.
    static let cborOptions = CBORDecodingOptions(maxDepth: 8, maxItems: 256, maxStringBytes: 4096, maxInputBytes: 1 << 16)

    /// The attested credential of an attestation.
    public struct AttestedCredential: Sendable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        /// The COSE_Key exactly as encoded.
        public let coseKeyBytes: [UInt8]
        /// The key the COSE_Key describes (EC2, P-256).
        public let publicKey: ECDSA.PublicKey
    }

    /// Every byte, as signed/hashed.
    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: UInt8
    /// Big-endian unsigned 32-bit (not signed: Apple's counters may pass 2^31).
    public let signCount: UInt32
    /// Present for attestations, absent for assertions.
    public let attestedCredential: AttestedCredential?
    /// The trailing CBOR extension map (iOS 27 and later), as decoded.
    public let extensions: CBOR?

    /// Parses an attestation's authData: header, aaguid, credential id, COSE key, optional extension map.
    static func attestation(_ bytes: [UInt8]) throws(Refusal) -> AuthenticatorData {
        guard bytes.count >= 55 else {
            throw Refusal(.malformedAuthData, "authData is \(bytes.count) bytes; an attestation needs at least 55 (37-byte header, 16-byte aaguid, 2-byte credential id length) before the credential")
        }
        let aaguid = Array(bytes[37..<53])
        let idLength = Int(bytes[53]) << 8 | Int(bytes[54])
        guard idLength <= bytes.count - 55 else {
            throw Refusal(.malformedAuthData, "authData credential id length \(idLength) runs past the end (\(bytes.count - 55) bytes left at offset 55)")
        }
        let credentialID = Array(bytes[55..<(55 + idLength)])
        let keyStart = 55 + idLength
        guard keyStart < bytes.count else {
            throw Refusal(.malformedAuthData, "authData ends at offset \(keyStart) where the COSE public key should start")
        }
        let items: [CBOR]
        do {
            items = try CBOR.decodeSequence(bytes[keyStart...], options: cborOptions)
        } catch {
            throw Refusal(.malformedAuthData, "authData after offset \(keyStart) is not a COSE key optionally followed by one CBOR extension map: \(error)")
        }
        guard let coseKey = items.first else {
            throw Refusal(.malformedAuthData, "authData has no COSE public key at offset \(keyStart)")
        }
        let keyLength: Int
        do {
            keyLength = try CBOR.decodePrefix(bytes[keyStart...], options: .lenient).byteCount
        } catch {
            throw Refusal(.malformedAuthData, "authData COSE key at offset \(keyStart) does not decode: \(error)")
        }
        let extensions = try trailingExtensions(Array(items.dropFirst()), at: keyStart + keyLength)
        let publicKey = try coseP256Key(coseKey)
        return AuthenticatorData(
            bytes: bytes, rpIDHash: Array(bytes[0..<32]), flags: bytes[32], signCount: counter(bytes),
            attestedCredential: AttestedCredential(aaguid: aaguid, credentialID: credentialID,
                                                   coseKeyBytes: Array(bytes[keyStart..<(keyStart + keyLength)]),
                                                   publicKey: publicKey),
            extensions: extensions)
    }

    /// Parses an assertion's authenticatorData: the 37-byte header and an optional extension map.
    static func assertion(_ bytes: [UInt8]) throws(Refusal) -> AuthenticatorData {
        guard bytes.count >= 37 else {
            throw Refusal(.malformedAuthData, "authenticatorData is \(bytes.count) bytes; at least 37 (rpIdHash, flags, counter) are needed")
        }
        var extensions: CBOR?
        if bytes.count > 37 {
            let items: [CBOR]
            do {
                items = try CBOR.decodeSequence(bytes[37...], options: cborOptions)
            } catch {
                throw Refusal(.malformedAuthData, "authenticatorData bytes after offset 37 are not one CBOR extension map: \(error)")
            }
            extensions = try trailingExtensions(items, at: 37)
        }
        return AuthenticatorData(bytes: bytes, rpIDHash: Array(bytes[0..<32]), flags: bytes[32], signCount: counter(bytes),
                                 attestedCredential: nil, extensions: extensions)
    }

    /// The environment an aaguid names; nil for any other value.
    public static func environment(ofAAGUID aaguid: [UInt8]) -> AttestEnvironment? {
        if aaguid == productionAAGUID { return .production }
        if aaguid == developmentAAGUID { return .development }
        return nil
    }

    private static func counter(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
    }

    /// Exactly zero or one item may follow, and it must be a map: the iOS 27 extensions, honoured whatever ED says.
    private static func trailingExtensions(_ items: [CBOR], at offset: Int) throws(Refusal) -> CBOR? {
        guard let first = items.first else { return nil }
        guard items.count == 1 else {
            throw Refusal(.malformedAuthData, "authData has \(items.count) CBOR items after offset \(offset); at most one extension map may follow")
        }
        guard first.map != nil else {
            throw Refusal(.malformedAuthData, "authData bytes at offset \(offset) are a CBOR item that is not a map; only an extension map may follow")
        }
        return first
    }

    /// `{1: 2, 3: -7, -1: 1, -2: x, -3: y}` (EC2, ES256, P-256) → the key. Anything else is malformed authData.
    private static func coseP256Key(_ key: CBOR) throws(Refusal) -> ECDSA.PublicKey {
        guard key.map != nil else { throw Refusal(.malformedAuthData, "authData credential public key is not a COSE_Key map") }
        guard key[.integer(1)]?.int == 2, key[.integer(3)]?.int == -7, key[.integer(-1)]?.int == 1 else {
            throw Refusal(.malformedAuthData, "authData COSE_Key is not EC2/ES256/P-256 (kty 2, alg -7, crv 1)")
        }
        guard let x = key[.integer(-2)]?.bytes, let y = key[.integer(-3)]?.bytes, x.count == 32, y.count == 32 else {
            throw Refusal(.malformedAuthData, "authData COSE_Key x and y must be 32-byte strings")
        }
        do {
            return try ECDSA.PublicKey(pointRepresentation: [0x04] + x + y, curve: .p256)
        } catch {
            throw Refusal(.malformedAuthData, "authData COSE_Key point is not on P-256")
        }
    }
}

/// The App Attest environment a key lives in (its aaguid).
public enum AttestEnvironment: String, Sendable, CaseIterable {
    case production
    case development
}

/// Which aaguids an appraisal accepts: Apple's step 8 ties the aaguid to the server's environment; `any` accepts
/// both (macOS and TestFlight builds have produced production evidence while developers expected development).
public enum EnvironmentPolicy: String, Sendable, CaseIterable {
    case production
    case development
    case any

    func accepts(_ environment: AttestEnvironment?) -> Bool {
        switch (self, environment) {
        case (_, nil): false
        case (.any, _): true
        case (.production, .production?), (.development, .development?): true
        default: false
        }
    }
}
