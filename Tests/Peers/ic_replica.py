#!/usr/bin/env python3
"""Loopback fake Internet Computer replica for omni's end-to-end tests.

The signing side is independent of omni: BLS12-381 with pyblst, Ed25519/ECDSA with cryptography, CBOR with cbor2.
Byte-level reference: ../shared/reference/ic-spec.md (HTTPS interface, certification, state tree, verified queries).

Start:  python3 ic_replica.py [flags]          (flags: --help; every switch below is also a flag)
Stdout: ONE JSON line, then nothing:
  {"url", "root_key" (133-byte DER hex), "subnet_id", "canister_id", "effective_canister_id", "node_ids",
   "control", "root_subnet_id", "subnet_public_key", "canister_ranges", "delegation", "seed", "pid"}
Lives until stdin reaches EOF or SIGTERM (--no-stdin-watch: SIGTERM only).

Endpoints:
  GET  /api/v2/status                              CBOR {ic_api_version, impl_version, root_key,
                                                   replica_health_status, certified_height}
  POST /api/v2|v3/canister/<ecid>/query            verified-query responses with node signatures
  POST /api/v4|v3/canister/<ecid>/call             synchronous: 200 {status: "replied", certificate} or
                                                   {status: "non_replicated_rejection", ...};
                                                   202 while polls are pending
  POST /api/v2/canister/<ecid>/call                202, or 200 + CBOR reject for non-replicated rejections
  POST /api/v2|v3/canister/<ecid>/read_state       {certificate}
  POST /api/v2|v3/subnet/<esid>/read_state         {certificate}
  POST /api/v3/subnet/<esid>/query                 aaaaa-aa list_canisters only: vec record {start; end} (the subnet's
                                                   ranges), node-signed; no subnet-admin check
  POST /api/v4/subnet/<esid>/call                  aaaaa-aa create_canister / provisional_create_canister_with_cycles
                                                   only: record {canister_id} (a fresh id in the subnet's first range)
  GET  /_control                                   JSON {config, stats, node_ids, counter, requests, distinct, faults,
                                                   controllers}
  POST /_control                                   JSON object of switches to set, plus optional "action":
                                                   "rotate_node_keys" | "reset_config" | "reset_stats" | "reset_state",
                                                   "faults": [...] (see below), "controllers": [principal text...]

Management canister (aaaaa-aa) queries on /api/v2|v3/canister/<ecid>/query: canister_status and canister_metrics
with a record {canister_id} argument naming the canister (which must be <ecid>), for its controllers only; answered
with small records (status, cycles / metrics counters). Other management methods reject with 3.

Delegation targets are checked as the interface spec's abstract behaviour does: calls against canister_id,
queries against canister_id except management queries about a canister (against that canister_id), read_state
only for request_status paths (against the canister_id of the call whose status is read).

Scripted faults ("faults" in POST /_control, consumed in order, each by the next matching request):
  {"endpoint": "call"|"query"|"read_state"|"status"|"subnet_call"|..., a prefix of the endpoint names below,
   "status": 429|500|502|503|504 or "reset" (close the connection with a TCP RST, no answer),
   "times": n (default 1), "retry_after": seconds or an HTTP date (sent as Retry-After),
   "accept": true (calls: accept and record the call as usual, then answer with the fault)}
Counts (GET /_control "distinct"): distinct request ids per request type and distinct sender signatures, and the
call request ids in order of arrival ("call_request_ids"), so tests can prove a retry was the same request.

Switches (config keys; CLI flag = --key-with-dashes):
  ranges_layout            auto|old|sharded|both: canister ranges revealed in the delegation certificate.
                           auto = like the IC: /subnet/<sid>/canister_ranges for v2 read_state and v3 call, sharded
                           /canister_ranges/<sid>/<shard> for v3 read_state (canister and subnet) and v4 call
  bad_bls                  off|certificate|delegation: sign that certificate over a wrong root hash
  foreign_range            the subnet's published ranges (delegation and own tree) exclude the canister
  stale_time_s             certificate /time = replica time - this many seconds
  stale_delegation_s       delegation certificate /time = replica time - this many seconds
  stale_query_timestamp_s  node-signature timestamps = replica time - this many seconds
  nested_delegation        the delegation certificate itself carries a (valid) delegation from an intermediate subnet
  bad_node_signature       off | always (published node, signature over a wrong timestamp) | unknown_node (valid
                           signature by a node never published) | until_refresh (signed by a new node that becomes
                           published - replacing the first node - at the next read_state revealing node keys; then
                           the switch returns to off) | missing (empty signatures list)
  oversize_mib             every /api response becomes a CBOR body of this many MiB (0 = off)
  oversize_chunked         send that oversized body with chunked transfer encoding instead of Content-Length
  delay_ms                 sleep before every /api response
  call_polls               calls answer 202 and the request stays received/processing for this many polls
  clock_skew_s             replica clock = local clock + this many seconds (time, expiry window, signatures)
  disabled_endpoints       list of call_v2|call_v3|call_v4|query_v2|query_v3|read_state_v2|read_state_v3|
                           subnet_read_state_v2|subnet_read_state_v3|status: answered with 404 (--no-call-v4 = call_v4)
  check_expiry             validate ingress_expiry (default on)
  require_self_describe_tag  refuse request bodies without the CBOR tag 55799 (default on; the IC itself is lenient)
  anonymous_expiry_exempt  accept any ingress_expiry on anonymous query/read_state (the spec allows it)
  lying_expiry_refusal     off|accept|refuse: a hostile boundary node on the call endpoints. accept = the call is
                           accepted and executed as usual, then answered with a false 400 "ingress_expiry not within
                           expected range"; refuse = the same false 400, the call dropped. Its "Minimum allowed
                           expiry" (the replica time clients read skew from) is replica time + lying_expiry_hint_s
  lying_expiry_hint_s      the skew the false refusal claims, in seconds (may be negative or days)
  any_subnet_id            subnet endpoints answer for any effective subnet id, with this subnet's certificates and
                           node signatures (a boundary node routing to the wrong subnet)
Stats worth knowing (GET /_control "stats"): per-endpoint counts, polls, errors, node_key_reads,
  signed_node_key_reads (reads revealing node keys whose sender is not anonymous), far_future_expiries (requests whose
  ingress_expiry lies beyond the accepted window, as a client tricked into signing ahead would send),
  lying_refusals.
Startup-only flags: --no-delegation (certificates signed by the root key; subnet = root subnet), --nodes N,
  --seed HEX (deterministic keys), --canister-config FILE (JSON canister model), --port, --verbose.

Canister model (default, or --canister-config {"methods": {name: {kind, behavior, ...}}, "candid": "...",
"controllers": [text...], "counter": n}); behaviors: greet (text) -> "Hello, <name>!", counter_inc () -> nat,
counter_get () -> nat, echo (reply = arg bytes), fixed (reply_hex), big (blob of `size` bytes), reject (reject_code,
reject_message, error_code; certified for calls), done (completes without reply), inspect_reject (non-replicated
rejection for calls, rejected query; optional reject_message). Unknown methods reject with code 3 / IC0536, unknown
canisters with 3 / IC0301. The default model's `hostile_reject` (update), `hostile_reject_query` and
`hostile_guarded` reject with terminal control sequences (OSC title, clear screen, colour, C1 CSI, CR) in the message.
"""
import argparse
import base64
import bisect
import collections.abc
import copy
import datetime
import hashlib
import io
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cbor2
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from pyblst import BlstP1Element, BlstP2Element

# ---------------------------------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------------------------------

