#!/usr/bin/env python3
"""Independent TrUAPI product that checks `omni truapi bridge` as a signing host (PyPI websockets).

It connects to a bridge started with a session (the phrase in TRUAPI_MNEMONIC, its entropy in TRUAPI_ENTROPY_HEX,
the product in TRUAPI_PRODUCT, the URL with its token in TRUAPI_URL; the bridge answers every prompt yes), sends
every signing-host method in frames built with this peer's own types (Appendix A of the reference, parsed at run
time by truapi_peer.py into PyPI scalecodec registrations; ids from wire_table.json), and checks each answer with
libraries that share nothing with omni:

  - accounts: py-bip39-bindings (substrate-bip39 mini secret of the phrase) and py-sr25519-bindings (schnorrkel)
    hard //product//<id> and soft index derivations, with sr25519_peer.py's junction chain codes (scalecodec);
    the phrase and the entropy are checked to agree (hashlib PBKDF2);
  - signatures: schnorrkel verify over the wrapped message, the v4 preimage this peer builds itself (BLAKE2b-256
    over 256 bytes), and the extrinsic v4 it parses itself;
  - sign_vrf: sr25519_peer.py's VRF verification (merlin-transcripts and libsodium's ristretto255);
  - entropy_derive: the BLAKE2b chain of the reference (hashlib);
  - addresses: scalecodec's SS58.

Prints one line per check and a JSON summary last; exits 0 when everything passed, 1 otherwise.

Offline, for `omni truapi key`: `truapi_sign_peer.py derive` reads JSON requests, one per line, on stdin
({"phrase", "entropy", "product", "index": ["Index", n] | ["Raw", hex], "context": hex, "message": hex, "prefix"})
and answers each with this peer's product account, identity and root keys, SS58 addresses (scalecodec), product
entropy and a schnorrkel signature of the wrapped message; `truapi_sign_peer.py verify` answers
{"public", "message", "signature"} requests with schnorrkel's verdict over the wrapped message.
"""
import hashlib
import json
import os
import struct
import sys

import bip39
import sr25519
from scalecodec.utils import ss58
from websockets.sync.client import connect

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sr25519_peer import chain_code, op_vrf_verify  # noqa: E402
from truapi_peer import Peer, compact, parse_appendix  # noqa: E402


class Checks:
    def __init__(self):
        self.count = 0
        self.failures = 0

    def check(self, ok, what):
        self.count += 1
        if not ok:
            self.failures += 1
        print(('ok   ' if ok else 'FAIL ') + what, flush=True)
        return ok


def read_compact(data, offset):
    mode = data[offset] & 3
    if mode == 0:
        return data[offset] >> 2, offset + 1
    if mode == 1:
        return int.from_bytes(data[offset:offset + 2], 'little') >> 2, offset + 2
    if mode == 2:
        return int.from_bytes(data[offset:offset + 4], 'little') >> 2, offset + 4
    count = (data[offset] >> 2) + 4
    return int.from_bytes(data[offset + 1:offset + 1 + count], 'little'), offset + 1 + count


# --- the signing host's derivations, from the reference's description ---------------------------------------------

INDEX_TAIL = hashlib.blake2b(b'product-account-index', digest_size=32).digest()[:28]


def index_bytes(index):
    if index[0] == 'Index':
        return struct.pack('<I', index[1]) + INDEX_TAIL
    return index[1]


def root_pair(phrase):
    return sr25519.pair_from_seed(bytes(bip39.bip39_to_mini_secret(phrase, '')))


def product_pair(root, product, index=('Index', 0)):
    public, secret = root
    for name in ('product', product):
        _, public, secret = sr25519.hard_derive_keypair((chain_code(name), public, secret), b'')
    _, public, secret = sr25519.derive_keypair((index_bytes(index), public, secret), b'')
    return public, secret


def product_entropy(entropy, product, key):
    source = hashlib.blake2b(entropy, digest_size=32, key=b'product-entropy-derivation').digest()
    per = hashlib.blake2b(source, digest_size=32, key=hashlib.blake2b(product.encode(), digest_size=32).digest()).digest()
    return hashlib.blake2b(per, digest_size=32, key=key).digest()


def wrapped(message):
    if message.startswith(b'<Bytes>') and message.endswith(b'</Bytes>'):
        return message
    return b'<Bytes>' + message + b'</Bytes>'


