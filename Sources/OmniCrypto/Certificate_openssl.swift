internal import COpenSSL
import OmniCodec
internal import COmniShims

/// An X.509 certificate parsed by OpenSSL. All fields are read once at parse time; the certificate is an
/// immutable value (equality and hashing compare the DER).
public struct Certificate: Hashable, Sendable, CustomStringConvertible {
    /// Certificates larger than this are refused before parsing.
    public static let maximumDERByteCount = 1 << 20

    /// One extension: numeric OID, criticality, and the DER inside its `extnValue` OCTET STRING.
    public struct Extension: Hashable, Sendable {
        public let oid: String
        public let isCritical: Bool
        public let value: [UInt8]
    }

    /// The DER exactly as given.
    public let derRepresentation: [UInt8]
    /// Subject and issuer in RFC 4514 form (most specific RDN first, e.g. "CN=Leaf,O=Example,C=US"), as
    /// OpenSSL prints them; non-ASCII stays UTF-8.
    public let subject: String
    public let issuer: String
    /// The first commonName of the subject, if any.
    public let subjectCommonName: String?
    /// Serial number magnitude, big-endian, without leading zero bytes; `isSerialNumberNegative` for the
    /// (non-conforming) negative serials some CAs issued.
    public let serialNumber: [UInt8]
    public let isSerialNumberNegative: Bool
    /// The notBefore and notAfter fields in Unix seconds (see `verifyChain` for how OpenSSL compares them).
    public let notBefore: Int64
    public let notAfter: Int64
    /// DER SubjectPublicKeyInfo.
    public let subjectPublicKeyInfo: [UInt8]
    public let extensions: [Extension]
    let storage: X509Storage

    /// Parses one DER certificate (no trailing bytes).
    public init(derRepresentation der: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(der)
        guard bytes.count <= Self.maximumDERByteCount else {
            throw CryptoError(.certificateInvalid, "certificate is larger than \(Self.maximumDERByteCount) bytes")
        }
        clearOpenSSLErrors()
        guard let x509 = decodeDER(bytes, { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else {
            throw CryptoError.openssl(.certificateInvalid, "not a DER X.509 certificate (\(bytes.count) bytes)")
        }
        try self.init(adopting: X509Storage(adopting: x509), der: bytes)
    }

    /// Parses exactly one `-----BEGIN CERTIFICATE-----` block (other block types are ignored).
    public init(pemRepresentation: String) throws(CryptoError) {
        let block = try singlePEMBlock(pemRepresentation, labels: ["CERTIFICATE"], what: "certificate", kind: .certificateInvalid)
        try self.init(derRepresentation: block.der)
    }

    /// Parses every `CERTIFICATE` block in `pem`, in order (a bundle or chain file); at least one is required.
    public static func certificates(fromPEM pem: String) throws(CryptoError) -> [Certificate] {
        let blocks: [PEMBlock]
        do { blocks = try PEM.blocks(in: pem).filter { $0.label == "CERTIFICATE" } } catch {
            throw CryptoError.codec(error, "certificate bundle", .certificateInvalid)
        }
        guard !blocks.isEmpty else { throw CryptoError(.certificateInvalid, "no CERTIFICATE PEM block found") }
        var certificates: [Certificate] = []
        for block in blocks {
            do {
                certificates.append(try Certificate(derRepresentation: block.der))
            } catch {
                throw CryptoError(.certificateInvalid, "PEM certificate at line \(block.line): \(error.message)")
            }
        }
        return certificates
    }

    private init(adopting storage: X509Storage, der: [UInt8]) throws(CryptoError) {
        let x509 = storage.pointer
        self.storage = storage
        derRepresentation = der
        subject = Self.nameString(X509_get_subject_name(x509))
        issuer = Self.nameString(X509_get_issuer_name(x509))
        subjectCommonName = Self.commonName(X509_get_subject_name(x509))
        let serial = X509_get0_serialNumber(x509)
        let serialBytes = Self.stringBytes(serial)
        serialNumber = Array(serialBytes.drop(while: { $0 == 0 }))
        isSerialNumberNegative = ASN1_STRING_type(serial) == V_ASN1_NEG_INTEGER
        guard let notBefore = Self.unixTime(X509_get0_notBefore(x509)),
              let notAfter = Self.unixTime(X509_get0_notAfter(x509))
        else { throw CryptoError.openssl(.certificateInvalid, "certificate has an unreadable validity time") }
        self.notBefore = notBefore
        self.notAfter = notAfter
        guard let spki = encodeDER({ i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x509), $0) }) else {
            throw CryptoError.openssl(.certificateInvalid, "certificate has no encodable public key")
        }
        subjectPublicKeyInfo = spki
        var extensions: [Extension] = []
        let count = X509_get_ext_count(x509)
        if count > 0 {
            for index in 0..<count {
                guard let ext = X509_get_ext(x509, index) else { continue }
                var oid = [CChar](repeating: 0, count: 256)
                let written = OBJ_obj2txt(&oid, Int32(oid.count), X509_EXTENSION_get_object(ext), 1)
                guard written > 0, Int(written) < oid.count else {
                    throw CryptoError(.certificateInvalid, "certificate extension \(index) has an unprintable OID")
                }
                extensions.append(Extension(oid: String(cString: oid), isCritical: X509_EXTENSION_get_critical(ext) == 1,
                                            value: Self.stringBytes(X509_EXTENSION_get_data(ext))))
            }
        }
        self.extensions = extensions
        clearOpenSSLErrors()
    }

