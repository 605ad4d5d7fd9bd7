#!/usr/bin/env python3
"""The long form of the load runs (issue 17): load_peer.py against the omni binary for SECONDS each (60 by
default) — the Connect relay with 64 concurrent sessions, the TrUAPI bridge with 32 connections of mixed requests
and subscriptions, the attest store with 8 processes enrolling and verifying.

A benchmark, not a test: it prints figures (sessions/s, frames/s, operations/s, RSS at the start, after the warm-up
and at the end, fds at the start and after the clients left) and whether each run met issue 17's bar — no error, no
lost frame, RSS after the warm-up within 10 % of the warm-up's highest (load_support.Sampler says why), fds back to the start count; for the store, exactly one
acceptance per challenge — as JSON lines with "load": true, which bench.py prints in a table of their own."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RSS_BAR = 0.10


def drive(omni: str, arguments: list) -> dict:
    result = subprocess.run([sys.executable, os.path.join(HERE, "load_peer.py"), *arguments, "--omni", omni],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"load_peer.py {arguments[0]} failed: {result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def server_row(name: str, report: dict, rates: dict, extra_ok: bool) -> dict:
    flat = report["rss_growth_after_warmup"] <= RSS_BAR
    fds = report["fds_end"] == report["fds_start"]
    ok = report["errors"] == 0 and flat and fds and extra_ok
    return {"name": name, "load": True, "seconds": report["seconds"], **rates, "errors": report["errors"],
            "first_errors": report["first_errors"], "rss_start": report["rss_start"], "rss_warm": report["rss_warm"],
            "rss_end": report["rss_end"], "rss_peak_after_warmup": report["rss_peak_after_warmup"],
            "rss_growth_after_warmup": report["rss_growth_after_warmup"], "rss_end_vs_warm": report["rss_end_vs_warm"],
            "rss_at_first_round": report["rss_at_first_round"], "warmup_seconds": report["warmup_seconds"],
            "rss_trace_mib": report["rss_trace_mib"],
            "fds_start": report["fds_start"], "fds_end": report["fds_end"], "new_fds": report["new_fds"],
            "exit_status": report["exit_status"], "server_cpu_seconds": report["server_cpu_seconds"],
            **({"phases": report["phases"]} if "phases" in report else {}), "meets_bar": ok,
            "target": "no error or lost frame, RSS within 10 % after warm-up, fds back"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", help="the omni-bench binary (accepted for the bench.py protocol; unused here)")
    parser.add_argument("--omni-cli", required=True, help="the omni binary under load")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--only", help="relay, truapi or attest")
    args = parser.parse_args()
    omni = os.path.abspath(args.omni_cli)
    seconds = str(args.seconds)

    if args.only in (None, "relay"):
        relay = drive(omni, ["relay", "--sessions", "64", "--seconds", seconds])
        print(json.dumps(server_row("load: connect relay, 64 sessions", relay, {
            "sessions": relay.get("sessions", 0), "sessions_per_second": relay["sessions_per_second"],
            "frames_per_second": relay["frames_per_second"], "lost_frames": relay["lost_frames"]},
            relay["lost_frames"] == 0 and relay["terminated_sessions"] == 0)), flush=True)
    if args.only in (None, "truapi"):
        bridge = drive(omni, ["truapi", "--connections", "32", "--seconds", seconds])
        print(json.dumps(server_row("load: truapi bridge, 32 connections", bridge, {
            "connections": bridge.get("connections", 0), "operations_per_second": bridge["operations_per_second"],
            "frames_per_second": bridge["frames_per_second"]},
            True)), flush=True)
    if args.only in (None, "attest"):
        # Each key costs four omni processes and two challenges committed up front (one fsync each): 10 keys a
        # second of run covers ~40 processes/s; jobs left when the time is up are not run (reported).
        store = drive(omni, ["attest", "--processes", "8", "--keys", str(int(args.seconds * 10)), "--seconds", seconds])
        print(json.dumps({"name": "load: attest store, 8 processes", "load": True, "seconds": store["seconds"],
                          "omni_processes_per_second": store["omni_processes_per_second"],
                          "accepted_per_second": store["accepted_per_second"],
                          "accepted_enrollments": store["accepted_enrollments"],
                          "accepted_verifications": store["accepted_verifications"],
                          "keys_in_store": store["keys_in_store"], "keys": store["keys"],
                          "jobs_not_run": store.get("jobs_not_run", 0), "errors": store["errors"],
                          "first_errors": store["first_errors"], "meets_bar": store["errors"] == 0,
                          "target": "exactly one acceptance per challenge and counter"}), flush=True)


if __name__ == "__main__":
    main()
