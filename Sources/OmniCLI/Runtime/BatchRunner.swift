import OmniCodec
import OmniSystem

/// The one JSON-lines batch loop (`--batch FILE`): one JSON object per input line, one result per line out, in
/// order, streamed as they are decided, so a 100,000-line file runs in flat memory.
///
/// Rules every batch shares: blank lines are skipped (numbers still count them); a line that is not a JSON object,
/// not UTF-8 or too long is reported in place as unusable and the run goes on; each result carries the line number
/// and the line's `id` (or `case`) so results match inputs. Exit status: 3 when any line was unusable, else 1 when any
/// verdict was negative, else 0. Lines are handed over in chunks, so a command may check many at once (BLS batch
/// verification) without holding the whole input.
public enum BatchRunner {
    /// One usable input line.
    public struct Line: Sendable {
        public let number: Int
        public let object: JSONObject

        /// Fields echoed into every result so it can be matched to its input.
        public var identification: [(String, JSONValue)] {
            var fields: [(String, JSONValue)] = [("line", .int(number))]
            if let id = object["id"] ?? object["case"] { fields.append(("id", id)) }
            return fields
        }
    }

    /// What became of one line.
    public enum Outcome {
        /// A verdict: its JSON fields (the identification is prepended), whether it is positive, and its text line.
        case verdict(fields: [(String, JSONValue)], valid: Bool, text: String)
        /// The line could not be judged (a value missing or malformed); the run goes on.
        case unusable(String)
    }

    public static let defaultMaxLineBytes = 4 << 20

    /// Lines judged at once by `run(…, workers:judgeEach:)` unless the user says otherwise: one per processor.
    public static var defaultWorkers: Int { Threads.processorCount }

    /// Runs `judge` over the lines of `input`, `chunkSize` at a time; returns the run's exit status.
    public static func run(_ invocation: Invocation, input: InputFile, label: String, chunkSize: Int = 1,
                           maxLineBytes: Int = defaultMaxLineBytes,
                           judge: ([Line]) throws -> [Outcome]) throws -> CommandResult {
        let reader = try invocation.lines(input, label: label, maxLineBytes: maxLineBytes)
        var tally = Tally(invocation: invocation)
        var pending: [Line] = []

        func flush() throws {
            guard !pending.isEmpty else { return }
            let outcomes = try judge(pending)
            precondition(outcomes.count == pending.count, "a batch judge returns one outcome per line")
            for (line, outcome) in zip(pending, outcomes) { tally.emit(outcome, of: line) }
            pending.removeAll(keepingCapacity: true)
        }

        for raw in reader {
            if invocation.interrupts.isInterrupted { break }
            switch read(raw) {
            case nil: continue
            case .success(let line)?:
                pending.append(line)
                if pending.count >= chunkSize { try flush() }
            case .failure(let unusable)?:
                try flush()
                tally.emit(.unusable(unusable.message), number: raw.number, identification: [])
            }
        }
        try flush()
        if let failure = reader.failure { throw failure }
        return tally.result
    }

    /// The line as a batch line; nil for a blank one (skipped, still counted), a failure for one that is not a JSON
    /// object (reported in place).
    static func read(_ raw: LineReader.Line) -> Result<Line, UnusableLine>? {
        if raw.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        do {
            let text = try raw.text()
            guard case .object(let object) = try JSONValue.parse(Array(text.utf8)) else {
                throw CLIError(.input, "line is not a JSON object")
            }
            return .success(Line(number: raw.number, object: object))
        } catch {
            return .failure(UnusableLine(message: (error as? CLIError)?.message ?? "line is not JSON: \(error)"))
        }
    }

    struct UnusableLine: Error {
        let message: String
    }

    /// The one place results are emitted, and what the run's exit status will be: 3 when any line was unusable,
    /// else 1 when any verdict was negative, else 0.
    struct Tally {
        let invocation: Invocation
        private var sawUnusable = false
        private var sawNegative = false

        init(invocation: Invocation) { self.invocation = invocation }

        mutating func emit(_ outcome: Outcome, of line: Line) {
            emit(outcome, number: line.number, identification: line.identification)
        }

        /// `identification` is the line's (empty when it could not be read); only verdicts carry it.
        mutating func emit(_ outcome: Outcome, number: Int, identification: [(String, JSONValue)]) {
            switch outcome {
            case .verdict(let fields, let valid, let text):
                if !valid { sawNegative = true }
                invocation.emitItem(BatchResult(fields: identification + fields, text: "line \(number): " + text))
            case .unusable(let message):
                sawUnusable = true
                invocation.emitItem(BatchResult.unusable(line: number, message: message))
            }
        }

        var result: CommandResult {
            CommandResult(exitCode: sawUnusable ? .malformedInput : sawNegative ? .failure : .ok)
        }
    }
}

