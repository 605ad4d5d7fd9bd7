#!/usr/bin/env python3
"""`make bench` rows for the IC client, each next to a Python peer, in one run:

(a) certificate verification of a delegated mainnet certificate (agent-rs `ivg37_time`, a v3 read_state with the
    sharded canister-ranges layout, from ../shared/vectors/ic/certificates.json): `omni ic certificate verify` as a
    whole process (median spawn-to-exit) when this omni has that command, else in-process through
    `omni-bench ic-certificate-verify` (the row's name says which) — next to the same verification in Python
    (cbor2 + pyblst: both BLS signatures, the subnet key lookup, the range check, /time), in-process.
(b) a verified query round trip against the loopback fake replica (Tests/Peers/ic_replica.py): `omni ic query`
    as a whole process, node keys warm in the cache and types from --did (one HTTP request), and with types
    from the canister's candid:service (two requests) — next to an unverified query in Python. ic-py's own query
    cannot read the replica's tagged CBOR responses (the same is true of the IC), so the peer builds and signs the
    request with ic-py and posts it with http.client (a new connection each time), decoding with cbor2 and ic-py.

Prints JSON lines {"name", "omni_seconds", "peer_seconds", "peer", "ratio", "runs"}. A benchmark, not a test.
"""
import argparse
import hashlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

import cbor2
import pyblst

