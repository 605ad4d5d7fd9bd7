import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `omni attest` through the real binary: verdicts and exit codes (0 valid, 1 refused, 3 unusable argument), every
/// value option as literal, @FILE and -, batch mode over the synthetic vectors, and the store-backed server flow.
@Suite struct AttestEndToEndTests {
    static func vector(_ path: String) throws -> JSONValue {
        try JSONValue.parse(Array(try Vectors.data("attest/" + path)))
    }

    static func field(_ json: JSONValue, _ key: String) throws -> String {
        guard let value = json[key]?.stringValue else { throw TestSupportError("field \(key) missing") }
        return value
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("omni-attest-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let apple2026 = "real/attestation/apple-doc-2026-ios27-prod.json"

    func appleArguments(_ vector: JSONValue) throws -> [String] {
        ["attest", "verify-attestation", "--key-id", try Self.field(vector, "key_id"), "--app-id", try Self.field(vector, "app_id"),
         "--challenge", try Self.field(vector["challenge"] ?? .null, "b64"), "--client-data", "raw",
         "--at", try Self.field(vector, "verify_at")]
    }

    @Test(.vectors("attest")) func verifiesApplesSampleFromLiteralFileAndStdin() throws {
        let vector = try Self.vector(Self.apple2026)
        let object = try Self.field(vector, "attestation_b64")
        let literal = try Omni.run(try appleArguments(vector) + ["--attestation", object, "--output", "json"])
        #expect(literal.status == 0, "\(literal.stderrText)")
        let json = try JSONValue.parse(Array(literal.stdout))
        #expect(json["valid"] == true && json["reason"] == "ok")
        #expect(json["environment"] == "production" && json["aaguid"] == "appattest" && json["counter"] == 0)
        #expect(json["public_key"]?["pem"] == vector["expected"]?["public_key_pem"])
        #expect(json["public_key"]?["jwk"]?["crv"] == "P-256")
        #expect(json["certificate"]?["not_after"] == vector["expected"]?["leaf_not_after"])
        #expect(json["extensions"] == vector["expected"]?["extensions"])
        #expect(json["receipt"]?["valid"] == true && json["receipt"]?["type"] == "ATTEST")

        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("attestation.b64")
        try Data((object + "\n").utf8).write(to: file)
        let fromFile = try Omni.run(try appleArguments(vector) + ["--attestation", "@" + file.path])
        #expect(fromFile.status == 0, "\(fromFile.stderrText)")
        #expect(fromFile.stdoutText.contains("✔ valid attestation"))
        let fromStdin = try Omni.run(try appleArguments(vector) + ["--attestation", "-", "--output", "json"], stdin: Data(object.utf8))
        #expect(fromStdin.status == 0)
        #expect(fromStdin.stdout == literal.stdout)
    }

    @Test(.vectors("attest")) func refusalsExitOneAndUnusableArgumentsExitThree() throws {
        let vector = try Self.vector(Self.apple2026)
        let object = try Self.field(vector, "attestation_b64")
        // Apple's sample with the hashed challenge: the nonce does not match (how Apple's samples trip verifiers).
        var arguments = try appleArguments(vector).filter { $0 != "raw" && $0 != "--client-data" }
        let hashed = try Omni.run(arguments + ["--attestation", object, "--output", "json"])
        #expect(hashed.status == 1)
        #expect(try JSONValue.parse(Array(hashed.stdout))["reason"] == "nonce_mismatch")
        // Expired at today's date (no --at).
        arguments = try appleArguments(vector)
        let now = try Omni.run(Array(arguments.dropLast(2)) + ["--attestation", object, "--output", "json"])
        #expect(now.status == 1)
        #expect(try JSONValue.parse(Array(now.stdout))["reason"] == "cert_expired")
        // Evidence that is not CBOR is a refusal, not an error.
        let garbage = try Omni.run(arguments + ["--attestation", "AAECAwQF", "--output", "json"])
        #expect(garbage.status == 1)
        #expect(try JSONValue.parse(Array(garbage.stdout))["reason"] == "malformed_cbor")
        // Arguments that cannot be used: exit 3 with a JSON error on stderr.
        let badBase64 = try Omni.run(arguments + ["--attestation", "not base64 at all!", "--output", "json"])
        #expect(badBase64.status == 3)
        #expect(try JSONValue.parse(Array(badBase64.stderr))["error"]?["kind"] == "malformed_input")
        let missingFile = try Omni.run(arguments + ["--attestation", "@/nonexistent/attestation.b64"])
        #expect(missingFile.status == 3)
        // A value that starts with '-' is given as --option=value.
        let badRoot = try Omni.run(arguments + ["--attestation", object, "--root=-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"])
        #expect(badRoot.status == 3)
        let badTime = try Omni.run(Array(arguments.dropLast(2)) + ["--at", "yesterday", "--attestation", object])
        #expect(badTime.status == 3)
        // A missing required option is a usage error.
        let usage = try Omni.run(["attest", "verify-attestation", "--attestation", object])
        #expect(usage.status == 2)
    }

    @Test(.vectors("attest")) func batchOverTheSyntheticVectors() throws {
        let text = try Vectors.text("attest/synthetic/attest_gen_seed1_2026-01-01.jsonl")
        let lines = try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        let attestations = lines.filter { $0["kind"] == "attestation" }
        let assertions = lines.filter { $0["kind"] == "assertion" }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (kind, subset, command) in [("attestation", attestations, "verify-attestation"), ("assertion", assertions, "verify-assertion")] {
            let file = directory.appendingPathComponent("\(kind).jsonl")
            // One unusable line in the middle: it gets an error object and the run goes on.
            var body = subset.map { $0.serialized() }
            body.insert("{not json", at: 2)
            try Data(body.joined(separator: "\n").utf8).write(to: file)
            let result = try Omni.run(["attest", command, "--batch", file.path, "--output", "json"])
            #expect(result.status == 3, "\(kind): \(result.stderrText)")
            let verdicts = try result.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
            #expect(verdicts.count == subset.count + 1)
            #expect(verdicts[2]["error"]?["kind"] == "malformed_input" && verdicts[2]["line"] == 3)
            let judged = verdicts.filter { $0["error"] == nil }
            for (verdict, line) in zip(judged, subset) {
                #expect(verdict["reason"] == line["expect"], "\(line["case"]?.stringValue ?? "?"): \(verdict["reason"]?.stringValue ?? "?")")
                #expect(verdict["id"] == line["case"])
            }
            // Without the bad line: exit 1 (some lines are refused).
            try Data(subset.map { $0.serialized() }.joined(separator: "\n").utf8).write(to: file)
            let clean = try Omni.run(["attest", command, "--batch", file.path])
            #expect(clean.status == 1)
            #expect(clean.stdoutText.split(separator: "\n").filter { $0.hasPrefix("line ") }.count == subset.count)
        }
        // Only valid lines: exit 0, read from stdin.
        let valid = attestations.filter { $0["expect"] == "ok" }.map { $0.serialized() }.joined(separator: "\n")
        let fromStdin = try Omni.run(["attest", "verify-attestation", "--batch", "-", "--output", "json"], stdin: Data(valid.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stdoutText)")
    }

    @Test(.vectors("attest")) func assertionWithPEMJWKAndPoint() throws {
        let vector = try Self.vector("real/assertion/bas-d-2021-dev-assertion.json")
        let base = ["attest", "verify-assertion", "--assertion", try Self.field(vector, "assertion_b64"),
                    "--client-data", try Self.field(vector, "client_data_b64"), "--app-id", try Self.field(vector, "app_id"),
                    "--output", "json"]
        let pem = try Self.field(vector, "public_key_pem")
        let viaPEM = try Omni.run(base + ["--public-key=" + pem])
        #expect(viaPEM.status == 0, "\(viaPEM.stdoutText)\(viaPEM.stderrText)")
        let json = try JSONValue.parse(Array(viaPEM.stdout))
        #expect(json["counter"] == 3 && json["key_id"] == vector["key_id"])
        let jwk = try #require(json["public_key"]?["jwk"])
        let viaJWK = try Omni.run(base + ["--public-key", jwk.serialized()])
        #expect(viaJWK.status == 0)
        let replay = try Omni.run(base + ["--public-key", try Self.field(vector, "public_key_b64"), "--counter", "3"])
        #expect(replay.status == 1)
        #expect(try JSONValue.parse(Array(replay.stdout))["reason"] == "counter_not_increasing")
        let clientDataText = String(decoding: Data(base64Encoded: try Self.field(vector, "client_data_b64")) ?? Data(), as: UTF8.self)
        let raw = try Omni.run(["attest", "verify-assertion", "--assertion", try Self.field(vector, "assertion_b64"),
                                "--client-data", "-", "--client-data-format", "raw", "--app-id", try Self.field(vector, "app_id"),
                                "--public-key=" + pem], stdin: Data(clientDataText.utf8))
        #expect(raw.status == 0, "\(raw.stdoutText)")
    }

    @Test(.vectors("attest")) func serverFlowThroughTheStore() throws {
        let text = try Vectors.text("attest/synthetic/attest_gen_seed1_2026-01-01.jsonl")
        let line = try #require(try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
            .first { $0["case"] == "assert_valid" })
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("attest.db").path
        let rootFile = directory.appendingPathComponent("root.pem")
        try Data(try Self.field(line, "root_pem").utf8).write(to: rootFile)
        let at = try Self.field(line, "verify_at")
        let keyID = try Self.field(line, "key_id")

        // A fresh challenge from the store (random, base64url).
        let minted = try Omni.run(["attest", "challenge", "--store", store, "--output", "json"])
        #expect(minted.status == 0, "\(minted.stderrText)")
        #expect(try JSONValue.parse(Array(minted.stdout))["challenge"]?.stringValue?.count == 43)

        // The synthetic attestation was made over a known challenge: record it, then enroll.
        let challenge = try Self.field(line, "challenge_b64")
        #expect(try Omni.run(["attest", "challenge", "--store", store, "--value", challenge, "--at", at]).status == 0)
        let nonce = challenge.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let body = JSONValue.object(["platform": "ios", "iosKeyId": .string(keyID),
                                     "iosAttestationObject": .string(try Self.field(line, "attestation_b64")),
                                     "nonce": .string(nonce)]).serialized()
        let bodyFile = directory.appendingPathComponent("enroll.json")
        try Data(body.utf8).write(to: bodyFile)
        let enrollArguments = ["attest", "enroll", "--store", store, "--body", bodyFile.path, "--app-id", try Self.field(line, "app_id"),
                               "--root", "@" + rootFile.path, "--at", at, "--output", "json"]
        let enrolled = try Omni.run(enrollArguments)
        #expect(enrolled.status == 0, "\(enrolled.stdoutText)\(enrolled.stderrText)")
        #expect(try JSONValue.parse(Array(enrolled.stdout))["stored_key"]?["counter"] == 0)
        let again = try Omni.run(enrollArguments)
        #expect(again.status == 1)
        #expect(try JSONValue.parse(Array(again.stdout))["reason"] == "unknown_challenge")

        // The assertion, bound to the challenge inside its client data.
        let clientData = try Self.field(line, "client_data_b64")
        let clientDataJSON = try JSONValue.parse(Array(Data(base64Encoded: clientData) ?? Data()))
        let assertionChallenge = try Self.field(clientDataJSON, "challenge")
        let evidence = JSONValue.object(["iosAttestation": .object(["assertion": .string(try Self.field(line, "assertion_b64")),
                                                                    "keyId": .string(keyID)])]).serialized()
        let evidenceFile = directory.appendingPathComponent("evidence.json")
        try Data(evidence.utf8).write(to: evidenceFile)
        #expect(try Omni.run(["attest", "challenge", "--store", store, "--value", assertionChallenge]).status == 0)
        let verifyArguments = ["attest", "verify", "--store", store, "--evidence", evidenceFile.path, "--challenge", assertionChallenge,
                               "--client-data", clientData, "--output", "json"]
        let verified = try Omni.run(verifyArguments)
        #expect(verified.status == 0, "\(verified.stdoutText)\(verified.stderrText)")
        #expect(try JSONValue.parse(Array(verified.stdout))["stored_key"]?["counter"] == 1)
        let replayed = try Omni.run(verifyArguments)
        #expect(replayed.status == 1)
        #expect(try JSONValue.parse(Array(replayed.stdout))["reason"] == "unknown_challenge")
        // Evidence given as literal JSON, the same assertion without a challenge: the counter already moved.
        let literal = try Omni.run(["attest", "verify", "--store", store, "--evidence", evidence, "--client-data", clientData, "--output", "json"])
        #expect(literal.status == 1)
        #expect(try JSONValue.parse(Array(literal.stdout))["reason"] == "counter_not_increasing")

        // Operators: list, show, revoke.
        let list = try Omni.run(["attest", "keys", "list", "--store", store, "--output", "json"])
        #expect(list.status == 0)
        #expect(try JSONValue.parse(Array(list.stdout))["keys"]?.arrayValue?.count == 1)
        let show = try Omni.run(["attest", "keys", "show", "--store", store, keyID, "--output", "json"])
        #expect(show.status == 0)
        #expect(try JSONValue.parse(Array(show.stdout))["counter"] == 1)
        #expect(try Omni.run(["attest", "keys", "show", "--store", store, "AAAA"]).status == 1)
        let revoke = try Omni.run(["attest", "keys", "revoke", "--store", store, keyID, "--output", "json"])
        #expect(revoke.status == 0)
        #expect(try JSONValue.parse(Array(revoke.stdout))["status"] == "revoked")
        let afterRevoke = try Omni.run(["attest", "verify-assertion", "--store", store, "--key-id", keyID,
                                        "--assertion", try Self.field(line, "assertion_b64"), "--client-data", clientData, "--output", "json"])
        #expect(afterRevoke.status == 1)
        #expect(try JSONValue.parse(Array(afterRevoke.stdout))["reason"] == "key_revoked")
        // The store keeps the counter: a --counter beside --store would be ignored, so it is a usage error.
        let withCounter = try Omni.run(["attest", "verify-assertion", "--store", store, "--key-id", keyID, "--counter", "0",
                                        "--assertion", try Self.field(line, "assertion_b64"), "--client-data", clientData])
        #expect(withCounter.status == 2, "\(withCounter.stderrText)")
        // A store path that cannot be a database: a configuration problem (exit 7), not a verdict.
        let notAStore = try Omni.run(["attest", "keys", "list", "--store", bodyFile.path])
        #expect(notAStore.status == 7)
    }

    @Test(.vectors("attest")) func receiptCommand() throws {
        let vector = try Self.vector("real/receipt/veehaitch-ios-14.2-dev-receipt-2.json")
        let created = try Self.field(vector["expected"]?["fields"] ?? .null, "creation_time")
        let result = try Omni.run(["attest", "receipt", "--receipt", try Self.field(vector, "receipt_b64"), "--app-id",
                                   try Self.field(vector, "app_id"), "--key-id", try Self.field(vector, "key_id"), "--at", created,
                                   "--output", "json"])
        #expect(result.status == 0, "\(result.stdoutText)")
        let json = try JSONValue.parse(Array(result.stdout))
        #expect(json["receipt_type"] == "RECEIPT" && json["risk_metric"] == 2 && json["environment"] == "sandbox")
        let wrongApp = try Omni.run(["attest", "receipt", "--receipt", try Self.field(vector, "receipt_b64"), "--app-id",
                                     "ABCDE12345.com.example.other", "--at", created])
        #expect(wrongApp.status == 1)
    }
}
