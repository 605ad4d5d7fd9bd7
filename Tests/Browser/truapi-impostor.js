// A frame inside the product that is not the product: it posts its own truapi-ready to the top window (the host page),
// which must not answer it, then tells the product it did. Messages from one window to another are delivered in the
// order they were posted, so the host page has seen this one before the product's own truapi-ready.
"use strict";
window.top.postMessage({ type: "truapi-ready" }, "*");
window.parent.postMessage("impostor-sent", "*");