    /// The value of the first extension with `oid` (numeric form, e.g. "1.2.840.113635.100.8.2"): the DER
    /// inside its `extnValue` OCTET STRING.
    public func extensionValue(oid: String) -> [UInt8]? {
        extensions.first(where: { $0.oid == oid })?.value
    }

    /// SHA-256 of the DER.
    public var fingerprintSHA256: [UInt8] { SHA256.hash(derRepresentation) }

    /// The subject public key as an ECDSA key (P-256, P-384 or secp256k1); throws `.invalidKey` otherwise.
    public func ecdsaPublicKey() throws(CryptoError) -> ECDSA.PublicKey {
        try ECDSA.PublicKey(derRepresentation: subjectPublicKeyInfo)
    }

    /// The subject public key as an Ed25519 key; throws `.invalidKey` otherwise.
    public func ed25519PublicKey() throws(CryptoError) -> Ed25519.PublicKey {
        try Ed25519.PublicKey(derRepresentation: subjectPublicKeyInfo)
    }

    public var pemRepresentation: String { PEM.encode(label: "CERTIFICATE", der: derRepresentation) }

    public var description: String { "Certificate(subject: \(subject), issuer: \(issuer))" }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derRepresentation == rhs.derRepresentation }
    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }

    // MARK: Reading OpenSSL objects

    private static func nameString(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let text = withMemoryBIO { bio -> [UInt8] in
            guard X509_NAME_print_ex(bio, name, 0, omni_xn_flags_rfc4514_utf8()) >= 0 else { return [] }
            return readMemoryBIO(bio)
        }
        return String(decoding: text ?? [], as: UTF8.self)
    }

    private static func commonName(_ name: OpaquePointer?) -> String? {
        guard let name else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { clearOpenSSLErrors(); return nil }
        defer { omni_openssl_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    private static func stringBytes(_ string: UnsafePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        let length = Int(ASN1_STRING_length(string))
        return length > 0 ? Array(UnsafeBufferPointer(start: data, count: length)) : []
    }

    private static func stringBytes(_ string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8] {
        stringBytes(UnsafePointer(string))
    }

    /// UTCTime/GeneralizedTime → Unix seconds, computed from the calendar fields (no time-zone or locale use).
    private static func unixTime(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var fields = tm()
        guard ASN1_TIME_to_tm(time, &fields) == 1 else { return nil }
        let days = CivilCalendar.daysFromCivil(year: Int64(fields.tm_year) + 1900, month: Int64(fields.tm_mon) + 1, day: Int64(fields.tm_mday))
        return days * 86_400 + Int64(fields.tm_hour) * 3600 + Int64(fields.tm_min) * 60 + Int64(fields.tm_sec)
    }
}

/// Owns one OpenSSL `X509`.
final class X509Storage: @unchecked Sendable {
    let pointer: OpaquePointer
    init(adopting pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }
}

extension Certificate {
    /// Verifies that `leaf` chains through `intermediates` (untrusted, any order) to one of `roots` (trust
    /// anchors, self-signed) with every certificate valid at `time` (Unix seconds), using OpenSSL's
    /// `X509_verify_cert` with a fixed check time. No purpose, EKU, policy or revocation check is made.
    /// OpenSSL treats a certificate as valid for notBefore ≤ time < notAfter: at exactly notAfter it is already
    /// expired (RFC 5280 would include that second).
    ///
    /// Returns the verified chain, leaf first and root last. Throws `.certificateInvalid` with
    /// `certificateFailure` set (`.expired`, `.notYetValid`, `.untrustedRoot`, `.badSignature` or `.other`)
    /// and a message naming OpenSSL's reason and the offending certificate.
    public static func verifyChain(
        leaf: Certificate, intermediates: [Certificate] = [], roots: [Certificate], at time: Int64
    ) throws(CryptoError) -> [Certificate] {
        clearOpenSSLErrors()
        guard let store = X509_STORE_new() else { throw CryptoError.openssl(.library, "X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        for root in roots where X509_STORE_add_cert(store, root.storage.pointer) != 1 {
            throw CryptoError.openssl(.library, "could not add root \(root.subject) to the trust store")
        }
        guard let untrusted = omni_sk_x509_new_null() else { throw CryptoError.openssl(.library, "stack allocation failed") }
        defer { omni_sk_x509_free(untrusted) }
        for intermediate in intermediates where omni_sk_x509_push(untrusted, intermediate.storage.pointer) <= 0 {
            throw CryptoError.openssl(.library, "stack push failed")
        }
        guard let context = X509_STORE_CTX_new() else { throw CryptoError.openssl(.library, "X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.storage.pointer, untrusted) == 1 else {
            throw CryptoError.openssl(.library, "X509_STORE_CTX_init failed")
        }
        // Also sets X509_V_FLAG_USE_CHECK_TIME, so the system clock is never consulted.
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(time))

        if X509_verify_cert(context) == 1 {
            clearOpenSSLErrors()
            let candidates = [leaf] + intermediates + roots
            var chain: [Certificate] = []
            if let stack = X509_STORE_CTX_get0_chain(context) {
                for index in 0..<omni_sk_x509_num(stack) {
                    guard let x509 = omni_sk_x509_value(stack, index) else { continue }
                    // The chain holds the very X509 objects passed in.
                    if let match = candidates.first(where: { $0.storage.pointer == x509 }) { chain.append(match) }
                }
            }
            return chain
        }

        let code = X509_STORE_CTX_get_error(context)
        let depth = X509_STORE_CTX_get_error_depth(context)
        clearOpenSSLErrors()
        guard code != X509_V_OK else {
            throw CryptoError(.library, "certificate chain verification failed inside OpenSSL")
        }
        let reason = String(cString: X509_verify_cert_error_string(Int(code)))
        var location = "at depth \(depth)"
        if let current = X509_STORE_CTX_get_current_cert(context) {
            location += " (" + nameString(X509_get_subject_name(current)) + ")"
        }
        throw CryptoError(.certificateInvalid, "certificate chain rejected: \(reason) \(location)",
                          certificateFailure: certificateFailure(forVerifyError: code, reason: reason))
    }

    private static func certificateFailure(forVerifyError code: Int32, reason: String) -> CryptoError.CertificateFailure {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: .expired
        case X509_V_ERR_CERT_NOT_YET_VALID: .notYetValid
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
            .untrustedRoot
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE:
            .badSignature
        default: .other(reason)
        }
    }
}
