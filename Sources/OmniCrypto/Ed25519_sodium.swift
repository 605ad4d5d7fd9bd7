internal import CSodium
import OmniCodec

/// Ed25519 (RFC 8032, pure — no prehash, no context) through libsodium 1.0.18.
///
/// Which signatures verify (libsodium 1.0.18 `crypto_sign_verify_detached`, built without ED25519_COMPAT):
/// - S must be canonical (S < L); a signature with S + L is rejected.
/// - R must not be one of the small-order points (in any encoding), and R is compared with the recomputed
///   point by its canonical encoding, so a non-canonical R never verifies.
/// - The public key must be a canonical encoding of a point that is not of small order (the all-zero key and
///   the other eight torsion points are rejected); mixed-order keys are not rejected.
/// - The check is the cofactorless equation [S]B = R + [k]A.
/// This is stricter than RFC 8032 §5.1.7 (which permits the cofactored check and is silent on small-order
/// keys) and matches what the IC's and Iroha's verifiers accept for honestly made signatures.
public enum Ed25519 {
    public static let seedByteCount = 32
    public static let publicKeyByteCount = 32
    public static let signatureByteCount = 64

    /// `SEQUENCE { SEQUENCE { OID 1.3.101.112 } BIT STRING (32 bytes) }` minus the key: the one valid DER SPKI
    /// prefix for an Ed25519 key (RFC 8410 §4).
    static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]
    static let algorithmIdentifier: [UInt8] = [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70]

    public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
        /// The 32-byte RFC 8032 encoding.
        public let rawRepresentation: [UInt8]

        /// Takes any 32 bytes; keys that libsodium refuses (see `Ed25519`) make every verification fail.
        public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
            guard rawRepresentation.count == publicKeyByteCount else {
                throw CryptoError(.invalidKey, "Ed25519 public key must be 32 bytes, got \(rawRepresentation.count)")
            }
            self.rawRepresentation = Array(rawRepresentation)
        }

        /// Parses a DER SubjectPublicKeyInfo with algorithm 1.3.101.112 (44 bytes; DER leaves no other encoding).
        public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
            let der = Array(derRepresentation)
            guard der.count == spkiPrefix.count + publicKeyByteCount, der.starts(with: spkiPrefix) else {
                throw CryptoError(.invalidKey,
                                  "not a DER Ed25519 SubjectPublicKeyInfo (expected 44 bytes starting \(Hex.encode(spkiPrefix)), got \(der.count) bytes)")
            }
            rawRepresentation = Array(der.dropFirst(spkiPrefix.count))
        }

        /// DER SubjectPublicKeyInfo (RFC 8410), as used for IC `sender_pubkey`.
        public var derRepresentation: [UInt8] { spkiPrefix + rawRepresentation }

        /// Whether `signature` is a valid signature of `message` under this key (rules in `Ed25519`).
        /// Throws only when the signature is not 64 bytes long.
        public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) throws(CryptoError) -> Bool {
            guard signature.count == signatureByteCount else {
                throw CryptoError(.invalidInput, "Ed25519 signature must be 64 bytes, got \(signature.count)")
            }
            Sodium.ensureInitialized()
            let signature = Array(signature)
            return withContiguousBytes(message) { message in
                crypto_sign_verify_detached(signature, message.bindMemory(to: UInt8.self).baseAddress,
                                            UInt64(message.count), rawRepresentation) == 0
            }
        }

        public var description: String { "Ed25519.PublicKey(\(Hex.encode(rawRepresentation)))" }
    }

    /// An Ed25519 signing key. The seed lives in memory that is zeroed when the last copy is released, and it
    /// is never printed (`description`, `debugDescription` and mirrors show only the public key).
    public struct PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// libsodium's 64-byte secret key: seed ‖ public key.
        private let secret: SecretBytes
        public let publicKey: PublicKey

        /// A fresh random key.
        public init() {
            var seed = SecureRandom.bytes(seedByteCount)
            defer { wipe(&seed) }
            // 32 bytes: cannot fail.
            self = (try? PrivateKey(seed: seed))!
        }

        /// The key for a 32-byte RFC 8032 seed (the "private key" of the RFC's test vectors).
        public init(seed: some Collection<UInt8>) throws(CryptoError) {
            guard seed.count == seedByteCount else {
                throw CryptoError(.invalidKey, "Ed25519 seed must be 32 bytes, got \(seed.count)")
            }
            Sodium.ensureInitialized()
            let secret = SecretBytes(count: 64)
            var publicKey = [UInt8](repeating: 0, count: publicKeyByteCount)
            withContiguousBytes(seed) { seed in
                secret.withUnsafeMutableBytes { secretKey in
                    _ = crypto_sign_seed_keypair(&publicKey, secretKey.bindMemory(to: UInt8.self).baseAddress!,
                                                 seed.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            self.secret = secret
            self.publicKey = (try? PublicKey(rawRepresentation: publicKey))!
        }

        /// The 32-byte seed. This exports the secret: use it only to store or transfer the key.
        public var seed: [UInt8] { secret.withUnsafeBytes { Array($0.prefix(seedByteCount)) } }

        /// The deterministic RFC 8032 signature of `message`.
        public func signature(for message: some Collection<UInt8>) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: signatureByteCount)
            withContiguousBytes(message) { message in
                secret.withUnsafeBytes { secretKey in
                    _ = crypto_sign_detached(&signature, nil, message.bindMemory(to: UInt8.self).baseAddress,
                                             UInt64(message.count), secretKey.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            return signature
        }

        public var description: String { "Ed25519.PrivateKey(publicKey: \(Hex.encode(publicKey.rawRepresentation)), seed: <redacted>)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
    }
}
