import Foundation
@testable import OmniCLI
import OmniCodec
import Synchronization
import Testing

/// Commands exercising the typed framework: files, relations, streams, times, interrupts, tables.
enum Framework {
    static let file = Argument<InputFile>("FILE", help: "A file to read.")
    static let out = Option<OutputFile>("out-file", valueName: "FILE", help: "Where to write.")
    static let secret = Option<InputFile>("key-file", valueName: "FILE", help: "A secret key file.")

    static let files = Command(
        "files", abstract: "Read a file; optionally write it back; optionally read a secret.",
        options: [out, secret], arguments: [file]
    ) { invocation in
        let text = try invocation.readText(try invocation.value(file), label: "FILE")
        if let target = try invocation.value(out) { try invocation.write(text, to: target, label: "--out-file", mode: 0o600) }
        if let key = try invocation.value(secret) { _ = try invocation.readSecret(key, label: "--key-file") }
        return .output(SimpleOutput(text: "read \(text.utf8.count) bytes", json: ["bytes": .int(text.utf8.count)]))
    }

    static let lineFile = Argument<InputFile>("FILE", help: "Lines to number.")
    static let lines = Command("lines", abstract: "Number the lines of a file.", arguments: [lineFile], streaming: .always) { invocation in
        let reader = try invocation.lines(try invocation.value(lineFile), label: "FILE", maxLineBytes: 64)
        for line in reader {
            let entry: JSONValue
            do { entry = ["line": .int(line.number), "text": .string(try line.text())] } catch let error as CLIError {
                entry = ["line": .int(line.number), "error": .string(error.message)]
            }
            invocation.emitItem(SimpleOutput(text: "\(line.number)", json: entry))
        }
        if let failure = reader.failure { throw failure }
        return .success
    }

    static let countOption = DefaultedOption<Int>("count", short: "n", help: "How many items.", default: 2)
    static let stream = Command("stream", abstract: "Emit items.", options: [countOption], streaming: .always) { invocation in
        let count = try invocation.value(countOption)
        for index in 0..<count { invocation.emitItem(SimpleOutput(text: "item \(index)", json: ["index": .int(index)])) }
        return .output(SimpleOutput(text: "done", json: ["done": true]))
    }

    static let alpha = Option<String>("alpha", help: "A.", environment: "OMNI_ALPHA")
    static let beta = Option<String>("beta", help: "B.")
    static let gamma = Flag("gamma", help: "C.")
    static let relations = Command(
        "relations", abstract: "Relations between options.", options: [alpha, beta, gamma],
        relations: [.conflicting(alpha, beta), .requires(gamma, beta)]
    ) { invocation in
        .output(SimpleOutput(text: "ok", json: ["alpha": (try invocation.value(alpha)).map { .string($0) } ?? .null,
                                                "beta": (try invocation.value(beta)).map { .string($0) } ?? .null]))
    }
    static let one = Option<String>("one", help: "One.")
    static let other = Option<String>("other", help: "Other.")
    static let exactlyOne = Command("exactly", abstract: "Exactly one.", options: [one, other],
                                    relations: [.exactlyOne(one, other)]) { _ in .success }

    static let at = Option<Instant>("at", help: "When.")
    static let time = Command("time", abstract: "Read a time.", options: [at]) { invocation in
        let instant = try invocation.value(at)
        return .output(SimpleOutput(text: instant?.rfc3339 ?? "-", json: ["seconds": instant.map { .int($0.seconds) } ?? .null]))
    }

    enum Choice: String, CaseIterable, ArgumentValue { case red, green }
    static let choice = DefaultedOption<Choice>("choice", help: "A choice.", default: .red)
    static let choose = Command("choose", abstract: "Pick a choice.", options: [choice]) { _ in .success }

    static let signal = Argument<String>("SIGNAL", help: "int or term.")
    static let interrupted = Command("interrupted", abstract: "Deliver a signal to itself with a handler installed.",
                                     arguments: [signal]) { invocation in
        invocation.interrupts.onInterrupt {}
        invocation.interrupts.received(try invocation.value(signal) == "term" ? SIGTERM : SIGINT)
        return .output(SimpleOutput(text: "cleaned up", json: ["cleaned_up": true]))
    }

    static let text = Argument<String>("TEXT", help: "Text to print.")
    static let say = Command("say", abstract: "Print text (and note it on stderr).", arguments: [text]) { invocation in
        let words = try invocation.value(text)
        invocation.note("note: " + words)
        return .output(SimpleOutput(text: words, json: ["text": .string(words)]))
    }

    struct Listing: Renderable {
        var table = Table(columns: ["name", "kind"])
        func text(style: TextStyle) -> String { table.text(style: style) }
        var json: JSONValue { .array(table.rows.map { .array($0.map { .string($0) }) }) }
    }
    static let table = Command("table", abstract: "Print a table.") { _ in
        var listing = Listing()
        listing.table.append(["alice", "key"])
        listing.table.append(["bob\tsmith", "delegated"])
        return .output(listing)
    }

