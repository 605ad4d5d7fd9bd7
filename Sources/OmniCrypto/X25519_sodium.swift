internal import CSodium
import OmniCodec

/// X25519 Diffie–Hellman (RFC 7748) through libsodium `crypto_scalarmult`.
public enum X25519 {
    public static let keyByteCount = 32

    public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
        /// The 32-byte little-endian u-coordinate.
        public let rawRepresentation: [UInt8]

        /// Any 32 bytes (RFC 7748 §5: the top bit is ignored). Low-order points are caught when the shared
        /// secret comes out all-zero.
        public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
            guard rawRepresentation.count == keyByteCount else {
                throw CryptoError(.invalidKey, "X25519 public key must be 32 bytes, got \(rawRepresentation.count)")
            }
            self.rawRepresentation = Array(rawRepresentation)
        }

        public var description: String { "X25519.PublicKey(\(Hex.encode(rawRepresentation)))" }
    }

    /// An X25519 private scalar, kept in memory that is zeroed on release and never printed.
    public struct PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        private let secret: SecretBytes
        public let publicKey: PublicKey

        /// A fresh random key.
        public init() {
            var scalar = SecureRandom.bytes(keyByteCount)
            defer { wipe(&scalar) }
            self = (try? PrivateKey(rawRepresentation: scalar))!
        }

        /// Any 32 bytes; X25519 clamps the scalar itself (RFC 7748 §5).
        public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
            guard rawRepresentation.count == keyByteCount else {
                throw CryptoError(.invalidKey, "X25519 private key must be 32 bytes, got \(rawRepresentation.count)")
            }
            Sodium.ensureInitialized()
            secret = withContiguousBytes(rawRepresentation) { SecretBytes(copying: $0) }
            var publicKey = [UInt8](repeating: 0, count: keyByteCount)
            secret.withUnsafeBytes { scalar in
                _ = crypto_scalarmult_base(&publicKey, scalar.bindMemory(to: UInt8.self).baseAddress!)
            }
            self.publicKey = (try? PublicKey(rawRepresentation: publicKey))!
        }

        /// The 32 private bytes. This exports the secret.
        public var rawRepresentation: [UInt8] { secret.bytes }

        /// X25519(self, peer). Throws `.invalidKey` when the result is all zeros, i.e. the peer sent a point of
        /// small order (RFC 7748 §6.1 allows, and Iroha Connect requires, this check).
        public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> [UInt8] {
            var shared = [UInt8](repeating: 0, count: keyByteCount)
            let status = secret.withUnsafeBytes { scalar in
                crypto_scalarmult(&shared, scalar.bindMemory(to: UInt8.self).baseAddress!, peer.rawRepresentation)
            }
            guard status == 0 else {
                throw CryptoError(.invalidKey, "X25519 shared secret is all zeros (peer public key \(Hex.encode(peer.rawRepresentation)) has small order)")
            }
            return shared
        }

        public var description: String { "X25519.PrivateKey(publicKey: \(Hex.encode(publicKey.rawRepresentation)), scalar: <redacted>)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
    }
}
