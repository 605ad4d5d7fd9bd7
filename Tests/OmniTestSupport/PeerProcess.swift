import Foundation
import OmniCodec
import OmniTransport

/// A long-running Python peer from `Tests/Peers` (e.g. `ic_replica.py`): started with python3, its first stdout
/// line read as JSON (the peer's announcement: URL, keys, ids), stopped on `stop()` or deinit.
///
/// The peer's stdin stays an open pipe: peers that watch stdin exit by themselves when the test process dies.
/// Stopping closes stdin, then sends SIGTERM and waits. stderr is collected (the last 64 KiB) for failure messages.
public final class PeerProcess: @unchecked Sendable {
    /// The first stdout line, parsed.
    public let announcement: JSONValue
    public let script: String

    private let process = Process()
    private let stdinPipe = Pipe()
    private let errors = OutputTail(limit: 65536)
    private let lock = NSLock()
    private var stopped = false

    /// Starts `script` with `arguments` and waits up to `timeout` seconds for its JSON announcement line.
    public init(script: String, arguments: [String] = [], timeout: Double = 20) throws {
        self.script = script
        let stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.peer(script).path] + arguments
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        try process.run()

        let errors = self.errors
        Thread {
            let handle = stderrPipe.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                errors.append(chunk)
            }
        }.start()

        let found = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var line = Data()
        Thread {
            let handle = stdoutPipe.fileHandleForReading
            while !line.contains(0x0A) {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            found.signal()
            // Keep draining so a chatty peer never blocks on a full pipe.
            while !handle.availableData.isEmpty {}
        }.start()

        let arrived = found.wait(timeout: .now() + timeout) == .success
        let firstLine = line.prefix { $0 != 0x0A }
        guard arrived, let json = try? JSONValue.parse([UInt8](firstLine)), json.objectValue != nil else {
            if process.isRunning { process.terminate() }
            throw TestSupportError("\(script) did not announce itself with a JSON line within \(timeout) s; "
                                   + "stdout: \(String(decoding: firstLine, as: UTF8.self)) stderr: \(errors.text)")
        }
        announcement = json
    }

    /// A string field of the announcement.
    public func string(_ key: String) throws -> String {
        guard let value = announcement[key]?.stringValue else {
            throw TestSupportError("\(script) announcement has no string \"\(key)\": \(announcement.serialized())")
        }
        return value
    }

    /// An integer field of the announcement (a port).
    public func int(_ key: String) throws -> Int {
        guard let value = announcement[key]?.int64Value, let int = Int(exactly: value) else {
            throw TestSupportError("\(script) announcement has no integer \"\(key)\": \(announcement.serialized())")
        }
        return int
    }

    /// What the peer wrote on stderr so far (at most the last 64 KiB).
    public var stderrText: String { errors.text }

    public var isRunning: Bool { process.isRunning }

    /// Closes stdin, sends SIGTERM and waits for the exit. Safe to call more than once.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// The last `limit` bytes written to a pipe, readable from any thread.
private final class OutputTail: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func append(_ chunk: Data) {
        lock.withLock {
            data.append(chunk)
            if data.count > limit { data = data.suffix(limit) }
        }
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

extension PeerProcess {
    /// Sends an HTTP request to the peer's announced `url` (plus `path`) and parses the JSON answer; a status
    /// other than 200 is an error carrying the body. For control APIs such as `ic_replica.py`'s `/_control`.
    @discardableResult
    public func requestJSON(_ path: String, method: String = "GET", body: JSONValue? = nil) throws -> JSONValue {
        let url = try string("url") + path
        let request = HTTPRequest(method: method, url: url, headers: body == nil ? [:] : ["Content-Type": "application/json"],
                                  body: body.map { Array($0.serialized().utf8) }, totalTimeout: .seconds(20))
        let response = try HTTPClient().perform(request)
        guard response.status == 200 else {
            throw TestSupportError("\(method) \(url): HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return try JSONValue.parse(response.body)
    }
}
