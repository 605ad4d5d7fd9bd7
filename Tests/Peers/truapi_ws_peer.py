#!/usr/bin/env python3
"""Independent TrUAPI product peer: drives a running `omni truapi bridge` over PyPI `websockets`.

It replays exchanges.json: sends each request frame, compares the host's frames with the expected bytes, and decodes
every frame it sent and received with its own types — Appendix A of the reference parsed at run time by
truapi_peer.py into PyPI scalecodec registrations, method ids from wire_table.json; nothing from omni — checking that
the decoded value encodes back to the same bytes. It then checks the connection gate: every ws_token.json case with
the bridge's token in place of the vector's, and a wrong and a missing token answered HTTP 401 "invalid token" — on
the WebSocket and on the browser glue's pages (/bootstrap.js, /host) alike.

The bridge must serve product dotli.dot with the chains the exchanges assume: network "paseo" with AssetHub =
0xaa…aa and a chain with the all-zero genesis (the iOS stub's feature_supported). The URL (with its token) comes
from the environment, never argv: TRUAPI_URL.

Usage: TRUAPI_URL=ws://127.0.0.1:PORT/?t=TOKEN truapi_ws_peer.py [--exchanges FILE] [--tokens FILE]
Prints one line per check and a JSON summary last; exits 0 when everything passed, 1 otherwise.
"""
import argparse
import json
import os
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request

from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truapi_peer import Peer, compact, frame, parse_appendix  # noqa: E402  (the Appendix-A parser and scalecodec types)

# Reproducible only by a platform whose storage read fails with Full; a real store does not.
PLATFORM_ONLY = {'local_storage_read_full'}


class Failures:
    def __init__(self):
        self.count = 0
        self.checks = 0

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.count += 1
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
    raise ValueError('big compact in a request id')


def split_frame(data):
    length, offset = read_compact(data, 0)
    request_id = data[offset:offset + length].decode('utf-8', errors='strict')
    return request_id, data[offset + length], data[offset + length + 1:]


class Codec:
    """Frame payloads at the wire table's types, with the peer's own scalecodec registry."""

    def __init__(self, peer, methods):
        self.peer = peer
        self.by_id = {}
        for method in methods:
            for kind, ident in method['ids'].items():
                self.by_id[ident] = (method, kind[:-3])

    def roundtrip(self, key, data):
        """Decodes `data` as the named type and encodes it again: the bytes must come back."""
        try:
            value = self.peer.decode(key, data)
        except Exception:  # scalecodec raises ValueError, IndexError, … on bytes that are not the type
            return False, None
        return self.peer.encode(key, value) == data, value

    def call_error(self, error_type, data):
        tag = data[0]
        if tag == 0:
            return self.roundtrip('ver_' + error_type, data[1:])
        if tag in (1, 2):
            return len(data) == 1, ['Denied', 'Unsupported'][tag - 1]
        if tag in (3, 4):
            length, offset = read_compact(data, 1)
            reason = data[offset:offset + length].decode('utf-8', errors='strict')
            return offset + length == len(data), {'reason': reason}
        return False, None

    def check_payload(self, discriminant, payload):
        """(ok, method, kind, decoded) for one frame's payload, read with the peer's types."""
        method, kind = self.by_id[discriminant]
        name = method['method']
        if kind in ('request', 'start'):
            if method['request_type'] is None:
                return payload in (b'', b'\x00'), name, kind, None
            ok, value = self.roundtrip('ver_' + method['request_type'], payload)
            return ok, name, kind, value
        if kind == 'receive':
            ok, value = self.roundtrip('ver_' + method['item_type'], payload)
            return ok, name, kind, value
        if kind == 'interrupt':
            if payload == b'':
                return True, name, kind, None
            ok, value = self.call_error(method['interrupt_error_type'] or 'HostHandshakeError', payload[1:])
            return ok and payload[0] == 0, name, kind, value
        if kind == 'response':
            if payload[0] != 0:
                return False, name, kind, None
            if payload[1] == 0:
                ok_type = method['ok_type']
                if ok_type is None:
                    return payload[2:] == b'', name, kind, None
                # The Ok body is the unwrapped V1 content of the Ok envelope: put the V1 byte back to read it.
                ok, value = self.roundtrip('ver_' + ok_type, b'\x00' + payload[2:])
                return ok, name, kind, value
            ok, value = self.call_error(method['error_type'], payload[2:])
            return ok and payload[1] == 1, name, kind, value
        return payload == b'', name, kind, None


