#!/usr/bin/env python3
"""Load on loopback against omni's servers, each loop bounded in count and in time (issue 17, "Limits and load").

  load_peer.py relay  --omni OMNI [--sessions 64] [--seconds S] [--max-sessions N] [--frames-per-session F]
  load_peer.py truapi --omni OMNI [--connections 32] [--seconds S] [--max-operations N] [--operations-per-connection M]
  load_peer.py attest --omni OMNI [--processes 8] [--seconds S] [--keys K]

relay: `omni connect relay` (Gen B). SESSIONS concurrent slots; each slot registers a session (POST
/v1/connect/session, sid = BLAKE2b-256 of network id, app key and nonce, computed here), attaches the app and the
wallet (Python `websockets`), sends F pings app→wallet each answered by a pong wallet→app (real Norito frames, CRC
and all, built here from a template `omni connect frame encode` made once), compares every relayed frame byte for
byte and in order, closes both sockets, DELETEs the session, and starts over, until S seconds or N sessions.

truapi: `omni truapi bridge --ephemeral`. CONNECTIONS connections (the bridge's limit is 32), each alternating a
`system_handshake` request (its response compared byte for byte) and a `theme_subscribe` subscription (start, the
first receive on the same id, stop); every M operations a connection closes and a new one takes its place.

attest: `omni attest` with one SQLite store. One `omni attest challenge --count` mints every challenge; attest_peer.py
(imported) makes a valid attestation and an assertion over them for each of K keys. PROCESSES workers, each one
omni process at a time, take jobs from one queue: each enrollment is queued twice in a row (two processes race for
its challenge) and, once it succeeded, its verification twice in a row (they race for the challenge and the counter).
Exactly once: per key one enrollment and one verification accepted, every loser refused with the expected reason, and
the store's counter is the assertion's.

Each prints one JSON object: counts, errors (with the first few described), rates, RSS start/warm/end/peak, fds at
the start and after the clients left, and the server's exit status. The process exits 0 whatever the figures say:
judging them is the caller's business."""
import argparse
import asyncio
import base64
import hashlib
import json
import logging
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_support import Sampler, Server, omni_environment, socket_count, wait_for_runtime_fds, wait_for_sockets  # noqa: E402

logging.getLogger("websockets").setLevel(logging.CRITICAL)
NETWORK = bytes([0x41] * 32)


