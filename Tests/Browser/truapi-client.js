// A small product-side TrUAPI client, hand-written for omni's browser tests from the protocol description
// (truapi.md §3 frames and SCALE, §4 dispatch, §5 wire ids): it shares no code with omni. A frame is the request id
// (SCALE str), one discriminant byte and the payload; responses are [version][0 Ok | 1 Err][body]; ids are p:1, p:2, …
"use strict";
const TruAPITestClient = (() => {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder("utf-8", { fatal: true });

  function compact(n) {
    if (n < 1 << 6) return [n << 2];
    if (n < 1 << 14) {
      const v = (n << 2) | 1;
      return [v & 0xff, v >>> 8];
    }
    if (n < 1 << 30) {
      const v = ((n << 2) | 2) >>> 0;
      return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
    }
    throw new Error("length " + n + " is too long for this client");
  }
  const str = (text) => {
    const bytes = encoder.encode(text);
    return [...compact(bytes.length), ...bytes];
  };
  const bytes = (value) => [...compact(value.length), ...value];
  const hex = (value) => Array.from(value, (byte) => byte.toString(16).padStart(2, "0")).join("");

  class Reader {
    constructor(data) {
      this.data = data;
      this.at = 0;
    }
    need(count) {
      if (this.at + count > this.data.length) throw new Error("truncated at byte " + this.at);
    }
    u8() {
      this.need(1);
      return this.data[this.at++];
    }
    compact() {
      const first = this.u8();
      switch (first & 3) {
        case 0: return first >>> 2;
        case 1: return (first | (this.u8() << 8)) >>> 2;
        case 2: {
          this.need(3);
          const [b1, b2, b3] = this.data.subarray(this.at, this.at + 3);
          this.at += 3;
          return ((first | (b1 << 8) | (b2 << 16) | (b3 << 24)) >>> 0) >>> 2;
        }
        default: throw new Error("compact big-integer mode at byte " + (this.at - 1));
      }
    }
    take(count) {
      this.need(count);
      const out = this.data.slice(this.at, this.at + count);
      this.at += count;
      return out;
    }
    bytes() { return this.take(this.compact()); }
    str() { return decoder.decode(this.bytes()); }
    rest() { return this.take(this.data.length - this.at); }
    end() {
      if (this.at !== this.data.length) throw new Error((this.data.length - this.at) + " bytes left over at byte " + this.at);
    }
  }

  function encodeFrame(id, discriminant, payload) {
    return new Uint8Array([...str(id), discriminant, ...payload]);
  }
  function decodeFrame(data) {
    const reader = new Reader(data);
    return { id: reader.str(), discriminant: reader.u8(), payload: reader.rest() };
  }

  // The wire ids of the methods this client speaks (§5).
  const ids = {
    handshake: { request: 0, response: 1 },
    storageRead: { request: 12, response: 13 },
    storageWrite: { request: 14, response: 15 },
    theme: { start: 104, stop: 105, interrupt: 106, receive: 107 },
  };

  /// Speaks TrUAPI over anything shaped like a MessagePort (onmessage, postMessage, start).
  class Client {
    constructor(port, trace) {
      this.port = port;
      this.trace = trace || (() => {});
      this.counter = 0;
      this.pending = new Map();
      this.subscriptions = new Map();
      this.problems = [];
      port.onmessage = (event) => this.receive(event.data);
      if (typeof port.start === "function") port.start();
    }
    send(frame) {
      this.trace("→ " + hex(frame));
      this.port.postMessage(frame);
    }
    receive(data) {
      if (!(data instanceof Uint8Array)) {
        this.problems.push("a message that is not a Uint8Array");
        return;
      }
      this.trace("← " + hex(data));
      let frame;
      try {
        frame = decodeFrame(data);
      } catch (error) {
        this.problems.push("undecodable frame " + hex(data) + ": " + error.message);
        return;
      }
      const waiting = this.pending.get(frame.id);
      if (waiting && waiting.response === frame.discriminant) {
        this.pending.delete(frame.id);
        waiting.resolve(frame.payload);
        return;
      }
      const subscription = this.subscriptions.get(frame.id);
      if (subscription && frame.discriminant === subscription.ids.receive) {
        subscription.items.push(frame.payload);
        subscription.onItem(frame.payload);
        return;
      }
      if (subscription && frame.discriminant === subscription.ids.interrupt) {
        this.subscriptions.delete(frame.id);
        subscription.onEnd(frame.payload);
        return;
      }
      this.problems.push("a frame nobody waits for: " + hex(data));
    }
    request(methodIds, payload, timeout = 10000) {
      const id = "p:" + ++this.counter;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error("no response to " + id + " within " + timeout + " ms"));
        }, timeout);
        this.pending.set(id, {
          response: methodIds.response,
          resolve: (body) => {
            clearTimeout(timer);
            resolve(body);
          },
        });
        this.send(encodeFrame(id, methodIds.request, payload));
      });
    }
    subscribe(methodIds, payload, onItem, onEnd) {
      const id = "p:" + ++this.counter;
      const subscription = { ids: methodIds, items: [], onItem, onEnd: onEnd || (() => {}) };
      this.subscriptions.set(id, subscription);
      this.send(encodeFrame(id, methodIds.start, payload));
      return {
        id,
        stop: () => {
          if (!this.subscriptions.delete(id)) return;
          this.send(encodeFrame(id, methodIds.stop, []));
        },
      };
    }
  }

  /// The Ok body of a response payload, or an error naming the bytes.
  function okBody(payload) {
    const reader = new Reader(payload);
    const version = reader.u8();
    const result = reader.u8();
    if (version !== 0 || result !== 0) throw new Error("not an Ok response: " + hex(payload));
    return reader;
  }

  function decodeTheme(payload) {
    const reader = new Reader(payload);
    if (reader.u8() !== 0) throw new Error("theme item is not V1: " + hex(payload));
    const nameTag = reader.u8();
    const name = nameTag === 0 ? { custom: reader.str() } : nameTag === 1 ? "Default" : null;
    const variantTag = reader.u8();
    const variant = variantTag === 0 ? "Light" : variantTag === 1 ? "Dark" : null;
    reader.end();
    if (name === null || variant === null) throw new Error("theme item out of range: " + hex(payload));
    return { name, variant };
  }

  /// The test's exchanges: a handshake, a local-storage write and the read of it (requests), and the theme
  /// subscription's current value, then its stop. Each result keeps the payload bytes for omni's test to check.
  async function run(port, { key, value, trace }) {
    const client = new Client(port, trace);
    const results = {};
    const shaken = await client.request(ids.handshake, [0, 1]);
    okBody(shaken).end();
    results.handshake = hex(shaken);
    const written = await client.request(ids.storageWrite, [0, ...str(key), ...bytes(value)]);
    okBody(written).end();
    results.write = hex(written);
    const read = await client.request(ids.storageRead, [0, ...str(key)]);
    const body = okBody(read);
    const present = body.u8();
    results.read = { payload: hex(read), value: present === 1 ? hex(body.bytes()) : null };
    body.end();
    const themeItem = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no theme item within 10 s")), 10000);
      const subscription = client.subscribe(ids.theme, [0], (item) => {
        clearTimeout(timer);
        subscription.stop();
        resolve(item);
      }, (interrupt) => reject(new Error("theme interrupted: " + hex(interrupt))));
      results.theme_subscription = subscription.id;
    });
    results.theme = { payload: hex(themeItem), ...decodeTheme(themeItem) };
    // One more request after the stop: the connection still answers.
    const again = await client.request(ids.handshake, [0, 1]);
    okBody(again).end();
    results.after_stop = hex(again);
    results.problems = client.problems;
    return results;
  }

  return { run, hex };
})();
