#if canImport(Glibc)
internal import Glibc
#endif
import OmniSystem

/// Reads files named on the command line (`@FILE` values, file arguments) with one error shape.
public enum FileInput {
    /// Values read this way (and from stdin) are meant for data given on a command line; anything larger is almost
    /// surely a mistake.
    public static let maximumBytes = 256 << 20

    /// `showingPath: false` for secret files: a missing one is not named, since the value may be the secret itself.
    public static func read(_ path: String, label: String, limit: Int = maximumBytes, showingPath: Bool = true) throws -> [UInt8] {
        switch LocalFile.read(expandingTilde(path), limit: limit) {
        case .success(let bytes): return bytes
        case .failure(.notFound) where !showingPath:
            throw CLIError(.input, "\(label): no such file; the value (\(path.count) characters) is not shown in case it is the "
                           + "secret itself. Secrets are read from a file only you can read, or from stdin with '-'; one typed "
                           + "on a command line is in the shell history: replace it")
        case .failure(let failure): throw error(failure, path: path, label: label)
        }
    }

    static func open(_ path: String, label: String) throws -> FileReader {
        switch LocalFile.open(expandingTilde(path)) {
        case .success(let reader): return reader
        case .failure(let failure): throw error(failure, path: path, label: label)
        }
    }

    static func error(_ failure: LocalFile.Failure, path: String, label: String) -> CLIError {
        switch failure {
        case .notFound: CLIError(.input, "\(label): no such file '\(path)'")
        case .isDirectory: CLIError(.input, "\(label): '\(path)' is a directory")
        case .permissionDenied: CLIError(.input, "\(label): cannot read '\(path)': permission denied")
        case .tooLarge(let limit): CLIError(.input, "\(label): '\(path)' is larger than \(ByteCount(bytes: limit).argumentText)")
        case .io(let reason): CLIError(.input, "\(label): cannot read '\(path)': \(reason)")
        }
    }

    /// File arguments accept the `@FILE` habit of data options: `@q.json` reads `q.json` unless a file really is
    /// named `@q.json`.
    static func resolvingAt(_ path: String) -> String {
        guard path.hasPrefix("@"), path.count > 1, !LocalFile.exists(expandingTilde(path)) else { return path }
        return String(path.dropFirst())
    }

    static func exposure(of path: String) -> String? { LocalFile.exposure(of: expandingTilde(path)) }

    /// `~` and `~/…` as the shell would expand them (a path from a config file was never seen by a shell).
    public static func expandingTilde(_ path: String) -> String { Paths.expandingTilde(path) }
}

/// Writes files named on the command line: atomically, with the permission bits set before any byte is written.
enum FileOutput {
    static func write(_ bytes: [UInt8], to path: String, mode: UInt32, label: String) throws {
        do {
            try AtomicFile.write(bytes, to: FileInput.expandingTilde(path), mode: mode)
        } catch {
            throw CLIError(.configuration, "\(label): cannot write '\(path)': \(error.message)")
        }
    }
}

/// Lines of a file or stdin, read in chunks: a 100,000-line batch never sits in memory at once. Lines come without
/// their `\n` or `\r\n`, as bytes with their number; `Line.text()` decodes one strictly, so a bad line can be reported
/// in place while the rest go on. A read failure or a line longer than `maxLineBytes` ends the sequence (`failure`).
public final class LineReader: Sequence, IteratorProtocol {
    public struct Line: Sendable {
        /// 1-based.
        public let number: Int
        public let bytes: [UInt8]
        let label: String

        /// The line as text, or malformed input naming the line and the first bad byte.
        public func text() throws -> String {
            try Invocation.strictText(bytes, label: "\(label) line \(number)")
        }
    }

    private let source: any ByteSource
    private let label: String
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    private var ended = false
    private var lineNumber = 0
    /// Why the sequence ended early, if it did.
    public private(set) var failure: CLIError?

    init(source: any ByteSource, label: String, maxLineBytes: Int) {
        self.source = source
        self.label = label
        self.maxLineBytes = maxLineBytes
    }

    public func next() -> Line? {
        while failure == nil {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let bytes = Array(buffer[start..<end])
                start = newline + 1
                return deliver(bytes)
            }
            if buffer.count - start > maxLineBytes {
                failure = CLIError(.input, "\(label): line \(lineNumber + 1) is longer than \(ByteCount(bytes: maxLineBytes).argumentText)")
                return nil
            }
            if ended {
                guard start < buffer.count else { return nil }
                let bytes = Array(buffer[start...])
                start = buffer.count
                return deliver(bytes)
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            switch source.read(into: &chunk) {
            case .success(0): ended = true
            case .success(let count): buffer.append(contentsOf: chunk[0..<count])
            case .failure(let failure): self.failure = FileInput.error(failure, path: label, label: label)
            }
        }
        return nil
    }

    private func deliver(_ bytes: [UInt8]) -> Line {
        lineNumber += 1
        return Line(number: lineNumber, bytes: bytes, label: label)
    }
}
