#if canImport(Glibc)
import Glibc
#endif
import OmniSystem

/// The normal build's commands:
/// - `omni-fuzz list`: every target and what it checks;
/// - `omni-fuzz run [--parse-only] TARGET FILE|DIR…`: runs each input (files of a directory in name order) through
///   the target's harness, as the fuzzer would (`--parse-only`: the parser alone, for memory measurements); exits 0
///   when all pass, aborts on the first violated property or crash (naming the input), 2 on usage errors;
/// - `omni-fuzz seed TARGET DIR [--vectors DIR] [--realworld DIR]`: writes the target's starting corpus into DIR:
///   inputs built in code plus those read from the shared vectors (never copied into the repository);
/// - `omni-fuzz hostile DIR`: writes the worst inputs of each parser's limits into DIR/<target>/ (for measuring
///   peak memory; some are 64 MiB).
enum Replayer {
    /// The largest input `run` reads (the biggest parser limit is 64 MiB; limit measurements feed inputs this big).
    static let maximumInputBytes = 80 << 20

    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else { return usage() }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "list":
            for harness in Harnesses.all { FuzzOutput.line(harness.name + "\t" + harness.summary) }
            return 0
        case "run":
            return replay(rest)
        case "seed":
            return seed(rest)
        case "hostile":
            return hostile(rest)
        case "-h", "--help", "help":
            _ = usage()
            return 0
        default:
            return usage()
        }
    }

    @discardableResult
    static func usage() -> Int32 {
        FuzzOutput.error("usage: omni-fuzz list | run [--parse-only] TARGET FILE|DIR… | seed TARGET DIR [--vectors DIR] [--realworld DIR] | hostile DIR")
        return 2
    }

    private static func harness(_ name: String) -> Harness? {
        guard let harness = Harnesses.named(name) else {
            FuzzOutput.error("unknown target \(name); targets: " + Harnesses.names.joined(separator: " "))
            return nil
        }
        return harness
    }

    private static func replay(_ arguments: [String]) -> Int32 {
        var arguments = arguments
        let parseOnly = arguments.first == "--parse-only"
        if parseOnly { arguments.removeFirst() }
        guard arguments.count >= 2, let harness = harness(arguments[0]) else { return usage() }
        var inputs: [String] = []
        for path in arguments.dropFirst() {
            guard let found = Directory.files(in: path) else {
                FuzzOutput.error("\(path): no such file or directory")
                return 2
            }
            inputs += found
        }
        CrashReport.install()
        harness.prepare()
        var accepted = 0
        for path in inputs {
            let bytes: [UInt8]
            switch LocalFile.read(path, limit: maximumInputBytes) {
            case .success(let read): bytes = read
            case .failure(let failure):
                FuzzOutput.error("\(path): cannot read (\(failure))")
                return 2
            }
            CrashReport.current(harness.name, path)
            if parseOnly {
                if harness.parse(bytes) { accepted += 1 }
            } else {
                harness.run(bytes)
            }
        }
        CrashReport.current(harness.name, nil)
        if parseOnly {
            FuzzOutput.line("\(harness.name): \(accepted) of \(inputs.count) input\(inputs.count == 1 ? "" : "s") accepted")
        } else {
            FuzzOutput.line("\(harness.name): \(inputs.count) input\(inputs.count == 1 ? "" : "s") ok")
        }
        return 0
    }

    private static func hostile(_ arguments: [String]) -> Int32 {
        guard arguments.count == 1 else { return usage() }
        do {
            for (target, cases) in HostileInputs.all {
                let directory = arguments[0] + "/" + target
                try AtomicFile.makeDirectories(directory)
                for seed in cases() { try AtomicFile.write(seed.bytes, to: directory + "/" + fileName(seed.name)) }
            }
        } catch {
            FuzzOutput.error("cannot write hostile inputs: \(error)")
            return 1
        }
        return 0
    }

    private static func seed(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2, let harness = harness(arguments[0]) else { return usage() }
        let directory = arguments[1]
        var vectors: String?
        var realworld: String?
        var index = 2
        while index < arguments.count {
            guard index + 1 < arguments.count else { return usage() }
            switch arguments[index] {
            case "--vectors": vectors = arguments[index + 1]
            case "--realworld": realworld = arguments[index + 1]
            default: return usage()
            }
            index += 2
        }
        func existing(_ path: String?) -> String? { path.flatMap { Directory.files(in: $0) == nil ? nil : $0 } }
        harness.prepare()
        let seeds = harness.seeds(SeedSources(vectors: existing(vectors), realworld: existing(realworld)))
        do {
            try AtomicFile.makeDirectories(directory)
            var names: Set<String> = []
            for seed in seeds {
                var name = fileName(seed.name)
                while !names.insert(name).inserted { name += "_" }
                try AtomicFile.write(seed.bytes, to: directory + "/" + name)
            }
        } catch {
            FuzzOutput.error("cannot write seeds: \(error)")
            return 1
        }
        FuzzOutput.line("\(harness.name): \(seeds.count) seed\(seeds.count == 1 ? "" : "s") in \(directory)")
        return 0
    }
}

/// `name` with every character but letters, digits, `-`, `.` and `_` replaced by `_`.
private func fileName(_ name: String) -> String {
    let allowed: Set<Character> = ["-", ".", "_"]
    var result = ""
    for character in name {
        result.append(character.isLetter || character.isNumber || allowed.contains(character) ? character : "_")
    }
    return result
}

/// Regular files under a path (the path itself when it is a file), sorted, recursively.
enum Directory {
    static func files(in path: String) -> [String]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        guard status.st_mode & S_IFMT == S_IFDIR else { return [path] }
        guard let stream = opendir(path) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted().flatMap { files(in: path + "/" + $0) ?? [] }
    }
}

/// Names the input a crash happened on: the replayer records the current file, and a handler for fatal signals
/// writes it to stderr before the default action runs (only async-signal-safe calls in the handler).
enum CrashReport {
    nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var messageLength = 0

    static func current(_ target: String, _ path: String?) {
        let previous = message
        if let path {
            let text = "omni-fuzz: \(target) crashed on input \(path)\n"
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: text.utf8.count)
            for (index, byte) in text.utf8.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            messageLength = text.utf8.count
            message = buffer
        } else {
            message = nil
            messageLength = 0
        }
        previous?.deallocate()
    }

    static func install() {
        for signal in [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if let message = CrashReport.message { _ = write(2, message, CrashReport.messageLength) }
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
            action.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND))
            sigaction(signal, &action, nil)
        }
    }
}
