#!/usr/bin/env python3
"""Runs omni's libFuzzer targets (`make fuzz`), one after another or --jobs at a time.

For each target: writes fresh seeds (built in code by `omni-fuzz seed`, plus inputs read from the shared vectors
at this moment; nothing is copied into the repository), runs the fuzz binary for --seconds on the corpus under
.fuzz/<target>/ with the regressions of Tests/Fuzz/regressions/<target>/ as extra inputs and the target's
dictionary when it has one, and reads libFuzzer's final statistics. Prints executions, crashes and timeouts per
target and exits 1 when any target found anything (its inputs are under .fuzz/<target>/artifacts/). Each target's
line is also appended to .fuzz/summary.tsv as soon as it finishes, so an interrupted campaign keeps what it ran.

--totals adds up summary.tsv per target (--since DATE to start there): a long campaign run in pieces, each
resuming from the corpus the last one left, reports its executions and findings this way. Its last column counts
only what ran on the code as it is: the runs after a target's last finding, by a fuzz binary built after the last
change that changes.tsv lists for the target.
"""
import argparse
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
# Set by SIGINT or SIGTERM: the running libFuzzer processes (which get SIGINT too, from the terminal or the process
# group) print their statistics and stop, their rows are written, and no further target or round starts.
STOPPING = threading.Event()
RUNNING, RUNNING_LOCK = set(), threading.Lock()  # the libFuzzer processes, to pass the signal on to
FINDING_PREFIXES = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")


def targets(replayer):
    listing = subprocess.run([replayer, "list"], check=True, capture_output=True, text=True).stdout
    return [line.split("\t", 1)[0] for line in listing.splitlines() if line.strip()]


def findings(directory):
    if not os.path.isdir(directory):
        return set()
    return {name for name in os.listdir(directory) if name.startswith(FINDING_PREFIXES)}


