import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// The browser glue's other carriers and its end of life, in headless Chromium: the bridge stopping mid-session
/// reaches the product (the webview port's `onmessageerror`) and the host page (which closes the product's
/// `MessagePort`), and the host page relays a legacy Nova/dot.li-style product that posts raw `Uint8Array` window
/// messages instead of taking a port (from its own origin and from the opaque `null` one), ignoring the same frames
/// from a nested impostor window.
@Suite(.serialized, .enabled(if: Chromium.executable != nil, Chromium.missingNote("the TrUAPI bridge's browser glue")),
       .timeLimit(.minutes(5)), .offPool)
struct TruAPIBrowserCarrierEndToEndTests {
    typealias E2E = TruAPIBridgeE2E
    typealias Browser = TruAPIBrowserEndToEndTests

    /// A bridge with --open for `product` (the opener does nothing: the test opens host_url itself).
    static func hostBridge(product: String, opaque: Bool = false) throws -> BridgeProcess {
        try BridgeProcess(["--product-id", "browser.test", "--ephemeral", "--theme", "custom:omni-test:light", "--open", product,
                           "--opener", "/bin/true"] + (opaque ? ["--opaque"] : []))
    }

    @Test func bootstrapPortTellsTheProductTheBridgeStopped() throws {
        let site = try BrowserTestSite()
        defer { site.stop() }
        let bridge = try BridgeProcess(["--product-id", "browser.test", "--ephemeral", "--theme", "custom:omni-test:light"])
        defer { _ = try? bridge.stop() }
        let bootstrap = try #require(bridge.ready["bootstrap_url"]?.stringValue)
        let browser = try HeadlessBrowser(site.page("truapi-product.html", [("mode", "bootstrap"), ("bootstrap", bootstrap), ("watch", "1")]))
        defer { browser.stop() }
        Browser.expectResults(try site.report { $0["mode"] == "bootstrap" && $0["results"] != nil }, theme: "omni-test")

        #expect(try bridge.stop() == 143, "SIGTERM")
        let ended = try site.report { $0["ended"] != nil }
        #expect(ended["ended"] == "messageerror", "window.__HOST_API_PORT__.onmessageerror on the socket's close")
    }

    @Test func hostPageClosesTheProductsPortWhenTheBridgeStops() throws {
        let site = try BrowserTestSite()
        defer { site.stop() }
        let bridge = try Self.hostBridge(product: site.page("truapi-product.html", [("mode", "iframe"), ("watch", "1")]))
        defer { _ = try? bridge.stop() }
        let browser = try HeadlessBrowser(try #require(bridge.ready["host_url"]?.stringValue))
        defer { browser.stop() }
        Browser.expectResults(try site.report { $0["mode"] == "iframe" && $0["results"] != nil }, theme: "omni-test")

        #expect(try bridge.stop() == 143, "SIGTERM")
        // The page sees the bridge's Close and closes the product's port. Only browsers with the MessagePort close
        // event (HTML's, absent from Chromium 156) deliver that to the product; there, the product must see it.
        let status = try browser.evaluate("document.getElementById('status').textContent", inPage: "/host?")
        #expect(status == "the bridge connection closed (1000 bridge closing)")
        #expect(try browser.evaluate("window.__omniTruapiHost.closed", inPage: "/host?") == 1)
        if try browser.evaluate("'onclose' in MessagePort.prototype", inPage: "/host?") == true {
            let ended = try site.report { $0["ended"] != nil }
            #expect(ended["ended"] == "close", "the product's end of the truapi-init channel is closed")
        }
    }

    @Test(arguments: [false, true])
    func hostPageRelaysRawWindowFramesOfALegacyProduct(opaque: Bool) throws {
        let site = try BrowserTestSite()
        defer { site.stop() }
        // The impostor (a nested frame posting truapi-ready and a raw frame to the top window) needs an origin to run.
        let product = site.page("truapi-product.html", [("mode", "legacy")] + (opaque ? [] : [("impostor", "1")]))
        let bridge = try Self.hostBridge(product: product, opaque: opaque)
        defer { _ = try? bridge.stop() }
        let browser = try HeadlessBrowser(try #require(bridge.ready["host_url"]?.stringValue))
        defer { browser.stop() }
        let report = try site.report { $0["mode"] == "legacy" }
        Browser.expectResults(report, theme: "omni-test")
        #expect(report["transport"] == "raw window.postMessage")
        let bridgeOrigin = "http://127.0.0.1:\(bridge.port)"
        #expect(report["details"]?["host_origin"]?.stringValue == bridgeOrigin)
        #expect(report["details"]?["own_origin"]?.stringValue == (opaque ? "null" : site.origin))

        let host = try browser.evaluate("JSON.stringify(window.__omniTruapiHost)", inPage: "/host?")
        let counts = try JSONValue.parse(Array((host.stringValue ?? "").utf8))
        #expect(counts["answered"] == 0, "no truapi-ready was answered: \(counts.serialized())")
        #expect(counts["rawFrames"] == 6 && counts["framesToBridge"] == 6 && counts["framesToProduct"] == 5,
                "4 requests, a start and a stop; 4 responses and an item: \(counts.serialized())")
        if !opaque {
            #expect(counts["ignored"]?.arrayValue?.contains("a raw frame from a window that is not the product frame") == true)
            #expect(report["details"]?["impostor"] == "sent truapi-ready to the top window")
        }
        #expect(try bridge.event("connection_open")["origin"]?.stringValue == bridgeOrigin, "the host page's socket")
        #expect(try Browser.storedValue(bridge) == "0x" + Browser.value)
        if !opaque {
            try browser.screenshot(ofPage: "/host?", to: Browser.artifacts.appendingPathComponent("truapi-browser-legacy.png"))
        }
    }
}
