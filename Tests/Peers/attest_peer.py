#!/usr/bin/env python3
"""An independent App Attest evidence minter (Python `cryptography` + `cbor2`), for differential tests and benchmarks.

It builds what a device and Apple's CA would: a P-384 test root and intermediate, a P-256 credential certificate
carrying the nonce extension 1.2.840.113635.100.8.2 as SEQUENCE { [1] EXPLICIT OCTET STRING }, authData with the
COSE key (and optionally the iOS 27 extension map), and assertions signed ES256 over nonce = SHA256(authData ||
clientDataHash). Each case says which reason code a correct verifier must give.

  attest_peer.py cases --seed N --count K [--now 2026-11-29T00:00:00Z]   random valid/invalid cases, JSON Lines
  attest_peer.py valid --seed N --count K [--now …]                     K valid production attestations, JSON Lines
  attest_peer.py receipt-chains --seed N [--now …]                      receipts signed by look-alike chains, one JSON

The receipt chains imitate Apple's receipt PKI under a test root: a pinned intermediate, a second intermediate that
the same root issued under the very same name (only its fingerprint tells them apart), signers with the documented
subject and with another one, and a signer issued by the root directly. Every chain verifies to the root; only the
pins (intermediate fingerprint, signer subject) can refuse the look-alikes.

Lines follow omni's vector schema (attestation_b64, key_id, app_id, client_data_hash_b64, challenge_b64,
environment, verify_at, root_pem, kind, case, expect, and for assertions assertion_b64, client_data_b64,
public_key_b64, previous_counter)."""
import argparse
import base64
import datetime
import hashlib
import json
import random
import sys

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs7
from cryptography.x509.oid import NameOID

NONCE_OID = x509.ObjectIdentifier("1.2.840.113635.100.8.2")
PROD = b"appattest" + b"\x00" * 7
DEV = b"appattestdevelop"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Peer Test")])


def ca_certificate(subject_key, issuer_key, subject: str, issuer: str, start, end, serial: int):
    return (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer))
            .public_key(subject_key.public_key()).serial_number(serial).not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .sign(issuer_key, hashes.SHA384()))


