import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `omni attest` through the real binary: verdicts and exit codes (0 valid, 1 refused, 3 unusable argument), value
/// options as literal, @FILE and -, files as InputFile, batch mode over the synthetic vectors with the operator's
/// policy, and the store-backed server flow.
@Suite(.vectors("attest"), .serialized, .offPool) struct AttestEndToEndTests {
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

    static func write(_ text: String, _ directory: URL, _ name: String) throws -> String {
        let file = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    /// One JSON document per line of stdout (the `--output jsonl` form of a verdict).
    static func lines(_ result: ProcessResult) throws -> [JSONValue] {
        try result.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    static func single(_ result: ProcessResult) throws -> JSONValue {
        let documents = try lines(result)
        guard documents.count == 1 else { throw TestSupportError("expected one JSON line, got \(documents.count): \(result.stdoutText)") }
        return documents[0]
    }

    static let apple2026 = "real/attestation/apple-doc-2026-ios27-prod.json"

    func appleArguments(_ vector: JSONValue) throws -> [String] {
        ["attest", "verify-attestation", "--key-id", try Self.field(vector, "key_id"), "--app-id", try Self.field(vector, "app_id"),
         "--challenge", try Self.field(vector["challenge"] ?? .null, "b64"), "--challenge-hash", "raw",
         "--at", try Self.field(vector, "verify_at")]
    }

    static func syntheticLines() throws -> [JSONValue] {
        let text = try Vectors.text("attest/synthetic/attest_gen_seed1_2026-01-01.jsonl")
        return try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    @Test func verifiesApplesSampleFromLiteralFileAndStdin() throws {
        let vector = try Self.vector(Self.apple2026)
        let object = try Self.field(vector, "attestation_b64")
        let literal = try Omni.run(try appleArguments(vector) + ["--attestation", object, "--output", "jsonl"])
        #expect(literal.status == 0, "\(literal.stderrText)")
        let json = try Self.single(literal)
        #expect(json["valid"] == true && json["reason"] == "ok")
        #expect(json["environment"] == "production" && json["aaguid"] == "appattest" && json["counter"] == 0)
        #expect(json["public_key"]?["pem"] == vector["expected"]?["public_key_pem"])
        #expect(json["public_key"]?["jwk"]?["crv"] == "P-256")
        #expect(json["certificate"]?["not_after"] == vector["expected"]?["leaf_not_after"])
        #expect(json["extensions"] == vector["expected"]?["extensions"])
        // Apple's receipt passes the pinned receipt chain (intermediate fingerprint and signer subject).
        #expect(json["receipt"]?["valid"] == true && json["receipt"]?["type"] == "ATTEST", "\(json["receipt"] ?? .null)")
        #expect(!literal.stderrText.contains("receipt does not verify"))

        // --output json is one document: the verdict object itself (a batch is one array).
        let document = try Omni.run(try appleArguments(vector) + ["--attestation", object, "--output", "json"])
        #expect(try JSONValue.parse(Array(document.stdout)) == json)

        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.write(object + "\n", directory, "attestation.b64")
        let fromFile = try Omni.run(try appleArguments(vector) + ["--attestation", "@" + file])
        #expect(fromFile.status == 0, "\(fromFile.stderrText)")
        #expect(fromFile.stdoutText.contains("✔ valid attestation"))
        let fromStdin = try Omni.run(try appleArguments(vector) + ["--attestation", "-", "--output", "jsonl"], stdin: Data(object.utf8))
        #expect(fromStdin.status == 0)
        #expect(fromStdin.stdout == literal.stdout)
        // --at takes Unix seconds as well as RFC 3339.
        var unix = try appleArguments(vector)
        unix[unix.count - 1] = "1776795192"
        #expect(try Omni.run(unix + ["--attestation", object]).status == 0)
    }

    @Test func refusalsExitOneAndUnusableArgumentsExitThree() throws {
        let vector = try Self.vector(Self.apple2026)
        let object = try Self.field(vector, "attestation_b64")
        // Apple's sample with the hashed challenge: the nonce does not match (how Apple's samples trip verifiers).
        var arguments = try appleArguments(vector).filter { $0 != "raw" && $0 != "--challenge-hash" }
        let hashed = try Omni.run(arguments + ["--attestation", object, "--output", "jsonl"])
        #expect(hashed.status == 1)
        #expect(try Self.single(hashed)["reason"] == "nonce_mismatch")
        // Expired at today's date (no --at).
        arguments = try appleArguments(vector)
        let now = try Omni.run(Array(arguments.dropLast(2)) + ["--attestation", object, "--output", "jsonl"])
        #expect(now.status == 1)
        #expect(try Self.single(now)["reason"] == "cert_expired")
        // Evidence that is not CBOR is a refusal, not an error.
        let garbage = try Omni.run(arguments + ["--attestation", "AAECAwQF", "--output", "jsonl"])
        #expect(garbage.status == 1)
        #expect(try Self.single(garbage)["reason"] == "malformed_cbor")
        // Arguments that cannot be used: exit 3 with a JSON error on stderr.
        let badBase64 = try Omni.run(arguments + ["--attestation", "not base64 at all!", "--output", "json"])
        #expect(badBase64.status == 3)
        #expect(try JSONValue.parse(Array(badBase64.stderr))["error"]?["kind"] == "malformed_input")
        let missingFile = try Omni.run(arguments + ["--attestation", "@/nonexistent/attestation.b64"])
        #expect(missingFile.status == 3)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let badPEM = try Self.write("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", directory, "bad.pem")
        let badRoot = try Omni.run(arguments + ["--attestation", object, "--root", badPEM])
        #expect(badRoot.status == 3, "\(badRoot.stderrText)")
        #expect(try Omni.run(arguments + ["--attestation", object, "--root", directory.appendingPathComponent("none.pem").path]).status == 3)
        // --at is the framework's Instant: malformed or outside 2000 … 2200 is malformed input.
        for at in ["yesterday", "1990-01-01T00:00:00Z", "1776795192000", "2026-13-01T00:00:00Z"] {
            let badTime = try Omni.run(Array(arguments.dropLast(2)) + ["--at", at, "--attestation", object])
            #expect(badTime.status == 3, "\(at): \(badTime.stderrText)")
        }
        // Command-line shape: exit 2.
        #expect(try Omni.run(["attest", "verify-attestation", "--attestation", object]).status == 2)
        #expect(try Omni.run(arguments + ["--attestation", object, "--client-data-hash", "AAAA"]).status == 2)
        #expect(try Omni.run(arguments + ["--attestation", object, "--batch", "x.jsonl"]).status == 2)
        #expect(try Omni.run(arguments + ["--attestation", object, "--trust-line-policy"]).status == 2)
        // --client-data is the client data itself everywhere: here, where there is none, it is no option at all.
        #expect(try Omni.run(arguments + ["--attestation", object, "--client-data", "raw"]).status == 2)
    }

    /// The synthetic vectors bring their own root, time and environment: they run only as trusted lines.
    @Test func batchOverTheSyntheticVectors() throws {
        let lines = try Self.syntheticLines()
        let attestations = lines.filter { $0["kind"] == "attestation" }
        let assertions = lines.filter { $0["kind"] == "assertion" }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (kind, subset, command) in [("attestation", attestations, "verify-attestation"), ("assertion", assertions, "verify-assertion")] {
            // One unusable line in the middle: it gets an error object and the run goes on.
            var body = subset.map { $0.serialized() }
            body.insert("{not json", at: 2)
            let file = try Self.write(body.joined(separator: "\n"), directory, "\(kind).jsonl")
            let result = try Omni.run(["attest", command, "--batch", file, "--trust-line-policy", "--output", "jsonl"])
            #expect(result.status == 3, "\(kind): \(result.stderrText)")
            let verdicts = try Self.lines(result)
            #expect(verdicts.count == subset.count + 1)
            #expect(verdicts[2]["error"]?["kind"] == "malformed_input" && verdicts[2]["line"] == 3)
            let judged = verdicts.filter { $0["error"] == nil }
            for (verdict, line) in zip(judged, subset) {
                #expect(verdict["reason"] == line["expect"], "\(line["case"]?.stringValue ?? "?"): \(verdict["reason"]?.stringValue ?? "?")")
                #expect(verdict["id"] == line["case"])
            }
            // Without the bad line: exit 1 (some lines are refused); text is one line per verdict, in order.
            _ = try Self.write(subset.map { $0.serialized() }.joined(separator: "\n"), directory, "\(kind).jsonl")
            let clean = try Omni.run(["attest", command, "--batch", file, "--trust-line-policy"])
            #expect(clean.status == 1)
            let numbered = clean.stdoutText.split(separator: "\n").filter { $0.hasPrefix("line ") }
            #expect(numbered.count == subset.count)
            #expect(numbered.first?.hasPrefix("line 1: ") == true && numbered.last?.hasPrefix("line \(subset.count): ") == true)
            // --output json: exactly one document, an array of every verdict.
            let json = try Omni.run(["attest", command, "--batch", file, "--trust-line-policy", "--output", "json"])
            #expect(try JSONValue.parse(Array(json.stdout)).arrayValue?.count == subset.count)
        }
        // Only valid lines: exit 0, read from stdin.
        let valid = attestations.filter { $0["expect"] == "ok" }.map { $0.serialized() }.joined(separator: "\n")
        let fromStdin = try Omni.run(["attest", "verify-attestation", "--batch", "-", "--trust-line-policy", "--output", "jsonl"],
                                     stdin: Data(valid.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stdoutText)")
    }

    /// Attestation lines are appraised in parallel (`--jobs`, one per processor by default): the output is byte for
    /// byte that of one line at a time, and each verdict is out as soon as its line is in, so a producer can wait for
    /// every answer before it sends the next line.
    @Test func parallelBatchesGiveTheSequentialVerdictsAndStillStream() throws {
        let attestations = try Self.syntheticLines().filter { $0["kind"] == "attestation" }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = (attestations + attestations + attestations).map { $0.serialized() }
        let file = try Self.write(body.joined(separator: "\n") + "\n", directory, "attestations.jsonl")
        let command = ["attest", "verify-attestation", "--batch", file, "--trust-line-policy"]
        for output in ["jsonl", "text"] {
            let sequential = try Omni.run(command + ["--jobs", "1", "--output", output])
            #expect(sequential.status == 1, "the synthetic lines include refusals: \(sequential.stderrText)")
            for jobs in [["--jobs", "5"], []] {
                let parallel = try Omni.run(command + jobs + ["--output", output])
                #expect(parallel.status == sequential.status && parallel.stdout == sequential.stdout, "\(jobs) \(output)")
            }
        }
        // The environment is read when the flag is absent, and the flag wins over it.
        #expect(try Omni.run(command, environment: ["OMNI_ATTEST_JOBS": "0"]).status == 2)
        #expect(try Omni.run(command + ["--jobs", "2"], environment: ["OMNI_ATTEST_JOBS": "0"]).status == 1)

        let valid = try #require(attestations.first { $0["expect"] == "ok" })
        let process = try BackgroundProcess(
            executable: Omni.executable,
            ["attest", "verify-attestation", "--batch", "-", "--trust-line-policy", "--jobs", "4", "--output", "jsonl"],
            environment: Omni.environment(), stdinPipe: true)
        for round in 1...3 {
            try process.write(valid.serialized() + "\n")
            let verdict = try process.jsonLine(round, timeout: 60) { _ in true }
            #expect(verdict["line"] == .int(round) && verdict["valid"] == true, "\(verdict)")
        }
        try process.closeStdin()
        #expect(try process.waitForExit(timeout: 60) == 0)

        let zero = try Omni.run(command + ["--jobs", "0"])
        #expect(zero.status == 2 && zero.stderrText.contains("--jobs must be from 1 to 256"), "\(zero.stderrText)")
        #expect(try Omni.run(["attest", "verify-attestation", "--attestation", "AAAA", "--jobs", "2"]).status == 2)
    }

    /// Issue 11: a batch line is client input, so it cannot bring its own trust root, time, environment or app id.
    @Test func aBatchLineCannotBringItsOwnPolicy() throws {
        let line = try #require(try Self.syntheticLines().first { $0["case"] == "valid_prod" })
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rootFile = try Self.write(try Self.field(line, "root_pem"), directory, "root.pem")
        let at = try Self.field(line, "verify_at")
        let appID = try Self.field(line, "app_id")
        func run(_ lineObject: JSONValue, _ options: [String]) throws -> (status: Int32, verdict: JSONValue) {
            let file = try Self.write(lineObject.serialized() + "\n", directory, "batch.jsonl")
            let result = try Omni.run(["attest", "verify-attestation", "--batch", file, "--output", "jsonl"] + options)
            return (result.status, try Self.single(result))
        }
        func with(_ changes: [(String, JSONValue)]) -> JSONValue {
            var object = line.objectValue ?? JSONObject()
            for (key, value) in changes { object[key] = value }
            return .object(object)
        }
        // The line carries root_pem, verify_at and environment; the operator gives none of them: refused, naming the root.
        let ownRoot = try run(line, ["--app-id", appID])
        #expect(ownRoot.status == 3)
        let message = ownRoot.verdict["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("\"root_pem\"") && message.contains("--trust-line-policy"), "\(message)")
        // The same line agreeing with the operator's policy on every field is judged (and valid).
        let agreeing = try run(line, ["--app-id", appID, "--root", rootFile, "--at", at])
        #expect(agreeing.status == 0 && agreeing.verdict["reason"] == "ok", "\(agreeing.verdict)")
        // Each policy field that differs from the operator's is refused on its own.
        let operatorPolicy = ["--app-id", appID, "--root", rootFile, "--at", at]
        for (field, value) in [("app_id", JSONValue.string("OTHERTEAM1.org.example.other")), ("environment", "any"),
                               ("verify_at", "2026-01-01T00:00:01Z"), ("challenge_hash", "raw")] {
            let refused = try run(with([(field, value)]), operatorPolicy)
            #expect(refused.status == 3, "\(field)")
            #expect(refused.verdict["error"]?["message"]?.stringValue?.contains("\"\(field)\"") == true, "\(field): \(refused.verdict)")
        }
        // Behind --trust-line-policy the line's own policy applies.
        let trusted = try run(line, ["--trust-line-policy"])
        #expect(trusted.status == 0 && trusted.verdict["reason"] == "ok", "\(trusted.verdict)")
        // Assertions: a line's app_id is policy too.
        let assertion = try #require(try Self.syntheticLines().first { $0["case"] == "assert_valid" })
        let file = try Self.write(assertion.serialized() + "\n", directory, "assertions.jsonl")
        let otherApp = try Omni.run(["attest", "verify-assertion", "--batch", file, "--app-id", "OTHERTEAM1.org.example.other", "--output", "jsonl"])
        #expect(otherApp.status == 3, "\(otherApp.stdoutText)")
        let sameApp = try Omni.run(["attest", "verify-assertion", "--batch", file, "--app-id", appID, "--output", "jsonl"])
        #expect(sameApp.status == 0, "\(sameApp.stdoutText)")
    }

    @Test func assertionWithPEMJWKAndPointFiles() throws {
        let vector = try Self.vector("real/assertion/bas-d-2021-dev-assertion.json")
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = ["attest", "verify-assertion", "--assertion", try Self.field(vector, "assertion_b64"),
                    "--client-data", try Self.field(vector, "client_data_b64"), "--app-id", try Self.field(vector, "app_id"),
                    "--output", "jsonl"]
        let pem = try Self.write(try Self.field(vector, "public_key_pem"), directory, "key.pem")
        let viaPEM = try Omni.run(base + ["--public-key", pem])
        #expect(viaPEM.status == 0, "\(viaPEM.stdoutText)\(viaPEM.stderrText)")
        let json = try Self.single(viaPEM)
        #expect(json["counter"] == 3 && json["key_id"] == vector["key_id"])
        let jwk = try Self.write(try #require(json["public_key"]?["jwk"]).serialized(), directory, "key.jwk")
        #expect(try Omni.run(base + ["--public-key", jwk]).status == 0)
        let point = try Self.write(try Self.field(vector, "public_key_b64"), directory, "key.b64")
        let replay = try Omni.run(base + ["--public-key", "@" + point, "--counter", "3"])
        #expect(replay.status == 1)
        #expect(try Self.single(replay)["reason"] == "counter_not_increasing")
        // The key from stdin; the client data as its exact bytes from a file.
        let clientData = Data(base64Encoded: try Self.field(vector, "client_data_b64")) ?? Data()
        let clientDataFile = directory.appendingPathComponent("client-data.json")
        try clientData.write(to: clientDataFile)
        let raw = try Omni.run(["attest", "verify-assertion", "--assertion", try Self.field(vector, "assertion_b64"),
                                "--client-data", "@" + clientDataFile.path, "--client-data-format", "raw",
                                "--app-id", try Self.field(vector, "app_id"), "--public-key", "-"],
                               stdin: Data(try Self.field(vector, "public_key_pem").utf8))
        #expect(raw.status == 0, "\(raw.stdoutText)\(raw.stderrText)")
        // --client-data base64 that is not base64, or not UTF-8 at all: exit 3 (with the byte offset).
        let notBase64 = try Omni.run(["attest", "verify-assertion", "--assertion", try Self.field(vector, "assertion_b64"),
                                      "--client-data", "%%%", "--app-id", try Self.field(vector, "app_id"), "--public-key", pem])
        #expect(notBase64.status == 3, "\(notBase64.stderrText)")
        let notUTF8 = directory.appendingPathComponent("bad.bin")
        try Data([0x41, 0xFF, 0x42]).write(to: notUTF8)
        let badText = try Omni.run(["attest", "verify-assertion", "--assertion", try Self.field(vector, "assertion_b64"),
                                    "--client-data", "@" + notUTF8.path, "--app-id", try Self.field(vector, "app_id"),
                                    "--public-key", pem])
        #expect(badText.status == 3 && badText.stderrText.contains("byte 1"), "\(badText.stderrText)")
        // --counter goes with --public-key; --client-data-format with --client-data.
        #expect(try Omni.run(["attest", "verify-assertion", "--assertion", "AAAA", "--counter", "1", "--app-id", "A.b"]).status == 2)
        #expect(try Omni.run(["attest", "verify-assertion", "--assertion", "AAAA", "--client-data-format", "raw",
                              "--client-data-hash", "AAAA", "--public-key", pem, "--app-id", "A.b"]).status == 2)
    }

    @Test func serverFlowThroughTheStore() throws {
        let line = try #require(try Self.syntheticLines().first { $0["case"] == "assert_valid" })
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("attest.db").path
        let rootFile = try Self.write(try Self.field(line, "root_pem"), directory, "root.pem")
        let at = try Self.field(line, "verify_at")
        let keyID = try Self.field(line, "key_id")

        // A fresh challenge from the store (random, base64url); the store file is the owner's only.
        let minted = try Omni.run(["attest", "challenge", "--store", store, "--output", "jsonl"])
        #expect(minted.status == 0, "\(minted.stderrText)")
        #expect(try Self.single(minted)["challenge"]?.stringValue?.count == 43)
        let mode = (try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let three = try Omni.run(["attest", "challenge", "--store", store, "--count", "3", "--output", "json"])
        #expect(try JSONValue.parse(Array(three.stdout)).arrayValue?.count == 3)
        #expect(try Omni.run(["attest", "challenge", "--store", "-"]).status == 2)
        #expect(try Omni.run(["attest", "challenge", "--store", store, "--value", "AAAAAAAAAAAA", "--count", "2"]).status == 2)

        // The synthetic attestation was made over a known challenge: record it, then enroll.
        let challenge = try Self.field(line, "challenge_b64")
        #expect(try Omni.run(["attest", "challenge", "--store", store, "--value", challenge, "--at", at]).status == 0)
        let nonce = challenge.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let body = JSONValue.object(["platform": "ios", "iosKeyId": .string(keyID),
                                     "iosAttestationObject": .string(try Self.field(line, "attestation_b64")),
                                     "nonce": .string(nonce)]).serialized()
        let bodyFile = try Self.write(body, directory, "enroll.json")
        let enrollArguments = ["attest", "enroll", "--store", store, "--body", "@" + bodyFile, "--app-id", try Self.field(line, "app_id"),
                               "--root", rootFile, "--at", at, "--output", "json"]
        let enrolled = try Omni.run(enrollArguments)
        #expect(enrolled.status == 0, "\(enrolled.stdoutText)\(enrolled.stderrText)")
        #expect(try JSONValue.parse(Array(enrolled.stdout))["stored_key"]?["counter"] == 0)
        let again = try Omni.run(enrollArguments)
        #expect(again.status == 1)
        #expect(try JSONValue.parse(Array(again.stdout))["reason"] == "unknown_challenge")
        #expect(try Omni.run(["attest", "enroll", "--store", store, "--body", body]).status == 2)  // no --app-id

        // The assertion, bound to the challenge in its client data's "challenge" field.
        let clientData = try Self.field(line, "client_data_b64")
        let clientDataJSON = try JSONValue.parse(Array(Data(base64Encoded: clientData) ?? Data()))
        let assertionChallenge = try Self.field(clientDataJSON, "challenge")
        let evidence = JSONValue.object(["iosAttestation": .object(["assertion": .string(try Self.field(line, "assertion_b64")),
                                                                    "keyId": .string(keyID)])]).serialized()
        let evidenceFile = try Self.write(evidence, directory, "evidence.json")
        // A challenge field the client data does not have: challenge_mismatch (and the challenge is used up).
        #expect(try Omni.run(["attest", "challenge", "--store", store, "--value", assertionChallenge]).status == 0)
        let wrongField = try Omni.run(["attest", "verify", "--store", store, "--evidence", "@" + evidenceFile, "--challenge", assertionChallenge,
                                       "--client-data", clientData, "--challenge-field", "nonce", "--output", "json"])
        #expect(wrongField.status == 1)
        #expect(try JSONValue.parse(Array(wrongField.stdout))["reason"] == "challenge_mismatch")
        #expect(try Omni.run(["attest", "challenge", "--store", store, "--value", assertionChallenge]).status == 0)
        let verifyArguments = ["attest", "verify", "--store", store, "--evidence", "@" + evidenceFile, "--challenge", assertionChallenge,
                               "--client-data", clientData, "--challenge-field", "challenge", "--output", "json"]
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
        // --challenge-field needs a challenge and the client data.
        #expect(try Omni.run(["attest", "verify", "--store", store, "--evidence", evidence, "--client-data", clientData,
                              "--challenge-field", "challenge"]).status == 2)

        // Operators: list (a table: tab-separated, no header, when piped), show, revoke.
        let list = try Omni.run(["attest", "keys", "list", "--store", store, "--output", "json"])
        #expect(list.status == 0)
        #expect(try JSONValue.parse(Array(list.stdout))["keys"]?.arrayValue?.count == 1)
        let table = try Omni.run(["attest", "keys", "list", "--store", store])
        let rows = table.stdoutText.split(separator: "\n")
        #expect(rows.count == 1 && rows[0].split(separator: "\t").map(String.init).prefix(4) == [keyID, "active", "production", "1"],
                "\(table.stdoutText)")
        let show = try Omni.run(["attest", "keys", "show", "--store", store, keyID, "--output", "json"])
        #expect(show.status == 0)
        #expect(try JSONValue.parse(Array(show.stdout))["counter"] == 1)
        #expect(try Omni.run(["attest", "keys", "show", "--store", store, "AAAA"]).status == 1)
        #expect(try Omni.run(["attest", "keys", "show", "--store", store, "***"]).status == 3)
        let revoke = try Omni.run(["attest", "keys", "revoke", "--store", store, keyID, "--output", "json"])
        #expect(revoke.status == 0)
        #expect(try JSONValue.parse(Array(revoke.stdout))["status"] == "revoked")
        let afterRevoke = try Omni.run(["attest", "verify-assertion", "--store", store, "--key-id", keyID,
                                        "--assertion", try Self.field(line, "assertion_b64"), "--client-data", clientData, "--output", "jsonl"])
        #expect(afterRevoke.status == 1)
        #expect(try Self.single(afterRevoke)["reason"] == "key_revoked")
        // The store keeps the counter: a --counter beside --store would be ignored, so it is a usage error.
        let withCounter = try Omni.run(["attest", "verify-assertion", "--store", store, "--key-id", keyID, "--counter", "0",
                                        "--assertion", try Self.field(line, "assertion_b64"), "--client-data", clientData])
        #expect(withCounter.status == 2, "\(withCounter.stderrText)")
        // A store path that cannot be a database: a configuration problem (exit 7), not a verdict.
        let notAStore = try Omni.run(["attest", "keys", "list", "--store", bodyFile])
        #expect(notAStore.status == 7)
        #expect(try Omni.run(["attest", "keys", "list", "--store", directory.appendingPathComponent("no/such/dir.db").path]).status == 7)
        #expect(try Omni.run(["attest", "keys", "list"], environment: ["OMNI_ATTEST_STORE": "~/attest.db"]).status == 7)
    }

    @Test func receiptCommand() throws {
        let vector = try Self.vector("real/receipt/veehaitch-ios-14.2-dev-receipt-2.json")
        let created = try Self.field(vector["expected"]?["fields"] ?? .null, "creation_time")
        let result = try Omni.run(["attest", "receipt", "--receipt", try Self.field(vector, "receipt_b64"), "--app-id",
                                   try Self.field(vector, "app_id"), "--key-id", try Self.field(vector, "key_id"), "--at", created,
                                   "--output", "json"])
        #expect(result.status == 0, "\(result.stdoutText)")
        let json = try JSONValue.parse(Array(result.stdout))
        #expect(json["receipt_type"] == "RECEIPT" && json["risk_metric"] == 2 && json["environment"] == "sandbox")
        #expect(json["signer_chain"]?.arrayValue?.count == 3)
        let wrongApp = try Omni.run(["attest", "receipt", "--receipt", try Self.field(vector, "receipt_b64"), "--app-id",
                                     "ABCDE12345.com.example.other", "--at", created])
        #expect(wrongApp.status == 1)
        #expect(try Omni.run(["attest", "receipt", "--at", created]).status == 2)
    }
}