    static let names = Option<String>("name", help: "A name.", completion: .dynamic("names"))
    static let named = Command("named", abstract: "Take a name that completes dynamically.", options: [names]) { _ in .success }

    static let batchInput = Argument<InputFile>("FILE", help: "JSON lines {\"n\": N}.")
    static let chunk = DefaultedOption<Int>("chunk", help: "Lines judged together.", default: 1)
    /// Even numbers are valid; a line without "n" cannot be judged.
    static let batch = Command("batch", abstract: "Judge numbers.", options: [chunk], arguments: [batchInput],
                               streaming: .always) { invocation in
        let size = try invocation.value(chunk)
        return try BatchRunner.run(invocation, input: try invocation.value(batchInput), label: "FILE", chunkSize: size) { lines in
            #expect(lines.count <= size)
            return lines.map { line in
                guard let n = line.object["n"]?.int64Value else { return .unusable("line has no \"n\"") }
                return .verdict(fields: [("valid", .bool(n % 2 == 0))], valid: n % 2 == 0, text: n % 2 == 0 ? "even" : "odd")
            }
        }
    }

    static let workers = DefaultedOption<Int>("workers", help: "Lines judged at once.", default: 4)
    /// `batch` with independent lines judged in parallel: a line waits `ms` milliseconds before its verdict (so
    /// later lines can finish first), `{"fail": true}` throws; each verdict reports how many lines were being
    /// judged at that moment, so a test sees the parallelism and its bound.
    static let parallel = Command("parallel", abstract: "Judge numbers in parallel.", options: [workers], arguments: [batchInput],
                                  streaming: .always) { invocation in
        let judging = Mutex(0)
        return try BatchRunner.run(invocation, input: try invocation.value(batchInput), label: "FILE",
                                   workers: try invocation.value(workers)) { line in
            let atOnce = judging.withLock { count in count += 1; return count }
            defer { judging.withLock { $0 -= 1 } }
            if let ms = line.object["ms"]?.int64Value { Thread.sleep(forTimeInterval: Double(ms) / 1000) }
            if line.object["fail"] != nil { throw CLIError(.input, "line \(line.number) failed on purpose") }
            guard let n = line.object["n"]?.int64Value else { return .unusable("line has no \"n\"") }
            return .verdict(fields: [("valid", .bool(n % 2 == 0)), ("at_once", .int(atOnce))], valid: n % 2 == 0,
                            text: n % 2 == 0 ? "even" : "odd")
        }
    }

    static let many = Option<InputFile>("batch", help: "Lines to judge.")
    /// One verdict, or a stream of them with --batch.
    static let judge = Command("judge", abstract: "One verdict or a batch.", options: [many], streaming: .when(many)) { invocation in
        guard let input = try invocation.value(many) else {
            return .output(SimpleOutput(text: "valid", json: ["valid": true]))
        }
        return try BatchRunner.run(invocation, input: input, label: "--batch") { lines in
            lines.map { _ in .verdict(fields: [("valid", true)], valid: true, text: "valid") }
        }
    }

    static let sure = Flag("yes", help: "Answer yes.")
    static let confirmCommand = Command("confirm", abstract: "Ask before acting.", options: [sure]) { invocation in
        let yes = try invocation.value(sure) || invocation.confirm("Really?", override: sure)
        return .output(SimpleOutput(text: yes ? "done" : "kept", json: ["done": .bool(yes)]), exitCode: yes ? .ok : .failure)
    }

    static let color = DefaultedOption<Choice>("shade", help: "A shade.", default: .red)
    /// Commands read at run time: one per name in FW_OPERATIONS (as `omni ird` reads its document).
    static let api = Command("api", abstract: "Operations read at run time.") { environment in
        (environment["FW_OPERATIONS"] ?? "").split(separator: ",").map { name in
            Command(String(name), abstract: "Operation \(name).", options: [color]) { invocation in
                .output(SimpleOutput(text: String(name), json: ["operation": .string(String(name)),
                                                               "shade": .string(try invocation.value(color).rawValue)]))
            }
        }
    }

    static let rest = VariadicArgument<String>("WORDS", help: "Anything.")
    /// A group that answers words it has no command for itself (as `omni ird` does without its document).
    static let catchall: Command = {
        var group = Command("catchall", abstract: "Answers unknown words.", subcommands: [say])
        group.arguments = [rest.spec]
        group.capturesRemainingWords = true
        group.body = { invocation in
            .output(SimpleOutput(text: "", json: ["words": .array(try invocation.value(rest).map { .string($0) })]))
        }
        return group
    }()

    static let tool = CommandLineTool(
        name: "tool", version: "1.0",
        root: Command("tool", abstract: "Framework test tool.", subcommands: [
            files, lines, stream, relations, exactlyOne, time, choose, interrupted, say, table, named, batch, parallel, judge, confirmCommand, api, catchall,
        ]),
        completers: ["names": { _ in ["alice", "bob"] }],
        errorMapper: { _ in nil })
}
