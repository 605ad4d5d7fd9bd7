#!/usr/bin/env python3
"""Times `omni truapi bridge` round trips next to a Python `websockets` echo of the same frames.

A running bridge (the release omni, `--ephemeral`) and a `websockets` server that sends every binary message back
are each driven by the same load generator, Tests/Peers/truapi_load.c (C, one thread per connection, one frame
in flight per connection, every answer compared byte for byte), over 1 and over 8 connections, alternating the two
RUNS times. The frame is a `system_handshake` request (p:1, codec 1): the bridge decodes it, dispatches it, answers
`00 00` on id 1 and encodes the response; the echo only copies it back.

One JSON line per row, in bench.py's shape: the round-trip row gives seconds per round trip over all connections
(1 / throughput) with the throughput itself alongside, the latency rows the median over runs of each run's p50 and
p99. Targets (issue 13): at least 20,000 round trips/s on one connection, p99 at most 2 ms."""
import argparse
import asyncio
import json
import os
import statistics
import logging
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# system_handshake (id 0) from "p:1", V1 codec_version 1; the answer on id 1 is the unit Ok 00 00.
REQUEST = "0c703a31" + "00" + "0001"
RESPONSE = "0c703a31" + "01" + "0000"


def echo_server() -> None:
    """The peer: a websockets server on 127.0.0.1 that returns each binary message as it came."""
    from websockets.asyncio.server import serve

    logging.getLogger("websockets").setLevel(logging.CRITICAL)

    async def echo(connection):
        async for message in connection:
            await connection.send(message)

    async def main():
        async with serve(echo, "127.0.0.1", 0, compression=None, ping_interval=None, max_size=8 << 20) as server:
            port = server.sockets[0].getsockname()[1]
            print(json.dumps({"url": f"ws://127.0.0.1:{port}/"}), flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

    asyncio.run(main())


def load_generator(path: str) -> str:
    """The compiled generator (make bench builds it); compiled here when missing or older than its source."""
    source = os.path.join(HERE, "truapi_load.c")
    if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(source):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-pthread", "-o", path, source], check=True)
    return path


def start(argv: list) -> tuple:
    """A long-running process and the JSON of its first stdout line."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line:
        raise SystemExit(f"{' '.join(argv[:3])} did not start")
    # Its later lines (the bridge's events) are read and dropped, so a full pipe never stalls it.
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    return process, json.loads(line)


def drive(load: str, url: str, expect: str, connections: int, seconds: float) -> dict:
    out = subprocess.run([load, "--url", url, "--frame", REQUEST, "--expect", expect, "--connections", str(connections),
                          "--seconds", str(seconds), "--warmup", "0.5"], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", help="the omni-bench binary (accepted for the bench.py protocol; unused here)")
    parser.add_argument("--omni-cli", help="the omni binary whose bridge is timed")
    parser.add_argument("--load", default=os.path.join(ROOT, ".build", "bench", "truapi-load"), help="truapi_load.c, built")
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        echo_server()
        return
    if not args.omni_cli:
        raise SystemExit("--omni-cli is required")
    load = load_generator(args.load)

    bridge, ready = start([args.omni_cli, "truapi", "bridge", "--product-id", "bench.dot", "--ephemeral", "--output", "jsonl",
                           "--listen", "127.0.0.1:0"])
    echo, announced = start([sys.executable, os.path.abspath(__file__), "--echo-server"])
    try:
        for connections in (1, 8):
            runs = {"omni": [], "peer": []}
            for _ in range(args.runs):
                runs["omni"].append(drive(load, ready["url"], RESPONSE, connections, args.seconds))
                runs["peer"].append(drive(load, announced["url"], REQUEST, connections, args.seconds))
            median = {side: {key: statistics.median(run[key] for run in results)
                             for key in ("round_trips_per_second", "p50_seconds", "p99_seconds")}
                      for side, results in runs.items()}
            plural = "conn" if connections == 1 else "conns"
            common = {"peer": "websockets echo", "connections": connections, "runs": args.runs, "seconds_per_run": args.seconds}
            omni_rate, peer_rate = median["omni"]["round_trips_per_second"], median["peer"]["round_trips_per_second"]
            rows = [
                {"name": f"truapi round trip, {connections} {plural}", "omni_seconds": 1 / omni_rate, "peer_seconds": 1 / peer_rate,
                 "omni_round_trips_per_second": omni_rate, "peer_round_trips_per_second": peer_rate,
                 **({"target": "<= 50 µs (20,000/s)"} if connections == 1 else {})},
                {"name": f"truapi p50 latency, {connections} {plural}", "omni_seconds": median["omni"]["p50_seconds"],
                 "peer_seconds": median["peer"]["p50_seconds"]},
                {"name": f"truapi p99 latency, {connections} {plural}", "omni_seconds": median["omni"]["p99_seconds"],
                 "peer_seconds": median["peer"]["p99_seconds"], "target": "<= 2 ms"},
            ]
            for row in rows:
                row["ratio"] = row["omni_seconds"] / row["peer_seconds"]
                print(json.dumps({**row, **common}), flush=True)
    finally:
        for process in (bridge, echo):
            process.stdin.close()
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
