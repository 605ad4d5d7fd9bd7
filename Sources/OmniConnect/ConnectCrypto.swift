import OmniCodec
import OmniCrypto

/// Connect's cryptography, byte-exact with Torii and the SDKs:
///
/// ```
/// sid        = BLAKE2b-256("iroha-connect|sid|" ‖ binding ‖ app_pk ‖ nonce16)
/// raw        = X25519(local_sk, peer_pk)                 (all-zero refused)
/// session    = HKDF-SHA256(salt "iroha:x25519:hkdf:v1", ikm raw, info "iroha:x25519:session-key")
/// salt       = BLAKE2b-256("iroha-connect|salt|" ‖ sid)
/// k_app      = HKDF-SHA256(salt, session, "iroha-connect|k_app")      app → wallet
/// k_wallet   = HKDF-SHA256(salt, session, "iroha-connect|k_wallet")   wallet → app
/// nonce      = 00000000 ‖ seq u64 LE
/// aad        = "connect:v1" ‖ sid ‖ dir u8 ‖ seq u64 LE ‖ 01        (52 bytes)
/// ```
/// BLAKE2b-256 is BLAKE2b with a 32-byte digest (not truncated BLAKE2b-512, which the Gen A JS and Python SDKs
/// used by mistake — `legacyTruncatedSID` reproduces that for comparison only).
public enum ConnectCrypto {
    public static let nonceByteCount = 16

    // MARK: - Session id

    public static func sid(generation: ConnectGeneration, constraints: ConnectConstraints, appPublicKey: [UInt8],
                           nonce: [UInt8]) -> [UInt8] {
        BLAKE2b.hash256(generation.sidPreimage(constraints: constraints, appPublicKey: appPublicKey, nonce: nonce))
    }

    /// The first 32 bytes of BLAKE2b-512 over the same preimage: what the Gen A JS and Python SDKs computed.
    public static func legacyTruncatedSID(constraints: ConnectConstraints, appPublicKey: [UInt8], nonce: [UInt8]) -> [UInt8] {
        Array(BLAKE2b.hash512(ConnectGeneration.genA.sidPreimage(constraints: constraints, appPublicKey: appPublicKey, nonce: nonce)).prefix(32))
    }

    /// A fresh 16-byte nonce that is not all zeros.
    public static func makeNonce() -> [UInt8] {
        while true {
            let nonce = SecureRandom.bytes(nonceByteCount)
            if nonce.contains(where: { $0 != 0 }) { return nonce }
        }
    }

    // MARK: - Key schedule

    /// The first HKDF stage (`X25519Sha256::compute_shared_secret`): raw DH output → 32-byte session key.
    public static func sessionKey(rawSharedSecret: [UInt8]) throws(ConnectError) -> [UInt8] {
        do {
            return try HKDF<SHA256>.deriveKey(inputKeyMaterial: rawSharedSecret, salt: Array("iroha:x25519:hkdf:v1".utf8),
                                              info: Array("iroha:x25519:session-key".utf8), outputByteCount: 32)
        } catch {
            throw ConnectError.crypto(error, "session key")
        }
    }

    /// BLAKE2b-256("iroha-connect|salt|" ‖ sid): the salt of the direction keys.
    public static func directionSalt(sid: [UInt8]) -> [UInt8] {
        BLAKE2b.hash256(Array("iroha-connect|salt|".utf8) + sid)
    }

