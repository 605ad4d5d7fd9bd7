/// Why a verdict came out as it did. The first failing check decides, in Apple's order (see `AttestationAppraiser`
/// and `AssertionAppraiser`); the raw values are the stable codes scripts see.
public enum AttestReason: String, Sendable, CaseIterable, Hashable {
    case ok
    /// The evidence parsed as CBOR but is not an App Attest object (wrong `fmt`, missing or mistyped fields,
    /// certificates that are not DER, a key that is not P-256).
    case badFormat = "bad_format"
    /// The evidence is not one well-formed CBOR data item (truncated, trailing bytes, over the limits).
    case malformedCBOR = "malformed_cbor"
    /// The authenticator data is too short, its credential length runs past the end, its COSE key is not an EC2
    /// P-256 key, or bytes after it are not exactly one CBOR extension map.
    case malformedAuthData = "malformed_auth_data"
    /// x5c does not chain, leaf first, to the trusted root (unknown issuer, bad signature, wrong order).
    case badChain = "bad_chain"
    case certExpired = "cert_expired"
    case certNotYetValid = "cert_not_yet_valid"
    /// The credential certificate's 1.2.840.113635.100.8.2 extension is missing, not `30 24 A1 22 04 20 ‖ 32
    /// bytes`, or holds a nonce other than SHA256(authData ‖ clientDataHash).
    case nonceMismatch = "nonce_mismatch"
    /// SHA256 of the credential certificate's public key point is not the key id the app sent.
    case keyIDMismatch = "key_id_mismatch"
    /// The authenticator data's credential id, or its COSE key, is not the attested key.
    case credentialIDMismatch = "credential_id_mismatch"
    /// The authenticator data's rpIdHash is not SHA256(app id).
    case rpIDMismatch = "rp_id_mismatch"
    /// The aaguid is not the one the environment policy allows.
    case aaguidMismatch = "aaguid_mismatch"
    /// An attestation's sign counter is not 0.
    case counterNotZero = "counter_not_zero"
    /// An assertion's signature does not verify (or is not a DER ECDSA signature) for SHA256(nonce).
    case badSignature = "bad_signature"
    /// An assertion's counter is not greater than the stored one (replay, or a concurrent use won).
    case counterNotIncreasing = "counter_not_increasing"

    // Beyond the appraisal of one piece of evidence: receipts and the store-backed server flow.

    /// `--require-receipt` was given and the receipt is missing or does not verify.
    case badReceipt = "bad_receipt"
    /// The challenge is not in the store: never issued, already used, or expired.
    case unknownChallenge = "unknown_challenge"
    /// The client data does not carry the challenge it is verified against.
    case challengeMismatch = "challenge_mismatch"
    /// No key with this id is enrolled in the store.
    case unknownKey = "unknown_key"
    /// The key was revoked by an operator.
    case keyRevoked = "key_revoked"
    /// A key with this id is already enrolled (an attestation can enroll a key once).
    case keyAlreadyEnrolled = "key_already_enrolled"

    /// The codes one attestation or assertion appraisal can produce (the rest belong to receipts and the store).
    public static let appraisalCodes: [AttestReason] = [
        .ok, .badFormat, .malformedCBOR, .malformedAuthData, .badChain, .certExpired, .certNotYetValid, .nonceMismatch,
        .keyIDMismatch, .credentialIDMismatch, .rpIDMismatch, .aaguidMismatch, .counterNotZero, .badSignature,
        .counterNotIncreasing,
    ]
}

/// A failed check: the reason code and a sentence saying what exactly was wrong. Thrown inside the appraisers and
/// turned into a verdict at their boundary; never leaves the library as an error.
struct Refusal: Error {
    let reason: AttestReason
    let message: String

    init(_ reason: AttestReason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
