#!/usr/bin/env python3
"""Times sr25519 per operation in schnorrkel (py-sr25519-bindings) — the same work as the `omni-bench sr25519-*`
benchmarks: a fixed key from the mini secret key 00 01 … 1f, a 64-byte message, context "substrate", a fixed
chain code; verification and public derivation start from the public key's bytes, as both sides decode them.

With --omni PATH (the omni-bench binary) it runs each omni benchmark in the same run, alternating the two RUNS
times, and prints one JSON line per operation with both medians and the ratio omni/schnorrkel (target <= 2x).
The VRF has no schnorrkel binding on PyPI, so the VRF rows carry omni's time only."""
import argparse
import json
import statistics
import subprocess
import time

import sr25519

from omni_bench import seconds_per_op

MINI = bytes(range(32))
MESSAGE = bytes((7 * i) & 0xff for i in range(64))
CHAIN_CODE = bytes(255 - i for i in range(32))
PUBLIC, SECRET = sr25519.pair_from_seed(MINI)
SIGNATURE = sr25519.sign((PUBLIC, SECRET), MESSAGE)
assert sr25519.verify(SIGNATURE, MESSAGE, PUBLIC)

# (omni-bench name, row label, the same operation in schnorrkel)
OPERATIONS = [
    ("sr25519-keypair-from-mini-secret", "sr25519 keypair from mini secret",
     lambda: sr25519.pair_from_seed(MINI)),
    ("sr25519-sign", "sr25519 sign (64-byte message)", lambda: sr25519.sign((PUBLIC, SECRET), MESSAGE)),
    ("sr25519-verify", "sr25519 verify (key from bytes)", lambda: sr25519.verify(SIGNATURE, MESSAGE, PUBLIC)),
    ("sr25519-derive-hard", "sr25519 hard derive (keypair)",
     lambda: sr25519.hard_derive_keypair((CHAIN_CODE, PUBLIC, SECRET), b"")),
    ("sr25519-derive-soft", "sr25519 soft derive (keypair)",
     lambda: sr25519.derive_keypair((CHAIN_CODE, PUBLIC, SECRET), b"")),
    ("sr25519-derive-soft-public", "sr25519 soft derive (public key)",
     lambda: sr25519.derive_pubkey((CHAIN_CODE, PUBLIC), b"")),
]
OMNI_ONLY = [("sr25519-vrf-sign", "sr25519 VRF sign"), ("sr25519-vrf-verify", "sr25519 VRF verify")]


def peer_median(operation, iterations: int) -> float:
    for _ in range(max(1, iterations // 10)):
        operation()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        operation()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def omni_median(binary: str, name: str, iterations: int) -> float:
    return seconds_per_op(binary, name, iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("iterations", nargs="?", type=int, default=2000)
    parser.add_argument("--omni", help="path of the omni-bench binary to compare against")
    parser.add_argument("--omni-cli", help="the omni binary (accepted for the bench.py protocol; unused here)")
    parser.add_argument("--runs", type=int, default=5, help="alternating runs when --omni is given")
    args = parser.parse_args()
    for name, label, operation in OPERATIONS:
        if not args.omni:
            print(json.dumps({"name": name, "iterations": args.iterations, "peer": "schnorrkel",
                              "seconds_per_op": peer_median(operation, args.iterations)}))
            continue
        peer_runs, omni_runs = [], []
        for _ in range(args.runs):
            peer_runs.append(peer_median(operation, args.iterations))
            omni_runs.append(omni_median(args.omni, name, args.iterations))
        peer, omni = statistics.median(peer_runs), statistics.median(omni_runs)
        print(json.dumps({"name": label, "peer": "schnorrkel", "runs": args.runs,
                          "iterations": args.iterations, "omni_seconds": omni, "peer_seconds": peer,
                          "ratio": omni / peer, "target": "<= 2x schnorrkel", "peer_runs": peer_runs,
                          "omni_runs": omni_runs}), flush=True)
    if args.omni:
        for name, label in OMNI_ONLY:
            seconds = statistics.median(omni_median(args.omni, name, args.iterations // 2) for _ in range(args.runs))
            print(json.dumps({"name": label, "omni_only": True, "omni_seconds_per_op": seconds,
                              "note": "no schnorrkel VRF binding on PyPI"}), flush=True)


if __name__ == "__main__":
    main()