    /// Every intermediate of the key schedule (for `derive-keys`) and the two traffic keys.
    public static func keySchedule(privateKey: X25519.PrivateKey, peerPublicKey: [UInt8], sid: [UInt8]) throws(ConnectError) -> ConnectKeySchedule {
        let raw: [UInt8]
        do {
            raw = try privateKey.sharedSecret(with: try X25519.PublicKey(rawRepresentation: peerPublicKey))
        } catch {
            throw ConnectError.crypto(error, "X25519 key agreement")
        }
        let session = try sessionKey(rawSharedSecret: raw)
        let salt = directionSalt(sid: sid)
        do {
            let appKey = try HKDF<SHA256>.deriveKey(inputKeyMaterial: session, salt: salt, info: Array("iroha-connect|k_app".utf8),
                                                    outputByteCount: 32)
            let walletKey = try HKDF<SHA256>.deriveKey(inputKeyMaterial: session, salt: salt,
                                                       info: Array("iroha-connect|k_wallet".utf8), outputByteCount: 32)
            return ConnectKeySchedule(rawSharedSecret: raw, sessionKey: session, salt: salt,
                                      keys: ConnectDirectionKeys(appToWallet: appKey, walletToApp: walletKey))
        } catch {
            throw ConnectError.crypto(error, "direction keys")
        }
    }

    // MARK: - AEAD

    public static func aeadNonce(sequence: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + littleEndian(sequence)
    }

    public static func associatedData(sid: [UInt8], direction: ConnectDirection, sequence: UInt64) -> [UInt8] {
        Array("connect:v1".utf8) + sid + [UInt8(direction.rawValue)] + littleEndian(sequence) + [1]
    }

    /// Encrypts `payload` as the ciphertext frame `seq` in `direction` (inner and outer direction equal).
    public static func seal(_ payload: ConnectPayload, sid: [UInt8], direction: ConnectDirection, sequence: UInt64,
                            keys: ConnectDirectionKeys, codec: ConnectCodec) throws(ConnectError) -> ConnectFrame {
        let plaintext = codec.encodeEnvelope(ConnectEnvelope(sequence: sequence, payload: payload))
        do {
            let aead = try ChaChaPoly.seal(plaintext, key: keys.key(for: direction), nonce: aeadNonce(sequence: sequence),
                                           authenticating: associatedData(sid: sid, direction: direction, sequence: sequence))
            return ConnectFrame(sid: sid, direction: direction, sequence: sequence,
                                kind: .ciphertext(ConnectCiphertext(direction: direction, aead: aead)))
        } catch {
            throw ConnectError.crypto(error, "sealing frame \(sequence)")
        }
    }

    /// Decrypts a ciphertext frame and checks the envelope against it (`seq_mismatch`, `dir_mismatch`).
    public static func open(_ frame: ConnectFrame, keys: ConnectDirectionKeys, codec: ConnectCodec) throws(ConnectError) -> ConnectEnvelope {
        guard case .ciphertext(let ciphertext) = frame.kind else {
            throw ConnectError(.protocolViolation, "frame \(frame.sequence) is a plaintext control, not ciphertext")
        }
        guard ciphertext.direction == frame.direction else {
            throw ConnectError(.protocolViolation, "dir_mismatch: ciphertext says \(ciphertext.direction) inside a \(frame.direction) frame")
        }
        let plaintext: [UInt8]
        do {
            plaintext = try ChaChaPoly.open(ciphertext.aead, key: keys.key(for: frame.direction), nonce: aeadNonce(sequence: frame.sequence),
                                            authenticating: associatedData(sid: frame.sid, direction: frame.direction, sequence: frame.sequence))
        } catch {
            throw ConnectError(.verificationFailed,
                               "ciphertext frame \(frame.sequence) (\(frame.direction)) failed authentication: tampered, replayed under another sequence, or the wrong key")
        }
        let envelope: ConnectEnvelope
        do {
            envelope = try codec.decodeEnvelope(plaintext)
        } catch {
            throw ConnectError.malformed(error, "envelope of frame \(frame.sequence)")
        }
        guard envelope.sequence == frame.sequence else {
            throw ConnectError(.protocolViolation, "seq_mismatch: envelope sequence \(envelope.sequence) inside frame \(frame.sequence)")
        }
        return envelope
    }

    // MARK: - Hashes bound into approvals and tokens

    /// BLAKE2b-256 of the bare `Constraints` encoding.
    public static func constraintsHash(_ constraints: ConnectConstraints, generation: ConnectGeneration) -> [UInt8] {
        var writer = NoritoWriter()
        generation.writeConstraints(constraints, to: &writer)
        return BLAKE2b.hash256(writer.bytes)
    }

