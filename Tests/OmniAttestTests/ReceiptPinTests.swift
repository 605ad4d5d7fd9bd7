import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// Receipts are trusted only along Apple's documented path: Apple Root CA - G3 → the receipt intermediate Apple
/// publishes (pinned by SHA-256) → a signer with the receipt signer's subject. Before the pins, any chain under G3
/// was accepted as a receipt signer.
@Suite(.vectors("attest"), .serialized, .offPool) struct ReceiptPinTests {
    /// Every receipt in the vectors: the 20 refreshed ones and the ATTEST receipts inside the real attestations.
    static func realReceipts() throws -> [(id: String, bytes: [UInt8])] {
        var receipts: [(String, [UInt8])] = []
        for vector in try AttestVectors.vectors(kind: "receipt") {
            receipts.append((try vector.string("id"), try vector.base64("receipt_b64")))
        }
        for vector in try AttestVectors.vectors(kind: "attestation") {
            let object = try CBOR.decode(try vector.base64("attestation_b64"))
            if let receipt = object["attStmt"]?["receipt"]?.bytes, !receipt.isEmpty {
                receipts.append((try vector.string("id"), receipt))
            }
        }
        return receipts
    }

    @Test func thePinsAreTheVendorFileAndRecordedInSources() throws {
        let url = Repository.root.appendingPathComponent("Vendor/apple/receipt_pins.json")
        let pins = try JSONValue.parse(Array(try #require(FileManager.default.contents(atPath: url.path))))
        #expect(pins["receipt_intermediate_sha256"]?.stringValue == AppleRoots.receiptIntermediateFingerprint)
        #expect(pins["receipt_intermediate_subject"]?.stringValue == AppleRoots.receiptIntermediateSubject)
        #expect(pins["receipt_signer_subject"]?.stringValue == AppleRoots.receiptSignerSubject)
        #expect(ReceiptTrust.apple.intermediateFingerprint.map { Hex.encode($0) } == AppleRoots.receiptIntermediateFingerprint)
        #expect(ReceiptTrust.apple.signerSubject == AppleRoots.receiptSignerSubject)
        #expect(ReceiptTrust.apple.roots == [AppleRoots.rootCAG3])
        let sources = try String(contentsOf: Repository.root.appendingPathComponent("Vendor/SOURCES.md"), encoding: .utf8)
        #expect(sources.contains(AppleRoots.receiptIntermediateFingerprint.uppercased()), "Vendor/SOURCES.md does not record the pin")
    }

    /// The pins describe every real receipt: each carries exactly the pinned intermediate and a signer with the pinned
    /// subject, and each that OpenSSL verifies passes the pinned trust.
    @Test func everyRealReceiptHasThePinnedChain() throws {
        let receipts = try Self.realReceipts()
        #expect(receipts.count >= 30, "only \(receipts.count) real receipts found")
        for (id, bytes) in receipts {
            let message = try CMSSignedData(berRepresentation: bytes)
            let authorities = message.certificates.filter { $0 != AppleRoots.rootCAG3 && $0.subject != AppleRoots.receiptSignerSubject }
            #expect(authorities.map { Hex.encode($0.fingerprintSHA256) } == [AppleRoots.receiptIntermediateFingerprint], "\(id)")
            #expect(authorities.map(\.subject) == [AppleRoots.receiptIntermediateSubject], "\(id)")
            guard let signer = try? message.verifySignatures() else { continue }  // WebAuthn4J's 2020 capture
            #expect(signer.map(\.subject) == [AppleRoots.receiptSignerSubject], "\(id)")
            let appraisal = ReceiptAppraiser.appraise(bytes, trust: .apple, at: signer[0].notBefore + 60, appID: nil, expectedKeyID: nil)
            #expect(appraisal.isValid && appraisal.chainValid, "\(id): \(appraisal.problems)")
            #expect(appraisal.signerChain == [AppleRoots.receiptSignerSubject, AppleRoots.receiptIntermediateSubject,
                                              AppleRoots.rootCAG3.subject], "\(id)")
        }
    }

    /// Look-alike chains from the Python peer, all issued by one test root: a second intermediate under the very same
    /// name, a signer with another subject, a signer issued by the root itself. Every one verifies to the root (the old
    /// rule); only the pinned path is accepted.
    @Test func otherChainsUnderTheRootAreRefused() throws {
        let seed = SeededGenerator.freshSeed() % 1_000_003
        let result = try Subprocess.python("attest_peer.py", ["receipt-chains", "--seed", String(seed), "--now", "2026-06-01T12:00:00Z"])
        #expect(result.status == 0, "attest_peer.py failed (seed \(seed)): \(result.stderrText)")
        let minted = try JSONValue.parse(Array(result.stdout))
        let root = try Certificate(pemRepresentation: try minted.string("root_pem"))
        let pin = try Hex.decode(try minted.string("pinned_intermediate_sha256"))
        let trust = ReceiptTrust(roots: [root], intermediateFingerprint: pin, signerSubject: AppleRoots.receiptSignerSubject)
        let time = try minted.time("verify_at")
        let cases = try #require(minted["cases"]?.arrayValue)
        #expect(cases.count == 4)
        for entry in cases {
            let name = "seed \(seed), " + (try entry.string("case"))
            let bytes = try entry.base64("receipt_b64")
            let unpinned = ReceiptAppraiser.appraise(bytes, trust: .anchored([root]), at: time, appID: try minted.string("app_id"),
                                                     expectedKeyID: nil)
            #expect(unpinned.isValid, "\(name): the chain itself should verify to the test root: \(unpinned.problems)")
            let pinned = ReceiptAppraiser.appraise(bytes, trust: trust, at: time, appID: try minted.string("app_id"), expectedKeyID: nil)
            if entry["expect_valid"]?.boolValue == true {
                #expect(pinned.isValid, "\(name): \(pinned.problems)")
            } else {
                #expect(!pinned.isValid && !pinned.chainValid && pinned.signerChain.isEmpty, "\(name) was accepted")
                let problem = try entry.string("expect_problem")
                #expect(pinned.problems.contains { $0.contains(problem) }, "\(name): \(pinned.problems)")
            }
            // And none of them passes for Apple's.
            #expect(!ReceiptAppraiser.appraise(bytes, trust: .apple, at: time, appID: nil, expectedKeyID: nil).isValid, "\(name)")
        }
    }

    /// An attestation whose receipt comes from a look-alike chain is refused when receipts are required.
    @Test func aRequiredReceiptMustHaveThePinnedChain() throws {
        let vector = try AttestVectors.json("real/attestation/node-app-attest-2024-prod.json")
        let appraise = { (trust: ReceiptTrust) in
            AttestationAppraiser(environment: .production, receiptTrust: trust, requireReceipt: true)
                .appraise(attestation: try vector.base64("attestation_b64"), keyID: try vector.base64("key_id"),
                          appID: try vector.string("app_id"), clientDataHash: try vector.base64("client_data_hash_b64"),
                          at: try vector.time("verify_at"))
        }
        #expect(try appraise(.apple).reason == .ok)
        // The same Apple chain, pinned to another intermediate: refused.
        let elsewhere = ReceiptTrust(roots: [AppleRoots.rootCAG3], intermediateFingerprint: SHA256.hash([1]),
                                     signerSubject: AppleRoots.receiptSignerSubject)
        let refused = try appraise(elsewhere)
        #expect(refused.reason == .badReceipt && refused.message.contains("pinned"), "\(refused.message)")
    }
}
