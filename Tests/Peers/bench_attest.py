#!/usr/bin/env python3
"""Times App Attest attestation appraisal: omni's batch mode next to pyattest 1.0.5, on the same inputs.

attest_peer.py mints N valid production attestations under a fresh test root whose certificates are valid now
(pyattest checks certificates at the current time only). Then, alternating RUNS times:
  * omni:     `omni attest verify-attestation --batch FILE --trust-line-policy --output jsonl` over all N (one process; its start-up is
              included and spread over N), seconds per attestation;
  * pyattest: `Attestation(...).verify()` for each line in this process, seconds per attestation;
  * omni-bench `attest-verify-attestation` (in-process, no start-up) on the same first line, when --omni is given.
Every verdict is checked to be valid on both sides before timing counts.

Prints JSON lines {"name", "omni_seconds", "peer_seconds", "peer", ...} (seconds per attestation) for bench.py."""
import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from omni_bench import seconds_per_op

HERE = os.path.dirname(os.path.abspath(__file__))
PYATTEST = "pyattest==1.0.5"


def ensure_pyattest() -> None:
    try:
        import pyattest  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", PYATTEST],
                       check=True, stdout=sys.stderr)


def mint(count: int, seed: int) -> list:
    out = subprocess.run([sys.executable, os.path.join(HERE, "attest_peer.py"), "valid", "--seed", str(seed),
                          "--count", str(count)], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def pyattest_seconds(lines: list) -> float:
    from pyattest.attestation import Attestation
    from pyattest.configs.apple import AppleConfig

    async def verify_all() -> None:
        for line in lines:
            config = AppleConfig(key_id=base64.b64decode(line["key_id"]), app_id=line["app_id"], production=True,
                                 root_ca=line["root_pem"].encode())
            attestation = Attestation(base64.b64decode(line["attestation_b64"]), base64.b64decode(line["challenge_b64"]),
                                      config)
            await attestation.verify()  # raises on any refusal
            if not attestation.verified:
                raise SystemExit("pyattest refused a valid attestation")

    start = time.perf_counter()
    asyncio.run(verify_all())
    return (time.perf_counter() - start) / len(lines)


def omni_batch_seconds(omni: str, path: str, count: int) -> float:
    start = time.perf_counter()
    # The minted lines carry their own test root and time: trusted lines, hence --trust-line-policy.
    result = subprocess.run([omni, "attest", "verify-attestation", "--batch", path, "--trust-line-policy", "--output", "jsonl"],
                            capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    if result.returncode != 0 or len(verdicts) != count or not all(v.get("valid") for v in verdicts):
        raise SystemExit(f"omni batch did not accept every attestation (exit {result.returncode}): {result.stderr[:400]}")
    return elapsed / count


def omni_bench_seconds(binary: str, path: str, iterations: int) -> float:
    return seconds_per_op(binary, "attest-verify-attestation", iterations, env=dict(os.environ, OMNI_ATTEST_BENCH_INPUT=path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", help="the omni-bench binary (in-process timing)")
    parser.add_argument("--omni-cli", required=True, help="the omni binary (batch mode timing)")
    parser.add_argument("--count", type=int, default=200, help="attestations per batch")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "big"))
    args = parser.parse_args()
    ensure_pyattest()
    lines = mint(args.count, args.seed)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "attestations.jsonl")
        with open(path, "w") as handle:
            for line in lines:
                handle.write(json.dumps({k: line[k] for k in ("attestation_b64", "key_id", "app_id", "challenge_b64",
                                                             "root_pem", "verify_at")}) + "\n")
        first = os.path.join(directory, "first.jsonl")
        with open(first, "w") as handle:
            handle.write(json.dumps(lines[0]) + "\n")
        omni_runs, peer_runs, bench_runs = [], [], []
        for _ in range(args.runs):
            omni_runs.append(omni_batch_seconds(args.omni_cli, path, len(lines)))
            peer_runs.append(pyattest_seconds(lines))
            if args.omni:
                bench_runs.append(omni_bench_seconds(args.omni, first, 200))
    peer = statistics.median(peer_runs)
    print(json.dumps({"name": f"attest: verify-attestation --batch ({args.count} lines, per attestation)",
                      "omni_seconds": statistics.median(omni_runs), "peer_seconds": peer, "peer": PYATTEST,
                      "attestations_per_second": 1 / statistics.median(omni_runs), "peer_per_second": 1 / peer,
                      "runs": args.runs, "seed": args.seed}), flush=True)
    if bench_runs:
        print(json.dumps({"name": "attest: appraise one attestation in-process", "omni_seconds": statistics.median(bench_runs),
                          "peer_seconds": peer, "peer": PYATTEST, "runs": args.runs}), flush=True)


if __name__ == "__main__":
    main()
