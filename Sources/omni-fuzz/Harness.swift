#if canImport(Glibc)
import Glibc
#endif

/// One fuzz target: a named parser entry point, the property it checks on every input, and the seeds that start
/// its corpus. `run` must never crash on any input; a violated property calls `FuzzCheck.fail`, which aborts (the
/// fuzzer records the input as a crash, the replayer exits non-zero).
struct Harness {
    let name: String
    /// One line for `omni-fuzz list`: the entry point and the property.
    let summary: String
    /// Runs once before the first input (parsing fixed keys, interfaces, roots), so inputs pay only for themselves.
    let prepare: () -> Void
    let run: ([UInt8]) -> Void
    /// Only the parser, as omni calls it, without the property checks (which hold extra copies): what
    /// `run --parse-only` runs to measure a parser's own peak memory. True when the input was accepted.
    let parse: ([UInt8]) -> Bool
    /// Starting inputs: built in code (valid messages made with omni's own encoders and signers) plus those read
    /// from the shared vectors at seeding time.
    let seeds: (SeedSources) -> [Seed]

    init(_ name: String, _ summary: String, prepare: @escaping () -> Void = {},
         seeds: @escaping (SeedSources) -> [Seed] = { _ in [] }, parse: (([UInt8]) -> Bool)? = nil,
         run: @escaping ([UInt8]) -> Void) {
        self.name = name
        self.summary = summary
        self.prepare = prepare
        self.run = run
        self.parse = parse ?? { run($0); return true }
        self.seeds = seeds
    }
}

/// A named starting input.
struct Seed: Sendable {
    let name: String
    let bytes: [UInt8]

    init(_ name: String, _ bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    init(_ name: String, text: String) {
        self.init(name, Array(text.utf8))
    }
}

/// Property checks. A failure prints the target's message and aborts, so libFuzzer keeps the input as a crash
/// artifact and the replayer stops with the file it was reading.
enum FuzzCheck {
    static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                        file: StaticString = #fileID, line: UInt = #line) {
        guard !condition() else { return }
        fail(message(), file: file, line: line)
    }

    static func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        FuzzOutput.error("property violated (\(file):\(line)): \(message)")
        abort()
    }
}