    /// BLAKE2b-256 of the bare `PermissionsV1` encoding.
    public static func permissionsHash(_ permissions: ConnectPermissions) -> [UInt8] {
        var writer = NoritoWriter()
        ConnectCodec(generation: .genB).writePermissions(permissions, to: &writer)
        return BLAKE2b.hash256(writer.bytes)
    }

    /// BLAKE2b-256 of the bare `SignInProofV1` encoding.
    public static func proofHash(_ proof: ConnectSignInProof) -> [UInt8] {
        var writer = NoritoWriter()
        ConnectCodec(generation: .genB).writeProof(proof, to: &writer)
        return BLAKE2b.hash256(writer.bytes)
    }

    /// What Torii stores instead of a token: SHA-256("iroha-connect|token-auth|v1" ‖ kind ‖ sid ‖ token).
    public static func tokenHash(kind: ConnectTokenKind, sid: [UInt8], token: String) -> [UInt8] {
        SHA256.hash(Array("iroha-connect|token-auth|v1".utf8) + Array(kind.rawValue.utf8) + sid + Array(token.utf8))
    }

    /// SHA-256("iroha-connect|relay-auth|v1" ‖ sid ‖ relay token): binds the relay token into Gen B approvals.
    public static func relayAuthHash(sid: [UInt8], relayToken: String) -> [UInt8] {
        SHA256.hash(Array("iroha-connect|relay-auth|v1".utf8) + sid + Array(relayToken.utf8))
    }

    /// The Torii↔Torii relay MAC key: HKDF-SHA256(salt SHA-256("iroha-connect|relay|salt|" ‖ sid), ikm relay token,
    /// info "iroha-connect|relay-mac-key|v1").
    public static func relayMACKey(sid: [UInt8], relayToken: String) throws(ConnectError) -> [UInt8] {
        do {
            return try HKDF<SHA256>.deriveKey(inputKeyMaterial: Array(relayToken.utf8),
                                              salt: SHA256.hash(Array("iroha-connect|relay|salt|".utf8) + sid),
                                              info: Array("iroha-connect|relay-mac-key|v1".utf8), outputByteCount: 32)
        } catch {
            throw ConnectError.crypto(error, "relay MAC key")
        }
    }

    /// A fresh opaque token as Torii mints them: 32 random bytes, base64url.
    public static func makeToken() -> String { ConnectText.base64URL(SecureRandom.bytes(32)) }

    // MARK: - Signatures

    /// Verifies an Ed25519 signature; other algorithms are not supported by omni.
    public static func verify(_ signature: ConnectWalletSignature, publicKey: [UInt8], message: [UInt8]) throws(ConnectError) -> Bool {
        guard signature.algorithm == .ed25519 else {
            throw ConnectError(.verificationFailed, "UNSUPPORTED_ALGORITHM: \(signature.algorithm) signatures cannot be checked (only ed25519)")
        }
        guard signature.bytes.count == Ed25519.signatureByteCount else { return false }
        do {
            return try Ed25519.PublicKey(rawRepresentation: publicKey).isValidSignature(signature.bytes, for: message)
        } catch {
            return false
        }
    }

    private static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

/// Which token a hash is for.
public enum ConnectTokenKind: String, Sendable {
    case app
    case wallet
    case management
}

/// The two traffic keys: `k_app` encrypts app → wallet, `k_wallet` wallet → app.
public struct ConnectDirectionKeys: Sendable, Equatable {
    public let appToWallet: [UInt8]
    public let walletToApp: [UInt8]

    public init(appToWallet: [UInt8], walletToApp: [UInt8]) {
        self.appToWallet = appToWallet
        self.walletToApp = walletToApp
    }

    public func key(for direction: ConnectDirection) -> [UInt8] {
        direction == .appToWallet ? appToWallet : walletToApp
    }
}

public struct ConnectKeySchedule: Sendable {
    public let rawSharedSecret: [UInt8]
    public let sessionKey: [UInt8]
    public let salt: [UInt8]
    public let keys: ConnectDirectionKeys
}