class Tally:
    """Counts and the first few error descriptions (an error is anything that should not have happened)."""

    def __init__(self):
        self.counts = {}
        self.errors = 0
        self.first_errors = []
        self.phases = []
        self.lock = threading.Lock()

    def add(self, key: str, amount: int = 1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + amount

    def phase(self, times: list):
        """One session's phase boundaries (monotonic seconds), kept for the phase medians and maxima."""
        with self.lock:
            self.phases.append([later - earlier for earlier, later in zip(times, times[1:])])

    def phase_summary(self, names: list) -> dict:
        with self.lock:
            columns = list(zip(*self.phases))
        if not columns:
            return {}
        return {f"{name}_seconds": {"median": statistics.median(column), "max": max(column)}
                for name, column in zip(names, columns)}

    def error(self, what: str):
        with self.lock:
            self.errors += 1
            if len(self.first_errors) < 8:
                self.first_errors.append(what)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# MARK: - Connect relay

def crc64_xz_table():
    table = []
    for index in range(256):
        crc = index
        for _ in range(8):
            crc = (crc >> 1) ^ 0xC96C5795D7870F42 if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC64_TABLE = crc64_xz_table()


def crc64_xz(data: bytes) -> int:
    crc = 0xFFFFFFFFFFFFFFFF
    for byte in data:
        crc = CRC64_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFFFFFFFFFF


class FrameTemplate:
    """A Norito Connect control frame from omni made once with a marker sid, sequence and nonce; `make` puts in
    the real ones (fixed-width fields) and, when the frame has the "NRT0" header, recomputes its payload CRC-64
    (bytes 31..39)."""
    SID = bytes(range(0xA0, 0xC0))
    SEQUENCE = 0x0102030405060708
    NONCE = 0x1112131415161718

    def __init__(self, omni: str, home: str, direction: str, kind: str):
        description = {"sid": b64url(self.SID), "dir": direction, "seq": str(self.SEQUENCE),
                       "control": {"type": kind, "nonce": str(self.NONCE)}}
        out = subprocess.run([omni, "connect", "frame", "encode", json.dumps(description)], check=True,
                             capture_output=True, text=True, env=omni_environment(home)).stdout
        self.bytes = bytearray.fromhex(out.strip())
        self.header = 40 if self.bytes.startswith(b"NRT0") else 0
        self.sid_at = self._find(self.SID)
        self.sequence_at = self._find(self.SEQUENCE.to_bytes(8, "little"))
        self.nonce_at = self._find(self.NONCE.to_bytes(8, "little"))

    def _find(self, marker: bytes) -> int:
        at = self.bytes.find(marker, self.header)
        if at < 0 or self.bytes.find(marker, at + 1) >= 0:
            raise SystemExit(f"the frame template does not hold {marker.hex()} exactly once: {self.bytes.hex()}")
        return at

    def make(self, sid: bytes, sequence: int, nonce: int) -> bytes:
        frame = bytearray(self.bytes)
        frame[self.sid_at:self.sid_at + 32] = sid
        frame[self.sequence_at:self.sequence_at + 8] = sequence.to_bytes(8, "little")
        frame[self.nonce_at:self.nonce_at + 8] = nonce.to_bytes(8, "little")
        if self.header:
            frame[31:39] = crc64_xz(bytes(frame[self.header:])).to_bytes(8, "little")
        return bytes(frame)


async def http_request(port: int, method: str, path: str, body: bytes = b"", token: str = None) -> tuple:
    """One HTTP/1.1 request on its own connection (Connection: close): (status, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
                f"Content-Length: {len(body)}"]
        if body:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        response = await reader.read()
    finally:
        writer.close()
    header, _, payload = response.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1]) if header.startswith(b"HTTP/1.1 ") else 0
    return status, payload


async def relay_session(port: int, templates: dict, frames: int, tally: Tally) -> bool:
    from websockets.asyncio.client import connect

    phases = [time.monotonic()]
    app_pk, nonce = os.urandom(32), os.urandom(16)
    sid = hashlib.blake2b(b"iroha-connect|sid|" + NETWORK + app_pk + nonce, digest_size=32).digest()
    status, body = await http_request(port, "POST", "/v1/connect/session", json.dumps(
        {"sid": b64url(sid), "network_id": NETWORK.hex(), "app_pk": b64url(app_pk), "nonce": b64url(nonce)}).encode())
    if status // 100 != 2:
        tally.error(f"register: HTTP {status} {body[:200]!r}")
        return False
    session = json.loads(body)
    phases.append(time.monotonic())
    url = f"ws://127.0.0.1:{port}/v1/connect/ws?sid={b64url(sid)}&role="
    options = dict(open_timeout=10, close_timeout=10, ping_interval=None, compression=None, max_size=1 << 20)
    app = await connect(url + "app", additional_headers={"Authorization": "Bearer " + session["token_app"]}, **options)
    wallet = await connect(url + "wallet", additional_headers={"Authorization": "Bearer " + session["token_wallet"]},
                           **options)
    phases.append(time.monotonic())
    try:
        for sequence in range(1, frames + 1):
            for sender, receiver, template in ((app, wallet, templates["ping"]), (wallet, app, templates["pong"])):
                frame = template.make(sid, sequence, sequence)
                await sender.send(frame)
                tally.add("frames_sent")
                try:
                    received = await asyncio.wait_for(receiver.recv(), 20)
                except Exception as error:  # a lost frame: nothing came (or the socket closed)
                    tally.error(f"frame {sequence} of {b64url(sid)} lost: {error!r}")
                    return False
                if received != frame:
                    tally.error(f"frame {sequence} of {b64url(sid)} differs: {bytes(received).hex()[:160]}")
                    return False
                tally.add("frames_relayed")
    finally:
        phases.append(time.monotonic())
        await app.close()
        await wallet.close()
    phases.append(time.monotonic())
    status, body = await http_request(port, "DELETE", f"/v1/connect/session/{b64url(sid)}",
                                      token=session["token_management"])
    if status != 204:
        tally.error(f"delete: HTTP {status} {body[:200]!r}")
        return False
    phases.append(time.monotonic())
    tally.phase(phases)
    return True


def run_relay(args) -> dict:
    relay = Server(args.omni, ["connect", "relay", "--listen", "127.0.0.1:0", "--output", "jsonl",
                               "--network-id", NETWORK.hex(), "--registrations-per-minute", "1000000"])
    port = int(relay.ready["url"].rsplit(":", 1)[1].split("/")[0])
    templates = {"ping": FrameTemplate(args.omni, relay.home, "app_to_wallet", "ping"),
                 "pong": FrameTemplate(args.omni, relay.home, "wallet_to_app", "pong")}
    tally = Tally()
    # One session first: what the runtime opens once, lazily (libdispatch's timerfd), is then in the start count;
    # the count is taken once the session's sockets are closed and the timer descriptor exists.
    listening = socket_count(relay.pid)
    if not asyncio.run(relay_session(port, templates, 1, tally)):
        raise SystemExit(f"the first session failed: {tally.first_errors}")
    wait_for_sockets(relay.pid, listening)
    wait_for_runtime_fds(relay.pid)
    tally = Tally()
    sampler = Sampler(relay.pid).start()
    started = time.monotonic()
    deadline = started + args.seconds

    first_rounds = [0]

    async def slot(budget):
        first = True
        while time.monotonic() < deadline and budget():
            try:
                if await relay_session(port, templates, args.frames_per_session, tally):
                    tally.add("sessions")
            except Exception as error:
                tally.error(f"session: {error!r}")
            if first:
                # The warm-up ends when every slot has been through one whole session.
                first = False
                first_rounds[0] += 1
                if first_rounds[0] == args.sessions:
                    sampler.mark_warm()

    async def main():
        remaining = [args.max_sessions]

        def budget():
            if remaining[0] <= 0:
                return False
            remaining[0] -= 1
            return True

        await asyncio.gather(*(slot(budget) for _ in range(args.sessions)))
        if sampler.warm_index is None:
            sampler.mark_warm()

    asyncio.run(main())
    elapsed = time.monotonic() - started
    sampler.stop()
    fds_end = sampler.wait_for_fds(sampler.fds_start)
    new_fds = sampler.new_fds()
    status = relay.stop()
    terminated = [event for event in relay.events if event.get("event") == "terminated"]
    return {"driver": "relay", "concurrent_sessions": args.sessions, "seconds": elapsed, **tally.counts,
            "errors": tally.errors, "first_errors": tally.first_errors,
            "sessions_per_second": tally.counts.get("sessions", 0) / elapsed,
            "frames_per_second": tally.counts.get("frames_relayed", 0) / elapsed,
            "lost_frames": tally.counts.get("frames_sent", 0) - tally.counts.get("frames_relayed", 0),
            "terminated_sessions": len(terminated),
            "phases": tally.phase_summary(["register", "attach", "frames", "close", "delete"]), **sampler.summary(), "fds_end": fds_end, "new_fds": new_fds, "exit_status": status}


# MARK: - TrUAPI bridge

def compact(value: int) -> bytes:
    if value < 1 << 6:
        return bytes([value << 2])
    if value < 1 << 14:
        return ((value << 2) | 1).to_bytes(2, "little")
    return ((value << 2) | 2).to_bytes(4, "little")


def truapi_frame(request_id: str, discriminant: int, payload: bytes = b"") -> bytes:
    identifier = request_id.encode()
    return compact(len(identifier)) + identifier + bytes([discriminant]) + payload


HANDSHAKE, THEME_START = 0, 104  # system_handshake request; theme_subscribe start (stop +1, receive +3)


async def truapi_connection(url: str, operations: int, deadline: float, budget, tally: Tally) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    async with connect(url, open_timeout=10, close_timeout=10, ping_interval=None, compression=None,
                       max_size=8 << 20) as socket:
        tally.add("connections")

        async def answer(what: str):
            try:
                return bytes(await asyncio.wait_for(socket.recv(), 20))
            except ConnectionClosed as error:
                tally.error(f"{what}: closed: {error!r}")
                return None
            except Exception as error:
                tally.error(f"{what}: no answer: {error!r}")
                return None

        for index in range(operations):
            if time.monotonic() >= deadline or not budget():
                return
            request_id = f"p:{index + 1}"
            if index % 2 == 0:
                await socket.send(truapi_frame(request_id, HANDSHAKE, b"\x00\x01"))
                expected = truapi_frame(request_id, HANDSHAKE + 1, b"\x00\x00")
                received = await answer(f"handshake {request_id}")
                if received is None:
                    return
                if received != expected:
                    tally.error(f"handshake {request_id}: {received.hex()} instead of {expected.hex()}")
                    return
                tally.add("requests")
            else:
                await socket.send(truapi_frame(request_id, THEME_START, b"\x00"))
                received = await answer(f"theme_subscribe {request_id}")
                if received is None:
                    return
                if not received.startswith(truapi_frame(request_id, THEME_START + 3)):
                    tally.error(f"theme_subscribe {request_id}: {received.hex()} is not its receive")
                    return
                await socket.send(truapi_frame(request_id, THEME_START + 1))
                tally.add("subscriptions")
            tally.add("frames", 2)


def run_truapi(args) -> dict:
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    bridge = Server(args.omni, ["truapi", "bridge", "--product-id", "load.dot", "--ephemeral", "--output", "jsonl",
                                "--listen", "127.0.0.1:0"])
    url = bridge.ready["url"]
    tally = Tally()
    # One connection first: what the runtime opens once, lazily (libdispatch's timerfd), is then in the start count;
    # the count is taken once the connection's socket is closed and the timer descriptor exists.
    listening = socket_count(bridge.pid)
    asyncio.run(truapi_connection(url, 2, time.monotonic() + 30, lambda: True, tally))
    if tally.errors or tally.counts.get("subscriptions") != 1:
        raise SystemExit(f"the first connection failed: {tally.first_errors}")
    wait_for_sockets(bridge.pid, listening)
    wait_for_runtime_fds(bridge.pid)
    tally = Tally()
    sampler = Sampler(bridge.pid).start()
    started = time.monotonic()
    deadline = started + args.seconds

    async def main():
        remaining = [args.max_operations]

        def budget():
            if remaining[0] <= 0:
                return False
            remaining[0] -= 1
            # The warm-up ends after ten operations per connection (each has had requests and subscriptions).
            if args.max_operations - remaining[0] == 10 * args.connections:
                sampler.mark_warm()
            return True

        async def slot():
            while time.monotonic() < deadline and remaining[0] > 0:
                try:
                    await truapi_connection(url, args.operations_per_connection, deadline, budget, tally)
                except (InvalidStatus, ConnectionClosed) as error:
                    # The bridge frees a connection's slot before the product sees its close, so a replacement
                    # opened at once always finds one: a 503 or 1013 here is an error, not a retry.
                    tally.error(f"connection refused: {error!r}")
                    return
                except Exception as error:
                    tally.error(f"connection: {error!r}")
                    return

        await asyncio.gather(*(slot() for _ in range(args.connections)))
        if sampler.warm_index is None:
            sampler.mark_warm()

    asyncio.run(main())
    elapsed = time.monotonic() - started
    sampler.stop()
    fds_end = sampler.wait_for_fds(sampler.fds_start)
    new_fds = sampler.new_fds()
    status = bridge.stop()
    refused = [event for event in bridge.events if "limit" in json.dumps(event)]
    return {"driver": "truapi", "concurrent_connections": args.connections, "seconds": elapsed, **tally.counts,
            "errors": tally.errors, "first_errors": tally.first_errors,
            "operations_per_second": (tally.counts.get("requests", 0) + tally.counts.get("subscriptions", 0)) / elapsed,
            "frames_per_second": tally.counts.get("frames", 0) / elapsed, "limit_events": len(refused),
            **sampler.summary(), "fds_end": fds_end, "new_fds": new_fds, "exit_status": status}


# MARK: - Attest store

def run_attest(args) -> dict:
    import attest_peer
    import cbor2

    work = tempfile.mkdtemp(prefix="omni-load-attest-")
    env = omni_environment(work)
    store = os.path.join(work, "attest.db")

    def omni(arguments: list) -> subprocess.CompletedProcess:
        return subprocess.run([args.omni, "attest", *arguments, "--store", store], capture_output=True, text=True,
                              env=env)

    minted = omni(["challenge", "--count", str(2 * args.keys), "--ttl", "1h", "--output", "jsonl"])
    if minted.returncode != 0:
        raise SystemExit(f"attest challenge failed: {minted.stderr}")
    challenges = [base64.b64decode(json.loads(line)["challenge_base64"]) for line in minted.stdout.splitlines()]

    # attest_peer's Minter draws each challenge from its generator; here they are the store's.
    import datetime
    minter = attest_peer.Minter(random.Random(args.seed), datetime.datetime.utcnow().replace(microsecond=0))
    keys = []
    for index in range(args.keys):
        enroll_challenge, assert_challenge = challenges[2 * index], challenges[2 * index + 1]
        line = minter.assertion("valid", attestation_challenge=enroll_challenge, client_challenge=assert_challenge)
        body = json.dumps({"platform": "ios", "iosKeyId": line["key_id"], "iosAttestationObject": line["attestation_b64"],
                           "nonce": b64url(enroll_challenge)})
        evidence = json.dumps({"iosAttestation": {"assertion": line["assertion_b64"], "keyId": line["key_id"]}})
        # The signed counter: authenticatorData bytes 33..36 (big-endian), after the RP id hash and the flags.
        counter = int.from_bytes(cbor2.loads(base64.b64decode(line["assertion_b64"]))["authenticatorData"][33:37], "big")
        keys.append({"index": index, "app_id": line["app_id"], "root": line["root_pem"], "body": body,
                     "evidence": evidence, "challenge": base64.b64encode(assert_challenge).decode(),
                     "client_data": line["client_data_b64"], "key_id": line["key_id"], "counter": counter})
    root = os.path.join(work, "root.pem")
    with open(root, "w") as text:
        text.write(keys[0]["root"] if keys else "")
    for key in keys:
        for name in ("body", "evidence"):
            path = os.path.join(work, f"{name}-{key['index']}.json")
            with open(path, "w") as text:
                text.write(key[name])
            key[name + "_file"] = path

    tally = Tally()
    # Last in, first out: a verification queued after its enrollment runs before the enrollments still waiting,
    # so enrolling and verifying overlap from the start; the two copies of a job stay next to each other.
    jobs = queue.LifoQueue()
    outcomes = {}  # (kind, index) -> [reason, …]
    outcomes_lock = threading.Lock()
    accepted_jobs = set()  # (kind, index) accepted at least once
    for key in reversed(keys):
        jobs.put(("enroll", key["index"]))
        jobs.put(("enroll", key["index"]))
    started = time.monotonic()
    deadline = started + args.seconds
    pending = [2 * len(keys)]  # jobs queued and not yet done; the workers stop when none are left
    pending_lock = threading.Condition()

    def judge(kind: str, index: int, result: subprocess.CompletedProcess) -> None:
        try:
            verdict = json.loads(result.stdout)
            reason = verdict.get("reason")
        except json.JSONDecodeError:
            reason = f"unparseable (status {result.returncode}): {result.stderr.strip()[:200]}"
        with outcomes_lock:
            outcomes.setdefault((kind, index), []).append(reason)
            first_ok = reason == "ok" and (kind, index) not in accepted_jobs
            if first_ok:
                accepted_jobs.add((kind, index))
        tally.add(f"{kind}_processes")
        tally.add(f"{kind}_reason_{reason}" if reason and len(reason) < 40 else f"{kind}_reason_other")
        if (result.returncode == 0) != (reason == "ok"):
            tally.error(f"{kind} {index}: status {result.returncode} with reason {reason}")
        if first_ok and kind == "enroll":
            with pending_lock:
                pending[0] += 2
            jobs.put(("verify", index))
            jobs.put(("verify", index))

    def worker() -> None:
        while True:
            with pending_lock:
                if pending[0] <= 0:
                    return
            try:
                kind, index = jobs.get(timeout=0.5)
            except queue.Empty:
                continue
            key = keys[index]
            if time.monotonic() < deadline:
                if kind == "enroll":
                    result = omni(["enroll", "--body", "@" + key["body_file"], "--app-id", key["app_id"], "--root", root,
                                   "--output", "json"])
                else:
                    result = omni(["verify", "--evidence", "@" + key["evidence_file"], "--challenge", key["challenge"],
                                   "--client-data", key["client_data"], "--challenge-field", "challenge",
                                   "--app-id", key["app_id"], "--output", "json"])
                judge(kind, index, result)
            else:
                tally.add("jobs_not_run")
            with pending_lock:
                pending[0] -= 1

    workers = [threading.Thread(target=worker) for _ in range(args.processes)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    elapsed = time.monotonic() - started

    # Exactly once: of each raced pair one is accepted, the other refused as the race's loser must be.
    losers = {"enroll": {"unknown_challenge", "key_already_enrolled"},
              "verify": {"unknown_challenge", "counter_not_increasing"}}
    accepted = {"enroll": 0, "verify": 0}
    for (kind, index), reasons in outcomes.items():
        oks = reasons.count("ok")
        accepted[kind] += oks
        if oks > 1:
            tally.error(f"{kind} {index} accepted {oks} times: {reasons}")
        if len(reasons) == 2 and oks != 1:
            tally.error(f"{kind} {index}: no attempt accepted: {reasons}")
        for reason in reasons:
            if reason != "ok" and reason not in losers[kind]:
                tally.error(f"{kind} {index} refused with {reason}")
    listing = json.loads(omni(["keys", "list", "--output", "json"]).stdout or "{}").get("keys", [])
    counters = {entry.get("key_id"): entry.get("counter") for entry in listing}
    for key in keys:
        verified = ("verify", key["index"]) in accepted_jobs
        expected = key["counter"] if verified else 0
        if ("enroll", key["index"]) in accepted_jobs and counters.get(key["key_id"]) != expected:
            tally.error(f"key {key['index']}: the store's counter is {counters.get(key['key_id'])}, not {expected}")
    if len(listing) != accepted["enroll"]:
        tally.error(f"{len(listing)} keys in the store, {accepted['enroll']} enrollments accepted")
    shutil.rmtree(work, ignore_errors=True)
    processes = sum(value for name, value in tally.counts.items() if name.endswith("_processes"))
    return {"driver": "attest", "processes": args.processes, "keys": len(keys), "seconds": elapsed, **tally.counts,
            "accepted_enrollments": accepted["enroll"], "accepted_verifications": accepted["verify"],
            "keys_in_store": len(listing), "errors": tally.errors, "first_errors": tally.first_errors,
            "omni_processes_per_second": processes / elapsed,
            "accepted_per_second": (accepted["enroll"] + accepted["verify"]) / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="driver", required=True)
    relay = sub.add_parser("relay")
    relay.add_argument("--sessions", type=int, default=64, help="concurrent sessions")
    relay.add_argument("--max-sessions", type=int, default=1 << 30, help="sessions in all (a count bound)")
    relay.add_argument("--frames-per-session", type=int, default=16, help="ping/pong pairs per session")
    truapi = sub.add_parser("truapi")
    truapi.add_argument("--connections", type=int, default=32)
    truapi.add_argument("--max-operations", type=int, default=1 << 30, help="requests and subscriptions in all")
    truapi.add_argument("--operations-per-connection", type=int, default=200)
    attest = sub.add_parser("attest")
    attest.add_argument("--processes", type=int, default=8)
    attest.add_argument("--keys", type=int, default=32, help="keys minted (each enrolled and verified)")
    attest.add_argument("--seed", type=int, default=17)
    for each in (relay, truapi, attest):
        each.add_argument("--omni", required=True)
        each.add_argument("--seconds", type=float, default=5.0, help="the time bound")
    args = parser.parse_args()
    result = {"relay": run_relay, "truapi": run_truapi, "attest": run_attest}[args.driver](args)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
