#!/usr/bin/env python3
"""TOML peer for omni's differential tests, backed by Python's stdlib tomllib (an independent TOML 1.0 parser).

  toml_peer.py    stdin: one JSON string (a whole TOML document) per line
                  stdout per line: {"ok": <tagged>} or {"error": "<message>"}

Tagged form (the Swift test builds the same from its own parse):
  ["string", s]  ["integer", "<decimal>"]  ["float", "<IEEE double bits hex>" | "nan"]  ["bool", b]
  ["datetime", "YYYY-MM-DDTHH:MM:SS.ffffff+HH:MM"]  ["datetime-local", "YYYY-MM-DDTHH:MM:SS.ffffff"]
  ["date-local", "YYYY-MM-DD"]  ["time-local", "HH:MM:SS.ffffff"]  ["array", [...]]  ["table", {key: ...}]
Tables keep document order. Fractions are microseconds, the precision tomllib keeps.
"""
import datetime
import json
import math
import struct
import sys
import tomllib


def clock(value):
    return f"{value.hour:02}:{value.minute:02}:{value.second:02}.{value.microsecond:06}"


def tagged(value):
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["integer", str(value)]
    if isinstance(value, float):
        return ["float", "nan" if math.isnan(value) else struct.pack(">d", value).hex()]
    if isinstance(value, str):
        return ["string", value]
    if isinstance(value, datetime.datetime):
        text = f"{value.year:04}-{value.month:02}-{value.day:02}T" + clock(value)
        if value.tzinfo is None:
            return ["datetime-local", text]
        minutes = int(value.utcoffset().total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        return ["datetime", text + f"{sign}{abs(minutes) // 60:02}:{abs(minutes) % 60:02}"]
    if isinstance(value, datetime.date):
        return ["date-local", f"{value.year:04}-{value.month:02}-{value.day:02}"]
    if isinstance(value, datetime.time):
        return ["time-local", clock(value)]
    if isinstance(value, list):
        return ["array", [tagged(v) for v in value]]
    if isinstance(value, dict):
        return ["table", {k: tagged(v) for k, v in value.items()}]
    raise TypeError(f"unexpected {type(value)!r}")


def main():
    out = []
    for line in sys.stdin:
        if not line.strip():
            continue
        document = json.loads(line)
        try:
            out.append(json.dumps({"ok": tagged(tomllib.loads(document))}))
        except tomllib.TOMLDecodeError as error:
            out.append(json.dumps({"error": str(error)}))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()
