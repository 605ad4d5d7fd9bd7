#!/usr/bin/env python3
"""Client peer that drives omni's HTTP/WebSocket server with Python `websockets` 17, raw sockets and urllib.

Usage: ws_client_peer.py SCENARIO BASE_URL [JSON_ARGS]   (BASE_URL like ws://127.0.0.1:PORT)
Prints one JSON object with the results. The Swift test owns the server and its routes:
  /echo                 echoes every message          /fragmented-sender  sends fragmented messages
  /ping-client          pings b"srv", answers "got pong:<payload>"
  /close-with?code=&reason=   closes with that code     /record-close  records the client's close
  /small                echo with a 1024-byte message limit
  /gated?token=secret   401 "invalid token" otherwise /proto  selects "b.v1"
  GET /health, POST /echo-body                          plain HTTP routes
"""
import asyncio
import base64
import hashlib
import http.client
import json
import os
import random
import socket
import struct
import sys
import urllib.error
import urllib.request

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def random_text(rng, size):
    pools = [(0x20, 0x7E), (0xA0, 0x7FF), (0x800, 0xD7FF), (0x10000, 0x10FFFF)]
    out, remaining = [], size
    while remaining > 0:
        width = rng.randint(1, min(4, remaining))
        low, high = pools[width - 1]
        out.append(chr(rng.randint(low, high)))
        remaining -= width
    return "".join(out)


async def echo(base, args):
    rng = random.Random(args["seed"])
    failures, checked = [], 0
    async with connect(base + "/echo", max_size=None, compression=None) as ws:
        for size in args["sizes"]:
            text = random_text(rng, size)
            await ws.send(text)
            if await ws.recv() != text:
                failures.append(f"text {size}")
            data = rng.randbytes(size)
            await ws.send(data)
            if await ws.recv() != data:
                failures.append(f"binary {size}")
            checked += 2
    return {"checked": checked, "failures": failures}


async def fragments(base, args):
    rng = random.Random(args["seed"])
    result = {}
    async with connect(base + "/echo", max_size=None, compression=None) as ws:
        text = random_text(rng, 3000)
        pieces = [text[i:i + 5] for i in range(0, len(text), 5)]
        await ws.send(pieces)
        result["text_echo_ok"] = await ws.recv() == text
        data = rng.randbytes(70000)
        await ws.send([data[i:i + 4096] for i in range(0, len(data), 4096)])
        result["binary_echo_ok"] = await ws.recv() == data
    async with connect(base + "/fragmented-sender", max_size=None, compression=None) as ws:
        first = await ws.recv()
        second = await ws.recv()
        result["received_text"] = first
        result["received_binary_length"] = len(second)
        result["received_binary_pattern_ok"] = all(b == i % 251 for i, b in enumerate(second))
    return result


async def ping(base, args):
    async with connect(base + "/echo", compression=None, ping_interval=None) as ws:
        waiter = await ws.ping(b"py-ping")
        await asyncio.wait_for(waiter, 5)
        client_ping_answered = True
    async with connect(base + "/ping-client", compression=None, ping_interval=None) as ws:
        server_report = await asyncio.wait_for(ws.recv(), 5)
    return {"client_ping_answered": client_ping_answered, "server_report": server_report}


async def close_codes(base, args):
    async with connect(base + "/record-close", compression=None) as ws:
        await ws.close(4001, "ttl")
        echoed = {"code": ws.close_code, "reason": ws.close_reason}
    async with connect(base + "/close-with?code=4002&reason=purged", compression=None) as ws:
        try:
            await asyncio.wait_for(ws.recv(), 5)
            received = None
        except ConnectionClosed as closed:
            received = {"code": closed.rcvd.code, "reason": closed.rcvd.reason}
    return {"echoed": echoed, "received": received}


async def oversize(base, args):
    async with connect(base + "/small", max_size=None, compression=None) as ws:
        await ws.send(b"y" * 100)
        small_ok = await ws.recv() == b"y" * 100
        await ws.send(b"z" * 2000)
        try:
            await asyncio.wait_for(ws.recv(), 5)
            code = None
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
    return {"small_ok": small_ok, "code": code}


async def gate(base, args):
    result = {}
    try:
        async with connect(base + "/gated?token=wrong", compression=None):
            result["wrong"] = "connected"
    except InvalidStatus as refused:
        result["wrong"] = refused.response.status_code
        result["wrong_body"] = refused.response.body.decode()
    async with connect(base + "/gated?x=1&token=secret", compression=None) as ws:
        await ws.send("hi")
        result["right"] = await ws.recv()
    return result


