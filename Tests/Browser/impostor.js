// Runs in a frame on another origin than the identity provider's, inside the provider's window: it posts a
// forged authorize-client-success to the login page (the provider window's opener). The chain is valid — signed by
// the impostor's own key, to the login's session key — so only the login page's origin and source checks keep it
// out. Then it tells its parent it is done.
"use strict";
(async () => {
  const [sessionKey, ttl] = location.hash.slice(1).split(":");
  const bytes = (text) => Uint8Array.from(text.match(/../g) || [], (pair) => parseInt(pair, 16));
  const response = await fetch("/sign", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ mode: "forged", origin: location.origin, session_public_key: sessionKey, max_time_to_live: ttl }),
  });
  const answer = await response.json();
  window.parent.opener.postMessage({
    kind: "authorize-client-success",
    delegations: answer.delegations.map((link) => ({
      delegation: { pubkey: bytes(link.pubkey), expiration: BigInt(link.expiration) },
      signature: bytes(link.signature),
    })),
    userPublicKey: bytes(answer.user_public_key),
    authnMethod: "passkey",
  }, "*");
  window.parent.postMessage({ kind: "impostor-done" }, "*");
})();
