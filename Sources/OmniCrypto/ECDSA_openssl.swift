internal import COpenSSL
import OmniCodec
import Synchronization

/// Owns one OpenSSL `EVP_PKEY`. Keys are immutable after construction, so one object may sign or verify from
/// several threads at once (each operation makes its own `EVP_PKEY_CTX`).
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    init(adopting pointer: OpaquePointer) { self.pointer = pointer }
    /// EVP_PKEY_free clears private scalars before releasing them.
    deinit { EVP_PKEY_free(pointer) }
}

/// A public key's OpenSSL object, decoded on first use: many keys are only compared (an attestation's COSE key with
/// its certificate's key) and never verify anything, and decoding into an `EVP_PKEY` is one of OpenSSL 3's costliest
/// steps. The point was checked to be on its curve before this is made.
final class LazyPublicEVPKey: Sendable {
    private let subjectPublicKeyInfo: [UInt8]
    private let curve: ECDSA.Curve
    private let decoded = Mutex<EVPKey?>(nil)

    init(subjectPublicKeyInfo: [UInt8], curve: ECDSA.Curve) {
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
        self.curve = curve
    }

    func key() throws(CryptoError) -> EVPKey {
        try decoded.withLock { decoded throws(CryptoError) -> EVPKey in
            if let decoded { return decoded }
            clearOpenSSLErrors()
            guard let pkey = decodeDER(subjectPublicKeyInfo, { d2i_PUBKEY(nil, $0, $1) }, free: { EVP_PKEY_free($0) }) else {
                throw CryptoError.openssl(.invalidKey, "OpenSSL refused the \(curve.rawValue) public key")
            }
            let key = EVPKey(adopting: pkey)
            decoded = key
            return key
        }
    }
}

extension ECDSA.Curve {
    var nid: Int32 {
        switch self {
        case .p256: NID_X9_62_prime256v1
        case .p384: NID_secp384r1
        case .secp256k1: NID_secp256k1
        }
    }

    /// The curve of an OpenSSL group name (OpenSSL 3 reports P-256 as "prime256v1" and P-384 as "secp384r1").
    init?(openSSLGroupName name: String) {
        switch name {
        case "prime256v1", "P-256", "secp256r1": self = .p256
        case "secp384r1", "P-384": self = .p384
        case "secp256k1": self = .secp256k1
        default: return nil
        }
    }

    /// Validates a SEC1 point (33-byte compressed or 65/97-byte uncompressed) and returns it uncompressed.
    /// OpenSSL checks that the point is on the curve; the point at infinity and hybrid forms are refused.
    func uncompressedPoint(_ point: [UInt8]) throws(CryptoError) -> [UInt8] {
        let compressedLength = 1 + byteCount, uncompressedLength = 1 + 2 * byteCount
        switch (point.count, point.first) {
        case (compressedLength, 0x02), (compressedLength, 0x03), (uncompressedLength, 0x04): break
        default:
            throw CryptoError(.invalidKey,
                              "\(rawValue) public key must be a \(compressedLength)-byte compressed (02/03) or \(uncompressedLength)-byte uncompressed (04) SEC1 point, got \(point.count) bytes"
                                  + (point.first.map { " starting 0x\(Hex.encode([$0]))" } ?? ""))
        }
        clearOpenSSLErrors()
        guard let group = EC_GROUP_new_by_curve_name(nid) else { throw CryptoError.openssl(.library, "\(rawValue) group setup failed") }
        defer { EC_GROUP_free(group) }
        guard let ecPoint = EC_POINT_new(group) else { throw CryptoError.openssl(.library, "EC point allocation failed") }
        defer { EC_POINT_free(ecPoint) }
        guard EC_POINT_oct2point(group, ecPoint, point, point.count, nil) == 1 else {
            throw CryptoError.openssl(.invalidKey, "\(rawValue) public key is not a point on the curve")
        }
        var out = [UInt8](repeating: 0, count: uncompressedLength)
        guard EC_POINT_point2oct(group, ecPoint, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, nil) == uncompressedLength else {
            throw CryptoError.openssl(.library, "\(rawValue) point encoding failed")
        }
        return out
    }

