import Foundation
import OmniTestSupport
import Synchronization
import Testing
@testable import OmniTransport

/// The HTTP client against the local Python peer (Tests/Peers/http_peer.py), one fresh peer per test.
/// Serialized because one test changes the process environment (proxy variables) that libcurl reads.
@Suite(.serialized, .offPool)
struct HTTPClientTests {
    // MARK: - Requests and responses

    @Test(arguments: ["GET", "POST", "PUT", "DELETE", "PATCH"])
    func methodHeadersAndBodyAreSentExactly(method: String) throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient(configuration: .init(userAgent: "omni/test"))
        let body = Array("payload for \(method) \u{2713}".utf8)
        let headers: HTTPHeaders = [
            "X-Omni-Method": method, "X-Repeat": "one", "X-Repeat": "two", "X-Empty": "",
            "Content-Type": "text/plain; charset=utf-8",
        ]
        let response = try client.perform(HTTPRequest(method: method, url: peer.url("/echo?q=1"),
                                                      headers: headers, body: body))
        #expect(response.status == 200)
        let echo = try jsonObject(response)
        #expect(echo["method"] as? String == method)
        #expect(echo["target"] as? String == "/echo?q=1")
        #expect(echo["body_base64"] as? String == Data(body).base64EncodedString())
        let received = try #require(echo["headers"] as? [[String]])
        let ours = headers.map { [$0.name, $0.value] }
        #expect(received.filter { pair in ours.contains(pair) } == ours, "sent in order, repeats kept: \(received)")
        #expect(received.filter { $0.first == "User-Agent" } == [["User-Agent", "omni/test"]])
        #expect(!received.contains { $0.first == "Expect" })
    }

    @Test func binaryBodyRoundTripsWithoutInventedContentType() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let body = Array(0...255) + (0..<70_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let response = try HTTPClient().perform(HTTPRequest(method: "POST", url: peer.url("/echo"), body: body))
        let echo = try jsonObject(response)
        let echoed = try #require(Data(base64Encoded: echo["body_base64"] as? String ?? ""))
        #expect(Array(echoed) == body, "seed \(seed)")
        let received = try #require(echo["headers"] as? [[String]])
        #expect(!received.contains { $0.first?.lowercased() == "content-type" })
        #expect(received.contains(["Content-Length", String(body.count)]))
    }

    @Test func emptyPostSendsZeroContentLength() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let echo = try jsonObject(HTTPClient().perform(HTTPRequest(method: "POST", url: peer.url("/echo"))))
        #expect(echo["method"] as? String == "POST")
        #expect((echo["headers"] as? [[String]])?.contains(["Content-Length", "0"]) == true)
    }

    @Test(arguments: [200, 201, 204, 302, 404, 418, 500, 503])
    func statusCodesAreReturnedNotThrown(status: Int) throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let response = try HTTPClient().perform(HTTPRequest(url: peer.url("/status/\(status)")))
        #expect(response.status == status)
        #expect(response.body == (status == 204 ? [] : Array("status \(status)".utf8)))
    }

    @Test func responseModel() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let url = peer.url("/echo")
        let response = try HTTPClient().perform(HTTPRequest(url: url))
        #expect(response.version == .http1_1)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["CONTENT-LENGTH"] == String(response.body.count))
        #expect(response.headers.values(for: "content-type") == ["application/json"])
        #expect(response.headers.first?.name == "Server", "received order: \(response.headers.map(\.name))")
        #expect(response.effectiveURL == url)
        #expect(response.redirectCount == 0)
        #expect(response.totalSeconds > 0)
    }

    @Test func headReturnsHeadersWithoutBody() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let response = try HTTPClient().perform(HTTPRequest(method: "HEAD", url: peer.url("/bytes/1000")))
        #expect(response.status == 200)
        #expect(response.headers["Content-Length"] == "1000")
        #expect(response.body.isEmpty)
    }

    @Test func userAgentDefaultsAndCanBeOverriddenPerRequest() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient()
        let plain = try jsonObject(client.perform(HTTPRequest(url: peer.url("/echo"))))
        #expect((plain["headers"] as? [[String]])?.contains(["User-Agent", "omni"]) == true)
        let custom = try jsonObject(client.perform(HTTPRequest(url: peer.url("/echo"),
                                                               headers: ["user-agent": "probe/1"])))
        let agents = (custom["headers"] as? [[String]] ?? []).filter { $0.first?.lowercased() == "user-agent" }
        #expect(agents == [["user-agent", "probe/1"]])
    }

    // MARK: - Body limit

    @Test(arguments: ["length", "chunked", "close"])
    func bodyExactlyAtTheLimitIsAccepted(mode: String) throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let request = HTTPRequest(url: peer.url("/bytes/100000?mode=\(mode)"), maxResponseBytes: 100_000)
        let response = try HTTPClient().perform(request)
        #expect(response.body == peerPattern(count: 100_000))
    }

    @Test(arguments: ["length", "chunked", "close"])
    func oneByteOverTheLimitIsRefused(mode: String) throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let request = HTTPRequest(url: peer.url("/bytes/100001?mode=\(mode)"), maxResponseBytes: 100_000)
        let error = try #require(throws: TransportError.self) { try HTTPClient().perform(request) }
        #expect(error.kind == .limitExceeded)
        #expect(error.message.contains("100000 bytes"))
        #expect(error.message.contains("Content-Length") == (mode == "length"))
    }

    /// 32 MiB is far beyond what loopback socket buffers hold, so the peer can only finish writing if we keep
    /// reading: its write failing proves the transfer was aborted rather than drained.
    @Test(arguments: ["length", "chunked", "close"])
    func oversizedBodyAbortsTheTransfer(mode: String) throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let tag = "big-\(mode)"
        let request = HTTPRequest(url: peer.url("/bytes/33554432?mode=\(mode)&tag=\(tag)"),
                                  maxResponseBytes: 64 * 1024)
        let error = try #require(throws: TransportError.self) { try HTTPClient().perform(request) }
        #expect(error.kind == .limitExceeded)
        #expect(error.url == request.url)
        let settled = try peer.waitForStats { stats in
            let state = (stats["tags"] as? [String: String])?[tag]
            return state != nil && state != "running"
        }
        #expect(settled)
        #expect((try peer.stats()["tags"] as? [String: String])?[tag] == "aborted")
    }

    @Test func defaultLimitIsTenMebibytes() {
        #expect(HTTPClient.Configuration().maxResponseBytes == 10 * 1024 * 1024)
        #expect(HTTPClient.Configuration().connectTimeout == .seconds(10))
        #expect(HTTPClient.Configuration().totalTimeout == .seconds(60))
        #expect(HTTPClient.Configuration().maxRedirects == 0)
    }

    // MARK: - Failures name their cause

    @Test func connectTimeout() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let request = HTTPRequest(url: "http://127.0.0.1:\(peer.blackholePort)/", connectTimeout: .milliseconds(300))
        let error = try #require(throws: TransportError.self) { try HTTPClient().perform(request) }
        #expect(error.kind == .timeout)
        #expect(error.message.hasPrefix("timed out connecting (limit 300 ms)"), "\(error)")
    }

    @Test func totalTimeout() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let request = HTTPRequest(url: peer.url("/slow/5000"), totalTimeout: .milliseconds(300))
        let error = try #require(throws: TransportError.self) { try HTTPClient().perform(request) }
        #expect(error.kind == .timeout)
        #expect(error.message.hasPrefix("timed out waiting for the response (total limit 300 ms)"), "\(error)")
    }

    @Test func connectionRefused() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let url = "http://127.0.0.1:\(peer.closedPort)/"
        let error = try #require(throws: TransportError.self) { try HTTPClient().perform(HTTPRequest(url: url)) }
        #expect(error.kind == .connect)
        #expect(error.message.contains("\(peer.closedPort)"), "\(error)")
        #expect(error.url == url)
    }

    @Test func unknownHostIsADNSError() throws {
        let url = "http://nonexistent.invalid/"
        let error = try #require(throws: TransportError.self) { try HTTPClient().perform(HTTPRequest(url: url)) }
        #expect(error.kind == .dns)
        #expect(error.message.contains("nonexistent.invalid"), "\(error)")
        #expect(error.description.contains(url))
    }

    @Test(arguments: ["ftp://127.0.0.1/", "127.0.0.1/echo", "http://exa mple/", "http://[::1/"])
    func invalidURLs(url: String) throws {
        let error = try #require(throws: TransportError.self) { try HTTPClient().perform(HTTPRequest(url: url)) }
        #expect(error.kind == .invalidURL, "\(error)")
    }

    @Test func malformedRequestsAreRefusedBeforeSending() throws {
        let client = HTTPClient()
        let injected = HTTPRequest(url: "http://127.0.0.1:1/", headers: ["X-A": "1\r\nX-Injected: 2"])
        let badName = HTTPRequest(url: "http://127.0.0.1:1/", headers: ["Bad Name": "1"])
        let badMethod = HTTPRequest(method: "GET /x", url: "http://127.0.0.1:1/")
        let headWithBody = HTTPRequest(method: "HEAD", url: "http://127.0.0.1:1/", body: [1])
        let zeroLimit = HTTPRequest(url: "http://127.0.0.1:1/", maxResponseBytes: 0)
        let results = client.perform([injected, badName, badMethod, headWithBody, zeroLimit])
        #expect(results.map(\.failureKind) == [.invalidArgument, .invalidArgument, .invalidArgument,
                                               .invalidArgument, .invalidArgument])
        let badAgent = HTTPClient(configuration: .init(userAgent: "omni\r\nX-Injected: 1"))
        #expect(badAgent.perform([HTTPRequest(url: "http://127.0.0.1:1/")]).map(\.failureKind) == [.invalidArgument])
    }

    // MARK: - TLS

    @Test func unknownCAFailsVerification() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let error = try #require(throws: TransportError.self) {
            try HTTPClient().perform(HTTPRequest(url: peer.httpsURL("/echo")))
        }
        #expect(error.kind == .tls)
        #expect(error.message.contains("certificate"), "\(error)")
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func extraCAFileIsTrusted(host: String) throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient(configuration: .init(caCertificatesPath: peer.caPath))
        let response = try client.perform(HTTPRequest(url: peer.httpsURL("/status/201", host: host)))
        #expect(response.status == 201)
    }

    /// `caCertificatesPath` must add to the default store, not replace it. The default store is stood in for by a
    /// second CA (through the test-only override), since no public roots are reachable offline.
    @Test func extraCAFileExtendsTheBaseTrustStore() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        var both = HTTPClient.Configuration(caCertificatesPath: peer.caPath)
        both.baseTrustStoreOverride = peer.otherCAPath
        let combined = HTTPClient(configuration: both)
        #expect(try combined.perform(HTTPRequest(url: peer.httpsURL("/status/200"))).status == 200)
        #expect(try combined.perform(HTTPRequest(url: peer.otherHTTPSURL("/status/200"))).status == 200)

        var baseOnly = HTTPClient.Configuration()
        baseOnly.baseTrustStoreOverride = peer.otherCAPath
        let base = HTTPClient(configuration: baseOnly)
        #expect(try base.perform(HTTPRequest(url: peer.otherHTTPSURL("/status/200"))).status == 200)
        let error = try #require(throws: TransportError.self) {
            try base.perform(HTTPRequest(url: peer.httpsURL("/status/200")))
        }
        #expect(error.kind == .tls)
    }

    /// On this machine's libcurl build, the default store is a CA file and directory; libcurl's own trace shows
    /// they are still loaded when the extra CA file is given (and the extra CA is what verifies the peer).
    @Test func systemTrustStoreStaysLoadedWithExtraCAFile() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let lines = Mutex<[String]>([])
        let client = HTTPClient(configuration: .init(
            caCertificatesPath: peer.caPath, logger: { line in lines.withLock { $0.append(line) } }))
        #expect(try client.perform(HTTPRequest(url: peer.httpsURL("/status/200"))).status == 200)
        let trustLines = lines.withLock { $0 }.filter { $0.hasPrefix("*  CAfile: ") || $0.hasPrefix("*  CApath: ") }
        #expect(!trustLines.isEmpty)
        #expect(!trustLines.contains { $0.contains(peer.caPath) }, "\(trustLines)")
    }

    @Test func unreadableCAFileIsReported() throws {
        let path = "/nonexistent/omni-ca.pem"
        let client = HTTPClient(configuration: .init(caCertificatesPath: path))
        let error = try #require(throws: TransportError.self) {
            try client.perform(HTTPRequest(url: "https://127.0.0.1:1/"))
        }
        #expect(error.kind == .tls)
        #expect(error.message.contains(path))
    }

    @Test func caFileWithoutCertificatesIsReported() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("omni-not-a-ca-\(UUID()).pem").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let client = HTTPClient(configuration: .init(caCertificatesPath: path))
        let error = try #require(throws: TransportError.self) {
            try client.perform(HTTPRequest(url: peer.httpsURL("/echo")))
        }
        #expect(error.kind == .tls)
        #expect(error.message.contains(path), "\(error)")
    }

    // MARK: - Redirects

    @Test func redirectsAreNotFollowedUnlessAsked() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let response = try HTTPClient().perform(HTTPRequest(url: peer.url("/redirect?n=1&to=/echo")))
        #expect(response.status == 302)
        #expect(response.headers["location"] == "/echo")
    }

    @Test func redirectsAreFollowedUpToTheLimit() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient(configuration: .init(maxRedirects: 3))
        let response = try client.perform(HTTPRequest(url: peer.url("/redirect?n=3&to=/status/203")))
        #expect(response.status == 203)
        #expect(response.redirectCount == 3)
        #expect(response.effectiveURL == peer.url("/status/203"))
        #expect(response.body == Array("status 203".utf8))

        let error = try #require(throws: TransportError.self) {
            try client.perform(HTTPRequest(url: peer.url("/redirect?n=4&to=/echo")))
        }
        #expect(error.kind == .limitExceeded)
    }

    // MARK: - Concurrency and cancellation

    @Test func batchRunsConcurrentlyWithinTheCapAndKeepsOrder() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient(configuration: .init(maxConcurrentTransfers: 6))
        let requests = (0..<24).map { HTTPRequest(url: peer.url("/slow/200?i=\($0)")) }
        let results = client.perform(requests)
        #expect(results.count == 24)
        for (index, result) in results.enumerated() {
            let object = try jsonObject(try result.get())
            #expect(object["i"] as? String == String(index))
        }
        let maxInFlight = try #require(try peer.stats()["slow_max_inflight"] as? Int)
        #expect(maxInFlight > 1)
        #expect(maxInFlight <= 6)
    }

    @Test func batchReportsEachFailureInPlace() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let results = HTTPClient().perform([
            HTTPRequest(url: peer.url("/status/200")),
            HTTPRequest(url: "http://127.0.0.1:\(peer.closedPort)/"),
            HTTPRequest(url: "gopher://127.0.0.1/"),
            HTTPRequest(url: peer.url("/status/404")),
        ])
        #expect((try? results[0].get())?.status == 200)
        #expect(results[1].failureKind == .connect)
        #expect(results[2].failureKind == .invalidURL)
        #expect((try? results[3].get())?.status == 404)
        #expect(HTTPClient().perform([]).isEmpty)
    }

    @Test func cancellationStopsARunningTransfer() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient()
        let cancellation = HTTPCancellation()
        let outcome = Mutex<Result<HTTPResponse, TransportError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let result = Result { () throws(TransportError) -> HTTPResponse in
                try client.perform(HTTPRequest(url: peer.url("/slow/10000")), cancellation: cancellation)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
        #expect(try peer.waitForStats { ($0["slow_inflight"] as? Int ?? 0) >= 1 })
        cancellation.cancel()
        #expect(done.wait(timeout: .now() + 10) == .success, "the cancelled transfer did not return within 10 s")
        let error = try #require(outcome.withLock { $0 }?.failure)
        #expect(error.kind == .cancelled)
    }

    @Test func alreadyCancelledRequestsDoNotStart() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let cancellation = HTTPCancellation()
        cancellation.cancel()
        let results = HTTPClient().perform(
            [HTTPRequest(url: peer.url("/slow/1000")), HTTPRequest(url: peer.url("/echo"))], cancellation: cancellation)
        #expect(results.map(\.failureKind) == [.cancelled, .cancelled])
        #expect(try peer.stats()["slow_max_inflight"] as? Int == 0)
    }

    @Test func asyncRequestsRunConcurrently() async throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient()
        let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<10 {
                group.addTask {
                    let response = try await client.perform(HTTPRequest(url: peer.url("/status/\(200 + index)")))
                    return (index, response.status)
                }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        #expect(statuses == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, 200 + $0) }))
        let batch = await client.perform([HTTPRequest(url: peer.url("/status/201")),
                                          HTTPRequest(url: peer.url("/status/202"))])
        #expect(batch.compactMap { try? $0.get().status } == [201, 202])
    }

    @Test func taskCancellationCancelsTheTransfer() async throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient()
        let task = Task { () async -> Result<HTTPResponse, TransportError> in
            do throws(TransportError) {
                return .success(try await client.perform(HTTPRequest(url: peer.url("/slow/10000"))))
            } catch {
                return .failure(error)
            }
        }
        #expect(try peer.waitForStats { ($0["slow_inflight"] as? Int ?? 0) >= 1 })
        task.cancel()
        let error = try #require(await task.value.failure)
        #expect(error.kind == .cancelled)
    }

    /// A request waiting for a slot (cap 1, slot busy) fails as soon as it is cancelled, while the busy one runs on.
    @Test func cancellingAQueuedRequestDoesNotWaitForASlot() async throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let client = HTTPClient(configuration: .init(maxConcurrentTransfers: 1))
        let busy = HTTPCancellation()
        let running = Task { await client.perform([HTTPRequest(url: peer.url("/slow/10000"))], cancellation: busy) }
        #expect(try peer.waitForStats { ($0["slow_inflight"] as? Int ?? 0) == 1 })
        let queued = HTTPCancellation()
        let waiting = Task { await client.perform([HTTPRequest(url: peer.url("/slow/10"))], cancellation: queued) }
        queued.cancel()
        #expect(await waiting.value.map(\.failureKind) == [.cancelled])
        let stats = try peer.stats()
        #expect(stats["slow_inflight"] as? Int == 1, "the busy request is still running")
        #expect(stats["slow_max_inflight"] as? Int == 1, "the queued request never reached the peer")
        busy.cancel()
        #expect(await running.value.map(\.failureKind) == [.cancelled])
    }

    // MARK: - Debug log

    @Test func debugLogRedactsCredentials() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        let lines = Mutex<[String]>([])
        let client = HTTPClient(configuration: .init(logger: { line in lines.withLock { $0.append(line) } }))
        let request = HTTPRequest(
            url: peer.url("/echo?set_cookie=1&token=sekrit-query&x=visible"),
            headers: [
                "Authorization": "Bearer sekrit-auth", "Cookie": "id=sekrit-cookie",
                "X-Api-Token": "sekrit-token", "X-Plain": "visible-value",
            ])
        let response = try client.perform(request)
        // Only the log is redacted: the peer got the real values.
        let echoed = try #require(try jsonObject(response)["headers"] as? [[String]])
        #expect(echoed.contains(["Authorization", "Bearer sekrit-auth"]))
        #expect(response.headers["set-cookie"]?.contains("peer-cookie-secret") == true)

        let log = lines.withLock { $0 }
        #expect(!log.contains { $0.contains("sekrit") || $0.contains("peer-cookie-secret") }, "\(log)")
        #expect(log.contains("> GET /echo?set_cookie=[REDACTED]&token=[REDACTED]&x=visible HTTP/1.1"), "\(log)")
        #expect(log.contains("> Authorization: [REDACTED]"))
        #expect(log.contains("> Cookie: [REDACTED]"))
        #expect(log.contains("> X-Api-Token: [REDACTED]"))
        #expect(log.contains("> X-Plain: visible-value"))
        #expect(log.contains("< HTTP/1.1 200 OK"), "\(log)")
        #expect(log.contains("< Set-Cookie: [REDACTED]"))
        #expect(log.contains("< Content-Type: application/json"))
        #expect(log.contains { $0.hasPrefix("* ") })
    }

    // MARK: - Proxy environment

    /// libcurl honours http_proxy / no_proxy from the environment: the peer, acting as a forward proxy, receives
    /// the request in absolute-URI form; hosts listed in no_proxy are reached directly.
    @Test func proxyEnvironmentVariablesAreHonoured() throws {
        let peer = try HTTPPeer()
        defer { peer.stop() }
        // no_proxy first, so that loopback (and .invalid) traffic never goes through the proxy while it is set.
        setenv("no_proxy", "127.0.0.1,localhost,.invalid", 1)
        setenv("http_proxy", "http://127.0.0.1:\(peer.httpPort)", 1)
        defer {
            unsetenv("http_proxy")
            unsetenv("no_proxy")
        }
        let client = HTTPClient()
        let proxied = try jsonObject(client.perform(HTTPRequest(url: "http://proxied.test/echo?x=1")))
        #expect(proxied["proxy"] as? String == "http://proxied.test/echo?x=1")
        #expect(proxied["target"] as? String == "http://proxied.test/echo?x=1")
        #expect((proxied["headers"] as? [[String]])?.contains(["Host", "proxied.test"]) == true)

        let direct = try jsonObject(client.perform(HTTPRequest(url: peer.url("/echo"))))
        #expect(direct["proxy"] is NSNull)
        #expect(direct["target"] as? String == "/echo")
    }

    @Test func libcurlVersionIsReported() {
        let version = HTTPClient.libcurlVersion
        #expect(version.first?.isNumber == true)
        #expect(version.split(separator: ".").count >= 2)
        #expect(HTTPClient.libcurlDescription.contains("libcurl/\(version)"))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension Result where Failure == TransportError {
    var failureKind: TransportError.Kind? { failure?.kind }
}

