#!/usr/bin/env python3
"""CBOR peer for omni's differential tests, backed by cbor2 (an independent RFC 8949 implementation).

  cbor_peer.py decode            stdin: one hex item per line
                                 stdout per line: "ok <description>" or "err <message>"
  cbor_peer.py generate SEED N   stdout per line: "<hex> <description>" for N random items made by cbor2.dumps

Decoding is purely structural (every tag stays a CBORTag) and strict: invalid UTF-8, duplicate map keys and
trailing bytes are errors. The description is the shared canonical form the Swift test also computes:
  i<int>  b<hex>  t<utf-8 hex>  [a,b]  {k:v,k:v}  #<tag>(x)  T F N U  s<simple>  f<double bits hex>|fnan
"""
import io
import math
import random
import struct
import sys
from collections.abc import Mapping

import cbor2


class StructuralTags(Mapping):
    """Replaces every built-in semantic decoder of cbor2: each tag decodes to CBORTag(number, content)."""

    def __getitem__(self, number):
        return lambda value, immutable, n=number: cbor2.CBORTag(n, value)

    def __contains__(self, number):
        return True

    def __len__(self):
        return 1

    def __iter__(self):
        return iter(())


TAGS = StructuralTags()


def loads_strict(data):
    decoder = cbor2.CBORDecoder(io.BytesIO(data), semantic_decoders=TAGS, allow_duplicate_keys=False,
                                str_errors="strict", read_size=1)
    value = decoder.decode()
    rest = decoder.fp.read()
    if rest:
        raise ValueError(f"{len(rest)} trailing byte(s)")
    return value