    /// The curve whose OBJECT IDENTIFIER has this DER (tag and length included).
    init?(oidDER: [UInt8]) {
        guard let curve = Self.allCases.first(where: { $0.oidDER == oidDER }) else { return nil }
        self = curve
    }

    /// How an error names a curve omni does not support: OpenSSL's short name when OpenSSL knows the OID
    /// (`secp521r1`), else the OID in dotted form, else its bytes.
    static func name(ofUnsupported oidDER: [UInt8]) -> String {
        let bytesName = "with OID bytes \(Hex.encode(oidDER.dropFirst(2)))"
        guard let object = decodeDER(oidDER, { d2i_ASN1_OBJECT(nil, $0, $1) }, free: { ASN1_OBJECT_free($0) }) else {
            clearOpenSSLErrors()
            return bytesName
        }
        defer { ASN1_OBJECT_free(object) }
        let nid = OBJ_obj2nid(object)
        if nid != NID_undef, let shortName = OBJ_nid2sn(nid) { return String(cString: shortName) }
        var text = [CChar](repeating: 0, count: 128)
        let written = OBJ_obj2txt(&text, Int32(text.count), object, 1)
        return written > 0 && Int(written) < text.count ? String(cString: text) : bytesName
    }

    /// The curve named by an EC key's parameters (RFC 5480 §2.1.1: a named curve; explicit and implicitCA parameters
    /// are refused).
    fileprivate init(parameters: ECParameters, what: String) throws(CryptoError) {
        switch parameters {
        case .explicit:
            throw CryptoError(.invalidKey, "\(what) does not name its curve: explicit and implicit parameters are not supported")
        case .named(let oid):
            guard let curve = Self(oidDER: oid) else {
                throw CryptoError(.invalidKey, "\(what): unsupported EC curve \(Self.name(ofUnsupported: oid)); P-256, P-384 and secp256k1 are supported")
            }
            self = curve
        }
    }

    /// d·G, uncompressed, for a scalar already checked to be in 1…n−1 (OpenSSL multiplies the generator in
    /// constant time whatever the scalar's flags).
    func publicPoint(forValidScalar scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        clearOpenSSLErrors()
        guard let group = EC_GROUP_new_by_curve_name(nid) else { throw CryptoError.openssl(.library, "\(rawValue) group setup failed") }
        defer { EC_GROUP_free(group) }
        guard let bignum = BN_bin2bn(scalar, Int32(scalar.count), nil) else { throw CryptoError.openssl(.library, "bignum allocation failed") }
        defer { BN_clear_free(bignum) }
        guard let point = EC_POINT_new(group) else { throw CryptoError.openssl(.library, "EC point allocation failed") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, bignum, nil, nil, nil) == 1 else { throw CryptoError.openssl(.library, "\(rawValue) point multiplication failed") }
        var out = [UInt8](repeating: 0, count: 1 + 2 * byteCount)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, nil) == out.count else {
            throw CryptoError.openssl(.library, "\(rawValue) point encoding failed")
        }
        return out
    }

    /// An OpenSSL key pair from its parts (EVP_PKEY_fromdata: no decoder involved). The caller owns the result.
    func privateEVPKey(validScalar scalar: [UInt8], derivedPoint point: [UInt8]) throws(CryptoError) -> OpaquePointer {
        clearOpenSSLErrors()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError.openssl(.library, "EC key import setup failed") }
        defer { EVP_PKEY_CTX_free(context) }
        // OSSL_PARAM_construct_BN reads the number in the machine's byte order.
        var nativeScalar = 1.littleEndian == 1 ? Array(scalar.reversed()) : scalar
        defer { wipe(&nativeScalar) }
        var point = point
        var pkey: OpaquePointer?
        // OSSL_PARAM keeps its key and value pointers, so each must outlive the call (no temporaries).
        let status = "group".withCString { groupKey in "priv".withCString { privateKey in "pub".withCString { publicKey in
            rawValue.withCString { group in
                nativeScalar.withUnsafeMutableBufferPointer { scalar in
                    point.withUnsafeMutableBufferPointer { point in
                        var parameters = [OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: group), 0),
                                          OSSL_PARAM_construct_BN(privateKey, scalar.baseAddress, scalar.count),
                                          OSSL_PARAM_construct_octet_string(publicKey, point.baseAddress, point.count),
                                          OSSL_PARAM_construct_end()]
                        guard EVP_PKEY_fromdata_init(context) == 1 else { return Int32(0) }
                        // EVP_PKEY_KEYPAIR, a composite macro Swift does not import.
                        let keyPair = OSSL_KEYMGMT_SELECT_PRIVATE_KEY | OSSL_KEYMGMT_SELECT_PUBLIC_KEY
                            | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS
                        return EVP_PKEY_fromdata(context, &pkey, Int32(keyPair), &parameters)
                    }
                }
            }
        } } }
        guard status == 1, let pkey else { throw CryptoError.openssl(.library, "OpenSSL refused the \(rawValue) key pair") }
        return pkey
    }

    /// DER SubjectPublicKeyInfo for an uncompressed point (RFC 5480).
    func subjectPublicKeyInfo(uncompressedPoint point: [UInt8]) -> [UInt8] {
        DERWriter.sequence(DERWriter.sequence(ECDSA.ecPublicKeyOID, oidDER), DERWriter.element(tag: 0x03, [0] + point))
    }
}

