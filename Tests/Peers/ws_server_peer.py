#!/usr/bin/env python3
"""WebSocket server peer for omni's client tests (Python `websockets`, an independent RFC 6455 implementation).

Prints one JSON line {"ws": port, "raw": port[, "wss": port]} and serves until stdin closes (or 120 s pass).

`ws` (websockets asyncio server) paths:
  /echo[?id=X]                  echo every message; records the close code/reason received under X
  /gate?token=secret            401 "invalid token" before the upgrade unless the token (or Bearer header) matches
  /subprotocol                  selects chat.v2 over chat.v1; sends the selected name (or "none")
  /headers                      sends the upgrade request headers as JSON
  /fragments                    sends a fragmented text and a fragmented binary message, then echoes
  /ping                         pings with b"omni-ping", waits for the pong, sends "pong:omni-ping"
  /close?code=C&reason=R        closes with that code and reason
  /oversize?size=N&id=X         sends an N-byte binary message, records the close received under X
  /report?id=X                  sends the JSON record of X (waits up to 3 s for it)
`raw` (hand-written asyncio TCP server, for answers `websockets` refuses to produce):
  /bad-accept /no-upgrade /no-connection /extension /unoffered-protocol   broken 101 answers
  /status?code=N                that status with body "refused by peer"
  /invalid-utf8?id=X /masked-frame?id=X /reserved-bits?id=X /fragmented-ping?id=X
                                a valid 101, then that bad frame; records the client's close code under X
`wss` (with --tls DIR): /echo over TLS; DIR/ca.pem is the CA that signed the localhost certificate.
"""
import asyncio
import base64
import datetime
import hashlib
import json
import os
import ssl
import struct
import sys
import threading
import urllib.parse
from http import HTTPStatus

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
RECORDS = {}


def split(path):
    base, _, query = path.partition("?")
    return base, dict(urllib.parse.parse_qsl(query))


def accept_for(key):
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def record(params, ws):
    if "id" in params:
        RECORDS[params["id"]] = {"code": ws.close_code, "reason": ws.close_reason}


async def echo(ws, params):
    try:
        async for message in ws:
            await ws.send(message)
    except ConnectionClosed:
        pass
    finally:
        await ws.wait_closed()
        record(params, ws)


async def handler(ws):
    path, params = split(ws.request.path)
    if path in ("/echo", "/gate"):
        await echo(ws, params)
    elif path == "/subprotocol":
        await ws.send(ws.subprotocol or "none")
        await echo(ws, params)
    elif path == "/headers":
        await ws.send(json.dumps([[k, v] for k, v in ws.request.headers.raw_items()]))
        await echo(ws, params)
    elif path == "/fragments":
        await ws.send(["héllo ", "wörld", "!"])
        await ws.send([b"\x00" * 70000, b"\x01" * 10, b""])
        await echo(ws, params)
    elif path == "/ping":
        waiter = await ws.ping(b"omni-ping")
        await asyncio.wait_for(waiter, 5)
        await ws.send("pong:omni-ping")
        await echo(ws, params)
    elif path == "/close":
        await ws.close(int(params.get("code", "1000")), params.get("reason", ""))
    elif path == "/oversize":
        await ws.send(b"x" * int(params["size"]))
        await echo(ws, params)
    elif path == "/report":
        for _ in range(300):
            if params["id"] in RECORDS:
                break
            await asyncio.sleep(0.01)
        await ws.send(json.dumps(RECORDS.get(params["id"])))
        await ws.close()


def process_request(connection, request):
    path, params = split(request.path)
    if path == "/gate":
        bearer = request.headers.get("Authorization", "")
        if params.get("token") != "secret" and bearer != "Bearer secret":
            return connection.respond(HTTPStatus.UNAUTHORIZED, "invalid token\n")
    return None


def select_subprotocol(connection, subprotocols):
    for preferred in ("chat.v2", "chat.v1"):
        if preferred in subprotocols:
            return preferred
    return None


# --- raw server -------------------------------------------------------------------------------------------

async def read_frame(reader):
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", await reader.readexactly(8))[0]
    mask = await reader.readexactly(4) if second & 0x80 else b"\x00" * 4
    payload = bytearray(await reader.readexactly(length))
    for i in range(length):
        payload[i] ^= mask[i % 4]
    return first & 0x0F, bytes(payload)


