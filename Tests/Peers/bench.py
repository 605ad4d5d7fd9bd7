#!/usr/bin/env python3
"""`make bench`: times omni next to the independent peers in ONE run and prints ratios.

A benchmark, not a test: nothing here passes or fails on timing. Each `Tests/Peers/bench_<area>.py` script times the
peer itself and runs the matching `omni-bench <name>` (or the omni binary) in the same run, alternating the two, and
prints JSON lines that carry at least {"name", "omni_seconds", "peer_seconds", "ratio"} (ratio = omni / peer, lower
is better for omni). This driver adds omni's cold start and prints one table.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cold_start(omni: str, runs: int) -> dict:
    """Median wall time of `omni version` from spawn to exit (posix_spawn + waitpid: no shell, no Python pipes)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    samples = []
    for i in range(runs + 3):
        start = time.perf_counter()
        pid = os.posix_spawn(omni, [omni, "version"], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status = os.waitpid(pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"omni version failed with status {status}")
        if i >= 3:  # the first runs warm the page cache; "cold" here means a fresh process
            samples.append(elapsed)
    os.close(devnull)
    baseline = []
    for _ in range(runs):
        start = time.perf_counter()
        pid = os.posix_spawn("/bin/true", ["/bin/true"], os.environ)
        os.waitpid(pid, 0)
        baseline.append(time.perf_counter() - start)
    return {"name": "cold start: omni version", "omni_seconds": statistics.median(samples),
            "peer_seconds": statistics.median(baseline), "peer": "/bin/true", "runs": runs,
            "target": "<= 15 ms"}


def fmt_seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", required=True, help="the release omni binary")
    parser.add_argument("--omni-bench", required=True, help="the release omni-bench binary")
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--only", help="run only bench scripts whose area contains this text")
    args = parser.parse_args()

    rows = [cold_start(os.path.abspath(args.omni), args.runs)]
    print(json.dumps(rows[0]), flush=True)
    for script in sorted(glob.glob(os.path.join(HERE, "bench_*.py"))):
        area = os.path.basename(script)[len("bench_"):-3]
        if args.only and args.only not in area:
            continue
        result = subprocess.run([sys.executable, script, "--omni", os.path.abspath(args.omni_bench),
                                 "--omni-cli", os.path.abspath(args.omni)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{area}: bench failed:\n{result.stderr}", file=sys.stderr)
            continue
        for line in result.stdout.splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "omni_seconds" in row and "peer_seconds" in row:
                rows.append(row)
                print(line, flush=True)

    print()
    print(f"{'benchmark':52} {'omni':>12} {'peer':>12} {'omni/peer':>10}")
    for row in rows:
        ratio = row["omni_seconds"] / row["peer_seconds"] if row["peer_seconds"] else float("nan")
        peer = row.get("peer", "")
        label = row["name"] + (f" (vs {peer})" if peer else "")
        note = f"  target {row['target']}" if "target" in row else ""
        print(f"{label[:52]:52} {fmt_seconds(row['omni_seconds']):>12} {fmt_seconds(row['peer_seconds']):>12} "
              f"{ratio:>9.2f}×{note}")


if __name__ == "__main__":
    main()
