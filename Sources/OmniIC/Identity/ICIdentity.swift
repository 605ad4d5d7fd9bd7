import OmniCandid
import OmniCodec
import OmniCrypto

/// Who signs requests: the anonymous principal, a key (Ed25519, secp256k1, P-256) as dfx stores them, or a
/// delegated session.
///
/// Private keys never appear in `description`, `debugDescription` or mirrors; the only ways out are the
/// explicitly named `exportPrivateKeyPEM()` and `DelegatedSession.sessionFileJSON()`.
public struct ICIdentity: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public enum KeyType: String, Sendable, CaseIterable, CustomStringConvertible {
        case anonymous
        case ed25519
        case secp256k1
        case p256
        case delegated

        public var description: String { rawValue }
    }

    indirect enum Signer: Sendable {
        case anonymous
        case ed25519(Ed25519.PrivateKey)
        case ecdsa(ECDSA.PrivateKey)
        case delegated(DelegatedSession)
    }

    let signer: Signer

    init(signer: Signer) { self.signer = signer }

    /// The anonymous identity: unsigned requests from `2vxsx-fae`.
    public static let anonymous = ICIdentity(signer: .anonymous)

    /// A fresh random key of `type` (Ed25519, secp256k1 or P-256).
    public static func generate(_ type: KeyType = .ed25519) throws(ICError) -> ICIdentity {
        switch type {
        case .ed25519: return ICIdentity(signer: .ed25519(Ed25519.PrivateKey()))
        case .secp256k1, .p256:
            do {
                return ICIdentity(signer: .ecdsa(try ECDSA.PrivateKey(curve: type == .p256 ? .p256 : .secp256k1)))
            } catch {
                throw ICError.crypto(error, "key generation")
            }
        case .anonymous, .delegated:
            throw ICError(.invalidArgument, "cannot generate a key of type \(type); use ed25519, secp256k1 or p256")
        }
    }

    public init(ed25519 key: Ed25519.PrivateKey) { signer = .ed25519(key) }

    /// An ECDSA key on secp256k1 or P-256 (the curves the IC accepts).
    public init(ecdsa key: ECDSA.PrivateKey) throws(ICError) {
        guard key.curve == .secp256k1 || key.curve == .p256 else {
            throw ICError(.unsupported, "the IC accepts ECDSA keys on secp256k1 and P-256, not \(key.curve.rawValue)")
        }
        signer = .ecdsa(key)
    }

    public init(session: DelegatedSession) { signer = .delegated(session) }

    /// Reads a private key PEM in the forms dfx writes (`~/.config/dfx/identity/<name>/identity.pem`):
    /// Ed25519 PKCS#8 (`PRIVATE KEY`, version 1 or dfx's version 2 with the public key), and ECDSA secp256k1 or
    /// P-256 as SEC1 `EC PRIVATE KEY` (an `EC PARAMETERS` block before it is fine) or PKCS#8.
    public init(pem: String) throws(ICError) {
        signer = try ICIdentity.signer(pem: pem)
    }

    private static func signer(pem: String) throws(ICError) -> Signer {
        let labels: Set<String>
        do { labels = Set(try PEM.blocks(in: pem).map(\.label)) } catch {
            if error.kind == .unsupported { throw ICError(.unsupported, "private key PEM: \(error.summary); export the key unencrypted") }
            throw ICError.codec(error, "private key PEM")
        }
        if labels.contains("ENCRYPTED PRIVATE KEY") {
            throw ICError(.unsupported, "encrypted PEM keys are not supported; export the key unencrypted")
        }
        if labels.contains("EC PRIVATE KEY") { return try ecdsaSigner(pem: pem) }
        guard labels.contains("PRIVATE KEY") else {
            throw ICError.malformed("no PRIVATE KEY or EC PRIVATE KEY block in the PEM text")
        }
        do {
            return .ed25519(try Ed25519.PrivateKey(pemRepresentation: pem))
        } catch let ed25519Error {
            // A PKCS#8 key of another algorithm: try EC; report the Ed25519 error if that fails too.
            do {
                return try ecdsaSigner(pem: pem)
            } catch {
                throw error.kind == .unsupported ? error : ICError.crypto(ed25519Error, "private key PEM")
            }
        }
    }

    private static func ecdsaSigner(pem: String) throws(ICError) -> Signer {
        let key: ECDSA.PrivateKey
        do { key = try ECDSA.PrivateKey(pemRepresentation: pem) } catch {
            if error.message.contains("unsupported EC curve") { throw ICError(.unsupported, error.message) }
            throw ICError.crypto(error, "EC private key PEM")
        }
        return try ICIdentity(ecdsa: key).signer
    }

    public var keyType: KeyType {
        switch signer {
        case .anonymous: .anonymous
        case .ed25519: .ed25519
        case .ecdsa(let key): key.curve == .p256 ? .p256 : .secp256k1
        case .delegated: .delegated
        }
    }

    /// `sender_pubkey`: the DER key whose self-authenticating id is the sender (for a session, the chain's root
    /// key); nil for the anonymous identity.
    public var publicKeyDER: [UInt8]? {
        switch signer {
        case .anonymous: nil
        case .ed25519(let key): key.publicKey.derRepresentation
        case .ecdsa(let key): key.publicKey.derRepresentation
        case .delegated(let session): session.chain.publicKey
        }
    }

    /// The sender principal.
    public var principal: Principal {
        guard let der = publicKeyDER else { return .anonymous }
        return Principal.selfAuthenticating(publicKeyDER: der)
    }

    /// The delegated session this identity signs through (nil unless it is one).
    public var delegatedSession: DelegatedSession? {
        if case .delegated(let session) = signer { return session }
        return nil
    }

    /// `sender_delegation` (nil unless this is a session).
    public var senderDelegation: [SignedDelegation]? {
        if case .delegated(let session) = signer { return session.chain.delegations }
        return nil
    }

    /// The DER key that actually signs (the session key for a session).
    public var signingPublicKeyDER: [UInt8]? {
        switch signer {
        case .anonymous: nil
        case .ed25519(let key): key.publicKey.derRepresentation
        case .ecdsa(let key): key.publicKey.derRepresentation
        case .delegated(let session): session.sessionKey.publicKeyDER
        }
    }

    /// Signs `message` (already domain-separated) with the signing key: Ed25519, or ECDSA over SHA-256 as
    /// r ‖ s with low S.
    public func sign(_ message: [UInt8]) throws(ICError) -> [UInt8] {
        switch signer {
        case .anonymous:
            throw ICError(.invalidArgument, "the anonymous identity cannot sign")
        case .ed25519(let key):
            return key.signature(for: message)
        case .ecdsa(let key):
            do { return try key.signature(for: message, hashedWith: .sha256, format: .raw, lowS: true) } catch {
                throw ICError.crypto(error, "ECDSA signing")
            }
        case .delegated(let session):
            return try session.sessionKey.sign(message)
        }
    }

    /// The envelope for `request`: sender_pubkey, sender_delegation and `sender_sig` over
    /// `0x0A "ic-request" ‖ request id`; nothing for the anonymous identity. The request's sender must be this
    /// identity's principal; a session must not have expired by `time`, and its targets must include
    /// `delegationTarget` (by default what the specification checks for the request, `DelegationTarget.of`).
    public func envelope(for request: ICRequest, at time: UInt64 = IngressExpiry.currentTime(),
                         delegationTarget: DelegationTarget? = nil) throws(ICError) -> ICEnvelope {
        guard request.sender == principal else {
            throw ICError(.invalidArgument, "the request's sender \(request.sender) is not this identity (\(principal))")
        }
        if case .anonymous = signer { return ICEnvelope(content: request) }
        try checkAuthorized(delegationTarget ?? DelegationTarget.of(request.body), at: time)
        let signature = try sign(DomainSeparator.request + request.requestID.bytes)
        return ICEnvelope(content: request, senderPublicKey: publicKeyDER, senderSignature: signature,
                          senderDelegation: senderDelegation)
    }

    /// Refuses, before anything is signed or sent, a request this identity cannot make: a delegated session that
    /// has expired by `time`, or whose targets do not include `target` (kind `unauthorized`, reason `target`).
    /// Keys and the anonymous identity may make any request.
    public func checkAuthorized(_ target: DelegationTarget, at time: UInt64 = IngressExpiry.currentTime()) throws(ICError) {
        if case .delegated(let session) = signer { try session.checkUsable(at: time, target: target) }
    }

    /// Signs a delegation to `publicKey` with this identity's signing key.
    public func delegate(_ delegation: Delegation) throws(ICError) -> SignedDelegation {
        SignedDelegation(delegation: delegation, signature: try sign(delegation.signedMessage))
    }

    /// The private key as PEM, in the form dfx writes: Ed25519 PKCS#8, ECDSA as `EC PARAMETERS` + SEC1
    /// `EC PRIVATE KEY`. **This exports the secret.** Sessions and the anonymous identity have no PEM.
    public func exportPrivateKeyPEM() throws(ICError) -> String {
        switch signer {
        case .ed25519(let key):
            return key.pemRepresentation
        case .ecdsa(let key):
            // ECParameters: the named curve's OID (1.2.840.10045.3.1.7 or 1.3.132.0.10), as dfx writes it.
            let curve: [UInt8] = key.curve == .p256 ? [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
                : [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a]
            return PEM.encode(label: "EC PARAMETERS", der: curve) + key.sec1PEMRepresentation
        case .anonymous:
            throw ICError(.invalidArgument, "the anonymous identity has no private key")
        case .delegated:
            throw ICError(.invalidArgument, "a delegated session is stored as a session file, not a PEM key")
        }
    }

    public var description: String {
        switch signer {
        case .anonymous: return "ICIdentity(anonymous)"
        case .delegated(let session):
            return "ICIdentity(delegated, principal: \(principal), session key: \(session.sessionKey.keyType) \(session.sessionKey.principal), expires: \(session.chain.expiration.map(ICTime.format) ?? "never"))"
        default: return "ICIdentity(\(keyType), principal: \(principal))"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["keyType": keyType, "principal": principal]) }
}