def v4_parts(data):
    """extra and additional_signed of the listed extensions, from the fields of HostSignPayloadData."""
    extra, additional = b'', b''
    for name in data['signed_extensions']:
        if name == 'CheckSpecVersion':
            additional += data['spec_version']
        elif name == 'CheckTxVersion':
            additional += data['transaction_version']
        elif name == 'CheckGenesis':
            additional += data['genesis_hash']
        elif name == 'CheckMortality':
            extra += data['era']
            additional += data['block_hash']
        elif name == 'CheckNonce':
            extra += data['nonce']
        elif name == 'ChargeTransactionPayment':
            extra += data['tip']
    return extra, additional


def signed_bytes(preimage):
    return hashlib.blake2b(preimage, digest_size=32).digest() if len(preimage) > 256 else preimage


def split_extrinsic(extrinsic):
    """(signer, signature, rest) of a signed extrinsic v4 with an sr25519 MultiSignature, or None."""
    length, offset = read_compact(extrinsic, 0)
    body = extrinsic[offset:]
    if length != len(body) or body[:2] != b'\x84\x00' or body[34] != 1:
        return None
    return body[2:34], body[35:99], body[99:]


# --- frames -----------------------------------------------------------------------------------------------------

class Product:
    def __init__(self, ws, peer, methods):
        self.ws = ws
        self.peer = peer
        self.methods = {m['method']: m for m in methods}
        self.next = 0

    def call(self, name, value):
        """('ok', body) or ('err', call error) of one request; the Ok body decoded with the peer's types."""
        method = self.methods[name]
        self.next += 1
        request_id = 'p:%d' % self.next
        rid = request_id.encode()
        payload = self.peer.encode('ver_' + method['request_type'], ('V1', value)) if method['request_type'] else b'\x00'
        self.ws.send(compact(len(rid)) + rid + bytes([method['ids']['request_id']]) + payload)
        while True:
            frame = self.ws.recv(timeout=20)
            length, offset = read_compact(frame, 0)
            got_id = frame[offset:offset + length].decode()
            discriminant = frame[offset + length]
            body = frame[offset + length + 1:]
            if got_id == request_id and discriminant == method['ids']['response_id']:
                break
        assert body[0] == 0, 'response version'
        if body[1] == 0:
            if method['ok_type'] is None:
                return 'ok', None
            return 'ok', self.peer.decode('ver_' + method['ok_type'], b'\x00' + body[2:])[1]
        tag = body[2]
        if tag == 0:
            return 'err', ('Domain', self.peer.decode('ver_' + method['error_type'], body[3:])[1])
        return 'err', (['Domain', 'Denied', 'Unsupported', 'MalformedFrame', 'HostFailure'][tag], body[3:])

    def subscribe_first(self, name):
        method = self.methods[name]
        self.next += 1
        rid = ('p:%d' % self.next).encode()
        self.ws.send(compact(len(rid)) + rid + bytes([method['ids']['start_id']]) + b'\x00')
        frame = self.ws.recv(timeout=20)
        length, offset = read_compact(frame, 0)
        assert frame[offset + length] == method['ids']['receive_id']
        return self.peer.decode('ver_' + method['item_type'], frame[offset + length + 1:])[1]


def account(product, index=('Index', 0)):
    return {'dot_ns_identifier': product, 'derivation_index': index}