from omni_bench import seconds_per_op

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VECTORS = os.environ.get("OMNI_VECTORS") or os.path.join(os.path.dirname(ROOT), "shared", "vectors")
DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
G2 = pyblst.BlstP2Element.uncompress(bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"))
DER_PREFIX_LEN = 37
CERTIFICATE_ID = "agent-rs/ivg37_time"


# ---- certificate verification in Python (the peer for row a) ----

def untag(value):
    return value.value if isinstance(value, cbor2.CBORTag) and value.tag == 55799 else value


def digest(tree):
    kind = tree[0]
    if kind == 0:
        return hashlib.sha256(b"\x11ic-hashtree-empty").digest()
    if kind == 1:
        return hashlib.sha256(b"\x10ic-hashtree-fork" + digest(tree[1]) + digest(tree[2])).digest()
    if kind == 2:
        return hashlib.sha256(b"\x13ic-hashtree-labeled" + tree[1] + digest(tree[2])).digest()
    if kind == 3:
        return hashlib.sha256(b"\x10ic-hashtree-leaf" + tree[1]).digest()
    return tree[1]


def flatten(tree):
    if tree[0] == 1:
        return flatten(tree[1]) + flatten(tree[2])
    return [] if tree[0] == 0 else [tree]


def subtree(path, tree):
    for label in path:
        found = [node[2] for node in flatten(tree) if node[0] == 2 and node[1] == label]
        if not found:
            raise ValueError(f"label {label!r} not found")
        tree = found[0]
    return tree


def leaf(path, tree):
    node = subtree(path, tree)
    if node[0] != 3:
        raise ValueError(f"{path} is not a leaf")
    return node[1]


def bls_verify(certificate, public_key):
    message = b"\x0dic-state-root" + digest(certificate["tree"])
    signature = pyblst.BlstP1Element.uncompress(certificate["signature"])
    key = pyblst.BlstP2Element.uncompress(public_key)
    hashed = pyblst.BlstP1Element.hash_to_group(message, DST)
    if not pyblst.final_verify(pyblst.miller_loop(signature, G2), pyblst.miller_loop(hashed, key)):
        raise ValueError("BLS signature does not verify")


def leb128(data):
    value = shift = 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
    return value


def python_verify(certificate_bytes, canister, root_key_der, reference_time):
    certificate = untag(cbor2.loads(certificate_bytes))
    delegation = certificate.get("delegation")
    key = root_key_der[DER_PREFIX_LEN:]
    if delegation:
        subnet = delegation["subnet_id"]
        inner = untag(cbor2.loads(delegation["certificate"]))
        if "delegation" in inner:
            raise ValueError("nested delegation")
        bls_verify(inner, key)
        key = leaf([b"subnet", subnet, b"public_key"], inner["tree"])[DER_PREFIX_LEN:]
        shards = subtree([b"canister_ranges", subnet], inner["tree"])
        ranges = [r for node in flatten(shards) if node[0] == 2 for r in untag(cbor2.loads(node[2][1]))]
        if not any(low <= canister <= high for low, high in ranges):
            raise ValueError("canister outside the ranges")
    bls_verify(certificate, key)
    if abs(leb128(leaf([b"time"], certificate["tree"])) - reference_time) > 300 * 10**9:
        raise ValueError("stale")


# ---- helpers ----

def median_of(function, runs):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def spawn(argv, env=None):
    """Spawn-to-exit of one process (posix_spawn + waitpid), output discarded; fails loudly on a non-zero exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        pid = os.posix_spawn(argv[0], argv, env or os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv[:4])}… failed with status {status}")


def row(name, omni, peer, peer_name, runs):
    return {"name": name, "omni_seconds": omni, "peer_seconds": peer, "peer": peer_name, "ratio": omni / peer,
            "runs": runs}


# ---- row (a) ----

def certificate_row(args):
    with open(os.path.join(VECTORS, "ic", "certificates.json")) as file:
        entry = next(c for c in json.load(file)["certificates"] if c["id"] == CERTIFICATE_ID)
    with open(os.path.join(VECTORS, "ic", "mainnet_root_key.json")) as file:
        root = json.load(file)
    root_der = bytes.fromhex(root["der_hex"])
    certificate = bytes.fromhex(entry["certificate_cbor_hex"])
    canister_text = entry["effective_canister_id"]
    time_ns = entry["derived"]["time_ns"]
    import ic_replica  # principal parsing only
    canister = ic_replica.principal_from_text(canister_text)
    python_verify(certificate, canister, root_der, time_ns)
    peer = median_of(lambda: python_verify(certificate, canister, root_der, time_ns), max(args.runs * 4, 50))

    has_command = args.omni_cli and subprocess.run(
        [args.omni_cli, "ic", "certificate", "verify", "--help"], capture_output=True).returncode == 0
    if has_command:
        with tempfile.NamedTemporaryFile("w", suffix=".hex", delete=False) as file:
            file.write(entry["certificate_cbor_hex"])
        argv = [args.omni_cli, "ic", "certificate", "verify", "@" + file.name, "--canister", canister_text,
                "--at", str(time_ns // 1_000_000_000)]
        spawn(argv)
        omni = median_of(lambda: spawn(argv), args.runs)
        os.unlink(file.name)
        name = "ic certificate verify, delegated mainnet cert (whole process)"
    else:
        omni = seconds_per_op(args.omni, "ic-certificate-verify", 200, env=dict(os.environ, OMNI_VECTORS=VECTORS))
        name = "ic certificate verify, delegated mainnet cert (in-process: omni-bench; no 'certificate verify' in this omni)"
    return row(name, omni, peer, "cbor2+pyblst (in-process)", args.runs)


# ---- row (b) ----

class Replica:
    def __init__(self):
        self.process = subprocess.Popen([sys.executable, os.path.join(HERE, "ic_replica.py")], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.info = json.loads(self.process.stdout.readline())

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def python_query(url, canister_text, arg):
    from ic.agent import sign_request
    from ic.candid import decode
    from ic.identity import Identity
    identity = Identity(anonymous=True)
    import ic_replica
    request = {"request_type": "query", "sender": identity.sender().bytes,
               "canister_id": ic_replica.principal_from_text(canister_text), "method_name": "greet", "arg": arg,
               "ingress_expiry": time.time_ns() + 120 * 10**9}
    _, body = sign_request(request, identity)
    parsed = urllib.parse.urlparse(url)

    def once():
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=20)
        connection.request("POST", f"/api/v3/canister/{canister_text}/query", b"\xd9\xd9\xf7" + body,
                           {"Content-Type": "application/cbor"})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        reply = untag(cbor2.loads(data))
        assert reply["status"] == "replied", reply
        return decode(reply["reply"]["arg"])

    return once


def query_rows(args):
    from ic.candid import Types, encode
    replica = Replica()
    try:
        url, key, canister = replica.info["url"], replica.info["root_key"], replica.info["canister_id"]
        arg = encode([{"type": Types.Text, "value": "bench"}])
        peer_once = python_query(url, canister, arg)
        peer_once()
        with tempfile.TemporaryDirectory() as cache:
            did = os.path.join(cache, "service.did")
            with open(did, "w") as file:
                file.write("service : { greet : (text) -> (text) query }")
            env = dict(os.environ, XDG_CACHE_HOME=cache)
            base = [args.omni_cli, "ic", "query", canister, "greet", '("bench")', "--network", url, "--root-key", key]
            spawn(base + ["--did", did], env)  # warms the node-key cache
            typed, metadata, peer = [], [], []
            for _ in range(args.runs):
                typed.append(median_of(lambda: spawn(base + ["--did", did], env), 1))
                metadata.append(median_of(lambda: spawn(base, env), 1))
                peer.append(median_of(peer_once, 1))
        peer_median = statistics.median(peer)
        name = "python query (ic-py request, http.client POST, unverified)"
        return [row("ic query, verified round trip, --did (whole process)", statistics.median(typed), peer_median,
                    name, args.runs),
                row("ic query, verified, types from candid:service (whole process)", statistics.median(metadata),
                    peer_median, name, args.runs)]
    finally:
        replica.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", required=True, help="the omni-bench binary")
    parser.add_argument("--omni-cli", required=True, help="the omni binary")
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    for result in [certificate_row(args)] + query_rows(args):
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