extension ICIdentity {
    /// An Ed25519 identity from a secret as people keep one (`omni ic identity delegate --from-seed`): the 32-byte
    /// seed itself, the seed as 64 hex digits (optionally `0x`, surrounding white space ignored), or a PKCS#8 key
    /// as PEM (`-----BEGIN PRIVATE KEY-----`) or DER. Only Ed25519: a seed of another curve is not a seed.
    /// The bytes are not kept beyond the key.
    public init(ed25519Secret bytes: [UInt8]) throws(ICError) {
        var material = bytes
        defer { for index in material.indices { material[index] = 0 } }
        if material.count == Ed25519.seedByteCount {
            self.init(ed25519: try ICIdentity.seedKey(material))
            return
        }
        // Text first: a hex seed may start with "0" (0x30), the first byte of DER too.
        let text = String(validating: material, as: UTF8.self).map { $0.trimmingWhitespaceAndNewlines() }
        if let text, text.contains("-----BEGIN") {
            guard text.contains("-----BEGIN PRIVATE KEY-----") else {
                throw ICError(.unsupported, "only an unencrypted Ed25519 PKCS#8 key (-----BEGIN PRIVATE KEY-----) can be a seed")
            }
            do { self.init(ed25519: try Ed25519.PrivateKey(pemRepresentation: text)) } catch {
                throw ICError(.malformed, "the PEM key is not an Ed25519 private key: \(error.message)")
            }
            return
        }
        if var digits = text, digits.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isASCIIHexDigit || $0 == "x" || $0 == "X") }) {
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits.removeFirst(2) }
            guard digits.utf8.count == 2 * Ed25519.seedByteCount else {
                throw ICError(.malformed, "a hex seed is 64 hex digits, got \(digits.utf8.count)")
            }
            var seed: [UInt8]
            do { seed = try Hex.decode(digits) } catch {
                throw ICError.codec(error, "hex seed")
            }
            defer { for index in seed.indices { seed[index] = 0 } }
            self.init(ed25519: try ICIdentity.seedKey(seed))
            return
        }
        guard material.first == 0x30 else {
            throw ICError(.malformed, "a seed is 32 bytes, 64 hex digits, or an Ed25519 PKCS#8 key (PEM or DER); got \(material.count) "
                          + "bytes that are none of these")
        }
        do { self.init(ed25519: try Ed25519.PrivateKey(pkcs8DERRepresentation: material)) } catch {
            throw ICError(.malformed, "the DER key is not an Ed25519 PKCS#8 private key: \(error.message)")
        }
    }

    private static func seedKey(_ seed: [UInt8]) throws(ICError) -> Ed25519.PrivateKey {
        do { return try Ed25519.PrivateKey(seed: seed) } catch {
            throw ICError.crypto(error, "Ed25519 seed")
        }
    }
}
