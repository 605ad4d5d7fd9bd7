#!/usr/bin/env python3
"""Differential peer for OmniBLS: generates IC-style BLS verification cases and labels each with blst's verdict.

    bls_peer.py cases --seed S --per-kind N

prints one JSON line per case: {"kind", "pk", "msg", "sig", "valid"} (hex strings). "valid" is what blst (pyblst)
decides under the IC policy: both points decode with blst's strict uncompress (flags, canonical, on curve, in the
subgroup), neither is the identity, and e(sig, g2) == e(H(msg), pk) with H = hash_to_G1 and the IC DST.

Points outside the subgroup, off the curve, with non-canonical coordinates or bad flags are built here with plain
Python integer arithmetic (blst refuses to construct them); their labels still come from blst.
"""
import argparse
import json
import random

import pyblst
from pyblst import BlstP1Element, BlstP2Element

DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
G2_COMPRESSED = bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8")
G2 = BlstP2Element.uncompress(G2_COMPRESSED)


# ---- blst's verdict ----

def blst_valid(pk: bytes, msg: bytes, sig: bytes) -> bool:
    try:
        s = BlstP1Element.uncompress(sig)
        q = BlstP2Element.uncompress(pk)
    except ValueError:
        return False
    if q == BlstP2Element() or s == BlstP1Element():
        return False  # IC policy: the identity is neither a key nor a signature
    h = BlstP1Element.hash_to_group(msg, DST)
    return bool(pyblst.final_verify(pyblst.miller_loop(s, G2), pyblst.miller_loop(h, q)))


# ---- plain field and curve arithmetic for building malformed points ----

def fp_sqrt(a):
    """A square root mod P, or None (P = 3 mod 4)."""
    a %= P
    root = pow(a, (P + 1) // 4, P)
    return root if root * root % P == a else None


def fp2_mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)


def fp2_sqrt(a):
    """A square root in Fp2 = Fp[u]/(u^2+1), or None. Norm method."""
    a0, a1 = a[0] % P, a[1] % P
    if a1 == 0:
        r = fp_sqrt(a0)
        if r is not None:
            return (r, 0)
        r = fp_sqrt(-a0)
        return None if r is None else (0, r)
    alpha = fp_sqrt(a0 * a0 + a1 * a1)
    if alpha is None:
        return None
    inv2 = pow(2, P - 2, P)
    for delta in ((a0 + alpha) * inv2 % P, (a0 - alpha) * inv2 % P):
        y0 = fp_sqrt(delta)
        if y0 is not None and y0 != 0:
            y1 = a1 * pow(2 * y0, P - 2, P) % P
            if fp2_mul((y0, y1), (y0, y1)) == (a0, a1):
                return (y0, y1)
    return None


def g1_rhs(x):
    return (x * x * x + 4) % P


def g2_rhs(x):
    x3 = fp2_mul(fp2_mul(x, x), x)
    return ((x3[0] + 4) % P, (x3[1] + 4) % P)


def g1_affine(sig: bytes):
    """Affine (x, y) of a valid compressed G1 point (not the identity)."""
    x = int.from_bytes(bytes([sig[0] & 0x1F]) + sig[1:], "big")
    y = fp_sqrt(g1_rhs(x))
    larger = y > (P - 1) // 2
    if larger != bool(sig[0] & 0x20):
        y = P - y
    return x, y


