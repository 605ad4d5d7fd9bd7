import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// Every real vector with its `verify_at`, every negative case, and every synthetic line, each with its expected
/// reason code. Counts are pinned so that a vector silently dropped from the run fails the suite.
@Suite(.vectors("attest")) struct VectorTests {
    @Test func realAttestationsAndTheirCases() throws {
        let vectors = try AttestVectors.vectors(kind: "attestation")
        #expect(vectors.count == 15)
        var cases = 0
        for vector in vectors {
            let id = try vector.string("id")
            let expected = try #require(vector["expected"])
            let verdict = try appraiseAttestationVector(vector, defaultRoot: AppleRoots.appAttestationRoot)
            #expect(verdict.reason == .ok, "\(id): \(verdict.reason.rawValue) — \(verdict.message)")
            #expect(verdict.publicKey?.uncompressedRepresentation == AttestBase64.decode(try expected.string("public_key_x962_b64")), "\(id)")
            #expect(verdict.publicKey?.pemRepresentation == (try expected.string("public_key_pem")), "\(id)")
            let authData = try #require(verdict.authenticatorData, "\(id)")
            #expect(Int64(authData.bytes.count) == expected["auth_data_len"]?.int64Value, "\(id)")
            #expect(Int64(authData.flags) == expected["flags"]?.int64Value, "\(id)")
            #expect(Int64(authData.signCount) == expected["counter"]?.int64Value, "\(id)")
            #expect(verdict.environment?.rawValue == (try vector.string("environment")), "\(id)")
            let json = verdict.json
            #expect(json["aaguid"]?.stringValue == (try expected.string("aaguid")), "\(id)")
            #expect(json["extensions"] == expected["extensions"], "\(id): extensions \(json["extensions"]?.serialized() ?? "")")
            #expect(json["certificate"]?["not_before"]?.stringValue == (try expected.string("leaf_not_before")), "\(id)")
            #expect(json["certificate"]?["not_after"]?.stringValue == (try expected.string("leaf_not_after")), "\(id)")
            #expect(verdict.credentialCertificate?.subjectCommonName == (try expected.string("leaf_subject_cn")), "\(id)")

            // The receipt inside: present in every capture; verifies except where openssl says it does not.
            let receipt = try #require(verdict.receipt, "\(id) has no receipt")
            let receiptValid = expected["receipt_cms_signature_valid_openssl"]?.boolValue
            #expect(receipt.signatureValid == receiptValid, "\(id): receipt \(receipt.problems)")
            #expect(receipt.isValid == receiptValid, "\(id): receipt \(receipt.problems)")
            if let fields = expected["receipt_fields"] {
                #expect(receipt.receipt?.appID == fields["app_id"]?.stringValue, "\(id)")
                #expect(receipt.receipt?.receiptType == fields["type"]?.stringValue, "\(id)")
                #expect(receipt.receipt?.creationTime == fields["creation_time"]?.stringValue, "\(id)")
                #expect(receipt.receipt?.clientHash == fields["client_hash_b64"]?.stringValue.flatMap(AttestBase64.decode), "\(id)")
                #expect(receipt.receipt?.attestedCertificate == verdict.credentialCertificate?.derRepresentation, "\(id)")
            }
            if let chain = expected["receipt_signer_chain"]?.arrayValue, receiptValid == true {
                #expect(receipt.signerChain.count == chain.count, "\(id)")
            }

            for testCase in vector["cases"]?.arrayValue ?? [] {
                cases += 1
                let name = try testCase.string("name")
                let verdict = try appraiseAttestationVector(vector.applying(testCase["override"]), defaultRoot: AppleRoots.appAttestationRoot)
                #expect(verdict.reason.rawValue == (try testCase.string("expect")), "\(id)/\(name): \(verdict.reason.rawValue) — \(verdict.message)")
            }
        }
        #expect(cases == 105)
    }

    @Test func realAssertionsAndTheirCases() throws {
        let vectors = try AttestVectors.vectors(kind: "assertion")
        #expect(vectors.count == 12)
        var cases = 0
        for vector in vectors {
            let id = try vector.string("id")
            #expect(SHA256.hash(try vector.base64("client_data_b64")) == (try vector.base64("assertion_client_data_hash_b64")), "\(id)")
            let verdict = try appraiseAssertionVector(vector)
            #expect(verdict.reason == .ok, "\(id): \(verdict.reason.rawValue) — \(verdict.message)")
            #expect(verdict.counter.map(Int64.init) == vector["expected"]?["counter"]?.int64Value, "\(id)")
            #expect(verdict.keyID == (try vector.base64("key_id")), "\(id)")
            // The evidence shape carries the same assertion and key id.
            #expect(vector["evidence"]?["iosAttestation"]?["assertion"] == vector["assertion_b64"], "\(id)")
            for testCase in vector["cases"]?.arrayValue ?? [] {
                cases += 1
                let name = try testCase.string("name")
                let verdict = try appraiseAssertionVector(vector.applying(testCase["override"]))
                #expect(verdict.reason.rawValue == (try testCase.string("expect")), "\(id)/\(name): \(verdict.reason.rawValue) — \(verdict.message)")
            }
        }
        #expect(cases == 60)
    }

    @Test func realReceipts() throws {
        let vectors = try AttestVectors.vectors(kind: "receipt")
        #expect(vectors.count == 20)
        for vector in vectors {
            let id = try vector.string("id")
            let expected = try #require(vector["expected"]?["fields"])
            let bytes = try vector.base64("receipt_b64")
            // The signer certificate is valid for about a year; appraise the receipt when it was made.
            let created = try expected.time("creation_time")
            let appraisal = ReceiptAppraiser.appraise(bytes, at: created, appID: try vector.string("app_id"),
                                                      expectedKeyID: try vector.base64("key_id"))
            #expect(appraisal.isValid == vector["expected"]?["cms_signature_valid_openssl"]?.boolValue, "\(id): \(appraisal.problems)")
            #expect(appraisal.signerChain.count == 3, "\(id)")
            let receipt = try #require(appraisal.receipt)
            #expect(receipt.receiptType == expected["type"]?.stringValue, "\(id)")
            #expect(receipt.appID == expected["app_id"]?.stringValue, "\(id)")
            #expect(receipt.environment == expected["environment"]?.stringValue, "\(id)")
            #expect(receipt.creationTime == expected["creation_time"]?.stringValue, "\(id)")
            #expect(receipt.expirationTime == expected["expiration_time"]?.stringValue, "\(id)")
            #expect(receipt.notBefore == expected["not_before"]?.stringValue, "\(id)")
            #expect(receipt.riskMetric.map(Int64.init) == expected["risk_metric"]?.int64Value, "\(id)")
            #expect(receipt.token == expected["token"]?.stringValue, "\(id)")
            #expect(receipt.clientHash == expected["client_hash_b64"]?.stringValue.flatMap(AttestBase64.decode), "\(id)")
            #expect(receipt.attestedCertificate == expected["attested_certificate_b64"]?.stringValue.flatMap(AttestBase64.decode), "\(id)")

            // Not Apple's receipt root, the wrong app, another key: each is a problem.
            let wrongRoot = ReceiptAppraiser.appraise(bytes, trust: .anchored([AppleRoots.appAttestationRoot]), at: created, appID: nil, expectedKeyID: nil)
            #expect(!wrongRoot.isValid && !wrongRoot.chainValid, "\(id)")
            let wrongApp = ReceiptAppraiser.appraise(bytes, at: created, appID: "TEAM.other", expectedKeyID: nil)
            #expect(!wrongApp.isValid, "\(id)")
            let wrongKey = ReceiptAppraiser.appraise(bytes, at: created, appID: nil, expectedKeyID: SHA256.hash([1]))
            #expect(!wrongKey.isValid, "\(id)")
        }
    }

    @Test func syntheticLines() throws {
        let lines = try AttestVectors.syntheticLines()
        #expect(lines.count == 37)
        let rootPEM = try AttestVectors.pem("synthetic/test_root_seed1.pem")
        var counts: [String: Int] = [:]
        for line in lines {
            let name = try line.string("case")
            let expected = try line.string("expect")
            #expect(line["root_pem"]?.stringValue == rootPEM, "\(name)")
            let reason: AttestReason
            switch try line.string("kind") {
            case "attestation":
                reason = try appraiseAttestationVector(line, defaultRoot: try Certificate(pemRepresentation: rootPEM)).reason
            case "assertion":
                // The assertion's key must itself be attested: its attestation line verifies.
                let attestation = try appraiseAttestationVector(line, defaultRoot: try Certificate(pemRepresentation: rootPEM))
                #expect(attestation.reason == .ok, "\(name): its attestation is \(attestation.reason.rawValue)")
                reason = try appraiseAssertionVector(line).reason
            default:
                Issue.record("\(name): unknown kind")
                continue
            }
            #expect(reason.rawValue == expected, "\(name): \(reason.rawValue), expected \(expected)")
            counts[try line.string("kind"), default: 0] += 1
        }
        #expect(counts == ["attestation": 23, "assertion": 14])
    }
}