SELF_DESCRIBE_TAG = b"\xd9\xd9\xf7"
BLS_DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
BLS_ORDER = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
G2_GENERATOR = BlstP2Element.uncompress(bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"))
BLS_DER_PREFIX = bytes.fromhex("308182301d060d2b0601040182dc7c0503010201060c2b0601040182dc7c05030201036100")
ED25519_DER_PREFIX = bytes.fromhex("302a300506032b6570032100")
SECP256K1_DER_PREFIX = bytes.fromhex("3056301006072a8648ce3d020106052b8104000a034200")
P256_DER_PREFIX = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200")

DS_STATE_ROOT = b"\x0dic-state-root"
DS_REQUEST = b"\x0aic-request"
DS_DELEGATION = b"\x1aic-request-auth-delegation"
DS_RESPONSE = b"\x0bic-response"

ANONYMOUS = b"\x04"
MAX_INGRESS_TTL_NS = 5 * 60 * 10**9
PERMITTED_DRIFT_NS = 30 * 10**9
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_PATHS = 1000
MAX_PATH_LABELS = 127
MAX_DELEGATIONS = 20
MAX_TARGETS = 1000
MAX_NONCE = 32

# Canister ids (10-byte opaque-class ids, like mainnet ones): two ranges, the canister sits in the second shard so a
# client has to pick the right shard; the foreign ranges lie above it.
RANGES = [(bytes.fromhex("00000000001000000101"), bytes.fromhex("00000000001fffff0101")),
          (bytes.fromhex("00000000002000000101"), bytes.fromhex("00000000002fffff0101"))]
FOREIGN_RANGES = [(bytes.fromhex("00000000003000000101"), bytes.fromhex("00000000003fffff0101")),
                  (bytes.fromhex("00000000004000000101"), bytes.fromhex("00000000004fffff0101"))]
CANISTER_ID = bytes.fromhex("00000000002000050101")


# ---------------------------------------------------------------------------------------------------------------
# Encodings
# ---------------------------------------------------------------------------------------------------------------

def uleb128(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def sleb128(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40):
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def read_uleb128(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("LEB128 runs past the end")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos
        if shift > 70:
            raise ValueError("LEB128 too long")


def read_sleb128(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("LEB128 runs past the end")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            if byte & 0x40:
                result -= 1 << shift
            return result, pos
        if shift > 70:
            raise ValueError("LEB128 too long")


def principal_to_text(blob):
    checksum = zlib.crc32(blob).to_bytes(4, "big")
    text = base64.b32encode(checksum + blob).decode().lower().rstrip("=")
    return "-".join(text[i:i + 5] for i in range(0, len(text), 5))


def principal_from_text(text):
    """Bytes of a textual principal; ValueError when malformed (checksum, grouping, length)."""
    compact = text.replace("-", "").upper()
    if not compact or not re.fullmatch(r"[A-Z2-7]+", compact):
        raise ValueError(f"not a principal: {text!r}")
    raw = base64.b32decode(compact + "=" * (-len(compact) % 8))
    if len(raw) < 4 or len(raw) > 33:
        raise ValueError(f"principal {text!r} has a bad length")
    blob = raw[4:]
    if zlib.crc32(blob).to_bytes(4, "big") != raw[:4] or principal_to_text(blob) != text.lower():
        raise ValueError(f"principal {text!r} has a bad checksum or grouping")
    return blob


def self_authenticating(der):
    return hashlib.sha224(der).digest() + b"\x02"


def cbor_tagged(value):
    return cbor2.dumps(cbor2.CBORTag(55799, value))


def format_ic_time(ns):
    """Like the replica's Time display: '2025-05-01 23:55:18.005285297 UTC' (no fraction when it is zero)."""
    seconds, nanos = divmod(ns, 10**9)
    stamp = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return f"{stamp}.{nanos:09d} UTC" if nanos else f"{stamp} UTC"


# ---------------------------------------------------------------------------------------------------------------
# Representation-independent hash (request ids, delegations, query responses)
# ---------------------------------------------------------------------------------------------------------------

def sha256(data):
    return hashlib.sha256(data).digest()


def hash_value(value):
    if isinstance(value, (bytes, bytearray)):
        return sha256(bytes(value))
    if isinstance(value, str):
        return sha256(value.encode())
    if isinstance(value, bool):
        raise ValueError("booleans have no representation-independent hash")
    if isinstance(value, int):
        return sha256(uleb128(value) if value >= 0 else sleb128(value))
    if isinstance(value, (list, tuple)):
        return sha256(b"".join(hash_value(v) for v in value))
    if isinstance(value, collections.abc.Mapping):
        return hash_of_map(value)
    raise ValueError(f"cannot hash a {type(value).__name__}")


def hash_of_map(mapping):
    parts = []
    for key, value in mapping.items():
        if not isinstance(key, str):
            raise ValueError("map keys must be text")
        parts.append(sha256(key.encode()) + hash_value(value))
    return sha256(b"".join(sorted(parts)))


def request_id(content):
    return hash_of_map(content)


# ---------------------------------------------------------------------------------------------------------------
# Hash trees. A state tree is a dict {label bytes: subtree} or a bytes leaf; an empty dict is Empty. Witnesses are
# the CBOR array form: [0] Empty, [1, l, r] Fork, [2, label, t] Labeled, [3, v] Leaf, [4, h] Pruned.
# ---------------------------------------------------------------------------------------------------------------

def _domain(tag):
    return bytes([len(tag)]) + tag


HASH_EMPTY = sha256(_domain(b"ic-hashtree-empty"))
DS_FORK = _domain(b"ic-hashtree-fork")
DS_LABELED = _domain(b"ic-hashtree-labeled")
DS_LEAF = _domain(b"ic-hashtree-leaf")


def digest(tree):
    """Root hash of a witness (the spec's reconstruct)."""
    kind = tree[0]
    if kind == 0:
        return HASH_EMPTY
    if kind == 1:
        return sha256(DS_FORK + digest(tree[1]) + digest(tree[2]))
    if kind == 2:
        return sha256(DS_LABELED + tree[1] + digest(tree[2]))
    if kind == 3:
        return sha256(DS_LEAF + tree[1])
    if kind == 4:
        return tree[1]
    raise ValueError(f"bad hash tree node kind {kind}")


def node_hash(node):
    if isinstance(node, bytes):
        return sha256(DS_LEAF + node)
    labels = sorted(node)
    if not labels:
        return HASH_EMPTY
    return _range_hash(node, labels, 0, len(labels))


def _range_hash(node, labels, lo, hi):
    if hi - lo == 1:
        return sha256(DS_LABELED + labels[lo] + node_hash(node[labels[lo]]))
    mid = (lo + hi) // 2
    return sha256(DS_FORK + _range_hash(node, labels, lo, mid) + _range_hash(node, labels, mid, hi))


def witness(node, requests, excluded=()):
    """Pruned tree revealing every requested path (tuples of labels; () = everything below), proving absence of
    requested labels that do not exist by revealing their neighbours, and keeping `excluded` subtrees pruned."""
    if () in excluded:
        return [4, node_hash(node)]
    if isinstance(node, bytes):
        return [3, node]
    labels = sorted(node)
    if not labels:
        return [0]
    full = () in requests
    wanted = {}  # index -> list of sub-requests; [] = reveal the label only (absence proof neighbour)
    if full:
        wanted = {i: [()] for i in range(len(labels))}
    else:
        for path in requests:
            i = bisect.bisect_left(labels, path[0])
            if i < len(labels) and labels[i] == path[0]:
                wanted.setdefault(i, []).append(path[1:])
            else:
                for neighbour in (i - 1, i):
                    if 0 <= neighbour < len(labels):
                        wanted.setdefault(neighbour, [])

    def build(lo, hi):
        if not any(lo <= i < hi for i in wanted):
            return [4, _range_hash(node, labels, lo, hi)]
        if hi - lo == 1:
            label = labels[lo]
            sub_requests = wanted[lo]
            if sub_requests:
                sub_excluded = tuple(e[1:] for e in excluded if e and e[0] == label)
                return [2, label, witness(node[label], sub_requests, sub_excluded)]
            return [2, label, [4, node_hash(node[label])]]
        mid = (lo + hi) // 2
        return [1, build(lo, mid), build(mid, hi)]

    return build(0, len(labels))


# ---------------------------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------------------------

class KeySource:
    """Deterministic key material from a seed (fresh random seed by default)."""

    def __init__(self, seed):
        self.seed = seed
        self.counter = 0

    def take(self, purpose):
        self.counter += 1
        return sha256(self.seed + purpose.encode() + self.counter.to_bytes(8, "big"))


class BlsKey:
    def __init__(self, material):
        self.secret = int.from_bytes(material + sha256(material), "big") % (BLS_ORDER - 1) + 1
        self.public = G2_GENERATOR.scalar_mul(self.secret).compress()
        self.der = BLS_DER_PREFIX + self.public

    def sign(self, message):
        return BlstP1Element.hash_to_group(message, BLS_DST).scalar_mul(self.secret).compress()


class NodeKey:
    def __init__(self, material):
        self.private = Ed25519PrivateKey.from_private_bytes(material)
        raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.der = ED25519_DER_PREFIX + raw
        self.node_id = self_authenticating(self.der)

    def sign(self, message):
        return self.private.sign(message)


def verify_user_signature(der, message, signature):
    """Checks a sender or delegation signature; returns None or a reason."""
    try:
        if der.startswith(ED25519_DER_PREFIX) and len(der) == 44:
            Ed25519PublicKey.from_public_bytes(der[12:]).verify(signature, message)
            return None
        for prefix, curve in ((SECP256K1_DER_PREFIX, ec.SECP256K1()), (P256_DER_PREFIX, ec.SECP256R1())):
            if der.startswith(prefix) and len(der) == len(prefix) + 65:
                key = ec.EllipticCurvePublicKey.from_encoded_point(curve, der[len(prefix):])
                if len(signature) != 64:
                    return f"ECDSA signature must be 64 bytes (r||s), got {len(signature)}"
                r = int.from_bytes(signature[:32], "big")
                s = int.from_bytes(signature[32:], "big")
                key.verify(encode_dss_signature(r, s), message, ec.ECDSA(hashes.SHA256()))
                return None
    except InvalidSignature:
        return "signature verification failed"
    except ValueError as error:
        return f"malformed public key or signature: {error}"
    return f"unsupported public key (DER {der[:24].hex()}...): only Ed25519, ECDSA secp256k1 and P-256 are supported"


# ---------------------------------------------------------------------------------------------------------------
# Candid: just the few shapes the canister model speaks
# ---------------------------------------------------------------------------------------------------------------

CANDID_TEXT = 0x71  # SLEB128(-15)
CANDID_NAT = 0x7D  # SLEB128(-3)


def candid_text(value):
    data = value.encode()
    return b"DIDL\x00\x01" + bytes([CANDID_TEXT]) + uleb128(len(data)) + data


def candid_nat(value):
    return b"DIDL\x00\x01" + bytes([CANDID_NAT]) + uleb128(value)


def candid_blob(data):
    # type table: one entry, vec nat8; one argument of that type
    return b"DIDL\x01\x6d\x7b\x01\x00" + uleb128(len(data)) + data


CANDID_EMPTY = b"DIDL\x00\x00"


def candid_decode(data):
    """Decodes arguments of primitive types text/nat only; ValueError otherwise."""
    if not data.startswith(b"DIDL"):
        raise ValueError("argument does not start with DIDL")
    table_len, pos = read_uleb128(data, 4)
    if table_len:
        raise ValueError("type table entries are not supported by this fake canister")
    count, pos = read_uleb128(data, pos)
    if count > 16:
        raise ValueError("too many arguments")
    types = []
    for _ in range(count):
        type_code, pos = read_sleb128(data, pos)
        if type_code not in (-15, -3):
            raise ValueError(f"unsupported argument type {type_code}")
        types.append(type_code)
    values = []
    for type_code in types:
        if type_code == -15:
            length, pos = read_uleb128(data, pos)
            if pos + length > len(data):
                raise ValueError("text runs past the end")
            values.append(data[pos:pos + length].decode())
            pos += length
        else:
            value, pos = read_uleb128(data, pos)
            values.append(value)
    if pos != len(data):
        raise ValueError("trailing bytes after the arguments")
    return values


def idl_hash(name):
    """Candid field id of a name."""
    value = 0
    for byte in name.encode():
        value = (value * 223 + byte) % 2**32
    return value


def candid_record_of_nats(fields):
    """One argument: record {name: nat; ...} (fields in id order, as Candid requires)."""
    items = sorted((idl_hash(name), value) for name, value in fields.items())
    table = b"\x6c" + uleb128(len(items)) + b"".join(uleb128(key) + bytes([CANDID_NAT]) for key, _ in items)
    return b"DIDL\x01" + table + b"\x01\x00" + b"".join(uleb128(value) for _, value in items)


def candid_record_principal(name, principal):
    """One argument: record {name: principal}."""
    return (b"DIDL\x01\x6c\x01" + uleb128(idl_hash(name)) + b"\x68\x01\x00" + b"\x01" + uleb128(len(principal))
            + principal)


def candid_ranges(ranges):
    """One argument: vec record {start: principal; end: principal} (list_canisters)."""
    fields = sorted([(idl_hash("start"), 0), (idl_hash("end"), 1)])
    record = b"\x6c\x02" + b"".join(uleb128(key) + b"\x68" for key, _ in fields)
    table = b"DIDL\x02" + record + b"\x6d\x00" + b"\x01\x01"
    body = uleb128(len(ranges))
    for lo, hi in ranges:
        pair = {0: lo, 1: hi}
        for _, which in fields:
            body += b"\x01" + uleb128(len(pair[which])) + pair[which]
    return table + body


PRIMITIVE_SIZES = {0x7f: 0, 0x7e: 1, 0x7b: 1, 0x7a: 2, 0x79: 4, 0x78: 8, 0x77: 1, 0x76: 2, 0x75: 4, 0x74: 8}


def management_argument_canister(arg):
    """The canister_id principal of a management-canister argument `(record { canister_id = principal ...; ... })`
    whose other fields are nats, texts, principals or fixed-size numbers; None when the argument has no such field
    or is not of that shape."""
    try:
        if not arg.startswith(b"DIDL"):
            return None
        count, pos = read_uleb128(arg, 4)
        if count < 1 or count > 8:
            return None
        tables = []
        for _ in range(count):
            kind, pos = read_sleb128(arg, pos)
            if kind != -20:  # record
                return None
            fields_count, pos = read_uleb128(arg, pos)
            fields = []
            for _ in range(fields_count):
                key, pos = read_uleb128(arg, pos)
                field_type, pos = read_sleb128(arg, pos)
                fields.append((key, field_type))
            tables.append(fields)
        args, pos = read_uleb128(arg, pos)
        if args < 1:
            return None
        first, pos = read_sleb128(arg, pos)
        for _ in range(args - 1):
            _, pos = read_sleb128(arg, pos)
        if not 0 <= first < len(tables):
            return None
        wanted = idl_hash("canister_id")
        for key, field_type in tables[first]:
            code = field_type & 0x7F if field_type < 0 else None
            if field_type == -24:  # principal
                if arg[pos] != 1:
                    return None
                length, pos = read_uleb128(arg, pos + 1)
                value = arg[pos:pos + length]
                pos += length
                if key == wanted:
                    return value
            elif field_type in (-3, -4):  # nat, int
                _, pos = read_uleb128(arg, pos)
            elif field_type == -15:  # text
                length, pos = read_uleb128(arg, pos)
                pos += length
            elif code in PRIMITIVE_SIZES:
                pos += PRIMITIVE_SIZES[code]
            else:
                return None
        return None
    except (ValueError, IndexError):
        return None


MANAGEMENT_QUERIES = ("canister_status", "canister_metrics")


def delegation_target(content):
    """The canister a delegation's targets must include (interface spec, abstract behaviour): canister_id, except
    for management queries about a canister, checked against the canister_id in their argument."""
    canister_id = content["canister_id"]
    if canister_id == b"" and content["request_type"] == "query" and content["method_name"] in MANAGEMENT_QUERIES:
        return management_argument_canister(content["arg"])
    return canister_id


# ---------------------------------------------------------------------------------------------------------------
# Canister model
# ---------------------------------------------------------------------------------------------------------------

DEFAULT_METHODS = {
    "greet": {"kind": "query", "behavior": "greet", "candid": "(text) -> (text) query"},
    "greet_update": {"kind": "update", "behavior": "greet", "candid": "(text) -> (text)"},
    "counter": {"kind": "update", "behavior": "counter_inc", "candid": "() -> (nat)"},
    "get_counter": {"kind": "query", "behavior": "counter_get", "candid": "() -> (nat) query"},
    "echo": {"kind": "query", "behavior": "echo", "candid": "(text) -> (text) query"},
    "fail": {"kind": "update", "behavior": "reject", "reject_code": 4,
             "reject_message": "fail: rejected by the canister", "error_code": "IC0406", "candid": "() -> ()"},
    "fail_query": {"kind": "query", "behavior": "reject", "reject_code": 4,
                   "reject_message": "fail_query: rejected by the canister", "error_code": "IC0406",
                   "candid": "() -> () query"},
    "trap": {"kind": "update", "behavior": "reject", "reject_code": 5,
             "reject_message": "Canister {canister} trapped explicitly: boom", "error_code": "IC0503",
             "candid": "() -> ()"},
    "forget": {"kind": "update", "behavior": "done", "candid": "() -> ()"},
    "guarded": {"kind": "update", "behavior": "inspect_reject", "candid": "() -> ()"},
    "big": {"kind": "query", "behavior": "big", "size": 1024 * 1024, "candid": "() -> (blob) query"},
    "hostile_reject": {"kind": "update", "behavior": "reject", "reject_code": 4, "error_code": "IC0406",
                       "reject_message": None, "candid": "() -> ()"},
    "hostile_reject_query": {"kind": "query", "behavior": "reject", "reject_code": 4, "error_code": "IC0406",
                             "reject_message": None, "candid": "() -> () query"},
    "hostile_guarded": {"kind": "update", "behavior": "inspect_reject", "reject_message": None, "candid": "() -> ()"},
}
# What a hostile canister puts in a reject message to take over a terminal: retitle the window (OSC 0 ... BEL), clear
# the screen, colour the rest red, a C1 CSI, and a carriage return that would overwrite the line.
HOSTILE_REJECT_MESSAGE = "boom \x1b]0;owned\x07\x1b[2Jcleared \x1b[31mred\x1b[0m \x9b1m c1 \rforged"
for _name in ("hostile_reject", "hostile_reject_query", "hostile_guarded"):
    DEFAULT_METHODS[_name]["reject_message"] = HOSTILE_REJECT_MESSAGE
BEHAVIORS = {"greet", "counter_inc", "counter_get", "echo", "fixed", "big", "reject", "done", "inspect_reject"}


class Outcome:
    """Result of running a method: reply bytes, a reject, 'done' (no reply), or a non-replicated rejection."""

    def __init__(self, status, reply=None, reject_code=None, reject_message=None, error_code=None):
        self.status = status  # replied | rejected | done | non_replicated
        self.reply = reply
        self.reject_code = reject_code
        self.reject_message = reject_message
        self.error_code = error_code


class Canister:
    def __init__(self, canister_id, config):
        self.canister_id = canister_id
        self.text_id = principal_to_text(canister_id)
        methods = config.get("methods", DEFAULT_METHODS)
        for name, method in methods.items():
            if method.get("kind") not in ("query", "update") or method.get("behavior") not in BEHAVIORS:
                raise ValueError(f"canister config: method {name!r} needs kind query|update and a known behavior")
        self.methods = methods
        self.counter = int(config.get("counter", 0))
        self.candid = config.get("candid") or self._service_text()
        self.controllers = [principal_from_text(t) for t in config.get("controllers", ["2vxsx-fae"])]
        self.initial_controllers = list(self.controllers)
        self.module_hash = sha256(b"omni fake canister module")
        self.created_ns = time.time_ns()

    def _service_text(self):
        lines = [f"  {name} : {m['candid']};" for name, m in sorted(self.methods.items()) if m.get("candid")]
        return "service : {\n" + "\n".join(lines) + "\n}\n"

    def certified_data(self):
        return self.counter.to_bytes(8, "big")

    def run(self, method_name, arg, as_query):
        method = self.methods.get(method_name)
        kind = "query" if as_query else "update"
        if method is None or (as_query and method["kind"] != "query"):
            return Outcome("rejected", reject_code=3, error_code="IC0536",
                           reject_message=f"Error from Canister {self.text_id}: Canister has no {kind} method "
                                          f"'{method_name}'.")
        behavior = method["behavior"]
        try:
            if behavior == "greet":
                values = candid_decode(arg)
                if not values or not isinstance(values[0], str):
                    raise ValueError("greet expects (text)")
                return Outcome("replied", reply=candid_text(f"Hello, {values[0]}!"))
            if behavior == "counter_inc":
                candid_decode(arg)
                if not as_query:
                    self.counter += 1
                return Outcome("replied", reply=candid_nat(self.counter + (1 if as_query else 0)))
            if behavior == "counter_get":
                candid_decode(arg)
                return Outcome("replied", reply=candid_nat(self.counter))
            if behavior == "echo":
                return Outcome("replied", reply=arg)
            if behavior == "fixed":
                return Outcome("replied", reply=bytes.fromhex(method.get("reply_hex", CANDID_EMPTY.hex())))
            if behavior == "big":
                return Outcome("replied", reply=candid_blob(bytes(int(method.get("size", 1024 * 1024)))))
            if behavior == "reject":
                message = method.get("reject_message", "rejected").replace("{canister}", self.text_id)
                return Outcome("rejected", reject_code=int(method.get("reject_code", 4)),
                               reject_message=message, error_code=method.get("error_code", "IC0406"))
            if behavior == "done":
                candid_decode(arg)
                return Outcome("done")
            if behavior == "inspect_reject":
                message = method.get("reject_message") or f"Error from Canister {self.text_id}: Canister rejected the message"
                return Outcome("non_replicated" if not as_query else "rejected", reject_code=4, error_code="IC0406",
                               reject_message=message)
        except (ValueError, UnicodeDecodeError) as error:
            return Outcome("rejected", reject_code=5, error_code="IC0503",
                           reject_message=f"Error from Canister {self.text_id}: Canister called `ic0.trap` with "
                                          f"message: failed to decode call arguments: {error}")
        raise AssertionError(behavior)


# ---------------------------------------------------------------------------------------------------------------
# Switches
# ---------------------------------------------------------------------------------------------------------------

ENDPOINT_NAMES = ["status", "call_v2", "call_v3", "call_v4", "query_v2", "query_v3", "read_state_v2",
                  "read_state_v3", "subnet_read_state_v2", "subnet_read_state_v3", "subnet_query_v3", "subnet_call_v4"]

# key -> (type, default, allowed values or None)
SWITCHES = {
    "ranges_layout": (str, "auto", ["auto", "old", "sharded", "both"]),
    "bad_bls": (str, "off", ["off", "certificate", "delegation"]),
    "foreign_range": (bool, False, None),
    "stale_time_s": (float, 0.0, None),
    "stale_delegation_s": (float, 0.0, None),
    "stale_query_timestamp_s": (float, 0.0, None),
    "nested_delegation": (bool, False, None),
    "bad_node_signature": (str, "off", ["off", "always", "unknown_node", "until_refresh", "missing"]),
    "oversize_mib": (float, 0.0, None),
    "oversize_chunked": (bool, False, None),
    "delay_ms": (int, 0, None),
    "call_polls": (int, 0, None),
    "clock_skew_s": (float, 0.0, None),
    "disabled_endpoints": (list, [], ENDPOINT_NAMES),
    "check_expiry": (bool, True, None),
    "require_self_describe_tag": (bool, True, None),
    "anonymous_expiry_exempt": (bool, False, None),
    "lying_expiry_refusal": (str, "off", ["off", "accept", "refuse"]),
    "lying_expiry_hint_s": (float, 0.0, None),
    "any_subnet_id": (bool, False, None),
}


def check_switch(key, value):
    """The validated value for a switch, or ValueError naming the problem."""
    if key not in SWITCHES:
        raise ValueError(f"unknown switch {key!r}; known: {', '.join(sorted(SWITCHES))}")
    kind, _, allowed = SWITCHES[key]
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{key} must be a non-negative integer")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{key} must be a number")
        return float(value)
    if kind is str:
        if value not in allowed:
            raise ValueError(f"{key} must be one of {', '.join(allowed)}")
        return value
    if not isinstance(value, list) or any(v not in allowed for v in value):
        raise ValueError(f"{key} must be a list drawn from {', '.join(allowed)}")
    return list(value)


class HttpError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------------------------------------------------------
# The replica
# ---------------------------------------------------------------------------------------------------------------

class RequestRecord:
    def __init__(self, sender, effective_id, outcome, expiry, canister_id=None):
        self.sender = sender
        self.effective_id = effective_id
        self.canister_id = canister_id
        self.outcome = outcome
        self.expiry = expiry
        self.polls_left = 0
        self.polls_seen = 0


class Replica:
    def __init__(self, seed, delegated, node_count, canister_config, switches):
        self.lock = threading.RLock()
        self.keys = KeySource(seed)
        self.root_key = BlsKey(self.keys.take("root"))
        self.root_subnet_id = self_authenticating(self.root_key.der)
        self.delegated = delegated
        if delegated:
            self.subnet_key = BlsKey(self.keys.take("subnet"))
            self.subnet_id = self_authenticating(self.subnet_key.der)
        else:
            self.subnet_key = self.root_key
            self.subnet_id = self.root_subnet_id
        self.intermediate_key = BlsKey(self.keys.take("intermediate"))
        self.intermediate_id = self_authenticating(self.intermediate_key.der)
        self.nodes = [NodeKey(self.keys.take("node")) for _ in range(node_count)]
        self.ghost_node = NodeKey(self.keys.take("ghost-node"))
        self.pending_node = None
        self.pending_served = False
        self.next_signer = 0
        self.canister = Canister(CANISTER_ID, canister_config)
        self.startup_switches = copy.deepcopy(switches)
        self.config = copy.deepcopy(switches)
        self.requests = {}
        self.delegation_cache = {}
        self.stats = collections.Counter()
        self.height = 0
        self.faults = []
        self.created = 0
        self.reset_distinct()

    def reset_distinct(self):
        self.distinct = {"call": set(), "query": set(), "read_state": set(), "signatures": set()}
        self.call_order = []

    # --- time and ranges -------------------------------------------------------------------------------------

    def now(self):
        return time.time_ns() + int(self.config["clock_skew_s"] * 10**9)

    def ranges(self):
        return FOREIGN_RANGES if self.config["foreign_range"] else RANGES

    def hosts(self, principal):
        """Whether this replica serves the id (its true ranges, whatever it publishes)."""
        return any(lo <= principal <= hi for lo, hi in RANGES)

    def ranges_subtrees(self):
        ranges = self.ranges()
        old = cbor_tagged([[lo, hi] for lo, hi in ranges])
        shards = {lo: cbor_tagged([[lo, hi]]) for lo, hi in ranges}
        return old, shards

    # --- state tree and certificates -------------------------------------------------------------------------

    def state_tree(self, now):
        old_ranges, shards = self.ranges_subtrees()
        canister = self.canister
        request_status = {}
        for rid, record in self.requests.items():
            request_status[rid] = self._status_subtree(record)
        nodes = {node.node_id: {b"public_key": node.der} for node in self.nodes}
        metrics = cbor2.dumps({0: 1, 1: 4096 + 64 * len(self.requests), 2: {0: 10**9 * (1 + self.height)},
                               3: len(self.requests)})
        return {
            b"canister": {canister.canister_id: {
                b"canister_creation_timestamp": uleb128(canister.created_ns),
                b"certified_data": canister.certified_data(),
                b"controllers": cbor_tagged(canister.controllers),
                b"last_install_timestamp": uleb128(canister.created_ns),
                b"metadata": {b"candid:service": canister.candid.encode()},
                b"module_hash": canister.module_hash,
            }},
            b"canister_ranges": {self.subnet_id: shards},
            b"request_status": request_status,
            b"subnet": {self.subnet_id: {
                b"canister_ranges": old_ranges,
                b"metrics": metrics,
                b"node": nodes,
                b"public_key": self.subnet_key.der,
                b"type": b"application",
            }},
            b"time": uleb128(now),
        }

    @staticmethod
    def _status_subtree(record):
        outcome = record.outcome
        if record.polls_left > 0:
            return {b"status": b"received" if record.polls_seen == 0 else b"processing"}
        if outcome.status == "replied":
            return {b"reply": outcome.reply, b"status": b"replied"}
        if outcome.status == "rejected":
            subtree = {b"reject_code": uleb128(outcome.reject_code),
                       b"reject_message": outcome.reject_message.encode(), b"status": b"rejected"}
            if outcome.error_code:
                subtree[b"error_code"] = outcome.error_code.encode()
            return subtree
        return {b"status": b"done"}

    def sign_tree(self, tree, key, wrong):
        root = digest(tree)
        if wrong:
            root = bytes([root[0] ^ 0x01]) + root[1:]
        return key.sign(DS_STATE_ROOT + root)

    def certificate(self, paths, layout, excluded=()):
        """CBOR certificate revealing `paths` (plus /time) of the current state tree."""
        now = self.now()
        self.height += 1
        tree_time = now - int(self.config["stale_time_s"] * 10**9)
        tree = witness(self.state_tree(tree_time), list(paths) + [(b"time",)], tuple(excluded))
        certificate = {"tree": tree,
                       "signature": self.sign_tree(tree, self.subnet_key, self.config["bad_bls"] == "certificate")}
        if self.delegated:
            certificate["delegation"] = self.delegation(layout)
        return cbor_tagged(certificate)

    def delegation(self, layout):
        config = self.config
        key = (layout, config["bad_bls"] == "delegation", config["foreign_range"], config["nested_delegation"],
               config["stale_delegation_s"], config["clock_skew_s"])
        cached = self.delegation_cache.get(key)
        if cached is None:
            if len(self.delegation_cache) > 16:
                self.delegation_cache.clear()
            cached = self.delegation_cache[key] = self._build_delegation(layout)
        return cached

    def _delegation_certificate(self, subnet_id, subnet_key, signer, layout, wrong_signature, parent):
        now = self.now() - int(self.config["stale_delegation_s"] * 10**9)
        old_ranges, shards = self.ranges_subtrees()
        tree = {
            b"canister_ranges": {subnet_id: shards},
            b"subnet": {subnet_id: {b"canister_ranges": old_ranges, b"public_key": subnet_key.der,
                                    b"type": b"application"}},
            b"time": uleb128(now),
        }
        paths = [(b"subnet", subnet_id, b"public_key"), (b"time",)]
        if layout in ("old", "both"):
            paths.append((b"subnet", subnet_id, b"canister_ranges"))
        if layout in ("sharded", "both"):
            paths.append((b"canister_ranges", subnet_id))
        pruned = witness(tree, paths)
        certificate = {"tree": pruned, "signature": self.sign_tree(pruned, signer, wrong_signature)}
        if parent is not None:
            certificate["delegation"] = parent
        return cbor_tagged(certificate)

    def _build_delegation(self, layout):
        wrong = self.config["bad_bls"] == "delegation"
        if not self.config["nested_delegation"]:
            certificate = self._delegation_certificate(self.subnet_id, self.subnet_key, self.root_key, layout, wrong,
                                                       None)
            return {"subnet_id": self.subnet_id, "certificate": certificate}
        # A fully valid chain root -> intermediate subnet -> this subnet, which clients must refuse for its depth.
        upper = self._delegation_certificate(self.intermediate_id, self.intermediate_key, self.root_key, layout,
                                             False, None)
        lower = self._delegation_certificate(self.subnet_id, self.subnet_key, self.intermediate_key, layout, wrong,
                                             {"subnet_id": self.intermediate_id, "certificate": upper})
        return {"subnet_id": self.subnet_id, "certificate": lower}

    def layout_for(self, endpoint):
        configured = self.config["ranges_layout"]
        if configured != "auto":
            return configured
        return "sharded" if endpoint in ("call_v4", "read_state_v3", "subnet_read_state_v3") else "old"

    # --- node signatures -------------------------------------------------------------------------------------

    def query_signatures(self, response, rid, now):
        mode = self.config["bad_node_signature"]
        if mode == "missing":
            return []
        timestamp = now - int(self.config["stale_query_timestamp_s"] * 10**9)
        if mode == "unknown_node":
            node = self.ghost_node
        elif mode == "until_refresh":
            if self.pending_node is None:
                self.pending_node = NodeKey(self.keys.take("node"))
            node = self.pending_node
            self.pending_served = True
        else:
            node = self.nodes[self.next_signer % len(self.nodes)]
            self.next_signer += 1
        signed_timestamp = timestamp + 1 if mode == "always" else timestamp
        message = DS_RESPONSE + hash_of_map(dict(response, timestamp=signed_timestamp, request_id=rid))
        return [{"timestamp": timestamp, "signature": node.sign(message), "identity": node.node_id}]

    def note_node_keys_read(self):
        self.stats["node_key_reads"] += 1
        if self.config["bad_node_signature"] == "until_refresh" and self.pending_served:
            self.nodes[0] = self.pending_node
            self.pending_node = None
            self.pending_served = False
            self.config["bad_node_signature"] = "off"

    def rotate_node_keys(self):
        self.nodes = [NodeKey(self.keys.take("node")) for _ in self.nodes]
        self.pending_node = None
        self.pending_served = False

    # --- control ---------------------------------------------------------------------------------------------

    def control_view(self):
        distinct = {f"{kind}_request_ids": len(ids) for kind, ids in self.distinct.items() if kind != "signatures"}
        distinct["signatures"] = len(self.distinct["signatures"])
        distinct["call_request_ids"] = list(self.call_order)
        return {"config": copy.deepcopy(self.config), "stats": dict(self.stats),
                "node_ids": [principal_to_text(n.node_id) for n in self.nodes], "counter": self.canister.counter,
                "requests": len(self.requests), "distinct": distinct, "faults": copy.deepcopy(self.faults),
                "controllers": [principal_to_text(c) for c in self.canister.controllers]}

    @staticmethod
    def check_faults(faults):
        if not isinstance(faults, list):
            raise ValueError("faults must be a list of objects")
        checked = []
        for fault in faults:
            if not isinstance(fault, dict) or set(fault) - {"endpoint", "status", "times", "retry_after", "accept"}:
                raise ValueError("a fault is an object with endpoint, status, times, retry_after, accept")
            endpoint = fault.get("endpoint", "")
            if not isinstance(endpoint, str) or not any(name.startswith(endpoint) for name in ENDPOINT_NAMES):
                raise ValueError(f"fault endpoint must be a prefix of one of {', '.join(ENDPOINT_NAMES)}")
            status = fault.get("status")
            if status != "reset" and status not in (429, 500, 502, 503, 504):
                raise ValueError("fault status must be 429, 500, 502, 503, 504 or \"reset\"")
            times = fault.get("times", 1)
            if isinstance(times, bool) or not isinstance(times, int) or times < 1:
                raise ValueError("fault times must be a positive integer")
            retry_after = fault.get("retry_after")
            if retry_after is not None and not isinstance(retry_after, (int, str)):
                raise ValueError("fault retry_after must be seconds or an HTTP date")
            checked.append({"endpoint": endpoint, "status": status, "times": times, "retry_after": retry_after,
                            "accept": bool(fault.get("accept", False))})
        return checked

    def note_received(self, body):
        """Counts what arrived (before any check or fault): the request id and the sender signature, when the body is
        an envelope at all."""
        try:
            envelope = cbor2.loads(body)
            if isinstance(envelope, cbor2.CBORTag):
                envelope = envelope.value
            content = envelope["content"]
            kind = content["request_type"]
            rid = request_id(content)
        except Exception:  # not an envelope: nothing to count
            return
        if kind in ("call", "query", "read_state"):
            self.distinct[kind].add(rid)
            if kind == "call" and rid.hex() not in self.call_order:
                self.call_order.append(rid.hex())
        if isinstance(envelope.get("sender_sig"), bytes):
            self.distinct["signatures"].add(sha256(envelope["sender_sig"]))

    def take_fault(self, endpoint):
        """The next scripted fault for this endpoint, consumed (None when there is none)."""
        for fault in self.faults:
            if endpoint.startswith(fault["endpoint"]):
                fault["times"] -= 1
                if fault["times"] == 0:
                    self.faults.remove(fault)
                self.stats["faults_served"] += 1
                return dict(fault)
        return None

    def apply_control(self, body):
        if not isinstance(body, dict):
            raise ValueError("control body must be a JSON object")
        updates = {}
        action = body.get("action")
        faults = self.check_faults(body["faults"]) if "faults" in body else None
        controllers = None
        if "controllers" in body:
            if not isinstance(body["controllers"], list):
                raise ValueError("controllers must be a list of principal texts")
            controllers = [principal_from_text(text) for text in body["controllers"]]
        for key, value in body.items():
            if key not in ("action", "faults", "controllers"):
                updates[key] = check_switch(key, value)
        if action not in (None, "rotate_node_keys", "reset_config", "reset_stats", "reset_state"):
            raise ValueError("action must be rotate_node_keys, reset_config, reset_stats or reset_state")
        if action == "reset_config":
            self.config = copy.deepcopy(self.startup_switches)
            self.faults = []
            self.canister.controllers = list(self.canister.initial_controllers)
        elif action == "reset_stats":
            self.stats.clear()
            self.reset_distinct()
        elif action == "reset_state":
            self.requests.clear()
            self.canister.counter = 0
        elif action == "rotate_node_keys":
            self.rotate_node_keys()
        self.config.update(updates)
        if faults is not None:
            self.faults = faults
        if controllers is not None:
            self.canister.controllers = controllers
        if "bad_node_signature" in updates:
            self.pending_node = None
            self.pending_served = False
        return self.control_view()

    # --- request validation ----------------------------------------------------------------------------------

    def decode_envelope(self, body, request_type):
        if self.config["require_self_describe_tag"] and not body.startswith(SELF_DESCRIBE_TAG):
            raise HttpError(400, "Could not parse body as CBOR: the self-describe tag 55799 (d9d9f7) is missing")
        stream = io.BytesIO(body)
        try:
            envelope = cbor2.CBORDecoder(stream).decode()
        except Exception as error:  # cbor2 raises several types for malformed input
            raise HttpError(400, f"Could not parse body as CBOR: {error}")
        if stream.tell() != len(body):
            raise HttpError(400, f"Could not parse body as CBOR: {len(body) - stream.tell()} trailing bytes")
        if not isinstance(envelope, collections.abc.Mapping) or "content" not in envelope:
            raise HttpError(400, "Malformed request: the envelope must be a map with a content field")
        unknown = set(envelope) - {"content", "sender_pubkey", "sender_sig", "sender_delegation"}
        if unknown:
            raise HttpError(400, f"Malformed request: unknown envelope fields {sorted(map(str, unknown))}")
        content = envelope["content"]
        if not isinstance(content, collections.abc.Mapping):
            raise HttpError(400, "Malformed request: content must be a map")
        # cbor2 decodes arrays under the self-describe tag as tuples
        common = {"request_type": str, "sender": bytes, "ingress_expiry": int, "nonce": bytes}
        if request_type == "read_state":
            fields = dict(common, paths=(list, tuple))
            required = {"request_type", "sender", "ingress_expiry", "paths"}
        else:
            fields = dict(common, canister_id=bytes, method_name=str, arg=bytes)
            required = {"request_type", "sender", "ingress_expiry", "canister_id", "method_name", "arg"}
        for name in content:
            if name not in fields:
                raise HttpError(400, f"Malformed request: unsupported content field {name!r}")
            if not isinstance(content[name], fields[name]) or isinstance(content[name], bool):
                raise HttpError(400, f"Malformed request: content.{name} has the wrong type")
        missing = required - set(content)
        if missing:
            raise HttpError(400, f"Malformed request: missing content fields {sorted(missing)}")
        if content["request_type"] != request_type:
            raise HttpError(400, f"Malformed request: request_type is {content['request_type']!r}, this endpoint "
                                 f"takes {request_type!r}")
        if "nonce" in content and len(content["nonce"]) > MAX_NONCE:
            raise HttpError(400, f"Malformed request: nonce is {len(content['nonce'])} bytes, at most 32 allowed")
        if content["ingress_expiry"] < 0 or len(content["sender"]) > 29:
            raise HttpError(400, "Malformed request: bad sender or ingress_expiry")
        if request_type == "read_state":
            paths = content["paths"]
            if len(paths) > MAX_PATHS:
                raise HttpError(400, f"Malformed request: {len(paths)} paths, at most {MAX_PATHS} allowed")
            for path in paths:
                if not isinstance(path, (list, tuple)) or len(path) > MAX_PATH_LABELS or \
                        not all(isinstance(label, bytes) for label in path):
                    raise HttpError(400, "Failed to parse requested paths: each path must be at most 127 blobs")
        return envelope, content

    def authenticate(self, envelope, content, request_type, target):
        """Checks expiry, sender, signatures and delegations; returns the request id. `target`: the canister the
        delegation targets must allow (see delegation_target), None when the request is not checked against them."""
        rid = request_id(content)
        now = self.now()
        sender = content["sender"]
        anonymous = sender == ANONYMOUS
        exempt = anonymous and request_type in ("query", "read_state") and self.config["anonymous_expiry_exempt"]
        if content["ingress_expiry"] > now + MAX_INGRESS_TTL_NS + PERMITTED_DRIFT_NS:
            self.stats["far_future_expiries"] += 1
        if self.config["check_expiry"] and not exempt:
            expiry = content["ingress_expiry"]
            low, high = now, now + MAX_INGRESS_TTL_NS + PERMITTED_DRIFT_NS
            if not low <= expiry <= high:
                raise HttpError(400, "Invalid request expiry: Specified ingress_expiry not within expected range: "
                                     f"Minimum allowed expiry: {format_ic_time(low)}, "
                                     f"Maximum allowed expiry: {format_ic_time(high)}, "
                                     f"Provided expiry: {format_ic_time(expiry)}, "
                                     f"Local replica time: {format_ic_time(now)}")
        pubkey = envelope.get("sender_pubkey")
        signature = envelope.get("sender_sig")
        delegations = envelope.get("sender_delegation")
        rid_text = rid.hex()
        if anonymous:
            if pubkey is not None or signature is not None or delegations is not None:
                raise HttpError(400, f"Failed to authenticate request 0x{rid_text} due to: Signature is not allowed "
                                     "for the anonymous user")
            return rid
        if not isinstance(pubkey, bytes) or not isinstance(signature, bytes):
            raise HttpError(400, f"Failed to authenticate request 0x{rid_text} due to: Missing signature from user: "
                                 f"{principal_to_text(sender)}")
        if self_authenticating(pubkey) != sender:
            raise HttpError(400, f"Failed to authenticate request 0x{rid_text} due to: The user id "
                                 f"{principal_to_text(sender)} does not match the public key {pubkey.hex()}")
        signing_key = pubkey
        seen = {pubkey}
        if delegations is not None:
            signing_key = self._check_delegations(delegations, pubkey, seen, now, request_type, target, rid_text)
        problem = verify_user_signature(signing_key, DS_REQUEST + rid, signature)
        if problem:
            raise HttpError(400, f"Failed to authenticate request 0x{rid_text} due to: Invalid signature: {problem}")
        return rid

    def _check_delegations(self, delegations, key, seen, now, request_type, target, rid_text):
        def fail(reason):
            raise HttpError(400, f"Failed to authenticate request 0x{rid_text} due to: Invalid delegation: {reason}")

        if not isinstance(delegations, (list, tuple)):
            fail("sender_delegation must be an array")
        if len(delegations) > MAX_DELEGATIONS:
            fail(f"chain of {len(delegations)} delegations, at most {MAX_DELEGATIONS} allowed")
        for index, signed in enumerate(delegations):
            if not isinstance(signed, collections.abc.Mapping) or set(signed) != {"delegation", "signature"}:
                fail(f"delegation {index} must be a map {{delegation, signature}}")
            delegation = signed["delegation"]
            if not isinstance(delegation, collections.abc.Mapping) or \
                    not isinstance(delegation.get("pubkey"), bytes) or \
                    not isinstance(delegation.get("expiration"), int) or \
                    set(delegation) - {"pubkey", "expiration", "targets", "permissions"}:
                fail(f"delegation {index} must have pubkey, expiration and optional targets/permissions")
            problem = verify_user_signature(key, DS_DELEGATION + hash_of_map(delegation), signed["signature"])
            if problem:
                fail(f"delegation {index}: {problem}")
            if delegation["expiration"] < now:
                raise HttpError(400, "Invalid delegation expiry: Specified sender delegation has expired: "
                                     f"Provided expiry: {format_ic_time(delegation['expiration'])}, "
                                     f"Local replica time: {format_ic_time(now)}")
            targets = delegation.get("targets")
            if targets is not None:
                if not isinstance(targets, (list, tuple)) or len(targets) > MAX_TARGETS or \
                        not all(isinstance(t, bytes) for t in targets):
                    fail(f"delegation {index}: targets must be at most {MAX_TARGETS} principals")
                if target is not None and target not in targets:
                    raise HttpError(400, f"Failed to authenticate request 0x{rid_text} due to: Canister "
                                         f"{principal_to_text(target)} is not one of the delegation targets")
            permissions = delegation.get("permissions")
            if permissions is not None:
                if permissions not in ("queries", "all"):
                    fail(f"delegation {index}: unknown permissions {permissions!r}")
                if permissions == "queries" and request_type == "call":
                    fail(f"delegation {index} only permits queries and read_state")
            new_key = delegation["pubkey"]
            if new_key in seen:
                fail(f"delegation {index}: the public key appears twice in the chain (cycle or self-delegation)")
            seen.add(new_key)
            key = new_key
        return key

    # --- endpoint logic (called with the lock held) ----------------------------------------------------------

    def parse_effective_id(self, text):
        try:
            return principal_from_text(text)
        except ValueError as error:
            raise HttpError(400, f"Malformed request: could not parse the effective id in the URL: {error}")

    def check_canister_route(self, ecid, content, as_query=False):
        canister_id = content["canister_id"]
        if canister_id == b"" and as_query and content["method_name"] in MANAGEMENT_QUERIES:
            named = management_argument_canister(content["arg"])
            if named is None:
                raise HttpError(400, f"Management canister method {content['method_name']} needs a record with a "
                                     "canister_id in its argument")
            if named != ecid:
                raise HttpError(400, f"Specified CanisterId {principal_to_text(named)} does not match effective "
                                     f"canister id in URL {principal_to_text(ecid)}")
            if not self.hosts(ecid):
                raise HttpError(400, f"Canister {principal_to_text(ecid)} does not belong to this subnet")
            return
        if canister_id == b"":
            raise HttpError(400, "This management canister method is not modelled by this fake replica on this endpoint")
        if canister_id != ecid:
            raise HttpError(400, f"Specified CanisterId {principal_to_text(canister_id)} does not match effective "
                                 f"canister id in URL {principal_to_text(ecid)}")
        if not self.hosts(ecid):
            raise HttpError(400, f"Canister {principal_to_text(ecid)} does not belong to this subnet")

    def execute(self, content, as_query):
        if content["canister_id"] == b"":
            return self.execute_management(content, as_query)
        if content["canister_id"] != self.canister.canister_id:
            # Nothing to execute: a signed reject for queries, a non-replicated rejection for calls.
            return Outcome("rejected" if as_query else "non_replicated", reject_code=3, error_code="IC0301",
                           reject_message=f"Canister {principal_to_text(content['canister_id'])} not found")
        return self.canister.run(content["method_name"], content["arg"], as_query)

    def execute_management(self, content, as_query):
        method = content["method_name"]
        if as_query and method in MANAGEMENT_QUERIES:
            named = management_argument_canister(content["arg"])
            if named != self.canister.canister_id:
                return Outcome("rejected", reject_code=3, error_code="IC0301",
                               reject_message=f"Canister {principal_to_text(named or b'')} not found")
            if content["sender"] not in self.canister.controllers:
                return Outcome("rejected", reject_code=4, error_code="IC0512",
                               reject_message=f"Only controllers of canister {self.canister.text_id} can call ic00 method "
                                              f"{method}")
            if method == "canister_status":
                reply = candid_record_of_nats({"cycles": 3_000_000_000_000, "memory_size": 4096})
            else:
                reply = candid_record_of_nats({"query_calls": self.stats["query_v3"] + self.stats["query_v2"],
                                               "update_calls": len(self.requests)})
            return Outcome("replied", reply=reply)
        if as_query and method == "list_canisters":
            return Outcome("replied", reply=candid_ranges(self.ranges()))
        if not as_query and method in ("create_canister", "provisional_create_canister_with_cycles"):
            self.created += 1
            low = RANGES[0][0]
            fresh = (int.from_bytes(low[:8], "big") + self.created).to_bytes(8, "big") + low[8:]
            return Outcome("replied", reply=candid_record_principal("canister_id", fresh))
        return Outcome("rejected" if as_query else "non_replicated", reject_code=3, error_code="IC0536",
                       reject_message=f"Management canister has no {'query' if as_query else 'update'} method "
                                      f"'{method}' in this fake replica")

    def handle_query(self, ecid_text, body):
        envelope, content = self.decode_envelope(body, "query")
        ecid = self.parse_effective_id(ecid_text)
        self.check_canister_route(ecid, content, as_query=True)
        rid = self.authenticate(envelope, content, "query", delegation_target(content))
        return self.answer_query(content, rid)

    def handle_subnet_query(self, esid_text, body):
        envelope, content = self.decode_envelope(body, "query")
        esid = self.parse_effective_id(esid_text)
        if esid != self.subnet_id and not self.config["any_subnet_id"]:
            raise HttpError(400, f"Effective subnet id {esid_text} is not this subnet ({principal_to_text(self.subnet_id)})")
        if content["canister_id"] != b"" or content["method_name"] != "list_canisters":
            raise HttpError(400, "Subnet queries are only for the management canister's list_canisters")
        rid = self.authenticate(envelope, content, "query", delegation_target(content))
        return self.answer_query(content, rid)

    def answer_query(self, content, rid):
        outcome = self.execute(content, as_query=True)
        if outcome.status == "replied":
            response = {"status": "replied", "reply": {"arg": outcome.reply}}
        else:
            response = {"status": "rejected", "reject_code": outcome.reject_code,
                        "reject_message": outcome.reject_message, "error_code": outcome.error_code or ""}
        response["signatures"] = self.query_signatures(dict(response), rid, self.now())
        return 200, cbor_tagged(response)

    def lying_refusal(self, content):
        """The false expiry refusal of a hostile boundary node (see lying_expiry_refusal)."""
        self.stats["lying_refusals"] += 1
        now = self.now()
        claimed = now + int(self.config["lying_expiry_hint_s"] * 10**9)
        return HttpError(400, "Invalid request expiry: Specified ingress_expiry not within expected range: "
                              f"Minimum allowed expiry: {format_ic_time(claimed)}, "
                              f"Maximum allowed expiry: {format_ic_time(claimed + MAX_INGRESS_TTL_NS + PERMITTED_DRIFT_NS)}, "
                              f"Provided expiry: {format_ic_time(content['ingress_expiry'])}, "
                              f"Local replica time: {format_ic_time(claimed)}")

    def handle_call(self, endpoint, ecid_text, body):
        envelope, content = self.decode_envelope(body, "call")
        ecid = self.parse_effective_id(ecid_text)
        if endpoint == "subnet_call_v4":
            if ecid != self.subnet_id and not self.config["any_subnet_id"]:
                raise HttpError(400, f"Effective subnet id {ecid_text} is not this subnet "
                                     f"({principal_to_text(self.subnet_id)})")
            if content["canister_id"] != b"" or \
                    content["method_name"] not in ("create_canister", "provisional_create_canister_with_cycles"):
                raise HttpError(400, "Subnet calls are only for the management canister's canister creation")
        else:
            self.check_canister_route(ecid, content)
        rid = self.authenticate(envelope, content, "call", delegation_target(content))
        lying = self.config["lying_expiry_refusal"]
        if lying == "refuse":
            raise self.lying_refusal(content)
        record = self.requests.get(rid)
        if record is None:
            outcome = self.execute(content, as_query=False)
            if outcome.status == "non_replicated":
                reject = {"reject_code": outcome.reject_code, "reject_message": outcome.reject_message,
                          "error_code": outcome.error_code}
                if endpoint == "call_v2":
                    return 200, cbor_tagged(reject)
                return 200, cbor_tagged(dict(reject, status="non_replicated_rejection"))
            # Forget requests 5 minutes after their expiry, as the IC may.
            horizon = self.now() - MAX_INGRESS_TTL_NS
            for old in [r for r, rec in self.requests.items() if rec.expiry < horizon]:
                del self.requests[old]
            record = RequestRecord(content["sender"], ecid, outcome, content["ingress_expiry"], content["canister_id"])
            record.polls_left = self.config["call_polls"]
            self.requests[rid] = record
        if lying == "accept":
            raise self.lying_refusal(content)
        if endpoint == "call_v2" or record.polls_left > 0:
            return 202, b""
        certificate = self.certificate([(b"request_status", rid)], self.layout_for(endpoint))
        return 200, cbor_tagged({"status": "replied", "certificate": certificate})

    def handle_read_state(self, endpoint, effective_text, body):
        envelope, content = self.decode_envelope(body, "read_state")
        effective = self.parse_effective_id(effective_text)
        subnet_endpoint = endpoint.startswith("subnet_")
        if subnet_endpoint:
            if effective != self.subnet_id and not self.config["any_subnet_id"]:
                raise HttpError(400, f"Effective subnet id {effective_text} is not this subnet "
                                     f"({principal_to_text(self.subnet_id)})")
        elif not self.hosts(effective):
            raise HttpError(400, f"Canister {effective_text} does not belong to this subnet")
        paths = [tuple(bytes(label) for label in path) for path in content["paths"]]
        # Only request_status paths are checked against delegation targets: the call's canister_id.
        target = None
        for path in paths:
            if len(path) >= 2 and path[0] == b"request_status" and path[1] in self.requests:
                target = self.requests[path[1]].canister_id
        self.authenticate(envelope, content, "read_state", target)
        v2 = endpoint.endswith("_v2")
        excluded = self.check_paths(paths, content["sender"], effective, subnet_endpoint, v2)
        if any(self._reveals_node_keys(path) for path in paths):
            self.note_node_keys_read()
            if content["sender"] != ANONYMOUS:
                self.stats["signed_node_key_reads"] += 1
        certificate = self.certificate(paths, self.layout_for(endpoint), excluded)
        # A poll that was shown a non-terminal status moves the request one step on.
        for rid in {path[1] for path in paths if len(path) >= 2 and path[0] == b"request_status"}:
            record = self.requests.get(rid)
            if record is not None:
                self.stats["polls"] += 1
                if record.polls_left > 0:
                    record.polls_left -= 1
                    record.polls_seen += 1
        return 200, cbor_tagged({"certificate": certificate})

    def _reveals_node_keys(self, path):
        target = (b"subnet", self.subnet_id, b"node")
        return path == target[:len(path)] or path[:3] == target

    def check_paths(self, paths, sender, effective, subnet_endpoint, v2):
        """Authorizes requested paths like the replica; returns subtrees to keep pruned."""
        request_ids = set()
        ranges_subnets = set()
        for path in paths:
            head = path[0] if path else None
            if path == (b"time",) or head == b"api_boundary_nodes" and len(path) <= 3:
                continue
            if head == b"subnet" and len(path) <= 5:
                if len(path) >= 3 and path[2] == b"metrics" and (not subnet_endpoint or path[1] != effective):
                    raise HttpError(404, "Invalid path requested.")
                if len(path) >= 3 and path[2] not in (b"public_key", b"type", b"node", b"canister_ranges",
                                                      b"metrics"):
                    raise HttpError(404, "Invalid path requested.")
                continue
            if head == b"canister_ranges" and len(path) == 2:
                if not subnet_endpoint:
                    raise HttpError(404, "Invalid path requested.")
                ranges_subnets.add(path[1])
                continue
            if head == b"canister" and len(path) in (3, 4):
                if path[1] != effective or subnet_endpoint:
                    raise HttpError(400, f"Effective principal id in URL {principal_to_text(effective)} does not "
                                         f"match requested principal id: {principal_to_text(path[1])}.")
                if len(path) == 3 and path[2] in (b"module_hash", b"controllers", b"canister_creation_timestamp",
                                                  b"last_install_timestamp"):
                    continue
                if len(path) == 4 and path[2] == b"metadata":
                    try:
                        path[3].decode()
                    except UnicodeDecodeError as error:
                        raise HttpError(400, f"Could not parse the custom section name: {error}.")
                    continue
                raise HttpError(404, "Invalid path requested.")
            if head == b"request_status" and len(path) in (2, 3):
                if len(path[1]) != 32:
                    raise HttpError(400, "Invalid request id in paths. Maybe the request ID is not of 32 bytes "
                                         "in length?!")
                if len(path) == 3 and path[2] not in (b"status", b"reply", b"reject_code", b"reject_message",
                                                      b"error_code"):
                    raise HttpError(404, "Invalid path requested.")
                request_ids.add(path[1])
                record = self.requests.get(path[1])
                if record is not None:
                    if record.sender != sender:
                        raise HttpError(403, "The user tries to access Request ID not signed by the caller.")
                    if record.effective_id != effective:
                        raise HttpError(403, "The user tries to access a Request ID sent to a different effective "
                                             "canister id." if not subnet_endpoint else
                                        "The user tries to access a Request ID sent to a different effective subnet id.")
                continue
            raise HttpError(404, "Invalid path requested.")
        if len(request_ids) > 1:
            raise HttpError(400, "More than one non-unique request ID exists in request_status paths.")
        if len(ranges_subnets) > 1:
            raise HttpError(400, "More than one subnet id exists in canister_ranges paths.")
        # v3 read_state keeps /subnet/<id>/canister_ranges pruned except for the root subnet.
        if not v2 and self.subnet_id != self.root_subnet_id:
            return ((b"subnet", self.subnet_id, b"canister_ranges"),)
        return ()

    def handle_status(self):
        return 200, cbor_tagged({"ic_api_version": "0.18.0", "impl_version": "omni-fake-replica",
                                 "root_key": self.root_key.der, "replica_health_status": "healthy",
                                 "certified_height": self.height})


# ---------------------------------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------------------------------

ROUTE = re.compile(r"^/api/v(\d+)/(canister|subnet)/([A-Za-z0-9-]+)/(call|query|read_state)$")
ENDPOINTS = {("2", "canister", "call"): "call_v2", ("3", "canister", "call"): "call_v3",
             ("4", "canister", "call"): "call_v4", ("2", "canister", "query"): "query_v2",
             ("3", "canister", "query"): "query_v3", ("2", "canister", "read_state"): "read_state_v2",
             ("3", "canister", "read_state"): "read_state_v3", ("2", "subnet", "read_state"): "subnet_read_state_v2",
             ("3", "subnet", "read_state"): "subnet_read_state_v3", ("3", "subnet", "query"): "subnet_query_v3",
             ("4", "subnet", "call"): "subnet_call_v4"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body are written separately; without TCP_NODELAY a kept-alive client waits on Nagle + delayed ACK.
    disable_nagle_algorithm = True
    server_version = "omni-fake-replica/1"
    replica = None  # set by main
    verbose = False

    def log_message(self, format, *args):
        if self.verbose:
            sys.stderr.write("ic_replica: " + (format % args) + "\n")

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    return bytes(body)
                if len(body) + size > MAX_BODY_BYTES:
                    raise HttpError(413, "Payload Too Large")
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            if length <= 16 * MAX_BODY_BYTES:  # drain it, so the client sees the 413 instead of a broken pipe
                while length > 0:
                    length -= len(self.rfile.read(min(length, 65536)) or b"x" * length)
            raise HttpError(413, f"Payload Too Large: request body over {MAX_BODY_BYTES} bytes")
        return self.rfile.read(length)

    def send(self, status, body, content_type, api=True):
        replica = self.replica
        with replica.lock:
            delay = replica.config["delay_ms"] if api else 0
            oversize = replica.config["oversize_mib"] if api else 0
            chunked = replica.config["oversize_chunked"]
        if delay:
            time.sleep(delay / 1000)
        if oversize:
            size = int(oversize * 1024 * 1024)
            header = SELF_DESCRIBE_TAG + b"\xa1" + cbor2.dumps("certificate") + b"\x5a" + size.to_bytes(4, "big")
            body, status, content_type = header + bytes(size), 200, "application/cbor"
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if oversize and chunked:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for start in range(0, len(body), 65536):
                    chunk = body[start:start + 65536]
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send_text(self, status, text, api=True):
        self.send(status, text.encode(), "text/plain; charset=utf-8", api)

    def send_json(self, status, value):
        self.send(status, json.dumps(value).encode(), "application/json", api=False)

    def disabled(self, endpoint):
        with self.replica.lock:
            return endpoint in self.replica.config["disabled_endpoints"]

    def do_GET(self):
        replica = self.replica
        if self.path == "/_control":
            with replica.lock:
                view = replica.control_view()
            return self.send_json(200, view)
        if self.path == "/api/v2/status":
            if self.disabled("status"):
                return self.send_text(404, "Not Found")
            with replica.lock:
                fault = replica.take_fault("status")
            if fault is not None:
                return self.send_fault(fault)
            with replica.lock:
                replica.stats["status"] += 1
                status, body = replica.handle_status()
            return self.send(status, body, "application/cbor")
        self.send_text(404, "Not Found", api=self.path.startswith("/api/"))

    def do_POST(self):
        replica = self.replica
        try:
            body = self.read_body()
        except HttpError as error:
            self.close_connection = True
            return self.send_text(error.status, error.message)
        except ValueError:
            self.close_connection = True
            return self.send_text(400, "Malformed chunked request body")
        if self.path == "/_control":
            try:
                request = json.loads(body or b"{}")
                with replica.lock:
                    view = replica.apply_control(request)
            except ValueError as error:
                return self.send_json(400, {"error": str(error)})
            return self.send_json(200, view)
        match = ROUTE.match(self.path)
        endpoint = ENDPOINTS.get(match.group(1, 2, 4)) if match else None
        if endpoint is None or self.disabled(endpoint):
            return self.send_text(404, "Not Found", api=self.path.startswith("/api/"))
        effective = match.group(3)
        with replica.lock:
            replica.note_received(body)
            fault = replica.take_fault(endpoint)
        if fault is not None and not (fault["accept"] and "call" in endpoint):
            return self.send_fault(fault)
        try:
            with replica.lock:
                replica.stats[endpoint] += 1
                if endpoint == "subnet_query_v3":
                    status, payload = replica.handle_subnet_query(effective, body)
                elif endpoint.startswith("query"):
                    status, payload = replica.handle_query(effective, body)
                elif "call" in endpoint:
                    status, payload = replica.handle_call(endpoint, effective, body)
                else:
                    status, payload = replica.handle_read_state(endpoint, effective, body)
        except HttpError as error:
            with replica.lock:
                replica.stats["errors"] += 1
            return self.send_text(error.status, error.message)
        except (ValueError, TypeError, KeyError, AttributeError) as error:  # hostile shapes the checks did not name
            with replica.lock:
                replica.stats["errors"] += 1
            return self.send_text(400, f"Malformed request: {type(error).__name__}: {error}")
        if fault is not None:  # accepted, then the fault instead of the answer
            return self.send_fault(fault)
        self.send(status, payload, "application/cbor")

    def send_fault(self, fault):
        if fault["status"] == "reset":
            # SO_LINGER 0: close() sends a RST, the client sees a reset connection and no answer.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        names = {429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
                 504: "Gateway Timeout"}
        body = f"{names[fault['status']]} (scripted fault)".encode()
        try:
            self.send_response(fault["status"])
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            if fault["retry_after"] is not None:
                self.send_header("Retry-After", str(fault["retry_after"]))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def build_arguments():
    parser = argparse.ArgumentParser(description="Loopback fake Internet Computer replica (see the module doc).")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", help="hex seed for all keys (default: random)")
    parser.add_argument("--nodes", type=int, default=4, help="number of node keys (default 4)")
    parser.add_argument("--no-delegation", action="store_true", help="act as the root subnet (no delegation)")
    parser.add_argument("--canister-config", help="JSON file with the canister model")
    parser.add_argument("--no-call-v4", action="store_true", help="answer /api/v4/.../call with 404")
    parser.add_argument("--no-stdin-watch", action="store_true", help="do not exit when stdin closes")
    parser.add_argument("--verbose", action="store_true", help="log requests on stderr")
    for key, (kind, default, allowed) in SWITCHES.items():
        flag = "--" + key.replace("_", "-")
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default)
        elif kind is list:
            parser.add_argument(flag, action="append", default=[], choices=allowed, help="repeatable")
        else:
            parser.add_argument(flag, type=kind, default=default, choices=allowed)
    return parser


def main():
    arguments = build_arguments().parse_args()
    switches = {}
    for key in SWITCHES:
        switches[key] = check_switch(key, getattr(arguments, key))
    if arguments.no_call_v4 and "call_v4" not in switches["disabled_endpoints"]:
        switches["disabled_endpoints"].append("call_v4")
    if arguments.nodes < 1 or arguments.nodes > 64:
        sys.exit("ic_replica: --nodes must be between 1 and 64")
    seed = bytes.fromhex(arguments.seed) if arguments.seed else os.urandom(32)
    canister_config = {}
    if arguments.canister_config:
        with open(arguments.canister_config) as file:
            canister_config = json.load(file)
    replica = Replica(seed, not arguments.no_delegation, arguments.nodes, canister_config, switches)
    Handler.replica = replica
    Handler.verbose = arguments.verbose
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    server.daemon_threads = True
    url = f"http://127.0.0.1:{server.server_address[1]}"
    canister_text = principal_to_text(replica.canister.canister_id)
    print(json.dumps({
        "url": url,
        "root_key": replica.root_key.der.hex(),
        "subnet_id": principal_to_text(replica.subnet_id),
        "canister_id": canister_text,
        "effective_canister_id": canister_text,
        "node_ids": [principal_to_text(n.node_id) for n in replica.nodes],
        "control": url + "/_control",
        "root_subnet_id": principal_to_text(replica.root_subnet_id),
        "subnet_public_key": replica.subnet_key.der.hex(),
        "canister_ranges": [[principal_to_text(lo), principal_to_text(hi)] for lo, hi in RANGES],
        "delegation": replica.delegated,
        "seed": seed.hex(),
        "pid": os.getpid(),
    }), flush=True)

    def leave(*_):
        os._exit(0)

    signal.signal(signal.SIGTERM, leave)
    # A parent that spawns us from a thread with signals blocked (test runners do) passes that mask on; unblock, or
    # SIGTERM would never arrive.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if arguments.no_stdin_watch:
        signal.pause()
    else:
        sys.stdin.buffer.read()
    leave()


if __name__ == "__main__":
    main()
