import OmniCodec

/// sr25519: Schnorr signatures on ristretto255 with Merlin transcripts, byte for byte as w3f/schnorrkel 0.11
/// (the scheme Substrate and Polkadot accounts use), over libsodium's ristretto255.
///
/// Formats are schnorrkel's: a public key is a compressed ristretto255 point (32 bytes); a secret key is
/// `SecretKey::to_bytes` (the scalar mod ℓ ‖ the 32-byte nonce seed, 64 bytes — what py-sr25519-bindings calls
/// the private key); a signature is R ‖ s with the high bit of the last byte set (64 bytes); a mini secret key is
/// 32 bytes expanded in Ed25519 mode (SHA-512, clamped, divided by the cofactor), as Substrate does.
///
/// Stricter than schnorrkel in one place: the identity point is refused as a public key (every signature
/// would verify under it), and so is the zero secret scalar that would produce it.
public enum Sr25519 {
    public static let miniSecretKeyByteCount = 32
    public static let secretKeyByteCount = 64
    public static let publicKeyByteCount = 32
    public static let signatureByteCount = 64
    public static let chainCodeByteCount = 32
    /// The signing context Substrate uses for every account signature.
    public static let substrateContext: [UInt8] = Array("substrate".utf8)

    /// An sr25519 public key: a valid, canonical, non-identity ristretto255 encoding.
    public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
        /// The 32-byte compressed ristretto255 point.
        public let rawRepresentation: [UInt8]
        let point: RistrettoPoint
        /// The decoded point when the key was made from bytes, so that verification does not decode it again.
        private let decoded: EdwardsPoint?