/// The receipt warns by default and decides only when required: WebAuthn4J's 2020 capture carries a receipt whose
/// CMS signature OpenSSL rejects.
@Suite(.vectors("attest")) struct ReceiptPolicyTests {
    @Test func aBadReceiptRefusesOnlyWhenRequired() throws {
        let vector = try AttestVectors.json("real/attestation/webauthn4j-kayak-2020-ios14-prod.json")
        let lenient = try appraiseAttestationVector(vector, defaultRoot: AppleRoots.appAttestationRoot)
        #expect(lenient.reason == .ok)
        #expect(lenient.receipt?.isValid == false && lenient.receipt?.signatureValid == false)
        #expect(lenient.json["receipt"]?["problems"]?.arrayValue?.isEmpty == false)
        let strict = AttestationAppraiser(environment: .production, requireReceipt: true)
            .appraise(attestation: try vector.base64("attestation_b64"), keyID: try vector.base64("key_id"),
                      appID: try vector.string("app_id"), clientDataHash: try vector.base64("client_data_hash_b64"),
                      at: try vector.time("verify_at"))
        #expect(strict.reason == .badReceipt, "\(strict.message)")
        // A good receipt passes the strict policy.
        let good = try AttestVectors.json("real/attestation/node-app-attest-2024-prod.json")
        let strictGood = AttestationAppraiser(environment: .production, requireReceipt: true)
            .appraise(attestation: try good.base64("attestation_b64"), keyID: try good.base64("key_id"),
                      appID: try good.string("app_id"), clientDataHash: try good.base64("client_data_hash_b64"),
                      at: try good.time("verify_at"))
        #expect(strictGood.reason == .ok, "\(strictGood.message)")
    }
}