extension BatchRunner {
    /// `run` for commands whose lines are independent of each other: `judge` sees one line at a time, and up to
    /// `workers` lines are judged at once on threads of their own. Results keep input order and are emitted as soon
    /// as every earlier line's result is, so output still streams line by line (a slow producer on stdin gets each
    /// verdict without sending more); at most `4 × workers` lines are read ahead, so memory stays flat. An error
    /// from `judge` ends the run as in `run`: results after the failing line are not emitted. With one worker this
    /// is `run` itself.
    public static func run(_ invocation: Invocation, input: InputFile, label: String, workers: Int,
                           maxLineBytes: Int = defaultMaxLineBytes,
                           judgeEach judge: @escaping @Sendable (Line) throws -> Outcome) throws -> CommandResult {
        guard workers > 1 else {
            return try run(invocation, input: input, label: label, maxLineBytes: maxLineBytes) { try $0.map(judge) }
        }
        let reader = try invocation.lines(input, label: label, maxLineBytes: maxLineBytes)
        let pipeline = OrderedPipeline(tally: Tally(invocation: invocation), workers: workers, judge: judge)
        for raw in reader {
            if invocation.interrupts.isInterrupted || pipeline.failed { break }
            switch read(raw) {
            case nil: continue
            case .success(let line)?: pipeline.submit(.success(line))
            case .failure(let unusable)?: pipeline.submit(.failure(unusable), number: raw.number)
            }
        }
        let result = try pipeline.finish()
        if let failure = reader.failure { throw failure }
        return result
    }
}

/// The machinery of `BatchRunner.run(…, workers:judgeEach:)`: a queue of lines in input order, worker threads that
/// judge them, and in-order emission by whichever thread completes the next result due. One condition guards it all.
private final class OrderedPipeline: @unchecked Sendable {
    private enum Done {
        case outcome(BatchRunner.Outcome, number: Int, identification: [(String, JSONValue)])
        case failure(any Error)
    }

    private let judge: @Sendable (BatchRunner.Line) throws -> BatchRunner.Outcome
    private let readAhead: Int
    private let condition = Condition()
    // Guarded by `condition`:
    private var tally: BatchRunner.Tally
    private var queue: [(index: Int, line: BatchRunner.Line)] = []
    private var queueHead = 0
    private var done: [Int: Done] = [:]
    private var submitted = 0
    private var emitted = 0
    private var closed = false
    private var liveWorkers: Int
    private var failure: (any Error)?

    init(tally: BatchRunner.Tally, workers: Int, judge: @escaping @Sendable (BatchRunner.Line) throws -> BatchRunner.Outcome) {
        self.tally = tally
        self.judge = judge
        readAhead = 4 * workers
        liveWorkers = workers
        for index in 0..<workers {
            Threads.start(name: "omni-batch-\(index)") { [self] in work() }
        }
    }

    var failed: Bool { condition.withLock { failure != nil } }

    /// Queues the next line, waiting while `readAhead` lines are unfinished; a line that could not be read is
    /// decided at once (`number` is its line number).
    func submit(_ line: Result<BatchRunner.Line, BatchRunner.UnusableLine>, number: Int = 0) {
        condition.withLock {
            while submitted - emitted >= readAhead && failure == nil { condition.wait() }
            let index = submitted
            submitted += 1
            switch line {
            case .success(let line):
                queue.append((index, line))
                condition.broadcast()
            case .failure(let unusable):
                done[index] = .outcome(.unusable(unusable.message), number: number, identification: [])
                emitReady()
            }
        }
    }

    /// Waits for every queued line and the workers; the run's result, or the first error `judge` threw.
    func finish() throws -> CommandResult {
        try condition.withLock {
            closed = true
            condition.broadcast()
            while liveWorkers > 0 { condition.wait() }
            if let failure { throw failure }
            return tally.result
        }
    }

    private func work() {
        while let (index, line) = nextLine() {
            let result: Done
            do { result = .outcome(try judge(line), number: line.number, identification: line.identification) } catch { result = .failure(error) }
            condition.withLock {
                done[index] = result
                emitReady()
            }
        }
        condition.withLock {
            liveWorkers -= 1
            condition.broadcast()
        }
    }

    /// The oldest unclaimed line, waiting for one; nil once the input is closed and the queue empty.
    private func nextLine() -> (index: Int, line: BatchRunner.Line)? {
        condition.withLock {
            while queueHead == queue.count && !closed { condition.wait() }
            guard queueHead < queue.count else { return nil }
            let next = queue[queueHead]
            queueHead += 1
            // Keep the queue's storage as small as what is unclaimed.
            if queueHead > 64 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            return next
        }
    }

    /// Emits the results now due, in order (called with the condition's lock held). After a failure nothing more
    /// is judged or emitted, as a sequential run would have stopped there.
    private func emitReady() {
        while let result = done.removeValue(forKey: emitted) {
            emitted += 1
            guard failure == nil else { continue }
            switch result {
            case .failure(let error):
                failure = error
                queue.removeAll()
                queueHead = 0
            case .outcome(let outcome, let number, let identification):
                tally.emit(outcome, number: number, identification: identification)
            }
        }
        condition.broadcast()
    }
}

/// One line of a batch's output.
struct BatchResult: Renderable {
    let fields: [(String, JSONValue)]
    let textForm: String

    init(fields: [(String, JSONValue)], text: String) {
        self.fields = fields
        textForm = text
    }

    static func unusable(line: Int, message: String) -> BatchResult {
        BatchResult(fields: [("line", .int(line)), ("error", .object(["kind": "malformed_input", "message": .string(message)]))],
                    text: "line \(line): unusable: \(message)")
    }

    func text(style: TextStyle) -> String { textForm }
    var json: JSONValue { .object(JSONObject(fields)) }
}
