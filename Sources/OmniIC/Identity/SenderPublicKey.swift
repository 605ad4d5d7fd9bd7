import OmniBLS
import OmniCandid
import OmniCodec
import OmniCrypto

/// A sender (or delegation) public key, classified by its DER SubjectPublicKeyInfo as the interface spec's
/// § Signatures lists them.
public enum SenderPublicKey: Sendable, Equatable {
    /// Ed25519 (OID 1.3.101.112), 44-byte DER.
    case ed25519(Ed25519.PublicKey)
    /// ECDSA on P-256 (id-ecPublicKey, prime256v1) or secp256k1 (1.3.132.0.10) with an uncompressed 65-byte
    /// point; signatures are r ‖ s (64 bytes) over SHA-256.
    case ecdsa(ECDSA.PublicKey)
    /// A canister signature key (OID 1.3.6.1.4.1.56387.1.2): the signing canister and a seed.
    case canisterSignature(canister: Principal, seed: [UInt8])

    /// SPKI prefixes of the fixed-length keys (everything before the key bytes).
    static let ed25519Prefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]
    static let p256Prefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48,
        0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]
    static let secp256k1Prefix: [UInt8] = [
        0x30, 0x56, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04,
        0x00, 0x0a, 0x03, 0x42, 0x00,
    ]
    /// `SEQUENCE { OID 1.3.6.1.4.1.56387.1.2 }`: the AlgorithmIdentifier of canister signature keys.
    static let canisterSignatureAlgorithm: [UInt8] = [
        0x30, 0x0c, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xb8, 0x43, 0x01, 0x02,
    ]
    /// `SEQUENCE { OID 1.3.6.1.4.1.56387.1.1 }`: WebAuthn (COSE) keys, recognised but not supported.
    static let webAuthnAlgorithm: [UInt8] = [
        0x30, 0x0c, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xb8, 0x43, 0x01, 0x01,
    ]

    /// Classifies a DER public key; throws `.malformed` for bytes that are not a supported SPKI and
    /// `.unsupported` for a WebAuthn key.
    public init(der: [UInt8]) throws(ICError) {
        if der.count == SenderPublicKey.ed25519Prefix.count + 32, der.starts(with: SenderPublicKey.ed25519Prefix) {
            do { self = .ed25519(try Ed25519.PublicKey(derRepresentation: der)) } catch { throw ICError.crypto(error, "Ed25519 public key") }
            return
        }
        let isP256 = der.count == SenderPublicKey.p256Prefix.count + 65 && der.starts(with: SenderPublicKey.p256Prefix)
        let isSecp256k1 = der.count == SenderPublicKey.secp256k1Prefix.count + 65
            && der.starts(with: SenderPublicKey.secp256k1Prefix)
        if isP256 || isSecp256k1 {
            do { self = .ecdsa(try ECDSA.PublicKey(derRepresentation: der)) } catch { throw ICError.crypto(error, "ECDSA public key") }
            return
        }
        let algorithm: [UInt8], bitString: [UInt8]
        do throws(CodecError) {
            var reader = try DERReader(der)
            var info = try reader.readConstructed(tag: 0x30)
            try reader.requireEnd()
            algorithm = try info.read(tag: 0x30)
            bitString = try info.read(tag: 0x03)
            try info.requireEnd()
        } catch {
            throw ICError.codec(error, "public key is not a DER SubjectPublicKeyInfo (\(der.count) bytes)")
        }
        let algorithmDER = DERWriter.element(tag: 0x30, algorithm)
        if algorithmDER == SenderPublicKey.canisterSignatureAlgorithm {
            guard bitString.first == 0, bitString.count >= 2 else {
                throw ICError.malformed("canister signature key: BIT STRING has unused bits or no content")
            }
            let raw = Array(bitString.dropFirst())
            let idLength = Int(raw[0])
            guard idLength <= Principal.maxByteCount, raw.count >= 1 + idLength else {
                throw ICError.malformed("canister signature key: canister id length \(idLength) does not fit the key")
            }
            let canister = try Principal.fromBytes(Array(raw[1..<(1 + idLength)]), what: "canister id")
            self = .canisterSignature(canister: canister, seed: Array(raw[(1 + idLength)...]))
            return
        }
        if algorithmDER == SenderPublicKey.webAuthnAlgorithm {
            throw ICError(.unsupported, "WebAuthn public keys are not supported")
        }
        throw ICError(.unsupported, "public key algorithm \(Hex.encode(algorithm.prefix(32))) is not supported")
    }

    /// The DER of a canister signature key for `canister` and `seed`.
    public static func canisterSignatureDER(canister: Principal, seed: [UInt8]) -> [UInt8] {
        let raw = [UInt8(canister.bytes.count)] + canister.bytes + seed
        let bitString = DERWriter.element(tag: 0x03, [0x00] + raw)
        return DERWriter.element(tag: 0x30, canisterSignatureAlgorithm + bitString)
    }

    /// A short name for messages: "Ed25519", "ECDSA P-256", "canister signature", ….
    public var algorithmName: String {
        switch self {
        case .ed25519: "Ed25519"
        case .ecdsa(let key): "ECDSA \(key.curve.rawValue)"
        case .canisterSignature: "canister signature"
        }
    }
}

/// The kind of a DER public key, in words scripts can match: the sender key algorithms plus BLS12-381 (IC root
/// and subnet keys).
public enum ICKeyAlgorithm: String, Sendable, CaseIterable {
    case ed25519
    case ecdsaP256 = "ecdsa_p256"
    case ecdsaSecp256k1 = "ecdsa_secp256k1"
    case canisterSignature = "canister_signature"
    case bls12_381

    /// The algorithm of `der`, or nil when omni does not recognise it.
    public init?(der: [UInt8]) {
        if der.count == BLS.icPublicKeyDERPrefix.count + BLS.publicKeyLength, der.starts(with: BLS.icPublicKeyDERPrefix) {
            self = .bls12_381
            return
        }
        switch try? SenderPublicKey(der: der) {
        case .ed25519?: self = .ed25519
        case .ecdsa(let key)?: self = key.curve == .p256 ? .ecdsaP256 : .ecdsaSecp256k1
        case .canisterSignature?: self = .canisterSignature
        case nil: return nil
        }
    }
}
