// A frame inside the product that is not the product: it posts its own truapi-ready and a raw frame to the top
// window (the host page), which must not answer either, then tells the product it did. Messages from one window to
// another are delivered in the order they were posted, so the host page has seen these before the product's own.
"use strict";
window.top.postMessage({ type: "truapi-ready" }, "*");
// And a raw frame, as a legacy product would post it: a system_handshake request with id "x:1".
window.top.postMessage(new Uint8Array([0x0c, 0x78, 0x3a, 0x31, 0x00, 0x00, 0x01]), "*");
window.parent.postMessage("impostor-sent", "*");
