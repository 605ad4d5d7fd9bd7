import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport

/// A running `omni truapi bridge --output jsonl`: its ready line, its event lines as they come, its stderr, signals.
final class BridgeProcess: @unchecked Sendable {
    private let process: BackgroundProcess
    private(set) var ready: JSONValue = .null

    var url: String { ready["url"]?.stringValue ?? "" }
    var port: Int { Int(ready["port"]?.int64Value ?? 0) }
    var pid: Int32 { process.pid }

    /// Starts the bridge with `arguments` after `truapi bridge --output jsonl --listen 127.0.0.1:0` and waits for the
    /// ready line. `environment` adds to the test environment; stdin is /dev/null (no terminal, so prompts refuse).
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process = try BackgroundProcess(executable: Omni.executable,
                                        ["truapi", "bridge", "--output", "jsonl", "--listen", "127.0.0.1:0"] + arguments,
                                        environment: Omni.environment(environment))
        let first: JSONValue
        do {
            first = try process.jsonLine { _ in true }
        } catch {
            process.terminate()
            throw TestSupportError("the bridge did not start: \(error)")
        }
        guard first["event"]?.stringValue == "ready" else { throw TestSupportError("first line is not ready: \(first.serialized())") }
        ready = first
    }

    /// The `occurrence`-th event line matching `predicate`, waiting for it.
    @discardableResult
    func event(_ occurrence: Int = 1, timeout: Double = 30, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
        try process.jsonLine(occurrence, timeout: timeout, where: predicate)
    }

    @discardableResult
    func event(_ name: String, _ occurrence: Int = 1, timeout: Double = 30) throws -> JSONValue {
        try event(occurrence, timeout: timeout) { $0["event"]?.stringValue == name }
    }

    var events: [JSONValue] { process.stdoutLinesSoFar.compactMap { try? JSONValue.parse($0) } }
    var stdout: String { process.stdoutLinesSoFar.joined(separator: "\n") }
    var stderrText: String { process.stderrText }

    /// Waits until stderr contains `text`.
    func waitForStderr(_ text: String, timeout: Double = 30) throws { try process.waitForStderr(text, timeout: timeout) }

    func signal(_ number: Int32) { process.signal(number) }

    func waitForExit(timeout: Double = 30) throws -> Int32 { try process.waitForExit(timeout: timeout) }

    /// SIGTERM and the exit status.
    @discardableResult
    func stop() throws -> Int32 {
        signal(SIGTERM)
        return try waitForExit()
    }
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
