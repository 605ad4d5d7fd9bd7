import Foundation
import OmniCodec
import OmniCrypto
import OmniTestSupport
import OmniTransport
@testable import OmniTruAPI
import Testing

/// The browser glue on a real bridge port: the token gate on `/bootstrap.js` and `/host`, what each serves and with
/// which headers, the product URL rules, and the bridge's own page origin next to `--allow-origin`. The pages running
/// in a browser are `TruAPIBrowserEndToEndTests`.
@Suite("TrUAPI browser glue", .serialized, .timeLimit(.minutes(2)), .offPool)
struct BrowserGlueTests {
    static func get(_ url: String, headers: HTTPHeaders = [:]) throws -> HTTPResponse {
        try HTTPClient().perform(HTTPRequest(url: url, headers: headers, totalTimeout: .seconds(10), maxRedirects: 0))
    }

    static func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test("both pages need the token: 401 invalid token without it or with a wrong one, logged, and nothing cached")
    func tokenGate() throws {
        let harness = try BridgeHarness()
        defer { harness.stop() }
        let token = try #require(harness.token)
        let base = "http://127.0.0.1:\(harness.server.port)"
        let product = "&url=" + PercentEncoding.encode("http://localhost:3000/")
        for path in ["/bootstrap.js", "/host"] {
            let suffix = path == "/host" ? product : ""
            let otherLast = token.last == "0" ? "1" : "0"
            for query in ["?x=1", "?t=" + String(token.dropLast()) + otherLast, "?t=" + token.uppercased(), "?t=%" + token] {
                let refused = try Self.get(base + path + query + suffix)
                #expect(refused.status == 401 && Self.text(refused) == "invalid token", "\(path)\(query)")
                #expect(!Self.text(refused).contains(token))
            }
            let served = try Self.get(base + path + "?t=" + token + suffix)
            #expect(served.status == 200, "\(path): \(Self.text(served))")
            #expect(Self.header(served, "Cache-Control") == "no-store")
            #expect(Self.header(served, "X-Content-Type-Options") == "nosniff")
            #expect(Self.header(served, "Content-Type") == (path == "/host" ? "text/html; charset=utf-8" : "text/javascript; charset=utf-8"))
        }
        #expect(harness.events.count("reject_unauthorized") == 8)
        #expect(harness.events.all.filter { $0.name == "page_served" }.map { $0["path"]?.stringValue } == ["/bootstrap.js", "/host"])
        #expect(!harness.events.all.contains { $0.json.serialized().contains(token) }, "the token is never logged")
        // The WebSocket route still upgrades on any other path, as the reference's does.
        let client = try TruAPIClient.connect(harness.url.replacing("/?t=", with: "/anything?t="), timeout: 10)
        #expect(try client.call("system_handshake", .record(["codec_version": .int(1)])).okBody == .unit)
        client.close()
    }

    @Test("the bootstrap sets the reference's globals for this bridge, dialling the host the browser used")
    func bootstrapScript() throws {
        let harness = try BridgeHarness()
        defer { harness.stop() }
        let token = try #require(harness.token)
        let port = harness.server.port
        let script = Self.text(try Self.get("http://127.0.0.1:\(port)/bootstrap.js?t=" + token))
        for line in ["window.__truapi_localhost = endpoint;", "window.__HOST_WEBVIEW_MARK__ = true;",
                     "window.__HOST_API_PORT__ = createPort(endpoint.url);", #"window.dispatchEvent(new Event("truapi-native-ready"));"#,
                     #"socket.binaryType = "arraybuffer";"#] {
            #expect(script.contains(line), "\(line)")
        }
        #expect(script.hasSuffix(#"})({"url":"ws://127.0.0.1:\#(port)/?t=\#(token)","token":"\#(token)"});"# + "\n"))
        #expect(script == TruAPIBrowserGlue.bootstrapScript(TruAPIBridgeEndpoint(host: "127.0.0.1", port: port, token: token)))

        let viaLocalhost = Self.text(try Self.get("http://127.0.0.1:\(port)/bootstrap.js?t=" + token, headers: ["Host": "LocalHost:\(port)"]))
        #expect(viaLocalhost.contains(#""url":"ws://localhost:\#(port)/?t=\#(token)""#))
        // A Host that is not a plain host:port is never written into the script; the listening address is used.
        let odd = Self.text(try Self.get("http://127.0.0.1:\(port)/bootstrap.js?t=" + token, headers: ["Host": "x\"};alert(1);//"]))
        #expect(odd.contains(#""url":"ws://127.0.0.1:\#(port)/?t=\#(token)""#) && !odd.contains("alert"))

        let open = TruAPIBrowserGlue.bootstrapScript(TruAPIBridgeEndpoint(host: "::1", port: 9955, token: nil))
        #expect(open.contains(#"({"url":"ws://[::1]:9955/","token":null});"#), "without a token: no ?t=")
    }

