import OmniCodec
import OmniCrypto

/// The pinned Apple trust anchors, compiled in (see Vendor/SOURCES.md for provenance and fingerprints).
public enum AppleRoots {
    /// SHA-256 of the DER of Apple App Attestation Root CA, as Apple publishes it.
    public static let appAttestationRootFingerprint = "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932"
    /// SHA-256 of the DER of Apple Root CA - G3, as Apple publishes it.
    public static let rootCAG3Fingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// The root of every App Attest credential certificate chain.
    public static let appAttestationRoot: Certificate = pinned(appAttestationRootPEM, appAttestationRootFingerprint)
    /// The root of the fraud-metric receipts (a different root from attestations).
    public static let rootCAG3: Certificate = pinned(rootCAG3PEM, rootCAG3Fingerprint)

    /// `receiptIntermediateFingerprint` as bytes.
    static let receiptIntermediateFingerprintBytes: [UInt8] = {
        // Generated from a checked file and covered by tests; failing here is a build defect.
        guard let bytes = try? Hex.decode(receiptIntermediateFingerprint), bytes.count == 32 else {
            fatalError("embedded receipt intermediate pin is not 32 bytes of hex")
        }
        return bytes
    }()

    /// The PEM text compiled into the binary, for `omni attest` to show and for the test that compares it with
    /// Vendor/apple.
    public static var embeddedPEMs: [(file: String, pem: String)] {
        [("Apple_App_Attestation_Root_CA.pem", appAttestationRootPEM), ("AppleRootCA-G3.pem", rootCAG3PEM)]
    }

    private static func pinned(_ pem: String, _ fingerprint: String) -> Certificate {
        // Both constants are generated from checked files and covered by tests; failing here is a build defect.
        guard let certificate = try? Certificate(pemRepresentation: pem),
              Hex.encode(certificate.fingerprintSHA256) == fingerprint
        else { fatalError("embedded Apple root does not match its pinned fingerprint \(fingerprint)") }
        return certificate
    }
}