def main():
    shared = os.environ.get('OMNI_VECTORS') or os.path.join(HERE, '..', '..', '..', 'shared', 'vectors')
    url, phrase = os.environ['TRUAPI_URL'], os.environ['TRUAPI_MNEMONIC']
    entropy, product = bytes.fromhex(os.environ['TRUAPI_ENTROPY_HEX']), os.environ['TRUAPI_PRODUCT']
    peer = Peer(parse_appendix(os.path.join(shared, '..', 'reference', 'truapi.md')))
    methods = json.load(open(os.path.join(shared, 'truapi', 'wire_table.json')))['methods']
    checks = Checks()

    mini = bytes(bip39.bip39_to_mini_secret(phrase, ''))
    checks.check(hashlib.pbkdf2_hmac('sha512', entropy, b'mnemonic', 2048)[:32] == mini, 'the phrase and the entropy agree (substrate-bip39)')
    root = root_pair(phrase)
    slot0 = product_pair(root, product)
    identity = product_pair(root, 'uid.dot')

    with connect(url, open_timeout=10, max_size=None) as ws:
        host = Product(ws, peer, methods)

        for index in [('Index', 0), ('Index', 7), ('Raw', bytes(range(32)))]:
            status, body = host.call('account_get_account', {'product_account_id': account(product, index)})
            expected = product_pair(root, product, index)[0]
            checks.check(status == 'ok' and body['account']['public_key'] == expected, 'get_account %s = %s' % (index[0], expected.hex()[:16]))
        status, body = host.call('account_get_account', {'product_account_id': account('other.dot')})
        checks.check(status == 'ok' and body['account']['public_key'] == product_pair(root, 'other.dot')[0], 'get_account of other.dot after access')

        for payload, message in [(('Payload', {'payload': 'hello from python'}), b'hello from python'),
                                 (('Payload', {'payload': '0xc0ffee'}), bytes.fromhex('c0ffee')),
                                 (('Bytes', {'bytes': os.urandom(40)}), None),
                                 (('Bytes', {'bytes': b'<Bytes>already</Bytes>'}), b'<Bytes>already</Bytes>')]:
            message = message if message is not None else payload[1]['bytes']
            status, body = host.call('signing_sign_raw', {'account': account(product), 'payload': payload})
            ok = status == 'ok' and len(body['signature']) == 64 and body['signed_transaction'] is None
            checks.check(ok and sr25519.verify(body['signature'], wrapped(message), slot0[0]), 'sign_raw %s verifies (schnorrkel)' % payload[0])

        for method_len, with_tx in [(20, True), (400, True), (12, False)]:
            data = {'block_hash': os.urandom(32), 'block_number': b'\x10\x00\x00\x00', 'era': b'\x15\x01', 'genesis_hash': os.urandom(32),
                    'method': os.urandom(method_len), 'nonce': b'\x04', 'spec_version': b'\x01\x00\x00\x00', 'tip': b'\x00',
                    'transaction_version': b'\x02\x00\x00\x00',
                    'signed_extensions': ['CheckNonZeroSender', 'CheckSpecVersion', 'CheckTxVersion', 'CheckGenesis', 'CheckMortality',
                                          'CheckNonce', 'CheckWeight', 'ChargeTransactionPayment'],
                    'version': 4, 'asset_id': None, 'metadata_hash': None, 'mode': None, 'with_signed_transaction': with_tx}
            status, body = host.call('signing_sign_payload', {'account': account(product), 'payload': data})
            extra, additional = v4_parts(data)
            preimage = data['method'] + extra + additional
            ok = status == 'ok' and body['signature'][:1] == b'\x01' and len(body['signature']) == 65
            checks.check(ok and sr25519.verify(body['signature'][1:], signed_bytes(preimage), slot0[0]),
                         'sign_payload v4 over a %d-byte preimage verifies%s' % (len(preimage), ' (BLAKE2b-256)' if len(preimage) > 256 else ''))
            if with_tx:
                parts = split_extrinsic(body['signed_transaction'] or b'')
                checks.check(parts is not None and parts[0] == slot0[0] and parts[1] == body['signature'][1:] and parts[2] == extra + data['method'],
                             'the signed extrinsic v4 carries the signer, that signature, the extras and the call')
            else:
                checks.check(body['signed_transaction'] is None, 'no signed extrinsic unless asked')

        call = b'\x05\x00' + os.urandom(30)
        extensions = [{'id': 'CheckMortality', 'extra': b'\x00', 'additional_signed': os.urandom(32)},
                      {'id': 'CheckNonce', 'extra': b'\x08', 'additional_signed': b''}]
        transaction = {'signer': account(product, ('Index', 2)), 'genesis_hash': os.urandom(32), 'call_data': call,
                       'extensions': extensions, 'tx_ext_version': 0}
        status, body = host.call('signing_create_transaction', transaction)
        parts = split_extrinsic(body['transaction']) if status == 'ok' else None
        signer = product_pair(root, product, ('Index', 2))[0]
        preimage = call + b'\x00\x08' + extensions[0]['additional_signed']
        checks.check(parts is not None and parts[0] == signer and parts[2] == b'\x00\x08' + call and sr25519.verify(parts[1], preimage, signer),
                     'create_transaction builds an extrinsic V4 whose signature verifies')
        status, error = host.call('signing_create_transaction', dict(transaction, tx_ext_version=5))
        checks.check(status == 'err' and error[0] == 'Domain' and error[1][0] == 'NotSupported', 'create_transaction V5 is NotSupported')

        identity_address = ss58.ss58_encode(identity[0], 42)
        status, body = host.call('signing_sign_raw_with_legacy_account', {'signer': identity_address, 'payload': ('Payload', {'payload': 'legacy'})})
        checks.check(status == 'ok' and sr25519.verify(body['signature'], b'<Bytes>legacy</Bytes>', identity[0]),
                     'sign_raw with the identity account as SS58 verifies')
        status, body = host.call('signing_sign_raw_with_legacy_account', {'signer': ss58.ss58_encode(os.urandom(32), 42), 'payload': ('Payload', {'payload': 'x'})})
        checks.check(status == 'err' and error_reason(body) == 'Account is not available in the active session', 'a stranger is not available')
        data = {'block_hash': os.urandom(32), 'block_number': b'\x01\x00\x00\x00', 'era': b'\x00', 'genesis_hash': os.urandom(32),
                'method': os.urandom(8), 'nonce': b'\x00', 'spec_version': b'\x01\x00\x00\x00', 'tip': b'\x00',
                'transaction_version': b'\x01\x00\x00\x00', 'signed_extensions': ['CheckGenesis', 'CheckNonce'], 'version': 4,
                'asset_id': None, 'metadata_hash': None, 'mode': None, 'with_signed_transaction': None}
        status, body = host.call('signing_sign_payload_with_legacy_account', {'signer': '0x' + slot0[0].hex(), 'payload': data})
        checks.check(status == 'ok' and sr25519.verify(body['signature'][1:], data['method'] + data['nonce'] + data['genesis_hash'], slot0[0]),
                     'sign_payload with the slot-0 account as hex verifies')
        status, body = host.call('signing_create_transaction_with_legacy_account',
                                 {'signer': identity[0], 'genesis_hash': os.urandom(32), 'call_data': call, 'extensions': [], 'tx_ext_version': 0})
        parts = split_extrinsic(body['transaction']) if status == 'ok' else None
        checks.check(parts is not None and parts[0] == identity[0] and sr25519.verify(parts[1], call, identity[0]),
                     'create_transaction with the identity account verifies')

        label, items = b'omni-peer', [[b'round', os.urandom(8)], [b'seed', os.urandom(32)]]
        status, body = host.call('account_sign_vrf', {'account': account(product, ('Index', 4)), 'transcript_label': label,
                                                      'items': [{'label': l, 'value': v} for l, v in items]})
        vrf_key = product_pair(root, product, ('Index', 4))[0]
        verdict = op_vrf_verify({'public': vrf_key.hex(), 'pre_output': body['pre_output'].hex(), 'proof': body['proof'].hex(),
                                 'label': label.hex(), 'items': [[l.hex(), v.hex()] for l, v in items], 'context': '', 'length': 0}) \
            if status == 'ok' else {}
        checks.check(verdict.get('valid') is True, 'sign_vrf: the pre-output and proof verify (the peer\'s schnorrkel VRF)')

        key = os.urandom(17)
        status, body = host.call('entropy_derive', {'context': key})
        checks.check(status == 'ok' and body['entropy'] == product_entropy(entropy, product, key), 'entropy_derive is the reference\'s BLAKE2b chain')

        status, body = host.call('account_get_user_id', None)
        checks.check(status == 'ok' and body['primary_username'] == os.environ.get('TRUAPI_USERNAME'), 'get_user_id answers the username')
        status, body = host.call('account_request_login', {'reason': None})
        checks.check(status == 'ok' and body == ('AlreadyConnected', None), 'request_login: AlreadyConnected')
        checks.check(host.subscribe_first('account_connection_status_subscribe') == ('Connected', None), 'connection status: Connected')

    print(json.dumps({'checks': checks.count, 'failures': checks.failures}))
    sys.exit(1 if checks.failures else 0)