def exchanges(url, vectors, codec, failures):
    for vector in vectors:
        name = vector['name']
        if name in PLATFORM_ONLY:
            print('skip %s: needs a platform whose storage read fails' % name, flush=True)
            continue
        request = bytes.fromhex(vector['request']['hex'])
        request_id, discriminant, payload = split_frame(request)
        ok, method, kind, _ = codec.check_payload(discriminant, payload)
        malformed = any(want.get('payload_prefix_hex', '')[2:4] == '03' for want in vector['expect'])
        if malformed:
            # A request the host must answer MalformedFrame: the peer's types cannot read it either.
            failures.check(not ok, '%s: the peer cannot read the request either (%s %s)' % (name, method, kind))
        elif not failures.check(ok, '%s: the request reads and re-encodes with the peer types (%s %s)' % (name, method, kind)):
            continue
        with connect(url, open_timeout=10, max_size=None) as ws:
            ws.send(request)
            for want in vector['expect']:
                got = ws.recv(timeout=10)
                got_id, got_discriminant, got_payload = split_frame(got)
                if 'hex' in want:
                    failures.check(got.hex() == want['hex'].lower(), '%s: frame %s (expected %s)' % (name, got.hex()[:80], want['hex'][:80]))
                else:
                    prefix = bytes.fromhex(want['payload_prefix_hex'])
                    length, offset = read_compact(got_payload, len(prefix))
                    reason = got_payload[offset:offset + length].decode('utf-8', errors='strict')
                    failures.check(got_id == want['request_id'] and got_discriminant == want['discriminant']
                                   and got_payload.startswith(prefix) and reason != '' and offset + length == len(got_payload),
                                   '%s: %s with a reason (%r)' % (name, prefix.hex(), reason[:60]))
                ok, method, kind, value = codec.check_payload(got_discriminant, got_payload)
                failures.check(ok, '%s: the answer reads and re-encodes with the peer types (%s %s %s)'
                               % (name, method, kind, json.dumps(value, default=repr)[:80]))
            if name == 'connection_status_start_then_stop':
                ws.send(frame(request_id, discriminant + 1, b''))
                ws.send(frame('p:after', 0, b'\x00\x01'))
                after = ws.recv(timeout=10)
                failures.check(split_frame(after)[0] == 'p:after', '%s: nothing after the stop' % name)


def refused(url):
    """The HTTP status and body of a refused upgrade, or None when it was accepted."""
    try:
        with connect(url, open_timeout=10):
            return None
    except InvalidStatus as error:
        return error.response.status_code, bytes(error.response.body or b'')


def raw_status(host, port, target):
    """Sends an upgrade with a request-target websockets cannot send (no path and query at all)."""
    request = ('GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
               'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n' % (target, host, port))
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request.encode())
        data = b''
        while b'\r\n\r\n' not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b'\r\n\r\n')
        status = int(head.split(b' ')[1])
        length = next((int(line.split(b':')[1]) for line in head.split(b'\r\n') if line.lower().startswith(b'content-length:')), 0)
        while len(body) < length:
            chunk = sock.recv(4096)
            if not chunk:
                break
            body += chunk
        return status, body