extension ECDSA {
    /// An ECDSA verification key. Equality and hashing compare the curve and the point.
    public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
        public let curve: Curve
        /// SEC1 uncompressed point 04 ‖ X ‖ Y (65 bytes for P-256/secp256k1, 97 for P-384).
        public let uncompressedRepresentation: [UInt8]
        private let key: LazyPublicEVPKey

        /// The public key of a private key: `point` is d·G as OpenSSL computed it, so it is on the curve.
        fileprivate init(derivedPoint point: [UInt8], curve: Curve) {
            self.curve = curve
            uncompressedRepresentation = point
            key = LazyPublicEVPKey(subjectPublicKeyInfo: curve.subjectPublicKeyInfo(uncompressedPoint: point), curve: curve)
        }

        /// From a SEC1 point, compressed (33/49 bytes) or uncompressed (65/97 bytes); it must lie on `curve`.
        public init(pointRepresentation point: some Collection<UInt8>, curve: Curve) throws(CryptoError) {
            let uncompressed = try curve.uncompressedPoint(Array(point))
            self.curve = curve
            uncompressedRepresentation = uncompressed
            key = LazyPublicEVPKey(subjectPublicKeyInfo: curve.subjectPublicKeyInfo(uncompressedPoint: uncompressed), curve: curve)
        }

        /// From a DER SubjectPublicKeyInfo (RFC 5480: id-ecPublicKey with a named curve; the point may be
        /// compressed). Strict DER, no trailing bytes; the curve comes from the encoding.
        public init(derRepresentation der: some Collection<UInt8>) throws(CryptoError) {
            let what = "EC SubjectPublicKeyInfo"
            // Read in two steps so that a key of another algorithm is named as such before its parameters are read.
            let outer = try parsingDER(what, .invalidKey) { () throws(CodecError) in
                var reader = try DERReader(Array(der))
                var info = try reader.readConstructed(tag: 0x30)
                try reader.requireEnd()
                var algorithm = try info.readConstructed(tag: 0x30)
                let oid = try algorithm.read(tag: 0x06)
                return (info: info, algorithm: algorithm, oid: oid)
            }
            guard DERWriter.element(tag: 0x06, outer.oid) == ECDSA.ecPublicKeyOID else {
                throw CryptoError(.invalidKey, "SubjectPublicKeyInfo is not an EC key (algorithm OID bytes \(Hex.encode(outer.oid)))")
            }
            var info = outer.info, algorithm = outer.algorithm
            let (curveOID, bitString) = try parsingDER(what, .invalidKey) { () throws(CodecError) in
                let curveOID = DERWriter.element(tag: 0x06, try algorithm.read(tag: 0x06))
                try algorithm.requireEnd()
                let bitString = try info.read(tag: 0x03)
                try info.requireEnd()
                return (curveOID, bitString)
            }
            guard let curve = Curve(oidDER: curveOID) else {
                throw CryptoError(.invalidKey, "unsupported EC curve \(Curve.name(ofUnsupported: curveOID)); P-256, P-384 and secp256k1 are supported")
            }
            guard bitString.first == 0 else { throw CryptoError(.invalidKey, "EC public key BIT STRING has unused bits") }
            try self.init(pointRepresentation: bitString.dropFirst(), curve: curve)
        }

