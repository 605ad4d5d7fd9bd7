#!/usr/bin/env python3
"""Independent IC client-side peer for OmniIC's differential tests (cbor2, pyblst, cryptography only).

    ic_peer.py verify-envelopes < lines      each stdin line: {"envelope": hex, "time": ns}
        prints one JSON line per input: {"request_id": hex, "valid": bool, "refusal": reason|null, "error": str|null}
        A refusal is a rule the envelope breaks (reason: tag, sender, signature, expired, target, cycle, chain_length);
        anything else that goes wrong is this peer's own failure: it exits non-zero with a traceback, never
        reporting a crash as a refusal.
        Checks what the IC checks: CBOR with tag 55799, request id (representation-independent hash computed
        here), sender == SHA-224(sender_pubkey) || 0x02, every delegation signature (Ed25519, ECDSA P-256 and
        secp256k1 with r||s over SHA-256), expirations, targets, and sender_sig over 0x0A"ic-request" || id.

    ic_peer.py make-certificate --seed S --request-id HEX --canister HEX --time NS
        prints {"root_key": hex DER, "certificate": hex, "reply": hex, "subnet": hex}: a BLS root key, a subnet
        delegated by it (flat canister ranges covering the canister), and a certificate signed by the subnet key
        holding /request_status/<id>/{status: replied, reply} and /time.

    ic_peer.py sign-query --seed S --request-id HEX --timestamp NS --arg HEX
        prints {"response": hex, "node_id": hex, "node_key": hex DER}: a replied query response signed by a
        fresh Ed25519 node key over 0x0B"ic-response" || hash_of_map(response).
"""
import argparse
import hashlib
import json
import random
import sys
from collections.abc import Mapping

import cbor2
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from pyblst import BlstP1Element, BlstP2Element

DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
G2 = BlstP2Element.uncompress(bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"))
BLS_DER_PREFIX = bytes.fromhex("308182301d060d2b0601040182dc7c0503010201060c2b0601040182dc7c05030201036100")
ED25519_PREFIX = bytes.fromhex("302a300506032b6570032100")


class Refusal(Exception):
    """An envelope the IC would refuse, with the rule it breaks."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def domain(tag: str) -> bytes:
    return bytes([len(tag)]) + tag.encode()


# ---- representation-independent hash ----

def leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def rih(value) -> bytes:
    if isinstance(value, bytes):
        return sha256(value)
    if isinstance(value, str):
        return sha256(value.encode())
    if isinstance(value, bool):
        raise ValueError("bool has no hash")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("negative integers do not occur in requests")
        return sha256(leb128(value))
    if isinstance(value, (list, tuple)):
        return sha256(b"".join(rih(item) for item in value))
    if isinstance(value, Mapping):
        parts = sorted(sha256(key.encode()) + rih(item) for key, item in value.items())
        return sha256(b"".join(parts))
    raise ValueError(f"unhashable {type(value).__name__}")


# ---- signature schemes ----

def verify_signature(der: bytes, signature: bytes, message: bytes, what: str) -> None:
    """Raises Refusal("signature") when `signature` does not verify; the keys here are omni's own, so a key this
    peer cannot load is its failure (an exception), not a refusal."""
    try:
        if der.startswith(ED25519_PREFIX) and len(der) == 44:
            ed25519.Ed25519PublicKey.from_public_bytes(der[12:]).verify(signature, message)
            return
        key = serialization.load_der_public_key(der)
        if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name not in ("secp256r1", "secp256k1"):
            raise TypeError(f"unexpected key type in an omni envelope: {der.hex()}")
        if len(signature) != 64:
            raise Refusal("signature", f"{what}: an ECDSA signature is 64 bytes, got {len(signature)}")
        r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
        key.verify(encode_dss_signature(r, s), message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Refusal("signature", f"{what} does not verify") from None


def selfauth(der: bytes) -> bytes:
    return hashlib.sha224(der).digest() + b"\x02"


def verify_envelope(data: bytes, now: int):
    if not data.startswith(b"\xd9\xd9\xf7"):
        raise Refusal("tag", "no self-describe tag")
    envelope = cbor2.loads(data)
    content = envelope["content"]
    request_id = rih(content)
    sender = content["sender"]
    pubkey = envelope.get("sender_pubkey")
    if pubkey is None:
        if sender != b"\x04" or "sender_sig" in envelope:
            raise Refusal("sender", "unsigned request from a non-anonymous sender")
        return request_id
    if sender != selfauth(pubkey):
        raise Refusal("sender", "sender is not selfauth(sender_pubkey)")
    signer = pubkey
    seen = {pubkey}
    delegations = envelope.get("sender_delegation") or []
    if len(delegations) > 20:
        raise Refusal("chain_length", f"{len(delegations)} delegations")
    for index, link in enumerate(delegations):
        delegation = link["delegation"]
        verify_signature(signer, link["signature"], domain("ic-request-auth-delegation") + rih(delegation),
                         f"delegation {index}")
        if delegation["expiration"] < now:
            raise Refusal("expired", f"delegation {index}")
        targets = delegation.get("targets")
        # read_state names no canister in its content; the IC checks the URL's effective canister id instead.
        if targets is not None and "canister_id" in content and content["canister_id"] not in targets:
            raise Refusal("target", f"delegation {index}: canister not in targets")
        if delegation["pubkey"] in seen:
            raise Refusal("cycle", f"delegation {index}")
        seen.add(delegation["pubkey"])
        signer = delegation["pubkey"]
    verify_signature(signer, envelope["sender_sig"], domain("ic-request") + request_id, "sender_sig")
    return request_id


# ---- certificates ----

def labeled(children):
    """A hash tree (CBOR list form) of sorted labelled children joined by forks."""
    nodes = [[2, label, tree] for label, tree in sorted(children, key=lambda c: c[0])]
    tree = nodes[-1]
    for node in reversed(nodes[:-1]):
        tree = [1, node, tree]
    return tree


def reconstruct(tree) -> bytes:
    kind = tree[0]
    if kind == 0:
        return sha256(domain("ic-hashtree-empty"))
    if kind == 1:
        return sha256(domain("ic-hashtree-fork") + reconstruct(tree[1]) + reconstruct(tree[2]))
    if kind == 2:
        return sha256(domain("ic-hashtree-labeled") + tree[1] + reconstruct(tree[2]))
    if kind == 3:
        return sha256(domain("ic-hashtree-leaf") + tree[1])
    return tree[1]


def certificate(tree, sk: int, delegation=None) -> bytes:
    message = domain("ic-state-root") + reconstruct(tree)
    signature = BlstP1Element.hash_to_group(message, DST).scalar_mul(sk).compress()
    body = {"tree": tree, "signature": signature}
    if delegation is not None:
        body["delegation"] = delegation
    return cbor2.dumps(cbor2.CBORTag(55799, body))


def make_certificate(args) -> dict:
    rng = random.Random(args.seed)
    root_sk, subnet_sk = rng.randrange(1, R), rng.randrange(1, R)
    root_der = BLS_DER_PREFIX + G2.scalar_mul(root_sk).compress()
    subnet_der = BLS_DER_PREFIX + G2.scalar_mul(subnet_sk).compress()
    subnet_id = bytes(rng.randrange(256) for _ in range(28)) + b"\x02"
    canister = bytes.fromhex(args.canister)
    ranges = cbor2.dumps([[canister[:-2] + b"\x00\x01", canister[:-2] + b"\xff\x01"]])
    time = leb128(args.time)
    delegation_tree = labeled([
        (b"subnet", labeled([(subnet_id, labeled([(b"canister_ranges", [3, ranges]), (b"public_key", [3, subnet_der])]))])),
        (b"time", [3, time]),
    ])
    delegation = {"subnet_id": subnet_id, "certificate": certificate(delegation_tree, root_sk)}
    reply = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
    request_id = bytes.fromhex(args.request_id)
    tree = labeled([
        (b"request_status", labeled([(request_id, labeled([(b"reply", [3, reply]), (b"status", [3, b"replied"])]))])),
        (b"time", [3, time]),
    ])
    return {"root_key": root_der.hex(), "certificate": certificate(tree, subnet_sk, delegation).hex(),
            "reply": reply.hex(), "subnet": subnet_id.hex()}


def sign_query(args) -> dict:
    rng = random.Random(args.seed)
    key = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(rng.randrange(256) for _ in range(32)))
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    node_id = selfauth(der)
    arg = bytes.fromhex(args.arg)
    signed = {"status": "replied", "reply": {"arg": arg}, "timestamp": args.timestamp,
              "request_id": bytes.fromhex(args.request_id)}
    signature = key.sign(domain("ic-response") + rih(signed))
    response = {"status": "replied", "reply": {"arg": arg},
                "signatures": [{"timestamp": args.timestamp, "signature": signature, "identity": node_id}]}
    return {"response": cbor2.dumps(cbor2.CBORTag(55799, response)).hex(), "node_id": node_id.hex(), "node_key": der.hex()}


def main() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("verify-envelopes")
    make = commands.add_parser("make-certificate")
    make.add_argument("--seed", type=int, required=True)
    make.add_argument("--request-id", required=True)
    make.add_argument("--canister", required=True)
    make.add_argument("--time", type=int, required=True)
    query = commands.add_parser("sign-query")
    query.add_argument("--seed", type=int, required=True)
    query.add_argument("--request-id", required=True)
    query.add_argument("--timestamp", type=int, required=True)
    query.add_argument("--arg", required=True)
    args = parser.parse_args()
    if args.command == "verify-envelopes":
        for line in sys.stdin:
            if not line.strip():
                continue
            item = json.loads(line)
            # Only a Refusal is a verdict; any other exception propagates and fails the run (exit status 1).
            try:
                request_id = verify_envelope(bytes.fromhex(item["envelope"]), item["time"])
                print(json.dumps({"request_id": request_id.hex(), "valid": True, "refusal": None, "error": None}))
            except Refusal as refusal:
                print(json.dumps({"request_id": None, "valid": False, "refusal": refusal.reason, "error": str(refusal)}))
    elif args.command == "make-certificate":
        print(json.dumps(make_certificate(args)))
    else:
        print(json.dumps(sign_query(args)))


if __name__ == "__main__":
    main()
