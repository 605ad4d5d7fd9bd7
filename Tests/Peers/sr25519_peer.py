#!/usr/bin/env python3
"""Independent sr25519 peer for OmniCryptoTests: schnorrkel (PyPI py-sr25519-bindings), substrate-bip39 and
tiny-bip39 (py-bip39-bindings), SS58 and SCALE (scalecodec), SHA-3 (hashlib, which is OpenSSL's), Merlin
(PyPI merlin-transcripts, a separate Python STROBE/Merlin).

Reads JSON requests, one per line, from stdin and writes one JSON response per line to stdout, in order. Every
binary value is lower-case hex. A response is {"ok": true, ...}, or {"ok": false, "refused": "<reason>"} when the
peer library deliberately refuses its input (a malformed SS58 address, an invalid mnemonic). Anything else that
goes wrong is this peer's own failure: it stops with a traceback and a non-zero exit status.

py-sr25519-bindings conventions (as `../shared/vectors/truapi/crypto.json` notes): a keypair is (public 32 bytes,
secret 64 bytes = schnorrkel SecretKey::to_bytes); `hard_derive_keypair((chain_code, public, secret), b"")` and
`derive_keypair(...)` take the chain code in the first slot and return (chain_code, public, secret); signatures use
the "substrate" context.

py-sr25519-bindings has no VRF, and no other package on PyPI exposes schnorrkel's. The `vrf_*` operations are
therefore this peer's own implementation of schnorrkel's VRF (src/vrf.rs: `vrf_sign`, `vrf_verify`,
`make_bytes`), written from the specification on merlin-transcripts and libsodium's ristretto255 (through ctypes),
with scalar arithmetic in Python integers. It cross-checks omni's Swift; the known answers from Rust schnorrkel in
`Sr25519KnownAnswerTests` check both against schnorrkel itself.
"""
import copy
import ctypes
import ctypes.util
import hashlib
import json
import os
import sys

import bip39
import sr25519
from merlin_transcripts.merlin_transcript import MerlinTranscript
from scalecodec.base import RuntimeConfiguration
from scalecodec.utils import ss58

L = 2 ** 252 + 27742317777372353535851937790883648493

_sodium = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")
if _sodium.sodium_init() < 0:
    raise SystemExit("libsodium failed to initialise")
_scale = RuntimeConfiguration()


def unhex(value):
    return bytes.fromhex(value)


# --- ristretto255 through libsodium; scalars as Python integers mod L ---------------------------------------------

def _point_out(function, *args):
    out = ctypes.create_string_buffer(32)
    function(out, *args)  # -1 only for an identity result, and then `out` is all zeros
    return out.raw


def scalar_bytes(value):
    return (value % L).to_bytes(32, "little")


def point_base(scalar):
    return _point_out(_sodium.crypto_scalarmult_ristretto255_base, scalar_bytes(scalar))


def point_mul(scalar, point):
    return _point_out(_sodium.crypto_scalarmult_ristretto255, scalar_bytes(scalar), point)


def point_add(p, q):
    out = ctypes.create_string_buffer(32)
    if _sodium.crypto_core_ristretto255_add(out, p, q) != 0:
        raise ValueError("invalid point")
    return out.raw


def point_from_uniform(bytes64):
    return _point_out(_sodium.crypto_core_ristretto255_from_hash, bytes64)


def point_is_valid(point):
    # libsodium 1.0.18 ignores bit 255 when it checks canonicity; RFC 9496 and curve25519-dalek refuse it.
    return len(point) == 32 and point[31] & 0x80 == 0 and _sodium.crypto_core_ristretto255_is_valid_point(point) == 1


def wide_scalar(bytes64):
    return int.from_bytes(bytes64, "little") % L


# --- schnorrkel's VRF on a transcript Transcript::new(label) + append_message(label_i, value_i) -------------------

def vrf_transcript(request):
    transcript = MerlinTranscript(unhex(request["label"]))
    for label, value in request["items"]:
        transcript.append_message(unhex(label), unhex(value))
    return transcript


def vrf_input(public, transcript):
    transcript = copy.deepcopy(transcript)
    transcript.append_message(b"vrf-nm-pk", public)
    return point_from_uniform(bytes(transcript.challenge_bytes(b"VRFHash", 64)))


