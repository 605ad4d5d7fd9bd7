#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
import OmniSystem
import Synchronization

/// The process's standard streams as the CLI layer sees them. Everything terminal-specific lives here, so commands
/// and tests can run against in-memory streams.
public final class StandardStreams: @unchecked Sendable {
    public let stdoutIsTerminal: Bool
    public let stderrIsTerminal: Bool
    public let stdinIsTerminal: Bool
    /// Columns of the terminal on stdout, when it is one.
    public let terminalWidth: Int?
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    private let writeOutBytes: ([UInt8]) -> Void
    private let readIn: () throws -> [UInt8]
    /// The real stdin's descriptor, for reading it as a stream; nil for in-memory streams.
    private let stdinDescriptor: Int32?
    private let stdinCache = Mutex<[UInt8]?>(nil)

    public convenience init(
        stdoutIsTerminal: Bool, stderrIsTerminal: Bool, stdinIsTerminal: Bool, terminalWidth: Int?,
        writeOut: @escaping (String) -> Void, writeErr: @escaping (String) -> Void,
        writeOutBytes: @escaping ([UInt8]) -> Void, readIn: @escaping () throws -> [UInt8]
    ) {
        self.init(stdoutIsTerminal: stdoutIsTerminal, stderrIsTerminal: stderrIsTerminal, stdinIsTerminal: stdinIsTerminal,
                  terminalWidth: terminalWidth, writeOut: writeOut, writeErr: writeErr, writeOutBytes: writeOutBytes,
                  readIn: readIn, stdinDescriptor: nil)
    }

    private init(
        stdoutIsTerminal: Bool, stderrIsTerminal: Bool, stdinIsTerminal: Bool, terminalWidth: Int?,
        writeOut: @escaping (String) -> Void, writeErr: @escaping (String) -> Void,
        writeOutBytes: @escaping ([UInt8]) -> Void, readIn: @escaping () throws -> [UInt8], stdinDescriptor: Int32?
    ) {
        self.stdinDescriptor = stdinDescriptor
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
        self.stdinIsTerminal = stdinIsTerminal
        self.terminalWidth = terminalWidth
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.writeOutBytes = writeOutBytes
        self.readIn = readIn
    }

    /// The real process streams (file descriptors 0, 1, 2), unbuffered writes through write(2).
    public static func process() -> StandardStreams {
        var size = winsize()
        let width: Int? = isatty(1) == 1 && ioctl(1, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
            ? Int(size.ws_col) : nil
        return StandardStreams(
            stdoutIsTerminal: isatty(1) == 1, stderrIsTerminal: isatty(2) == 1, stdinIsTerminal: isatty(0) == 1,
            terminalWidth: width,
            writeOut: { writeAll(1, Array($0.utf8)) }, writeErr: { writeAll(2, Array($0.utf8)) },
            writeOutBytes: { writeAll(1, $0) },
            readIn: { try readAll(0) }, stdinDescriptor: 0)
    }

    /// One line typed at the terminal (the answer to a prompt), without its newline; nil at end of input. In-memory
    /// streams answer from their stdin bytes.
    public func readAnswer() -> String? {
        if stdinDescriptor != nil { return readLine(strippingNewline: true) }
        guard let bytes = try? readIn(), !bytes.isEmpty else { return nil }
        return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    public func out(_ text: String) { writeOut(text) }
    public func err(_ text: String) { writeErr(text) }
    public func outBytes(_ bytes: [UInt8]) { writeOutBytes(bytes) }

    /// All of stdin, read once and cached (several readers of `-` see the same bytes).
    public func stdinBytes() throws -> [UInt8] {
        try stdinCache.withLock { cache in
            if let cache { return cache }
            let bytes = try readIn()
            cache = bytes
            return bytes
        }
    }

    /// Stdin as a stream of chunks (for line-by-line batches): the descriptor itself when nothing has read it yet.
    public func stdinSource() throws -> any ByteSource {
        if let descriptor = stdinDescriptor, stdinCache.withLock({ $0 == nil }) {
            return FileReader(fd: descriptor, ownsDescriptor: false)
        }
        return MemoryByteSource(try stdinBytes())
    }
}

private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}

private func readAll(_ fd: Int32) throws -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            result.append(contentsOf: chunk[0..<n])
            if result.count > FileInput.maximumBytes {
                throw CLIError(.input, "stdin is larger than \(FileInput.maximumBytes >> 20) MiB")
            }
        }
        else if n == 0 { return result }
        else if errno == EINTR { continue }
        else { throw CLIError(.input, "cannot read stdin: \(String(cString: strerror(errno)))") }
    }
}

/// When to colour output. Decided per stream: `auto` colours a stream only when it is a terminal and neither
/// `NO_COLOR` (non-empty) nor `TERM=dumb` says otherwise; `FORCE_COLOR`/`CLICOLOR_FORCE` turn it on in auto mode.
/// An explicit `--color` beats every environment variable.
public enum ColorChoice: String, CaseIterable, ArgumentValue, Sendable {
    case auto
    case always
    case never

    func enabled(isTerminal: Bool, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if let force = environment["FORCE_COLOR"] ?? environment["CLICOLOR_FORCE"], !force.isEmpty, force != "0" {
                return true
            }
            if environment["TERM"] == "dumb" { return false }
            return isTerminal
        }
    }
}

