import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing

/// DER and PEM failures come from OmniCodec's one reader each: the structure named, then the codec's message
/// with its location (a byte offset into the whole DER, a line and column in the PEM text).
@Suite("DER and PEM errors in keys, signatures and certificates")
struct EncodingErrorTests {
    @Test func signatureDERErrorsGiveTheByteOffset() {
        // SEQUENCE { INTEGER 1, INTEGER with a length that runs past the end }
        let error = caughtError { () throws(CryptoError) in
            _ = try ECDSA.Signature(derRepresentation: [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x05, 0x01], curve: .p256)
        }
        #expect(error?.kind == .invalidInput)
        #expect(error?.message == "P-256 DER signature: malformed DER (byte 5): length 5 exceeds the 1 remaining bytes")
        let indefinite = caughtError { () throws(CryptoError) in
            _ = try ECDSA.Signature(derRepresentation: [0x30, 0x80, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00], curve: .p256)
        }
        #expect(indefinite?.message == "P-256 DER signature: malformed DER (byte 1): indefinite length is not DER")
    }

    /// The seed sits in an OCTET STRING inside an OCTET STRING; a fault there is placed in the whole key.
    @Test func pkcs8OffsetsCountFromTheStartOfTheKey() throws {
        let good = Ed25519.PrivateKey().pkcs8DERRepresentation
        var bad = good
        bad[15] = 0x21  // the inner OCTET STRING claims 33 bytes of the 32 left
        let error = caughtError { () throws(CryptoError) in _ = try Ed25519.PrivateKey(pkcs8DERRepresentation: bad) }
        #expect(error?.kind == .invalidKey)
        #expect(error?.message == "Ed25519 PKCS#8 key: malformed DER (byte 14): length 33 exceeds the 32 remaining bytes")
        let version = DERWriter.sequence(DERWriter.unsignedInteger([2]), Array(good.dropFirst(5)))
        let unsupported = caughtError { () throws(CryptoError) in _ = try Ed25519.PrivateKey(pkcs8DERRepresentation: version) }
        #expect(unsupported?.message == "unsupported PKCS#8 version 02 of an Ed25519 key")
    }

    @Test func pemErrorsGiveLineAndColumn() {
        let text = "-----BEGIN CERTIFICATE-----\nMIIB\nMI@B\n-----END CERTIFICATE-----\n"
        let error = caughtError { () throws(CryptoError) in _ = try Certificate(pemRepresentation: text) }
        #expect(error?.kind == .certificateInvalid)
        #expect(error?.message == "certificate: malformed PEM (line 3, column 3): block CERTIFICATE: body is not base64: invalid base64 character '@'")
        let key = caughtError { () throws(CryptoError) in _ = try ECDSA.PublicKey(pemRepresentation: "-----BEGIN PUBLIC KEY-----\nAAAA\n") }
        #expect(key?.kind == .invalidKey && key?.message == "EC public key: malformed PEM (line 1, column 1): block PUBLIC KEY has no END line")
    }
}