def run_target(name, options):
    root = os.path.join(options.corpus_root, name)
    corpus, seeds, artifacts = (os.path.join(root, part) for part in ("corpus", "seeds", "artifacts"))
    for directory in (corpus, artifacts):
        os.makedirs(directory, exist_ok=True)
    subprocess.run(["rm", "-rf", seeds], check=True)
    seed_command = [options.replayer, "seed", name, seeds]
    if options.vectors:
        seed_command += ["--vectors", options.vectors]
    if options.realworld:
        seed_command += ["--realworld", options.realworld]
    subprocess.run(seed_command, check=True, stdout=subprocess.DEVNULL)

    environment = dict(os.environ, OMNI_FUZZ_TARGET=name,
                       # libFuzzer reports the crash; Swift's own backtracer would only slow it down.
                       SWIFT_BACKTRACE="enable=no",
                       # One-time allocations only (why: lsan.supp); leaks while running inputs are still reported.
                       LSAN_OPTIONS="suppressions=" + os.path.join(HERE, "lsan.supp") + ":print_suppressions=0")
    nice = ["nice", "-n", str(options.nice)] if options.nice else []
    dictionary = os.path.join(HERE, "dict", name + ".dict")
    regressions = os.path.join(HERE, "regressions", name)
    inputs = [corpus, seeds] + ([regressions] if os.path.isdir(regressions) else [])
    flaky_directory = os.path.join(root, "flaky")
    log_path = os.path.join(root, "last-run.log")
    executions, slowest, peak, status, flaky, real = 0, 0, 0, 0, [], []
    started = time.monotonic()
    started_at, built_at = utc_stamp(time.time()), utc_stamp(os.path.getmtime(options.fuzzer))
    with open(log_path, "w") as log:
        # libFuzzer stops at its first finding. A timeout that does not reproduce on its own (the machine was
        # busy: -timeout is wall-clock time) is set aside and the run resumes for the rest of the budget.
        while not STOPPING.is_set():
            remaining = options.seconds - int(time.monotonic() - started)
            if remaining < 1 or (options.runs and executions >= options.runs):
                break
            before = findings(artifacts)
            command = nice + [options.fuzzer, f"-max_total_time={remaining}", "-timeout=1", "-rss_limit_mb=2048",
                              f"-max_len={options.max_len}", f"-artifact_prefix={artifacts}/", "-print_final_stats=1", "-print_pcs=0"]
            if os.path.exists(dictionary):
                command.append(f"-dict={dictionary}")
            if options.runs:
                command.append(f"-runs={options.runs - executions}")
            log.flush()
            offset = log.tell()
            with RUNNING_LOCK:
                if STOPPING.is_set():
                    break
                process = subprocess.Popen(command + inputs, env=environment, stdout=log, stderr=subprocess.STDOUT)
                RUNNING.add(process)
            status = process.wait()
            with RUNNING_LOCK:
                RUNNING.discard(process)
            log.flush()
            with open(log_path, errors="replace") as reread:
                reread.seek(offset)
                text = reread.read()
            stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", text, re.MULTILINE))
            executions += int(stats.get("number_of_executed_units", 0))
            slowest = max(slowest, int(stats.get("slowest_unit_time_sec", 0)))
            peak = max(peak, int(stats.get("peak_rss_mb", 0)))
            new = sorted(findings(artifacts) - before)
            if status == 0 and not new:
                break
            timeouts = [f for f in new if f.startswith("timeout-")]
            if new and len(timeouts) == len(new) and not any(reproduces(options, environment, os.path.join(artifacts, f)) for f in timeouts):
                os.makedirs(flaky_directory, exist_ok=True)
                for f in timeouts:
                    os.replace(os.path.join(artifacts, f), os.path.join(flaky_directory, f))
                    flaky.append(os.path.join(flaky_directory, f))
                status = 0
                continue
            real = new
            break
    return {
        "target": name,
        "executions": executions,
        "seconds": time.monotonic() - started,
        "corpus": len(os.listdir(corpus)),
        "crashes": sum(1 for f in real if f.startswith(("crash-", "oom-", "leak-"))),
        "timeouts": sum(1 for f in real if f.startswith(("timeout-", "slow-unit-"))),
        "flaky": len(flaky),
        "slowest": slowest,
        "peak_rss_mb": peak,
        "status": status,
        "new": [os.path.join(artifacts, f) for f in real],
        "log": log_path,
        "started_at": started_at,
        "built_at": built_at,
    }


