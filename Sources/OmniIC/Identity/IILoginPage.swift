import OmniCodec
import OmniCrypto

/// The page `omni ic identity login` serves on 127.0.0.1: it runs the client side of Internet Identity's client
/// authentication protocol in the browser and hands the answer to omni.
///
/// 1. It reads the state token from its URL's fragment and removes it from the address bar.
/// 2. It opens the provider (`window.open(providerURL + '#authorize')`); when the browser blocks a window opened
///    without a click, it shows a button.
/// 3. It answers `authorize-ready` with `authorize-client` {sessionPublicKey, maxTimeToLive, derivationOrigin?,
///    targets?}, posted to the provider's origin only.
/// 4. It takes `authorize-client-success` / `authorize-client-failure` only from the window it opened and only from
///    the provider's origin; other messages are ignored (and their origins reported to omni).
/// 5. It POSTs the answer, bytes as hex, with the state token to `/answer` and shows what omni made of it.
///
/// No external resources; the inline script and style are allowed by their hashes in the Content-Security-Policy and
/// nothing else is (no framing, no forms, requests to its own origin only).
public enum IILoginPage {
    static let style = """
        body{font-family:system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;line-height:1.5}\
        code{font-size:.95em}#status[data-kind=error]{color:#b00020}#status[data-kind=ok]{color:#1b5e20}\
        button{font-size:1rem;padding:.5rem 1rem}
        """

    static let script = #"""
        "use strict";
        (() => {
          const config = JSON.parse(document.getElementById("omni-login-config").textContent);
          const state = location.hash.slice(1);
          history.replaceState(null, "", location.pathname);
          const status = document.getElementById("status");
          const button = document.getElementById("open");
          const ignored = [];
          let provider = null;
          let finished = false;

          function show(text, kind) {
            status.textContent = text;
            status.dataset.kind = kind || "";
          }

          function hexOf(value) {
            let bytes = null;
            if (value instanceof Uint8Array) bytes = value;
            else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
            else if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
            else if (Array.isArray(value) && value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) bytes = Uint8Array.from(value);
            else if (value && typeof value === "object" && "_arr" in value) return hexOf(value._arr);
            if (bytes === null) return null;
            return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
          }

          function bytesOf(hex) {
            const bytes = new Uint8Array(hex.length / 2);
            for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.substr(2 * i, 2), 16);
            return bytes;
          }

          function expirationOf(value) {
            if (typeof value === "bigint" && value >= 0n) return value.toString(16);
            if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value).toString(16);
            return null;
          }

          function encodeSuccess(data) {
            const delegations = Array.isArray(data.delegations) ? data.delegations.slice(0, 64).map((link) => {
              const d = link && link.delegation ? link.delegation : {};
              const encoded = { pubkey: hexOf(d.pubkey), expiration: expirationOf(d.expiration) };
              if (d.targets !== undefined && d.targets !== null) {
                encoded.targets = Array.isArray(d.targets) ? d.targets.slice(0, 1001).map(hexOf) : null;
              }
              return { delegation: encoded, signature: hexOf(link ? link.signature : null) };
            }) : null;
            return {
              kind: "authorize-client-success",
              delegations: delegations,
              userPublicKey: hexOf(data.userPublicKey),
              authnMethod: typeof data.authnMethod === "string" ? data.authnMethod : null,
            };
          }

          async function submit(answer) {
            finished = true;
            button.hidden = true;
            show("Checking the answer…");
            try {
              const response = await fetch("/answer", {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({ state: state, answer: answer, ignored_origins: ignored }),
                cache: "no-store",
                credentials: "omit",
              });
              const result = await response.json();
              show(result.message, response.ok ? "ok" : "error");
            } catch (error) {
              show("omni did not answer (" + error + "); look at the terminal.", "error");
            }
            if (provider && !provider.closed) provider.close();
          }

          function authorizeClient() {
            const request = {
              kind: "authorize-client",
              sessionPublicKey: bytesOf(config.session_public_key),
              maxTimeToLive: BigInt(config.max_time_to_live),
            };
            if (config.derivation_origin) request.derivationOrigin = config.derivation_origin;
            if (config.targets) request.targets = config.targets;
            provider.postMessage(request, config.provider_origin);
            show("Sign in in the Internet Identity window…");
          }

          window.addEventListener("message", (event) => {
            if (finished) return;
            if (event.origin !== config.provider_origin || provider === null || event.source !== provider) {
              if (ignored.length < 16) ignored.push(String(event.origin));
              return;
            }
            const data = event.data;
            if (!data || typeof data !== "object") return;
            if (data.kind === "authorize-ready") authorizeClient();
            else if (data.kind === "authorize-client-success") submit(encodeSuccess(data));
            else if (data.kind === "authorize-client-failure") submit({ kind: data.kind, text: String(data.text) });
          });

          function open() {
            provider = window.open(config.provider_url, "omni-internet-identity");
            if (provider === null) {
              show("The browser blocked the Internet Identity window. Click the button to open it.");
              button.hidden = false;
              return;
            }
            button.hidden = true;
            show("Waiting for Internet Identity (" + config.provider_origin + ")…");
          }

          button.addEventListener("click", open);
          setInterval(() => {
            if (!finished && provider !== null && provider.closed) {
              provider = null;
              show("The Internet Identity window was closed before signing in. Click the button to try again.", "error");
              button.hidden = false;
            }
          }, 500);

          if (!/^[0-9a-f]{64}$/.test(state)) {
            finished = true;
            show("This page needs the full address omni printed (it ends in #<token>). Run the login command again.", "error");
            return;
          }
          open();
        })();
        """#

    /// The page, with `configuration` (the request's `pageConfiguration`) and the origin it serves from.
    public static func html(configuration: JSONValue, origin: String) -> String {
        // Inside <script> only "<" can end the element early; JSON allows it escaped.
        let config = configuration.serialized().replacing("<", with: "\\u003c")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>omni: Internet Identity login</title>
            <style>\(style)</style>
            <script type="application/json" id="omni-login-config">\(config)</script>
            </head><body>
            <h1>Log in to omni with Internet Identity</h1>
            <p>omni is waiting in your terminal. The identity you get is the one Internet Identity gives to \
            <code>\(escaped(origin))</code>.</p>
            <p id="status" role="status">Starting…</p>
            <p><button id="open" type="button" hidden>Open Internet Identity</button></p>
            <script>\(script)</script>
            </body></html>

            """
    }

    /// Security headers of every response: only the inline script and style by hash, no framing, no caching, no
    /// referrer.
    public static let headers: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; script-src '\(digest(script))'; style-src '\(digest(style))'; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("Cache-Control", "no-store"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
    ]

    static func digest(_ text: String) -> String { "sha256-" + Base64.encode(SHA256.hash(Array(text.utf8))) }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
