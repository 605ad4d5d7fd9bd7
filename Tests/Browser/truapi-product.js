// The test product: finds its host the two ways released @parity/truapi does (truapi.md §9) — the webview shim's
// window.__HOST_API_PORT__ (after loading the bridge's /bootstrap.js), or the iframe protocol (post truapi-ready to
// the parent, take the MessagePort of its truapi-init) — runs TruAPITestClient over it, shows the results and POSTs
// them to /report on the site that served it. mode=legacy is a legacy Nova/dot.li-style product instead: raw
// Uint8Array window messages to its parent, answers posted to its window. Options come from the query:
// mode=bootstrap|iframe|legacy, bootstrap=<URL of /bootstrap.js>, impostor=1 (a nested frame first posts its own
// truapi-ready and a raw frame to the top window), watch=1 (after the results, POST a second report {mode, ended}
// once the transport says the host went away: the port's messageerror or close).
"use strict";
(() => {
  const params = new URLSearchParams(location.search);
  const mode = params.get("mode");
  const status = document.getElementById("status");
  const log = document.getElementById("log");
  const report = { mode, transport: null, results: null, error: null, details: {} };

  function show(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind || "";
  }
  function trace(line) {
    log.textContent += line + "\n";
  }
  function row(name, value) {
    const tr = document.createElement("tr");
    const label = document.createElement("td");
    const cell = document.createElement("td");
    const code = document.createElement("code");
    label.textContent = name;
    code.textContent = typeof value === "string" ? value : JSON.stringify(value);
    cell.append(code);
    tr.append(label, cell);
    document.getElementById("results").append(tr);
  }
  // An opaque origin (a sandbox without allow-same-origin) may still send a simple cross-origin POST.
  function send(body) {
    return fetch(new URL("/report", location.href), { method: "POST", mode: "no-cors", body: JSON.stringify(body) });
  }

  // As @parity/truapi's getClientSync: poll for the injected port every 50 ms, for up to 20 s.
  function webviewPort() {
    const script = document.createElement("script");
    script.src = params.get("bootstrap");
    let nativeReady = false;
    window.addEventListener("truapi-native-ready", () => { nativeReady = true; }, { once: true });
    document.head.append(script);
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const poll = () => {
        if (window.__HOST_API_PORT__) {
          report.details.native_ready_event = nativeReady;
          report.details.webview_mark = window.__HOST_WEBVIEW_MARK__ === true;
          report.details.localhost = window.__truapi_localhost || null;
          resolve(window.__HOST_API_PORT__);
        } else if (Date.now() - started > 20000) {
          reject(new Error("window.__HOST_API_PORT__ did not appear within 20 s"));
        } else {
          setTimeout(poll, 50);
        }
      };
      poll();
    });
  }

  // The host's origin as the 0.9 client resolves it: document.referrer, else location.ancestorOrigins, else "*".
  function hostOrigin() {
    if (document.referrer) {
      try { return new URL(document.referrer).origin; } catch (error) { /* fall through */ }
    }
    const ancestors = location.ancestorOrigins;
    return ancestors && ancestors.length > 0 ? ancestors[0] : "*";
  }

  function waitForImpostor() {
    if (params.get("impostor") !== "1") return Promise.resolve();
    return new Promise((resolve) => {
      const frame = document.createElement("iframe");
      window.addEventListener("message", function onMessage(event) {
        if (event.source === frame.contentWindow && event.data === "impostor-sent") {
          window.removeEventListener("message", onMessage);
          report.details.impostor = "sent truapi-ready to the top window";
          resolve();
        }
      });
      frame.src = "truapi-impostor.html";
      frame.style.display = "none";
      document.body.append(frame);
    });
  }

  async function iframePort() {
    await waitForImpostor();
    const origin = hostOrigin();
    report.details.host_origin = origin;
    report.details.own_origin = window.origin;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no truapi-init within 20 s")), 20000);
      window.addEventListener("message", function onMessage(event) {
        if (event.source !== window.parent) return;
        if (origin !== "*" && event.origin !== origin && event.origin !== "null") return;
        if (!event.data || event.data.type !== "truapi-init") return;
        window.removeEventListener("message", onMessage);
        clearTimeout(timer);
        report.details.init_origin = event.origin;
        if (!(event.ports[0] instanceof MessagePort)) reject(new Error("truapi-init without a MessagePort"));
        else resolve(event.ports[0]);
      });
      window.parent.postMessage({ type: "truapi-ready" }, origin);
    });
  }

  // A port over raw window messages, as legacy iframe hosts speak: frames to the parent, answers from it.
  async function legacyPort() {
    await waitForImpostor();
    const origin = hostOrigin();
    report.details.host_origin = origin;
    report.details.own_origin = window.origin;
    const port = { onmessage: null, postMessage: (frame) => window.parent.postMessage(frame, origin) };
    window.addEventListener("message", (event) => {
      if (event.source !== window.parent || !(event.data instanceof Uint8Array)) return;
      if (origin !== "*" && event.origin !== origin) return;
      if (typeof port.onmessage === "function") port.onmessage({ data: event.data });
    });
    return port;
  }

  // The second report, once: how the transport told the product that the host went away.
  function watchForTheEnd(port) {
    if (params.get("watch") !== "1") return;
    let told = false;
    const ended = (how) => {
      if (told) return;
      told = true;
      show("the host went away (" + how + ")", "error");
      send({ mode, ended: how });
    };
    port.onmessageerror = () => ended("messageerror");
    if (typeof port.addEventListener === "function") port.addEventListener("close", () => ended("close"));
  }

  async function main() {
    let port;
    if (mode === "bootstrap") {
      port = await webviewPort();
      report.transport = "window.__HOST_API_PORT__";
    } else if (mode === "iframe") {
      port = await iframePort();
      report.transport = "truapi-init MessagePort";
    } else if (mode === "legacy") {
      port = await legacyPort();
      report.transport = "raw window.postMessage";
    } else {
      throw new Error("unknown mode " + mode);
    }
    show("connected through " + report.transport + "; talking to the host…");
    const value = [0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, ...new TextEncoder().encode("omni ✓")];
    report.results = await TruAPITestClient.run(port, { key: "omni-browser-test", value, trace });
    watchForTheEnd(port);
    row("transport", report.transport);
    row("system_handshake", report.results.handshake);
    row("local_storage_write", report.results.write);
    row("local_storage_read", report.results.read.value);
    row("theme_subscribe", report.results.theme);
    row("after the stop", report.results.after_stop);
    show("done: handshake, write, read and a theme subscription answered", "ok");
  }

  main().catch((error) => {
    report.error = String(error && error.message || error);
    show("failed: " + report.error, "error");
  }).finally(() => send(report));
})();