        /// From a `-----BEGIN PUBLIC KEY-----` PEM block.
        public init(pemRepresentation: String) throws(CryptoError) {
            let block = try singlePEMBlock(pemRepresentation, labels: ["PUBLIC KEY"], what: "EC public key", kind: .invalidKey)
            try self.init(derRepresentation: block.der)
        }

        /// SEC1 compressed point 02/03 ‖ X.
        public var compressedRepresentation: [UInt8] {
            let x = uncompressedRepresentation[1...curve.byteCount]
            let yIsOdd = (uncompressedRepresentation.last ?? 0) & 1 == 1
            return [yIsOdd ? 0x03 : 0x02] + x
        }

        /// DER SubjectPublicKeyInfo with the uncompressed point (what the IC and X.509 use).
        public var derRepresentation: [UInt8] { curve.subjectPublicKeyInfo(uncompressedPoint: uncompressedRepresentation) }

        public var pemRepresentation: String { PEM.encode(label: "PUBLIC KEY", der: derRepresentation) }

        /// Verifies `signature` over `message` hashed with `hash` (default: the curve's usual digest).
        /// Throws for a malformed signature; returns false for a wrong one (see `ECDSA`).
        public func isValidSignature(
            _ signature: some Collection<UInt8>, for message: some Collection<UInt8>, hashedWith hash: DigestAlgorithm? = nil,
            format: SignatureFormat = .der, requireLowS: Bool = false
        ) throws(CryptoError) -> Bool {
            try isValidSignature(signature, forDigest: (hash ?? curve.defaultDigest).hash(message), format: format,
                                 requireLowS: requireLowS)
        }

