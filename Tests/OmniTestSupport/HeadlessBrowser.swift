import Foundation
import OmniCodec
import OmniTransport
import Testing

/// Headless Chromium, when this machine has it (Debian `chromium`; .ci/run and `make test-deps` install it).
public enum Chromium {
    public static let executable: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/snap/bin"]
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
                return directory + "/" + name
            }
        }
        return nil
    }()

    /// Why a suite that needs a browser is skipped: `what` says what cannot be tested without one.
    public static func missingNote(_ what: String) -> Comment {
        Comment(rawValue: "Chromium is not installed (Debian: apt-get install chromium; `make test-deps` does it): \(what) needs a browser, so these tests are skipped")
    }
}

/// A headless Chromium showing one page, with its DevTools endpoint for reading the page's state and taking
/// screenshots after the page reported (never on a timer). Popups are allowed (a real user clicks instead).
public final class HeadlessBrowser: @unchecked Sendable {
    private let process = Process()
    private let profile: URL
    private let lock = NSLock()
    private var devTools: WebSocketConnection?
    private var nextCommand = 0

    public init(_ url: String) throws {
        guard let executable = Chromium.executable else { throw TestSupportError("no chromium") }
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("omni-e2e-chromium-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                             "--no-default-browser-check", "--disable-popup-blocking", "--disable-background-networking",
                             "--disable-extensions", "--window-size=1100,760", "--remote-debugging-port=0",
                             "--user-data-dir=" + profile.path, url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    public func stop() {
        lock.withLock {
            devTools?.abort()
            devTools = nil
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: profile)
    }

    deinit { stop() }

    // MARK: - DevTools protocol

    /// The value of `expression` in the page whose URL contains `pageURL` (JSON, as `returnByValue` gives it).
    public func evaluate(_ expression: String, inPage pageURL: String) throws -> JSONValue {
        let session = try attach(pageURL)
        let answer = try command("Runtime.evaluate", [("expression", .string(expression)), ("returnByValue", .bool(true))], session: session)
        if let exception = answer["exceptionDetails"] { throw TestSupportError("\(expression) threw: \(exception.serialized())") }
        return answer["result"]?["value"] ?? .null
    }

    /// A PNG of the page whose URL contains `pageURL`, written to `file` (directories made as needed).
    public func screenshot(ofPage pageURL: String, to file: URL) throws {
        let session = try attach(pageURL)
        let answer = try command("Page.captureScreenshot", [("format", "png")], session: session)
        guard let data = answer["data"]?.stringValue else { throw TestSupportError("no screenshot data: \(answer.serialized())") }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(try Base64.decode(data)).write(to: file)
    }

    /// A DevTools session on the first page target whose URL contains `pageURL`.
    private func attach(_ pageURL: String) throws -> String {
        let targets = try command("Target.getTargets", [])
        guard let target = targets["targetInfos"]?.arrayValue?.first(where: {
            $0["type"]?.stringValue == "page" && ($0["url"]?.stringValue ?? "").contains(pageURL)
        }), let id = target["targetId"]?.stringValue else {
            throw TestSupportError("no page at \(pageURL) among \(targets.serialized())")
        }
        let attached = try command("Target.attachToTarget", [("targetId", .string(id)), ("flatten", .bool(true))])
        guard let session = attached["sessionId"]?.stringValue else { throw TestSupportError("attach failed: \(attached.serialized())") }
        return session
    }

    /// Sends one command and returns its `result`, skipping the events that arrive meanwhile.
    private func command(_ method: String, _ parameters: [(String, JSONValue)], session: String? = nil, timeout: Double = 30) throws -> JSONValue {
        try lock.withLock {
            let socket = try connection()
            nextCommand += 1
            let id = nextCommand
            var message = JSONObject()
            message.append("id", .int(id))
            message.append("method", .string(method))
            message.append("params", .object(JSONObject(parameters)))
            if let session { message.append("sessionId", .string(session)) }
            try socket.send(text: JSONValue.object(message).serialized())
            let deadline = Date(timeIntervalSinceNow: timeout)
            while true {
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else { throw TestSupportError("DevTools did not answer \(method) within \(timeout) s") }
                guard case .text(let text) = try socket.receive(timeout: left) else { continue }
                let answer = try JSONValue.parse(Array(text.utf8))
                guard answer["id"] == .int(id) else { continue }
                if let error = answer["error"] { throw TestSupportError("\(method) failed: \(error.serialized())") }
                return answer["result"] ?? .null
            }
        }
    }

    /// The browser-level DevTools WebSocket, from the port Chromium writes into its profile once it listens.
    private func connection() throws -> WebSocketConnection {
        if let devTools { return devTools }
        let file = profile.appendingPathComponent("DevToolsActivePort")
        let deadline = Date(timeIntervalSinceNow: 30)
        var lines: [Substring] = []
        while lines.count < 2 {
            if let text = try? String(contentsOf: file, encoding: .utf8) { lines = text.split(separator: "\n") }
            if lines.count >= 2 { break }
            guard process.isRunning, Date() < deadline else { throw TestSupportError("Chromium never wrote \(file.path)") }
            usleep(20_000)
        }
        var configuration = WebSocketClient.Configuration()
        configuration.options.maxMessageBytes = 64 << 20
        let socket = try WebSocketClient.connect("ws://127.0.0.1:\(lines[0])\(lines[1])", configuration: configuration)
        devTools = socket
        return socket
    }
}
