import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// Big inputs in bounded memory. The two big batch paths run in flat memory: ten times the lines (and about ten
/// times the input bytes) may not grow peak RSS by more than a small fraction of the extra input. If the input were
/// read whole, or results were held back until the end, the 20,000-line run would need tens of megabytes more than
/// the 2,000-line one.
/// Peak RSS comes from GNU time (`/usr/bin/time -f %M`); the test skips loudly without it. No timing is asserted.
@Suite(.timeLimit(.minutes(5)), .serialized, .offPool) struct BatchMemoryEndToEndTests {
    /// Allowed growth from 2,000 to 20,000 lines. The attestation input grows by about 80 MB, the BLS one by 8 MB.
    static let allowedGrowthKiB = 8 * 1024

    /// A line of attestation-sized JSON whose attestation is not CBOR: a verdict (malformed_cbor, exit 1) after the
    /// whole line was parsed and decoded, so the run exercises the reader, the JSON and base64 decoders and the
    /// verdict output at a real line size (~5 KB) without minting certificates.
    static func attestationLine(_ index: Int, filler: String) -> String {
        #"{"id":"a\#(index)","attestation":"\#(filler)","key_id":"\#(String(repeating: "A", count: 43))=","client_data_hash":"\#(String(repeating: "B", count: 43))="}"#
    }

    /// A BLS line with a well-formed key and a 48-byte signature that is not a point (no compression flag): a
    /// negative verdict per line, the key decoded once per chunk.
    static func blsLine(_ index: Int) -> String {
        let key = "814c0e6ec71fab583b08bd81373c255c3c371b2e84863c98a4f1e08b74235d14fb5d9c0cd546d9685f913a0c0b2cc534"
            + "1583bf4b4392e467db96d65b9bb4cb717112f8472e0d5a4d14505ffd7484b01291091c5f87b98883463f98091a0baaae"
        let message = String(format: "%064x", index)
        return #"{"id":\#(index),"public_key":"\#(key)","signature":"\#(String(repeating: "00", count: 48))","message":"\#(message)"}"#
    }

    struct Run {
        let peakKiB: Int
        let lines: [String]
        let status: Int32
    }

    /// Writes `count` lines to a file, runs omni on it under GNU time, returns peak RSS and the output lines.
    static func run(_ arguments: [String], count: Int, line: (Int) -> String) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-batch-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("input.jsonl")
        FileManager.default.createFile(atPath: input.path, contents: nil)
        let handle = try FileHandle(forWritingTo: input)
        var buffer = ""
        for index in 0..<count {
            buffer += line(index) + "\n"
            if buffer.utf8.count > 1 << 20 { handle.write(Data(buffer.utf8)); buffer = "" }
        }
        handle.write(Data(buffer.utf8))
        try handle.close()
        let (peak, result) = try measured(arguments + ["--batch", input.path, "--output", "jsonl"], in: directory)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        return Run(peakKiB: peak, lines: lines, status: result.status)
    }

    /// Runs omni under GNU time: its peak RSS in KiB and what it printed (`directory` holds the measurement).
    static func measured(_ arguments: [String], in directory: URL) throws -> (peakKiB: Int, result: ProcessResult) {
        let measurement = directory.appendingPathComponent("rss-\(UUID().uuidString)")
        let result = try Subprocess.run("/usr/bin/time", ["-o", measurement.path, "-f", "%M", Omni.executable] + arguments,
                                        environment: Omni.environment())
        let text = try String(contentsOf: measurement, encoding: .utf8)
        guard let peak = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw TestSupportError("GNU time wrote no peak RSS: \(text)")
        }
        return (peak, result)
    }

    static func checkFlat(_ arguments: [String], expectedStatus: Int32, line: @escaping @Sendable (Int) -> String) async throws {
        let (small, large) = try await offPool {
            (try run(arguments, count: 2_000, line: line), try run(arguments, count: 20_000, line: line))
        }
        for (run, count) in [(small, 2_000), (large, 20_000)] {
            #expect(run.status == expectedStatus)
            #expect(run.lines.count == count, "one result line per input line")
            let last = try JSONValue.parse(Array((run.lines.last ?? "").utf8))
            #expect(last["line"] == .int(count), "results come in order, the last one for the last line")
            #expect(last["valid"] == .bool(false))
        }
        #expect(large.peakKiB - small.peakKiB <= allowedGrowthKiB,
                "peak RSS grew from \(small.peakKiB) KiB (2,000 lines) to \(large.peakKiB) KiB (20,000 lines)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time at /usr/bin/time"))
    func attestationBatchRunsInFlatMemory() async throws {
        // ~5.3 KB of base64 per line, like a real attestation with its receipt.
        let filler = String(repeating: "q83v", count: 1_340)
        try await Self.checkFlat(["attest", "verify-attestation", "--app-id", "ABCDE12345.org.example.batch"],
                                 expectedStatus: 1) { Self.attestationLine($0, filler: filler) }
    }

    /// Text output of a large value builds its layout as it prints (`PrettyDocument.lazy`): a 50,000-record reply
    /// (1.3 MB) prints as text in about the memory its JSON form takes. Building the whole layout first took
    /// 60 MiB more than JSON for this message.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time at /usr/bin/time"))
    func largeValuesPrintAsTextInAboutTheMemoryOfJSON() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("omni-print-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let value = "(vec {" + (0..<50_000).map { "record { \($0) : nat; \"item-\($0)\" }" }.joined(separator: ";") + "})"
        let source = directory.appendingPathComponent("value.txt"), message = directory.appendingPathComponent("message.hex")
        try Data(value.utf8).write(to: source)
        let (text, json) = try await offPool {
            let encoded = try Omni.run(["candid", "encode", "@" + source.path])
            try #require(encoded.status == 0, "\(encoded.stderrText)")
            try encoded.stdout.write(to: message)
            return (try Self.measured(["candid", "decode", "@" + message.path], in: directory),
                    try Self.measured(["candid", "decode", "@" + message.path, "--output", "json"], in: directory))
        }
        #expect(text.result.status == 0 && json.result.status == 0)
        #expect(text.result.stdoutText.hasSuffix("    record { 49999 : nat; \"item-49999\" };\n  },\n)\n"),
                "the whole value, laid out: \(text.result.stdoutText.suffix(200))")
        #expect(text.peakKiB <= json.peakKiB + 20 * 1024, "text \(text.peakKiB) KiB, JSON \(json.peakKiB) KiB")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time at /usr/bin/time"))
    func blsBatchRunsInFlatMemory() async throws {
        try await Self.checkFlat(["ic", "bls", "verify"], expectedStatus: 1) { Self.blsLine($0) }
    }
}
