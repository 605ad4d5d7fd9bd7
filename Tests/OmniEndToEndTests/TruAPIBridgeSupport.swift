import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport

/// A running `omni truapi bridge --output jsonl`: its ready line, its event lines as they come, its stderr, signals.
final class BridgeProcess: @unchecked Sendable {
    private let process = Process()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var errors = Data()
    private var finished = false
    private(set) var ready: JSONValue = .null

    var url: String { ready["url"]?.stringValue ?? "" }
    var port: Int { Int(ready["port"]?.int64Value ?? 0) }
    var pid: Int32 { process.processIdentifier }

    /// Starts the bridge with `arguments` after `truapi bridge --output jsonl --listen 127.0.0.1:0` and waits for the
    /// ready line. `environment` adds to the test environment; stdin is /dev/null (no terminal, so prompts refuse).
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: Omni.executable)
        process.arguments = ["truapi", "bridge", "--output", "jsonl", "--listen", "127.0.0.1:0"] + arguments
        process.environment = Omni.environment(environment)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let condition = condition
        Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    condition.withLock {
                        lines.append(line)
                        condition.broadcast()
                    }
                }
            }
            condition.withLock {
                finished = true
                condition.broadcast()
            }
        }.start()
        Thread { [self] in
            while true {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                condition.withLock {
                    errors.append(chunk)
                    condition.broadcast()
                }
            }
        }.start()
        let first: JSONValue
        do {
            first = try Self.waitLine(condition: condition, lines: { self.lines }, finished: { self.finished }, timeout: 30) { _ in true }
        } catch {
            if process.isRunning { process.terminate() }
            throw TestSupportError("the bridge did not start: \(error); stderr: \(String(decoding: errors, as: UTF8.self))")
        }
        guard first["event"]?.stringValue == "ready" else { throw TestSupportError("first line is not ready: \(first.serialized())") }
        ready = first
    }

    /// The `occurrence`-th line (1-based) matching `predicate`.
    private static func waitLine(condition: NSCondition, lines: () -> [String], finished: () -> Bool, occurrence: Int = 1, timeout: Double,
                                 where predicate: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var index = 0
        var seen = 0
        while true {
            let current = lines()
            while index < current.count {
                if let json = try? JSONValue.parse(current[index]), predicate(json) {
                    seen += 1
                    if seen == occurrence { return json }
                }
                index += 1
            }
            if finished() || !condition.wait(until: deadline) {
                throw TestSupportError("no matching line; got \(current.suffix(20))")
            }
        }
    }

    /// The `occurrence`-th event line matching `predicate`, waiting for it.
    @discardableResult
    func event(_ occurrence: Int = 1, timeout: Double = 30, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
        try Self.waitLine(condition: condition, lines: { lines }, finished: { finished }, occurrence: occurrence, timeout: timeout, where: predicate)
    }

    @discardableResult
    func event(_ name: String, _ occurrence: Int = 1, timeout: Double = 30) throws -> JSONValue {
        try event(occurrence, timeout: timeout) { $0["event"]?.stringValue == name }
    }

    var events: [JSONValue] { condition.withLock { lines }.compactMap { try? JSONValue.parse($0) } }
    var stdout: String { condition.withLock { lines.joined(separator: "\n") } }
    var stderrText: String { condition.withLock { String(decoding: errors, as: UTF8.self) } }

    /// Waits until stderr contains `text`.
    func waitForStderr(_ text: String, timeout: Double = 30) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !String(decoding: errors, as: UTF8.self).contains(text) {
            guard condition.wait(until: deadline) else { throw TestSupportError("stderr never said \(text): \(String(decoding: errors, as: UTF8.self))") }
        }
    }

    func signal(_ number: Int32) { if process.isRunning { kill(process.processIdentifier, number) } }

    func waitForExit(timeout: Double = 30) throws -> Int32 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw TestSupportError("the bridge did not exit within \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        condition.lock()
        while !finished { _ = condition.wait(until: Date(timeIntervalSinceNow: 1)) }
        condition.unlock()
        return process.terminationStatus
    }

    /// SIGTERM and the exit status.
    @discardableResult
    func stop() throws -> Int32 {
        signal(SIGTERM)
        return try waitForExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}

enum TruAPIBridgeE2E {
    static let aa = String(repeating: "aa", count: 32)
    static let zeros = String(repeating: "00", count: 32)

    /// `omni truapi …` with the bridge's URL in OMNI_TRUAPI_URL (never on argv).
    static func truapi(_ arguments: [String], url: String?, stdin: Data? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
        var env = environment
        if let url { env["OMNI_TRUAPI_URL"] = url }
        return try Omni.run(["truapi"] + arguments, stdin: stdin, environment: env)
    }

    static func compact(_ value: Int) -> [UInt8] {
        if value < 1 << 6 { return [UInt8(value << 2)] }
        if value < 1 << 14 { return withUnsafeBytes(of: UInt16(value << 2 | 1).littleEndian, Array.init) }
        return withUnsafeBytes(of: UInt32(value << 2 | 2).littleEndian, Array.init)
    }

    static func string(_ text: String) -> [UInt8] { compact(text.utf8.count) + Array(text.utf8) }

    /// A `local_storage_write` request frame (wire id 14), built by hand from §3.
    static func storageWrite(id: String, key: String, value: [UInt8]) -> [UInt8] {
        string(id) + [14, 0] + string(key) + compact(value.count) + value
    }

    /// A fresh directory under the temporary directory.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("omni-bridge-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, to url: URL, mode: Int = 0o600) throws {
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }
}