def g1_add(a, b):
    """Affine addition on y^2 = x^3 + 4 (None is the identity)."""
    if a is None:
        return b
    if b is None:
        return a
    (x1, y1), (x2, y2) = a, b
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if a == b:
        lam = 3 * x1 * x1 * pow(2 * y1, P - 2, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, P - 2, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return x3, (lam * (x1 - x3) - y1) % P


def g1_encode(x, y, flags=0x80) -> bytes:
    out = bytearray(x.to_bytes(48, "big"))
    out[0] |= flags
    if y > (P - 1) // 2:
        out[0] |= 0x20
    return bytes(out)


def g2_encode(x, y, flags=0x80) -> bytes:
    out = bytearray(x[1].to_bytes(48, "big") + x[0].to_bytes(48, "big"))
    out[0] |= flags
    larger = y[1] > (P - 1) // 2 if y[1] else y[0] > (P - 1) // 2
    if larger:
        out[0] |= 0x20
    return bytes(out)


def random_g1_on_curve(rng):
    while True:
        x = rng.randrange(P)
        y = fp_sqrt(g1_rhs(x))
        if y is not None:
            return x, y if rng.random() < 0.5 else (P - y) % P


def random_g1_x_off_curve(rng):
    while True:
        x = rng.randrange(P)
        if fp_sqrt(g1_rhs(x)) is None:
            return x


def random_g2_on_curve(rng):
    while True:
        x = (rng.randrange(P), rng.randrange(P))
        y = fp2_sqrt(g2_rhs(x))
        if y is not None:
            return x, y


def random_g2_x_off_curve(rng):
    while True:
        x = (rng.randrange(P), rng.randrange(P))
        if fp2_sqrt(g2_rhs(x)) is None:
            return x


def flip_bit(data: bytes, rng) -> bytes:
    out = bytearray(data)
    bit = rng.randrange(len(out) * 8)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


# ---- case generation ----

def keypair(rng):
    sk = rng.randrange(1, R)
    return sk, G2.scalar_mul(sk).compress()


def sign(sk, msg: bytes) -> bytes:
    return BlstP1Element.hash_to_group(msg, DST).scalar_mul(sk).compress()


def random_message(rng) -> bytes:
    if rng.random() < 0.5:  # IC certificate shape: 0x0d "ic-state-root" root_hash
        return b"\x0dic-state-root" + rng.randbytes(32)
    return rng.randbytes(rng.randrange(0, 200))


def make_case(kind: str, rng):
    sk, pk = keypair(rng)
    msg = random_message(rng)
    sig = sign(sk, msg)
    if kind == "valid":
        pass
    elif kind == "valid_long_message":
        msg = rng.randbytes(rng.randrange(200, 3000))
        sig = sign(sk, msg)
    elif kind == "wrong_message":
        msg = msg + b"\x00"
    elif kind == "wrong_key":
        pk = keypair(rng)[1]
    elif kind == "msg_bitflip":
        msg = flip_bit(msg, rng) if msg else b"\x01"
    elif kind == "sig_bitflip":
        sig = flip_bit(sig, rng)
    elif kind == "pk_bitflip":
        pk = flip_bit(pk, rng)
    elif kind == "sig_negated":
        sig = (-BlstP1Element.uncompress(sig)).compress()
    elif kind == "sig_off_curve_x":
        sig = g1_encode(random_g1_x_off_curve(rng), 0, 0x80 | (0x20 if rng.random() < 0.5 else 0))
    elif kind == "pk_off_curve_x":
        x = random_g2_x_off_curve(rng)
        pk = g2_encode(x, (0, 0), 0x80 | (0x20 if rng.random() < 0.5 else 0))
    elif kind == "sig_not_in_subgroup":
        sig = g1_encode(*random_g1_on_curve(rng))
    elif kind == "pk_not_in_subgroup":
        pk = g2_encode(*random_g2_on_curve(rng))
    elif kind == "sig_plus_torsion":
        sig = g1_encode(*g1_add(g1_affine(sig), (0, 2 if rng.random() < 0.5 else P - 2)))
    elif kind == "sig_infinity":
        sig = bytes([0xC0]) + bytes(47)
    elif kind == "pk_infinity":
        pk = bytes([0xC0]) + bytes(95)
    elif kind == "pk_and_sig_infinity":
        sig, pk = bytes([0xC0]) + bytes(47), bytes([0xC0]) + bytes(95)
    elif kind == "sig_noncanonical_x":
        # x + p still fits below the flag bits for about a quarter of all x; pick such an on-curve x.
        while True:
            x, y = random_g1_on_curve(rng) if rng.random() < 0.5 else g1_affine(sign(sk, random_message(rng)))
            if x + P < 1 << 381:
                break
        sig = g1_encode(x + P, y)
    elif kind == "pk_noncanonical":
        while True:
            _, key = keypair(rng)
            x1 = int.from_bytes(bytes([key[0] & 0x1F]) + key[1:48], "big")
            x0 = int.from_bytes(key[48:], "big")
            if rng.random() < 0.5 and x1 + P < 1 << 381:
                c1 = bytearray((x1 + P).to_bytes(48, "big"))
                c1[0] |= key[0] & 0xE0
                pk = bytes(c1) + key[48:]
                break
            if x0 + P < 1 << 384:
                pk = key[:48] + (x0 + P).to_bytes(48, "big")
                break
    elif kind == "sig_compression_flag_clear":
        sig = bytes([sig[0] & 0x7F]) + sig[1:]
    elif kind == "sig_infinity_flag_on_finite":
        sig = bytes([sig[0] | 0x40]) + sig[1:]
    elif kind == "pk_infinity_flag_on_finite":
        pk = bytes([pk[0] | 0x40]) + pk[1:]
    elif kind == "sig_infinity_with_sign":
        sig = bytes([0xE0]) + bytes(47)
    elif kind == "pk_infinity_nonzero_x":
        pk = bytes([0xC0]) + bytes(94) + b"\x01"
    elif kind == "sig_sign_flip":
        sig = bytes([sig[0] ^ 0x20]) + sig[1:]
    elif kind == "pk_sign_flip":
        pk = bytes([pk[0] ^ 0x20]) + pk[1:]
    elif kind == "pk_compression_flag_clear":
        pk = bytes([pk[0] & 0x7F]) + pk[1:]
    else:
        raise ValueError(kind)
    return {"kind": kind, "pk": pk.hex(), "msg": msg.hex(), "sig": sig.hex(), "valid": blst_valid(pk, msg, sig)}


KINDS = [
    "valid", "valid_long_message", "wrong_message", "wrong_key", "msg_bitflip", "sig_bitflip", "pk_bitflip", "sig_negated",
    "sig_off_curve_x", "pk_off_curve_x", "sig_not_in_subgroup", "pk_not_in_subgroup", "sig_plus_torsion",
    "sig_infinity", "pk_infinity", "pk_and_sig_infinity", "sig_noncanonical_x", "pk_noncanonical",
    "sig_compression_flag_clear", "pk_compression_flag_clear", "sig_infinity_flag_on_finite",
    "pk_infinity_flag_on_finite", "sig_infinity_with_sign", "pk_infinity_nonzero_x", "sig_sign_flip", "pk_sign_flip",
]


def main() -> None:
    parser = argparse.ArgumentParser(description="BLS differential cases labelled by blst")
    parser.add_argument("command", choices=["cases"])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--per-kind", type=int, default=8)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for kind in KINDS:
        for _ in range(args.per_kind):
            print(json.dumps(make_case(kind, rng)))


if __name__ == "__main__":
    main()
