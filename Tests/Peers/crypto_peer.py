#!/usr/bin/env python3
"""Independent crypto peer for OmniCryptoTests: Python `cryptography` (and hashlib/hmac) on the other side.

Reads JSON requests, one per line, from stdin and writes one JSON response per line to stdout, in order.
Every binary value is lower-case hex. A response is {"ok": true, ...}, or {"ok": false, "refused": "<reason>"} when
the operation deliberately refuses its input (a tampered box: "InvalidTag"; a small-order X25519 peer key:
"small_order"). Anything else that goes wrong is this peer's own failure: it stops with a traceback and a non-zero
exit status, which the Swift side reports as a failed test, never as a refusal.
Key material is derived from the request's inputs (no hidden randomness except ECDSA nonces), so a failing
run can be replayed from the seed the Swift test prints.
"""
import datetime
import hashlib
import hmac
import json
import sys

from cryptography import x509
from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, x25519
from cryptography.hazmat.primitives.asymmetric.utils import (
    Prehashed, decode_dss_signature, encode_dss_signature)
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.x509.oid import NameOID

CURVES = {"P-256": (ec.SECP256R1, 32), "P-384": (ec.SECP384R1, 48), "secp256k1": (ec.SECP256K1, 32)}
HASHES = {"sha1": hashes.SHA1, "sha224": hashes.SHA224, "sha256": hashes.SHA256, "sha384": hashes.SHA384,
          "sha512": hashes.SHA512}


def unhex(value):
    return bytes.fromhex(value)


def ec_private(request):
    curve, _ = CURVES[request["curve"]]
    return ec.derive_private_key(int(request["scalar"], 16), curve())


def raw_from_der(signature, size):
    r, s = decode_dss_signature(signature)
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def der_from_raw(signature, size):
    if len(signature) != 2 * size:
        raise ValueError("raw signature has the wrong length")
    return encode_dss_signature(int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big"))


def op_ecdsa_sign(request):
    key = ec_private(request)
    _, size = CURVES[request["curve"]]
    hash_algorithm = HASHES[request["hash"]]()
    if request.get("prehashed"):
        signature = key.sign(unhex(request["digest"]), ec.ECDSA(Prehashed(hash_algorithm)))
    else:
        signature = key.sign(unhex(request["message"]), ec.ECDSA(hash_algorithm))
    public = key.public_key()
    return {
        "spki_der": public.public_bytes(serialization.Encoding.DER,
                                        serialization.PublicFormat.SubjectPublicKeyInfo).hex(),
        "point_uncompressed": public.public_bytes(serialization.Encoding.X962,
                                                  serialization.PublicFormat.UncompressedPoint).hex(),
        "point_compressed": public.public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.CompressedPoint).hex(),
        "sig_der": signature.hex(),
        "sig_raw": raw_from_der(signature, size).hex(),
        "pem_pkcs8": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()).decode(),
        "pem_sec1": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                      serialization.NoEncryption()).decode(),
    }


def op_ecdsa_verify(request):
    public = serialization.load_der_public_key(unhex(request["spki_der"]))
    _, size = CURVES[request["curve"]]
    signature = unhex(request["signature"])
    hash_algorithm = HASHES[request["hash"]]()
    if request["format"] == "raw":
        signature = der_from_raw(signature, size)
    try:
        if request.get("prehashed"):
            public.verify(signature, unhex(request["digest"]), ec.ECDSA(Prehashed(hash_algorithm)))
        else:
            public.verify(signature, unhex(request["message"]), ec.ECDSA(hash_algorithm))
        return {"valid": True}
    except InvalidSignature:
        return {"valid": False}


def op_ed25519_sign(request):
    key = ed25519.Ed25519PrivateKey.from_private_bytes(unhex(request["seed"]))
    return {
        "public": key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex(),
        "spki_der": key.public_key().public_bytes(serialization.Encoding.DER,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo).hex(),
        "signature": key.sign(unhex(request["message"])).hex(),
        "pem_pkcs8": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()).decode(),
    }


def op_ed25519_verify(request):
    public = ed25519.Ed25519PublicKey.from_public_bytes(unhex(request["public"]))
    try:
        public.verify(unhex(request["signature"]), unhex(request["message"]))
        return {"valid": True}
    except InvalidSignature:
        return {"valid": False}


