#!/usr/bin/env python3
"""A raw WebSocket client (Python `websockets`) that drives omni's Connect relay with exact bytes.

Usage: connect_ws_peer.py < SCRIPT_JSON
SCRIPT_JSON = {"connections": {"NAME": {"url": "ws://…/v1/connect/ws?sid=…&role=app", "token": "…",
                                         "transport": "header" | "subprotocol"}},
               "steps": [{"open": "NAME"}, {"send": "NAME", "hex": "…"}, {"recv": "NAME", "timeout": 2},
                         {"drain": "NAME", "timeout": 2}, {"close": "NAME"}, {"sleep": 0.2}]}
Prints one JSON object: for each connection its upgrade status (101 or the refusal's status and body), the
binary messages it received (hex), and how it was closed ({"code", "reason"}, or null while open).
"""
import base64
import json
import sys
import time

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

PREFIX = "iroha-connect.token.v1."


def subprotocol(token):
    return PREFIX + base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")


def main():
    script = json.load(sys.stdin)
    specs = script["connections"]
    sockets, results = {}, {name: {"status": None, "body": "", "received": [], "close": None} for name in specs}

    def record_close(name, ws):
        if results[name]["close"] is None and ws.close_code is not None:
            results[name]["close"] = {"code": ws.close_code, "reason": ws.close_reason or ""}

    for step in script["steps"]:
        if "open" in step:
            name = step["open"]
            spec = specs[name]
            headers, protocols = {}, None
            if spec.get("transport", "header") == "header":
                headers["Authorization"] = "Bearer " + spec["token"]
            else:
                protocols = [subprotocol(spec["token"])]
            try:
                sockets[name] = connect(spec["url"], additional_headers=headers, subprotocols=protocols,
                                        open_timeout=5, close_timeout=2, max_size=None)
                results[name]["status"] = 101
            except InvalidStatus as error:
                results[name]["status"] = error.response.status_code
                results[name]["body"] = error.response.body.decode("utf-8", "replace") if error.response.body else ""
        elif "send" in step:
            ws = sockets.get(step["send"])
            if ws is not None:
                try:
                    ws.send(bytes.fromhex(step["hex"]))
                except ConnectionClosed:
                    record_close(step["send"], ws)
        elif "recv" in step or "drain" in step:
            name = step.get("recv") or step.get("drain")
            ws = sockets.get(name)
            deadline = time.monotonic() + step.get("timeout", 2)
            while ws is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    message = ws.recv(timeout=remaining)
                except TimeoutError:
                    break
                except ConnectionClosed:
                    record_close(name, ws)
                    break
                if isinstance(message, bytes):
                    results[name]["received"].append(message.hex())
                    if "recv" in step:
                        break
        elif "close" in step:
            ws = sockets.pop(step["close"], None)
            if ws is not None:
                ws.close()
        elif "sleep" in step:
            time.sleep(step["sleep"])
    for name, ws in sockets.items():
        record_close(name, ws)
        ws.close()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