class Minter:
    def __init__(self, rng: random.Random, now: datetime.datetime):
        self.rng = rng
        self.now = now
        self.root_key = ec.derive_private_key(rng.getrandbits(320) + 1, ec.SECP384R1())
        self.intermediate_key = ec.derive_private_key(rng.getrandbits(320) + 1, ec.SECP384R1())
        self.other_root_key = ec.derive_private_key(rng.getrandbits(320) + 1, ec.SECP384R1())
        start, end = now - datetime.timedelta(days=365), now + datetime.timedelta(days=3650)
        self.root = ca_certificate(self.root_key, self.root_key, "Peer Test Root", "Peer Test Root", start, end, 1)
        self.intermediate = ca_certificate(self.intermediate_key, self.root_key, "Peer Test Intermediate",
                                           "Peer Test Root", start, end, 2)
        # Same issuer name, different key, chained to a root nobody trusts.
        self.impostor = ca_certificate(self.other_root_key, self.other_root_key, "Peer Test Intermediate",
                                       "Peer Test Intermediate", start, end, 3)
        self.root_pem = self.root.public_bytes(serialization.Encoding.PEM).decode()

    def leaf(self, key, nonce: bytes, start, end, issuer_key=None, nonce_der: bytes = None):
        point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        extension = nonce_der if nonce_der is not None else bytes.fromhex("3024a1220420") + (nonce or b"")
        builder = (x509.CertificateBuilder().subject_name(name(sha256(point).hex()))
                   .issuer_name(name("Peer Test Intermediate")).public_key(key.public_key())
                   .serial_number(self.rng.getrandbits(63) + 1).not_valid_before(start).not_valid_after(end)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                                data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                                crl_sign=False, encipher_only=False, decipher_only=False), critical=True))
        if nonce is not None:
            builder = builder.add_extension(x509.UnrecognizedExtension(NONCE_OID, extension), critical=False)
        return builder.sign(issuer_key or self.intermediate_key, hashes.SHA256())

    def attestation(self, case: str, app_id: str = "PEERTEAM01.org.example.peer", challenge: bytes = None):
        """Returns one attestation line for `case` with the reason code it must get; over `challenge` when given
        (a server's), otherwise over one drawn from the generator (drawn either way, so seeded output stays put)."""
        rng = self.rng
        key = ec.derive_private_key(rng.getrandbits(255) + 1, ec.SECP256R1())
        numbers = key.public_key().public_numbers()
        point = b"\x04" + numbers.x.to_bytes(32, "big") + numbers.y.to_bytes(32, "big")
        key_id = sha256(point)
        drawn = bytes(rng.getrandbits(8) for _ in range(32))
        challenge = drawn if challenge is None else challenge
        client_data_hash = sha256(challenge)
        environment = "development" if case == "valid_dev" else "production"
        aaguid = DEV if environment == "development" else PROD
        if case == "aaguid_mismatch":
            aaguid = DEV
        counter = 1 if case == "counter_not_zero" else 0
        rp_app = app_id + ".other" if case == "rp_id_mismatch" else app_id
        credential_id = sha256(b"other" + point) if case == "credential_id_mismatch" else key_id
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: point[1:33], -3: point[33:]})
        auth_data = (sha256(rp_app.encode()) + bytes([0x40]) + counter.to_bytes(4, "big") + aaguid
                     + len(credential_id).to_bytes(2, "big") + credential_id + cose)
        if case == "valid_ios27":
            auth_data += cbor2.dumps({"apple_bundle_version_01": "7", "apple_validation_category_01": b"\x01\x00\x00\x00"})
        if case == "auth_data_garbage":
            auth_data += b"\xff\x00"
        nonce = sha256(auth_data + (sha256(b"x" + client_data_hash) if case == "nonce_mismatch" else client_data_hash))
        start, end = self.now - datetime.timedelta(days=1), self.now + datetime.timedelta(days=300)
        if case == "cert_expired":
            start, end = self.now - datetime.timedelta(days=10), self.now - datetime.timedelta(days=2)
        issuer_key = self.other_root_key if case == "bad_chain" else None
        leaf = self.leaf(key, None if case == "missing_nonce" else nonce, start, end, issuer_key=issuer_key,
                         nonce_der=(bytes.fromhex("3022") + bytes.fromhex("0420") + nonce) if case == "wrong_nonce_shape" else None)
        x5c = [leaf.public_bytes(serialization.Encoding.DER),
               (self.impostor if case == "bad_chain" else self.intermediate).public_bytes(serialization.Encoding.DER)]
        obj = cbor2.dumps({"fmt": "packed" if case == "bad_format" else "apple-appattest",
                           "attStmt": {"x5c": x5c, "receipt": b""}, "authData": auth_data})
        if case == "malformed_cbor":
            obj = obj[: len(obj) // 2]
        sent_key_id = sha256(b"another key") if case == "key_id_mismatch" else key_id
        expect = {"valid_prod": "ok", "valid_dev": "ok", "valid_ios27": "ok", "missing_nonce": "nonce_mismatch",
                  "wrong_nonce_shape": "nonce_mismatch", "auth_data_garbage": "malformed_auth_data"}.get(case, case)
        line = {"kind": "attestation", "case": case, "expect": expect, "app_id": app_id, "environment": environment,
                "attestation_b64": b64(obj), "key_id": b64(sent_key_id), "challenge_b64": b64(challenge),
                "client_data_hash_b64": b64(client_data_hash), "verify_at": self.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "root_pem": self.root_pem}
        return line, key, point

    def assertion(self, case: str, attestation_challenge: bytes = None, client_challenge: bytes = None):
        """An assertion line for `case` (with the attestation of its key); its client data is {"challenge": base64}
        of `client_challenge` when given, else of 16 bytes drawn from the generator."""
        line, key, point = self.attestation("valid_prod", challenge=attestation_challenge)
        app_id = line["app_id"]
        previous = self.rng.randrange(0, 1 << 31)
        counter = previous if case == "counter_not_increasing" else previous + 1 + self.rng.randrange(0, 1000)
        rp = app_id + ".other" if case == "rp_id_mismatch" else app_id
        auth_data = sha256(rp.encode()) + bytes([0x40]) + counter.to_bytes(4, "big")
        drawn = bytes(self.rng.getrandbits(8) for _ in range(16))
        client_data = json.dumps({"challenge": b64(drawn if client_challenge is None else client_challenge)}).encode()
        nonce = sha256(auth_data + sha256(client_data))
        signer = ec.derive_private_key(self.rng.getrandbits(255) + 1, ec.SECP256R1()) if case == "bad_signature" else key
        signature = signer.sign(nonce, ec.ECDSA(hashes.SHA256()))
        obj = cbor2.dumps({"signature": signature, "authenticatorData": auth_data})
        line.update({"kind": "assertion", "case": "assert_" + case, "expect": case if case != "valid" else "ok",
                     "assertion_b64": b64(obj), "client_data_b64": b64(client_data), "public_key_b64": b64(point),
                     "previous_counter": previous})
        return line


# In the DER order of Apple's certificates (common name first).
RECEIPT_INTERMEDIATE = [("CN", "Apple Application Integration CA 5 - G1"), ("OU", "Apple Certification Authority"),
                        ("O", "Apple Inc."), ("C", "US")]
RECEIPT_SIGNER = [("CN", "Application Attestation Fraud Receipt Signing"), ("O", "Apple Inc."), ("C", "US")]
ATTRIBUTES = {"C": NameOID.COUNTRY_NAME, "O": NameOID.ORGANIZATION_NAME, "OU": NameOID.ORGANIZATIONAL_UNIT_NAME,
              "CN": NameOID.COMMON_NAME}


def rdns(pairs) -> x509.Name:
    return x509.Name([x509.NameAttribute(ATTRIBUTES[kind], value) for kind, value in pairs])


def der_length(length: int) -> bytes:
    if length < 0x80:
        return bytes([length])
    encoded = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(encoded)]) + encoded


