#!/usr/bin/env python3
"""Times one full IC BLS verification in blst (pyblst) — the same work as `omni-bench bls-verify`:
decompress the signature (G1) and the public key (G2) with subgroup checks, hash the message to G1,
two Miller loops and one final exponentiation.

Prints one JSON line {"name": "bls-verify", "iterations": N, "seconds_per_op": median, "peer": "blst"}.
With --omni PATH (the omni-bench binary) it also runs `PATH bls-verify N` in the same run, alternating the two
RUNS times, and prints both medians and the ratio omni/blst."""
import argparse
import json
import statistics
import subprocess
import time

import pyblst

from omni_bench import seconds_per_op

DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
# IC mainnet delegation certificate signed by the root key (ic_bls_known_answers.json).
PK = bytes.fromhex(
    "814c0e6ec71fab583b08bd81373c255c3c371b2e84863c98a4f1e08b74235d14fb5d9c0cd546d9685f913a0c0b2cc534"
    "1583bf4b4392e467db96d65b9bb4cb717112f8472e0d5a4d14505ffd7484b01291091c5f87b98883463f98091a0baaae")
MSG = bytes.fromhex("0d69632d73746174652d726f6f74e6c01e909b4923345ce5970962bcfe3004bfd8474a21dae28f50692502f46d90")
SIG = bytes.fromhex("ace9fcdd9bc977e05d6328f889dc4e7c99114c737a494653cb27a1f55c06f4555e0f160980af5ead098acc195010b2f7")
G2 = pyblst.BlstP2Element.uncompress(bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"))


def verify_once() -> bool:
    sig = pyblst.BlstP1Element.uncompress(SIG)   # includes the subgroup check
    pk = pyblst.BlstP2Element.uncompress(PK)     # includes the subgroup check
    h = pyblst.BlstP1Element.hash_to_group(MSG, DST)
    return pyblst.final_verify(pyblst.miller_loop(sig, G2), pyblst.miller_loop(h, pk))


def blst_median(iterations: int) -> float:
    assert verify_once(), "blst rejects the reference signature"
    for _ in range(max(1, iterations // 10)):
        verify_once()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        verify_once()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def omni_median(binary: str, iterations: int) -> float:
    return seconds_per_op(binary, "bls-verify", iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("iterations", nargs="?", type=int, default=300)
    parser.add_argument("--omni", help="path of the omni-bench binary to compare against")
    parser.add_argument("--omni-cli", help="the omni binary (accepted for the bench.py protocol; unused here)")
    parser.add_argument("--runs", type=int, default=5, help="alternating runs when --omni is given")
    args = parser.parse_args()
    if not args.omni:
        print(json.dumps({"name": "bls-verify", "iterations": args.iterations,
                          "seconds_per_op": blst_median(args.iterations), "peer": "blst"}))
        return
    blst_runs, omni_runs = [], []
    for _ in range(args.runs):
        blst_runs.append(blst_median(args.iterations))
        omni_runs.append(omni_median(args.omni, args.iterations))
    blst, omni = statistics.median(blst_runs), statistics.median(omni_runs)
    print(json.dumps({"name": "BLS verify (2 decompressions, hash_to_curve, pairing check)", "peer": "blst",
                      "runs": args.runs, "iterations": args.iterations, "omni_seconds": omni, "peer_seconds": blst,
                      "ratio": omni / blst, "target": "<= 1.5x blst", "blst_runs": blst_runs, "omni_runs": omni_runs}))


if __name__ == "__main__":
    main()
