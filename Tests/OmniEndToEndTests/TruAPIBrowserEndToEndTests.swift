import Foundation
import OmniCodec
import OmniTestSupport
import OmniTransport
import Testing

/// Serves Tests/Browser's files on loopback (the test product's own origin) and collects what its pages POST to
/// `/report`, one JSON document each.
final class BrowserTestSite: @unchecked Sendable {
    let server: HTTPServer
    private let condition = NSCondition()
    private var reports: [JSONValue] = []

    var origin: String { "http://127.0.0.1:\(server.port)" }

    init() throws {
        server = try HTTPServer(configuration: HTTPServer.Configuration())
        let directory = Repository.root.appendingPathComponent("Tests/Browser")
        server.route("GET", "/*") { request in
            let name = String(request.path.dropFirst())
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."),
                  let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                return .text("not found", status: 404)
            }
            var response = HTTPServerResponse(status: 200, body: [UInt8](data))
            response.headers.set("Content-Type", name.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/html; charset=utf-8")
            response.headers.set("Cache-Control", "no-store")
            return response
        }
        server.route("POST", "/report") { [condition] request in
            let report = (try? JSONValue.parse(request.body)) ?? .object(["unparsable": .string(request.bodyText)])
            condition.withLock {
                self.reports.append(report)
                condition.broadcast()
            }
            return .text("ok")
        }
        try server.start()
    }

    /// The first report matching `predicate`, waiting for it.
    func report(timeout: Double = 60, where predicate: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let report = reports.first(where: predicate) { return report }
            guard condition.wait(until: deadline) else {
                throw TestSupportError("no report from the test page within \(timeout) s; got \(reports.map { $0.serialized() })")
            }
        }
    }

    func page(_ name: String, _ query: [(String, String)]) -> String {
        origin + "/" + name + "?" + query.map { $0.0 + "=" + PercentEncoding.encode($0.1) }.joined(separator: "&")
    }

    func stop() { server.stop() }
}

/// A real browser against `omni truapi bridge`: headless Chromium loads the hand-written test product
/// (Tests/Browser/truapi-product.js over Tests/Browser/truapi-client.js, which encodes its own frames) through the
/// bridge's `/bootstrap.js`, and inside the bridge's `/host` page (opened by `--open` through a stand-in opener);
/// the product POSTs what it got, the test checks every payload byte for byte, reads the host page's own count of
/// what it relayed and ignored, and saves a screenshot under .build/artifacts/.
@Suite(.serialized, .enabled(if: Chromium.executable != nil, Chromium.missingNote("the TrUAPI bridge's browser glue")),
       .timeLimit(.minutes(5)), .offPool)
struct TruAPIBrowserEndToEndTests {
    typealias E2E = TruAPIBridgeE2E
    static let key = "omni-browser-test"
    /// What the product writes: de ad be ef 00 ff and "omni ✓" in UTF-8.
    static let value = "deadbeef00ff" + Hex.encode(Array("omni ✓".utf8))
    static let artifacts = Repository.root.appendingPathComponent(".build/artifacts")

    /// The bridge's answers as the product must see them (reference §3.2), built here from the wire rules.
    static func expectResults(_ report: JSONValue, theme: String) {
        #expect(report["error"] == .null, "the page failed: \(report.serialized())")
        let results = report["results"] ?? .null
        #expect(results["handshake"] == "0000", "unit Ok is 00 00")
        #expect(results["write"] == "0000")
        let valueBytes = value.count / 2
        #expect(results["read"]?["payload"]?.stringValue == "000001" + Hex.encode(E2E.compact(valueBytes)) + value)
        #expect(results["read"]?["value"]?.stringValue == value)
        #expect(results["theme"]?["payload"]?.stringValue == "0000" + Hex.encode(E2E.string(theme)) + "00", "V1, Custom(name), Light")
        #expect(results["theme"]?["name"]?["custom"]?.stringValue == theme && results["theme"]?["variant"] == "Light")
        #expect(results["theme_subscription"] == "p:4" && results["after_stop"] == "0000")
        #expect(results["problems"] == .array([]), "every frame the page got was one it waited for")
    }