def gate(url, cases, failures):
    parts = urllib.parse.urlsplit(url)
    token = urllib.parse.parse_qs(parts.query)['t'][0]
    base = '%s://%s' % (parts.scheme, parts.netloc)
    for case in cases:
        target = case['path_and_query']
        if target is None:
            status, body = raw_status(parts.hostname, parts.port, '*')
            failures.check(status == 401 and body == b'invalid token', 'gate: no path and query -> %d %r' % (status, body))
            continue
        # The vector's token "abc" stands for the bridge's; "other" stays a wrong one.
        query = '&'.join(('t=' + token if pair == 't=' + case['token'] else pair) for pair in target.partition('?')[2].split('&'))
        outcome = refused(base + target.partition('?')[0] + ('?' + query if '?' in target else ''))
        if case['accept']:
            failures.check(outcome is None, 'gate: %s accepted' % target)
        else:
            failures.check(outcome == (401, b'invalid token'), 'gate: %s -> %r' % (target, outcome))
    failures.check(refused(base + '/?t=' + 'f' * 64) == (401, b'invalid token'), 'gate: a wrong token -> 401 invalid token')
    failures.check(refused(base + '/') == (401, b'invalid token'), 'gate: a missing token -> 401 invalid token')
    failures.check(refused(base + '/deep/path?x=1&t=' + token) is None, 'gate: the path is not checked')
    pages(parts, token, failures)


def http_get(url):
    """Status, headers (lowercased names) and body of a GET, whatever the status."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def pages(parts, token, failures):
    """The browser glue behind the same gate: /bootstrap.js and /host answer 401 without the token."""
    origin = 'http://%s' % parts.netloc
    product = '&url=' + urllib.parse.quote('http://localhost:3000/', safe='')
    for path, suffix, kind in (('/bootstrap.js', '', 'text/javascript'), ('/host', product, 'text/html')):
        for query, what in (('', 'no token'), ('?t=' + 'f' * 64, 'a wrong token'), ('?x=1&t=' + token[:-1], 'a cut token')):
            status, _, body = http_get(origin + path + query + (suffix.replace('&', '?' if not query else '&', 1)))
            failures.check((status, body) == (401, b'invalid token'), 'pages: %s with %s -> %d %r' % (path, what, status, body[:40]))
        status, headers, body = http_get(origin + path + '?t=' + token + suffix)
        failures.check(status == 200 and headers.get('content-type', '').startswith(kind) and headers.get('cache-control') == 'no-store',
                       'pages: %s with the token -> %d %s, %s' % (path, status, headers.get('content-type'), headers.get('cache-control')))
        if path == '/bootstrap.js':
            failures.check(('"url":"ws://%s/?t=%s"' % (parts.netloc, token)).encode() in body and b'window.__HOST_API_PORT__' in body,
                           'pages: the bootstrap dials this bridge with its token')


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.environ.get('OMNI_VECTORS') or os.path.join(here, '..', '..', '..', 'shared', 'vectors')
    parser = argparse.ArgumentParser()
    parser.add_argument('--exchanges', default=os.path.join(shared, 'truapi', 'exchanges.json'))
    parser.add_argument('--tokens', default=os.path.join(shared, 'truapi', 'ws_token.json'))
    parser.add_argument('--wire-table', default=os.path.join(shared, 'truapi', 'wire_table.json'))
    parser.add_argument('--reference', default=os.path.join(shared, '..', 'reference', 'truapi.md'))
    args = parser.parse_args()
    url = os.environ.get('TRUAPI_URL')
    if not url:
        print('set TRUAPI_URL to the bridge URL (with its token)', file=sys.stderr)
        sys.exit(2)
    codec = Codec(Peer(parse_appendix(args.reference)), json.load(open(args.wire_table))['methods'])
    failures = Failures()
    vectors = json.load(open(args.exchanges))['vectors']
    exchanges(url, vectors, codec, failures)
    gate(url, json.load(open(args.tokens))['cases'], failures)
    print(json.dumps({'checks': failures.checks, 'failures': failures.count,
                      'exchanges': len([v for v in vectors if v['name'] not in PLATFORM_ONLY])}))
    sys.exit(1 if failures.count else 0)


if __name__ == '__main__':
    main()