def tlv(tag: int, value: bytes) -> bytes:
    return bytes([tag]) + der_length(len(value)) + value


def der_integer(value: int) -> bytes:
    return tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


def receipt_payload(fields) -> bytes:
    """SET OF SEQUENCE {INTEGER type, INTEGER version (1), OCTET STRING value}, as Apple's receipts carry."""
    return tlv(0x31, b"".join(tlv(0x30, der_integer(kind) + der_integer(1) + tlv(0x04, value)) for kind, value in fields))


def receipt_chains(rng: random.Random, now: datetime.datetime) -> dict:
    def key():
        return ec.derive_private_key(rng.getrandbits(320) + 1, ec.SECP384R1())

    start, end = now - datetime.timedelta(days=30), now + datetime.timedelta(days=365)
    root_key = key()
    root_name = rdns([("CN", "Apple Root CA - G3"), ("OU", "Apple Certification Authority"), ("O", "Apple Inc."),
                      ("C", "US")])

    def certificate(subject, subject_key, issuer, issuer_key, ca: bool, serial: int):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
                   .public_key(subject_key.public_key()).serial_number(serial)
                   .not_valid_before(start).not_valid_after(end)
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False,
                                                key_encipherment=False, data_encipherment=False, key_agreement=False,
                                                key_cert_sign=ca, crl_sign=ca, encipher_only=False,
                                                decipher_only=False), critical=True))
        return builder.sign(issuer_key, hashes.SHA384() if ca else hashes.SHA256())

    root = certificate(root_name, root_key, root_name, root_key, True, 1)
    pinned_key, lookalike_key = key(), key()
    pinned = certificate(rdns(RECEIPT_INTERMEDIATE), pinned_key, root_name, root_key, True, 2)
    lookalike = certificate(rdns(RECEIPT_INTERMEDIATE), lookalike_key, root_name, root_key, True, 3)
    app_id = "PEERTEAM01.org.example.peer"
    created = now.strftime("%Y-%m-%dT%H:%M:%S.000Z").encode()
    payload = receipt_payload([(2, app_id.encode()), (4, sha256(b"client data")), (5, b"peer-token"), (6, b"ATTEST"),
                               (7, b"production"), (12, created), (21, created)])

    def signed(signer_subject, issuer_certificate, issuer_key, chain) -> str:
        signer_key = ec.derive_private_key(rng.getrandbits(255) + 1, ec.SECP256R1())
        signer = certificate(rdns(signer_subject), signer_key, issuer_certificate.subject, issuer_key, False,
                             rng.getrandbits(63) + 1)
        builder = pkcs7.PKCS7SignatureBuilder().set_data(payload).add_signer(signer, signer_key, hashes.SHA256())
        for extra_certificate in chain:
            builder = builder.add_certificate(extra_certificate)
        return b64(builder.sign(serialization.Encoding.DER, [pkcs7.PKCS7Options.Binary]))

    other_subject = [("CN", "Apple Pay Payment Processing"), ("O", "Apple Inc."), ("C", "US")]
    cases = [
        {"case": "pinned_chain", "expect_valid": True,
         "receipt_b64": signed(RECEIPT_SIGNER, pinned, pinned_key, [pinned, root])},
        {"case": "lookalike_intermediate", "expect_valid": False, "expect_problem": "intermediate",
         "receipt_b64": signed(RECEIPT_SIGNER, lookalike, lookalike_key, [lookalike, root])},
        {"case": "other_signer_subject", "expect_valid": False, "expect_problem": "signer",
         "receipt_b64": signed(other_subject, pinned, pinned_key, [pinned, root])},
        {"case": "signed_by_root", "expect_valid": False, "expect_problem": "intermediate",
         "receipt_b64": signed(RECEIPT_SIGNER, root, root_key, [root])},
    ]
    return {"root_pem": root.public_bytes(serialization.Encoding.PEM).decode(),
            "pinned_intermediate_sha256": pinned.fingerprint(hashes.SHA256()).hex(),
            "lookalike_intermediate_sha256": lookalike.fingerprint(hashes.SHA256()).hex(),
            "app_id": app_id, "verify_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "cases": cases}


ATTESTATION_CASES = ["valid_prod", "valid_dev", "valid_ios27", "nonce_mismatch", "missing_nonce", "wrong_nonce_shape",
                     "key_id_mismatch", "rp_id_mismatch", "counter_not_zero", "aaguid_mismatch", "credential_id_mismatch",
                     "cert_expired", "bad_chain", "bad_format", "malformed_cbor", "auth_data_garbage"]
ASSERTION_CASES = ["valid", "bad_signature", "rp_id_mismatch", "counter_not_increasing"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["cases", "valid", "receipt-chains"])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--now", default=None, help="RFC 3339 time the certificates are valid at (default: now)")
    args = parser.parse_args()
    now = (datetime.datetime.strptime(args.now, "%Y-%m-%dT%H:%M:%SZ") if args.now
           else datetime.datetime.utcnow().replace(microsecond=0))
    rng = random.Random(args.seed)
    out = sys.stdout
    if args.mode == "receipt-chains":
        out.write(json.dumps(receipt_chains(rng, now)) + "\n")
        return
    minter = Minter(rng, now)
    # Cases come from shuffled decks, not independent draws, so every case appears once per deck (a batch of 96
    # lines holds each attestation case at least four times instead of missing one in about 1 % of seeds).
    decks: dict[str, list[str]] = {"attestation": [], "assertion": []}

    def draw(kind: str, cases: list[str]) -> str:
        if not decks[kind]:
            decks[kind] = list(cases)
            rng.shuffle(decks[kind])
        return decks[kind].pop()

    for index in range(args.count):
        if args.mode == "valid":
            line = minter.attestation("valid_prod")[0]
        elif index % 4 == 3:
            line = minter.assertion(draw("assertion", ASSERTION_CASES))
        else:
            line = minter.attestation(draw("attestation", ATTESTATION_CASES))[0]
        out.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