    /// A stand-in for xdg-open that records its whole argv, one argument a line (the test then hands it to Chromium).
    static func standInOpener(in directory: URL) throws -> (bin: URL, opened: URL) {
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let opened = directory.appendingPathComponent("opened-url")
        let opener = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > '\(opened.path).tmp' && mv '\(opened.path).tmp' '\(opened.path)'\n"
            .write(to: opener, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
        return (bin, opened)
    }

    /// What `--open` gave the opener: its only argument, the launcher file, checked to keep the token out of argv
    /// (readable by every user in `ps`) and to be private; the caller hands it to Chromium, which follows it.
    static func launcherFile(_ opened: URL, bridge: BridgeProcess, launched: JSONValue) throws -> String {
        let argv = try String(contentsOf: opened, encoding: .utf8).split(separator: "\n").map(String.init)
        let token = try #require(bridge.url.split(separator: "=").last.map(String.init))
        #expect(argv.count == 2, "the program and one argument: \(argv)")
        #expect(!argv.contains { $0.contains(token) }, "no token on the opener's argv")
        let file = try #require(argv.last)
        #expect(file.hasSuffix(".html") && launched["launcher"]?.stringValue == file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "only the user reads the token in it")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("location.replace("))
        return file
    }

    /// The stored value as `omni truapi call` reads it back through the bridge: the browser's write reached its state.
    static func storedValue(_ bridge: BridgeProcess) throws -> String? {
        let read = try E2E.truapi(["call", "local_storage_read", "--json", #"{"key":"\#(key)"}"#, "--output", "json"], url: bridge.url)
        return try JSONValue.parse(read.stdoutText)["Ok"]?["value"]?.stringValue
    }

    @Test func bootstrapScriptGivesTheProductAWebviewPort() throws {
        let site = try BrowserTestSite()
        defer { site.stop() }
        let bridge = try BridgeProcess(["--product-id", "browser.test", "--ephemeral", "--theme", "custom:omni-test:light"])
        defer { _ = try? bridge.stop() }
        let bootstrap = try #require(bridge.ready["bootstrap_url"]?.stringValue)
        #expect(bootstrap == "http://127.0.0.1:\(bridge.port)/bootstrap.js?t=" + (bridge.url.split(separator: "=").last.map(String.init) ?? ""))

        let page = site.page("truapi-product.html", [("mode", "bootstrap"), ("bootstrap", bootstrap)])
        let browser = try HeadlessBrowser(page)
        defer { browser.stop() }
        let report = try site.report { $0["mode"] == "bootstrap" }
        Self.expectResults(report, theme: "omni-test")
        #expect(report["transport"] == "window.__HOST_API_PORT__")
        let details = report["details"] ?? .null
        #expect(details["webview_mark"] == true && details["native_ready_event"] == true)
        #expect(details["localhost"]?["url"]?.stringValue == bridge.url, "window.__truapi_localhost.url is the bridge's socket")
        #expect(details["localhost"]?["token"]?.stringValue.map { bridge.url.hasSuffix("?t=" + $0) } == true)

        let opened = try bridge.event("connection_open")
        #expect(opened["origin"]?.stringValue == site.origin, "the product page's own socket")
        #expect(try bridge.event("page_served")["path"] == "/bootstrap.js")
        #expect(try Self.storedValue(bridge) == "0x" + Self.value)
        try browser.screenshot(ofPage: "/truapi-product.html", to: Self.artifacts.appendingPathComponent("truapi-browser-bootstrap.png"))
        #expect(try Data(contentsOf: Self.artifacts.appendingPathComponent("truapi-browser-bootstrap.png")).prefix(8)
                == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    /// `--open` through xdg-open: the host page embeds the product, which finds the host from its referrer, gets a
    /// MessagePort for its truapi-ready (and the nested impostor frame's truapi-ready is ignored), and the page relays
    /// every frame to the bridge over its own socket.
    @Test func hostPageRelaysTheEmbeddedProduct() throws {
        let site = try BrowserTestSite()
        defer { site.stop() }
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (bin, opened) = try Self.standInOpener(in: directory)
        let product = site.page("truapi-product.html", [("mode", "iframe"), ("impostor", "1")])
        let bridge = try BridgeProcess(["--product-id", "browser.test", "--ephemeral", "--theme", "custom:omni-test:light", "--open", product,
                                        "--allow-origin", "http://localhost:1"],
                                       environment: ["PATH": bin.path + ":/usr/bin:/bin", "XDG_RUNTIME_DIR": directory.path])
        defer { _ = try? bridge.stop() }
        let hostURL = try #require(bridge.ready["host_url"]?.stringValue)
        #expect(hostURL.hasPrefix("http://127.0.0.1:\(bridge.port)/host?t=") && hostURL.hasSuffix("&url=" + PercentEncoding.encode(product)))
        let launched = try bridge.event("host_page_open")
        #expect(launched["opened"] == true && launched["program"] == "xdg-open")
        #expect(!launched.serialized().contains("?t="), "the event never has the URL with the token")
        let launcher = try Self.launcherFile(opened, bridge: bridge, launched: launched)
        #expect(launcher.hasPrefix(directory.path + "/omni/truapi/"), "in $XDG_RUNTIME_DIR")

        let browser = try HeadlessBrowser(launcher)
        defer { browser.stop() }
        let report = try site.report { $0["mode"] == "iframe" }
        Self.expectResults(report, theme: "omni-test")
        #expect(!FileManager.default.fileExists(atPath: launcher), "removed once the host page was served")
        let bridgeOrigin = "http://127.0.0.1:\(bridge.port)"
        let details = report["details"] ?? .null
        #expect(report["transport"] == "truapi-init MessagePort")
        #expect(details["host_origin"]?.stringValue == bridgeOrigin, "the referrer names the host's origin, never its query")
        #expect(details["init_origin"]?.stringValue == bridgeOrigin && details["own_origin"]?.stringValue == site.origin)
        #expect(details["impostor"] == "sent truapi-ready to the top window")

        let host = try browser.evaluate("JSON.stringify(window.__omniTruapiHost)", inPage: "/host?")
        let counts = try JSONValue.parse(Array((host.stringValue ?? "").utf8))
        #expect(counts["answered"] == 1, "only the product frame's truapi-ready is answered: \(counts.serialized())")
        #expect(counts["ignored"]?.arrayValue?.contains("truapi-ready from a window that is not the product frame") == true)
        #expect(counts["ignored"]?.arrayValue?.contains("a raw frame from a window that is not the product frame") == true)
        #expect(counts["rawFrames"] == 0)
        #expect(counts["framesToBridge"] == 6 && counts["framesToProduct"] == 5, "4 requests, a start and a stop; 4 responses and an item")
        let status = try browser.evaluate("document.getElementById('status').textContent", inPage: "/host?")
        #expect(status == "connected to the bridge")

        // The page's socket carries the bridge's own origin, admitted besides --allow-origin.
        #expect(try bridge.event("connection_open")["origin"]?.stringValue == bridgeOrigin)
        #expect(try bridge.event("page_served")["product"]?.stringValue == product)
        #expect(try Self.storedValue(bridge) == "0x" + Self.value)
        try browser.screenshot(ofPage: "/host?", to: Self.artifacts.appendingPathComponent("truapi-browser-host.png"))
    }

    /// A product in a sandbox without its own origin posts from `null`, as Firefox and strict sandboxes report it;
    /// the page still answers it. --opener replaces xdg-open for --open.
    @Test func opaqueProductIsAnsweredThroughTheOpener() throws {
        let site = try BrowserTestSite()
        defer { site.stop() }
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (bin, opened) = try Self.standInOpener(in: directory)
        let product = site.page("truapi-product.html", [("mode", "iframe")])
        let bridge = try BridgeProcess(["--product-id", "browser.test", "--ephemeral", "--theme", "custom:omni-test:light", "--open", product,
                                        "--opaque", "--opener", bin.appendingPathComponent("xdg-open").path])
        defer { _ = try? bridge.stop() }
        let launched = try bridge.event("host_page_open")
        #expect(launched["opened"] == true && launched["program"]?.stringValue?.hasSuffix("/bin/xdg-open") == true)
        #expect(bridge.ready["host_url"]?.stringValue?.hasSuffix("&opaque=1") == true)
        let launcher = try Self.launcherFile(opened, bridge: bridge, launched: launched)

        let browser = try HeadlessBrowser(launcher)
        defer { browser.stop() }
        let report = try site.report { $0["mode"] == "iframe" }
        Self.expectResults(report, theme: "omni-test")
        #expect(report["details"]?["own_origin"] == "null", "the product runs on an opaque origin")
        let answered = try browser.evaluate("window.__omniTruapiHost.answered", inPage: "/host?")
        #expect(answered == 1)
    }
}

/// The browser options without a browser: --print-bootstrap, an --open without an opener, and --open's checks.
@Suite(.serialized, .timeLimit(.minutes(3)), .offPool)
struct TruAPIBrowserOptionsEndToEndTests {
    typealias E2E = TruAPIBridgeE2E

    @Test func printBootstrapIsWhatTheRunningBridgeServes() throws {
        let directory = try E2E.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token")
        let token = String(repeating: "c0ffee", count: 8)
        try E2E.write(token + "\n", to: tokenFile)
        let bridge = try BridgeProcess(["--product-id", "a.test", "--ephemeral", "--token", "@" + tokenFile.path])
        let served = try HTTPClient().perform(HTTPRequest(url: try #require(bridge.ready["bootstrap_url"]?.stringValue)))
        _ = try bridge.stop()

        let printed = try Omni.run(["truapi", "bridge", "--product-id", "a.test", "--listen", "127.0.0.1:\(bridge.port)", "--token",
                                    "@" + tokenFile.path, "--print-bootstrap"])
        #expect(printed.status == 0, "\(printed.stderrText)")
        #expect(printed.stdoutText == String(decoding: served.body, as: UTF8.self), "byte for byte what /bootstrap.js served")
        #expect(printed.stdoutText.contains(#"{"url":"ws://127.0.0.1:\#(bridge.port)/?t=\#(token)","token":"\#(token)"}"#))
        let json = try Omni.run(["truapi", "bridge", "--product-id", "a.test", "--listen", "127.0.0.1:9955", "--token", "none",
                                 "--print-bootstrap", "--output", "json"])
        // The bridge is a streaming command: its JSON output is one array, here of one element.
        let document = try #require(try JSONValue.parse(Array(json.stdoutText.utf8)).arrayValue?.first)
        #expect(document["bootstrap_url"] == "http://127.0.0.1:9955/bootstrap.js" && document["url"] == "ws://127.0.0.1:9955/")
        #expect(document["script"]?.stringValue?.contains("window.__HOST_API_PORT__") == true)

        for (arguments, problem) in [(["--token", "@" + tokenFile.path], "needs the port"),
                                     (["--listen", "127.0.0.1:9955"], "automatic token exists only once the bridge runs"),
                                     (["--listen", "127.0.0.1:9955", "--token", "none", "--open", "http://localhost:3000/"], "cannot be combined")] {
            let refused = try Omni.run(["truapi", "bridge", "--product-id", "a.test", "--print-bootstrap"] + arguments)
            #expect(refused.status == 2 && refused.stderrText.contains(problem), "\(arguments): \(refused.stderrText)")
        }
    }

    @Test func openWithoutAnOpenerSaysWhereTheURLIs() throws {
        let bridge = try BridgeProcess(["--product-id", "a.test", "--ephemeral", "--open", "http://localhost:3000/"],
                                       environment: ["PATH": "/nonexistent"])
        defer { _ = try? bridge.stop() }
        let launched = try bridge.event("host_page_open")
        #expect(launched["opened"] == false && launched["problem"]?.stringValue?.contains("cannot run xdg-open") == true)
        let launcher = try #require(launched["launcher"]?.stringValue)
        #expect(!FileManager.default.fileExists(atPath: launcher), "nothing will load it: removed at once")
        try bridge.waitForStderr("open host_url from the ready line in a browser")
        let hostURL = try #require(bridge.ready["host_url"]?.stringValue)
        #expect(!bridge.stderrText.contains(hostURL), "the URL with the token stays in the ready line")

        for (arguments, problem) in [(["--open", "javascript:alert(1)"], "does not start with https:// or http://"),
                                     (["--open", "file:///tmp/x.html"], "does not start with https:// or http://"),
                                     (["--opaque"], "--opaque needs --open")] {
            let refused = try Omni.run(["truapi", "bridge", "--product-id", "a.test", "--ephemeral"] + arguments)
            #expect(refused.status == 2 && refused.stderrText.contains(problem), "\(arguments): \(refused.stderrText)")
        }
    }
}
