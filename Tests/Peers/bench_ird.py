#!/usr/bin/env python3
"""`make bench` rows for omni ird.

A paginated listing read whole (`omni ird domains list --all`) against the loopback ird peer
(Tests/Peers/ird_peer.py, 2005 domains, 100 a page: 21 requests, each checked by openapi-core in the peer), as a whole
omni process, next to the same pages walked in Python with http.client on one connection. Requests per second = pages
/ median seconds.

Schema patterns: `^(a+)+$` searched for in 22 `a`s and a `!` by `omni-bench schema-pattern-catastrophic` (an
automaton) and by Python's `re` (which openapi-core's validator uses; it backtracks through 2^22 paths).

Work budgets (omni alone, no peer keeps one): the seconds one validation spends at most, on patterns (20 M steps,
`omni-bench schema-pattern-budget`) and on schemas (1 M checks, `schema-validation-budget`).

Prints JSON lines {"name", "omni_seconds", "peer_seconds", "peer", "runs", ...}; the budget rows carry "budget": true
and no peer. A benchmark, not a test.
"""
import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

from omni_bench import seconds_per_op

HERE = os.path.dirname(os.path.abspath(__file__))
EXTRA_DOMAINS = 2000
PAGE = 100


def control(base, path, body=None):
    parsed = urllib.parse.urlparse(base)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    connection.request("POST" if body is not None else "GET", path, body=json.dumps(body) if body is not None else None,
                       headers={"Content-Type": "application/json"})
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer


def python_walk(api, key):
    parsed = urllib.parse.urlparse(api)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    cursor, items, pages = None, 0, 0
    while True:
        query = {"limit": str(PAGE)}
        if cursor:
            query["cursor"] = cursor
        connection.request("GET", parsed.path + "/domains?" + urllib.parse.urlencode(query),
                           headers={"Authorization": "Bearer " + key, "Accept": "application/json"})
        page = json.loads(connection.getresponse().read())
        pages += 1
        items += len(page["domains"])
        cursor = page.get("next_cursor")
        if not cursor:
            break
    connection.close()
    return items, pages


def pattern_rows(omni_bench, runs):
    text = "a" * 22 + "!"
    peer_times = []
    for _ in range(3):
        start = time.perf_counter()
        found = re.search(r"^(a+)+$", text)
        peer_times.append(time.perf_counter() - start)
        assert found is None
    print(json.dumps({"name": "pattern ^(a+)+$ on 22 a's and a '!'", "omni_seconds": seconds_per_op(omni_bench, "schema-pattern-catastrophic", 2000),
                      "peer_seconds": statistics.median(peer_times), "peer": "Python re", "runs": 3}), flush=True)
    for name, label in [("schema-pattern-budget", "one validation's 20 M pattern steps"),
                        ("schema-validation-budget", "one validation's 1 M schema checks")]:
        print(json.dumps({"name": label, "budget": True, "omni_seconds": seconds_per_op(omni_bench, name, runs), "runs": runs}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", required=True, help="the release omni-bench binary")
    parser.add_argument("--omni-cli", required=True, help="the omni binary")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    pattern_rows(os.path.abspath(args.omni), args.runs)
    peer = subprocess.Popen([sys.executable, os.path.join(HERE, "ird_peer.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = json.loads(peer.stdout.readline())
        control(ready["url"], "/_control/seed", {"domains": EXTRA_DOMAINS, "registrations": 0})
        scratch = tempfile.mkdtemp(prefix="omni-bench-ird-")
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(scratch, "cache"), XDG_CONFIG_HOME=os.path.join(scratch, "config"),
                   IRD_API_KEY=ready["api_key"])
        subprocess.run([args.omni_cli, "ird", "spec", "fetch", "--spec", ready["spec_url"]], env=env, check=True, stdout=subprocess.DEVNULL)
        command = [args.omni_cli, "ird", "domains", "list", "--all", "--limit", str(EXTRA_DOMAINS + 5), "-o", "jsonl"]
        omni_times, peer_times = [], []
        pages = 0
        for _ in range(args.runs):
            control(ready["url"], "/_control/reset", {})
            start = time.perf_counter()
            result = subprocess.run(command, env=env, capture_output=True, text=True)
            omni_times.append(time.perf_counter() - start)
            if result.returncode != 0 or len(result.stdout.splitlines()) != EXTRA_DOMAINS + 5:
                raise SystemExit(f"omni ird domains list --all failed: {result.stderr}")
            seen = control(ready["url"], "/_control")
            if seen["violations"]:
                raise SystemExit(f"the peer found violations: {seen['violations'][:3]}")
            pages = len([r for r in seen["requests"] if r["path"] == "/v1/domains"])
            start = time.perf_counter()
            items, python_pages = python_walk(ready["api"], ready["api_key"])
            peer_times.append(time.perf_counter() - start)
            if items != EXTRA_DOMAINS + 5:
                raise SystemExit(f"the Python walk read {items} items")
        omni_seconds, peer_seconds = statistics.median(omni_times), statistics.median(peer_times)
        print(json.dumps({"name": f"ird listing --all ({EXTRA_DOMAINS + 5} items, {pages} pages)", "omni_seconds": omni_seconds,
                          "peer_seconds": peer_seconds, "peer": "Python http.client, one connection", "runs": args.runs,
                          "omni_requests_per_second": pages / omni_seconds, "peer_requests_per_second": python_pages / peer_seconds}),
              flush=True)
    finally:
        peer.stdin.close()
        peer.wait(timeout=10)


if __name__ == "__main__":
    main()
