#!/usr/bin/env python3
"""`make bench`: times omni next to the independent peers in ONE run and prints ratios.

A benchmark, not a test: nothing here passes or fails on timing. Each `Tests/Peers/bench_<area>.py` script times the
peer itself and runs the matching `omni-bench <name>` (or the omni binary) in the same run, alternating the two, and
prints JSON lines that carry at least {"name", "omni_seconds", "peer_seconds", "ratio"} (ratio = omni / peer, lower
is better for omni). This driver adds start-up rows (issue 10): cold start of `omni version`, `omni --version` and
`omni version --libraries` (which loads what the C program links), peak memory (GNU time's maximum RSS) and stripped binary size, next to a C program linking the same system libraries (`--c-peer`, built from
Tests/Peers/start_peer.c by `make bench`), each with its target; and the time `omni candid bind` takes to write Swift
bindings for the largest real interface (Orbit station, 300 types, from ../shared/realworld), next to `omni candid
check` reading the same file (there is no other Swift generator to compare with).
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def spawn_once(argv: list, devnull: int, env=None) -> float:
    """Wall time from spawn to exit (posix_spawn + waitpid: no shell, no Python pipes)."""
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env or os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed with status {status}")
    return elapsed


def start_up(commands: dict, runs: int, env=None) -> dict:
    """Median wall time of each command, run in alternation so that load on the machine falls on all of them
    alike; the first three rounds only warm the page cache ("cold" means a fresh process)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    samples = {name: [] for name in commands}
    for round_number in range(runs + 3):
        for name, argv in commands.items():
            elapsed = spawn_once(argv, devnull, env)
            if round_number >= 3:
                samples[name].append(elapsed)
    os.close(devnull)
    return {name: statistics.median(values) for name, values in samples.items()}


def peak_memory(argv: list, runs: int = 7):
    """Median peak RSS in bytes, from /usr/bin/time (GNU time): a child spawned from Python would report
    Python's own RSS, which it shares until exec. None without /usr/bin/time."""
    if not os.access("/usr/bin/time", os.X_OK):
        return None
    values = []
    for _ in range(runs):
        result = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {result.stderr}")
        values.append(int(result.stderr.strip().splitlines()[-1]) * 1024)  # KiB
    return statistics.median(values)


def stripped_size(binary: str, scratch_dir: str) -> int:
    """Size of `binary` after `strip` (what `make install` ships), measured on a copy under scratch_dir."""
    os.makedirs(scratch_dir, exist_ok=True)
    copy = os.path.join(scratch_dir, os.path.basename(binary) + ".stripped")
    subprocess.run(["strip", "-o", copy, binary], check=True)
    return os.path.getsize(copy)


def start_up_rows(omni: str, c_peer: str, runs: int) -> list:
    """Cold start, peak memory and size of omni next to a C program linking the same libraries (issue 10)."""
    # Targets (time, memory) per command. `omni version --libraries` loads what the C program links, so the C
    # program is its floor (no fixed target).
    floor = "C program is the floor"
    targets = {"omni version": ("<= 4 ms", "<= 12 MiB"), "omni --version": ("<= 4 ms", "<= 12 MiB"),
               "omni version --libraries": (floor, floor)}
    commands = {"omni version": [omni, "version"], "omni --version": [omni, "--version"],
                "omni version --libraries": [omni, "version", "--libraries"]}
    if c_peer:
        commands["C peer"] = [c_peer]
    measured = start_up(commands, runs)
    peer_seconds = measured.get("C peer")
    peer_rss = peak_memory(commands["C peer"]) if c_peer else None
    scratch = os.path.join(os.path.dirname(c_peer or omni), "bench-stripped")
    peer_size = stripped_size(c_peer, scratch) if c_peer else None
    peer = "C program, same libraries" if c_peer else None
    rows = []
    for command, (time_target, _) in targets.items():
        rows.append({"name": f"cold start: {command}", "unit": "seconds", "omni_value": measured[command],
                     "peer_value": peer_seconds, "peer": peer, "runs": runs, "target": time_target})
    for command, (_, memory_target) in targets.items():
        rows.append({"name": f"peak memory: {command}", "unit": "bytes", "omni_value": peak_memory(commands[command]),
                     "peer_value": peer_rss, "peer": peer, "target": memory_target})
    rows.append(ird_start_up_row(omni, scratch, runs))
    rows.append({"name": "stripped binary size", "unit": "bytes", "omni_value": stripped_size(omni, scratch),
                 "peer_value": peer_size, "peer": peer, "target": "<= 20 MB"})
    return rows


