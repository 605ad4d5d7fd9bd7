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

    private let process: PeerProcess

    init() throws {
        process = try PeerProcess(script: "http_peer.py")
        httpPort = try process.int("http")
        httpsPort = try process.int("https")
        httpsOtherPort = try process.int("https_other")
        blackholePort = try process.int("blackhole")
        closedPort = try process.int("closed")
        caPath = try process.string("ca")
        otherCAPath = try process.string("ca_other")
    }

    func stop() { process.stop() }

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
