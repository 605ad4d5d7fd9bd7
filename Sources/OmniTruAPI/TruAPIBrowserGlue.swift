import OmniCodec
import OmniCrypto
import OmniTransport

/// Where a running bridge is reached, and the URLs browsers and scripts use for it. The token travels as the `?t=`
/// query parameter on every URL (the WebSocket, `/bootstrap.js`, `/host`), exactly as the reference gate reads it.
public struct TruAPIBridgeEndpoint: Sendable, Equatable {
    /// The authority as a browser writes it: `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`.
    public let authority: String
    public let token: String?

    public init(authority: String, token: String?) {
        self.authority = authority
        self.token = token
    }

    public init(host: String, port: UInt16, token: String?) {
        self.init(authority: HostPort(host: host, port: port).description, token: token)
    }

    private var tokenQuery: String { token.map { "?t=" + $0 } ?? "" }

    /// `ws://127.0.0.1:PORT/?t=TOKEN`: what products dial.
    public var socketURL: String { "ws://" + authority + "/" + tokenQuery }
    /// The origin of the bridge's own pages (the host page's socket carries it as `Origin`).
    public var pageOrigin: String { "http://" + authority }
    /// The webview shim for `<script src=…>` before a product's own scripts.
    public var bootstrapURL: String { pageOrigin + "/bootstrap.js" + tokenQuery }

    /// The iframe host page showing `product` (`opaque`: in a sandbox without `allow-same-origin`).
    public func hostPageURL(product: TruAPIProductPage, opaque: Bool = false) -> String {
        pageOrigin + "/host" + (token.map { "?t=" + $0 + "&" } ?? "?") + "url=" + PercentEncoding.encode(product.url)
            + (opaque ? "&opaque=1" : "")
    }
}

/// A product page the host page may embed: an http(s) URL with a host, printable ASCII without quotes or angle
/// brackets (it is written into a page), at most 2048 characters.
public struct TruAPIProductPage: Sendable, Equatable {
    public let url: String
    /// Where the product's `truapi-ready` must come from (or `null`, for an opaque origin).
    public let origin: WebOrigin

    public init(parsing text: String) throws(TruAPIError) {
        do {
            (origin, _) = try WebOrigin.split(text, what: "product URL")
        } catch {
            throw TruAPIError(.malformed, error.message + " (the product page must be an http:// or https:// URL)")
        }
        url = text
    }
}

/// The browser glue served on the bridge's own port (reference §8, §9), for products built on released
/// `@parity/truapi` (0.9 and earlier), which reach a host only through the webview shim or the iframe protocol:
///
/// - `GET /bootstrap.js?t=TOKEN`: the iOS bootstrap's equivalent. It sets `window.__truapi_localhost = {url, token}`,
///   `window.__HOST_WEBVIEW_MARK__ = true` and `window.__HOST_API_PORT__`, a MessagePort look-alike over a WebSocket
///   to the bridge (binary frames, queued until the socket opens, delivered as `{data: Uint8Array}`,
///   `onmessageerror` when the socket fails or closes), then dispatches `truapi-native-ready`.
/// - `GET /host?t=TOKEN&url=PRODUCT[&opaque=1]`: an iframe host page. It embeds the product, answers each
///   `truapi-ready` from that frame (its origin, or `null` as Firefox and opaque sandboxes report it) with
///   `truapi-init` carrying a fresh `MessagePort`, and relays that port to a new bridge WebSocket, binary both ways;
///   when the bridge closes the socket it closes the port (the product's end gets `close`). Raw `Uint8Array` window
///   messages from that frame (legacy Nova/dot.li hosts, reference §2) are relayed too, over one more socket, the
///   answers posted back to the frame's window. Messages from any other window are ignored and counted.
///
/// Both are token-gated like the WebSocket (HTTP 401 `invalid token`, logged), `Cache-Control: no-store`, and carry
/// the token only in a response to a request that already had it. The page's script and style are allowed by hash
/// in its Content-Security-Policy; it may connect only to its own origin and frame only the product's origin.
public enum TruAPIBrowserGlue {
    // MARK: - /bootstrap.js

    /// The webview shim for a bridge at `endpoint`.
    public static func bootstrapScript(_ endpoint: TruAPIBridgeEndpoint) -> String {
        var object = JSONObject()
        object.append("url", .string(endpoint.socketURL))
        object.append("token", endpoint.token.map(JSONValue.string) ?? .null)
        return "// omni truapi bridge: the TrUAPI webview shim (window.__HOST_API_PORT__ over the bridge's WebSocket).\n"
            + "(function (endpoint) {\n" + bootstrapBody + "})(" + scriptSafeJSON(.object(object)) + ");\n"
    }

