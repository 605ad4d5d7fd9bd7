import OmniCodec

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

    /// Runs `judge` over the lines of `input`, `chunkSize` at a time; returns the run's exit status.
    public static func run(_ invocation: Invocation, input: InputFile, label: String, chunkSize: Int = 1,
                           maxLineBytes: Int = defaultMaxLineBytes,
                           judge: ([Line]) throws -> [Outcome]) throws -> CommandResult {
        let reader = try invocation.lines(input, label: label, maxLineBytes: maxLineBytes)
        var sawUnusable = false
        var sawNegative = false
        var pending: [Line] = []

        func flush() throws {
            guard !pending.isEmpty else { return }
            let outcomes = try judge(pending)
            precondition(outcomes.count == pending.count, "a batch judge returns one outcome per line")
            for (line, outcome) in zip(pending, outcomes) {
                switch outcome {
                case .verdict(let fields, let valid, let text):
                    if !valid { sawNegative = true }
                    invocation.emitItem(BatchResult(fields: line.identification + fields, text: "line \(line.number): " + text))
                case .unusable(let message):
                    sawUnusable = true
                    invocation.emitItem(BatchResult.unusable(line: line.number, message: message))
                }
            }
            pending.removeAll(keepingCapacity: true)
        }

        for raw in reader {
            if invocation.interrupts.isInterrupted { break }
            if raw.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                let text = try raw.text()
                guard case .object(let object) = try JSONValue.parse(Array(text.utf8)) else {
                    throw CLIError(.input, "line is not a JSON object")
                }
                pending.append(Line(number: raw.number, object: object))
                if pending.count >= chunkSize { try flush() }
            } catch {
                try flush()
                sawUnusable = true
                let message = (error as? CLIError)?.message ?? "line is not JSON: \(error)"
                invocation.emitItem(BatchResult.unusable(line: raw.number, message: message))
            }
        }
        try flush()
        if let failure = reader.failure { throw failure }
        return CommandResult(exitCode: sawUnusable ? .malformedInput : sawNegative ? .failure : .ok)
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