async def subprotocol(base, args):
    async with connect(base + "/proto", subprotocols=["a.v2", "b.v1"], compression=None) as ws:
        offered_both = ws.subprotocol
    async with connect(base + "/echo", subprotocols=["x"], compression=None) as ws:
        none_selected = ws.subprotocol
    return {"selected": offered_both, "none": none_selected}


async def concurrent(base, args):
    count, messages = args["clients"], args["messages"]
    opened = asyncio.Event()
    connected = 0

    async def one(index):
        nonlocal connected
        async with connect(base + "/echo", compression=None, open_timeout=20) as ws:
            connected += 1
            if connected == count:
                opened.set()
            # Hold every connection open until all are, so the server really has `count` at once.
            await asyncio.wait_for(opened.wait(), 20)
            ok = 0
            for m in range(messages):
                text = f"client {index} message {m}"
                await ws.send(text)
                ok += await ws.recv() == text
            return ok

    results = await asyncio.gather(*(one(i) for i in range(count)), return_exceptions=True)
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    return {"ok": sum(r for r in results if isinstance(r, int)), "errors": errors[:5]}


async def await_close(base, args):
    async with connect(base + "/echo", compression=None) as ws:
        try:
            await asyncio.wait_for(ws.recv(), 10)
            return {"code": None}
        except ConnectionClosed as closed:
            return {"code": closed.rcvd.code if closed.rcvd else None, "reason": closed.rcvd.reason if closed.rcvd else None}


# --- raw sockets ------------------------------------------------------------------------------------------

def raw_connect(base):
    host, port = base.split("//")[1].rsplit(":", 1)
    return socket.create_connection((host.strip("[]"), int(port)), timeout=5)


