import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// `omni ic bls verify` against the shared BLS vectors, through the real binary.
@Suite(.vectors("bls"), .serialized, .offPool) struct BLSEndToEndTests {
    struct Case {
        let name: String
        let pk: String
        let msg: String
        let sig: String
        let valid: Bool
    }

    static func knownAnswers() throws -> [Case] {
        let root = try JSONValue.parse(Vectors.text("bls/ic_bls_known_answers.json"))
        return try (root["cases"]?.arrayValue ?? []).map { item in
            guard let name = item["name"]?.stringValue, let pk = item["pk"]?.stringValue,
                  let msg = item["msg"]?.stringValue, let sig = item["sig"]?.stringValue,
                  let valid = item["valid"]?.boolValue
            else { throw TestSupportError("unexpected case shape: \(item.serialized())") }
            return Case(name: name, pk: pk, msg: msg, sig: sig, valid: valid)
        }
    }

    @Test func everyKnownAnswerGivesItsVerdictAndExitCode() throws {
        let cases = try Self.knownAnswers()
        #expect(cases.count == 13)
        for item in cases {
            let result = try Omni.run(["ic", "bls", "verify", "--public-key", item.pk, "--signature", item.sig,
                                       "--message", item.msg, "--output", "json"])
            #expect(result.status == (item.valid ? 0 : 1), "\(item.name): \(result.stderrText)")
            let verdict = try JSONValue.parse(Array(result.stdout))
            #expect(verdict["valid"] == .bool(item.valid), "\(item.name)")
            if !item.valid { #expect(verdict["reason"]?.stringValue?.isEmpty == false, "\(item.name) names a reason") }
        }
    }

    @Test func reasonsNameTheFailingCheck() throws {
        let item = try #require(try Self.knownAnswers().first { $0.name == "agentjs_hallo" })
        let text = try Omni.run(["ic", "bls", "verify", "--public-key", item.pk, "--signature", item.sig,
                                 "--message", item.msg])
        #expect(text.status == 1)
        #expect(text.stdoutText == "invalid: pairing check failed\n")
        // Flip the x coordinate of the signature off the curve by zeroing it (keeping the compression flag).
        let offCurve = "8" + String(repeating: "0", count: 95)
        let point = try Omni.run(["ic", "bls", "verify", "--public-key", item.pk, "--signature", offCurve,
                                  "--message", item.msg, "-o", "json"])
        #expect(point.status == 1)
        let verdict = try JSONValue.parse(Array(point.stdout))
        #expect(verdict["reason_code"]?.stringValue?.hasPrefix("signature_") == true, "\(point.stdoutText)")
    }

    @Test func malformedHexAndLengthsExitThree() throws {
        let item = try #require(try Self.knownAnswers().first)
        let badHex = try Omni.run(["ic", "bls", "verify", "--public-key", item.pk, "--signature", "zz" + item.sig.dropFirst(2),
                                   "--message", item.msg])
        #expect(badHex.status == 3)
        #expect(badHex.stderrText.contains("--signature"))
        let short = try Omni.run(["ic", "bls", "verify", "--public-key", item.pk, "--signature", String(item.sig.dropLast(2)),
                                  "--message", item.msg])
        #expect(short.status == 3)
        #expect(short.stderrText.contains("wrong length"))
        let missing = try Omni.run(["ic", "bls", "verify", "--public-key", item.pk])
        #expect(missing.status == 2)
    }

    @Test func valuesFromFilesAndStdin() throws {
        let item = try #require(try Self.knownAnswers().first { $0.valid })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("omni-bls-\(UUID()).hex")
        try (item.pk + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try Omni.run(["ic", "bls", "verify", "--public-key", "@" + file.path, "--signature", "-",
                                   "--message", item.msg], stdin: Data(item.sig.utf8))
        #expect(result.status == 0, "\(result.stderrText)")
    }

    /// The 209 generated cases as one batch: one verdict line per input, in order, each matching blst's label.
    @Test func batchMatchesTheGeneratedLabels() throws {
        let lines = try JSONValue.parseLines(Vectors.text("bls/ic_bls_generated_seed20260101_n10.jsonl"))
        #expect(lines.count == 209)
        var input = ""
        var expected: [Bool] = []
        // Wrong lengths cannot be points: malformed input, so such a line is unusable (as exit 3 is for one signature).
        var wrongLength: Set<Int> = []
        for line in lines {
            if line["case"] == "wrong_length" { wrongLength.insert(expected.count) }
            let object: JSONValue = ["public_key": line["pk"] ?? .null, "signature": line["sig"] ?? .null,
                                     "message": line["msg"] ?? .null]
            input += object.serialized() + "\n"
            expected.append(line["valid"]?.boolValue ?? false)
        }
        input += "not json\n"
        wrongLength.insert(expected.count)
        expected.append(false)
        let result = try Omni.run(["ic", "bls", "verify", "--batch", "-", "--output", "jsonl"], stdin: Data(input.utf8))
        #expect(result.status == 3, "unusable lines (and invalid cases)")
        let verdicts = try JSONValue.parseLines(result.stdoutText)
        #expect(verdicts.count == expected.count)
        for (index, (verdict, valid)) in zip(verdicts, expected).enumerated() {
            #expect(verdict["line"] == .int(index + 1), "results come in input order")
            if wrongLength.contains(index) {
                #expect(verdict["error"]?["kind"] == "malformed_input", "line \(index + 1): \(verdict.serialized())")
            } else {
                #expect(verdict["valid"] == .bool(valid), "line \(index + 1): \(verdict.serialized())")
            }
        }
        #expect(wrongLength.count == 11, "10 wrong-length cases and the line that is not JSON")
    }
}