    static let bootstrapBody = #"""
          "use strict";
          // Loaded twice: the first port stays.
          if (window.__truapi_localhost) return;

          function createPort(url) {
            var socket = null, started = false, ended = false, handler = null;
            var outbox = [], inbox = [], listeners = { message: [], messageerror: [] };

            function copy(message) {
              if (message instanceof ArrayBuffer) return new Uint8Array(message.slice(0));
              if (ArrayBuffer.isView(message)) return new Uint8Array(message.buffer, message.byteOffset, message.byteLength).slice();
              return null;
            }
            function call(listener, event) {
              if (typeof listener === "function") listener.call(port, event);
              else if (listener && typeof listener.handleEvent === "function") listener.handleEvent(event);
            }
            function deliver(data) {
              var event = new MessageEvent("message", { data: data });
              if (typeof handler === "function") handler.call(port, event);
              listeners.message.slice().forEach(function (listener) { call(listener, event); });
            }
            function fail() {
              if (ended) return;
              ended = true;
              outbox = [];
              inbox = [];
              var event = new MessageEvent("messageerror");
              if (typeof port.onmessageerror === "function") port.onmessageerror.call(port, event);
              listeners.messageerror.slice().forEach(function (listener) { call(listener, event); });
            }
            function open() {
              if (socket || ended) return;
              socket = new WebSocket(url);
              socket.binaryType = "arraybuffer";
              socket.onopen = function () {
                var queued = outbox;
                outbox = [];
                queued.forEach(function (data) { socket.send(data); });
              };
              socket.onmessage = function (event) {
                if (!(event.data instanceof ArrayBuffer)) return;
                var data = new Uint8Array(event.data);
                if (started) deliver(data); else inbox.push(data);
              };
              socket.onerror = fail;
              socket.onclose = fail;
            }
            function start() {
              if (started) return;
              started = true;
              open();
              var queued = inbox;
              inbox = [];
              queued.forEach(deliver);
            }

            var port = {
              onmessageerror: null,
              postMessage: function (message) {
                var data = copy(message);
                if (!data || ended) return;
                open();
                if (socket.readyState === WebSocket.OPEN) socket.send(data); else outbox.push(data);
              },
              start: start,
              close: function () {
                ended = true;
                outbox = [];
                inbox = [];
                if (socket) socket.close(1000);
              },
              addEventListener: function (type, listener) {
                if (!listeners[type] || listeners[type].indexOf(listener) >= 0) return;
                listeners[type].push(listener);
              },
              removeEventListener: function (type, listener) {
                var list = listeners[type], at = list ? list.indexOf(listener) : -1;
                if (at >= 0) list.splice(at, 1);
              }
            };
            // As on a real MessagePort, setting onmessage starts delivery.
            Object.defineProperty(port, "onmessage", {
              enumerable: true,
              get: function () { return handler; },
              set: function (value) { handler = value; if (value) start(); }
            });
            return port;
          }

          window.__truapi_localhost = endpoint;
          window.__HOST_WEBVIEW_MARK__ = true;
          window.__HOST_API_PORT__ = createPort(endpoint.url);
          window.dispatchEvent(new Event("truapi-native-ready"));