        /// Verifies `signature` over a precomputed digest (1…64 bytes, used as ECDSA's e after truncation to
        /// the order's bit length, per SEC1).
        public func isValidSignature(
            _ signature: some Collection<UInt8>, forDigest digest: some Collection<UInt8>, format: SignatureFormat = .der,
            requireLowS: Bool = false
        ) throws(CryptoError) -> Bool {
            let parsed = try Signature(signature, format: format, curve: curve)
            let digest = try checkedDigest(digest)
            if requireLowS && !parsed.isLowS { return false }
            let der = parsed.derRepresentation
            let key = try self.key.key()
            clearOpenSSLErrors()
            guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw CryptoError.openssl(.library, "EVP_PKEY_CTX_new failed") }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_verify_init(context) == 1 else { throw CryptoError.openssl(.library, "EVP_PKEY_verify_init failed") }
            let status = EVP_PKEY_verify(context, der, der.count, digest, digest.count)
            // 0 is "does not verify"; OpenSSL also queues a reason for it, which is not an error here.
            clearOpenSSLErrors()
            return status == 1
        }

        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.curve == rhs.curve && lhs.uncompressedRepresentation == rhs.uncompressedRepresentation
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(curve)
            hasher.combine(uncompressedRepresentation)
        }

        public var description: String { "ECDSA.PublicKey(\(curve.rawValue), \(Hex.encode(compressedRepresentation)))" }
    }

    /// An ECDSA signing key held by OpenSSL (which clears the scalar on release). Never printed.
    public struct PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        public let curve: Curve
        public let publicKey: PublicKey
        private let key: EVPKey

        /// A fresh random key on `curve`.
        public init(curve: Curve) throws(CryptoError) {
            clearOpenSSLErrors()
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
                throw CryptoError.openssl(.library, "EC key generation setup failed")
            }
            defer { EVP_PKEY_CTX_free(context) }
            var generated: OpaquePointer?
            guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, curve.rawValue) == 1,
                  EVP_PKEY_generate(context, &generated) == 1, let pkey = generated
            else { throw CryptoError.openssl(.library, "\(curve.rawValue) key generation failed") }
            try self.init(adopting: pkey, expectedCurve: curve)
        }

        /// From the private scalar d, big-endian, exactly `curve.byteCount` bytes and in 1…n−1.
        public init(rawRepresentation scalar: some Collection<UInt8>, curve: Curve) throws(CryptoError) {
            var scalar = Array(scalar)
            defer { wipe(&scalar) }
            guard curve.isValidScalar(scalar) else {
                throw CryptoError(.invalidKey, "\(curve.rawValue) private key must be \(curve.byteCount) big-endian bytes in 1…n−1")
            }
            try self.init(validScalar: scalar, curve: curve, embeddedPoints: [], what: "\(curve.rawValue) private key")
        }

        // SEC1 and PKCS#8 are read here, not by OpenSSL: OpenSSL 3.0's d2i_PrivateKey builds a decoder context over
        // every provider on each call (three quarters of the der-keys fuzz target's time), and this reader names
        // the byte offset of what is wrong.

        /// From DER SEC1 `ECPrivateKey` (RFC 5915), the body of `-----BEGIN EC PRIVATE KEY-----`. Its parameters
        /// must name the curve; an embedded public key must be d·G.
        public init(sec1DERRepresentation der: some Collection<UInt8>) throws(CryptoError) {
            var bytes = Array(der)
            defer { wipe(&bytes) }
            let what = "SEC1 EC private key"
            // The readers live only inside the closure, so no copy of the secret outlives the wipe above.
            var key = try parsingDER(what, .invalidKey) { () throws(CodecError) in
                var outer = try DERReader(bytes)
                var key = try ECPrivateKeyFields.read(&outer)
                do throws(CodecError) { try outer.requireEnd() } catch { key.wipe(); throw error }
                return key
            }
            defer { key.wipe() }
            guard let parameters = key.parameters else {
                throw CryptoError(.invalidKey, "\(what) has no parameters naming its curve")
            }
            try self.init(fields: key, curve: try Curve(parameters: parameters, what: what), outerPublicKey: nil, what: what)
        }

        /// From DER PKCS#8 `PrivateKeyInfo` (RFC 5208, or RFC 5958 version 1 with the public key) holding an EC
        /// key, the body of `-----BEGIN PRIVATE KEY-----`. Every public key it carries must be d·G.
        public init(pkcs8DERRepresentation der: some Collection<UInt8>) throws(CryptoError) {
            var bytes = Array(der)
            defer { wipe(&bytes) }
            let what = "PKCS#8 EC private key"
            var info = try parsingDER(what, .invalidKey) { () throws(CodecError) in
                var outer = try DERReader(bytes)
                var info = try outer.readConstructed(tag: 0x30)
                try outer.requireEnd()
                let version = try info.readUnsignedInteger()
                var algorithm = try info.readConstructed(tag: 0x30)
                let algorithmOID = DERWriter.element(tag: 0x06, try algorithm.read(tag: 0x06))
                let parameters = algorithm.isAtEnd ? nil : try algorithm.readElement()
                try algorithm.requireEnd()
                // The privateKey OCTET STRING holds the DER of an ECPrivateKey.
                var privateKey = try info.readConstructed(tag: 0x04)
                var key = try ECPrivateKeyFields.read(&privateKey)
                var publicKeyBits: [UInt8]?
                do throws(CodecError) {
                    try privateKey.requireEnd()
                    publicKeyBits = try PKCS8.readPublicKeyTrailer(&info)
                } catch {
                    key.wipe()
                    throw error
                }
                return (version: version, algorithmOID: algorithmOID, parameters: parameters.map(ECParameters.init), key: key,
                        publicKeyBits: publicKeyBits)
            }
            defer { info.key.wipe() }
            guard info.version == [] || info.version == [1] else {
                throw CryptoError(.invalidKey, "unsupported PKCS#8 version \(Hex.encode(info.version)) of an EC key")
            }
            guard info.algorithmOID == ECDSA.ecPublicKeyOID else {
                throw CryptoError(.invalidKey, "PKCS#8 key is not an EC key (algorithm OID bytes \(Hex.encode(info.algorithmOID)))")
            }
            guard let parameters = info.parameters else {
                throw CryptoError(.invalidKey, "\(what) has no parameters naming its curve")
            }
            let curve = try Curve(parameters: parameters, what: what)
            if let inner = info.key.parameters, try Curve(parameters: inner, what: what) != curve {
                throw CryptoError(.invalidKey, "\(what): the ECPrivateKey names another curve than the algorithm (\(curve.rawValue))")
            }
            try self.init(fields: info.key, curve: curve, outerPublicKey: info.publicKeyBits, what: what)
        }

        /// Checks a decoded ECPrivateKey's version, scalar and public keys on `curve`.
        private init(fields: ECPrivateKeyFields, curve: Curve, outerPublicKey: [UInt8]?, what: String) throws(CryptoError) {
            guard fields.version == [1] else {
                throw CryptoError(.invalidKey, "\(what): unsupported ECPrivateKey version \(Hex.encode(fields.version)) (1 is defined)")
            }
            // RFC 5915 fixes the length at the curve's size; OpenSSL before 1.1 dropped leading zero bytes.
            guard (1...curve.byteCount).contains(fields.scalar.count) else {
                throw CryptoError(.invalidKey, "\(what): a \(curve.rawValue) private key has \(curve.byteCount) bytes, not \(fields.scalar.count)")
            }
            var scalar = [UInt8](repeating: 0, count: curve.byteCount - fields.scalar.count) + fields.scalar
            defer { wipe(&scalar) }
            guard curve.isValidScalar(scalar) else {
                throw CryptoError(.invalidKey, "\(what): the \(curve.rawValue) private key is not in 1…n−1")
            }
            var points: [[UInt8]] = []
            for bits in [fields.publicKeyBits, outerPublicKey].compactMap({ $0 }) {
                guard bits.first == 0 else { throw CryptoError(.invalidKey, "\(what): the public key BIT STRING does not start with 0 unused bits") }
                points.append(Array(bits.dropFirst()))
            }
            try self.init(validScalar: scalar, curve: curve, embeddedPoints: points, what: what)
        }

        /// SEC1 and PKCS#8 may carry the public point beside the scalar, and OpenSSL takes it as written: a file
        /// whose point is not d·G would sign with one key while naming another (found by fuzzing `pem-keys`). The
        /// point is derived from the scalar and each embedded one must equal it.
        private init(validScalar scalar: [UInt8], curve: Curve, embeddedPoints: [[UInt8]], what: String) throws(CryptoError) {
            let derived = try curve.publicPoint(forValidScalar: scalar)
            for point in embeddedPoints {
                guard try curve.uncompressedPoint(point) == derived else {
                    throw CryptoError(.invalidKey, "\(what): the embedded public key does not match the private key")
                }
            }
            self.curve = curve
            key = EVPKey(adopting: try curve.privateEVPKey(validScalar: scalar, derivedPoint: derived))
            publicKey = PublicKey(derivedPoint: derived, curve: curve)
        }

        /// From PEM: `EC PRIVATE KEY` (SEC1, what dfx writes for secp256k1; a preceding `EC PARAMETERS` block is
        /// ignored) or `PRIVATE KEY` (PKCS#8). Encrypted keys are refused.
        public init(pemRepresentation: String) throws(CryptoError) {
            var block = try singlePEMBlock(pemRepresentation, labels: ["EC PRIVATE KEY", "PRIVATE KEY"], what: "EC private key",
                                           kind: .invalidKey)
            defer { wipe(&block.der) }
            if block.label == "EC PRIVATE KEY" {
                try self.init(sec1DERRepresentation: block.der)
            } else {
                try self.init(pkcs8DERRepresentation: block.der)
            }
        }

        /// Takes ownership of `pkey` (freed on any failure) after checking it is an EC key on a supported curve.
        private init(adopting pkey: OpaquePointer, expectedCurve: Curve?) throws(CryptoError) {
            let key = EVPKey(adopting: pkey)
            guard EVP_PKEY_is_a(pkey, "EC") == 1 else {
                throw CryptoError(.invalidKey, "private key is not an EC key")
            }
            var name = [CChar](repeating: 0, count: 64)
            var nameLength = 0
            guard EVP_PKEY_get_group_name(pkey, &name, name.count, &nameLength) == 1 else {
                throw CryptoError.openssl(.invalidKey, "EC private key has no named curve (explicit parameters are not supported)")
            }
            let groupName = String(cString: name)
            guard let curve = Curve(openSSLGroupName: groupName) else {
                throw CryptoError(.invalidKey, "unsupported EC curve \(groupName); P-256, P-384 and secp256k1 are supported")
            }
            if let expectedCurve, expectedCurve != curve {
                throw CryptoError(.invalidKey, "expected a \(expectedCurve.rawValue) key, got \(curve.rawValue)")
            }
            var point = [UInt8](repeating: 0, count: 1 + 2 * curve.byteCount)
            var pointLength = 0
            guard EVP_PKEY_get_octet_string_param(pkey, "encoded-pub-key", &point, point.count, &pointLength) == 1 else {
                throw CryptoError.openssl(.invalidKey, "EC private key has no public key")
            }
            self.curve = curve
            self.key = key
            publicKey = try PublicKey(pointRepresentation: point.prefix(pointLength), curve: curve)
        }

        /// The private scalar d, big-endian, `curve.byteCount` bytes. This exports the secret.
        /// (The exports below cannot fail for a key that passed `init`; an empty result would mean OpenSSL ran
        /// out of memory.)
        public var rawRepresentation: [UInt8] {
            var bignum: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key.pointer, "priv", &bignum) == 1, let bignum else {
                clearOpenSSLErrors()
                return []
            }
            defer { BN_clear_free(bignum) }
            var out = [UInt8](repeating: 0, count: curve.byteCount)
            return BN_bn2binpad(bignum, &out, Int32(out.count)) == out.count ? out : []
        }

        /// DER PKCS#8 `PrivateKeyInfo`. Contains the secret.
        public var pkcs8DERRepresentation: [UInt8] {
            guard let info = EVP_PKEY2PKCS8(key.pointer) else { clearOpenSSLErrors(); return [] }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            return encodeDER { i2d_PKCS8_PRIV_KEY_INFO(info, $0) } ?? []
        }

        /// DER SEC1 `ECPrivateKey` with curve parameters and public key. Contains the secret.
        public var sec1DERRepresentation: [UInt8] {
            encodeDER { i2d_PrivateKey(key.pointer, $0) } ?? []
        }

        /// `-----BEGIN PRIVATE KEY-----` (PKCS#8). Contains the secret.
        public var pemRepresentation: String {
            var der = pkcs8DERRepresentation
            defer { wipe(&der) }
            return PEM.encode(label: "PRIVATE KEY", der: der)
        }

        /// `-----BEGIN EC PRIVATE KEY-----` (SEC1), the form dfx writes for secp256k1 identities. Contains the secret.
        public var sec1PEMRepresentation: String {
            var der = sec1DERRepresentation
            defer { wipe(&der) }
            return PEM.encode(label: "EC PRIVATE KEY", der: der)
        }

        /// Signs `message` hashed with `hash` (default: the curve's usual digest). OpenSSL 3.0 uses a random
        /// nonce, so signatures differ from call to call. With `lowS`, s is replaced by n − s when high.
        public func signature(
            for message: some Collection<UInt8>, hashedWith hash: DigestAlgorithm? = nil, format: SignatureFormat = .der,
            lowS: Bool = false
        ) throws(CryptoError) -> [UInt8] {
            try signature(forDigest: (hash ?? curve.defaultDigest).hash(message), format: format, lowS: lowS)
        }

        /// Signs a precomputed digest (1…64 bytes).
        public func signature(
            forDigest digest: some Collection<UInt8>, format: SignatureFormat = .der, lowS: Bool = false
        ) throws(CryptoError) -> [UInt8] {
            let digest = try checkedDigest(digest)
            clearOpenSSLErrors()
            guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw CryptoError.openssl(.library, "EVP_PKEY_CTX_new failed") }
            defer { EVP_PKEY_CTX_free(context) }
            var length = 0
            guard EVP_PKEY_sign_init(context) == 1, EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1 else {
                throw CryptoError.openssl(.library, "\(curve.rawValue) signing setup failed")
            }
            var der = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_sign(context, &der, &length, digest, digest.count) == 1 else {
                throw CryptoError.openssl(.library, "\(curve.rawValue) signing failed")
            }
            var parsed = try Signature(derRepresentation: der.prefix(length), curve: curve)
            if lowS { parsed = parsed.lowSNormalized }
            return parsed.representation(format)
        }

        public var description: String { "ECDSA.PrivateKey(\(curve.rawValue), publicKey: \(Hex.encode(publicKey.compressedRepresentation)), scalar: <redacted>)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["curve": curve, "publicKey": publicKey]) }
    }
}

