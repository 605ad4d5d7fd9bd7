import Foundation
import OmniCodec
import OmniTestSupport

/// A long-running Python peer (a server the test talks to). It is started with a stdin pipe; closing that pipe or
/// `stop()` ends it. The first stdout line is its JSON announcement (ports).
final class PeerProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let condition = NSCondition()
    private var collected = Data()
    private var ended = false

    init(_ script: String, _ arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.peer(script).path] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let handle = output.fileHandleForReading
        Thread { [self] in
            while true {
                let data = handle.availableData
                condition.withLock {
                    if data.isEmpty { ended = true } else { collected.append(data) }
                    condition.broadcast()
                }
                if data.isEmpty { return }
            }
        }.start()
    }

    /// The next stdout line, waiting up to `timeout` seconds.
    func line(timeout: Double = 10) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let newline = collected.firstIndex(of: 0x0A) {
                let line = String(decoding: collected[collected.startIndex..<newline], as: UTF8.self)
                collected.removeSubrange(collected.startIndex...newline)
                return line
            }
            if ended || !condition.wait(until: deadline) {
                let stderr = String(decoding: errors.fileHandleForReading.availableDataIfExited(process), as: UTF8.self)
                throw TestSupportError("peer \(process.arguments?[1] ?? "") printed no line; stderr: \(stderr)")
            }
        }
    }

    /// The announcement line parsed as a JSON object of integers (ports).
    func ports() throws -> [String: Int] {
        let text = try line()
        guard case .object(let object) = try JSONValue.parse(text) else { throw TestSupportError("peer announced \(text)") }
        var ports: [String: Int] = [:]
        for (key, value) in object {
            if case .number(let number) = value, let port = Int(number) { ports[key] = port }
        }
        return ports
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

extension FileHandle {
    /// Stderr of a peer that already failed; empty while it runs (reading would block).
    fileprivate func availableDataIfExited(_ process: Process) -> Data {
        process.isRunning ? Data() : readDataToEndOfFile()
    }
}


/// Reads a JSON object from a Python peer's stdout.
func peerJSON(_ result: ProcessResult) throws -> JSONValue {
    guard result.status == 0 else {
        throw TestSupportError("peer failed (\(result.status)): \(result.stderrText) \(result.stdoutText)")
    }
    return try JSONValue.parse(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
}

extension JSONValue {
    var intValue: Int? { int64Value.map { Int($0) } }
}

extension SeededGenerator {
    /// Random text mixing ASCII with 2-, 3- and 4-byte UTF-8 sequences, of exactly `byteCount` UTF-8 bytes.
    mutating func text(byteCount: Int) -> String {
        var scalars = String.UnicodeScalarView()
        var remaining = byteCount
        let pools: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x7FF, 0x800...0xD7FF, 0x10000...0x10FFFF]
        while remaining > 0 {
            let width = Int.random(in: 1...min(4, remaining), using: &self)
            let pool = pools[width - 1]
            if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &self)) {
                scalars.append(scalar)
                remaining -= width
            }
        }
        return String(scalars)
    }
}
