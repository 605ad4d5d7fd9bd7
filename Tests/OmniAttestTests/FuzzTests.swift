import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// Randomized robustness: mutated attestation objects, assertions and authenticator data never crash the
/// appraisers, always get one of the appraisal codes, and any change to signed or hashed bytes is refused.
/// A fresh seed per run (printed with every failure); OMNI_TEST_SEED=<n> replays one.
@Suite struct FuzzTests {
    static let attestationVector = "real/attestation/apple-doc-2026-ios27-prod.json"
    static let assertionVector = "real/assertion/veehaitch-ios-14.2-dev-assertion.json"

    /// One random change to `bytes`: flips, truncation, insertion, deletion, duplication, or fresh random bytes.
    static func mutate(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var out = bytes
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            for _ in 0..<Int.random(in: 1...8, using: &random) where !out.isEmpty {
                out[Int.random(in: 0..<out.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
        case 1:
            out = Array(out.prefix(Int.random(in: 0...out.count, using: &random)))
        case 2:
            out.insert(contentsOf: random.bytes(Int.random(in: 1...16, using: &random)), at: Int.random(in: 0...out.count, using: &random))
        case 3:
            if !out.isEmpty {
                let start = Int.random(in: 0..<out.count, using: &random)
                out.removeSubrange(start..<min(out.count, start + Int.random(in: 1...32, using: &random)))
            }
        case 4:
            if !out.isEmpty {
                let start = Int.random(in: 0..<out.count, using: &random)
                let piece = out[start..<min(out.count, start + Int.random(in: 1...64, using: &random))]
                out.insert(contentsOf: piece, at: Int.random(in: 0...out.count, using: &random))
            }
        default:
            out = random.bytes(Int.random(in: 0...300, using: &random))
        }
        return out
    }

    @Test(.vectors("attest")) func mutatedAttestationObjects() throws {
        var random = SeededGenerator()
        let seed = random.seed
        let vector = try AttestVectors.json(Self.attestationVector)
        let object = try vector.base64("attestation_b64")
        let keyID = try vector.base64("key_id")
        let appID = try vector.string("app_id")
        let hash = try vector.base64("client_data_hash_b64")
        let time = try vector.time("verify_at")
        let appraiser = AttestationAppraiser(environment: .any)
        #expect(appraiser.appraise(attestation: object, keyID: keyID, appID: appID, clientDataHash: hash, at: time).isValid)
        for _ in 0..<400 {
            let mutated = Self.mutate(object, &random)
            let verdict = appraiser.appraise(attestation: mutated, keyID: keyID, appID: appID, clientDataHash: hash, at: time)
            #expect(AttestReason.appraisalCodes.contains(verdict.reason), "seed \(seed): \(verdict.reason)")
            #expect(!verdict.message.isEmpty, "seed \(seed)")
            _ = verdict.json.serialized()
        }
    }

    @Test(.vectors("attest")) func mutatedAuthenticatorDataInsideAValidObject() throws {
        var random = SeededGenerator()
        let seed = random.seed
        let vector = try AttestVectors.json(Self.attestationVector)
        let object = try vector.base64("attestation_b64")
        let root = try CBOR.decode(object)
        let authData = try #require(root["authData"]?.bytes)
        let keyID = try vector.base64("key_id")
        let appID = try vector.string("app_id")
        let hash = try vector.base64("client_data_hash_b64")
        let time = try vector.time("verify_at")
        let appraiser = AttestationAppraiser(environment: .any)
        var refusedByParsing = 0
        for round in 0..<400 {
            var mutated = Self.mutate(authData, &random)
            if round % 4 == 0 {
                // A well-formed or almost well-formed CBOR tail where iOS 27 puts its extension map.
                let tail: CBOR = round % 8 == 0 ? .map([("k", .bytes(random.bytes(3)))]) : .array([.integer(Int64(round))])
                mutated = Array(authData.prefix(164)) + (try tail.encoded()) + random.bytes(round % 3)
            }
            guard mutated != authData else { continue }
            let rebuilt = try CBOR.map(root.map!.map { pair in
                pair.key.text == "authData" ? (key: pair.key, value: .bytes(mutated)) : pair
            }).encoded()
            let verdict = appraiser.appraise(attestation: rebuilt, keyID: keyID, appID: appID, clientDataHash: hash, at: time)
            #expect(verdict.reason != .ok, "seed \(seed): a changed authData was accepted: \(Hex.encode(mutated))")
            #expect(AttestReason.appraisalCodes.contains(verdict.reason), "seed \(seed)")
            if verdict.reason == .malformedAuthData { refusedByParsing += 1 }
        }
        #expect(refusedByParsing > 0, "seed \(seed): no mutation reached the authData parser")
    }

    @Test(.vectors("attest")) func mutatedAssertions() throws {
        var random = SeededGenerator()
        let seed = random.seed
        let vector = try AttestVectors.json(Self.assertionVector)
        let assertion = try vector.base64("assertion_b64")
        let key = try AttestPublicKey.parse(try vector.string("public_key_b64"))
        let appID = try vector.string("app_id")
        let hash = try vector.base64("assertion_client_data_hash_b64")
        #expect(AssertionAppraiser.appraise(assertion: assertion, clientDataHash: hash, appID: appID, publicKey: key, previousCounter: 0).isValid)
        let root = try CBOR.decode(assertion)
        let authData = try #require(root["authenticatorData"]?.bytes)
        for round in 0..<1500 {
            let candidate: [UInt8]
            var changesSignedBytes = false
            if round % 2 == 0 {
                candidate = Self.mutate(assertion, &random)
            } else {
                let mutated = Self.mutate(authData, &random)
                changesSignedBytes = mutated != authData
                candidate = try CBOR.map(root.map!.map { pair in
                    pair.key.text == "authenticatorData" ? (key: pair.key, value: .bytes(mutated)) : pair
                }).encoded()
            }
            let verdict = AssertionAppraiser.appraise(assertion: candidate, clientDataHash: hash, appID: appID, publicKey: key,
                                                      previousCounter: 0)
            #expect(AttestReason.appraisalCodes.contains(verdict.reason), "seed \(seed)")
            if changesSignedBytes {
                #expect(verdict.reason != .ok, "seed \(seed): changed authenticatorData accepted")
            }
            _ = verdict.json.serialized()
        }
    }

    @Test func randomEnrollBodiesAndEvidence() throws {
        var random = SeededGenerator()
        let seed = random.seed
        let directory = try TemporaryDirectory()
        let service = AttestService(store: try SQLiteAttestStore(path: directory.path("fuzz.db")))
        let templates = ["{\"platform\":\"ios\",\"iosKeyId\":\"%\",\"iosAttestationObject\":\"%\",\"nonce\":\"%\"}",
                         "{\"iosAttestation\":{\"assertion\":\"%\",\"keyId\":\"%\"}}"]
        for round in 0..<300 {
            var text = templates[round % 2]
            while let marker = text.firstIndex(of: "%") {
                text.replaceSubrange(marker...marker, with: Base64.encode(random.bytes(Int.random(in: 0...48, using: &random))))
            }
            let bytes = round % 3 == 0 ? Self.mutate(Array(text.utf8), &random) : Array(text.utf8)
            let enroll = try service.enroll(body: bytes, appID: "ABCDE12345.com.example.fuzz", challengeHash: .sha256,
                                            appraiser: AttestationAppraiser(), at: 0)
            #expect(!enroll.isValid, "seed \(seed)")
            let verify = try service.verify(evidence: bytes, challenge: nil, clientData: .hash(random.bytes(32)), appID: nil, at: 0)
            #expect(!verify.isValid, "seed \(seed)")
        }
    }
}
