import Foundation

/// Runs a child process to completion, feeding stdin and capturing stdout and stderr.
/// Used by peer tests (Python reference implementations) and end-to-end tests (the built omni binary).
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: Data
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

public enum Subprocess {
    /// Runs `executable` with `arguments`. Reads both pipes concurrently so large outputs cannot deadlock.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        stdin: Data? = nil,
        environment: [String: String]? = nil,
        currentDirectory: URL? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var out = Data(), err = Data()
        group.enter()
        DispatchQueue.global().async { out = outPipe.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { err = errPipe.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if let stdin { inPipe.fileHandleForWriting.write(stdin) }
        try? inPipe.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return ProcessResult(status: process.terminationStatus, stdout: out, stderr: err)
    }

    /// Runs a Python peer script from Tests/Peers with python3 from PATH.
    public static func python(_ script: String, _ arguments: [String] = [], stdin: Data? = nil) throws -> ProcessResult {
        try run("/usr/bin/env", ["python3", Repository.peer(script).path] + arguments, stdin: stdin)
    }
}