def dleq_challenge(public, vrf_in, vrf_out, commitment, input_commitment):
    t = MerlinTranscript(b"VRF")
    t.append_message(b"proto-name", b"DLEQProof")
    t.append_message(b"vrf:h", vrf_in)
    t.append_message(b"vrf:R=g^r", commitment)
    t.append_message(b"vrf:h^r", input_commitment)
    t.append_message(b"vrf:pk", public)
    t.append_message(b"vrf:h^sk", vrf_out)
    return wide_scalar(bytes(t.challenge_bytes(b"prove", 64)))


def make_bytes(vrf_in, vrf_out, context, length):
    t = MerlinTranscript(b"VRFResult")
    t.append_message(b"", context)
    t.append_message(b"vrf-in", vrf_in)
    t.append_message(b"vrf-out", vrf_out)
    return bytes(t.challenge_bytes(b"", length))


def op_vrf_sign(request):
    public, secret = unhex(request["public"]), unhex(request["secret"])
    key = int.from_bytes(secret[:32], "little")
    vrf_in = vrf_input(public, vrf_transcript(request))
    vrf_out = point_mul(key, vrf_in)
    # Any nonce proves; schnorrkel derives its own from the transcript, this peer draws one at random.
    nonce = int.from_bytes(os.urandom(64), "little") % L
    c = dleq_challenge(public, vrf_in, vrf_out, point_base(nonce), point_mul(nonce, vrf_in))
    s = (nonce - c * key) % L
    return {"input": vrf_in.hex(), "pre_output": vrf_out.hex(), "proof": (scalar_bytes(c) + scalar_bytes(s)).hex(),
            "output_bytes": make_bytes(vrf_in, vrf_out, unhex(request["context"]), request["length"]).hex()}


def op_vrf_verify(request):
    public, vrf_out, proof = unhex(request["public"]), unhex(request["pre_output"]), unhex(request["proof"])
    if not point_is_valid(public) or not point_is_valid(vrf_out) or vrf_out == bytes(32) or len(proof) != 64:
        return {"ok": False, "refused": "malformed key, pre-output or proof"}
    c, s = int.from_bytes(proof[:32], "little"), int.from_bytes(proof[32:], "little")
    if c >= L or s >= L:
        return {"ok": False, "refused": "non-canonical proof scalar"}
    vrf_in = vrf_input(public, vrf_transcript(request))
    commitment = point_add(point_mul(c, public), point_base(s))
    input_commitment = point_add(point_mul(c, vrf_out), point_mul(s, vrf_in))
    valid = dleq_challenge(public, vrf_in, vrf_out, commitment, input_commitment) == c
    response = {"valid": valid, "input": vrf_in.hex()}
    if valid:
        response["output_bytes"] = make_bytes(vrf_in, vrf_out, unhex(request["context"]), request["length"]).hex()
    return response


# --- sr25519 through schnorrkel ---------------------------------------------------------------------------------

def chain_code(name):
    """Substrate's junction chain code (sp-core `DeriveJunction::from`), with scalecodec doing the SCALE:
    all-ASCII-digit names that fit u64 as u64, everything else as str; zero-padded to 32 bytes or BLAKE2b-256 when
    longer. The str is written as Compact<u32> length + UTF-8, because scalecodec's own `str` encoder takes text
    starting with 0x for hex bytes, which sp-core does not."""
    if name and all("0" <= ch <= "9" for ch in name) and int(name) < 2 ** 64:
        encoded = bytes(_scale.create_scale_object("u64").encode(int(name)).data)
    else:
        text = name.encode("utf-8")
        encoded = bytes(_scale.create_scale_object("Compact<u32>").encode(len(text)).data) + text
    if len(encoded) > 32:
        return hashlib.blake2b(encoded, digest_size=32).digest()
    return encoded + bytes(32 - len(encoded))


def op_chain_code(request):
    return {"chain_code": chain_code(request["name"]).hex()}


def op_pair_from_seed(request):
    public, secret = sr25519.pair_from_seed(unhex(request["mini_secret"]))
    return {"public": public.hex(), "secret": secret.hex()}


