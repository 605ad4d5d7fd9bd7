#!/usr/bin/env python3
"""Local HTTP/1.1 + HTTPS peer for omni's HTTP client tests (Tests/OmniTransportTests/HTTP*.swift).

Serves on ephemeral loopback ports and prints ONE JSON line on stdout describing them:
  http, https (cert from CA "ca"), https_other (cert from CA "ca_other"): server ports
  ca, ca_other: PEM paths of the two self-signed CAs (created at start, deleted at exit)
  blackhole: a listening port whose accept queue is full, so new connections never complete (connect timeout)
  closed: a port nothing listens on (connection refused)
Exits when stdin closes or on SIGTERM.

Routes (any method):
  /echo[?set_cookie=1]        JSON {method, target, headers: [[name, value]...], body_base64, proxy}
  /status/<n>                 responds with status n
  /bytes/<n>?mode=length|chunked|close&tag=<t>
                              n pattern bytes (byte i = ((i % 256) * 131 + 17) & 0xFF), with Content-Length,
                              chunked, or close-delimited; /stats reports tag state running|complete|aborted
  /slow/<ms>?i=<k>            sleeps, then JSON {"i": k}; /stats reports the most /slow requests in flight at once
  /redirect?n=<k>&to=<path>   302 chain of k hops ending at <path>
  /stats                      JSON {slow_inflight, slow_max_inflight, tags}
A request in absolute-URI form (`GET http://host/path`) is treated as a forward-proxy request: it is served
locally and /echo reports the absolute URI in "proxy".
"""
import base64
import datetime
import ipaddress
import json
import os
import shutil
import signal
import socket
import ssl
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PATTERN = bytes(((i % 256) * 131 + 17) & 0xFF for i in range(65536))


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.slow_inflight = 0
        self.slow_max_inflight = 0
        self.tags = {}

    def set_tag(self, tag, state):
        if tag:
            with self.lock:
                self.tags[tag] = state


STATS = Stats()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, format, *args):
        pass

    def setup(self):
        super().setup()
        if isinstance(self.request, ssl.SSLSocket):
            self.request.do_handshake()

    def do_GET(self):
        self.route()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(length) if length else b""

    def route(self):
        target = self.path
        proxy = None
        if target.startswith("http://") or target.startswith("https://"):
            proxy = target
            absolute = urlsplit(target)
            target = absolute.path + ("?" + absolute.query if absolute.query else "")
        parts = urlsplit(target)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        segments = parts.path.strip("/").split("/")
        body = self.read_body()
        try:
            if parts.path == "/echo":
                self.echo(body, proxy, query)
            elif segments[0] == "status" and len(segments) == 2:
                self.status(int(segments[1]))
            elif segments[0] == "bytes" and len(segments) == 2:
                self.bytes(int(segments[1]), query.get("mode", "length"), query.get("tag"))
            elif segments[0] == "slow" and len(segments) == 2:
                self.slow(int(segments[1]), query.get("i"))
            elif parts.path == "/redirect":
                self.redirect(int(query.get("n", "1")), query.get("to", "/echo"))
            elif parts.path == "/stats":
                with STATS.lock:
                    payload = {"slow_inflight": STATS.slow_inflight, "slow_max_inflight": STATS.slow_max_inflight,
                               "tags": dict(STATS.tags)}
                self.json(200, payload)
            else:
                self.json(404, {"error": "no route " + parts.path})
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError):
            self.close_connection = True

    def json(self, status, payload, extra_headers=()):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra_headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def echo(self, body, proxy, query):
        extra = [("Set-Cookie", "session=peer-cookie-secret; HttpOnly")] if query.get("set_cookie") else []
        self.json(200, {
            "method": self.command,
            "target": self.path,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body_base64": base64.b64encode(body).decode(),
            "proxy": proxy,
        }, extra)

    def status(self, code):
        data = b"" if code in (204, 304) else ("status %d" % code).encode()
        self.send_response(code)
        if code not in (204, 304):
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def bytes(self, count, mode, tag):
        STATS.set_tag(tag, "running")
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if mode == "length":
            self.send_header("Content-Length", str(count))
        elif mode == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        try:
            sent = 0
            while sent < count and self.command != "HEAD":
                block = PATTERN[: min(len(PATTERN), count - sent)]
                if mode == "chunked":
                    self.wfile.write(b"%x\r\n" % len(block) + block + b"\r\n")
                else:
                    self.wfile.write(block)
                sent += len(block)
            if mode == "chunked":
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError):
            STATS.set_tag(tag, "aborted")
            self.close_connection = True
            return
        STATS.set_tag(tag, "complete")

    def slow(self, milliseconds, index):
        with STATS.lock:
            STATS.slow_inflight += 1
            STATS.slow_max_inflight = max(STATS.slow_max_inflight, STATS.slow_inflight)
        try:
            time.sleep(milliseconds / 1000)
        finally:
            with STATS.lock:
                STATS.slow_inflight -= 1
        self.json(200, {"i": index})

    def redirect(self, hops, destination):
        location = destination if hops <= 1 else "/redirect?n=%d&to=%s" % (hops - 1, destination)
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass  # clients abort on purpose (limits, TLS failures, cancellation)


class TLSServer(Server):
    """Does the TLS handshake on the handler thread, so a stalled or failing client cannot block accept()."""

    def __init__(self, address, handler, context):
        super().__init__(address, handler)
        self.context = context

    def get_request(self):
        sock, address = self.socket.accept()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address


def name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_ca(common_name):
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name(common_name)).issuer_name(name(common_name))
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def make_server_cert(ca_key, ca_cert):
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name("localhost")).issuer_name(ca_cert.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return key, cert


def write_pem(path, *items):
    with open(path, "wb") as handle:
        for item in items:
            if isinstance(item, x509.Certificate):
                handle.write(item.public_bytes(serialization.Encoding.PEM))
            else:
                handle.write(item.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()))


def tls_server(directory, label):
    ca_key, ca_cert = make_ca("omni test CA " + label)
    key, cert = make_server_cert(ca_key, ca_cert)
    ca_path = os.path.join(directory, "ca-%s.pem" % label)
    chain_path = os.path.join(directory, "server-%s.pem" % label)
    write_pem(ca_path, ca_cert)
    write_pem(chain_path, cert, key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain_path)
    return TLSServer(("127.0.0.1", 0), Handler, context), ca_path


def blackhole():
    """A listener with a zero backlog whose queue we fill ourselves: further SYNs are dropped by the kernel."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    fillers = []
    for _ in range(3):
        filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        filler.setblocking(False)
        filler.connect_ex(listener.getsockname())
        fillers.append(filler)
    time.sleep(0.05)
    return listener, fillers


def closed_port():
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def main():
    directory = tempfile.mkdtemp(prefix="omni-http-peer-")

    def leave(*_):
        shutil.rmtree(directory, ignore_errors=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, leave)
    plain = Server(("127.0.0.1", 0), Handler)
    secure, ca = tls_server(directory, "main")
    other, ca_other = tls_server(directory, "other")
    for server in (plain, secure, other):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    hole, _fillers = blackhole()
    print(json.dumps({
        "http": plain.server_address[1], "https": secure.server_address[1], "https_other": other.server_address[1],
        "ca": ca, "ca_other": ca_other, "blackhole": hole.getsockname()[1], "closed": closed_port(),
    }), flush=True)
    sys.stdin.buffer.read()
    leave()


if __name__ == "__main__":
    main()
