import OmniSystem
internal import COpenSSL
internal import COmniShims

/// A CMS (RFC 5652) / PKCS#7 SignedData message with encapsulated content, as OpenSSL reads it: BER with
/// indefinite lengths and chunked OCTET STRING content is accepted (Apple's App Attest receipts use both).
///
/// Reading the message checks nothing cryptographic. `verifySignatures()` checks each signer's signature over the
/// content; trust in the signer certificates is a separate step (`Certificate.verifyChain`), so that the caller
/// chooses the roots and the verification time and no OpenSSL purpose or EKU rule applies.
public struct CMSSignedData: Sendable {
    /// Messages larger than this are refused before parsing.
    public static let maximumByteCount = 1 << 20

    /// The encapsulated content (eContent), all chunks joined.
    public let content: [UInt8]
    /// The eContent type OID in numeric form (e.g. "1.2.840.113549.1.7.1" for id-data).
    public let contentType: String
    /// The certificates the message carries, in message order.
    public let certificates: [Certificate]
    private let storage: CMSStorage

    /// Parses one BER/DER ContentInfo holding SignedData with embedded content (no trailing bytes).
    public init(berRepresentation ber: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(ber)
        guard bytes.count <= Self.maximumByteCount else {
            throw CryptoError(.invalidInput, "CMS message is larger than \(Self.maximumByteCount) bytes")
        }
        clearOpenSSLErrors()
        guard let cms = decodeDER(bytes, { d2i_CMS_ContentInfo(nil, $0, $1) }, free: { CMS_ContentInfo_free($0) }) else {
            throw CryptoError.openssl(.invalidInput, "not a BER/DER CMS ContentInfo (\(bytes.count) bytes)")
        }
        let storage = CMSStorage(adopting: cms)
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else {
            throw CryptoError(.invalidInput, "CMS message is not SignedData")
        }
        guard let slot = CMS_get0_content(cms), let octets = slot.pointee,
              let data = ASN1_STRING_get0_data(octets) else {
            throw CryptoError(.invalidInput, "CMS SignedData has no encapsulated content (detached signatures are not supported)")
        }
        let length = Int(ASN1_STRING_length(octets))
        content = length > 0 ? Array(UnsafeBufferPointer(start: data, count: length)) : []
        contentType = Self.oidText(CMS_get0_eContentType(cms))
        var certificates: [Certificate] = []
        if let stack = CMS_get1_certs(cms) {
            defer { omni_sk_x509_pop_free(stack) }
            for index in 0..<omni_sk_x509_num(stack) {
                guard let x509 = omni_sk_x509_value(stack, index),
                      let der = encodeDER({ i2d_X509(x509, $0) }) else { continue }
                certificates.append(try Certificate(derRepresentation: der))
            }
        }
        self.certificates = certificates
        self.storage = storage
        clearOpenSSLErrors()
    }

    /// Verifies every SignerInfo: the content's digest against the signed messageDigest attribute and the signature
    /// under the signer's certificate, which must be among `certificates`. Returns the signer certificates.
    /// Throws `.verificationFailed` naming OpenSSL's reason when any signature does not verify.
    public func verifySignatures() throws(CryptoError) -> [Certificate] {
        let result: Result<[[UInt8]], CryptoError> = storage.withPointer { cms in
            clearOpenSSLErrors()
            // Chain trust is the caller's (see the type's documentation), hence NO_SIGNER_CERT_VERIFY; BINARY keeps
            // the content bytes as they are (no MIME canonicalisation).
            let flags = UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY)
            guard CMS_verify(cms, nil, nil, nil, nil, flags) == 1 else {
                return .failure(CryptoError.openssl(.verificationFailed, "CMS signature does not verify"))
            }
            var signers: [[UInt8]] = []
            if let stack = CMS_get0_signers(cms) {
                defer { omni_sk_x509_free(stack) }
                for index in 0..<omni_sk_x509_num(stack) {
                    guard let x509 = omni_sk_x509_value(stack, index), let der = encodeDER({ i2d_X509(x509, $0) }) else { continue }
                    signers.append(der)
                }
            }
            clearOpenSSLErrors()
            return .success(signers)
        }
        var signers: [Certificate] = []
        for der in try result.get() { signers.append(try Certificate(derRepresentation: der)) }
        guard !signers.isEmpty else { throw CryptoError(.verificationFailed, "CMS SignedData has no signer") }
        return signers
    }

    private static func oidText(_ object: OpaquePointer?) -> String {
        guard let object else { return "" }
        var text = [CChar](repeating: 0, count: 128)
        let written = OBJ_obj2txt(&text, Int32(text.count), object, 1)
        guard written > 0, Int(written) < text.count else { return "" }
        return String(cString: text)
    }
}

/// Owns one OpenSSL `CMS_ContentInfo`. CMS_verify records the signer certificates inside it, so every use goes
/// through the lock.
final class CMSStorage: @unchecked Sendable {
    private let raw: OpaquePointer
    private let lock = Lock()
    init(adopting pointer: OpaquePointer) { raw = pointer }
    func withPointer<R>(_ body: (OpaquePointer) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(raw)
    }
    deinit { CMS_ContentInfo_free(raw) }
}
