#!/usr/bin/env python3
"""JSON peer for omni's differential tests, backed by Python's json module (an independent RFC 8259 parser).

  json_peer.py    stdin: one JSON document per line
                  stdout per line: ["ok", <tagged>, "<the value re-serialized by json.dumps>" | null] or ["error", "<message>"]

Parsing is made strict (NaN/Infinity and duplicate object names refused). The re-serialization varies with the
line number: ASCII-only escapes or raw UTF-8, compact or indented, so the Swift side also reads Python's output.
Tagged form: ["int", "<decimal>"] ["float", "<IEEE double bits hex>"] ["str", s] ["bool", b] ["null"]
             ["array", [...]] ["object", [[name, value], ...]]
"""
import json
import struct
import sys


class Duplicate(Exception):
    pass


def pairs(items):
    names = set()
    for name, _ in items:
        if name in names:
            raise Duplicate(f"duplicate name {name!r}")
        names.add(name)
    return ("object", items)


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def tagged(value):
    if value is None:
        return ["null"]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, float):
        return ["float", struct.pack(">d", value).hex()]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, list):
        return ["array", [tagged(v) for v in value]]
    if isinstance(value, tuple) and value[0] == "object":
        return ["object", [[name, tagged(v)] for name, v in value[1]]]
    raise TypeError(type(value))


def plain(value):
    """The parsed value with objects as dicts again, in order, for json.dumps."""
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple) and value[0] == "object":
        return {name: plain(v) for name, v in value[1]}
    return value


def main():
    out = []
    for number, line in enumerate(sys.stdin):
        line = line.rstrip("\n")
        try:
            value = json.loads(line, object_pairs_hook=pairs, parse_constant=refuse_constant)
        except (ValueError, Duplicate, RecursionError) as error:
            out.append(json.dumps(["error", str(error)]))
            continue
        try:
            text = json.dumps(plain(value), ensure_ascii=number % 2 == 0, indent=None if number % 3 else 2,
                              allow_nan=False)
        except ValueError:
            text = None  # e.g. 1e400 read as infinity, which JSON cannot write back
        out.append(json.dumps(["ok", tagged(value), text]))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()