def realworld_directory() -> str:
    """../shared/realworld beside the repository, or $OMNI_VECTORS/../realworld (as the tests find it)."""
    vectors = os.environ.get("OMNI_VECTORS")
    if vectors:
        return os.path.join(os.path.dirname(os.path.abspath(vectors)), "realworld")
    return os.path.abspath(os.path.join(HERE, "..", "..", "..", "shared", "realworld"))


def bind_rows(omni: str, runs: int) -> list:
    """`omni candid bind` on Orbit station's interface (a copy in a scratch package; the corpus stays read-only),
    next to `omni candid check` of the same file."""
    source = os.path.join(realworld_directory(), "candid", "did", "orbit_station.did")
    if not os.path.exists(source):
        print(f"note: {source} is missing; the candid bind row is skipped", file=sys.stderr)
        return []
    scratch = tempfile.mkdtemp(prefix="omni-bench-bind-")
    try:
        shutil.copy(source, os.path.join(scratch, "orbit_station.did"))
        with open(os.path.join(scratch, "Package.swift"), "w") as package:
            package.write("// swift-tools-version:6.0\n")
        manifest = os.path.join(scratch, "bindings.toml")
        with open(manifest, "w") as text:
            text.write('[[canister]]\nname = "OrbitStation"\ndid = "orbit_station.did"\n')
        commands = {
            "bind": [omni, "candid", "bind", "--manifest", manifest, "--out-file", os.path.join(scratch, "Bindings.swift")],
            "check": [omni, "candid", "check", os.path.join(scratch, "orbit_station.did")],
        }
        measured = start_up(commands, runs)
        lines = sum(1 for _ in open(os.path.join(scratch, "Bindings.swift")))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return [{"name": "candid bind: Orbit station (300 types)", "unit": "seconds", "omni_value": measured["bind"],
             "peer_value": measured["check"], "peer": "omni candid check of the same file", "runs": runs,
             "swift_lines": lines, "target": "<= 250 ms"}]


def ird_start_up_row(omni: str, scratch: str, runs: int) -> dict:
    """A command generated from the cached ird OpenAPI document (Tests/Peers/ird/openapi.json, 41 operations): the
    document is read, indexed and turned into commands on every run; target: at most twice `omni version
    --libraries`, which does what `omni version` did when the target was set (it loads the C libraries)."""
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(scratch, "ird-cache"))
    subprocess.run([omni, "ird", "spec", "fetch", "--spec", os.path.join(HERE, "ird", "openapi.json")], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    yardstick = "omni version --libraries"
    commands = {"generated": [omni, "ird", "dns", "create-record", "--help"], yardstick: [omni, "version", "--libraries"]}
    measured = start_up(commands, runs, env)
    return {"name": "cold start: omni ird dns create-record --help", "unit": "seconds", "omni_value": measured["generated"],
            "peer_value": measured[yardstick], "peer": yardstick, "runs": runs, "target": f"<= 2x {yardstick}"}


def fmt_value(value, unit: str, name: str) -> str:
    if value is None:
        return "-"
    if unit == "seconds":
        return fmt_seconds(value)
    if name.startswith("peak memory"):
        return f"{value / (1 << 20):.1f} MiB"
    return f"{value / 1e6:.2f} MB"


def fmt_seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} µs"