def reproduces(options, environment, path):
    """Whether a timeout input takes over a second again when run alone (three tries, none may pass)."""
    for _ in range(3):
        result = subprocess.run([options.fuzzer, "-timeout=1", "-runs=1", path], env=environment,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if result.returncode == 0:
            return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fuzzer", help="omni-fuzz built with -DOMNI_FUZZ -sanitize=fuzzer,address")
    parser.add_argument("--replayer", help="omni-fuzz of the normal build (list, seed)")
    parser.add_argument("--totals", action="store_true", help="add up .fuzz/summary.tsv per target and stop")
    parser.add_argument("--since", default="", help="with --totals: only runs from this UTC date or time on (2026-12-07)")
    parser.add_argument("--seconds", type=int, default=60, help="budget per target")
    parser.add_argument("--runs", type=int, default=0,
                        help="stop a target once it has run this many inputs (0: use the whole time budget)")
    parser.add_argument("--targets", default="", help="comma- or space-separated names (default: all)")
    parser.add_argument("--campaign", type=int, default=0,
                        help="run each target until it has this many executions on the current code (--totals' last "
                             "column, counted --since), at most --seconds per target; targets that have them are skipped")
    parser.add_argument("--vectors", default="")
    parser.add_argument("--realworld", default="")
    parser.add_argument("--corpus-root", default=".fuzz")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the fuzzer (0: none)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="targets fuzzed at once, each in its own libFuzzer process (one per core for a campaign)")
    parser.add_argument("--max-len", type=int, default=64 << 10,
                        help="longest input libFuzzer makes (longer seeds are cut; the largest real inputs are ~120 KiB .did files)")
    options = parser.parse_args()
    if options.totals:
        return print_totals(options)
    if not options.fuzzer or not options.replayer:
        parser.error("--fuzzer and --replayer are required to fuzz")

    available = targets(options.replayer)
    chosen = [t for t in re.split(r"[,\s]+", options.targets) if t] or available
    unknown = [t for t in chosen if t not in available]
    if unknown:
        print(f"unknown fuzz target(s): {' '.join(unknown)}; targets: {' '.join(available)}", file=sys.stderr)
        return 2
    for directory in (options.vectors, options.realworld):
        if directory and not os.path.isdir(directory):
            print(f"note: {directory} is absent; only the built-in seeds are used", file=sys.stderr)

    printing = threading.Lock()
    summary_path = os.path.join(options.corpus_root, "summary.tsv")

    def fuzz(name):
        if STOPPING.is_set():
            return {"target": name, "executions": 0, "new": [], "status": 0}
        if options.campaign:
            # Read when the target starts, so a campaign in pieces or in parallel resumes where the rows stand (under
            # the lock the rows are written with, so no half-written row is read).
            with printing:
                have = compute_totals(options)[0].get(name, {}).get("current", 0)
            if have >= options.campaign:
                with printing:
                    print(f"{name:22} has {have:,} executions on the current code; skipped", flush=True)
                return {"target": name, "executions": 0, "new": [], "status": 0}
            options_for_target = argparse.Namespace(**vars(options))
            options_for_target.runs = options.campaign - have
            result = run_target(name, options_for_target)
        else:
            result = run_target(name, options)
        if not result["new"] and (result["status"] == 0 or STOPPING.is_set()):
            flag = "  (interrupted)" if result["status"] != 0 else ""
        else:
            flag = "  <-- " + (", ".join(result["new"]) or f"exit {result['status']}, see {result['log']}")
        with printing:  # a line per target as it finishes
            print(f"{name:22} {result['executions']:>11,} execs  {result['executions'] / max(result['seconds'], 1e-9):>8,.0f}/s  "
                  f"corpus {result['corpus']:>5}  crashes {result['crashes']}  timeouts {result['timeouts']}  "
                  f"slowest {result['slowest']} s  rss {result['peak_rss_mb']} MB"
                  + (f"  ({result['flaky']} timeout(s) under load, not reproducible alone)" if result["flaky"] else "") + flag, flush=True)
            with open(summary_path, "a") as summary:
                stamp = utc_stamp(time.time())
                summary.write("\t".join(str(field) for field in (
                    stamp, name, options.seconds, result["executions"], result["crashes"], result["timeouts"],
                    result["flaky"], result["slowest"], result["peak_rss_mb"], result["status"],
                    result["started_at"], result["built_at"])) + "\n")
        return result

    def stop(number, _frame):
        if not STOPPING.is_set():
            print(f"fuzz.py: {signal.Signals(number).name}: recording the running targets, starting no more", file=sys.stderr, flush=True)
        with RUNNING_LOCK:
            STOPPING.set()
            for process in RUNNING:  # libFuzzer prints its statistics on SIGINT and exits
                process.send_signal(signal.SIGINT)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        results = list(pool.map(fuzz, chosen))

    ran = [r for r in results if "seconds" in r]  # not those skipped
    total = sum(r["executions"] for r in ran)
    bad = [r for r in ran if r["new"] or (r["status"] != 0 and not STOPPING.is_set())]
    print(f"{len(ran)} targets, {total:,} executions, "
          + (f"findings in {len(bad)}: {' '.join(r['target'] for r in bad)}" if bad else "no crashes, no timeouts")
          + ("; interrupted" if STOPPING.is_set() else ""))
    return 1 if bad else 130 if STOPPING.is_set() else 0


