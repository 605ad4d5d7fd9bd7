import Foundation
import OmniTestSupport
import OmniTransport

/// The Python peer `Tests/Peers/http_peer.py`, running for the duration of one test.
/// It exits when `stop()` is called or when its stdin closes (e.g. if the test process dies).
final class HTTPPeer {
    let httpPort: Int
    let httpsPort: Int
    let httpsOtherPort: Int
    let blackholePort: Int
    let closedPort: Int
    /// PEM of the CA that signed the `httpsPort` server's certificate.
    let caPath: String
    /// PEM of a second, unrelated CA that signed the `httpsOtherPort` server's certificate.
    let otherCAPath: String

    private let process = Process()
    private let stdinPipe = Pipe()

    init() throws {
        let stdoutPipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.peer("http_peer.py").path]
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.standardError
        try process.run()

        var line = Data()
        let reader = stdoutPipe.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
              let http = object["http"] as? Int, let https = object["https"] as? Int,
              let httpsOther = object["https_other"] as? Int, let blackhole = object["blackhole"] as? Int,
              let closed = object["closed"] as? Int, let ca = object["ca"] as? String,
              let otherCA = object["ca_other"] as? String
        else {
            process.terminate()
            throw TestSupportError("http_peer.py did not announce its ports: \(String(decoding: line, as: UTF8.self))")
        }
        httpPort = http
        httpsPort = https
        httpsOtherPort = httpsOther
        blackholePort = blackhole
        closedPort = closed
        caPath = ca
        otherCAPath = otherCA
    }

    deinit {
        stop()
    }

    func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(httpPort)\(path)" }
    func httpsURL(_ path: String, host: String = "127.0.0.1") -> String { "https://\(host):\(httpsPort)\(path)" }
    func otherHTTPSURL(_ path: String) -> String { "https://127.0.0.1:\(httpsOtherPort)\(path)" }

    /// The peer's bookkeeping (`/stats`): slow_inflight, slow_max_inflight, tags.
    func stats() throws -> [String: Any] {
        try jsonObject(HTTPClient().perform(HTTPRequest(url: url("/stats"))))
    }

    /// Waits (bounded) until the peer's state satisfies `condition`; returns false if it never does.
    func waitForStats(_ condition: ([String: Any]) -> Bool) throws -> Bool {
        for _ in 0..<500 {
            if condition(try stats()) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }
}

func jsonObject(_ response: HTTPResponse) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
        throw TestSupportError("expected a JSON object, got \(String(decoding: response.body, as: UTF8.self))")
    }
    return object
}

/// The byte pattern the peer serves on /bytes/<n>.
func peerPattern(count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: (($0 % 256) * 131 + 17) & 0xFF) }
}