private func checkedDigest(_ digest: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
    guard (1...64).contains(digest.count) else {
        throw CryptoError(.invalidInput, "ECDSA digest must be 1…64 bytes, got \(digest.count)")
    }
    return Array(digest)
}

/// `ECParameters` (RFC 5480 §2.1.1) as far as omni reads them: a named curve's OID, or anything else.
fileprivate enum ECParameters {
    /// The DER of the OBJECT IDENTIFIER, tag and length included.
    case named([UInt8])
    case explicit

    init(_ element: DERElement) {
        self = element.tag == 0x06 ? .named(DERWriter.element(tag: 0x06, element.content)) : .explicit
    }
}

/// The fields of SEC1 `ECPrivateKey ::= SEQUENCE { version INTEGER, privateKey OCTET STRING, parameters [0]
/// ECParameters OPTIONAL, publicKey [1] BIT STRING OPTIONAL }` (RFC 5915 §3), not yet checked.
fileprivate struct ECPrivateKeyFields {
    var version: [UInt8]
    var scalar: [UInt8]
    var parameters: ECParameters?
    /// The BIT STRING's content: the unused-bits byte, then the SEC1 point.
    var publicKeyBits: [UInt8]?

    /// Reads one ECPrivateKey. When its encoding is malformed after the scalar, the scalar is wiped first.
    static func read(_ reader: inout DERReader) throws(CodecError) -> ECPrivateKeyFields {
        var sequence = try reader.readConstructed(tag: 0x30)
        let version = try sequence.readUnsignedInteger()
        var fields = ECPrivateKeyFields(version: version, scalar: try sequence.read(tag: 0x04))
        do throws(CodecError) {
            if sequence.nextTag == 0xa0 {
                var wrapper = try sequence.readConstructed(tag: 0xa0)
                fields.parameters = ECParameters(try wrapper.readElement())
                try wrapper.requireEnd()
            }
            if sequence.nextTag == 0xa1 {
                var wrapper = try sequence.readConstructed(tag: 0xa1)
                fields.publicKeyBits = try wrapper.read(tag: 0x03)
                try wrapper.requireEnd()
            }
            try sequence.requireEnd()
        } catch {
            fields.wipe()
            throw error
        }
        return fields
    }

    mutating func wipe() { OmniCrypto.wipe(&scalar) }
}
