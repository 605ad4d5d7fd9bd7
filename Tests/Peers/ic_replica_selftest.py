#!/usr/bin/env python3
"""Self-test for ic_replica.py:  python3 Tests/Peers/ic_replica_selftest.py [--seed HEX] [--verbose]

Starts the fake replica and checks everything it serves with a verifier and a client written here, sharing no code
with ic_replica.py: request ids, hash trees and lookups (spec algorithm), certificates (BLS with pyblst, delegation,
both canister-range layouts, /time), node signatures on queries (Ed25519 with cryptography), envelopes signed with
Ed25519, ECDSA secp256k1, P-256 and delegation chains. The verifier is first checked against the upstream vectors in
../shared/vectors/ic (or $OMNI_VECTORS/ic): request_id.json, hash_tree.json, principals.json, keys.json and real
mainnet certificates from certificates.json. The replica's own encoders are checked against the same vectors.
Then every endpoint and every switch is exercised. Exit status 0 = all checks passed; the seed is printed.
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import cbor2
import pyblst
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from pyblst import BlstP1Element, BlstP2Element

HERE = os.path.dirname(os.path.abspath(__file__))
REPLICA = os.path.join(HERE, "ic_replica.py")


# ===============================================================================================================
# Independent verifier
# ===============================================================================================================

class Rejected(Exception):
    """A verification failure with a machine-readable reason."""

    def __init__(self, reason, detail=""):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def H(data):
    return hashlib.sha256(data).digest()


def leb_unsigned(n):
    out = []
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def leb_signed(n):
    out = []
    more = True
    while more:
        byte = n & 0x7F
        n >>= 7
        more = not ((n == 0 and byte & 0x40 == 0) or (n == -1 and byte & 0x40))
        out.append(byte | 0x80 if more else byte)
    return bytes(out)


def leb_decode(data):
    value = 0
    for index, byte in enumerate(data):
        value |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            if index != len(data) - 1:
                raise Rejected("malformed", "trailing bytes after LEB128")
            return value
    raise Rejected("malformed", "unterminated LEB128")


class Int(int):
    """A Candid/CBOR int (signed), hashed as SLEB128; plain Python ints are nats."""


def rih(value):
    """Representation-independent hash of a value (maps recursively)."""
    if isinstance(value, Int):
        return H(leb_signed(value))
    if isinstance(value, dict) or hasattr(value, "items"):
        pairs = sorted(H(k.encode()) + rih(v) for k, v in value.items())
        return H(b"".join(pairs))
    if isinstance(value, (list, tuple)):
        return H(b"".join(rih(v) for v in value))
    if isinstance(value, str):
        return H(value.encode())
    if isinstance(value, bytes):
        return H(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return H(leb_unsigned(value) if value >= 0 else leb_signed(value))
    raise TypeError(type(value))


def ds(tag):
    return bytes([len(tag)]) + tag.encode()


def reconstruct(tree):
    tag = tree[0]
    if tag == 0 and len(tree) == 1:
        return H(ds("ic-hashtree-empty"))
    if tag == 1 and len(tree) == 3:
        return H(ds("ic-hashtree-fork") + reconstruct(tree[1]) + reconstruct(tree[2]))
    if tag == 2 and len(tree) == 3:
        return H(ds("ic-hashtree-labeled") + tree[1] + reconstruct(tree[2]))
    if tag == 3 and len(tree) == 2:
        return H(ds("ic-hashtree-leaf") + tree[1])
    if tag == 4 and len(tree) == 2 and len(tree[1]) == 32:
        return tree[1]
    raise Rejected("malformed", f"bad hash tree node {tree!r:.60}")


def flatten(tree):
    if tree[0] == 0:
        return []
    if tree[0] == 1:
        return flatten(tree[1]) + flatten(tree[2])
    return [tree]


def find_label(label, trees):
    """The spec's find_label: ('found', t) | ('absent',) | ('unknown',)."""
    for t in trees:
        if t[0] == 2 and t[1] == label:
            return ("found", t[2])
    for left, right in zip(trees, trees[1:]):
        if left[0] == 2 and right[0] == 2 and left[1] < label < right[1]:
            return ("absent",)
    if trees and trees[0][0] == 2 and label < trees[0][1]:
        return ("absent",)
    if trees and trees[-1][0] == 2 and trees[-1][1] < label:
        return ("absent",)
    if len(trees) == 1 and trees[0][0] == 3:
        return ("absent",)
    if not trees:
        return ("absent",)
    return ("unknown",)


def lookup(path, tree):
    """('found', value) | ('absent',) | ('unknown',) | ('error',)."""
    if not path:
        kind = tree[0]
        if kind == 0:
            return ("absent",)
        if kind == 3:
            return ("found", tree[1])
        if kind == 4:
            return ("unknown",)
        return ("error",)
    result = find_label(path[0], flatten(tree))
    if result[0] != "found":
        return result
    return lookup(path[1:], result[1])


def subtree(path, tree):
    for label in path:
        result = find_label(label, flatten(tree))
        if result[0] != "found":
            return None
        tree = result[1]
    return tree


def leaves(tree, prefix=()):
    """All (path, value) leaves below tree, and whether anything is pruned."""
    found, pruned = [], False
    for t in flatten(tree):
        if t[0] == 2:
            sub, sub_pruned = leaves(t[2], prefix + (t[1],))
            found += sub
            pruned |= sub_pruned
        elif t[0] == 3:
            found.append((prefix, t[1]))
        elif t[0] == 4:
            pruned = True
    return found, pruned