        /// Refuses anything but 32 bytes that decode to a ristretto255 point other than the identity.
        public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
            guard rawRepresentation.count == publicKeyByteCount else {
                throw CryptoError(.invalidKey, "sr25519 public key must be 32 bytes, got \(rawRepresentation.count)")
            }
            // Decoded in variable time: a public key is public.
            guard let decoded = EdwardsPoint(ristrettoEncoding: rawRepresentation) else {
                throw CryptoError(.invalidKey,
                                  "sr25519 public key \(Hex.encode(rawRepresentation)) is not a canonical ristretto255 point encoding")
            }
            let point = RistrettoPoint(validEncoding: Array(rawRepresentation))
            guard !point.isIdentity else {
                throw CryptoError(.invalidKey, "sr25519 public key is the identity point (every signature would verify under it)")
            }
            self.point = point
            self.decoded = decoded
            self.rawRepresentation = point.encoding
        }

        init(point: RistrettoPoint) {
            self.point = point
            decoded = nil
            rawRepresentation = point.encoding
        }

        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.rawRepresentation == rhs.rawRepresentation }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawRepresentation) }

        /// schnorrkel `verify_simple(context, message, signature)`. False when the equation fails; throws when
        /// the signature is not 64 bytes, lacks schnorrkel's marker bit, or has a non-canonical s.
        public func isValidSignature(
            _ signature: some Collection<UInt8>, for message: some Collection<UInt8>,
            context: some Collection<UInt8> = Sr25519.substrateContext
        ) throws(CryptoError) -> Bool {
            try isValidSignature(signature, transcript: signingTranscript(context: context, message: message))
        }

        /// schnorrkel `verify(transcript, signature)` for a transcript the caller built.
        public func isValidSignature(_ signature: some Collection<UInt8>, transcript: MerlinTranscript) throws(CryptoError) -> Bool {
            let (commitment, response) = try parseSignature(signature)
            var transcript = transcript
            transcript.appendMessage(label: SchnorrkelLabel.protocolName, SchnorrkelLabel.schnorrSignature)
            transcript.appendMessage(label: SchnorrkelLabel.signPublicKey, rawRepresentation)
            transcript.appendMessage(label: SchnorrkelLabel.signCommitment, commitment)
            let challenge = RistrettoScalar(reducingWide: transcript.challenge(label: SchnorrkelLabel.signChallenge, count: 64))
            // R = s·B − k·A, compared by encoding (a non-canonical R never matches). Variable time: every input
            // is public.
            // A valid encoding by construction: decoding cannot fail.
            guard let publicPoint = decoded ?? EdwardsPoint(ristrettoEncoding: rawRepresentation) else { return false }
            return Ristretto255Vartime.verifiesCommitment(commitment, publicKey: publicPoint, response: response, challenge: challenge)
        }

        /// Soft derivation, schnorrkel `derived_key_simple(chain_code, [])` on a public key: the child public
        /// key and its chain code (Substrate keeps only the key; the next junction brings its own chain code).
        public func softDerived(chainCode: ChainCode) -> (publicKey: PublicKey, chainCode: ChainCode) {
            let (scalar, childChainCode, _) = softDerivationScalar(chainCode: chainCode)
            return (PublicKey(point: point + RistrettoPoint.base(scalar)), childChainCode)
        }

        /// The public key at `junctions` below this one. Throws on a hard junction: it needs the secret key.
        public func derived(_ junctions: [Junction]) throws(CryptoError) -> PublicKey {
            var key = self
            for (index, junction) in junctions.enumerated() {
                guard !junction.isHard else {
                    throw CryptoError(.invalidInput, "junction \(index + 1) of the path is hard (//…): it cannot be derived from a public key")
                }
                key = key.softDerived(chainCode: junction.chainCode).publicKey
            }
            return key
        }

        /// The derivation transcript's scalar and child chain code, and the transcript for the keypair's nonce.
        func softDerivationScalar(chainCode: ChainCode) -> (RistrettoScalar, ChainCode, MerlinTranscript) {
            var transcript = MerlinTranscript(label: SchnorrkelLabel.derivation)
            transcript.appendMessage(label: SchnorrkelLabel.signBytes, [UInt8]())
            transcript.appendMessage(label: SchnorrkelLabel.chainCode, chainCode.bytes)
            transcript.appendMessage(label: SchnorrkelLabel.derivationPublicKey, rawRepresentation)
            let scalar = RistrettoScalar(reducingWide: transcript.challenge(label: SchnorrkelLabel.derivationScalar, count: 64))
            let child = ChainCode(trusted: transcript.challenge(label: SchnorrkelLabel.derivationChainCode, count: chainCodeByteCount))
            return (scalar, child, transcript)
        }

        public var description: String { "Sr25519.PublicKey(\(Hex.encode(rawRepresentation)))" }
    }

    /// An sr25519 keypair. The secret scalar and nonce seed live in memory that is zeroed when the last copy is
    /// released, and they are never printed (`description`, `debugDescription` and mirrors show the public key).
    public struct Keypair: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        let secretScalar: RistrettoScalar
        /// schnorrkel's nonce seed: mixed into every signing nonce, so that a weak RNG alone cannot repeat one.
        private let nonceSeed: SecretBytes
        public let publicKey: PublicKey

        /// A fresh random key (a random mini secret key, expanded in Ed25519 mode).
        public init() {
            var miniSecret = SecureRandom.bytes(miniSecretKeyByteCount)
            defer { wipe(&miniSecret) }
            self = (try? Keypair(miniSecretKey: miniSecret))!
        }

        /// schnorrkel `MiniSecretKey::expand_to_keypair(ExpansionMode::Ed25519)`, the expansion Substrate uses:
        /// SHA-512 of the 32 bytes; the first half clamped as in Ed25519 and divided by the cofactor 8 is the
        /// scalar, the second half the nonce seed.
        public init(miniSecretKey: some Collection<UInt8>) throws(CryptoError) {
            guard miniSecretKey.count == miniSecretKeyByteCount else {
                throw CryptoError(.invalidKey, "sr25519 mini secret key must be 32 bytes, got \(miniSecretKey.count)")
            }
            var digest = SHA512.hash(miniSecretKey)
            defer { wipe(&digest) }
            var scalar = Array(digest[0..<32])
            defer { wipe(&scalar) }
            scalar[0] &= 248
            scalar[31] &= 63
            scalar[31] |= 64
            Self.divideByCofactor(&scalar)
            // 2²⁵¹ ≤ scalar < 2²⁵² < ℓ: canonical and non-zero.
            let secretScalar = RistrettoScalar(canonical: scalar)!
            self.init(secretScalar: secretScalar, nonceSeed: digest[32..<64])
        }

        /// schnorrkel `SecretKey::from_bytes`: the canonical scalar ‖ the nonce seed, 64 bytes (what
        /// py-sr25519-bindings calls the secret key). The scalar must be reduced modulo ℓ and non-zero.
        public init(secretKey: some Collection<UInt8>) throws(CryptoError) {
            guard secretKey.count == secretKeyByteCount else {
                throw CryptoError(.invalidKey, "sr25519 secret key must be 64 bytes (scalar ‖ nonce), got \(secretKey.count)")
            }
            var bytes = Array(secretKey)
            var scalarBytes = Array(bytes[0..<32])
            var nonceBytes = Array(bytes[32..<64])
            defer { wipe(&bytes); wipe(&scalarBytes); wipe(&nonceBytes) }
            guard let scalar = RistrettoScalar(canonical: scalarBytes) else {
                throw CryptoError(.invalidKey, "sr25519 secret key: the scalar (first 32 bytes) is not reduced modulo ℓ")
            }
            guard !scalar.isZero else {
                throw CryptoError(.invalidKey, "sr25519 secret key: the scalar is zero (its public key would be the identity)")
            }
            self.init(secretScalar: scalar, nonceSeed: nonceBytes)
        }

        init(secretScalar: RistrettoScalar, nonceSeed: some Collection<UInt8>, publicKey: PublicKey? = nil) {
            self.secretScalar = secretScalar
            self.nonceSeed = withContiguousBytes(nonceSeed) { SecretBytes(copying: $0) }
            self.publicKey = publicKey ?? PublicKey(point: RistrettoPoint.base(secretScalar))
        }

        /// schnorrkel `SecretKey::to_bytes`: scalar ‖ nonce seed, 64 bytes. This exports the secret: use it only
        /// to store or transfer the key.
        public var secretKeyRepresentation: [UInt8] { secretScalar.bytes + nonceSeed.bytes }

        /// schnorrkel `sign_simple(context, message)`. Randomised (the nonce binds the transcript, the nonce seed
        /// and fresh randomness), so two signatures of one message differ; check them by verifying.
        public func signature(
            for message: some Collection<UInt8>, context: some Collection<UInt8> = Sr25519.substrateContext
        ) -> [UInt8] {
            signature(transcript: signingTranscript(context: context, message: message))
        }

        /// schnorrkel `sign(transcript)` for a transcript the caller built.
        public func signature(transcript: MerlinTranscript) -> [UInt8] {
            var transcript = transcript
            transcript.appendMessage(label: SchnorrkelLabel.protocolName, SchnorrkelLabel.schnorrSignature)
            transcript.appendMessage(label: SchnorrkelLabel.signPublicKey, publicKey.rawRepresentation)
            var witness = witness(transcript, label: SchnorrkelLabel.signingWitness, count: 64)
            defer { wipe(&witness) }
            let nonce = RistrettoScalar(reducingWide: witness)
            let commitment = RistrettoPoint.base(nonce).encoding
            transcript.appendMessage(label: SchnorrkelLabel.signCommitment, commitment)
            let challenge = RistrettoScalar(reducingWide: transcript.challenge(label: SchnorrkelLabel.signChallenge, count: 64))
            var signature = commitment + (challenge * secretScalar + nonce).bytes
            signature[63] |= 0x80
            return signature
        }

        /// Hard derivation as Substrate's `//junction`: schnorrkel `hard_derive_mini_secret_key(Some(chain_code),
        /// b"")`, then the mini secret key expanded in Ed25519 mode. Also returns the derivation's chain code.
        public func hardDerived(chainCode: ChainCode) -> (keypair: Keypair, chainCode: ChainCode) {
            var transcript = MerlinTranscript(label: SchnorrkelLabel.derivation)
            transcript.appendMessage(label: SchnorrkelLabel.signBytes, [UInt8]())
            transcript.appendMessage(label: SchnorrkelLabel.chainCode, chainCode.bytes)
            secretScalar.withBytes { scalar in
                transcript.appendMessage(label: SchnorrkelLabel.derivationSecretKey, UnsafeBufferPointer(start: scalar, count: 32))
            }
            var miniSecret = transcript.challenge(label: SchnorrkelLabel.derivationHard, count: miniSecretKeyByteCount)
            defer { wipe(&miniSecret) }
            let child = ChainCode(trusted: transcript.challenge(label: SchnorrkelLabel.derivationChainCode, count: chainCodeByteCount))
            // 32 bytes: cannot fail.
            return ((try? Keypair(miniSecretKey: miniSecret))!, child)
        }

        /// Soft derivation as Substrate's `/junction`: schnorrkel `derived_key_simple(chain_code, [])`. The child's
        /// public key equals `publicKey.softDerived(chainCode:)`; its nonce seed is drawn from the derivation
        /// transcript re-keyed with this key's secrets and fresh randomness, as schnorrkel does.
        public func softDerived(chainCode: ChainCode) -> (keypair: Keypair, chainCode: ChainCode) {
            let (scalar, child, transcript) = publicKey.softDerivationScalar(chainCode: chainCode)
            var secret = secretKeyRepresentation
            defer { wipe(&secret) }
            var childNonce = witness(transcript, label: SchnorrkelLabel.derivationNonce, count: 32, extraSeeds: [secret])
            defer { wipe(&childNonce) }
            return (Keypair(secretScalar: secretScalar + scalar, nonceSeed: childNonce), child)
        }

        /// The keypair at `junctions` below this one (hard and soft in path order).
        public func derived(_ junctions: [Junction]) -> Keypair {
            var keypair = self
            for junction in junctions {
                keypair = junction.isHard ? keypair.hardDerived(chainCode: junction.chainCode).keypair
                    : keypair.softDerived(chainCode: junction.chainCode).keypair
            }
            return keypair
        }

        /// schnorrkel `witness_bytes(label, dest, seeds)` on a copy of `transcript`, seeded with the nonce seed and
        /// `extraSeeds` after it.
        func witness(_ transcript: MerlinTranscript, label: [UInt8], count: Int, extraSeeds: [[UInt8]] = []) -> [UInt8] {
            var seed = nonceSeed.bytes
            defer { wipe(&seed) }
            return transcript.witnessBytes(label: label, count: count, nonceSeeds: [seed] + extraSeeds)
        }

        /// Clears the cofactor from a clamped Ed25519 scalar: a right shift by 3 across the 32 little-endian bytes.
        static func divideByCofactor(_ scalar: inout [UInt8]) {
            var carry: UInt8 = 0
            for index in stride(from: 31, through: 0, by: -1) {
                let remainder = scalar[index] & 0b111
                scalar[index] = (scalar[index] >> 3) + carry
                carry = remainder << 5
            }
        }

        public var description: String {
            "Sr25519.Keypair(publicKey: \(Hex.encode(publicKey.rawRepresentation)), secretKey: <redacted>)"
        }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
    }

    /// A 32-byte chain code, the index of one derivation step.
    public struct ChainCode: Hashable, Sendable, CustomStringConvertible {
        public let bytes: [UInt8]

        public init(_ bytes: some Collection<UInt8>) throws(CryptoError) {
            guard bytes.count == chainCodeByteCount else {
                throw CryptoError(.invalidInput, "sr25519 chain code must be 32 bytes, got \(bytes.count)")
            }
            self.bytes = Array(bytes)
        }

        init(trusted bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Substrate's chain code of a junction written as text (`DeriveJunction::from`): a string of ASCII
        /// digits whose value fits 64 bits is the SCALE u64 (8 bytes, little-endian); anything else is the SCALE
        /// string (compact length, then UTF-8). The encoding is zero-padded to 32 bytes, or replaced by its
        /// BLAKE2b-256 when longer than 32.
        public init(junction name: String) {
            var encoding = SCALEWriter(capacity: name.utf8.count + 4)
            if !name.isEmpty, name.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = UInt64(name) {
                encoding.u64(number)
            } else {
                encoding.string(name)
            }
            self.init(encodedJunction: encoding.bytes)
        }

        /// The chain code of an already SCALE-encoded junction value (padded, or hashed when over 32 bytes).
        public init(encodedJunction encoding: [UInt8]) {
            if encoding.count > chainCodeByteCount {
                bytes = BLAKE2b.hash256(encoding)
            } else {
                bytes = encoding + [UInt8](repeating: 0, count: chainCodeByteCount - encoding.count)
            }
        }

        public var description: String { Hex.encode(bytes) }
    }

    /// One step of a derivation path: a chain code, hard (`//name`, needs the secret key) or soft (`/name`).
    public struct Junction: Hashable, Sendable, CustomStringConvertible {
        public let chainCode: ChainCode
        public let isHard: Bool

        public init(chainCode: ChainCode, isHard: Bool) {
            self.chainCode = chainCode
            self.isHard = isHard
        }

        /// `//name`.
        public static func hard(_ name: String) -> Junction { Junction(chainCode: ChainCode(junction: name), isHard: true) }
        /// `/name`.
        public static func soft(_ name: String) -> Junction { Junction(chainCode: ChainCode(junction: name), isHard: false) }

        public var description: String { (isHard ? "//0x" : "/0x") + Hex.encode(chainCode.bytes) }

        /// Longest derivation path accepted by `parsePath`, in UTF-8 bytes, and most junctions in one.
        public static let maximumPathByteCount = 4096
        public static let maximumJunctionCount = 256

        /// The junctions of a Substrate derivation path such as `//polkadot//0/1`: each junction is `/` (soft) or
        /// `//` (hard) followed by a non-empty name without `/`. The empty path has no junctions. A password
        /// (`///…`) is refused: a passphrase is passed separately, never inside a path.
        public static func parsePath(_ path: String) throws(CryptoError) -> [Junction] {
            let bytes = Array(path.utf8)
            guard bytes.count <= maximumPathByteCount else {
                throw CryptoError(.invalidInput, "derivation path is \(bytes.count) bytes long, more than \(maximumPathByteCount)")
            }
            var junctions: [Junction] = []
            var offset = 0
            while offset < bytes.count {
                guard bytes[offset] == UInt8(ascii: "/") else {
                    throw CryptoError(.invalidInput, "derivation path: expected '/' or '//' at byte \(offset)")
                }
                var nameStart = offset + 1
                let isHard = nameStart < bytes.count && bytes[nameStart] == UInt8(ascii: "/")
                if isHard { nameStart += 1 }
                if nameStart < bytes.count, bytes[nameStart] == UInt8(ascii: "/") {
                    throw CryptoError(.invalidInput,
                                      "derivation path: '///' at byte \(offset) starts a password, which a path may not carry (pass the passphrase separately)")
                }
                var nameEnd = nameStart
                while nameEnd < bytes.count, bytes[nameEnd] != UInt8(ascii: "/") { nameEnd += 1 }
                guard nameEnd > nameStart else {
                    throw CryptoError(.invalidInput, "derivation path: empty junction name at byte \(nameStart)")
                }
                guard junctions.count < maximumJunctionCount else {
                    throw CryptoError(.invalidInput, "derivation path has more than \(maximumJunctionCount) junctions")
                }
                // Slicing at ASCII '/' keeps every name valid UTF-8.
                let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
                junctions.append(Junction(chainCode: ChainCode(junction: name), isHard: isHard))
                offset = nameEnd
            }
            return junctions
        }
    }

    /// schnorrkel `signing_context(context).bytes(message)`.
    static func signingTranscript(context: some Collection<UInt8>, message: some Collection<UInt8>) -> MerlinTranscript {
        var transcript = MerlinTranscript(label: SchnorrkelLabel.signingContext)
        transcript.appendMessage(label: [UInt8](), context)
        transcript.appendMessage(label: SchnorrkelLabel.signBytes, message)
        return transcript
    }

    /// R and s of a schnorrkel signature, checked as `Signature::from_bytes` checks them.
    static func parseSignature(_ signature: some Collection<UInt8>) throws(CryptoError) -> ([UInt8], RistrettoScalar) {
        guard signature.count == signatureByteCount else {
            throw CryptoError(.invalidInput, "sr25519 signature must be 64 bytes, got \(signature.count)")
        }
        let bytes = Array(signature)
        guard bytes[63] & 0x80 != 0 else {
            throw CryptoError(.invalidInput,
                              "sr25519 signature lacks schnorrkel's marker (high bit of byte 63 clear): not an sr25519 signature")
        }
        var responseBytes = Array(bytes[32..<64])
        responseBytes[31] &= 0x7f
        guard let response = RistrettoScalar(canonical: responseBytes) else {
            throw CryptoError(.invalidInput, "sr25519 signature: s (bytes 32…63) is not reduced modulo ℓ")
        }
        return (Array(bytes[0..<32]), response)
    }
}

/// The labels schnorrkel feeds its transcripts, as bytes.
enum SchnorrkelLabel {
    static let signingContext = Array("SigningContext".utf8)
    static let signBytes = Array("sign-bytes".utf8)
    static let protocolName = Array("proto-name".utf8)
    static let schnorrSignature = Array("Schnorr-sig".utf8)
    static let signPublicKey = Array("sign:pk".utf8)
    static let signingWitness = Array("signing".utf8)
    static let signCommitment = Array("sign:R".utf8)
    static let signChallenge = Array("sign:c".utf8)
    static let derivation = Array("SchnorrRistrettoHDKD".utf8)
    static let chainCode = Array("chain-code".utf8)
    static let derivationPublicKey = Array("public-key".utf8)
    static let derivationSecretKey = Array("secret-key".utf8)
    static let derivationScalar = Array("HDKD-scalar".utf8)
    static let derivationChainCode = Array("HDKD-chaincode".utf8)
    static let derivationHard = Array("HDKD-hard".utf8)
    static let derivationNonce = Array("HDKD-nonce".utf8)
}
