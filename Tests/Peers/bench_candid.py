#!/usr/bin/env python3
"""Times Candid decoding and encoding in ic-py next to the same work in `omni-bench` (issue 3's `make bench` list).

Workloads (built identically on both sides, see Sources/omni-bench/CandidBenchmarks.swift):
  blob     `(blob)` of 10 MiB                                          target: decode >= 1 GB/s
  nat32    `(vec nat32)` with 1,000,000 elements                       target: decode >= 100M elements/s
  records  `(vec record { id : nat64; name : text; owner : opt principal })`, 1,000,000 records, every fourth
           owner null, the others 10-byte principals                   target: decode >= 5M records/s
  ledger   the 1,000-entry ledger-like message of `omni-bench candid-decode` / `candid-encode`

ic-py is pure Python and far slower, so where the full workload would take minutes its workload is scaled down
and its time normalised to the full size (per byte, element or record); each such row says so ("peer_workload",
"peer_scale"). ic-py's blob decoding grows faster than linearly, so its normalised blob time flatters it.

Prints one JSON line per row with {"name", "omni_seconds", "peer_seconds", "peer", "ratio", "target", ...}: seconds
per whole operation (median over alternating runs), ratio = omni / peer (lower is better for omni).
Usage: bench_candid.py --omni PATH_TO_OMNI_BENCH [--omni-cli PATH_TO_OMNI] [--runs N] [--only TEXT]
"""
import argparse
import json
import statistics
import subprocess
import time

from ic.candid import Types, decode, encode
from ic.principal import Principal

from omni_bench import seconds_per_op

MIB = 1 << 20


def blob_value(size):
    return bytes((i * 31 + 7) & 0xFF for i in range(size))


def nat32_value(count):
    return [(i * 2_654_435_761) & 0xFFFF_FFFF for i in range(count)]


RECORD = Types.Record({"id": Types.Nat64, "name": Types.Text, "owner": Types.Opt(Types.Principal)})


def records_value(count):
    values = []
    for i in range(count):
        owner = [] if i % 4 == 0 else [Principal(bytes=bytes(((i >> (8 * (j % 4))) + j) & 0xFF for j in range(10))).to_str()]
        values.append({"id": i * 1_000_003, "name": "record %d" % i, "owner": owner})
    return values


LEDGER_ENTRY = Types.Record({"id": Types.Nat, "name": Types.Text, "owner": Types.Principal,
                             "memo": Types.Opt(Types.Text), "amount": Types.Nat64})


def ledger_value():
    entries = []
    for index in range(1000):
        owner = Principal(bytes=bytes(((index * 7 + i) & 0xFF) for i in range(10))).to_str()
        entries.append({"id": index, "name": "entry number %d" % index, "owner": owner,
                        "memo": ["memo %d" % index] if index % 2 == 0 else [], "amount": index * 1_000_003})
    return entries


# (row name, omni-bench name, ic-py type, value builder, full size, peer size, unit, unit label, target per second)
ROWS = [
    ("Candid decode: 10 MiB blob", "candid-decode-blob-10mib", Types.Vec(Types.Nat8), blob_value,
     10 * MIB, 256 << 10, "bytes", "GB/s", 1e9),
    ("Candid encode: 10 MiB blob", "candid-encode-blob-10mib", Types.Vec(Types.Nat8), blob_value,
     10 * MIB, 1 * MIB, "bytes", "GB/s", None),
    ("Candid decode: vec nat32, 1M", "candid-decode-vec-nat32-1m", Types.Vec(Types.Nat32), nat32_value,
     1_000_000, 100_000, "elements", "M elements/s", 100e6),
    ("Candid encode: vec nat32, 1M", "candid-encode-vec-nat32-1m", Types.Vec(Types.Nat32), nat32_value,
     1_000_000, 1_000_000, "elements", "M elements/s", None),
    ("Candid decode: 1M records", "candid-decode-records-1m", Types.Vec(RECORD), records_value,
     1_000_000, 10_000, "records", "M records/s", 5e6),
    ("Candid encode: 1M records", "candid-encode-records-1m", Types.Vec(RECORD), records_value,
     1_000_000, 10_000, "records", "M records/s", None),
    ("Candid decode: 1,000 ledger entries", "candid-decode", Types.Vec(LEDGER_ENTRY), lambda _: ledger_value(),
     1000, 1000, "entries", "M entries/s", None),
    ("Candid encode: 1,000 ledger entries", "candid-encode", Types.Vec(LEDGER_ENTRY), lambda _: ledger_value(),
     1000, 1000, "entries", "M entries/s", None),
]


def median_seconds(operation, iterations):
    operation()  # warm-up
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        operation()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def peer_seconds(candid_type, value, is_decode, iterations):
    message = encode([{"type": candid_type, "value": value}])
    if is_decode:
        decoded = decode(message, [candid_type])
        assert len(decoded) == 1, "ic-py decoded the wrong number of values"
        return median_seconds(lambda: decode(message, [candid_type]), iterations)
    return median_seconds(lambda: encode([{"type": candid_type, "value": value}]), iterations)


def rate_text(units_per_second, label):
    scale = {"GB/s": 1e9, "M elements/s": 1e6, "M records/s": 1e6, "M entries/s": 1e6}[label]
    return f"{units_per_second / scale:.3g} {label}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omni", required=True, help="the omni-bench binary")
    parser.add_argument("--omni-cli", help="the omni binary (accepted for the bench.py protocol; unused here)")
    parser.add_argument("--runs", type=int, default=3, help="alternating omni/ic-py runs per row")
    parser.add_argument("--only", help="run only rows whose omni-bench name contains this text")
    args = parser.parse_args()

    for name, bench, candid_type, build, full, peer_size, unit, label, target in ROWS:
        if args.only and args.only not in bench:
            continue
        is_decode = "decode" in bench
        value = build(peer_size)
        omni_iterations = 5 if full >= 1_000_000 and unit != "bytes" else 20
        omni_runs, peer_runs = [], []
        for _ in range(args.runs):
            omni_runs.append(seconds_per_op(args.omni, bench, omni_iterations))
            peer_runs.append(peer_seconds(candid_type, value, is_decode, 3))
        omni = statistics.median(omni_runs)
        measured = statistics.median(peer_runs)
        scale = full / peer_size
        peer = measured * scale
        row = {"name": name, "peer": "ic-py", "omni_seconds": omni, "peer_seconds": peer, "ratio": omni / peer,
               "omni_rate": rate_text(full / omni, label), "peer_rate": rate_text(peer_size / measured, label),
               "runs": args.runs, "omni_runs": omni_runs}
        if scale != 1:
            row["peer_workload"] = f"{peer_size:,} {unit}, time normalised to {full:,} (x{scale:g})"
            row["peer_scale"] = scale
            row["peer_measured_seconds"] = measured
        if target is not None:
            row["target"] = ">= " + rate_text(target, label)
            row["target_met"] = full / omni >= target
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
