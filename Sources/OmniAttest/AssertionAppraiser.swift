import OmniCodec
import OmniCrypto

/// Appraises App Attest assertions in Apple's order: the signature, the rpIdHash, the counter.
///
/// The signature is an ordinary ES256 signature whose *message* is nonce = SHA256(authenticatorData ‖
/// clientDataHash); the digest actually signed is therefore SHA256(nonce). Verifying nonce as if it were the digest
/// (the usual mistake) rejects every real assertion and accepts forgeries made that way.
public enum AssertionAppraiser {
    static let cborOptions = CBORDecodingOptions(maxDepth: 4, maxItems: 64, maxStringBytes: 16 << 10, maxInputBytes: 64 << 10)

    /// Appraises `assertion` (the CBOR `{signature, authenticatorData}`) made by `publicKey` over `clientDataHash`,
    /// against the counter stored from the previous assertion (0 before the first).
    public static func appraise(assertion: [UInt8], clientDataHash: [UInt8], appID: String, publicKey: ECDSA.PublicKey,
                                previousCounter: UInt32) -> AssertionVerdict {
        var verdict = AssertionVerdict(reason: .ok, message: "", appID: appID, publicKey: publicKey,
                                       previousCounter: previousCounter)
        do {
            try run(assertion, clientDataHash: clientDataHash, into: &verdict)
        } catch {
            verdict.reason = error.reason
            verdict.message = error.message
        }
        return verdict
    }

    private static func run(_ assertion: [UInt8], clientDataHash: [UInt8], into verdict: inout AssertionVerdict) throws(Refusal) {
        let root: CBOR
        do {
            root = try CBOR.decode(assertion, options: cborOptions)
        } catch {
            throw Refusal(.malformedCBOR, "assertion is not one well-formed CBOR item: \(error)")
        }
        guard root.map != nil else { throw Refusal(.badFormat, "assertion is not a CBOR map") }
        guard let signature = root["signature"]?.bytes else {
            throw Refusal(.badFormat, "assertion has no 'signature' byte string")
        }
        guard let authDataBytes = root["authenticatorData"]?.bytes else {
            throw Refusal(.badFormat, "assertion has no 'authenticatorData' byte string")
        }
        let authData = try AuthenticatorData.assertion(authDataBytes)
        verdict.authenticatorData = authData

        // 1–3. ES256 over message nonce (so the signed digest is SHA256(nonce)).
        let nonce = SHA256.hash(authDataBytes + clientDataHash)
        let signatureValid: Bool
        do {
            signatureValid = try verdict.publicKey.isValidSignature(signature, for: nonce, hashedWith: .sha256, format: .der)
        } catch {
            throw Refusal(.badSignature, "assertion signature is not a DER P-256 ECDSA signature: \(error.message)")
        }
        guard signatureValid else {
            throw Refusal(.badSignature, "assertion signature does not verify under the key for SHA256(nonce), nonce = SHA256(authenticatorData ‖ clientDataHash) = \(Hex.encode(nonce))")
        }

        // 4. rpIdHash = SHA256(app id).
        guard ConstantTime.equals(authData.rpIDHash, SHA256.hash(Array(verdict.appID.utf8))) else {
            throw Refusal(.rpIDMismatch, "authenticatorData rpIdHash \(Hex.encode(authData.rpIDHash)) is not SHA256('\(verdict.appID)')")
        }

        // 5. The counter only moves forward (greater than 0 on the first assertion).
        guard authData.signCount > verdict.previousCounter else {
            throw Refusal(.counterNotIncreasing, "assertion counter \(authData.signCount) is not greater than the stored counter \(verdict.previousCounter)")
        }
        verdict.message = "assertion verified: counter \(verdict.previousCounter) → \(authData.signCount) for \(verdict.appID)"
    }
}

/// The outcome of one assertion appraisal.
public struct AssertionVerdict: Sendable {
    public internal(set) var reason: AttestReason
    public internal(set) var message: String
    public let appID: String
    public let publicKey: ECDSA.PublicKey
    /// The counter the assertion was compared with.
    public let previousCounter: UInt32
    public internal(set) var authenticatorData: AuthenticatorData?

    init(reason: AttestReason, message: String, appID: String, publicKey: ECDSA.PublicKey, previousCounter: UInt32) {
        self.reason = reason
        self.message = message
        self.appID = appID
        self.publicKey = publicKey
        self.previousCounter = previousCounter
    }

    public var isValid: Bool { reason == .ok }
    /// The key id of the key the assertion was checked against.
    public var keyID: [UInt8] { AttestPublicKey.keyID(publicKey) }
    /// The assertion's counter, once parsed.
    public var counter: UInt32? { authenticatorData?.signCount }

    /// A copy refused for a reason found after the appraisal (a store race, a revoked key, a missing challenge).
    public func refused(_ reason: AttestReason, _ message: String) -> AssertionVerdict {
        var copy = self
        copy.reason = reason
        copy.message = message
        return copy
    }
}
