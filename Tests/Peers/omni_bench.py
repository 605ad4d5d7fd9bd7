"""Runs one in-process benchmark, `omni-bench NAME ITERATIONS`, for the bench_*.py scripts (each imports this from
its own directory): the median seconds per operation it reports, or the run stops with the benchmark's error."""
import json
import subprocess


def seconds_per_op(binary: str, name: str, iterations: int, env=None) -> float:
    out = subprocess.run([binary, name, str(iterations)], check=True, capture_output=True, text=True, env=env).stdout
    row = json.loads(out.strip().splitlines()[-1])
    if "error" in row:
        raise SystemExit(f"omni-bench {name}: {row['error']}")
    return float(row["seconds_per_op"])
