#!/usr/bin/env python3
"""Benchmark peer for `omni-bench candid-decode` / `candid-encode`: the same 1,000-entry message decoded and
encoded with ic-py. Usage: candid_bench.py [candid-decode|candid-encode] [ITERATIONS]; prints one JSON line
{"name": ..., "iterations": N, "seconds_per_op": median} like omni-bench."""
import json
import sys
import time

from ic.candid import Types, decode, encode
from ic.principal import Principal


def message():
    entry = Types.Record({"id": Types.Nat, "name": Types.Text, "owner": Types.Principal,
                          "memo": Types.Opt(Types.Text), "amount": Types.Nat64})
    entries = []
    for index in range(1000):
        owner = Principal(bytes=bytes(((index * 7 + i) & 0xFF) for i in range(10))).to_str()
        entries.append({"id": index, "name": "entry number %d" % index, "owner": owner,
                        "memo": ["memo %d" % index] if index % 2 == 0 else [], "amount": index * 1_000_003})
    vec = Types.Vec(entry)
    return vec, entries


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "candid-decode"
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    vec, entries = message()
    data = encode([{"type": vec, "value": entries}])
    if name == "candid-decode":
        operation = lambda: decode(data, [vec])
    else:
        operation = lambda: encode([{"type": vec, "value": entries}])
    for _ in range(max(1, iterations // 10)):
        operation()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        operation()
        samples.append(time.perf_counter() - start)
    samples.sort()
    print(json.dumps({"name": name, "iterations": iterations, "seconds_per_op": samples[len(samples) // 2]}))


if __name__ == "__main__":
    main()