G2 = BlstP2Element.uncompress(bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"))
DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
BLS_PREFIX = bytes.fromhex("308182301d060d2b0601040182dc7c0503010201060c2b0601040182dc7c05030201036100")
ED_PREFIX = bytes.fromhex("302a300506032b6570032100")


def bls_verify(public_key, signature, message):
    try:
        sig = BlstP1Element.uncompress(signature)
        key = BlstP2Element.uncompress(public_key)
    except ValueError:
        return False
    if sig == BlstP1Element() or key == BlstP2Element():
        return False
    hashed = BlstP1Element.hash_to_group(message, DST)
    return bool(pyblst.final_verify(pyblst.miller_loop(sig, G2), pyblst.miller_loop(hashed, key)))


def decode_tagged(data, what, require_tag=True):
    if require_tag and not data.startswith(b"\xd9\xd9\xf7"):
        raise Rejected("malformed", f"{what} lacks the self-describe tag")
    return cbor2.loads(data)


def ranges_contain(ranges, principal):
    return any(lo <= principal <= hi for lo, hi in ranges)


def decode_ranges(blob):
    value = decode_tagged(blob, "canister ranges")
    return [(bytes(lo), bytes(hi)) for lo, hi in value]


def verify_certificate(data, root_der, now_ns, canister=None, subnet=None, layout="any", max_age_s=300,
                       allow_nested=False, delegation_max_age_s=30 * 86400, require_tag=True):
    """Verifies a certificate; returns a dict of facts. layout: old|sharded|any (what the delegation must prove)."""
    cert = decode_tagged(data, "certificate", require_tag) if isinstance(data, bytes) else data
    tree, signature = cert["tree"], cert["signature"]
    facts = {"tree": tree, "delegation": None}
    delegation = cert.get("delegation")
    if delegation is None:
        key_der = root_der
        facts["subnet_id"] = hashlib.sha224(root_der).digest() + b"\x02"
    else:
        subnet_id = delegation["subnet_id"]
        inner = decode_tagged(delegation["certificate"], "delegation certificate", require_tag)
        if inner.get("delegation") is not None and not allow_nested:
            raise Rejected("nested_delegation", "the delegation certificate has a delegation itself")
        inner_facts = verify_certificate(inner, root_der, now_ns, None, None, "any", delegation_max_age_s,
                                         allow_nested, require_tag=require_tag)
        inner_tree = inner["tree"]
        key = lookup([b"subnet", subnet_id, b"public_key"], inner_tree)
        if key[0] != "found":
            raise Rejected("delegation", f"/subnet/<id>/public_key is {key[0]}")
        key_der = key[1]
        facts["subnet_id"] = subnet_id
        facts["delegation"] = {"time": inner_facts["time"], "old_ranges": None, "sharded_ranges": None}
        old = lookup([b"subnet", subnet_id, b"canister_ranges"], inner_tree)
        if old[0] == "found":
            facts["delegation"]["old_ranges"] = decode_ranges(old[1])
        shards = subtree([b"canister_ranges", subnet_id], inner_tree)
        if shards is not None:
            found, _ = leaves(shards)
            facts["delegation"]["sharded_ranges"] = [r for _, blob in found for r in decode_ranges(blob)]
            facts["delegation"]["shard_labels"] = [path[0] for path, _ in found]
        if canister is not None:
            if layout == "old":
                ranges = facts["delegation"]["old_ranges"]
            elif layout == "sharded":
                ranges = facts["delegation"]["sharded_ranges"]
            else:
                ranges = facts["delegation"]["sharded_ranges"] or facts["delegation"]["old_ranges"]
            if ranges is None:
                raise Rejected("range", f"no {layout} canister ranges in the delegation")
            if not ranges_contain(ranges, canister):
                raise Rejected("range", "the canister is outside the delegated canister ranges")
        if subnet is not None and subnet != subnet_id:
            raise Rejected("range", "the delegation is for another subnet")
    if len(key_der) != 133 or not key_der.startswith(BLS_PREFIX):
        raise Rejected("delegation", "subnet key is not a DER BLS key")
    if not bls_verify(key_der[37:], signature, ds("ic-state-root") + reconstruct(tree)):
        raise Rejected("signature", "BLS signature does not verify")
    stamp = lookup([b"time"], tree)
    if stamp[0] != "found":
        raise Rejected("malformed", "no /time")
    facts["time"] = leb_decode(stamp[1])
    if max_age_s is not None and abs(now_ns - facts["time"]) > max_age_s * 10**9:
        raise Rejected("time", f"certificate time is {(now_ns - facts['time']) / 1e9:.0f} s off")
    return facts


def node_keys(facts):
    node = subtree([b"subnet", facts["subnet_id"], b"node"], facts["tree"])
    if node is None:
        return {}
    found, _ = leaves(node)
    return {path[0]: value for path, value in found if len(path) == 2 and path[1] == b"public_key"}


def verify_query(response, rid, keys, now_ns, max_age_s=300):
    """Node-signature check of a query response against node keys; raises Rejected."""
    signatures = response.get("signatures") or []
    if not signatures:
        raise Rejected("missing_signature", "no node signatures")
    for entry in signatures:
        if response["status"] == "replied":
            signed = {"status": "replied", "reply": response["reply"]}
        else:
            signed = {"status": "rejected", "reject_code": response["reject_code"],
                      "reject_message": response["reject_message"], "error_code": response["error_code"]}
        signed.update(timestamp=entry["timestamp"], request_id=rid)
        key = keys.get(entry["identity"])
        if key is None:
            raise Rejected("unknown_node", "the signing node is not in the subnet's node keys")
        if len(key) != 44 or not key.startswith(ED_PREFIX):
            raise Rejected("malformed", "node key is not a DER Ed25519 key")
        try:
            Ed25519PublicKey.from_public_bytes(key[12:]).verify(entry["signature"], b"\x0bic-response" + rih(signed))
        except Exception:
            raise Rejected("node_signature", "node signature does not verify")
        if max_age_s is not None and abs(now_ns - entry["timestamp"]) > max_age_s * 10**9:
            raise Rejected("time", "node signature timestamp is stale")


# --- principals and Candid (client side) -----------------------------------------------------------------------

def text_of(blob):
    raw = zlib.crc32(blob).to_bytes(4, "big") + blob
    s = base64.b32encode(raw).decode().lower().rstrip("=")
    return "-".join(s[i:i + 5] for i in range(0, len(s), 5))


def blob_of(text):
    s = text.replace("-", "").upper()
    raw = base64.b32decode(s + "=" * (-len(s) % 8))
    if zlib.crc32(raw[4:]).to_bytes(4, "big") != raw[:4]:
        raise ValueError("checksum")
    return raw[4:]


def candid_arg_text(value):
    data = value.encode()
    return b"DIDL\x00\x01\x71" + leb_unsigned(len(data)) + data


def candid_reply(data):
    """Decodes a one-value reply of type text, nat or blob."""
    assert data[:4] == b"DIDL", data[:8]
    if data[4] == 0:
        assert data[5] == 1
        kind, rest = data[6], data[7:]
        length, used = 0, 0
        for i, byte in enumerate(rest):
            length |= (byte & 0x7F) << (7 * i)
            if not byte & 0x80:
                used = i + 1
                break
        if kind == 0x71:
            assert len(rest) == used + length
            return rest[used:used + length].decode()
        if kind == 0x7D:
            assert len(rest) == used
            return length
        raise AssertionError(f"unexpected type {kind:#x}")
    assert data[4:9] == b"\x01\x6d\x7b\x01\x00"
    rest = data[9:]
    length, used = 0, 0
    for i, byte in enumerate(rest):
        length |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            used = i + 1
            break
    assert len(rest) == used + length
    return rest[used:]


# ===============================================================================================================
# Client identities and envelopes
# ===============================================================================================================

class Anonymous:
    principal = b"\x04"

    def authenticate(self, envelope, rid):
        return envelope


class Ed25519Identity:
    def __init__(self):
        self.key = Ed25519PrivateKey.generate()
        self.der = self.key.public_key().public_bytes(serialization.Encoding.DER,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)
        self.principal = hashlib.sha224(self.der).digest() + b"\x02"

    def sign(self, message):
        return self.key.sign(message)

    def authenticate(self, envelope, rid):
        return dict(envelope, sender_pubkey=self.der, sender_sig=self.sign(b"\x0aic-request" + rid))


class EcdsaIdentity(Ed25519Identity):
    def __init__(self, curve):
        self.key = ec.generate_private_key(curve)
        self.der = self.key.public_key().public_bytes(serialization.Encoding.DER,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)
        self.principal = hashlib.sha224(self.der).digest() + b"\x02"

    def sign(self, message):
        r, s = decode_dss_signature(self.key.sign(message, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")


class DelegatedIdentity:
    """A chain root -> ... -> session; delegations: list of (expiration, targets, permissions)."""

    def __init__(self, root, sessions, delegations):
        self.root, self.sessions = root, sessions
        self.principal = root.principal
        self.chain = []
        signer = root
        for session, (expiration, targets, permissions) in zip(sessions, delegations):
            delegation = {"pubkey": session.der, "expiration": expiration}
            if targets is not None:
                delegation["targets"] = targets
            if permissions is not None:
                delegation["permissions"] = permissions
            signature = signer.sign(b"\x1aic-request-auth-delegation" + rih(delegation))
            self.chain.append({"delegation": delegation, "signature": signature})
            signer = session

    def authenticate(self, envelope, rid):
        return dict(envelope, sender_pubkey=self.root.der, sender_delegation=self.chain,
                    sender_sig=self.sessions[-1].sign(b"\x0aic-request" + rid))


def expiry(offset_s=180, skew_s=0):
    return time.time_ns() + int((offset_s + skew_s) * 10**9)


def envelope(identity, content):
    rid = rih(content)
    body = identity.authenticate({"content": content}, rid)
    return cbor2.dumps(cbor2.CBORTag(55799, body)), rid


def call_content(identity, canister, method, arg, **extra):
    content = {"request_type": "call", "sender": identity.principal, "ingress_expiry": expiry(),
               "canister_id": canister, "method_name": method, "arg": arg, "nonce": os.urandom(8)}
    content.update(extra)
    return content


def query_content(identity, canister, method, arg, **extra):
    content = call_content(identity, canister, method, arg, **extra)
    content["request_type"] = "query"
    return content


def read_state_content(identity, paths, **extra):
    content = {"request_type": "read_state", "sender": identity.principal, "ingress_expiry": expiry(),
               "paths": paths}
    content.update(extra)
    return content


# ===============================================================================================================
# Harness
# ===============================================================================================================

class Running:
    def __init__(self, *flags, seed):
        self.process = subprocess.Popen([sys.executable, REPLICA, "--seed", seed, *flags], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)
        self.info = json.loads(self.process.stdout.readline())
        self.port = int(self.info["url"].rsplit(":", 1)[1])
        self.root_der = bytes.fromhex(self.info["root_key"])
        self.canister = blob_of(self.info["canister_id"])
        self.subnet = blob_of(self.info["subnet_id"])

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read(), response
        finally:
            connection.close()

    def post(self, path, body):
        status, data, _ = self.request("POST", path, body, {"Content-Type": "application/cbor"})
        return status, data

    def control(self, **switches):
        status, data, _ = self.request("POST", "/_control", json.dumps(switches).encode())
        assert status == 200, data
        return json.loads(data)

    def state(self):
        return json.loads(self.request("GET", "/_control")[1])

    def read_state(self, identity, paths, version=3, effective=None, subnet=False):
        effective = effective or (self.subnet if subnet else self.canister)
        kind = "subnet" if subnet else "canister"
        body, _ = envelope(identity, read_state_content(identity, paths))
        return self.post(f"/api/v{version}/{kind}/{text_of(effective)}/read_state", body)

    def certificate(self, identity, paths, version=3, **kwargs):
        status, data = self.read_state(identity, paths, version, **kwargs)
        assert status == 200, (status, data[:300])
        return decode_tagged(data, "read_state response")["certificate"]

    def close(self):
        """Closes stdin (the replica's stop signal); returns its exit status, or None if it had to be killed."""
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


class Checks:
    def __init__(self, verbose):
        self.passed, self.failed, self.verbose = 0, [], verbose

    def ok(self, name, condition, detail=""):
        if condition:
            self.passed += 1
            if self.verbose:
                print(f"ok   {name}")
        else:
            self.failed.append(name)
            print(f"FAIL {name} {detail}")

    def rejects(self, name, reason, function):
        try:
            function()
        except Rejected as rejection:
            return self.ok(name, rejection.reason == reason, f"rejected for {rejection.reason}, wanted {reason}")
        self.ok(name, False, f"accepted, wanted rejection for {reason}")


# ===============================================================================================================
# Vector checks
# ===============================================================================================================

def vectors_dir():
    base = os.environ.get("OMNI_VECTORS") or os.path.join(HERE, "..", "..", "..", "shared", "vectors")
    return os.path.join(base, "ic")


def load_vector(name):
    path = os.path.join(vectors_dir(), name)
    with open(path) as file:  # a missing vector file is a failure, not a skip
        return json.load(file)


def vector_value(value):
    """Values in request_id.json are described in text ('blob 04', 'nat 3', 'text "x"', '0x04 (...)')."""
    if isinstance(value, dict):
        return {k: vector_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [vector_value(v) for v in value]
    if isinstance(value, int):
        return value
    match = re.match(r'^(?:0x|blob ?)([0-9A-Fa-f]+)\b', value)
    if match:
        return bytes.fromhex(match.group(1))
    match = re.match(r'^blob "(.*)"$', value)
    if match:
        return match.group(1).encode()
    match = re.match(r'^text "(.*)"$', value)
    if match:
        return match.group(1)
    match = re.match(r'^nat (\d+)', value)
    if match:  # agent-rs serializes Rust i32 as a signed int, whatever the vector's prose says
        return Int(match.group(1)) if "i32" in value else int(match.group(1))
    match = re.match(r'^array of nat ([\d,]+)$', value)
    if match:
        return [int(v) for v in match.group(1).split(",")]
    return value


def check_vectors(checks, replica_module):
    vectors = load_vector("request_id.json")["vectors"]
    for vector in vectors:
        content = vector_value(vector["content"])
        expected = vector.get("request_id") or vector.get("hash")
        checks.ok(f"vector request id {vector['id']} (verifier)", rih(content).hex() == expected)
        if "i32" in json.dumps(vector["content"]):
            print(f"note: vector {vector['id']!r} hashes a signed int; the replica only hashes nats (not applied)")
            continue
        checks.ok(f"vector request id {vector['id']} (replica)", replica_module.hash_value(content).hex() == expected)
    checks.ok("request_id.json has vectors", len(vectors) >= 10, str(len(vectors)))

    example = load_vector("hash_tree.json")["spec_example"]
    full = cbor2.loads(bytes.fromhex(example["full_tree_cbor_hex"]))
    pruned = cbor2.loads(bytes.fromhex(example["pruned_tree_cbor_hex"]))
    checks.ok("spec hash tree root (verifier)", reconstruct(full).hex() == example["root_hash"])
    checks.ok("spec hash tree root (replica digest)", replica_module.digest(full).hex() == example["root_hash"])
    checks.ok("spec pruned tree root", reconstruct(pruned).hex() == example["pruned_root_hash"])
    spec_tree = {b"a": {b"x": b"hello", b"y": b"world"}, b"b": b"good", b"c": {}, b"d": b"morning"}
    replica_witness = replica_module.witness(spec_tree, [(b"a", b"y"), (b"ax",), (b"d",)])
    checks.ok("replica witness keeps the root hash",
              reconstruct(replica_witness) == replica_module.node_hash(spec_tree))
    for case in example["lookups_on_pruned_tree"]:
        path = [label.encode() for label in case["path"]]
        for name, tree in (("spec pruned tree", pruned), ("replica witness", replica_witness)):
            result = lookup(path, tree)
            wanted = case["result"].lower()
            value_ok = case["value_utf8"] is None or (len(result) == 2 and result[1] == case["value_utf8"].encode())
            checks.ok(f"lookup {'/'.join(case['path'])} on {name}", result[0] == wanted and value_ok, str(result))

    principals = load_vector("principals.json")
    for case in principals["valid"]:
        blob = bytes.fromhex(case["hex"])
        checks.ok(f"principal {case['text']} (verifier)", text_of(blob) == case["text"])
        checks.ok(f"principal {case['text']} (replica)", replica_module.principal_to_text(blob) == case["text"]
                  and replica_module.principal_from_text(case["text"]) == blob)
    for case in principals["invalid"]:
        try:
            replica_module.principal_from_text(case["text"])
            checks.ok(f"replica refuses principal {case['text'][:20]}", False)
        except ValueError:
            checks.ok(f"replica refuses principal {case['text'][:20]}", True)
    for case in principals["self_authenticating"]:
        if "ed25519_der_hex" in case:
            der = bytes.fromhex(case["ed25519_der_hex"])
            checks.ok("replica self-authenticating id", replica_module.self_authenticating(der).hex()
                      == case["principal_hex"])

    keys = load_vector("keys.json")
    k1 = serialization.load_pem_private_key(keys["secp256k1_pem_to_der_public_key"]["pem_pkcs8"].encode(), None)
    k1_der = k1.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    checks.ok("client secp256k1 DER matches keys.json",
              k1_der.hex() == keys["secp256k1_pem_to_der_public_key"]["der_public_key_hex"])
    for case in keys["ed25519_raw_to_der"]["vectors"]:
        checks.ok("Ed25519 DER prefix", replica_module.ED25519_DER_PREFIX.hex() + case["raw_hex"] == case["der_hex"])

    # The verifier on real mainnet certificates (time pinned to each certificate's own time).
    root_vector = load_vector("mainnet_root_key.json")
    root = bytes.fromhex(root_vector["der_hex"])
    checks.ok("root subnet id = self-authenticating id of the root key",
              text_of(hashlib.sha224(root).digest() + b"\x02") == root_vector["root_subnet_id"])
    certificates = {c["id"]: c for c in load_vector("certificates.json")["certificates"]}
    ivg37 = blob_of("ivg37-qiaaa-aaaab-aaaga-cai")
    ryjl3 = blob_of("ryjl3-tyaaa-aaaaa-aaaba-cai")
    cases = [("agent-rs/ivg37_time", ivg37, "sharded", None), ("agent-rs/ivg37_time", ryjl3, "sharded", "range"),
             ("agent-rs/ivg37_time_pruned_ranges", ivg37, "sharded", "range"),
             ("agent-rs/ivg37_delegated_v2", ivg37, "old", None),
             ("agent-rs/ivg37_delegated_v2", ryjl3, "old", "range"),
             ("agent-rs/ivg37_delegated_v2_pruned_subnet", ivg37, "old", "range"),
             ("agent-rs/224od_subnet", blob_of("224od-giaaa-aaaao-ae5vq-cai"), "sharded", None)]
    for cert_id, canister, layout, reason in cases:
        vector = certificates[cert_id]
        data = bytes.fromhex(vector["certificate_cbor_hex"])

        def run(data=data, canister=canister, layout=layout):
            verify_certificate(data, root, 0, canister=canister, layout=layout, max_age_s=None,
                               delegation_max_age_s=None, require_tag=False)

        if reason is None:
            try:
                run()
                checks.ok(f"verifier accepts real {cert_id}", True)
            except Rejected as rejection:
                checks.ok(f"verifier accepts real {cert_id}", False, str(rejection))
        else:
            checks.rejects(f"verifier refuses real {cert_id} for {text_of(canister)}", reason, run)
    facts = verify_certificate(bytes.fromhex(certificates["agent-rs/224od_subnet"]["certificate_cbor_hex"]), root, 0,
                               max_age_s=None, delegation_max_age_s=None)
    checks.ok("verifier finds 13 node keys in the real 224od certificate", len(node_keys(facts)) == 13)


# ===============================================================================================================
# Live checks
# ===============================================================================================================

def check_endpoints(checks, replica):
    info = replica.info
    anonymous, ed = Anonymous(), Ed25519Identity()
    k1, p256 = EcdsaIdentity(ec.SECP256K1()), EcdsaIdentity(ec.SECP256R1())
    canister, subnet, root = replica.canister, replica.subnet, replica.root_der
    now = time.time_ns

    # status
    status, data, response = replica.request("GET", "/api/v2/status")
    body = decode_tagged(data, "status")
    checks.ok("status: 200 CBOR with the root key", status == 200 and body["root_key"] == root
              and response.getheader("Content-Type") == "application/cbor")
    checks.ok("root key is a 133-byte DER BLS key", len(root) == 133 and root.startswith(BLS_PREFIX))

    # read_state: both layouts, time, subnet
    facts = verify_certificate(replica.certificate(anonymous, [[b"time"]], 3), root, now(), canister, layout="sharded")
    delegation = facts["delegation"]
    checks.ok("read_state v3: delegation reveals sharded ranges only",
              delegation["sharded_ranges"] is not None and delegation["old_ranges"] is None)
    checks.ok("read_state v3: two shards, labelled by their first canister id",
              [text_of(label) for label in delegation["shard_labels"]] == [r[0] for r in info["canister_ranges"]])
    checks.ok("read_state v3: subnet id", facts["subnet_id"] == subnet)
    facts = verify_certificate(replica.certificate(ed, [[b"time"]], 2), root, now(), canister, layout="old")
    checks.ok("read_state v2: delegation reveals the old ranges only",
              facts["delegation"]["old_ranges"] is not None and facts["delegation"]["sharded_ranges"] is None)
    checks.ok("read_state v2: ranges are the published ones",
              [[text_of(lo), text_of(hi)] for lo, hi in facts["delegation"]["old_ranges"]] == info["canister_ranges"])

    subnet_facts = verify_certificate(replica.certificate(anonymous, [[b"subnet"]], 3), root, now(), canister)
    keys = node_keys(subnet_facts)
    checks.ok("read_state /subnet: every node key is there",
              sorted(text_of(k) for k in keys) == sorted(info["node_ids"]))
    checks.ok("node ids are self-authenticating ids of their keys",
              all(hashlib.sha224(der).digest() + b"\x02" == node for node, der in keys.items()))
    tree = subnet_facts["tree"]
    checks.ok("read_state /subnet: subnet public key", lookup([b"subnet", subnet, b"public_key"], tree)
              == ("found", bytes.fromhex(info["subnet_public_key"])))
    checks.ok("read_state v3 keeps /subnet/<id>/canister_ranges pruned",
              lookup([b"subnet", subnet, b"canister_ranges"], tree)[0] == "unknown")
    tree_v2 = verify_certificate(replica.certificate(anonymous, [[b"subnet"]], 2), root, now(), canister)["tree"]
    checks.ok("read_state v2 reveals /subnet/<id>/canister_ranges",
              lookup([b"subnet", subnet, b"canister_ranges"], tree_v2)[0] == "found")

    facts = verify_certificate(replica.certificate(anonymous, [[b"canister_ranges", subnet], [b"subnet", subnet]], 3,
                                                   subnet=True), root, now(), subnet=subnet)
    shard_tree = subtree([b"canister_ranges", subnet], facts["tree"])
    found, pruned = leaves(shard_tree)
    checks.ok("subnet read_state v3: sharded ranges in the subnet's own tree", len(found) == 2 and not pruned)
    metrics = lookup([b"subnet", subnet, b"metrics"], facts["tree"])
    checks.ok("subnet read_state v3: metrics CBOR", metrics[0] == "found" and 0 in cbor2.loads(metrics[1]))
    facts = verify_certificate(replica.certificate(anonymous, [[b"subnet", subnet, b"canister_ranges"]], 2,
                                                   subnet=True), root, now(), subnet=subnet)
    checks.ok("subnet read_state v2: old ranges in the delegation and the subnet's own tree",
              facts["delegation"]["old_ranges"] is not None
              and lookup([b"subnet", subnet, b"canister_ranges"], facts["tree"])[0] == "found")
    status, _ = replica.read_state(anonymous, [[b"time"]], 3, effective=canister, subnet=True)
    checks.ok("subnet read_state with a canister id as subnet: 400", status == 400)
    status, _ = replica.read_state(anonymous, [[b"subnet", subnet, b"metrics"]], 3)
    checks.ok("metrics at a canister endpoint: 404", status == 404)
    status, _ = replica.read_state(anonymous, [[b"canister_ranges", subnet]], 3)
    checks.ok("/canister_ranges at a canister endpoint: 404", status == 404)

    # canister information
    paths = [[b"canister", canister, b"metadata", b"candid:service"], [b"canister", canister, b"module_hash"],
             [b"canister", canister, b"controllers"]]
    tree = verify_certificate(replica.certificate(ed, paths), root, now(), canister)["tree"]
    did = lookup(paths[0], tree)
    checks.ok("metadata candid:service", did[0] == "found" and b"greet : (text) -> (text) query;" in did[1])
    checks.ok("module_hash is 32 bytes", len(lookup(paths[1], tree)[1]) == 32)
    controllers = decode_tagged(lookup(paths[2], tree)[1], "controllers")
    checks.ok("controllers: tagged CBOR list", list(controllers) == [b"\x04"])
    checks.ok("metadata of a missing section: certified absence",
              lookup([b"canister", canister, b"metadata", b"nope"],
                     verify_certificate(replica.certificate(ed, [[b"canister", canister, b"metadata", b"nope"]]),
                                        root, now(), canister)["tree"])[0] == "absent")
    status, _ = replica.read_state(ed, [[b"canister", canister, b"certified_data"]])
    checks.ok("certified_data is not readable (404 like the replica)", status == 404)
    status, _ = replica.read_state(ed, [[b"canister", blob_of(info["canister_ranges"][1][0]), b"module_hash"]])
    checks.ok("canister path for another canister: 400", status == 400)

    # queries with every signature scheme and a delegation chain
    def query(identity, method, arg, version=3, target=canister, **extra):
        body, rid = envelope(identity, query_content(identity, target, method, arg, **extra))
        status, data = replica.post(f"/api/v{version}/canister/{text_of(target)}/query", body)
        return status, (decode_tagged(data, "query response") if status == 200 else data), rid

    session = Ed25519Identity()
    chains = {
        "anonymous": anonymous, "Ed25519": ed, "secp256k1": k1, "P-256": p256,
        "delegation Ed25519->P-256->Ed25519": DelegatedIdentity(ed, [p256, session],
                                                                [(expiry(3600), None, None),
                                                                 (expiry(3600), [canister], "queries")]),
    }
    for name, identity in chains.items():
        for version in (3, 2):
            status, response, rid = query(identity, "greet", candid_arg_text(name))
            ok = status == 200 and response["status"] == "replied"
            if ok:
                try:
                    verify_query(response, rid, keys, now())
                except Rejected as rejection:
                    ok = False
                    print("   ", rejection)
            checks.ok(f"query v{version} greet as {name}: verified reply",
                      ok and candid_reply(response["reply"]["arg"]) == f"Hello, {name}!", str(response)[:200])
    status, response, rid = query(ed, "fail_query", b"DIDL\x00\x00")
    checks.ok("query reject: status, code, error code", status == 200 and response["status"] == "rejected"
              and response["reject_code"] == 4 and response["error_code"] == "IC0406")
    try:
        verify_query(response, rid, keys, now())
        checks.ok("query reject: node signature verifies", True)
    except Rejected as rejection:
        checks.ok("query reject: node signature verifies", False, str(rejection))
    status, response, _ = query(ed, "nope", b"DIDL\x00\x00")
    checks.ok("query of a missing method: reject 3 IC0536", response["reject_code"] == 3
              and response["error_code"] == "IC0536")
    status, response, _ = query(ed, "counter", b"DIDL\x00\x00")
    checks.ok("query of an update method: reject 3", response["reject_code"] == 3)
    status, response, _ = query(ed, "greet", b"DIDL\x00\x01\x7d\x01")
    checks.ok("query with a wrong argument type: reject 5 (trap)", response["reject_code"] == 5)
    status, response, _ = query(ed, "big", b"DIDL\x00\x00")
    checks.ok("query big: 1 MiB blob", len(candid_reply(response["reply"]["arg"])) == 1024 * 1024)
    missing = blob_of(info["canister_ranges"][1][0])
    status, response, _ = query(ed, "greet", candid_arg_text("x"), target=missing)
    checks.ok("query to a missing canister: reject 3 IC0301", response["error_code"] == "IC0301")

    # authentication failures
    expired = DelegatedIdentity(ed, [session], [(time.time_ns() - 10**9, None, None)])
    status, text, _ = query(expired, "greet", candid_arg_text("x"))
    checks.ok("expired delegation: 400", status == 400 and b"delegation has expired" in text, text[:200])
    other_target = DelegatedIdentity(ed, [session], [(expiry(3600), [missing], None)])
    status, text, _ = query(other_target, "greet", candid_arg_text("x"))
    checks.ok("delegation targets exclude the canister: 400", status == 400 and b"delegation targets" in text)
    cycle = DelegatedIdentity(ed, [session, ed], [(expiry(3600), None, None), (expiry(3600), None, None)])
    status, text, _ = query(cycle, "greet", candid_arg_text("x"))
    checks.ok("delegation cycle: 400", status == 400 and b"appears twice" in text)
    content = query_content(ed, canister, "greet", candid_arg_text("x"))
    body = cbor2.dumps(cbor2.CBORTag(55799, dict(ed.authenticate({"content": content}, rih(content)),
                                                 sender_delegation=[])))
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", body)
    checks.ok("empty sender_delegation array is accepted", status == 200)
    body = cbor2.dumps(cbor2.CBORTag(55799, {"content": content, "sender_pubkey": ed.der,
                                             "sender_sig": ed.sign(b"\x0aic-request" + bytes(32))}))
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", body)
    checks.ok("wrong sender signature: 400 Invalid signature", status == 400 and b"Invalid signature" in text)
    content = query_content(ed, canister, "greet", candid_arg_text("x"), sender=k1.principal)
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", envelope(ed, content)[0])
    checks.ok("sender does not match the public key: 400", status == 400 and b"does not match" in text)
    content = query_content(anonymous, canister, "greet", candid_arg_text("x"))
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", cbor2.dumps({"content": content}))
    checks.ok("body without the self-describe tag: 400", status == 400 and b"55799" in text)
    content["surprise"] = 1
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", envelope(anonymous, content)[0])
    checks.ok("unknown content field: 400", status == 400)
    content = query_content(anonymous, canister, "greet", candid_arg_text("x"))
    status, text = replica.post(f"/api/v3/canister/{text_of(missing)}/query", envelope(anonymous, content)[0])
    checks.ok("canister id differs from the URL: 400", status == 400 and b"does not match" in text)
    for label, offset in (("too far ahead", 600), ("expired", -60)):
        content = query_content(ed, canister, "greet", candid_arg_text("x"), ingress_expiry=expiry(offset))
        status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", envelope(ed, content)[0])
        checks.ok(f"ingress_expiry {label}: 400 with the replica time",
                  status == 400 and b"Specified ingress_expiry not within expected range" in text
                  and b"Local replica time: " in text, text[:200])
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", b"\xd9\xd9\xf7" + b"\xff" * 4)
    checks.ok("garbage CBOR: 400", status == 400)
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", bytes(5 * 1024 * 1024))
    checks.ok("request body over 4 MiB: 413", status == 413)
    status, text = replica.post("/api/v5/canister/x/call", b"")
    checks.ok("unknown API version: 404", status == 404)

    # calls
    def call(identity, method, arg, version=4, target=canister):
        body, rid = envelope(identity, call_content(identity, target, method, arg))
        status, data = replica.post(f"/api/v{version}/canister/{text_of(target)}/call", body)
        return status, data, rid

    def certified_status(data, rid, layout, identity=None):
        response = decode_tagged(data, "call response")
        assert response["status"] == "replied", response
        facts = verify_certificate(response["certificate"], root, now(), canister, layout=layout)
        tree = facts["tree"]
        base = [b"request_status", rid]
        return {name: lookup(base + [name.encode()], tree) for name in
                ("status", "reply", "reject_code", "reject_message", "error_code")}

    before = replica.state()["counter"]
    status, data, rid = call(ed, "counter", b"DIDL\x00\x00")
    result = certified_status(data, rid, "sharded")
    checks.ok("call v4 counter: 200, certified reply", status == 200 and result["status"] == ("found", b"replied")
              and candid_reply(result["reply"][1]) == before + 1)
    status, data, rid = call(k1, "greet_update", candid_arg_text("v3"), version=3)
    result = certified_status(data, rid, "old")
    checks.ok("call v3 greet_update (secp256k1): certified reply, old ranges layout",
              status == 200 and candid_reply(result["reply"][1]) == "Hello, v3!")
    status, data, rid = call(p256, "greet_update", candid_arg_text("v2"), version=2)
    checks.ok("call v2: 202 empty", status == 202 and data == b"")
    tree = verify_certificate(replica.certificate(p256, [[b"request_status", rid]]), root, now(), canister)["tree"]
    checks.ok("call v2: polled reply", lookup([b"request_status", rid, b"status"], tree) == ("found", b"replied")
              and candid_reply(lookup([b"request_status", rid, b"reply"], tree)[1]) == "Hello, v2!")
    status, _ = replica.read_state(ed, [[b"request_status", rid]])
    checks.ok("request_status read by another sender: 403", status == 403)
    status, data, rid = call(ed, "fail", b"DIDL\x00\x00")
    result = certified_status(data, rid, "sharded")
    checks.ok("call v4 fail: certified reject 4 with message and error code",
              result["status"] == ("found", b"rejected") and result["reject_code"] == ("found", b"\x04")
              and result["reject_message"][0] == "found" and result["error_code"] == ("found", b"IC0406")
              and result["reply"][0] == "absent")
    status, data, rid = call(ed, "trap", b"DIDL\x00\x00")
    result = certified_status(data, rid, "sharded")
    checks.ok("call v4 trap: certified reject 5", result["reject_code"] == ("found", b"\x05"))
    status, data, rid = call(ed, "forget", b"DIDL\x00\x00")
    result = certified_status(data, rid, "sharded")
    checks.ok("call v4 forget: done without reply",
              result["status"] == ("found", b"done") and result["reply"][0] == "absent")
    status, data, rid = call(ed, "guarded", b"DIDL\x00\x00")
    response = decode_tagged(data, "call response")
    checks.ok("call v4 guarded: non-replicated rejection", status == 200
              and response.get("status") == "non_replicated_rejection" and response["reject_code"] == 4)
    status, data, rid = call(ed, "guarded", b"DIDL\x00\x00", version=2)
    response = decode_tagged(data, "call response")
    checks.ok("call v2 guarded: 200 with a CBOR reject", status == 200 and response["reject_code"] == 4
              and "status" not in response)
    status, data, rid = call(ed, "greet_update", candid_arg_text("x"), target=missing)
    checks.ok("call to a missing canister: non-replicated reject 3",
              decode_tagged(data, "call")["reject_code"] == 3)
    status, data, rid = call(ed, "nope", b"DIDL\x00\x00")
    result = certified_status(data, rid, "sharded")
    checks.ok("call of a missing method: certified reject 3", result["reject_code"] == ("found", b"\x03"))
    unknown_rid = os.urandom(32)
    tree = verify_certificate(replica.certificate(ed, [[b"request_status", unknown_rid]]), root, now(),
                              canister)["tree"]
    checks.ok("request_status of an unknown id is provably absent",
              lookup([b"request_status", unknown_rid, b"status"], tree)[0] == "absent")
    counter = replica.state()["counter"]
    status, response, rid = query(anonymous, "get_counter", b"DIDL\x00\x00")
    checks.ok("get_counter sees the update", candid_reply(response["reply"]["arg"]) == counter)
    body = envelope(ed, call_content(ed, canister, "greet", candid_arg_text("c")))[0]
    status, text = replica.post(f"/api/v4/canister/{text_of(canister)}/call",
                                body.replace(b"request_type\x64call", b"request_type\x65query"))
    checks.ok("call endpoint with a query envelope: 400", status == 400)
    queries_only = DelegatedIdentity(ed, [session], [(expiry(3600), None, "queries")])
    status, text, _ = call(queries_only, "counter", b"DIDL\x00\x00")
    checks.ok("call with a queries-only delegation: 400", status == 400 and b"only permits queries" in text)
    chunked_body = envelope(anonymous, query_content(anonymous, canister, "greet", candid_arg_text("chunk")))[0]
    connection = http.client.HTTPConnection("127.0.0.1", replica.port, timeout=20)
    connection.request("POST", f"/api/v3/canister/{text_of(canister)}/query", body=iter([chunked_body[:10],
                                                                                        chunked_body[10:]]),
                       headers={"Content-Type": "application/cbor"}, encode_chunked=True)
    response = connection.getresponse()
    checks.ok("chunked request body", response.status == 200
              and candid_reply(decode_tagged(response.read(), "q")["reply"]["arg"]) == "Hello, chunk!")
    connection.close()
    return keys


def check_switches(checks, replica, keys):
    anonymous, ed = Anonymous(), Ed25519Identity()
    canister, subnet, root = replica.canister, replica.subnet, replica.root_der
    now = time.time_ns

    def certificate(version=3, identity=anonymous, paths=None):
        return replica.certificate(identity, paths or [[b"time"]], version)

    def query(identity=anonymous, method="greet", arg=candid_arg_text("s")):
        body, rid = envelope(identity, query_content(identity, canister, method, arg))
        status, data = replica.post(f"/api/v3/canister/{text_of(canister)}/query", body)
        assert status == 200, data
        return decode_tagged(data, "query"), rid

    def fresh_keys():
        return node_keys(verify_certificate(certificate(paths=[[b"subnet"]]), root, now(), canister))

    # wrong BLS signatures
    replica.control(bad_bls="certificate")
    checks.rejects("bad_bls=certificate: read_state refused for the signature", "signature",
                   lambda: verify_certificate(certificate(), root, now(), canister))
    replica.control(bad_bls="delegation")
    checks.rejects("bad_bls=delegation: refused for the delegation signature", "signature",
                   lambda: verify_certificate(certificate(2), root, now(), canister))
    body, rid = envelope(ed, call_content(ed, canister, "counter", b"DIDL\x00\x00"))
    status, data = replica.post(f"/api/v4/canister/{text_of(canister)}/call", body)
    checks.rejects("bad_bls=delegation: call v4 certificate refused", "signature",
                   lambda: verify_certificate(decode_tagged(data, "c")["certificate"], root, now(), canister))
    replica.control(bad_bls="off")
    verify_certificate(certificate(), root, now(), canister)

    # foreign canister range, both layouts
    replica.control(foreign_range=True)
    checks.rejects("foreign_range: v3 (sharded) refused for the range", "range",
                   lambda: verify_certificate(certificate(3), root, now(), canister, layout="sharded"))
    checks.rejects("foreign_range: v2 (old layout) refused for the range", "range",
                   lambda: verify_certificate(certificate(2), root, now(), canister, layout="old"))
    verify_certificate(certificate(3), root, now(), subnet=subnet)  # still a valid certificate for the subnet
    checks.ok("foreign_range: the certificate itself stays valid", True)
    replica.control(foreign_range=False)

    # stale time
    replica.control(stale_time_s=600)
    checks.rejects("stale_time_s=600: refused for time", "time",
                   lambda: verify_certificate(certificate(), root, now(), canister))
    facts = verify_certificate(certificate(), root, now(), canister, max_age_s=None)
    checks.ok("stale_time_s=600: /time is 10 minutes old", 590e9 < now() - facts["time"] < 610e9)
    replica.control(stale_time_s=0, stale_delegation_s=8 * 86400)
    checks.rejects("stale_delegation_s: delegation older than allowed", "time",
                   lambda: verify_certificate(certificate(), root, now(), canister, delegation_max_age_s=7 * 86400))
    facts = verify_certificate(certificate(), root, now(), canister, delegation_max_age_s=None)
    checks.ok("stale_delegation_s: only the delegation is old",
              abs(now() - facts["time"]) < 5e9 and now() - facts["delegation"]["time"] > 7 * 86400e9)
    replica.control(stale_delegation_s=0)

    # nested delegation: a chain that is valid except for its depth
    replica.control(nested_delegation=True)
    checks.rejects("nested_delegation: refused", "nested_delegation",
                   lambda: verify_certificate(certificate(), root, now(), canister))
    verify_certificate(certificate(), root, now(), canister, allow_nested=True)
    checks.ok("nested_delegation: every signature in the chain is valid", True)
    replica.control(nested_delegation=False)

    # node signatures
    replica.control(bad_node_signature="always")
    response, rid = query()
    reads = replica.state()["stats"].get("node_key_reads", 0)
    checks.rejects("bad_node_signature=always: refused with cached keys", "node_signature",
                   lambda: verify_query(response, rid, keys, now()))
    refreshed = fresh_keys()
    checks.rejects("bad_node_signature=always: refused after a refresh", "node_signature",
                   lambda: verify_query(response, rid, refreshed, now()))
    checks.ok("node key reads are counted", replica.state()["stats"]["node_key_reads"] == reads + 1)
    replica.control(bad_node_signature="unknown_node")
    response, rid = query()
    checks.rejects("bad_node_signature=unknown_node: refused after a refresh", "unknown_node",
                   lambda: verify_query(response, rid, fresh_keys(), now()))
    replica.control(bad_node_signature="until_refresh")
    response, rid = query()
    checks.rejects("bad_node_signature=until_refresh: refused with cached keys", "unknown_node",
                   lambda: verify_query(response, rid, keys, now()))
    refreshed = fresh_keys()
    try:
        verify_query(response, rid, refreshed, now())
        verify_query(*query(), refreshed, now())
        checks.ok("bad_node_signature=until_refresh: fixed after one refresh", True)
    except Rejected as rejection:
        checks.ok("bad_node_signature=until_refresh: fixed after one refresh", False, str(rejection))
    checks.ok("until_refresh returns to off", replica.state()["config"]["bad_node_signature"] == "off")
    replica.control(bad_node_signature="missing")
    response, rid = query()
    checks.rejects("bad_node_signature=missing: empty signatures refused", "missing_signature",
                   lambda: verify_query(response, rid, keys, now()))
    replica.control(bad_node_signature="off")
    before = fresh_keys()
    view = replica.control(action="rotate_node_keys")
    response, rid = query()
    checks.rejects("rotate_node_keys: cached keys no longer match", "unknown_node",
                   lambda: verify_query(response, rid, before, now()))
    after = fresh_keys()
    verify_query(response, rid, after, now())
    checks.ok("rotate_node_keys: new keys after a refresh, reported by control",
              sorted(text_of(k) for k in after) == sorted(view["node_ids"]) and not set(after) & set(before))
    replica.control(stale_query_timestamp_s=900)
    response, rid = query()
    checks.rejects("stale_query_timestamp_s: old signature timestamp refused", "time",
                   lambda: verify_query(response, rid, after, now()))
    verify_query(response, rid, after, now(), max_age_s=None)
    checks.ok("stale_query_timestamp_s: the signature itself is valid", True)
    replica.control(stale_query_timestamp_s=0)

    # polling
    replica.control(call_polls=2)
    body, rid = envelope(ed, call_content(ed, canister, "greet_update", candid_arg_text("poll")))
    status, data = replica.post(f"/api/v4/canister/{text_of(canister)}/call", body)
    checks.ok("call_polls=2: v4 answers 202", status == 202 and data == b"")
    seen = []
    for _ in range(3):
        tree = verify_certificate(replica.certificate(ed, [[b"request_status", rid]]), root, now(), canister)["tree"]
        seen.append(lookup([b"request_status", rid, b"status"], tree)[1].decode())
    checks.ok("call_polls=2: received, processing, replied", seen == ["received", "processing", "replied"], seen)
    body, rid = envelope(ed, call_content(ed, canister, "fail", b"DIDL\x00\x00"))
    status, _ = replica.post(f"/api/v2/canister/{text_of(canister)}/call", body)
    for _ in range(3):
        tree = verify_certificate(replica.certificate(ed, [[b"request_status", rid]], 2), root, now(), canister,
                                  layout="old")["tree"]
    checks.ok("call_polls=2: v2 polled reject ends certified",
              lookup([b"request_status", rid, b"status"], tree) == ("found", b"rejected"))
    replica.control(call_polls=0)

    # endpoints switched off
    replica.control(disabled_endpoints=["call_v4"])
    body, rid = envelope(ed, call_content(ed, canister, "counter", b"DIDL\x00\x00"))
    status, _ = replica.post(f"/api/v4/canister/{text_of(canister)}/call", body)
    status3, data = replica.post(f"/api/v3/canister/{text_of(canister)}/call", body)
    checks.ok("disabled_endpoints=[call_v4]: 404, then v3 works", status == 404 and status3 == 200)
    replica.control(disabled_endpoints=[])

    # ranges layout override
    replica.control(ranges_layout="both")
    facts = verify_certificate(certificate(3), root, now(), canister)
    checks.ok("ranges_layout=both: both layouts revealed",
              facts["delegation"]["old_ranges"] and facts["delegation"]["sharded_ranges"])
    replica.control(ranges_layout="old")
    facts = verify_certificate(certificate(3), root, now(), canister, layout="old")
    checks.ok("ranges_layout=old on v3", facts["delegation"]["sharded_ranges"] is None)
    replica.control(ranges_layout="auto")

    # clock skew: the 400 text reveals the replica time, a corrected expiry then works
    replica.control(clock_skew_s=900)
    content = query_content(ed, canister, "greet", candid_arg_text("skew"))
    status, text = replica.post(f"/api/v3/canister/{text_of(canister)}/query", envelope(ed, content)[0])
    match = re.search(rb"Local replica time: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(\.\d+)? UTC", text)
    skew = None
    if status == 400 and match:
        replica_time = time.mktime(time.strptime(match.group(1).decode(), "%Y-%m-%d %H:%M:%S")) - time.timezone
        skew = replica_time - time.time()
    checks.ok("clock_skew_s=900: 400 names the replica time", skew is not None and 890 < skew < 910, text[:200])
    content = query_content(ed, canister, "greet", candid_arg_text("skew"), ingress_expiry=expiry(180, 900))
    status, data = replica.post(f"/api/v3/canister/{text_of(canister)}/query", envelope(ed, content)[0])
    checks.ok("clock_skew_s=900: corrected expiry accepted", status == 200)
    replica.control(clock_skew_s=0)

    # anonymous expiry exemption
    replica.control(anonymous_expiry_exempt=True)
    content = query_content(anonymous, canister, "greet", candid_arg_text("x"), ingress_expiry=1)
    status_anonymous, _ = replica.post(f"/api/v3/canister/{text_of(canister)}/query",
                                       envelope(anonymous, content)[0])
    content = query_content(ed, canister, "greet", candid_arg_text("x"), ingress_expiry=1)
    status_signed, _ = replica.post(f"/api/v3/canister/{text_of(canister)}/query", envelope(ed, content)[0])
    checks.ok("anonymous_expiry_exempt: anonymous accepted, signed refused",
              status_anonymous == 200 and status_signed == 400)
    replica.control(anonymous_expiry_exempt=False, check_expiry=False)
    content = query_content(ed, canister, "greet", candid_arg_text("x"), ingress_expiry=1)
    status_signed, _ = replica.post(f"/api/v3/canister/{text_of(canister)}/query", envelope(ed, content)[0])
    checks.ok("check_expiry=false: any expiry accepted", status_signed == 200)
    replica.control(check_expiry=True)

    # oversized and slow responses
    replica.control(oversize_mib=2)
    status, data, response = replica.request("POST", f"/api/v3/canister/{text_of(canister)}/read_state", b"")
    checks.ok("oversize_mib=2: body over 2 MiB with Content-Length",
              len(data) > 2 * 1024 * 1024 and response.getheader("Content-Length") == str(len(data)))
    replica.control(oversize_chunked=True)
    status, data, response = replica.request("GET", "/api/v2/status")
    checks.ok("oversize_chunked: chunked body over 2 MiB",
              len(data) > 2 * 1024 * 1024 and response.getheader("Transfer-Encoding") == "chunked")
    replica.control(oversize_mib=0, oversize_chunked=False)
    replica.control(delay_ms=300)
    started = time.monotonic()
    replica.request("GET", "/api/v2/status")
    checks.ok("delay_ms=300: response delayed", time.monotonic() - started >= 0.3)
    replica.control(delay_ms=0)

    # control API errors and reset
    status, data, _ = replica.request("POST", "/_control", b'{"no_such_switch": 1}')
    checks.ok("control: unknown switch is 400", status == 400 and b"unknown switch" in data)
    status, data, _ = replica.request("POST", "/_control", b'{"bad_bls": "maybe"}')
    checks.ok("control: bad value is 400", status == 400)
    view = replica.control(foreign_range=True, action="reset_config")
    checks.ok("control: set with reset_config applies after the reset", view["config"]["foreign_range"] is True)
    view = replica.control(action="reset_config")
    checks.ok("control: reset_config restores startup switches", view["config"]["foreign_range"] is False)
    view = replica.control(action="reset_stats")
    checks.ok("control: reset_stats", view["stats"] == {})
    view = replica.control(action="reset_state")
    checks.ok("control: reset_state forgets requests and the counter", view["counter"] == 0 and view["requests"] == 0)


def candid_field_id(name):
    value = 0
    for byte in name.encode():
        value = (value * 223 + byte) & 0xFFFFFFFF
    return value


def candid_canister_id_arg(principal):
    """(record { canister_id = principal ... }), written by hand here."""
    return (b"DIDL\x01\x6c\x01" + leb_unsigned(candid_field_id("canister_id")) + b"\x68\x01\x00\x01"
            + leb_unsigned(len(principal)) + principal)


def check_surface(checks, replica, keys):
    """Management-canister queries, delegation targets as the spec checks them, subnet endpoints, scripted faults
    and the counts of distinct requests."""
    ed, session, anonymous = Ed25519Identity(), Ed25519Identity(), Anonymous()
    canister, subnet, root, info = replica.canister, replica.subnet, replica.root_der, replica.info
    now = time.time_ns
    other = blob_of(info["canister_ranges"][1][1])
    replica.control(action="reset_config")
    replica.control(action="reset_stats")
    replica.control(controllers=[text_of(ed.principal)])
    # The switch checks rotate node keys: read the current ones.
    keys = node_keys(verify_certificate(replica.certificate(anonymous, [[b"subnet"]], 3), root, now(), canister))
    checks.ok("controllers can be set", replica.state()["controllers"] == [text_of(ed.principal)])

    def post_query(identity, target, method, arg, ecid):
        body, rid = envelope(identity, query_content(identity, target, method, arg))
        status, data = replica.post(f"/api/v3/canister/{text_of(ecid)}/query", body)
        return status, (decode_tagged(data, "query") if status == 200 else data), rid

    # a session scoped to the canister (the "bucket") may ask aaaaa-aa about it: the target is the argument's canister
    scoped = DelegatedIdentity(ed, [session], [(expiry(3600), [canister], None)])
    status, response, rid = post_query(scoped, b"", "canister_metrics", candid_canister_id_arg(canister), canister)
    checks.ok("aaaaa-aa canister_metrics with a session scoped to the canister: replied",
              status == 200 and response.get("status") == "replied", str(response)[:200])
    try:
        verify_query(response, rid, keys, now())
        checks.ok("aaaaa-aa canister_metrics: node signature verifies", True)
    except Rejected as rejection:
        checks.ok("aaaaa-aa canister_metrics: node signature verifies", False, str(rejection))
    status, response, _ = post_query(scoped, b"", "canister_status", candid_canister_id_arg(canister), canister)
    checks.ok("aaaaa-aa canister_status: replied", status == 200 and response.get("status") == "replied")
    status, text, _ = post_query(scoped, b"", "canister_metrics", candid_canister_id_arg(canister), other)
    checks.ok("management query routed to another effective id than its canister_id: 400", status == 400)
    elsewhere = DelegatedIdentity(ed, [session], [(expiry(3600), [other], None)])
    status, text, _ = post_query(elsewhere, b"", "canister_metrics", candid_canister_id_arg(canister), canister)
    checks.ok("management query about a canister outside the targets: 400",
              status == 400 and b"delegation targets" in text, text[:200])
    management_only = DelegatedIdentity(ed, [session], [(expiry(3600), [b""], None)])
    status, text, _ = post_query(management_only, b"", "canister_metrics", candid_canister_id_arg(canister), canister)
    checks.ok("a session scoped to aaaaa-aa alone may not ask about the canister: 400", status == 400)
    status, response, _ = post_query(Ed25519Identity(), b"", "canister_metrics", candid_canister_id_arg(canister), canister)
    checks.ok("canister_metrics from a non-controller: reject", status == 200 and response.get("status") == "rejected")
    body, _ = envelope(scoped, call_content(scoped, b"", "canister_status", candid_canister_id_arg(canister)))
    status, text = replica.post(f"/api/v4/canister/{text_of(canister)}/call", body)
    checks.ok("a call to aaaaa-aa is checked against aaaaa-aa (refused for the scoped session)", status == 400)
    # read_state: only request_status paths are checked against the targets
    status, _ = replica.read_state(elsewhere, [[b"time"]])
    checks.ok("read_state /time with a session scoped elsewhere: 200 (no target check)", status == 200)
    body, rid = envelope(scoped, call_content(scoped, canister, "greet_update", candid_arg_text("t")))
    status, _ = replica.post(f"/api/v4/canister/{text_of(canister)}/call", body)
    checks.ok("call within the session's targets: 200", status == 200)
    other_session = DelegatedIdentity(ed, [session], [(expiry(3600), [other], None)])
    status, _ = replica.read_state(other_session, [[b"request_status", rid]])
    checks.ok("request_status of a call to a canister outside the targets: 400", status == 400)
    status, _ = replica.read_state(scoped, [[b"request_status", rid]])
    checks.ok("request_status within the targets: 200", status == 200)

    # subnet endpoints
    body, rid = envelope(anonymous, query_content(anonymous, b"", "list_canisters", b"DIDL\x00\x00"))
    status, data = replica.post(f"/api/v3/subnet/{text_of(subnet)}/query", body)
    response = decode_tagged(data, "subnet query") if status == 200 else {}
    checks.ok("subnet query list_canisters: replied", status == 200 and response.get("status") == "replied")
    subnet_facts = verify_certificate(replica.certificate(anonymous, [[b"subnet"]], 3, subnet=True), root, now(),
                                      subnet=subnet)
    try:
        verify_query(response, rid, node_keys(subnet_facts), now())
        checks.ok("subnet query: signed by a node of that subnet", True)
    except Rejected as rejection:
        checks.ok("subnet query: signed by a node of that subnet", False, str(rejection))
    body, _ = envelope(anonymous, query_content(anonymous, canister, "greet", candid_arg_text("x")))
    status, _ = replica.post(f"/api/v3/subnet/{text_of(subnet)}/query", body)
    checks.ok("subnet query of a canister method: 400", status == 400)
    create = b"DIDL\x00\x00"
    body, rid = envelope(ed, call_content(ed, b"", "provisional_create_canister_with_cycles", create))
    status, data = replica.post(f"/api/v4/subnet/{text_of(subnet)}/call", body)
    checks.ok("subnet call v4 create: 200", status == 200, data[:200])
    if status == 200:
        facts = verify_certificate(decode_tagged(data, "c")["certificate"], root, now(), subnet=subnet)
        reply = lookup([b"request_status", rid, b"reply"], facts["tree"])
        checks.ok("subnet call: certified reply record {canister_id}", reply[0] == "found"
                  and leb_unsigned(candid_field_id("canister_id")) in reply[1])
    status, _ = replica.read_state(ed, [[b"request_status", rid]], subnet=True)
    checks.ok("status of a subnet call read at the subnet: 200", status == 200)
    status, _ = replica.read_state(ed, [[b"request_status", rid]])
    checks.ok("status of a subnet call read at a canister: 403", status == 403)
    body, _ = envelope(ed, call_content(ed, canister, "counter", b"DIDL\x00\x00"))
    status, _ = replica.post(f"/api/v4/subnet/{text_of(subnet)}/call", body)
    checks.ok("subnet call of a canister method: 400", status == 400)
    impostor = info["root_subnet_id"]
    status, _ = replica.read_state(anonymous, [[b"time"]], 3, effective=blob_of(impostor), subnet=True)
    checks.ok("a read_state for another subnet: 400", status == 400)
    replica.control(any_subnet_id=True)
    data = replica.certificate(anonymous, [[b"time"]], 3, effective=blob_of(impostor), subnet=True)
    checks.rejects("any_subnet_id: another subnet's read answered with this subnet's certificate", "range",
                   lambda: verify_certificate(data, root, now(), subnet=blob_of(impostor)))
    replica.control(any_subnet_id=False)

    # scripted faults and counts
    replica.control(action="reset_stats")
    replica.control(faults=[{"endpoint": "query", "status": 503, "retry_after": 1}])
    body, _ = envelope(anonymous, query_content(anonymous, canister, "greet", candid_arg_text("f")))
    status, data, response = replica.request("POST", f"/api/v3/canister/{text_of(canister)}/query", body,
                                             {"Content-Type": "application/cbor"})
    checks.ok("fault 503 with Retry-After", status == 503 and response.getheader("Retry-After") == "1")
    status, _ = replica.post(f"/api/v3/canister/{text_of(canister)}/query", body)
    checks.ok("a fault is consumed: the next query is answered", status == 200)
    replica.control(faults=[{"endpoint": "read_state", "status": "reset"}])
    try:
        replica.read_state(anonymous, [[b"time"]])
        checks.ok("fault reset: the connection is reset", False, "answered")
    except (ConnectionError, http.client.HTTPException, OSError):
        checks.ok("fault reset: the connection is reset", True)
    before = replica.state()["counter"]
    replica.control(faults=[{"endpoint": "call", "status": 503, "accept": True}])
    body, rid = envelope(ed, call_content(ed, canister, "counter", b"DIDL\x00\x00"))
    status, _ = replica.post(f"/api/v4/canister/{text_of(canister)}/call", body)
    checks.ok("fault accept+503 on a call: 503, but the call ran", status == 503 and replica.state()["counter"] == before + 1)
    status, data = replica.post(f"/api/v4/canister/{text_of(canister)}/call", body)
    checks.ok("the same envelope again: its certified reply, the update not run twice",
              status == 200 and replica.state()["counter"] == before + 1)
    distinct = replica.state()["distinct"]
    checks.ok("distinct counts: one call request id, signatures counted",
              distinct["call_request_ids"] == [rid.hex()] and distinct["signatures"] >= 1, str(distinct))
    try:
        replica.control(faults=[{"endpoint": "nowhere", "status": 503}])
        checks.ok("a fault for an unknown endpoint is refused", False)
    except AssertionError:
        checks.ok("a fault for an unknown endpoint is refused", True)
    replica.control(action="reset_config")
    checks.ok("reset_config clears faults and controllers", replica.state()["faults"] == []
              and replica.state()["controllers"] == ["2vxsx-fae"])


def check_icpy_interop(checks, replica):
    """Requests built and signed by ic-py (a third-party agent: untagged CBOR, null signature fields for anonymous)
    are accepted. ic-py's own query path cannot read tagged responses with cbor2 6 (it wants a plain dict), so its
    queries are posted here; updates go through ic-py end to end (v2 call + read_state polling)."""
    from ic.agent import Agent, sign_request
    from ic.candid import Types, encode
    from ic.client import Client
    from ic.identity import Identity

    canister = replica.info["canister_id"]
    replica.control(require_self_describe_tag=False)
    try:
        for name, identity in (("Ed25519", Identity()), ("anonymous", Identity(anonymous=True))):
            request = {"request_type": "query", "sender": identity.sender().bytes, "canister_id": replica.canister,
                       "method_name": "greet", "arg": encode([{"type": Types.Text, "value": name}]),
                       "ingress_expiry": expiry()}
            rid, body = sign_request(request, identity)
            status, data = replica.post(f"/api/v2/canister/{canister}/query", body)
            response = cbor2.loads(data) if status == 200 else {}
            checks.ok(f"ic-py {name} query: accepted, same request id", status == 200 and rid == rih(request)
                      and candid_reply(response["reply"]["arg"]) == f"Hello, {name}!", data[:200])
            before = replica.state()["counter"]
            agent = Agent(identity, Client(url=replica.info["url"]))
            reply = agent.update_raw(canister, "counter", encode([]), delay=0.02, timeout=5)
            checks.ok(f"ic-py {name} update with polling", reply[0]["value"] == before + 1, str(reply))
    finally:
        replica.control(require_self_describe_tag=True)


def check_root_subnet_mode(checks, seed):
    config_path = os.path.join(tempfile.mkdtemp(prefix="ic_replica_selftest."), "canister.json")
    with open(config_path, "w") as file:
        json.dump({"methods": {"hello": {"kind": "query", "behavior": "fixed",
                                         "reply_hex": candid_arg_text("hi").hex()},
                               "greet_update": {"kind": "update", "behavior": "greet"},
                               "greet": {"kind": "query", "behavior": "greet"}},
                   "candid": "service : { hello : () -> (text) query }", "counter": 41}, file)
    replica = Running("--no-delegation", "--no-call-v4", "--nodes", "2", "--canister-config", config_path, seed=seed)
    try:
        body, rid = envelope(Anonymous(), query_content(Anonymous(), replica.canister, "hello", b"DIDL\x00\x00"))
        status, data = replica.post(f"/api/v3/canister/{text_of(replica.canister)}/query", body)
        tree = verify_certificate(replica.certificate(Anonymous(), [[b"canister", replica.canister, b"metadata",
                                                                     b"candid:service"]]),
                                  replica.root_der, time.time_ns(), replica.canister)["tree"]
        checks.ok("--canister-config: fixed reply, given candid:service, initial counter",
                  candid_reply(decode_tagged(data, "q")["reply"]["arg"]) == "hi"
                  and lookup([b"canister", replica.canister, b"metadata", b"candid:service"], tree)[1]
                  == b"service : { hello : () -> (text) query }" and replica.state()["counter"] == 41)
        anonymous, ed = Anonymous(), Ed25519Identity()
        root = replica.root_der
        checks.ok("--no-delegation: subnet is the root subnet (self-authenticating id of the root key)",
                  replica.subnet == hashlib.sha224(root).digest() + b"\x02"
                  and replica.info["subnet_id"] == replica.info["root_subnet_id"])
        facts = verify_certificate(replica.certificate(anonymous, [[b"subnet"]]), root, time.time_ns(),
                                   replica.canister)
        checks.ok("--no-delegation: certificate without delegation", facts["delegation"] is None)
        ranges = lookup([b"subnet", replica.subnet, b"canister_ranges"], facts["tree"])
        checks.ok("--no-delegation: v3 reveals the root subnet's canister ranges", ranges[0] == "found"
                  and ranges_contain(decode_ranges(ranges[1]), replica.canister))
        checks.ok("--nodes 2", len(node_keys(facts)) == 2)
        body, rid = envelope(ed, call_content(ed, replica.canister, "greet_update", candid_arg_text("root")))
        status4, _ = replica.post(f"/api/v4/canister/{text_of(replica.canister)}/call", body)
        status3, data = replica.post(f"/api/v3/canister/{text_of(replica.canister)}/call", body)
        tree = verify_certificate(decode_tagged(data, "c")["certificate"], root, time.time_ns(),
                                  replica.canister)["tree"]
        checks.ok("--no-call-v4: 404, v3 call certified by the root key", status4 == 404 and status3 == 200
                  and candid_reply(lookup([b"request_status", rid, b"reply"], tree)[1]) == "Hello, root!")
        body, rid = envelope(anonymous, query_content(anonymous, replica.canister, "greet", candid_arg_text("r")))
        status, data = replica.post(f"/api/v3/canister/{text_of(replica.canister)}/query", body)
        verify_query(decode_tagged(data, "q"), rid, node_keys(facts), time.time_ns())
        checks.ok("--no-delegation: verified query", True)
        replica.process.terminate()
        checks.ok("SIGTERM stops the replica", replica.process.wait(timeout=10) == 0)
    finally:
        if replica.process.poll() is None:
            replica.close()
        shutil.rmtree(os.path.dirname(config_path), ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", default=os.urandom(16).hex())
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    print(f"ic_replica_selftest: seed {arguments.seed}")
    checks = Checks(arguments.verbose)
    started = time.monotonic()
    sys.path.insert(0, HERE)
    import ic_replica

    def section(name, function, *args):
        """Runs a group of checks; an unexpected exception fails the group and the run goes on."""
        try:
            return function(*args)
        except Exception as error:  # report and continue with the next group
            checks.ok(f"{name} ran to the end", False, f"{type(error).__name__}: {error}")

    section("vectors", check_vectors, checks, ic_replica)
    first = ic_replica.Replica(bytes.fromhex(arguments.seed), True, 2, {}, {
        k: v[1] for k, v in ic_replica.SWITCHES.items()})
    replica = Running(seed=arguments.seed)
    try:
        checks.ok("--seed makes keys deterministic", replica.root_der == first.root_key.der)
        keys = section("endpoints", check_endpoints, checks, replica)
        section("ic-py interoperability", check_icpy_interop, checks, replica)
        if keys:
            section("switches", check_switches, checks, replica, keys)
            section("client surface", check_surface, checks, replica, keys)
        else:
            checks.ok("switches ran", False, "skipped: the endpoint checks did not return node keys")
    finally:
        checks.ok("closing stdin stops the replica", replica.close() == 0)
    section("root subnet mode", check_root_subnet_mode, checks, arguments.seed)
    elapsed = time.monotonic() - started
    print(f"ic_replica_selftest: {checks.passed} passed, {len(checks.failed)} failed in {elapsed:.1f} s "
          f"(seed {arguments.seed})")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