def op_sign(request):
    signature = sr25519.sign((unhex(request["public"]), unhex(request["secret"])), unhex(request["message"]))
    return {"signature": signature.hex()}


def op_verify(request):
    try:
        valid = sr25519.verify(unhex(request["signature"]), unhex(request["message"]), unhex(request["public"]))
    except ValueError as error:
        return {"ok": False, "refused": str(error)}
    return {"valid": bool(valid)}


def op_hard_derive(request):
    cc, public, secret = sr25519.hard_derive_keypair(
        (unhex(request["chain_code"]), unhex(request["public"]), unhex(request["secret"])), b"")
    return {"chain_code": cc.hex(), "public": public.hex(), "secret": secret.hex()}


def op_soft_derive(request):
    cc, public, secret = sr25519.derive_keypair(
        (unhex(request["chain_code"]), unhex(request["public"]), unhex(request["secret"])), b"")
    return {"chain_code": cc.hex(), "public": public.hex(), "secret": secret.hex()}


def op_derive_public(request):
    cc, public = sr25519.derive_pubkey((unhex(request["chain_code"]), unhex(request["public"])), b"")
    return {"chain_code": cc.hex(), "public": public.hex()}


def op_derive_path(request):
    """The keypair at a path of (name, hard) junctions below a mini secret key, one schnorrkel call per junction."""
    public, secret = sr25519.pair_from_seed(unhex(request["mini_secret"]))
    for name, hard in request["junctions"]:
        derive = sr25519.hard_derive_keypair if hard else sr25519.derive_keypair
        _, public, secret = derive((chain_code(name), public, secret), b"")
    return {"public": public.hex(), "secret_scalar": secret[:32].hex()}


# --- BIP-39 (tiny-bip39 + substrate-bip39) and SS58 (scalecodec) ------------------------------------------------

def op_bip39_generate(request):
    return {"phrase": bip39.bip39_generate(request["words"])}


def op_bip39_mini_secret(request):
    try:
        mini = bip39.bip39_to_mini_secret(request["phrase"], request["password"])
    except ValueError as error:
        return {"ok": False, "refused": str(error)}
    return {"mini_secret": bytes(mini).hex()}


def op_bip39_validate(request):
    return {"valid": bool(bip39.bip39_validate(request["phrase"]))}


def op_ss58_encode(request):
    try:
        return {"address": ss58.ss58_encode(unhex(request["payload"]), request["prefix"])}
    except ValueError as error:
        return {"ok": False, "refused": str(error)}


def op_ss58_decode(request):
    try:
        payload = ss58.ss58_decode(request["address"])
        return {"payload": payload, "prefix": ss58.get_ss58_format(request["address"])}
    except (ValueError, IndexError) as error:
        return {"ok": False, "refused": str(error) or type(error).__name__}


# --- SHA-3 (OpenSSL through hashlib) and Merlin (merlin-transcripts) ---------------------------------------------

def op_sha3_256(request):
    return {"digest": hashlib.sha3_256(unhex(request["message"])).hexdigest()}


def op_sha3_512(request):
    return {"digest": hashlib.sha3_512(unhex(request["message"])).hexdigest()}


def op_shake128(request):
    return {"digest": hashlib.shake_128(unhex(request["message"])).hexdigest(request["length"])}


def op_shake256(request):
    return {"digest": hashlib.shake_256(unhex(request["message"])).hexdigest(request["length"])}


def op_merlin(request):
    """A transcript driven by a list of steps: ["append", label, message], ["u64", label, n] or
    ["challenge", label, length]; answers every challenge in order."""
    transcript = MerlinTranscript(unhex(request["label"]))
    challenges = []
    for step in request["steps"]:
        if step[0] == "append":
            transcript.append_message(unhex(step[1]), unhex(step[2]))
        elif step[0] == "u64":
            transcript.append_u64(unhex(step[1]), step[2])
        else:
            challenges.append(bytes(transcript.challenge_bytes(unhex(step[1]), step[2])).hex())
    return {"challenges": challenges}


OPS = {name[3:]: function for name, function in globals().items() if name.startswith("op_")}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        # No catch-all: an unexpected exception is this peer's bug and must fail the run, not pass as "refused".
        request = json.loads(line)
        response = {"ok": True}
        response.update(OPS[request["op"]](request))
        sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
