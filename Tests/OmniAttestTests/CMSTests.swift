import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// OmniCrypto's CMSSignedData (added for receipts) on Apple's BER receipts: content, certificates, signatures, and
/// what tampering does.
@Suite(.vectors("attest")) struct CMSTests {
    @Test func readsAndVerifiesAnAppleReceipt() throws {
        let vector = try AttestVectors.json("real/receipt/veehaitch-ios-14.2-dev-receipt-1.json")
        let bytes = try vector.base64("receipt_b64")
        let message = try CMSSignedData(berRepresentation: bytes)
        #expect(message.contentType == "1.2.840.113549.1.7.1")
        #expect(message.content.first == 0x31)
        #expect(message.certificates.compactMap(\.subjectCommonName) ==
                ["Application Attestation Fraud Receipt Signing", "Apple Application Integration CA 5 - G1", "Apple Root CA - G3"])
        let signers = try message.verifySignatures()
        #expect(signers.map(\.subjectCommonName) == ["Application Attestation Fraud Receipt Signing"])
        // Twice on one value (the signer cache inside OpenSSL's object is locked and reused).
        #expect(try message.verifySignatures() == signers)
    }

    @Test func tamperedContentDoesNotVerifyAndGarbageDoesNotParse() throws {
        let vector = try AttestVectors.json("real/receipt/veehaitch-ios-14.2-dev-receipt-1.json")
        var bytes = try vector.base64("receipt_b64")
        let message = try CMSSignedData(berRepresentation: bytes)
        // Change one byte of the app id inside the payload.
        let appID = Array(try vector.string("app_id").utf8)
        let position = try #require((0...(bytes.count - appID.count)).first { bytes[$0..<($0 + appID.count)].elementsEqual(appID) })
        bytes[position] ^= 0x01
        let tampered = try CMSSignedData(berRepresentation: bytes)
        #expect(tampered.content != message.content)
        #expect(throws: CryptoError.self) { try tampered.verifySignatures() }
        #expect(throws: CryptoError.self) { try CMSSignedData(berRepresentation: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: CryptoError.self) { try CMSSignedData(berRepresentation: []) }
        #expect(throws: CryptoError.self) { try CMSSignedData(berRepresentation: bytes + [0]) }
    }
}
