import Foundation
import OmniCodec

/// A program running in the background whose stdout and stderr are collected as they arrive, so a test can wait
/// for an event (a line, some text, the exit) instead of sleeping. One home for what the end-to-end suites need
/// when they run `omni relay`, `omni truapi bridge`, `omni ic identity login` and the like.
///
/// stdin is /dev/null (no terminal: prompts refuse), or a pipe the test writes to (`stdinPipe: true`). Every wait has
/// a deadline and fails with what was seen.
public final class BackgroundProcess: @unchecked Sendable {
    public let arguments: [String]
    private let process = Process()
    private let condition = NSCondition()
    private var stdoutBytes = Data()
    private var stdoutLines: [String] = []
    private var stderrBytes = Data()
    private var stderrLines: [String] = []
    private var openStreams = 2
    private var exited = false

    private let stdin: FileHandle?

    public init(executable: String, _ arguments: [String], environment: [String: String], stdinPipe: Bool = false) throws {
        self.arguments = arguments
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if stdinPipe {
            let input = Pipe()
            process.standardInput = input
            stdin = input.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
            stdin = nil
        }
        let condition = condition
        process.terminationHandler = { [weak self] _ in
            condition.withLock {
                self?.exited = true
                condition.broadcast()
            }
        }
        try process.run()
        startReading(out.fileHandleForReading, isStdout: true)
        startReading(err.fileHandleForReading, isStdout: false)
    }

    private func startReading(_ handle: FileHandle, isStdout: Bool) {
        Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                condition.withLock {
                    if isStdout { stdoutBytes.append(chunk) } else { stderrBytes.append(chunk) }
                    while let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        if isStdout { stdoutLines.append(line) } else { stderrLines.append(line) }
                    }
                    condition.broadcast()
                }
            }
            condition.withLock {
                if !pending.isEmpty {
                    let rest = String(decoding: pending, as: UTF8.self)
                    if isStdout { stdoutLines.append(rest) } else { stderrLines.append(rest) }
                }
                openStreams -= 1
                condition.broadcast()
            }
        }.start()
    }

    /// Writes to the program's stdin (only with `stdinPipe: true`).
    public func write(_ text: String) throws {
        guard let stdin else { throw TestSupportError("stdin is /dev/null: start with stdinPipe: true") }
        try stdin.write(contentsOf: Data(text.utf8))
    }

    /// Ends the program's stdin.
    public func closeStdin() throws { try stdin?.close() }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Waits until `found` (called under the lock, with whether output is still coming) returns a value.
    private func wait<T>(timeout: Double, failure: @autoclosure () -> String, _ found: () -> T?) throws -> T {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value = found() { return value }
            if openStreams == 0 || !condition.wait(until: deadline) {
                if let value = found() { return value }
                throw TestSupportError("\(failure()) (\(arguments.prefix(4).joined(separator: " ")) …); stdout: "
                                       + "\(stdoutLines.suffix(20)); stderr: \(String(decoding: stderrBytes.suffix(4096), as: UTF8.self))")
            }
        }
    }

    /// The `occurrence`-th (1-based) stdout line that is JSON and satisfies `predicate`.
    public func jsonLine(_ occurrence: Int = 1, timeout: Double = 30, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
        try wait(timeout: timeout, failure: "no matching JSON line on stdout") {
            var seen = 0
            for line in stdoutLines {
                guard let json = try? JSONValue.parse(line), predicate(json) else { continue }
                seen += 1
                if seen == occurrence { return json }
            }
            return nil
        }
    }

    /// The first stderr line satisfying `predicate`.
    public func stderrLine(timeout: Double = 30, where predicate: (String) -> Bool) throws -> String {
        try wait(timeout: timeout, failure: "no matching line on stderr") { stderrLines.first(where: predicate) }
    }

    /// Waits until everything written to stdout so far (partial lines included) satisfies `predicate`.
    @discardableResult
    public func waitForStdout(timeout: Double = 30, until predicate: (String) -> Bool) throws -> String {
        try wait(timeout: timeout, failure: "stdout never showed what was expected") {
            let text = String(decoding: stdoutBytes, as: UTF8.self)
            return predicate(text) ? text : nil
        }
    }

    /// Waits until stderr contains `text`.
    public func waitForStderr(_ text: String, timeout: Double = 30) throws {
        try wait(timeout: timeout, failure: "stderr never said \(text)") {
            String(decoding: stderrBytes, as: UTF8.self).contains(text) ? () : nil
        }
    }

    public var stdoutText: String { condition.withLock { String(decoding: stdoutBytes, as: UTF8.self) } }
    public var stdoutLinesSoFar: [String] { condition.withLock { stdoutLines } }
    public var stderrText: String { condition.withLock { String(decoding: stderrBytes, as: UTF8.self) } }

    public func signal(_ number: Int32) { if process.isRunning { kill(process.processIdentifier, number) } }
    public func interrupt() { signal(SIGINT) }
    public func terminate() { signal(SIGTERM) }

    /// Waits for the exit and for both pipes to drain; the exit status. Kills the process when the deadline passes.
    public func waitForExit(timeout: Double = 30) throws -> Int32 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while !exited || openStreams > 0 {
            if !condition.wait(until: deadline) {
                condition.unlock()
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                throw TestSupportError("\(arguments.prefix(4).joined(separator: " ")) … did not exit within \(timeout) s; stderr: \(stderrText)")
            }
        }
        condition.unlock()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}