def op_x25519(request):
    key = x25519.X25519PrivateKey.from_private_bytes(unhex(request["private"]))
    result = {"public": key.public_key().public_bytes(serialization.Encoding.Raw,
                                                      serialization.PublicFormat.Raw).hex()}
    if "peer_public" in request:
        peer = x25519.X25519PublicKey.from_public_bytes(unhex(request["peer_public"]))
        try:
            result["shared"] = key.exchange(peer).hex()
        except ValueError:  # cryptography refuses an all-zero shared secret (a small-order peer key)
            return {"ok": False, "refused": "small_order"}
    return result


def op_hkdf(request):
    okm = HKDF(algorithm=HASHES[request["hash"]](), length=request["length"], salt=unhex(request["salt"]) or None,
               info=unhex(request["info"])).derive(unhex(request["ikm"]))
    return {"okm": okm.hex()}


def op_hmac(request):
    return {"mac": hmac.new(unhex(request["key"]), unhex(request["data"]), request["hash"]).hexdigest()}


def op_pbkdf2(request):
    return {"key": hashlib.pbkdf2_hmac(request["hash"], unhex(request["password"]), unhex(request["salt"]),
                                       request["iterations"], request["length"]).hex()}


def op_blake2b(request):
    return {"digest": hashlib.blake2b(unhex(request["data"]), digest_size=request["size"],
                                      key=unhex(request["key"])).hexdigest()}


def op_chacha_seal(request):
    aead = ChaCha20Poly1305(unhex(request["key"]))
    return {"sealed": aead.encrypt(unhex(request["nonce"]), unhex(request["plaintext"]), unhex(request["aad"])).hex()}


def op_chacha_open(request):
    aead = ChaCha20Poly1305(unhex(request["key"]))
    try:
        return {"plaintext": aead.decrypt(unhex(request["nonce"]), unhex(request["sealed"]), unhex(request["aad"])).hex()}
    except InvalidTag:
        return {"ok": False, "refused": "InvalidTag"}


def utc(seconds):
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)


def name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "CH"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "omni test"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def certificate(subject_name, subject_key, issuer_name, issuer_key, window, serial, is_ca, extra=None):
    builder = (x509.CertificateBuilder()
               .subject_name(subject_name).issuer_name(issuer_name)
               .public_key(subject_key.public_key()).serial_number(serial)
               .not_valid_before(utc(window[0])).not_valid_after(utc(window[1]))
               .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                              critical=False))
    if is_ca:
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                          encipher_only=False, decipher_only=False), critical=True)
    if extra is not None:
        builder = builder.add_extension(extra, critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def op_x509_chain(request):
    """Root CA -> intermediate CA -> leaf (all P-256, keys from `scalars`), plus an unrelated root."""
    scalars = [int(s, 16) for s in request["scalars"]]
    keys = [ec.derive_private_key(s, ec.SECP256R1()) for s in scalars]
    root_key, intermediate_key, leaf_key, other_key = keys
    root_name, intermediate_name = name("omni test root"), name("omni test intermediate")
    leaf_name, other_name = name(request["leaf_common_name"]), name("omni unrelated root")
    extension = x509.UnrecognizedExtension(x509.ObjectIdentifier(request["extension_oid"]),
                                           unhex(request["extension_value"]))
    root = certificate(root_name, root_key, root_name, root_key, request["root_window"], request["serials"][0], True)
    intermediate = certificate(intermediate_name, intermediate_key, root_name, root_key,
                               request["intermediate_window"], request["serials"][1], True)
    leaf = certificate(leaf_name, leaf_key, intermediate_name, intermediate_key, request["leaf_window"],
                       request["serials"][2], False, extension)
    other = certificate(other_name, other_key, other_name, other_key, request["root_window"], request["serials"][3],
                        True)
    pem = lambda cert: cert.public_bytes(serialization.Encoding.PEM).decode()
    return {"root_pem": pem(root), "intermediate_pem": pem(intermediate), "leaf_pem": pem(leaf),
            "other_root_pem": pem(other),
            "leaf_spki_der": leaf_key.public_key().public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo).hex()}


def op_cert_info(request):
    cert = x509.load_pem_x509_certificate(request["pem"].encode())
    return {
        "subject": cert.subject.rfc4514_string(),
        "issuer": cert.issuer.rfc4514_string(),
        "serial": format(cert.serial_number, "x"),
        "not_before": int(cert.not_valid_before_utc.timestamp()),
        "not_after": int(cert.not_valid_after_utc.timestamp()),
        "fingerprint_sha256": cert.fingerprint(hashes.SHA256()).hex(),
        "spki_der": cert.public_key().public_bytes(serialization.Encoding.DER,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo).hex(),
    }


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