def print_load_rows(rows: list) -> None:
    """bench_load.py's runs (issue 17): rates, RSS after the warm-up and at the end, fds, and the bar each met."""
    print()
    print(f"{'load (bench_load.py)':40} {'rate':>22} {'RSS warm-up peak → end (growth)':>32} {'fds':>9} {'errors':>7}  bar")
    for row in rows:
        if "sessions_per_second" in row:
            rate = f"{row['sessions_per_second']:.0f} sess/s {row['frames_per_second']:.0f} fr/s"
        elif "operations_per_second" in row:
            rate = f"{row['operations_per_second']:.0f} ops/s {row['frames_per_second']:.0f} fr/s"
        else:
            rate = f"{row['accepted_per_second']:.1f} ok/s {row['omni_processes_per_second']:.1f} proc/s"
        if "rss_warm" in row:
            memory = (f"{row['rss_warm'] / (1 << 20):.1f} → {row['rss_end'] / (1 << 20):.1f} "
                      f"({row['rss_growth_after_warmup'] * 100:+.1f} %)")
            fds = f"{row['fds_start']} → {row['fds_end']}"
        else:
            memory, fds = "-", "-"
        verdict = "met" if row["meets_bar"] else "NOT MET"
        print(f"{row['name'][:40]:40} {rate:>22} {memory:>32} {fds:>9} {row['errors']:>7}  {verdict}: {row['target']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", required=True, help="the release omni binary")
    parser.add_argument("--omni-bench", required=True, help="the release omni-bench binary")
    parser.add_argument("--c-peer", help="the C program linking omni's libraries (Tests/Peers/start_peer.c, built)")
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--only", help="run only the areas whose name contains this text (\"start\": start-up and "
                                           "size rows; otherwise the bench_<area>.py scripts)")
    args = parser.parse_args()

    start_rows = []
    if not args.only or args.only in "start":
        start_rows = start_up_rows(os.path.abspath(args.omni), args.c_peer and os.path.abspath(args.c_peer),
                                   args.runs)
        for row in start_rows:
            print(json.dumps(row), flush=True)
    generation_rows = []
    if not args.only or args.only in "bind":
        generation_rows = bind_rows(os.path.abspath(args.omni), args.runs)
        for row in generation_rows:
            print(json.dumps(row), flush=True)
    rows = []
    load_rows = []
    budget_rows = []
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
            if row.get("budget"):
                budget_rows.append(row)
                print(line, flush=True)
            elif "omni_seconds" in row and "peer_seconds" in row:
                rows.append(row)
                print(line, flush=True)
            elif row.get("load"):
                load_rows.append(row)
                print(line, flush=True)

    if start_rows:
        print()
        print(f"{'start-up (median of ' + str(args.runs) + ' runs; memory of 7) and size':52} {'omni':>12} {'C peer':>12} "
              f"{'omni/peer':>10}")
        for row in start_rows:
            omni_text = fmt_value(row["omni_value"], row["unit"], row["name"])
            peer_text = fmt_value(row["peer_value"], row["unit"], row["name"])
            comparable = row["omni_value"] and row["peer_value"] and not row["name"].startswith("stripped")
            ratio = f"{row['omni_value'] / row['peer_value']:>9.2f}×" if comparable else f"{'-':>10}"
            print(f"{row['name'][:52]:52} {omni_text:>12} {peer_text:>12} {ratio}  target {row['target']}")
    if generation_rows:
        print()
        print(f"{'generation (median of ' + str(args.runs) + ' runs)':52} {'omni':>12} {'check':>12} {'bind/check':>10}")
        for row in generation_rows:
            ratio = row["omni_value"] / row["peer_value"]
            print(f"{row['name'][:52]:52} {fmt_seconds(row['omni_value']):>12} {fmt_seconds(row['peer_value']):>12} "
                  f"{ratio:>9.2f}×  target {row['target']} ({row['swift_lines']} lines of Swift)")
    if load_rows:
        print_load_rows(load_rows)
    if budget_rows:
        print()
        print(f"{'work budgets: the most one input costs (omni alone)':52} {'omni':>12}")
        for row in budget_rows:
            print(f"{row['name'][:52]:52} {fmt_seconds(row['omni_seconds']):>12}")
    if not rows:
        return
    print()
    print(f"{'benchmark':52} {'omni':>12} {'peer':>12} {'omni/peer':>10}")
    for row in rows:
        ratio = row["omni_seconds"] / row["peer_seconds"] if row["peer_seconds"] else float("nan")
        peer = row.get("peer", "")
        label = row["name"] + (f" (vs {peer})" if peer else "")
        note = f"  target {row['target']}" if "target" in row else ""
        ratio_text = f"{ratio:>9.2f}×" if ratio >= 0.01 or ratio != ratio else f"{ratio:>9.1e}×"
        print(f"{label[:52]:52} {fmt_seconds(row['omni_seconds']):>12} {fmt_seconds(row['peer_seconds']):>12} "
              f"{ratio_text}{note}")


if __name__ == "__main__":
    main()
