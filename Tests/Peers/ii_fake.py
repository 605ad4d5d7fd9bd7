#!/usr/bin/env python3
"""A fake Internet Identity for omni's `omni ic identity login` end-to-end tests.

Serves the hand-written fake II page (Tests/Browser/fake-ii.html, fake-ii.js) and its signing backend. The page
runs the identity provider's side of the client authentication protocol (authorize-ready, authorize-client,
authorize-client-success/-failure); this process signs what it asks for with the keys of Tests/Peers/ic_replica.py
(same --seed, same keys): the user key is a canister signature key of a fake II canister, and the client delegation
is a canister signature whose certificate is signed by the replica's subnet key under a delegation from its root
key, exactly as the IC certifies a canister's data. Nothing here shares code with omni.

Start:  python3 ii_fake.py [--seed HEX] [--port N]
Stdout: ONE JSON line: {"url", "origin", "other_origin", "root_key", "canister_id", "seed", "pid"}
        (`other_origin` is the same server as http://localhost:PORT: a second origin for the impostor frame.)
Lives until stdin reaches EOF or SIGTERM.

Endpoints:
  GET  /, /fake-ii.js, /impostor.html, /impostor.js    the pages (open /?mode=MODE#authorize)
  POST /sign   {mode, origin, session_public_key (hex), max_time_to_live (decimal), derivation_origin, targets}
               -> {"user_public_key", "principal", "delegations": [{"pubkey", "expiration" (decimal),
                   "targets" ([hex] | null), "signature"}]} or {"failure": text}
  GET  /_last  the last /sign request and what was answered

Modes (?mode= on the page URL):
  valid          one canister-signed delegation to the session key, targets as requested, expiry now + TTL
  p256           user key -> ECDSA P-256 key (canister signature) -> session key (64-byte r||s)
  p256-der       as p256, but the P-256 signature DER-encoded (must be refused)
  tampered       the delegation's expiration differs from the one the canister signed
  wider          the requested targets plus one more canister
  unscoped       no targets, whatever was requested
  expired        expiry an hour ago
  other-session  delegates to a fresh key instead of the session key
  failure        answers authorize-client-failure
  impostor       a frame on other_origin first posts a forged (validly self-signed) answer to the opener, then the
                 real answer follows
The principal is the self-authenticating id of the canister signature key, whose seed depends on the requesting
origin (derivation_origin when given), as Internet Identity's does.
"""
import argparse
import hashlib
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ic_replica  # noqa: E402  (the replica's keys, hash trees and certificates)

BROWSER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Browser")
PAGES = {
    "/": ("fake-ii.html", "text/html; charset=utf-8"),
    "/fake-ii.js": ("fake-ii.js", "text/javascript; charset=utf-8"),
    "/impostor.html": ("impostor.html", "text/html; charset=utf-8"),
    "/impostor.js": ("impostor.js", "text/javascript; charset=utf-8"),
}
# A canister id inside the replica's second range (its subnet is certified for it), standing in for II's canister.
II_CANISTER_ID = bytes.fromhex("00000000002000070101")
CANISTER_SIGNATURE_OID = bytes.fromhex("060a2b0601040183b8430102")
P256_DER_PREFIX = ic_replica.P256_DER_PREFIX
ED25519_DER_PREFIX = ic_replica.ED25519_DER_PREFIX
EXTRA_TARGET = bytes.fromhex("00000000000000010101")  # rrkah-fqaaa-aaaaa-aaaaq-cai, the "wider" extra canister
MODES = {"valid", "p256", "p256-der", "tampered", "wider", "unscoped", "expired", "other-session", "failure",
         "impostor", "forged"}


def der_element(tag, content):
    length = len(content)
    if length < 0x80:
        return bytes([tag, length]) + content
    encoded = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(encoded)]) + encoded + content


