import OmniCodec
import OmniCrypto

/// Appraises App Attest attestation objects the way Apple's "Verify the attestation" steps describe, in their order:
/// the x5c chain (leaf first) to the trusted root at the verification time, the nonce in the credential certificate,
/// the key id, the rpIdHash, the counter, the aaguid, the credential id. Parsing comes first and has its own codes.
/// The first failing check decides the verdict.
public struct AttestationAppraiser: Sendable {
    /// The OID of the credential certificate extension that carries the nonce.
    public static let nonceExtensionOID = "1.2.840.113635.100.8.2"
    /// The nonce extension's exact DER: SEQUENCE { [1] EXPLICIT OCTET STRING (32 bytes) }, before the nonce.
    static let nonceExtensionPrefix: [UInt8] = [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20]
    /// Limits for the attestation object (a real one is about 5.5 KB with its receipt).
    static let cborOptions = CBORDecodingOptions(maxDepth: 8, maxItems: 1024, maxStringBytes: 64 << 10, maxInputBytes: 256 << 10)

    public var roots: [Certificate]
    public var environment: EnvironmentPolicy
    /// Whom the receipt's signer must chain to (Apple's pinned receipt PKI unless a test says otherwise).
    public var receiptTrust: ReceiptTrust
    /// When set, a missing or failing receipt refuses the attestation (`bad_receipt`); otherwise it only warns.
    public var requireReceipt: Bool
    /// Shared by the appraisals of a batch: the intermediate is parsed and its chain to the root verified once
    /// (every leaf is still verified against it at its own time; verdicts are the same as without it).
    public var chainCache: CertificateChainCache?

    public init(roots: [Certificate] = [AppleRoots.appAttestationRoot], environment: EnvironmentPolicy = .production,
                receiptTrust: ReceiptTrust = .apple, requireReceipt: Bool = false, chainCache: CertificateChainCache? = nil) {
        self.roots = roots
        self.environment = environment
        self.receiptTrust = receiptTrust
        self.requireReceipt = requireReceipt
        self.chainCache = chainCache
    }

    /// The clientDataHash for a challenge: Apple's guide hashes it (`sha256`); Apple's own published samples passed
    /// the raw challenge bytes (`raw`).
    public enum ChallengeHash: String, Sendable, CaseIterable {
        case sha256
        case raw

        public func clientDataHash(challenge: [UInt8]) -> [UInt8] {
            self == .sha256 ? SHA256.hash(challenge) : challenge
        }
    }

    public func appraise(attestation: [UInt8], keyID: [UInt8], appID: String, clientDataHash: [UInt8],
                         at time: Int64) -> AttestationVerdict {
        var state = AttestationVerdict(reason: .ok, message: "", keyID: keyID, appID: appID, time: time)
        do {
            try run(attestation, clientDataHash: clientDataHash, into: &state)
        } catch {
            state.reason = error.reason
            state.message = error.message
        }
        return state
    }