def utc_stamp(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def parse_stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


# A fuzz build takes about a minute: a run that started less than this after a change did not run it.
BUILD_TIME = timedelta(seconds=60)


def load_changes(path):
    """{target: (time, commit)} of the last change changes.tsv lists for each target, at its commit's time."""
    last = {}
    with open(path) as table:
        for number, line in enumerate(table, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise SystemExit(f"{path}:{number}: expected commit, targets and what changed, tab-separated")
            commit, names = fields[0], fields[1].split()
            shown = subprocess.run(["git", "-C", HERE, "show", "-s", "--format=%ct", commit + "^{commit}"],
                                   capture_output=True, text=True)
            if shown.returncode != 0:
                raise SystemExit(f"{path}:{number}: commit {commit} is not in this clone; "
                                 "what ran before or after it cannot be told apart")
            when = datetime.fromtimestamp(int(shown.stdout.strip()), timezone.utc)
            for name in names:
                if name not in last or last[name][0] < when:
                    last[name] = (when, commit)
    return last


def compute_totals(options):
    """Executions, findings and runs per target from summary.tsv (columns: time, target, budget, executions,
    crashes, timeouts, timeouts under load, slowest second, peak RSS MB, exit status, then the run's start and its
    fuzz binary's build time, which rows written before those columns existed lack), and how many rows lack the
    build time. No totals when summary.tsv is absent."""
    path = os.path.join(options.corpus_root, "summary.tsv")
    changes = load_changes(os.path.join(HERE, "changes.tsv"))
    totals, guessed = {}, 0
    if not os.path.exists(path):
        return totals, guessed
    with open(path) as summary:
        for number, line in enumerate(summary, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 10 or not fields[3].isdigit():
                print(f"{path}:{number}: not a summary row, skipped", file=sys.stderr)
                continue
            if fields[0] < options.since:
                continue
            row = totals.setdefault(fields[1], {"runs": 0, "executions": 0, "clean": 0, "current": 0, "crashes": 0, "timeouts": 0,
                                                "flaky": 0, "slowest": 0, "first": fields[0]})
            executions, found = int(fields[3]), int(fields[4]) or int(fields[5])
            row["runs"] += 1
            row["executions"] += executions
            # A finding restarts the clean count: what counts after a fix is what ran on the fixed code.
            row["clean"] = 0 if found else row["clean"] + executions
            # The binary's build time when the row has it; else the run's start (or, lacking that, the latest it
            # can have started) less a build's length, which assumes the binary was built just before the run.
            if len(fields) >= 12:
                built = parse_stamp(fields[11])
            else:
                guessed += 1
                started = parse_stamp(fields[10]) if len(fields) >= 11 else parse_stamp(fields[0]) - timedelta(seconds=int(fields[2]))
                built = started - BUILD_TIME
            changed = changes.get(fields[1])
            row["current"] = 0 if found else row["current"] + (executions if changed is None or built > changed[0] else 0)
            row["changed"] = changed[1] if changed else ""
            row["crashes"] += int(fields[4])
            row["timeouts"] += int(fields[5])
            row["flaky"] += int(fields[6])
            row["slowest"] = max(row["slowest"], int(fields[7]))
    return totals, guessed


def print_totals(options):
    totals, guessed = compute_totals(options)
    if not totals:
        print(f"no campaign recorded yet: {os.path.join(options.corpus_root, 'summary.tsv')} has no rows", file=sys.stderr)
        return 1
    print(f"{'target':22} {'executions':>12}  {'since finding':>13}  {'current code':>12}  last change  runs  crashes  timeouts  under load  slowest  since")
    for name in sorted(totals):
        row = totals[name]
        print(f"{name:22} {row['executions']:>12,}  {row['clean']:>13,}  {row['current']:>12,}  {row['changed'] or '-':11}  {row['runs']:>4}  "
              f"{row['crashes']:>7}  {row['timeouts']:>8}  {row['flaky']:>10}  {row['slowest']:>5} s  {row['first']}")
    print(f"{len(totals)} targets, {sum(row['executions'] for row in totals.values()):,} executions; "
          f"'since finding' counts the runs after a target's last finding (all of them when it had none); 'current code' "
          f"only those whose fuzz binary was built after the target's last change in changes.tsv")
    if guessed:
        print(f"{guessed} rows predate the build-time column: their binary is taken as built {BUILD_TIME.seconds} s "
              f"before the run started (or before the earliest it can have started)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