def offline(mode):
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if mode == 'verify':
            message = wrapped(bytes.fromhex(request['message']))
            print(json.dumps({'valid': bool(sr25519.verify(bytes.fromhex(request['signature']), message, bytes.fromhex(request['public'])))}))
            continue
        root = root_pair(request['phrase'])
        index = request['index']
        index = (index[0], index[1] if index[0] == 'Index' else bytes.fromhex(index[1]))
        public, secret = product_pair(root, request['product'], index)
        identity = product_pair(root, 'uid.dot')[0]
        prefix = request.get('prefix', 42)
        message = bytes.fromhex(request['message'])
        print(json.dumps({
            'mini_secret_matches_entropy': hashlib.pbkdf2_hmac('sha512', bytes.fromhex(request['entropy']), b'mnemonic', 2048)[:32]
            == bytes(bip39.bip39_to_mini_secret(request['phrase'], '')),
            'product_account': public.hex(), 'product_address': ss58.ss58_encode(public, prefix),
            'identity': identity.hex(), 'identity_address': ss58.ss58_encode(identity, prefix), 'root': root[0].hex(),
            'entropy': product_entropy(bytes.fromhex(request['entropy']), request['product'], bytes.fromhex(request['context'])).hex(),
            'signature': sr25519.sign((public, secret), wrapped(message)).hex(),
        }), flush=True)


def error_reason(error):
    try:
        return error[1][1]['reason']
    except (TypeError, KeyError, IndexError):
        return None


if __name__ == '__main__':
    if len(sys.argv) > 1:
        offline(sys.argv[1])
    else:
        main()