def describe(value):
    if value is True:
        return "T"
    if value is False:
        return "F"
    if value is None:
        return "N"
    if value is cbor2.undefined:
        return "U"
    if isinstance(value, cbor2.CBORSimpleValue):
        return f"s{value.value}"
    if isinstance(value, int):
        return f"i{value}"
    if isinstance(value, float):
        return "fnan" if math.isnan(value) else "f" + struct.pack(">d", value).hex()
    if isinstance(value, (bytes, bytearray)):
        return "b" + bytes(value).hex()
    if isinstance(value, str):
        return "t" + value.encode("utf-8").hex()
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(describe(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(describe(k) + ":" + describe(v) for k, v in value.items()) + "}"
    if isinstance(value, cbor2.CBORTag):
        return f"#{value.tag}(" + describe(value.value) + ")"
    raise TypeError(f"cannot describe {type(value)!r}")


def decode_lines():
    out = []
    for line in sys.stdin:
        line = line.strip()
        try:
            out.append("ok " + describe(loads_strict(bytes.fromhex(line))))
        except Exception as error:  # every decoder failure is an answer, not a crash
            message = " ".join(str(error).split()) or type(error).__name__
            out.append("err " + message)
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


# ---------------------------------------------------------------- random items written by cbor2.dumps

INT_EDGES = [0, 1, 23, 24, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64,
             2**64 + 1, 2**100]


def random_int(rng):
    kind = rng.randrange(5)
    if kind == 0:
        value = rng.choice(INT_EDGES)
    elif kind == 1:
        value = rng.randrange(24)
    elif kind == 2:
        value = rng.getrandbits(rng.choice([8, 16, 32, 64]))
    elif kind == 3:
        value = rng.getrandbits(rng.randrange(1, 200))  # bignums beyond 64 bits
    else:
        value = rng.randrange(1 << 16)
    return -value - rng.randrange(2) if rng.randrange(2) else value


def random_float(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan, 1.5, 65504.0, 5.960464477539063e-08,
                           3.4028234663852886e38, 1e300, 2.2250738585072014e-308, 5e-324])
    if kind == 1:  # exactly representable as half
        return struct.unpack(">e", struct.pack(">H", rng.getrandbits(16) & 0x7BFF | rng.randrange(2) << 15))[0]
    if kind == 2:  # exactly representable as single
        bits = rng.getrandbits(32)
        value = struct.unpack(">f", struct.pack(">I", bits))[0]
        return 0.5 if math.isnan(value) or math.isinf(value) else value
    if kind == 3:
        value = struct.unpack(">d", struct.pack(">Q", rng.getrandbits(64)))[0]
        return 1.25 if math.isnan(value) else value
    return rng.uniform(-1e6, 1e6)


def random_text(rng):
    pools = ["abcxyz", "é水𐅑\u0000\u007f\ufeff\U0010ffff", "\"\\\n\t ", "\u00fc\u6c34"]
    return "".join(rng.choice(rng.choice(pools)) for _ in range(rng.choice([0, 1, 3, 10, 40])))


def random_key(rng, depth):
    kind = rng.randrange(6)
    if kind == 0:
        return random_int(rng)
    if kind == 1:
        return rng.randbytes(rng.randrange(6))
    if kind == 2 and depth < 3:
        return tuple(random_key(rng, depth + 1) for _ in range(rng.randrange(3)))
    if kind == 3 and depth < 3:
        return cbor2.CBORTag(rng.choice([5, 99, 1000, 2**40]), random_key(rng, depth + 1))
    return random_text(rng)[:20]


def random_value(rng, depth):
    kind = rng.randrange(14 if depth < 4 else 9)
    if kind == 0:
        return random_int(rng)
    if kind == 1:
        return random_float(rng)
    if kind == 2:
        return rng.randbytes(rng.choice([0, 1, 5, 23, 24, 256]))
    if kind == 3:
        return random_text(rng)
    if kind == 4:
        return rng.choice([True, False, None, cbor2.undefined])
    if kind == 5:
        return cbor2.CBORSimpleValue(rng.choice(list(range(0, 20)) + list(range(32, 256))))
    if kind in (6, 7, 8):
        return random_int(rng) if rng.randrange(2) else random_text(rng)[:5]
    if kind in (9, 10):
        return [random_value(rng, depth + 1) for _ in range(rng.choice([0, 1, 2, 5, 12]))]
    if kind in (11, 12):
        result = {}
        for _ in range(rng.choice([0, 1, 3, 6])):
            result[random_key(rng, depth + 1)] = random_value(rng, depth + 1)
        return result
    return cbor2.CBORTag(rng.choice([0, 1, 2, 3, 24, 32, 55799, 256, 1000, 65536, 2**32, 2**64 - 1]),
                         random_value(rng, depth + 1))


def chunked_string(rng):
    """Indefinite-length strings, which cbor2 reads but never writes; assembled by hand from cbor2 chunks."""
    if rng.randrange(2):
        chunks = [rng.randbytes(rng.randrange(5)) for _ in range(rng.randrange(4))]
        return b"\x5f" + b"".join(cbor2.dumps(c) for c in chunks) + b"\xff"
    chunks = [random_text(rng)[:4] for _ in range(rng.randrange(4))]
    return b"\x7f" + b"".join(cbor2.dumps(c) for c in chunks) + b"\xff"


def generate(seed, count):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        style = rng.randrange(10)
        if style == 0:
            data = chunked_string(rng)
        elif style == 1:
            # An array mixing cbor2-written items and hand-assembled indefinite strings.
            parts = [cbor2.dumps(random_value(rng, 3)) if rng.randrange(2) else chunked_string(rng) for _ in range(3)]
            data = b"\x83" + b"".join(parts)
        else:
            value = random_value(rng, 0)
            data = cbor2.dumps(value, canonical=style in (2, 3), indefinite_containers=style == 4)
        try:
            description = describe(loads_strict(data))
        except cbor2.CBORDecodeError:
            continue  # e.g. random keys that collide in Python (1 == 1.0) — not a decoding question
        out.append(data.hex() + " " + description)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["decode"]:
        decode_lines()
    elif sys.argv[1:2] == ["generate"] and len(sys.argv) == 4:
        generate(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(__doc__)