    @Test("/host: http(s) product pages only, percent-decoded, not on the bridge's origin, written into the page safely")
    func hostPage() throws {
        let harness = try BridgeHarness()
        defer { harness.stop() }
        let token = try #require(harness.token)
        let port = harness.server.port
        let base = "http://127.0.0.1:\(port)/host?t=" + token
        let refusals: [(String, String)] = [
            ("", "missing url="),
            ("&url=" + PercentEncoding.encode("javascript:alert(1)"), "does not start with https:// or http://"),
            ("&url=" + PercentEncoding.encode("data:text/html,hi"), "does not start with https:// or http://"),
            ("&url=" + PercentEncoding.encode("file:///etc/passwd"), "does not start with https:// or http://"),
            ("&url=http%zz", "broken %-escape"),
            ("&url=%ff", "not UTF-8"),
            ("&url=" + PercentEncoding.encode("http://localhost:3000/\"><script>"), "has a space, a control character"),
            ("&url=" + PercentEncoding.encode("http://user@localhost:3000/"), "has user information"),
            ("&url=" + PercentEncoding.encode("http://127.0.0.1:\(port)/host"), "may not be on the bridge's own origin"),
        ]
        for (query, problem) in refusals {
            let refused = try Self.get(base + query)
            #expect(refused.status == 400 && Self.text(refused).contains(problem), "\(query): \(Self.text(refused))")
        }

        let product = "http://LocalHost:3000/app?x=1&y=%20#start"
        let served = try Self.get(base + "&url=" + PercentEncoding.encode(product))
        let page = Self.text(served)
        #expect(served.status == 200)
        #expect(page.contains(#"{"product":"http://LocalHost:3000/app?x=1\u0026y=%20#start","origin":"http://localhost:3000","socket_path":"/?t=\#(token)"}"#),
                "\(page)")
        #expect(page.contains(#"sandbox="allow-forms allow-same-origin allow-scripts""#) && page.contains(#"referrerpolicy="origin""#))
        let policy = try #require(Self.header(served, "Content-Security-Policy"))
        // The page's own script and style, hashed here independently, are exactly what the policy allows.
        let script = try #require(page.components(separatedBy: "<script>").last?.components(separatedBy: "</script>").first)
        let style = try #require(page.components(separatedBy: "<style>").last?.components(separatedBy: "</style>").first)
        let hash = { (text: String) in "'sha256-" + Base64.encode(SHA256.hash(Array(text.utf8))) + "'" }
        #expect(policy == "default-src 'none'; script-src \(hash(script)); style-src \(hash(style)); connect-src 'self'; "
                + "frame-src http://localhost:3000; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        #expect(Self.header(served, "X-Frame-Options") == "DENY" && Self.header(served, "Referrer-Policy") == "no-referrer")

        let opaque = Self.text(try Self.get(base + "&url=" + PercentEncoding.encode("https://myapp.dot.li/") + "&opaque=1"))
        #expect(opaque.contains(#"sandbox="allow-forms allow-scripts""#))
    }

    @Test("the host page URL carries the token and the encoded product; product pages parse as origins")
    func urls() throws {
        let endpoint = TruAPIBridgeEndpoint(host: "127.0.0.1", port: 4000, token: "abc")
        let product = try TruAPIProductPage(parsing: "http://localhost:3000/a%20b?c=d&e")
        #expect(product.origin.description == "http://localhost:3000")
        #expect(endpoint.hostPageURL(product: product) == "http://127.0.0.1:4000/host?t=abc&url=http%3A%2F%2Flocalhost%3A3000%2Fa%2520b%3Fc%3Dd%26e")
        #expect(TruAPIBridgeEndpoint(host: "127.0.0.1", port: 4000, token: nil).hostPageURL(product: product, opaque: true)
                == "http://127.0.0.1:4000/host?url=http%3A%2F%2Flocalhost%3A3000%2Fa%2520b%3Fc%3Dd%26e&opaque=1")
        #expect(endpoint.bootstrapURL == "http://127.0.0.1:4000/bootstrap.js?t=abc" && endpoint.socketURL == "ws://127.0.0.1:4000/?t=abc")
        #expect(try TruAPIProductPage(parsing: "https://Example.COM:443/x").origin.description == "https://example.com")
        for bad in ["", "localhost:3000", "ws://localhost:3000/", "http://", "http://exa mple.com/", String(repeating: "a", count: 3000)] {
            #expect(throws: TruAPIError.self, "\(bad)") { try TruAPIProductPage(parsing: bad) }
        }
    }

    @Test("with --allow-origin, the bridge's own page origin still connects; another origin gets 403")
    func ownPageOrigin() throws {
        #expect(TruAPIBridge.isOwnPage(origin: "http://127.0.0.1:5000", host: "127.0.0.1:5000"))
        #expect(TruAPIBridge.isOwnPage(origin: "http://LOCALHOST:5000", host: "localhost:5000"))
        #expect(TruAPIBridge.isOwnPage(origin: "http://[::1]:5000", host: "[::1]:5000"))
        #expect(!TruAPIBridge.isOwnPage(origin: "http://rebound.example:5000", host: "rebound.example:5000"), "a name that resolves here is not us")
        #expect(!TruAPIBridge.isOwnPage(origin: "https://127.0.0.1:5000", host: "127.0.0.1:5000"))
        #expect(!TruAPIBridge.isOwnPage(origin: "http://127.0.0.1:5001", host: "127.0.0.1:5000"))
        #expect(!TruAPIBridge.isOwnPage(origin: "http://127.0.0.1:5000", host: nil))

        let harness = try BridgeHarness { $0.allowedOrigins = ["http://localhost:3000"] }
        defer { harness.stop() }
        let own = "http://127.0.0.1:\(harness.server.port)"
        for (origin, admitted) in [(own, true), ("http://localhost:3000", true), ("http://evil.example", false)] {
            var configuration = WebSocketClient.Configuration()
            configuration.headers = ["Origin": origin]
            do {
                let socket = try WebSocketClient.connect(harness.url, configuration: configuration)
                #expect(admitted, "\(origin) connected")
                socket.abort()
            } catch {
                #expect(!admitted && error.status == 403, "\(origin): \(error)")
            }
        }
        #expect(harness.events.count("reject_origin") == 1)
    }
}
