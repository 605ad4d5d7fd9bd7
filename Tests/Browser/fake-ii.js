// The identity provider's side of Internet Identity's client authentication protocol (docs/ii-spec.md of
// dfinity/internet-identity), hand-written for omni's tests: announce authorize-ready to the opener, take one
// authorize-client from it, have ii_fake.py sign the delegation (a canister signature under the test replica's
// root key), and answer authorize-client-success (or -failure) to the requesting origin only.
"use strict";
(() => {
  const mode = new URLSearchParams(location.search).get("mode") || "valid";
  const logElement = document.getElementById("log");
  const log = (text) => { logElement.textContent += text + "\n"; };
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const bytes = (text) => Uint8Array.from(text.match(/../g) || [], (pair) => parseInt(pair, 16));

  if (location.hash !== "#authorize") { log("not opened with #authorize"); return; }
  if (!window.opener) { log("no opener window"); return; }

  async function sign(request, origin, signMode) {
    const response = await fetch("/sign", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        mode: signMode,
        origin: origin,
        session_public_key: hex(request.sessionPublicKey),
        max_time_to_live: request.maxTimeToLive.toString(),
        derivation_origin: request.derivationOrigin === undefined ? null : request.derivationOrigin,
        targets: request.targets === undefined ? null : request.targets,
      }),
    });
    if (!response.ok) throw new Error("ii_fake.py: " + (await response.text()));
    return response.json();
  }

  // Delegations as Internet Identity posts them: Uint8Arrays, BigInt expirations, targets as Principal objects
  // (which arrive through postMessage as plain {_arr, _isPrincipal} objects).
  function success(answer) {
    return {
      kind: "authorize-client-success",
      delegations: answer.delegations.map((link) => {
        const delegation = { pubkey: bytes(link.pubkey), expiration: BigInt(link.expiration) };
        if (link.targets !== null) delegation.targets = link.targets.map((t) => ({ _arr: bytes(t), _isPrincipal: true }));
        return { delegation: delegation, signature: bytes(link.signature) };
      }),
      userPublicKey: bytes(answer.user_public_key),
      authnMethod: "passkey",
    };
  }

  // A frame on another origin posts a forged answer to our opener; resolves once it says it has.
  function impostor(request) {
    return new Promise((resolve) => {
      const frame = document.createElement("iframe");
      const other = location.origin.replace("127.0.0.1", "localhost");
      window.addEventListener("message", function done(event) {
        if (event.source !== frame.contentWindow || !event.data || event.data.kind !== "impostor-done") return;
        window.removeEventListener("message", done);
        log("impostor posted from " + event.origin);
        resolve();
      });
      frame.src = other + "/impostor.html#" + hex(request.sessionPublicKey) + ":" + request.maxTimeToLive.toString();
      document.body.appendChild(frame);
    });
  }

  let answered = false;
  window.addEventListener("message", async (event) => {
    if (event.source !== window.opener || answered) return;
    const request = event.data;
    if (!request || request.kind !== "authorize-client") return;
    answered = true;
    log("authorize-client from " + event.origin);
    try {
      if (!(request.sessionPublicKey instanceof Uint8Array) || typeof request.maxTimeToLive !== "bigint") {
        throw new Error("malformed authorize-client: sessionPublicKey must be a Uint8Array, maxTimeToLive a BigInt");
      }
      const answer = await sign(request, event.origin, mode);
      if (mode === "impostor") await impostor(request);
      if (answer.failure) {
        window.opener.postMessage({ kind: "authorize-client-failure", text: answer.failure }, event.origin);
      } else {
        window.opener.postMessage(success(answer), event.origin);
      }
      log("answered (" + mode + ")");
    } catch (error) {
      log(String(error));
      window.opener.postMessage({ kind: "authorize-client-failure", text: String(error) }, event.origin);
    }
  });
  window.opener.postMessage({ kind: "authorize-ready" }, "*");
  log("authorize-ready sent (mode " + mode + ")");
})();