    private func run(_ object: [UInt8], clientDataHash: [UInt8], into verdict: inout AttestationVerdict) throws(Refusal) {
        // Parsing: CBOR, then the object's shape, then authData.
        let root: CBOR
        do {
            root = try CBOR.decode(object, options: Self.cborOptions)
        } catch {
            throw Refusal(.malformedCBOR, "attestation object is not one well-formed CBOR item: \(error)")
        }
        guard root.map != nil else { throw Refusal(.badFormat, "attestation object is not a CBOR map") }
        guard let format = root["fmt"]?.text else { throw Refusal(.badFormat, "attestation object has no text 'fmt'") }
        guard format == "apple-appattest" else {
            throw Refusal(.badFormat, "attestation format is '\(format)', expected 'apple-appattest'")
        }
        guard let statement = root["attStmt"], statement.map != nil else {
            throw Refusal(.badFormat, "attestation object has no 'attStmt' map")
        }
        guard let authDataBytes = root["authData"]?.bytes else {
            throw Refusal(.badFormat, "attestation object has no 'authData' byte string")
        }
        guard let x5c = statement["x5c"]?.array, !x5c.isEmpty else {
            throw Refusal(.badFormat, "attStmt has no non-empty 'x5c' array")
        }
        var certificates: [Certificate] = []
        for (index, item) in x5c.enumerated() {
            guard let der = item.bytes else { throw Refusal(.badFormat, "attStmt.x5c[\(index)] is not a byte string") }
            do {
                // Only x5c[1…] repeat across attestations; the credential certificate is new every time.
                if index > 0, let chainCache {
                    certificates.append(try chainCache.certificate(der: der))
                } else {
                    certificates.append(try Certificate(derRepresentation: der))
                }
            } catch {
                throw Refusal(.badFormat, "attStmt.x5c[\(index)] is not a DER certificate: \(error.message)")
            }
        }
        let receiptBytes: [UInt8]?
        if let receipt = statement["receipt"] {
            guard let bytes = receipt.bytes else { throw Refusal(.badFormat, "attStmt.receipt is not a byte string") }
            receiptBytes = bytes
        } else {
            receiptBytes = nil
        }
        let authData = try AuthenticatorData.attestation(authDataBytes)
        verdict.authenticatorData = authData
        let leaf = certificates[0]
        verdict.credentialCertificate = leaf

        // 1. The chain, credential certificate first, to the trusted root at the verification time.
        let chain: [Certificate]
        do {
            let intermediates = Array(certificates.dropFirst())
            if let chainCache {
                chain = try chainCache.verifyChain(leaf: leaf, intermediates: intermediates, roots: roots, at: verdict.time)
            } else {
                chain = try Certificate.verifyChain(leaf: leaf, intermediates: intermediates, roots: roots, at: verdict.time)
            }
        } catch {
            switch error.certificateFailure {
            case .expired?: throw Refusal(.certExpired, error.message)
            case .notYetValid?: throw Refusal(.certNotYetValid, error.message)
            default: throw Refusal(.badChain, error.message)
            }
        }
        // Every x5c certificate must be in the verified path, in order: x5c[0] the leaf, x5c[1] its issuer, …
        guard chain.count >= certificates.count, Array(chain.prefix(certificates.count)) == certificates else {
            throw Refusal(.badChain, "x5c is not the path leaf → intermediate: the verified chain is \(chain.map { $0.subjectCommonName ?? $0.subject }.joined(separator: " → "))")
        }

        let leafKey: ECDSA.PublicKey
        do {
            leafKey = try leaf.ecdsaPublicKey()
        } catch {
            throw Refusal(.badFormat, "credential certificate key is not an EC key: \(error.message)")
        }
        guard leafKey.curve == .p256 else {
            throw Refusal(.badFormat, "credential certificate key is \(leafKey.curve.rawValue); App Attest keys are P-256")
        }
        verdict.publicKey = leafKey

        // 2–4. nonce = SHA256(authData ‖ clientDataHash) must be the credential certificate's nonce extension.
        let nonce = SHA256.hash(authDataBytes + clientDataHash)
        guard let extensionValue = leaf.extensionValue(oid: Self.nonceExtensionOID) else {
            throw Refusal(.nonceMismatch, "credential certificate has no nonce extension \(Self.nonceExtensionOID)")
        }
        guard extensionValue.count == Self.nonceExtensionPrefix.count + 32,
              extensionValue.starts(with: Self.nonceExtensionPrefix) else {
            throw Refusal(.nonceMismatch, "nonce extension is not SEQUENCE { [1] OCTET STRING (32 bytes) }: \(Hex.encode(extensionValue.prefix(48)))")
        }
        let certifiedNonce = extensionValue.suffix(32)
        guard ConstantTime.equals(certifiedNonce, nonce) else {
            throw Refusal(.nonceMismatch, "certificate nonce \(Hex.encode(certifiedNonce)) is not SHA256(authData ‖ clientDataHash) = \(Hex.encode(nonce)); check how clientDataHash was derived (--challenge-hash sha256|raw)")
        }

        // 5. The key id is SHA256 of the credential certificate's public key point.
        let certifiedKeyID = AttestPublicKey.keyID(leafKey)
        guard ConstantTime.equals(certifiedKeyID, verdict.keyID) else {
            throw Refusal(.keyIDMismatch, "key id \(AttestBase64.encode(verdict.keyID)) is not SHA256 of the certified key (\(AttestBase64.encode(certifiedKeyID)))")
        }

        // 6. rpIdHash = SHA256(app id).
        let expectedRPID = SHA256.hash(Array(verdict.appID.utf8))
        guard ConstantTime.equals(authData.rpIDHash, expectedRPID) else {
            throw Refusal(.rpIDMismatch, "authData rpIdHash \(Hex.encode(authData.rpIDHash)) is not SHA256('\(verdict.appID)')")
        }

        // 7. A fresh key has counted nothing.
        guard authData.signCount == 0 else {
            throw Refusal(.counterNotZero, "attestation counter is \(authData.signCount), expected 0")
        }

        // 8. The aaguid names the environment the policy accepts.
        let aaguid = authData.attestedCredential?.aaguid ?? []
        let keyEnvironment = AuthenticatorData.environment(ofAAGUID: aaguid)
        guard environment.accepts(keyEnvironment) else {
            let found = keyEnvironment.map { "a \($0.rawValue) key" } ?? "aaguid \(Hex.encode(aaguid)) (neither environment)"
            throw Refusal(.aaguidMismatch, "evidence is \(found); the environment policy is \(environment.rawValue)")
        }

        // 9. The credential in authData is the attested key: its id is the key id and its COSE key is the certified key.
        guard let credential = authData.attestedCredential else {
            throw Refusal(.malformedAuthData, "authData has no attested credential")
        }
        guard ConstantTime.equals(credential.credentialID, verdict.keyID) else {
            throw Refusal(.credentialIDMismatch, "authData credential id \(AttestBase64.encode(credential.credentialID)) is not the key id \(AttestBase64.encode(verdict.keyID))")
        }
        guard credential.publicKey == leafKey else {
            throw Refusal(.credentialIDMismatch, "authData COSE public key is not the credential certificate's key")
        }

        // The receipt: reported always, decisive only when required.
        if let receiptBytes {
            let receipt = ReceiptAppraiser.appraise(receiptBytes, trust: receiptTrust, at: verdict.time, appID: verdict.appID,
                                                    expectedKeyID: verdict.keyID)
            verdict.receipt = receipt
            if requireReceipt, !receipt.isValid {
                throw Refusal(.badReceipt, "receipt does not verify: " + receipt.problems.joined(separator: "; "))
            }
        } else if requireReceipt {
            throw Refusal(.badReceipt, "attStmt has no receipt")
        }
        verdict.message = "attestation verified: \(keyEnvironment?.rawValue ?? "") key \(AttestBase64.encode(verdict.keyID)) for \(verdict.appID)"
    }
}

/// The outcome of one attestation appraisal, with everything learned up to the deciding check.
public struct AttestationVerdict: Sendable {
    public internal(set) var reason: AttestReason
    /// One sentence: what was verified, or what exactly failed.
    public internal(set) var message: String
    /// The key id the app sent.
    public let keyID: [UInt8]
    public let appID: String
    /// The verification time (Unix seconds).
    public let time: Int64
    public internal(set) var authenticatorData: AuthenticatorData?
    public internal(set) var credentialCertificate: Certificate?
    /// The credential certificate's public key (the key later assertions are verified with).
    public internal(set) var publicKey: ECDSA.PublicKey?
    public internal(set) var receipt: ReceiptAppraisal?

    init(reason: AttestReason, message: String, keyID: [UInt8], appID: String, time: Int64) {
        self.reason = reason
        self.message = message
        self.keyID = keyID
        self.appID = appID
        self.time = time
    }

    public var isValid: Bool { reason == .ok }

    /// The key's environment according to its aaguid (nil when the aaguid is neither or unknown).
    public var environment: AttestEnvironment? {
        authenticatorData?.attestedCredential.flatMap { AuthenticatorData.environment(ofAAGUID: $0.aaguid) }
    }
}
