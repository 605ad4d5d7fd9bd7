import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// The pinned roots compiled into omni are exactly the files in Vendor/apple, with Apple's published fingerprints.
@Suite(.serialized, .offPool) struct RootsTests {
    @Test func embeddedRootsEqualTheVendorFiles() throws {
        for (file, pem) in AppleRoots.embeddedPEMs {
            let url = Repository.root.appendingPathComponent("Vendor/apple").appendingPathComponent(file)
            let vendored = try #require(FileManager.default.contents(atPath: url.path), "missing \(url.path)")
            #expect(Array(pem.utf8) == [UInt8](vendored), "\(file): embedded text differs from Vendor/apple; run python3 Tools/embed_apple_roots.py")
        }
    }

    @Test(.vectors("attest")) func fingerprintsAreApplesAndRecordedInSources() throws {
        #expect(Hex.encode(AppleRoots.appAttestationRoot.fingerprintSHA256) == AppleRoots.appAttestationRootFingerprint)
        #expect(Hex.encode(AppleRoots.rootCAG3.fingerprintSHA256) == AppleRoots.rootCAG3Fingerprint)
        #expect(AppleRoots.appAttestationRoot.subjectCommonName == "Apple App Attestation Root CA")
        #expect(AppleRoots.rootCAG3.subjectCommonName == "Apple Root CA - G3")
        let sources = try String(contentsOf: Repository.root.appendingPathComponent("Vendor/SOURCES.md"), encoding: .utf8)
        for fingerprint in [AppleRoots.appAttestationRootFingerprint, AppleRoots.rootCAG3Fingerprint] {
            #expect(sources.contains(fingerprint.uppercased()), "Vendor/SOURCES.md does not record \(fingerprint)")
        }
        // The vector folder's copies (the files were taken from there after this check) are the same certificates.
        #expect(try Certificate(pemRepresentation: AttestVectors.pem("apple_app_attestation_root_ca.pem")) == AppleRoots.appAttestationRoot)
        #expect(try Certificate(pemRepresentation: AttestVectors.pem("apple_root_ca_g3.pem")) == AppleRoots.rootCAG3)
    }
}
