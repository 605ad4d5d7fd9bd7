import Foundation
import Testing
import OmniAttest
import OmniCodec
import OmniCrypto
import OmniTestSupport

/// The store-backed flow end to end in process, on the synthetic `assert_valid` line: its attestation enrolls the
/// key over a recorded challenge, its assertion then verifies once.
@Suite(.vectors("attest")) struct ServiceTests {
    struct Fixture {
        let line: JSONValue
        let root: Certificate
        let time: Int64
        let challenge: [UInt8]
        let assertionChallenge: [UInt8]

        init() throws {
            line = try #require(try AttestVectors.syntheticLines().first { $0["case"]?.stringValue == "assert_valid" })
            root = try Certificate(pemRepresentation: try line.string("root_pem"))
            time = try line.time("verify_at")
            challenge = try line.base64("challenge_b64")
            let clientData = try JSONValue.parse(try line.base64("client_data_b64"))
            assertionChallenge = try #require(AttestBase64.decode(try clientData.string("challenge")))
        }

        var enrollBody: [UInt8] {
            get throws {
                Array(JSONValue.object(["platform": "ios", "iosKeyId": .string(try line.string("key_id")),
                                        "iosAttestationObject": .string(try line.string("attestation_b64")),
                                        "nonce": .string(AttestBase64.encodeURL(challenge))]).serialized().utf8)
            }
        }

        var evidence: [UInt8] {
            get throws {
                Array(JSONValue.object(["iosAttestation": .object(["assertion": .string(try line.string("assertion_b64")),
                                                                   "keyId": .string(try line.string("key_id"))])]).serialized().utf8)
            }
        }

        var appraiser: AttestationAppraiser { AttestationAppraiser(roots: [root], environment: .production) }
    }

    @Test func enrollThenVerifyOnce() throws {
        let fixture = try Fixture()
        let directory = try TemporaryDirectory()
        let service = AttestService(store: try SQLiteAttestStore(path: directory.path("store.db")))
        let appID = try fixture.line.string("app_id")

        _ = try service.issueChallenge(lifetime: 300, at: fixture.time, value: fixture.challenge)
        let enrolled = try service.enroll(body: try fixture.enrollBody, appID: appID, challengeHash: .sha256, appraiser: fixture.appraiser, at: fixture.time)
        #expect(enrolled.reason == .ok, "\(enrolled.message)")
        #expect(enrolled.key?.counter == 0 && enrolled.key?.environment == .production)
        #expect(enrolled.json["stored_key"]?["status"] == "active")
        // The stored receipt is the attestation's attStmt.receipt, byte for byte.
        let receipt = try CBOR.decode(try fixture.line.base64("attestation_b64"))["attStmt"]?["receipt"]?.bytes
        #expect(receipt != nil && enrolled.key?.receipt == receipt)
        // The challenge is gone: the same body cannot enroll again.
        let replay = try service.enroll(body: try fixture.enrollBody, appID: appID, challengeHash: .sha256, appraiser: fixture.appraiser, at: fixture.time)
        #expect(replay.reason == .unknownChallenge)
        // Even over a fresh recording of the challenge, the key is already there.
        _ = try service.issueChallenge(lifetime: 300, at: fixture.time, value: fixture.challenge)
        let again = try service.enroll(body: try fixture.enrollBody, appID: appID, challengeHash: .sha256, appraiser: fixture.appraiser, at: fixture.time)
        #expect(again.reason == .keyAlreadyEnrolled)

        let clientData = try fixture.line.base64("client_data_b64")
        _ = try service.issueChallenge(lifetime: 300, at: fixture.time, value: fixture.assertionChallenge)
        // A challenge with only a hash cannot be checked: refused as an argument, and the challenge stays usable.
        #expect(throws: AttestError.self) {
            try service.verify(evidence: try fixture.evidence, challenge: fixture.assertionChallenge, clientData: .hash(SHA256.hash(clientData)),
                               appID: nil, at: fixture.time)
        }
        let verified = try service.verify(evidence: try fixture.evidence, challenge: fixture.assertionChallenge,
                                          clientData: .data(clientData), appID: nil, at: fixture.time)
        #expect(verified.reason == .ok, "\(verified.message)")
        #expect(verified.key?.counter == 1)

        // Replayed with its challenge recorded again: the counter has moved on.
        _ = try service.issueChallenge(lifetime: 300, at: fixture.time, value: fixture.assertionChallenge)
        let replayed = try service.verify(evidence: try fixture.evidence, challenge: fixture.assertionChallenge,
                                          clientData: .data(clientData), appID: nil, at: fixture.time)
        #expect(replayed.reason == .counterNotIncreasing)
        // The challenge was consumed by the replay attempt too.
        let unknown = try service.verify(evidence: try fixture.evidence, challenge: fixture.assertionChallenge,
                                         clientData: .data(clientData), appID: nil, at: fixture.time)
        #expect(unknown.reason == .unknownChallenge)
        // A challenge the client data does not carry.
        let other = try service.issueChallenge(lifetime: 300, at: fixture.time)
        let mismatch = try service.verify(evidence: try fixture.evidence, challenge: other.value, clientData: .data(clientData),
                                          appID: nil, at: fixture.time)
        #expect(mismatch.reason == .challengeMismatch)
        // Evidence that is not the documented shape; a key nobody enrolled; another app; a revoked key.
        let garbage = try service.verify(evidence: Array("{\"android\":{}}".utf8), challenge: nil, clientData: .data(clientData), appID: nil, at: fixture.time)
        #expect(garbage.reason == .badFormat)
        let unknownKey = try service.verifyAssertion(try fixture.line.base64("assertion_b64"), keyID: SHA256.hash([0]),
                                                     clientDataHash: SHA256.hash(clientData), appID: nil, at: fixture.time)
        #expect(unknownKey.reason == .unknownKey)
        let keyID = try fixture.line.base64("key_id")
        let wrongApp = try service.verifyAssertion(try fixture.line.base64("assertion_b64"), keyID: keyID,
                                                   clientDataHash: SHA256.hash(clientData), appID: "ABCDE12345.other", at: fixture.time)
        #expect(wrongApp.reason == .rpIDMismatch)
        #expect(try service.store.revoke(keyID: keyID, at: fixture.time))
        let revoked = try service.verifyAssertion(try fixture.line.base64("assertion_b64"), keyID: keyID,
                                                  clientDataHash: SHA256.hash(clientData), appID: nil, at: fixture.time)
        #expect(revoked.reason == .keyRevoked)
    }

    @Test func enrollBodiesThatAreNotEnrollBodies() throws {
        let fixture = try Fixture()
        let directory = try TemporaryDirectory()
        let service = AttestService(store: try SQLiteAttestStore(path: directory.path("store.db")))
        for body in ["", "[]", "{\"platform\":\"android\"}", "{\"platform\":\"ios\",\"iosKeyId\":\"***\"}", "not json"] {
            let verdict = try service.enroll(body: Array(body.utf8), appID: "ABCDE12345.com.example.omni", challengeHash: .sha256,
                                             appraiser: fixture.appraiser, at: fixture.time)
            #expect(verdict.reason == .badFormat, "\(body)")
        }
        // An expired challenge is refused (and used up).
        _ = try service.issueChallenge(lifetime: 10, at: fixture.time - 100, value: fixture.challenge)
        let expired = try service.enroll(body: try fixture.enrollBody, appID: try fixture.line.string("app_id"), challengeHash: .sha256,
                                         appraiser: fixture.appraiser, at: fixture.time)
        #expect(expired.reason == .unknownChallenge)
        #expect(expired.message.contains("expired"))
    }

    /// `--challenge-field`: the challenge must be the whole value of one JSON field, not a substring anywhere.
    @Test func aChallengeFieldBindsTheChallengeExactly() throws {
        let fixture = try Fixture()
        let directory = try TemporaryDirectory()
        let service = AttestService(store: try SQLiteAttestStore(path: directory.path("store.db")))
        _ = try service.issueChallenge(lifetime: 300, at: fixture.time, value: fixture.challenge)
        let enrolled = try service.enroll(body: try fixture.enrollBody, appID: try fixture.line.string("app_id"), challengeHash: .sha256,
                                          appraiser: fixture.appraiser, at: fixture.time)
        #expect(enrolled.reason == .ok, "\(enrolled.message)")
        let challenge = fixture.assertionChallenge
        let encoded = Base64.encode(challenge)

        func verify(_ clientData: String, _ binding: AttestService.ChallengeBinding) throws -> FlowVerdict {
            _ = try service.issueChallenge(lifetime: 300, at: fixture.time, value: challenge)
            return try service.verify(evidence: try fixture.evidence, challenge: challenge, clientData: .data(Array(clientData.utf8)),
                                      binding: binding, appID: nil, at: fixture.time)
        }
        // The challenge elsewhere in the data: the loose default finds it (and then the signature decides); the field
        // binding refuses before the signature is even checked.
        let smuggled = "{\"challenge\":\"something else\",\"note\":\"\(encoded)\"}"
        #expect(try verify(smuggled, .anywhere).reason == .badSignature)
        let refused = try verify(smuggled, .jsonField("challenge"))
        #expect(refused.reason == .challengeMismatch, "\(refused.message)")
        for data in ["{\"challenge\":\"x\(encoded)\"}", "{\"challenge\":\" \(encoded)\"}", "{\"nonce\":\"\(encoded)\"}",
                     "\(encoded)", "{\"challenge\":[\"\(encoded)\"]}", "[\"\(encoded)\"]"] {
            #expect(try verify(data, .jsonField("challenge")).reason == .challengeMismatch, "\(data)")
        }
        // The exact field in the real client data (base64) passes, signature and all; base64url and hex forms pass the
        // binding too (their signature then fails: the app signed the base64 form).
        let clientData = try fixture.line.base64("client_data_b64")
        _ = try service.issueChallenge(lifetime: 300, at: fixture.time, value: challenge)
        let verified = try service.verify(evidence: try fixture.evidence, challenge: challenge, clientData: .data(clientData),
                                          binding: .jsonField("challenge"), appID: nil, at: fixture.time)
        #expect(verified.reason == .ok, "\(verified.message)")
        for form in [AttestBase64.encodeURL(challenge), Hex.encode(challenge)] {
            #expect(try verify("{\"challenge\":\"\(form)\"}", .jsonField("challenge")).reason == .badSignature, "\(form)")
        }
    }
}
