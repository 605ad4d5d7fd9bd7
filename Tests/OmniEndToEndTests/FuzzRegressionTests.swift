import Foundation
import Testing
import OmniTestSupport

/// The fuzz targets in the normal build (`omni-fuzz run`): every input the fuzzer ever found a problem with stays
/// fixed (Tests/Fuzz/regressions/<target>/), and every target's properties hold on its built-in seeds.
@Suite(.serialized, .offPool) struct FuzzRegressionTests {
    static let executable: String = {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundleDirectory.appendingPathComponent("omni-fuzz").path,
                          Repository.root.appendingPathComponent(".build/debug/omni-fuzz").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }()

    static let regressions = Repository.root.appendingPathComponent("Tests/Fuzz/regressions")

    static func run(_ arguments: [String]) throws -> ProcessResult {
        // No Swift backtrace: a crash report is the replayer's own line naming the input, plus the signal.
        try Subprocess.run(executable, arguments, environment: ["PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no"])
    }

    static func targets() throws -> [String] {
        let listing = try run(["list"])
        #expect(listing.status == 0, "omni-fuzz list: \(listing.stderrText)")
        return listing.stdoutText.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
    }

    @Test func everyParserAreaHasTargets() throws {
        let targets = Set(try Self.targets())
        // One per parser the fuzzing brief names.
        for expected in ["candid-binary", "candid-binary-typed", "candid-text", "candid-type", "candid-did", "cbor", "ic-certificate",
                         "ic-hash-tree", "ic-envelope", "ic-signed-request", "ic-delegation-cbor", "ic-delegation-json", "toml", "json",
                         "pem", "der", "pem-keys", "der-keys", "attest-attestation", "attest-assertion", "attest-receipt", "connect-frame",
                         "connect-envelope", "scale", "truapi-frame", "truapi-message", "websocket-client", "websocket-server",
                         "http-request", "openapi"] {
            #expect(targets.contains(expected), "no fuzz target \(expected)")
        }
    }

    /// Every saved finding replays without a crash or a violated property.
    @Test func regressionsReplayClean() async throws {
        let targets = Set(try Self.targets())
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.regressions.path).sorted()
        #expect(!directories.isEmpty, "no regression inputs under \(Self.regressions.path)")
        for directory in directories {
            #expect(targets.contains(directory), "Tests/Fuzz/regressions/\(directory) is not a fuzz target")
            guard targets.contains(directory) else { continue }
            let path = Self.regressions.appendingPathComponent(directory).path
            let count = try FileManager.default.contentsOfDirectory(atPath: path).count
            let result = try await offPool { try Self.run(["run", directory, path]) }
            #expect(result.status == 0, "\(directory): \(result.stderrText.suffix(2000))")
            #expect(result.stdoutText == "\(directory): \(count) input\(count == 1 ? "" : "s") ok\n")
        }
    }

    /// The seeds (valid messages made with omni's own encoders and signers, plus the shared vectors and real-world
    /// corpus when present) satisfy every target's round-trip properties, so a broken encoder or decoder fails here
    /// before any fuzzing. Some targets are seeded from the shared data only: without it they have nothing to run.
    @Test func seedsSatisfyEveryProperty() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("omni-fuzz-seeds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let shared = FileManager.default.fileExists(atPath: Vectors.directory.path)
        let sources = shared ? ["--vectors", Vectors.directory.path, "--realworld", Vectors.realWorldDirectory.path] : []
        for target in try Self.targets() {
            let directory = scratch.appendingPathComponent(target).path
            // Minutes in all: off the concurrency pool, which the async suites need meanwhile.
            let seeded = try await offPool { try Self.run(["seed", target, directory] + sources) }
            #expect(seeded.status == 0, "seeding \(target): \(seeded.stderrText)")
            let count = (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? 0
            #expect(count > 0 || !(shared || Vectors.areRequired), "\(target) has no seeds")
            guard count > 0 else { continue }
            let result = try await offPool { try Self.run(["run", target, directory]) }
            #expect(result.status == 0, "\(target): \(result.stderrText.suffix(2000))")
        }
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try Self.run([]).status == 2)
        #expect(try Self.run(["run", "no-such-target", "/dev/null"]).status == 2)
        let missing = try Self.run(["run", "cbor", "/nonexistent/input"])
        #expect(missing.status == 2 && missing.stderrText.contains("/nonexistent/input"))
    }
}
