#!/usr/bin/env python3
"""Differential peer for omni's Candid codec: ic-py (pip package `ic-py`, module `ic.candid`).

stdin: JSON {"cases": [{"types": [T, ...], "values": [V, ...], "hex": "4449444c..."}, ...]}
stdout: one JSON line per case: {"decoded": [V, ...]} or {"decode_error": "..."}, plus
        {"encoded": "hex"} or {"encode_error": "..."}.

Type descriptions T: {"k": "nat"} (any primitive name), {"k": "opt"|"vec", "t": T},
{"k": "record"|"variant", "fields": [[name, T], ...]} (numeric ids as "_123"), {"k": "tuple", "items": [T, ...]},
{"k": "func", "args": [T], "rets": [T], "modes": [...]}, {"k": "service", "methods": [[name, T], ...]}.

Canonical values V (lossless, shared with the Swift side): integers as decimal strings, floats as the hex of
their IEEE bits ("0x3f800000"), null as null, opt as [] or [v], vec as a list, records as objects keyed by
field name ("_123" for numeric ids), tuples as lists, variants as {"name": v}, principals and services as
text, funcs as [principal, method], reserved as null.

"decoded" decodes the given bytes with ic-py at the types; "encoded" encodes the canonical values with ic-py.
"""
import json
import struct
import sys

from ic.candid import Types, decode, encode
from ic.principal import Principal

PRIMITIVES = {
    "null": Types.Null, "bool": Types.Bool, "nat": Types.Nat, "int": Types.Int, "nat8": Types.Nat8,
    "nat16": Types.Nat16, "nat32": Types.Nat32, "nat64": Types.Nat64, "int8": Types.Int8, "int16": Types.Int16,
    "int32": Types.Int32, "int64": Types.Int64, "float32": Types.Float32, "float64": Types.Float64,
    "text": Types.Text, "reserved": Types.Reserved, "principal": Types.Principal,
}
INTEGERS = {"nat", "int", "nat8", "nat16", "nat32", "nat64", "int8", "int16", "int32", "int64"}


def build(t):
    k = t["k"]
    if k in PRIMITIVES:
        return PRIMITIVES[k]
    if k == "opt":
        return Types.Opt(build(t["t"]))
    if k == "vec":
        return Types.Vec(build(t["t"]))
    if k == "record":
        return Types.Record({name: build(f) for name, f in t["fields"]})
    if k == "tuple":
        return Types.Tuple(*[build(i) for i in t["items"]])
    if k == "variant":
        return Types.Variant({name: build(f) for name, f in t["fields"]})
    if k == "func":
        return Types.Func([build(a) for a in t["args"]], [build(r) for r in t["rets"]], t["modes"])
    if k == "service":
        return Types.Service({name: build(f) for name, f in t["methods"]})
    raise ValueError("unknown type " + k)


def float_bits(value, kind):
    if kind == "float32":
        return "0x%08x" % struct.unpack("<I", struct.pack("<f", value))[0]
    return "0x%016x" % struct.unpack("<Q", struct.pack("<d", value))[0]


def bits_float(text, kind):
    bits = int(text, 16)
    if kind == "float32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def principal_text(p):
    return p.to_str() if isinstance(p, Principal) else str(p)


def canonical(t, v):
    """ic-py's decoded Python value -> canonical JSON value."""
    k = t["k"]
    if k in INTEGERS:
        return str(v)
    if k in ("float32", "float64"):
        return float_bits(v, k)
    if k in ("null", "reserved"):
        return None
    if k in ("bool", "text"):
        return v
    if k in ("principal", "service"):
        return principal_text(v)
    if k == "opt":
        return [canonical(t["t"], x) for x in v]
    if k == "vec":
        return [canonical(t["t"], x) for x in v]
    if k == "record":
        return {name: canonical(f, v[name]) for name, f in t["fields"]}
    if k == "tuple":
        return [canonical(f, x) for f, x in zip(t["items"], v)]
    if k == "variant":
        (name, payload), = v.items()
        field = dict((n, f) for n, f in t["fields"])[name]
        return {name: canonical(field, payload)}
    if k == "func":
        return [principal_text(v[0]), v[1]]
    raise ValueError("unknown type " + k)


def python_value(t, v):
    """Canonical JSON value -> the Python value ic-py encodes."""
    k = t["k"]
    if k in INTEGERS:
        return int(v)
    if k in ("float32", "float64"):
        return bits_float(v, k)
    if k in ("null", "reserved"):
        return None
    if k in ("bool", "text", "principal", "service"):
        return v
    if k == "opt":
        return [python_value(t["t"], x) for x in v]
    if k == "vec":
        return [python_value(t["t"], x) for x in v]
    if k == "record":
        return {name: python_value(f, v[name]) for name, f in t["fields"]}
    if k == "tuple":
        return tuple(python_value(f, x) for f, x in zip(t["items"], v))
    if k == "variant":
        (name, payload), = v.items()
        field = dict((n, f) for n, f in t["fields"])[name]
        return {name: python_value(field, payload)}
    if k == "func":
        return [v[0], v[1]]
    raise ValueError("unknown type " + k)


def run(case):
    types = case["types"]
    result = {}
    try:
        built = [build(t) for t in types]
        outputs = decode(bytes.fromhex(case["hex"]), built) if types else decode(bytes.fromhex(case["hex"]))
        result["decoded"] = [canonical(t, o["value"]) for t, o in zip(types, outputs)]
    except Exception as error:  # report, the Swift side decides
        result["decode_error"] = "%s: %s" % (type(error).__name__, error)
    if case.get("encode", True):
        try:
            params = [{"type": build(t), "value": python_value(t, v)} for t, v in zip(types, case["values"])]
            result["encoded"] = encode(params).hex()
        except Exception as error:
            result["encode_error"] = "%s: %s" % (type(error).__name__, error)
    return result


def main():
    request = json.load(sys.stdin)
    for case in request["cases"]:
        print(json.dumps(run(case)))


if __name__ == "__main__":
    main()