def frame(opcode, payload, fin=True, rsv=0, mask=None):
    head = bytes([(0x80 if fin else 0) | rsv | opcode])
    mask_bit = 0x80 if mask else 0
    if len(payload) < 126:
        head += bytes([mask_bit | len(payload)])
    elif len(payload) < 65536:
        head += bytes([mask_bit | 126]) + struct.pack("!H", len(payload))
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", len(payload))
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        head += mask
    return head + payload


BAD_FRAMES = {
    "/invalid-utf8": frame(0x1, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xed\xa0\x80"),
    "/masked-frame": frame(0x1, b"masked", mask=b"\x01\x02\x03\x04"),
    "/reserved-bits": frame(0x1, b"rsv", rsv=0x40),
    "/fragmented-ping": frame(0x9, b"ping", fin=False),
}


async def raw_client(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        path, params = split(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        accept = accept_for(headers.get("sec-websocket-key", ""))
        upgrade, connection = "Upgrade: websocket\r\n", "Connection: Upgrade\r\n"
        accept_line, extra = f"Sec-WebSocket-Accept: {accept}\r\n", ""
        if path == "/status":
            body = b"refused by peer"
            writer.write(f"HTTP/1.1 {params['code']} Refused\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            await writer.drain()
            return
        if path == "/bad-accept":
            accept_line = "Sec-WebSocket-Accept: " + accept_for("not the key") + "\r\n"
        elif path == "/no-upgrade":
            upgrade = ""
        elif path == "/no-connection":
            connection = ""
        elif path == "/extension":
            extra = "Sec-WebSocket-Extensions: permessage-deflate\r\n"
        elif path == "/unoffered-protocol":
            extra = "Sec-WebSocket-Protocol: evil\r\n"
        writer.write(f"HTTP/1.1 101 Switching Protocols\r\n{upgrade}{connection}{accept_line}{extra}\r\n".encode())
        await writer.drain()
        if path in BAD_FRAMES:
            writer.write(BAD_FRAMES[path])
            await writer.drain()
            opcode, payload = await asyncio.wait_for(read_frame(reader), 5)
            code = struct.unpack("!H", payload[:2])[0] if opcode == 0x8 and len(payload) >= 2 else None
            RECORDS[params.get("id", path)] = {"code": code, "opcode": opcode}
            writer.write(frame(0x8, payload[:2]))
            await writer.drain()
        else:
            await asyncio.sleep(1)
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.TimeoutError):
        pass
    finally:
        writer.close()


# --- TLS ----------------------------------------------------------------------------------------------------

def make_tls_context(directory):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import ipaddress

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "omni test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    ca_path = os.path.join(directory, "ca.pem")
    cert_path = os.path.join(directory, "server.pem")
    key_path = os.path.join(directory, "server.key")
    with open(ca_path, "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(cert_path, "wb") as f:
        f.write(leaf.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    return context


async def main():
    stop = asyncio.get_running_loop().create_future()
    loop = asyncio.get_running_loop()

    def watch_stdin():
        sys.stdin.read()
        loop.call_soon_threadsafe(lambda: stop.done() or stop.set_result(None))

    threading.Thread(target=watch_stdin, daemon=True).start()
    loop.call_later(120, lambda: stop.done() or stop.set_result(None))
    options = dict(process_request=process_request, select_subprotocol=select_subprotocol, compression=None,
                   max_size=64 * 2**20, ping_interval=None)
    async with serve(handler, "127.0.0.1", 0, **options) as ws_server:
        raw_server = await asyncio.start_server(raw_client, "127.0.0.1", 0)
        ports = {"ws": ws_server.sockets[0].getsockname()[1], "raw": raw_server.sockets[0].getsockname()[1]}
        tls_server = None
        if "--tls" in sys.argv:
            context = make_tls_context(sys.argv[sys.argv.index("--tls") + 1])
            tls_server = await serve(handler, "127.0.0.1", 0, ssl=context, **options)
            ports["wss"] = tls_server.sockets[0].getsockname()[1]
        print(json.dumps(ports), flush=True)
        await stop
        raw_server.close()
        if tls_server:
            tls_server.close()


if __name__ == "__main__":
    asyncio.run(main())
