import OmniAttest
import OmniCLI
import OmniCodec

/// `--batch FILE.jsonl`: one JSON object per line in, one verdict per line out (streamed as it is decided).
///
/// Each line names its values with the option names in snake_case (`attestation`, `key_id`, `app_id`, …); the
/// field names of omni's App Attest vectors (`attestation_b64`, `verify_at`, `root_pem`, …) are accepted too. Options
/// given on the command line fill in what a line leaves out. A line that cannot be used (not JSON, bad base64) gets
/// an error object and the run goes on. Exit status: 0 when every line is valid, 1 when any is refused, 3 when any
/// line was unusable.
struct AttestBatch {
    static let maximumLineBytes = 4 << 20

    /// One line's fields with the alias rules applied.
    struct Line {
        let object: JSONObject
        let number: Int

        /// The first present string among `names`.
        func string(_ names: String...) -> String? {
            for name in names { if let value = object[name]?.stringValue { return value } }
            return nil
        }

        func base64(_ names: String...) throws(AttestError) -> [UInt8]? {
            for name in names {
                if let value = object[name]?.stringValue { return try AttestBase64.argument(value, "\"\(name)\"") }
            }
            return nil
        }

        func integer(_ names: String...) throws(AttestError) -> Int64? {
            for name in names {
                guard let value = object[name] else { continue }
                if let number = value.int64Value ?? value.stringValue.flatMap({ Int64($0) }) { return number }
                throw AttestError.invalidArgument("\"\(name)\" is not an integer")
            }
            return nil
        }

        func require<T>(_ value: T?, _ name: String) throws(AttestError) -> T {
            guard let value else { throw AttestError.invalidArgument("line has no \"\(name)\" and no command-line default") }
            return value
        }

        /// Fields echoed into the verdict so results can be matched to inputs.
        var prefix: [(String, JSONValue)] {
            var fields: [(String, JSONValue)] = [("line", .int(number))]
            if let id = object["id"] ?? object["case"] { fields.append(("id", id)) }
            return fields
        }
    }

    /// Reads the batch input and calls `appraise` for each non-empty line; returns the run's exit status.
    static func run(_ invocation: Invocation, path: String, appraise: (Line) throws -> JSONValue) throws -> CommandResult {
        let bytes = path == "-" ? try invocation.streams.stdinBytes() : try FileInput.read(path, label: "--batch")
        var sawRefusal = false
        var sawUnusable = false
        var number = 0
        for rawLine in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if invocation.interrupts.isInterrupted { break }
            let line = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                guard line.count <= maximumLineBytes else {
                    throw AttestError.invalidArgument("line is longer than \(maximumLineBytes) bytes")
                }
                let json: JSONValue
                do {
                    json = try JSONValue.parse(Array(line))
                } catch {
                    throw AttestError.invalidArgument("line is not JSON: \(error)")
                }
                guard let object = json.objectValue else { throw AttestError.invalidArgument("line is not a JSON object") }
                let parsed = Line(object: object, number: number)
                let verdict = VerdictOutput(json: try appraise(parsed), prefix: parsed.prefix)
                if !verdict.isValid { sawRefusal = true }
                invocation.emit(verdict)
            } catch let error as AttestError where error.kind == .invalidArgument {
                sawUnusable = true
                invocation.emit(BatchLineError(number: number, message: error.message))
            }
        }
        let exitCode: ExitCode = sawUnusable ? .malformedInput : sawRefusal ? .failure : .ok
        return CommandResult(output: nil, exitCode: exitCode)
    }
}

/// A batch line that could not be appraised at all.
struct BatchLineError: Renderable {
    let number: Int
    let message: String

    func text(style: TextStyle) -> String { "line \(number): " + style.bad("unusable: ") + message }

    var json: JSONValue {
        .object(["line": .int(number), "error": .object(["kind": "malformed_input", "message": .string(message)])])
    }
}
