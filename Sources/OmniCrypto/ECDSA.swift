import OmniCodec

/// ECDSA over P-256, P-384 and secp256k1 (keys and signing in `ECDSA_openssl.swift`).
///
/// Verification convention, the same for every curve and both signature formats:
/// - a signature that is not a well-formed encoding for the curve (wrong raw length, DER that is not strict
///   DER or has trailing bytes, r or s outside 1…n−1) makes `isValidSignature` **throw** `.invalidInput`;
/// - a well-formed signature that does not verify — or is high-S while `requireLowS` is set — makes it
///   **return false**.
public enum ECDSA {
    public enum Curve: String, CaseIterable, Sendable {
        case p256 = "P-256"
        case p384 = "P-384"
        case secp256k1

        /// Size of a scalar / field element in bytes (r and s each take this much in the raw format).
        public var byteCount: Int {
            switch self {
            case .p256, .secp256k1: 32
            case .p384: 48
            }
        }

        /// The digest conventionally paired with the curve (ES256, ES384, ES256K).
        public var defaultDigest: DigestAlgorithm {
            self == .p384 ? .sha384 : .sha256
        }

        /// The group order n, big-endian (SEC 2 / FIPS 186-4).
        var order: [UInt8] {
            switch self {
            case .p256:
                [0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                 0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51]
            case .p384:
                [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc7, 0x63, 0x4d, 0x81, 0xf4, 0x37, 0x2d, 0xdf,
                 0x58, 0x1a, 0x0d, 0xb2, 0x48, 0xb0, 0xa7, 0x7a, 0xec, 0xec, 0x19, 0x6a, 0xcc, 0xc5, 0x29, 0x73]
            case .secp256k1:
                [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
                 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41]
            }
        }

        /// The DER OBJECT IDENTIFIER of the named curve (RFC 5480 §2.1.1.1, SEC 2).
        var oidDER: [UInt8] {
            switch self {
            case .p256: [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]  // 1.2.840.10045.3.1.7
            case .p384: [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22]  // 1.3.132.0.34
            case .secp256k1: [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a]  // 1.3.132.0.10
            }
        }

        /// Whether `scalar` (big-endian, `byteCount` long) lies in 1…n−1.
        func isValidScalar(_ scalar: [UInt8]) -> Bool {
            scalar.count == byteCount && scalar.contains(where: { $0 != 0 }) && compareBigEndian(scalar, order) < 0
        }

        /// Whether `scalar` ≤ ⌊n/2⌋, i.e. 2·scalar < n (n is odd).
        func isLowHalf(_ scalar: [UInt8]) -> Bool {
            var doubled = [UInt8](repeating: 0, count: scalar.count)
            var carry = 0
            for index in stride(from: scalar.count - 1, through: 0, by: -1) {
                let value = Int(scalar[index]) * 2 + carry
                doubled[index] = UInt8(value & 0xff)
                carry = value >> 8
            }
            return carry == 0 && compareBigEndian(doubled, order) < 0
        }
    }

    /// `ecPublicKey` (1.2.840.10045.2.1), the SPKI algorithm of every EC key.
    static let ecPublicKeyOID: [UInt8] = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]

    /// How signature bytes are laid out.
    public enum SignatureFormat: Sendable {
        /// `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` in DER (X.509, App Attest, OpenSSL).
        case der
        /// IEEE P1363 / raw: r ‖ s, each left-padded to the curve size (64 or 96 bytes; JOSE, COSE, the IC).
        case raw
    }

    /// A parsed signature (r, s), each `curve.byteCount` bytes big-endian and in 1…n−1.
    public struct Signature: Hashable, Sendable {
        public let curve: Curve
        public let r: [UInt8]
        public let s: [UInt8]

        /// Parses `bytes` in `format`; throws `.invalidInput` on anything but a well-formed signature.
        public init(_ bytes: some Collection<UInt8>, format: SignatureFormat, curve: Curve) throws(CryptoError) {
            switch format {
            case .der: try self.init(derRepresentation: bytes, curve: curve)
            case .raw: try self.init(rawRepresentation: bytes, curve: curve)
            }
        }

        /// Parses r ‖ s (exactly 2 × `curve.byteCount` bytes).
        public init(rawRepresentation: some Collection<UInt8>, curve: Curve) throws(CryptoError) {
            let bytes = Array(rawRepresentation)
            guard bytes.count == 2 * curve.byteCount else {
                throw CryptoError(.invalidInput,
                                  "\(curve.rawValue) raw signature must be \(2 * curve.byteCount) bytes, got \(bytes.count)")
            }
            try self.init(r: Array(bytes.prefix(curve.byteCount)), s: Array(bytes.suffix(curve.byteCount)), curve: curve)
        }

        /// Parses a strict-DER `ECDSA-Sig-Value` with no trailing bytes.
        public init(derRepresentation: some Collection<UInt8>, curve: Curve) throws(CryptoError) {
            let (r, s) = try parsingDER("\(curve.rawValue) DER signature", .invalidInput) { () throws(CodecError) in
                var reader = try DERReader(Array(derRepresentation))
                var sequence = try reader.readConstructed(tag: 0x30)
                try reader.requireEnd()
                let r = try sequence.readUnsignedInteger()
                let s = try sequence.readUnsignedInteger()
                try sequence.requireEnd()
                return (r, s)
            }
            guard r.count <= curve.byteCount, s.count <= curve.byteCount else {
                throw CryptoError(.invalidInput, "\(curve.rawValue) DER signature: r or s is longer than the curve order")
            }
            try self.init(r: Self.leftPadded(r, curve.byteCount), s: Self.leftPadded(s, curve.byteCount), curve: curve)
        }

        private init(r: [UInt8], s: [UInt8], curve: Curve) throws(CryptoError) {
            guard curve.isValidScalar(r), curve.isValidScalar(s) else {
                throw CryptoError(.invalidInput, "\(curve.rawValue) signature: r and s must both lie in 1…n−1")
            }
            self.curve = curve
            self.r = r
            self.s = s
        }

        private static func leftPadded(_ magnitude: [UInt8], _ count: Int) -> [UInt8] {
            [UInt8](repeating: 0, count: count - magnitude.count) + magnitude
        }

        public var rawRepresentation: [UInt8] { r + s }
        public var derRepresentation: [UInt8] { DERWriter.sequence(DERWriter.unsignedInteger(r), DERWriter.unsignedInteger(s)) }

        public func representation(_ format: SignatureFormat) -> [UInt8] {
            format == .der ? derRepresentation : rawRepresentation
        }

        /// s ≤ n/2: the only form Bitcoin and the IC accept for secp256k1 (BIP 62, BIP 146).
        public var isLowS: Bool { curve.isLowHalf(s) }

        /// The equivalent signature (r, n − s) when s is high; `self` otherwise. Both verify under the same key.
        public var lowSNormalized: Signature {
            if isLowS { return self }
            // n − s lies in 1…n−1 because s does.
            return (try? Signature(r: r, s: subtractBigEndian(curve.order, s), curve: curve)) ?? self
        }
    }
}
