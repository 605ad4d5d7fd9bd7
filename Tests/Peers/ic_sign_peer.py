#!/usr/bin/env python3
"""Writes an `omni ic send` signed-request file (format "omni-ic-signed-request", version 1) for an update call,
signed with a fresh Ed25519 key — independently of omni (cryptography, cbor2, and ic_replica.py's request-id hash).

    ic_sign_peer.py --canister TEXT --method NAME --arg-hex HEX [--network URL] [--with-status]
                    [--expiry-in-s S] [--tamper arg|signature]

Prints the file's JSON on stdout. --with-status adds the signed read_state of /request_status/<id> that lets
`omni ic send` poll without the key. --tamper arg changes the readable arg (the envelope is untouched);
--tamper signature flips a bit of sender_sig inside the envelope. The keys are those `omni ic sign` writes.
"""
import argparse
import datetime
import json
import os
import sys
import time

import cbor2
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ic_replica import (ED25519_DER_PREFIX, cbor_tagged, principal_from_text, principal_to_text,  # noqa: E402
                        request_id, self_authenticating)

DS_REQUEST = b"\x0aic-request"


def envelope(key, der, content, tamper_signature=False):
    rid = request_id(content)
    signature = bytearray(key.sign(DS_REQUEST + rid))
    if tamper_signature:
        signature[0] ^= 1
    return rid, cbor_tagged({"content": content, "sender_pubkey": der, "sender_sig": bytes(signature)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--canister", required=True)
    parser.add_argument("--method", required=True)
    parser.add_argument("--arg-hex", required=True)
    parser.add_argument("--network")
    parser.add_argument("--with-status", action="store_true")
    parser.add_argument("--expiry-in-s", type=int, default=120)
    parser.add_argument("--tamper", choices=["arg", "signature"])
    args = parser.parse_args()

    key = Ed25519PrivateKey.generate()
    der = ED25519_DER_PREFIX + key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    sender = self_authenticating(der)
    canister = principal_from_text(args.canister)
    expiry = time.time_ns() + args.expiry_in_s * 10**9
    content = {"request_type": "call", "sender": sender, "ingress_expiry": expiry, "nonce": os.urandom(16),
               "canister_id": canister, "method_name": args.method, "arg": bytes.fromhex(args.arg_hex)}
    rid, body = envelope(key, der, content, tamper_signature=args.tamper == "signature")
    document = {
        "format": "omni-ic-signed-request", "version": 1, "request_type": "call", "request_id": rid.hex(),
        "canister_id": args.canister, "effective_canister_id": args.canister, "method_name": args.method,
        "sender": principal_to_text(sender), "ingress_expiry": str(expiry),
        "ingress_expiry_rfc3339": datetime.datetime.fromtimestamp(expiry // 10**9, datetime.timezone.utc).isoformat(),
        "arg": "00" + args.arg_hex if args.tamper == "arg" else args.arg_hex,
        "envelope": body.hex(),
    }
    if args.with_status:
        status_content = {"request_type": "read_state", "sender": sender, "ingress_expiry": expiry,
                          "paths": [[b"request_status", rid]]}
        document["request_status_envelope"] = envelope(key, der, status_content)[1].hex()
    if args.network:
        document["network"] = args.network
    json.dump(document, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