def raw_upgrade(base, path="/echo", extra=""):
    sock = raw_connect(base)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
    return sock, head.decode(), accept


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_close_code(sock):
    try:
        while True:
            first, second = recv_exact(sock, 2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", recv_exact(sock, 2))[0]
            elif length == 127:
                length = struct.unpack("!Q", recv_exact(sock, 8))[0]
            payload = recv_exact(sock, length)
            if first & 0x0F == 0x8:
                return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
    except (EOFError, OSError):
        return None


def masked(opcode, payload, fin=True, rsv=0):
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return bytes([(0x80 if fin else 0) | rsv | opcode, 0x80 | len(payload)]) + mask + body


def raw_frames(base, args):
    cases = {
        "unmasked": bytes([0x81, 5]) + b"hello",
        "invalid_utf8": masked(0x1, b"\xce\xba\xed\xa0\x80"),
        "reserved_bits": masked(0x1, b"x", rsv=0x20),
        "bad_opcode": masked(0x3, b""),
        "long_ping": bytes([0x89, 0xFE, 0x00, 0x7E]) + os.urandom(4) + bytes(126),
        "bad_close_code": masked(0x8, struct.pack("!H", 1005)),
        "continuation_first": masked(0x0, b"x"),
        "split_utf8_text": masked(0x1, b"\xe2\x82", fin=False) + masked(0x0, b"\xac"),
    }
    result = {}
    for name, frame in cases.items():
        sock, head, accept = raw_upgrade(base)
        sock.sendall(frame)
        if name == "split_utf8_text":
            # Valid: a code point split across fragments; the echo must come back whole.
            first, second = recv_exact(sock, 2)
            result[name] = recv_exact(sock, second & 0x7F).decode()
        else:
            result[name] = read_close_code(sock)
        sock.close()
    return result


def raw_handshakes(base, args):
    def status_of(request):
        sock = raw_connect(base)
        sock.sendall(request.encode())
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
        finally:
            sock.close()
        line = data.split(b"\r\n", 1)[0].decode()
        return int(line.split(" ")[1]) if line else None

    key = base64.b64encode(os.urandom(16)).decode()
    common = "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    result = {
        "no_key": status_of(f"GET /echo HTTP/1.1\r\n{common}Sec-WebSocket-Version: 13\r\n\r\n"),
        "short_key": status_of(f"GET /echo HTTP/1.1\r\n{common}Sec-WebSocket-Key: abc\r\nSec-WebSocket-Version: 13\r\n\r\n"),
        "version_8": status_of(f"GET /echo HTTP/1.1\r\n{common}Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 8\r\n\r\n"),
        "no_connection": status_of(f"GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nSec-WebSocket-Key: {key}\r\n"
                                   f"Sec-WebSocket-Version: 13\r\n\r\n"),
        "post": status_of(f"POST /echo HTTP/1.1\r\n{common}Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                          f"Content-Length: 0\r\n\r\n"),
        "plain_get_on_ws_route": status_of("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n"),
    }
    sock, head, accept = raw_upgrade(base)
    result["accept_ok"] = head.startswith("HTTP/1.1 101") and f"Sec-WebSocket-Accept: {accept}" in head
    sock.close()
    return result


def http_checks(base, args):
    origin = "http://" + base.split("//")[1]
    result = {}
    with urllib.request.urlopen(origin + "/health", timeout=5) as response:
        result["health"] = [response.status, response.read().decode(), response.headers.get("Content-Type")]
    for name, url, data, method in [("missing", "/missing", None, "GET"), ("wrong_method", "/health", b"x", "POST"),
                                    ("too_large", "/echo-body", b"a" * 5000, "POST")]:
        try:
            urllib.request.urlopen(urllib.request.Request(origin + url, data=data, method=method), timeout=5)
            result[name] = [200]
        except urllib.error.HTTPError as error:
            result[name] = [error.code, error.headers.get("Allow")]
    request = urllib.request.Request(origin + "/echo-body", data="body ü".encode(), method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        result["echo_body"] = response.read().decode()
    # Keep-alive: several requests on one connection, including HEAD and a chunked body.
    host, port = base.split("//")[1].rsplit(":", 1)
    connection = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=5)
    statuses = []
    for _ in range(3):
        connection.request("GET", "/health")
        response = connection.getresponse()
        response.read()
        statuses.append(response.status)
    connection.request("HEAD", "/health")
    head = connection.getresponse()
    result["head"] = [head.status, head.getheader("Content-Length"), head.read()]
    connection.request("POST", "/echo-body", body=iter([b"chunk-1 ", b"chunk-2"]), encode_chunked=True)
    result["chunked"] = connection.getresponse().read().decode()
    result["keep_alive_statuses"] = statuses
    result["keep_alive_same_socket"] = connection.sock is not None
    result["head"][2] = result["head"][2].decode()
    connection.close()
    # Connection: close is honoured: the server closes after the response.
    sock = raw_connect(base)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    result["connection_close"] = [data.split(b"\r\n")[0].decode(), b"Connection: close" in data]
    sock.close()
    # Malformed request line, oversized head, and chunk sizes that are not plain hex digits.
    chunked = b"POST /echo-body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    for name, payload in [("malformed", b"GARBAGE\r\n\r\n"), ("huge_head", b"GET / HTTP/1.1\r\nX: " + b"a" * 40000 + b"\r\n\r\n"),
                          ("negative_chunk", chunked + b"-1\r\nx\r\n0\r\n\r\n"),
                          ("signed_chunk", chunked + b"+1\r\nx\r\n0\r\n\r\n"),
                          ("spaced_chunk", chunked + b"1 0\r\n" + b"x" * 16 + b"\r\n0\r\n\r\n")]:
        sock = raw_connect(base)
        try:
            sock.sendall(payload)
        except OSError:
            pass
        try:
            result[name] = sock.recv(4096).split(b"\r\n")[0].decode()
        except OSError as error:
            result[name] = repr(error)
        sock.close()
    # Slow loris: a head that never completes is cut off with 408 after the head timeout.
    sock = raw_connect(base)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
    data = sock.recv(4096)
    result["slow_loris"] = data.split(b"\r\n")[0].decode()
    result["slow_loris_closed"] = sock.recv(4096) == b""
    sock.close()
    return result


SCENARIOS = {
    "echo": echo, "fragments": fragments, "ping": ping, "close": close_codes, "oversize": oversize, "gate": gate,
    "subprotocol": subprotocol, "concurrent": concurrent, "await-close": await_close,
    "raw-frames": raw_frames, "raw-handshakes": raw_handshakes, "http": http_checks,
}


def main():
    scenario, base = sys.argv[1], sys.argv[2]
    args = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    function = SCENARIOS[scenario]
    result = asyncio.run(function(base, args)) if asyncio.iscoroutinefunction(function) else function(base, args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