def canister_signature_der(canister_id, seed):
    algorithm = der_element(0x30, CANISTER_SIGNATURE_OID)
    raw = bytes([len(canister_id)]) + canister_id + seed
    return der_element(0x30, algorithm + der_element(0x03, b"\x00" + raw))


def delegation_map(pubkey, expiration, targets):
    mapping = {"pubkey": pubkey, "expiration": expiration}
    if targets is not None:
        mapping["targets"] = list(targets)
    return mapping


def delegation_message(pubkey, expiration, targets):
    return ic_replica.DS_DELEGATION + ic_replica.hash_of_map(delegation_map(pubkey, expiration, targets))


class FakeII:
    def __init__(self, seed):
        switches = {key: (list(spec[1]) if isinstance(spec[1], list) else spec[1])
                    for key, spec in ic_replica.SWITCHES.items()}
        self.replica = ic_replica.Replica(seed, True, 1, {}, switches)
        self.seed = seed
        self.lock = threading.Lock()
        self.last = None

    def user_seed(self, origin):
        """Like II's seed: a hash over a (fake) salt, an anchor and the frontend origin."""
        salt = hashlib.sha256(self.seed + b"salt").digest()
        anchor = b"10000"
        host = origin.encode()
        return hashlib.sha256(bytes([len(salt)]) + salt + bytes([len(anchor)]) + anchor + bytes([len(host)]) + host).digest()

    def canister_signature(self, seed, message):
        """`55799({certificate, tree})`: the canister's signature tree holds sig/H(seed)/H(message), its root hash is
        the canister's certified data, certified by the subnet (delegated by the root key)."""
        sig_tree = {b"sig": {hashlib.sha256(seed).digest(): {hashlib.sha256(message).digest(): b""}}}
        witness = ic_replica.witness(sig_tree, [(b"sig", hashlib.sha256(seed).digest(), hashlib.sha256(message).digest())])
        replica = self.replica
        now = time.time_ns()
        state = {
            b"canister": {II_CANISTER_ID: {b"certified_data": ic_replica.node_hash(sig_tree)}},
            b"time": ic_replica.uleb128(now),
        }
        tree = ic_replica.witness(state, [(b"canister", II_CANISTER_ID, b"certified_data"), (b"time",)])
        with replica.lock:
            certificate = {"tree": tree, "signature": replica.sign_tree(tree, replica.subnet_key, False),
                           "delegation": replica.delegation("old")}
        return ic_replica.cbor_tagged({"certificate": ic_replica.cbor_tagged(certificate), "tree": witness})

    def sign(self, request):
        mode = request.get("mode", "valid")
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        if mode == "failure":
            return {"failure": "UserInterrupt"}
        session_key = bytes.fromhex(request["session_public_key"])
        ttl = int(request["max_time_to_live"])
        origin = request.get("derivation_origin") or request["origin"]
        requested = request.get("targets")
        targets = None if requested is None else [ic_replica.principal_from_text(t) for t in requested]
        if mode == "wider":
            targets = (targets or []) + [EXTRA_TARGET]
        if mode == "unscoped":
            targets = None
        expiration = time.time_ns() + ttl
        if mode == "expired":
            expiration = time.time_ns() - 3600 * 10**9
        if mode == "other-session":
            session_key = ED25519_DER_PREFIX + Ed25519PrivateKey.generate().public_key().public_bytes(
                serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        if mode == "forged":
            return self.forged(session_key, expiration, targets)

        user_seed = self.user_seed(origin)
        user_key = canister_signature_der(II_CANISTER_ID, user_seed)
        links = []
        if mode in ("p256", "p256-der"):
            middle = ec.generate_private_key(ec.SECP256R1())
            middle_der = middle.public_key().public_bytes(serialization.Encoding.DER,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo)
            assert middle_der.startswith(P256_DER_PREFIX) and len(middle_der) == 91
            links.append((middle_der, expiration, targets,
                          self.canister_signature(user_seed, delegation_message(middle_der, expiration, targets))))
            der_signature = middle.sign(delegation_message(session_key, expiration, None), ec.ECDSA(hashes.SHA256()))
            r, s = decode_dss_signature(der_signature)
            raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
            links.append((session_key, expiration, None, der_signature if mode == "p256-der" else raw))
        else:
            signed_expiration = expiration + 1 if mode == "tampered" else expiration
            links.append((session_key, expiration, targets,
                          self.canister_signature(user_seed, delegation_message(session_key, signed_expiration, targets))))
        principal = ic_replica.principal_to_text(ic_replica.self_authenticating(user_key))
        answer = {
            "user_public_key": user_key.hex(),
            "principal": principal,
            "delegations": [{"pubkey": key.hex(), "expiration": str(expires),
                             "targets": None if scope is None else [t.hex() for t in scope],
                             "signature": signature.hex()} for key, expires, scope, signature in links],
        }
        with self.lock:
            self.last = {"mode": mode, "origin": request["origin"], "derivation_origin": request.get("derivation_origin"),
                         "requested_targets": requested, "principal": principal,
                         "session_public_key": request["session_public_key"], "max_time_to_live": str(ttl)}
        return answer

    @staticmethod
    def forged(session_key, expiration, targets):
        """What an impostor could send: a perfectly valid chain from its own Ed25519 key (only the origin check
        keeps it out)."""
        root = Ed25519PrivateKey.generate()
        root_der = ED25519_DER_PREFIX + root.public_key().public_bytes(serialization.Encoding.Raw,
                                                                       serialization.PublicFormat.Raw)
        signature = root.sign(delegation_message(session_key, expiration, targets))
        return {"user_public_key": root_der.hex(),
                "principal": ic_replica.principal_to_text(ic_replica.self_authenticating(root_der)),
                "delegations": [{"pubkey": session_key.hex(), "expiration": str(expiration),
                                 "targets": None if targets is None else [t.hex() for t in targets],
                                 "signature": signature.hex()}]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    fake = None

    def log_message(self, format, *args):
        pass

    def reply(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/_last":
            with self.fake.lock:
                last = self.fake.last
            return self.reply(200, json.dumps(last).encode(), "application/json")
        page = PAGES.get(path)
        if page is None:
            return self.reply(404, b"not found\n", "text/plain")
        with open(os.path.join(BROWSER_DIR, page[0]), "rb") as file:
            self.reply(200, file.read(), page[1])

    def do_POST(self):
        if self.path != "/sign":
            return self.reply(404, b"not found\n", "text/plain")
        length = int(self.headers.get("Content-Length") or 0)
        try:
            answer = self.fake.sign(json.loads(self.rfile.read(min(length, 1 << 20))))
        except (ValueError, KeyError, TypeError) as error:
            return self.reply(400, json.dumps({"error": str(error)}).encode(), "application/json")
        self.reply(200, json.dumps(answer).encode(), "application/json")


def main():
    parser = argparse.ArgumentParser(description="Fake Internet Identity (see the module doc).")
    parser.add_argument("--seed", help="hex seed, as ic_replica.py's (default: random)")
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    seed = bytes.fromhex(arguments.seed) if arguments.seed else os.urandom(32)
    fake = FakeII(seed)
    Handler.fake = fake
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    print(json.dumps({
        "url": f"http://127.0.0.1:{port}/",
        "origin": f"http://127.0.0.1:{port}",
        "other_origin": f"http://localhost:{port}",
        "root_key": fake.replica.root_key.der.hex(),
        "canister_id": ic_replica.principal_to_text(II_CANISTER_ID),
        "seed": seed.hex(),
        "pid": os.getpid(),
    }), flush=True)

    def leave(*_):
        os._exit(0)

    signal.signal(signal.SIGTERM, leave)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.buffer.read()
    leave()


if __name__ == "__main__":
    main()