        """#

    public static let bootstrapHeaders: [(String, String)] = [
        ("Content-Type", "text/javascript; charset=utf-8"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        // Pages that isolate themselves (COEP require-corp) may still load it; the token is the gate.
        ("Cross-Origin-Resource-Policy", "cross-origin"),
    ]

    // MARK: - /host

    static let hostStyle = """
        html,body{margin:0;height:100%}body{display:flex;flex-direction:column;font:14px/1.4 system-ui,sans-serif}\
        header{display:flex;gap:1rem;align-items:baseline;padding:.35rem .8rem;background:#1f2933;color:#f5f7fa}\
        header code{color:#bcccdc}#status{margin-left:auto}#status[data-kind=ok]{color:#8ee59b}\
        #status[data-kind=error]{color:#ffa3a3}iframe{flex:1;width:100%;border:0;background:#fff}
        """

    static let hostScript = #"""
        "use strict";
        (() => {
          const config = JSON.parse(document.getElementById("omni-truapi-host").textContent);
          const frame = document.getElementById("product");
          const status = document.getElementById("status");
          // What the page did, for people (the status line) and for tests (window.__omniTruapiHost).
          const report = { answered: 0, rawFrames: 0, framesToBridge: 0, framesToProduct: 0, closed: 0, ignored: [] };
          window.__omniTruapiHost = report;
          // The truapi-init port's relay, and the relay of raw window.postMessage frames (legacy Nova/dot.li hosts).
          let current = null, legacy = null;

          function show(text, kind) {
            status.textContent = text;
            status.dataset.kind = kind || "";
          }
          function ignore(why) {
            if (report.ignored.length < 100) report.ignored.push(why);
          }
          function binary(data) {
            return data instanceof Uint8Array ? data
              : data instanceof ArrayBuffer ? new Uint8Array(data)
              : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
          }

          // One bridge WebSocket carrying one product runtime: `toProduct` delivers the bridge's frames, `closed`
          // tells the product the bridge went away (or that this relay was replaced).
          function relay(toProduct, closed) {
            const socket = new WebSocket("ws://" + location.host + config.socket_path);
            socket.binaryType = "arraybuffer";
            let pending = [], ended = false;
            function finish() {
              if (ended) return;
              ended = true;
              pending = [];
              closed();
            }
            const connection = {
              get ended() { return ended; },
              send(bytes) {
                if (ended) return;
                report.framesToBridge++;
                if (socket.readyState === WebSocket.OPEN) socket.send(bytes); else pending.push(bytes.slice());
              },
              end() {
                finish();
                socket.close(1000);
              }
            };
            socket.onopen = () => {
              show("connected to the bridge", "ok");
              const queued = pending;
              pending = [];
              queued.forEach((bytes) => socket.send(bytes));
            };
            socket.onmessage = (event) => {
              if (ended || !(event.data instanceof ArrayBuffer)) return;
              report.framesToProduct++;
              toProduct(new Uint8Array(event.data));
            };
            socket.onclose = (event) => {
              if (ended) return;
              report.closed++;
              show("the bridge connection closed (" + event.code + (event.reason ? " " + event.reason : "") + ")", "error");
              finish();
            };
            return connection;
          }

          // One bridge connection per truapi-init: a product that loads again is a new runtime, as on the bridge.
          // When the bridge goes away the port is closed, which fires "close" on the product's end of the channel.
          function connect() {
            if (current) current.end();
            const channel = new MessageChannel();
            const port = channel.port1;
            const connection = relay((bytes) => port.postMessage(bytes, [bytes.buffer]), () => port.close());
            port.onmessage = (event) => {
              const bytes = binary(event.data);
              if (!bytes) { ignore("a message from the product that is not binary"); return; }
              connection.send(bytes);
            };
            current = connection;
            return channel.port2;
          }

          // Legacy hosts carry the same frames as raw Uint8Array window messages: the product posts to its parent and
          // gets the answers posted to its window. One connection for the page's life: a window message does not
          // say which document of the frame sent it.
          function relayRaw(bytes, origin) {
            report.rawFrames++;
            // An opaque origin cannot be named as a target; the answers go to the product frame's window only.
            const target = origin === "null" ? "*" : config.origin;
            if (!legacy || legacy.ended) {
              legacy = relay((answer) => frame.contentWindow.postMessage(answer, target, [answer.buffer]), () => {});
            }
            legacy.send(bytes.slice());
          }

          window.addEventListener("message", (event) => {
            const data = event.data;
            const announces = data !== null && typeof data === "object" && data.type === "truapi-ready";
            const raw = binary(data);
            if (event.source === null || event.source !== frame.contentWindow) {
              if (announces) ignore("truapi-ready from a window that is not the product frame");
              if (raw) ignore("a raw frame from a window that is not the product frame");
              return;
            }
            // The product's origin, or the opaque "null" that Firefox and sandboxes without allow-same-origin report.
            if (event.origin !== config.origin && event.origin !== "null") {
              ignore("a message from the product frame on origin " + event.origin);
              return;
            }
            if (raw) { relayRaw(raw, event.origin); return; }
            if (!announces) return;
            report.answered++;
            show("connecting to the bridge…", "");
            frame.contentWindow.postMessage({ type: "truapi-init" }, event.origin === "null" ? "*" : config.origin, [connect()]);
          });
          show("waiting for the product's truapi-ready…", "");
          frame.src = config.product;
        })();
        """#

    /// The host page for `product`; `socketPath` is `/?t=TOKEN` (the page dials its own host).
    public static func hostPage(product: TruAPIProductPage, socketPath: String, opaque: Bool) -> String {
        var object = JSONObject()
        object.append("product", .string(product.url))
        object.append("origin", .string(product.origin.description))
        object.append("socket_path", .string(socketPath))
        let sandbox = opaque ? "allow-forms allow-scripts" : "allow-forms allow-same-origin allow-scripts"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>omni TrUAPI host: \(escaped(product.origin.description))</title>
            <style>\(hostStyle)</style>
            <script type="application/json" id="omni-truapi-host">\(scriptSafeJSON(.object(object)))</script>
            </head><body>
            <header><strong>omni TrUAPI host</strong><code>\(escaped(product.url))</code><span id="status" role="status"></span></header>
            <iframe id="product" title="product" referrerpolicy="origin" sandbox="\(sandbox)"></iframe>
            <script>\(hostScript)</script>
            </body></html>

            """
    }

    /// The host page's headers: its script and style by hash, connections to its own origin, frames of the product's
    /// origin only, not framable itself, never cached. The frame gets the host's origin as its referrer (never the
    /// query with the token), so products find the host origin from `document.referrer` in every browser.
    public static func hostPageHeaders(product: TruAPIProductPage) -> [(String, String)] {
        [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Security-Policy", "default-src 'none'; script-src '\(digest(hostScript))'; style-src '\(digest(hostStyle))'; "
                + "connect-src 'self'; frame-src \(product.origin.description); base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
            ("Cache-Control", "no-store"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
        ]
    }

    // MARK: - --open's launcher

    /// A local page that replaces itself with `hostURL` (which has the token): `--open` writes it to a private file
    /// and hands the opener the file's path, since an opener's argv is visible to every user in `ps`. No referrer,
    /// so the host page's request does not name the file.
    public static func launcherPage(hostURL: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
        <title>omni TrUAPI host</title>
        <script>location.replace(\(scriptSafeJSON(.string(hostURL))));</script>
        </head><body><p>Opening the omni TrUAPI host page…</p></body></html>

        """
    }

    // MARK: - Routes

    /// Serves `GET /bootstrap.js` and `GET /host` on `server` for `bridge`. `listening` is the address the bridge
    /// listens on, used when a request names no usable `Host` (pages dial the host the browser used).
    public static func install(on server: HTTPServer, bridge: TruAPIBridge, listening: @escaping @Sendable () -> TruAPIBridgeEndpoint) {
        server.route("GET", "/bootstrap.js") { request in
            if let refusal = bridge.refusePage(request) { return refusal }
            let endpoint = endpoint(for: request, listening: listening())
            bridge.onEvent(.pageServed("/bootstrap.js", remote: request.remoteAddress, product: nil))
            return response(bootstrapScript(endpoint), headers: bootstrapHeaders)
        }
        server.route("GET", "/host") { request in
            if let refusal = bridge.refusePage(request) { return refusal }
            let bridgeAddress = listening()
            let endpoint = endpoint(for: request, listening: bridgeAddress)
            guard let raw = request.queryValue("url") else {
                return .text("missing url=: the product page to embed, percent-encoded (e.g. url=http%3A%2F%2Flocalhost%3A3000%2F)", status: 400)
            }
            guard let text = PercentEncoding.decode(raw) else { return .text("url= has a broken %-escape or is not UTF-8", status: 400) }
            let product: TruAPIProductPage
            do throws(TruAPIError) { product = try TruAPIProductPage(parsing: text) } catch { return .text(error.message, status: 400) }
            // Allowed scripts on the page's own origin could read the token out of it.
            if [endpoint.pageOrigin, bridgeAddress.pageOrigin].contains(product.origin.description) {
                return .text("the product page may not be on the bridge's own origin", status: 400)
            }
            let opaque = request.queryValue("opaque") == "1"
            bridge.onEvent(.pageServed("/host", remote: request.remoteAddress, product: product.url))
            let page = hostPage(product: product, socketPath: "/" + (endpoint.token.map { "?t=" + $0 } ?? ""), opaque: opaque)
            return response(page, headers: hostPageHeaders(product: product))
        }
    }

    static func response(_ text: String, headers: [(String, String)]) -> HTTPServerResponse {
        var response = HTTPServerResponse(status: 200, body: Array(text.utf8))
        for (name, value) in headers { response.headers.set(name, value) }
        return response
    }

    /// The endpoint as the browser reached it: its `Host` when that is a plain `host:port` (what the page can dial
    /// again), else the listening address.
    static func endpoint(for request: HTTPServerRequest, listening: TruAPIBridgeEndpoint) -> TruAPIBridgeEndpoint {
        guard let host = request.headers["Host"], !host.isEmpty, host.utf8.count <= 300,
              host.utf8.allSatisfy({ byte in
                  (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-.:[]".utf8.contains(byte)
              }) else { return listening }
        return TruAPIBridgeEndpoint(authority: host.lowercased(), token: listening.token)
    }

    // MARK: - Text

    /// JSON that can sit inside a `<script>` element: `<`, `>` and `&` escaped (no `</script>`), and U+2028/U+2029,
    /// which JSON allows raw and older JavaScript does not.
    static func scriptSafeJSON(_ value: JSONValue) -> String {
        value.serialized().replacing("<", with: "\\u003c").replacing(">", with: "\\u003e").replacing("&", with: "\\u0026")
            .replacing("\u{2028}", with: "\\u2028").replacing("\u{2029}", with: "\\u2029")
    }

    static func digest(_ text: String) -> String { "sha256-" + Base64.encode(SHA256.hash(Array(text.utf8))) }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
