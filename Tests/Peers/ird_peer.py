#!/usr/bin/env python3
"""Loopback ird API for omni's `omni ird` tests: serves the hand-written test OpenAPI document and its operations,
and checks EVERY request against the document with openapi-core (a third-party validator, no omni code).

Start:  python3 ird_peer.py [--spec FILE] [--port N] [--device-polls N] [--api-key KEY] [--session-token TOKEN]
        [--login-token TOKEN]
        (--api-key and --session-token replace the fixed credentials, so a test can plant secrets of its own)
Stdout: ONE JSON line: {"url", "api", "spec_url", "spec_v2_url", "control", "api_key", "session_token", "totp",
        "confirmation_code", "pid"}. Lives until stdin reaches EOF or SIGTERM.

Endpoints:
  GET  /openapi.json, /openapi-v2.json   the documents (servers rewritten to this peer's /v1), with an ETag;
                                         If-None-Match answers 304. GET /_control/etag?bump=1 changes the ETag.
  *    /v1/...                           the operations (in-memory domains, DNS records, actions, jobs, device
                                         logins, uploads, tunnels, shares, transfers, API keys)
  POST /node/upload/{upload_id}          the IPFS node endpoint of an upload grant (its own bearer, octet-stream)
  GET  /_control                         {"violations": [...], "response_violations": [...], "requests": [...]}
  POST /_control/reset                   forget requests and violations (state stays)
  POST /_control/seed                    {"domains": N, "registrations": N}: that many more after the first five
                                         (0 removes them again), for paging tests
  POST /_control/script                  {"operation_id", "status", "body", "headers", "times", "deliberate"}: the
                                         next matching request(s) get this answer after being validated ("deliberate":
                                         an answer outside the document on purpose, not checked)

Every /v1 request is validated with openapi_core.OpenAPI.validate_request (method, path, parameters, body,
security); a failure is a violation. So is a credential sent to an operation whose security is [] (device login),
and any request to a path the document does not have. The peer's own answers are validated too (a peer bug shows
up as a response violation).
"""
import argparse
import copy
import hashlib
import json
import os
import re
import secrets
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

HERE = os.path.dirname(os.path.abspath(__file__))
API_KEY = "ird_test_4f3c2b1a0e9d8c7b6a5f"
SESSION_TOKEN = "eyJhbGciOiJIUzI1NiJ9.test-session.sig"
LOGIN_TOKEN = None  # what a completed device login issues; None: a fresh one each time
TOTP = "123456"
CONFIRMATION = "CONF-1234"
ACCOUNT_ONLY = {"listShares", "createShare", "listApiKeys", "createApiKey", "deleteApiKey"}
SENSITIVE_DOMAINS = {"bank.ro"}
# Answers that step outside the document on purpose (an open enum's new value): not peer bugs.
DELIBERATE = {("checkDomain", "/v1/domains/check/weird.ro")}


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Document:
    """One OpenAPI document as served by this peer, its operations by (method, path regex), and its validator."""

    def __init__(self, path, base_url):
        with open(path) as f:
            self.raw = json.load(f)
        self.served = copy.deepcopy(self.raw)
        self.served["servers"] = [{"url": base_url + "/v1"}]
        self.bytes = (json.dumps(self.served, indent=1) + "\n").encode()
        self.openapi = OpenAPI.from_dict(copy.deepcopy(self.served))
        self.operations = []
        for template, item in self.raw["paths"].items():
            pattern = "^" + re.sub(r"\\\{([^}]+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"
            for method, op in item.items():
                if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
                    security = op.get("security", self.raw.get("security", []))
                    self.operations.append((method.upper(), re.compile(pattern), template, op, security))

    def match(self, method, path):
        for m, pattern, template, op, security in self.operations:
            found = pattern.match(path)
            if m == method and found:
                return op, found.groupdict(), security
        return None


class State:
    def __init__(self, device_polls):
        self.lock = threading.Lock()
        self.violations = []
        self.response_violations = []
        self.requests = []
        self.scripts = []
        self.etag_generation = 0
        self.device_polls = device_polls
        self.domains = [{"domain": f"site{i}.ro", "status": "taken", "registered_at": "2025-01-0%dT00:00:00Z" % (i + 1),
                         "expires_at": "2027-01-01T00:00:00Z", "use_our_dns": True} for i in range(5)]
        self.records = {}
        self.record_counter = 0
        self.registrations = [{"id": f"reg-{i}", "domain": f"site{i}.ro", "state": "active", "years": 1, "auto_renew": True}
                              for i in range(5)]
        self.actions = {}
        self.jobs = {}
        self.devices = {}
        self.uploads = {}
        self.tunnels = {}
        self.shares = []
        self.transfers = {}
        self.api_keys = [{"id": "key-1", "name": "ci", "prefix": "ird_test_4f", "created_at": "2026-01-01T00:00:00Z", "last_used_at": None}]
        self.sessions = {SESSION_TOKEN}
        self.counter = 0

    def next_id(self, prefix):
        self.counter += 1
        return f"{prefix}-{self.counter}"


def error(status, code, message, headers=None, errors=None):
    body = {"code": code, "message": message}
    if errors:
        body["errors"] = errors
    return status, body, headers or {}


def page_by_cursor(items, query, key):
    start = int(query.get("cursor", "0") or 0)
    limit = int(query.get("limit", "20"))
    chunk = items[start:start + limit]
    following = start + limit
    return {key: chunk, "next_cursor": str(following) if following < len(items) else None}


def page_by_offset(items, query):
    offset = int(query.get("offset", "0"))
    limit = int(query.get("limit", "20"))
    return {"items": items[offset:offset + limit], "limit": limit, "offset": offset, **({"total": len(items)} if False else {})}


class Operations:
    """What each operation does, by operationId. Each returns (status, body or None, headers)."""

    def __init__(self, state, base_url):
        self.s = state
        self.base_url = base_url

    def call(self, op_id, params, query, body, credential, headers):
        handler = getattr(self, op_id, None)
        if handler is None:
            return error(501, "not-implemented", f"{op_id} is not modelled by the peer")
        return handler(params=params, query=query, body=body, credential=credential, headers=headers)

    # auth
    def startDeviceLogin(self, **_):
        code = secrets.token_hex(8)
        self.s.devices[code] = {"polls": 0}
        return 200, {"device_code": code, "user_code": "WDJB-MJHT", "verification_uri": self.base_url + "/device",
                     "verification_uri_complete": self.base_url + "/device?user_code=WDJB-MJHT", "interval": 1, "expires_in": 600}, {}

    def pollDeviceLogin(self, body, **_):
        device = self.s.devices.get(body["device_code"])
        if device is None:
            return error(400, "expired_token", "unknown device code")
        device["polls"] += 1
        if device["polls"] < self.s.device_polls:
            return error(400, "authorization_pending", "not approved yet")
        if device["polls"] == self.s.device_polls:
            return error(429, "slow_down", "polling too fast", {"Retry-After": "1"})
        device["approved"] = True
        return 200, {"state": "approved"}, {}

    def completeDeviceLogin(self, body, **_):
        device = self.s.devices.get(body["device_code"])
        if device is None or not device.get("approved"):
            return error(400, "authorization_pending", "the login is not approved")
        if body["confirmation_code"] != CONFIRMATION:
            return error(400, "invalid-confirmation-code", "the confirmation code does not match")
        token = LOGIN_TOKEN or "eyJ" + secrets.token_hex(12)
        self.s.sessions.add(token)
        return 200, {"access_token": token, "token_type": "Bearer", "expires_at": "2030-01-01T00:00:00Z"}, {}

    def getMe(self, credential, **_):
        return 200, {"account_id": "acct-1", "email": "ops@example.ro", "credential": credential}, {}

    # credits
    def getCreditBalance(self, **_):
        return 200, {"total": "509.72", "currency": "RON"}, {}

    def listCreditLedger(self, query, **_):
        items = [{"id": "led-1", "amount": "0.1", "kind": "usage", "description": "dns query pack", "created_at": "2026-03-01T10:00:00Z"},
                 {"id": "led-2", "amount": "0.2", "kind": "usage", "description": "embedding", "created_at": "2026-03-01T11:00:00Z"},
                 {"id": "led-3", "amount": "509.72", "kind": "purchase", "created_at": "2026-02-01T09:00:00Z"}]
        if "kind" in query:
            items = [i for i in items if i["kind"] == query["kind"]]
        return 200, page_by_offset(items, query), {}

    # support
    def listSupportThreads(self, query, **_):
        threads = [{"id": "t-1", "subject": "Transfer stuck", "state": "open", "priority": "high"}]
        return 200, page_by_cursor(threads, query, "threads"), {}

    def createSupportThread(self, body, **_):
        return 201, {"id": self.s.next_id("t"), "subject": body["subject"], "state": "open", "priority": body.get("priority", "normal")}, {}

    # domains
    def checkDomain(self, params, **_):
        domain = params["domain"]
        status = {"taken.ro": "taken", "weird.ro": "pending-delete", "premium.ro": "premium"}.get(domain, "available")
        answer = {"domain": domain, "status": status}
        if status in ("available", "premium"):
            answer["price"] = "12.50" if status == "available" else "509.72"
        return 200, answer, {}

    def listDomains(self, query, **_):
        return 200, page_by_cursor(self.s.domains, query, "domains"), {}

    def getDomain(self, params, **_):
        domain = params["domain"]
        found = next((d for d in self.s.domains if d["domain"] == domain), None)
        if found is None and domain != "drift.ro":
            return error(404, "not-found", f"no domain {domain}")
        if domain == "drift.ro":
            return 200, {"domain": "drift.ro", "status": "taken", "registrar_lock": True, "use_our_dns": False}, {}
        return 200, found, {}

    # registrations
    def listRegistrations(self, query, **_):
        return 200, page_by_offset(self.s.registrations, query), {}

    def registerDomain(self, body, **_):
        if body["domain"] == "expensive.ro":
            return error(402, "insufficient-credits", "registering expensive.ro needs 900.00 credits; the balance is 509.72")
        action = {"id": self.s.next_id("act"), "kind": "register", "state": "queued", "created_at": now(), "error": None,
                  "polls": 0, "fails": body["domain"].startswith("fail")}
        self.s.actions[action["id"]] = action
        return 202, {"action": self.public_action(action)}, {}

    def setAutoRenew(self, params, body, **_):
        registration = next((r for r in self.s.registrations if r["id"] == params["registration_id"]), None)
        if registration is None:
            return error(404, "not-found", "no such registration")
        registration["auto_renew"] = body["auto_renew"]
        return 200, registration, {}

    @staticmethod
    def public_action(action):
        return {k: v for k, v in action.items() if k not in ("polls", "fails")}

    def getRegistrationAction(self, params, **_):
        action = self.s.actions.get(params["action_id"])
        if action is None:
            return error(404, "not-found", "no such action")
        action["polls"] += 1
        if action["polls"] == 1:
            action["state"] = "running"
        elif action["polls"] >= 2:
            action["state"] = "failed" if action["fails"] else "succeeded"
            if action["fails"]:
                action["error"] = "the registry refused the name"
        return 200, self.public_action(action), {}

    getVpsAction = getRegistrationAction

    def listRegistrationActions(self, params, query, **_):
        actions = [self.public_action(a) for a in self.s.actions.values()]
        return 200, {"actions": actions, "next_cursor": None}, {}

    # dns
    def listDnsRecords(self, params, query, **_):
        records = self.s.records.get(params["domain"], [])
        if "type" in query:
            records = [r for r in records if r["type"] == query["type"]]
        return 200, {"records": records}, {}

    def createDnsRecord(self, params, body, **_):
        self.s.record_counter += 1
        record = dict(body)
        record.setdefault("ttl", 3600)
        record["id"] = f"rec-{self.s.record_counter}"
        self.s.records.setdefault(params["domain"], []).append(record)
        return 201, record, {}

    def deleteDnsRecord(self, params, **_):
        records = self.s.records.get(params["domain"], [])
        kept = [r for r in records if r["id"] != params["record_id"]]
        if len(kept) == len(records):
            return error(404, "not-found", "no such record")
        self.s.records[params["domain"]] = kept
        return 204, None, {}

    # vps
    def listInstances(self, **_):
        return 200, {"instances": [{"name": "web-1", "state": "running", "ipv4": "192.0.2.10", "ipv6": "2001:db8::10", "plan": "small"},
                                   {"name": "db-1", "state": "stopped", "plan": "medium"}]}, {}

    def createInstance(self, body, **_):
        action = {"id": self.s.next_id("act"), "kind": "create-instance", "state": "queued", "created_at": now(), "error": None,
                  "polls": 0, "fails": False}
        self.s.actions[action["id"]] = action
        return 202, {"action": self.public_action(action)}, {}

    # ipfs
    def createUploadGrant(self, body, **_):
        upload_id = self.s.next_id("up")
        token = "grant-" + secrets.token_hex(8)
        self.s.uploads[upload_id] = {"upload_id": upload_id, "state": "pending", "cid": None, "token": token}
        return 201, {"upload_id": upload_id, "upload_url": f"{self.base_url}/node/upload/{upload_id}", "token": token,
                     "expires_at": "2030-01-01T00:00:00Z", "max_bytes": 1 << 30}, {}

    def getUpload(self, params, **_):
        upload = self.s.uploads.get(params["upload_id"])
        if upload is None:
            return error(404, "not-found", "no such upload")
        if upload["state"] == "processing":
            upload["polls"] += 1
            if upload["polls"] >= 2:
                upload["state"] = "completed"
                upload["cid"] = upload["pending_cid"]
        return 200, {k: v for k, v in upload.items() if k in ("upload_id", "state", "cid")}, {}

    def listPins(self, query, **_):
        pins = [{"cid": f"bafy{i:04d}", "name": f"file{i}", "size": 100 * i} for i in range(3)]
        return 200, page_by_cursor(pins, query, "pins"), {}

    def listDomainPins(self, params, query, **_):
        pins = [{"cid": f"bafydomain{i}", "name": f"{params['domain']}/{i}"} for i in range(3)]
        return 200, page_by_offset(pins, query), {}

    # tunnels
    def listTunnels(self, **_):
        return 200, {"tunnels": list(self.s.tunnels.values())}, {}

    def createTunnel(self, body, **_):
        tunnel = {"id": self.s.next_id("tun"), "hostname": body["hostname"], "state": "pending", "created_at": now()}
        self.s.tunnels[tunnel["id"]] = tunnel
        return 201, tunnel, {}

    def deleteTunnel(self, params, **_):
        if self.s.tunnels.pop(params["tunnel_id"], None) is None:
            return error(404, "not-found", "no such tunnel")
        return 204, None, {}

    # p2p
    def listP2pApps(self, **_):
        return 200, {"apps": [{"id": "app-1", "name": "chat"}]}, {}

    def mintMailboxCredentials(self, params, **_):
        if params["app_id"] != "app-1":
            return error(404, "not-found", "no such app")
        return 201, {"mailbox_id": "mb-1", "token": "mbx-" + secrets.token_hex(6), "expires_at": "2030-01-01T00:00:00Z"}, {}

    # sharing
    def listShares(self, **_):
        return 200, {"shares": self.s.shares}, {}

    def createShare(self, body, **_):
        share = {"id": self.s.next_id("share"), **body}
        self.s.shares.append(share)
        return 201, share, {}

    # transfers
    def startTransfer(self, body, credential, headers, **_):
        if credential == "api_key" and body["domain"] in SENSITIVE_DOMAINS:
            return error(403, "sensitive-domain-api-key-blocked", f"{body['domain']} is a sensitive domain: use an account session")
        blocked = self.totp(headers)
        if blocked:
            return blocked
        transfer = {"id": self.s.next_id("tr"), "domain": body["domain"], "state": "pending"}
        self.s.transfers[transfer["id"]] = transfer
        return 201, transfer, {}

    def getTransfer(self, params, **_):
        transfer = self.s.transfers.get(params["transfer_id"])
        if transfer is None:
            return error(404, "not-found", "no such transfer")
        return 200, transfer, {}

    @staticmethod
    def totp(headers):
        code = headers.get("X-TOTP")
        if code is None:
            return error(401, "totp-required", "this operation needs a current authenticator code")
        if code != TOTP:
            return error(401, "invalid-totp", "the authenticator code is wrong or expired")
        return None

    # jobs
    def createJob(self, body, **_):
        job = {"id": self.s.next_id("job"), "kind": body["kind"], "state": "queued", "created_at": now(), "cost": "0.1",
               "polls": 0, "input": body["input"]}
        self.s.jobs[job["id"]] = job
        return 202, self.public_job(job), {}

    @staticmethod
    def public_job(job):
        return {k: v for k, v in job.items() if k not in ("polls", "input")}

    def getJob(self, params, **_):
        job = self.s.jobs.get(params["id"])
        if job is None:
            return error(404, "not-found", "no such job")
        job["polls"] += 1
        job["state"] = "running" if job["polls"] == 1 else "succeeded"
        return 200, self.public_job(job), {}

    def getJobResult(self, params, **_):
        job = self.s.jobs.get(params["id"])
        if job is None or job["state"] != "succeeded":
            return error(404, "not-found", "no result yet")
        results = {"nlp-detect-language": {"language": "ro", "confidence": "0.98"}}
        return 200, {"id": job["id"], "result": results.get(job["kind"], {"echo": job["input"]})}, {}

    # api keys
    def listApiKeys(self, **_):
        return 200, {"keys": self.s.api_keys}, {}

    def createApiKey(self, body, headers, **_):
        blocked = self.totp(headers)
        if blocked:
            return blocked
        key = {"id": self.s.next_id("key"), "name": body["name"], "prefix": "ird_new", "created_at": now(), "last_used_at": None}
        self.s.api_keys.append(key)
        return 201, {**key, "key": "ird_new_" + secrets.token_hex(8)}, {}

    def deleteApiKey(self, params, **_):
        before = len(self.s.api_keys)
        self.s.api_keys = [k for k in self.s.api_keys if k["id"] != params["key_id"]]
        if len(self.s.api_keys) == before:
            return error(404, "not-found", "no such key")
        return 204, None, {}


def describe(exception):
    parts = [str(exception)]
    cause = exception.__cause__
    while cause is not None:
        parts.append(str(cause))
        for detail in getattr(cause, "schema_errors", []) or []:
            parts.append(str(getattr(detail, "message", detail)))
        cause = cause.__cause__
    return " | ".join(parts)


def make_handler(state, documents, operations, base_url):
    primary = documents["primary"]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=None, headers=None, content_type="application/json", raw=None):
            data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            if status != 204 and status != 304:
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if status not in (204, 304):
                self.wfile.write(data)
            return data

        def read_body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def do_GET(self): self.handle_any("GET")
        def do_POST(self): self.handle_any("POST")
        def do_PUT(self): self.handle_any("PUT")
        def do_PATCH(self): self.handle_any("PATCH")
        def do_DELETE(self): self.handle_any("DELETE")

        def handle_any(self, method):
            url = urlsplit(self.path)
            path = url.path
            if path.startswith("/node/upload/"):
                return self.node_upload(method, path)   # streams the body: uploads may be large
            body = self.read_body()
            if path in ("/openapi.json", "/openapi-v2.json"):
                document = documents["primary" if path == "/openapi.json" else "v2"]
                etag = '"%s-%d"' % (hashlib.sha256(document.bytes).hexdigest()[:16], state.etag_generation)
                with state.lock:
                    state.requests.append({"method": method, "path": path, "if_none_match": self.headers.get("If-None-Match")})
                if self.headers.get("If-None-Match") == etag:
                    return self.send(304, headers={"ETag": etag})
                return self.send(200, raw=document.bytes, headers={"ETag": etag})
            if path.startswith("/_control"):
                return self.control(method, path, url.query, body)
            if path.startswith("/v1/"):
                return self.operation(method, path, url.query, body)
            with state.lock:
                state.violations.append({"request": f"{method} {path}", "problem": "no such path"})
            return self.send(404, {"code": "not-found", "message": "no such path"})

        def control(self, method, path, query, body):
            with state.lock:
                if method == "GET" and path == "/_control":
                    return self.send(200, {"violations": state.violations, "response_violations": state.response_violations,
                                           "requests": state.requests})
                if method == "GET" and path == "/_control/etag":
                    state.etag_generation += 1
                    return self.send(200, {"generation": state.etag_generation})
                if method == "POST" and path == "/_control/reset":
                    state.violations.clear()
                    state.response_violations.clear()
                    state.requests.clear()
                    state.scripts.clear()
                    return self.send(200, {"reset": True})
                if method == "POST" and path == "/_control/seed":
                    # Extra domains and registrations beyond the first five, for paging tests; 0 removes them again.
                    seed = json.loads(body or b"{}")
                    extra_domains = int(seed.get("domains", 0))
                    extra_registrations = int(seed.get("registrations", 0))
                    state.domains = state.domains[:5] + [
                        {"domain": f"bulk{i}.ro", "status": "taken", "registered_at": "2025-02-01T00:00:00Z",
                         "expires_at": "2027-02-01T00:00:00Z", "use_our_dns": False} for i in range(extra_domains)]
                    state.registrations = state.registrations[:5] + [
                        {"id": f"reg-bulk-{i}", "domain": f"bulk{i}.ro", "state": "active", "years": 1, "auto_renew": False}
                        for i in range(extra_registrations)]
                    return self.send(200, {"domains": len(state.domains), "registrations": len(state.registrations)})
                if method == "POST" and path == "/_control/script":
                    script = json.loads(body or b"{}")
                    script.setdefault("times", 1)
                    state.scripts.append(script)
                    return self.send(200, {"scripted": script["operation_id"]})
            return self.send(404, {"code": "not-found", "message": "no such control endpoint"})

        def node_upload(self, method, path):
            upload_id = path.rsplit("/", 1)[-1]
            length = int(self.headers.get("Content-Length") or 0)
            digest = hashlib.sha256()
            received = 0
            while received < length:
                chunk = self.rfile.read(min(1 << 20, length - received))
                if not chunk:
                    break
                digest.update(chunk)
                received += len(chunk)
            with state.lock:
                upload = state.uploads.get(upload_id)
                record = {"method": method, "path": path, "bytes": received, "content_length": length, "sha256": digest.hexdigest(),
                          "authorization": self.headers.get("Authorization"), "content_type": self.headers.get("Content-Type")}
                state.requests.append(record)
                if upload is None:
                    return self.send(404, {"code": "not-found", "message": "no such upload"})
                if self.headers.get("Authorization") != "Bearer " + upload["token"]:
                    state.violations.append({"request": f"{method} {path}", "problem": "the node needs the grant's own bearer"})
                    return self.send(401, {"code": "unauthorized", "message": "wrong grant bearer"})
                if self.headers.get("Content-Type") != "application/octet-stream":
                    state.violations.append({"request": f"{method} {path}", "problem": "the node takes application/octet-stream"})
                upload["state"] = "processing"
                upload["polls"] = 0
                upload["cid"] = None
                upload["pending_cid"] = "bafy" + digest.hexdigest()[:40]
                return self.send(200, {"cid": upload["pending_cid"], "bytes": received})

        def operation(self, method, path, query_text, body):
            pairs = parse_qsl(query_text, keep_blank_values=True)
            query = dict(pairs)
            relative = path[len("/v1"):]
            found = primary.match(method, relative)
            headers = {name: value for name, value in self.headers.items()}
            authorization = self.headers.get("Authorization")
            record = {"method": method, "path": path, "query": pairs, "authorization": authorization is not None,
                      "body": body.decode("utf-8", "replace") if body else None,
                      "content_type": self.headers.get("Content-Type")}
            with state.lock:
                state.requests.append(record)
            if found is None:
                with state.lock:
                    state.violations.append({"request": f"{method} {path}", "problem": "the document has no such operation"})
                return self.send(404, {"code": "not-found", "message": "no such operation"})
            op, params, security = found
            op_id = op["operationId"]
            record["operation_id"] = op_id
            request = MockRequest(base_url, method, path, args=pairs, headers=headers, data=body,
                                  content_type=self.headers.get("Content-Type") or "application/json")
            try:
                primary.openapi.validate_request(request)
            except Exception as exception:  # every validation failure is a violation the test sees
                with state.lock:
                    state.violations.append({"request": f"{method} {path}", "operation_id": op_id, "problem": describe(exception)})
                # A missing credential is what a service answers 401 to; anything else does not fit the document.
                if "Security" in type(exception).__name__ or "Security" in type(exception.__cause__ or exception).__name__:
                    return self.send(401, {"code": "unauthorized", "message": "a credential is required"})
                return self.send(400, {"code": "invalid-request", "message": describe(exception)[:500]})
            if security == [] and authorization is not None:
                with state.lock:
                    state.violations.append({"request": f"{method} {path}", "operation_id": op_id,
                                             "problem": "a credential was sent to an anonymous operation"})
            credential = None
            if authorization is not None:
                token = authorization[len("Bearer "):] if authorization.startswith("Bearer ") else ""
                if token == API_KEY:
                    credential = "api_key"
                elif token in state.sessions:
                    credential = "session"
                else:
                    return self.answer(op_id, method, path, *error(401, "unauthorized", "unknown credential"))
            if security and {} not in security and credential is None:
                return self.answer(op_id, method, path, *error(401, "unauthorized", "a credential is required"))
            if op_id in ACCOUNT_ONLY and credential == "api_key":
                return self.answer(op_id, method, path, *error(401, "account-session-required", "API keys cannot do this"))
            with state.lock:
                script = next((s for s in state.scripts if s["operation_id"] == op_id), None)
                if script is not None:
                    script["times"] -= 1
                    if script["times"] <= 0:
                        state.scripts.remove(script)
            if script is not None:
                return self.answer(op_id, method, path, script.get("status", 200), script.get("body"), script.get("headers", {}),
                                   deliberate=script.get("deliberate", False))
            parsed = json.loads(body) if body else None
            with state.lock:
                status, answer, extra = operations.call(op_id, params, query, parsed, credential, headers)
            return self.answer(op_id, method, path, status, answer, extra)

        def answer(self, op_id, method, path, status, body, headers, deliberate=False):
            data = self.send(status, body, headers)
            if deliberate or (op_id, path) in DELIBERATE:
                return
            request = MockRequest(base_url, method, path)
            response = MockResponse(data, status_code=status, headers=headers,
                                    content_type="application/json" if status != 204 else "")
            try:
                primary.openapi.validate_response(request, response)
            except Exception as exception:
                with state.lock:
                    state.response_violations.append({"request": f"{method} {path}", "operation_id": op_id, "status": status,
                                                      "problem": describe(exception)})

    return Handler


def main():
    global API_KEY, SESSION_TOKEN, LOGIN_TOKEN
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", default=os.path.join(HERE, "ird", "openapi.json"))
    parser.add_argument("--spec-v2", default=os.path.join(HERE, "ird", "openapi-v2.json"))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--device-polls", type=int, default=2, help="polls answered 'pending' before the one 'slow_down'")
    parser.add_argument("--api-key", default=API_KEY)
    parser.add_argument("--session-token", default=SESSION_TOKEN)
    parser.add_argument("--login-token", default=None, help="the token a completed device login issues (default: a fresh one)")
    args = parser.parse_args()
    API_KEY, SESSION_TOKEN, LOGIN_TOKEN = args.api_key, args.session_token, args.login_token

    server = ThreadingHTTPServer(("127.0.0.1", args.port), BaseHTTPRequestHandler)
    base_url = "http://127.0.0.1:%d" % server.server_address[1]
    documents = {"primary": Document(args.spec, base_url), "v2": Document(args.spec_v2, base_url)}
    state = State(args.device_polls)
    server.RequestHandlerClass = make_handler(state, documents, Operations(state, base_url), base_url)
    server.daemon_threads = True

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, stop)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except Exception:
            pass
        stop()
    threading.Thread(target=watch_stdin, daemon=True).start()

    print(json.dumps({"url": base_url, "api": base_url + "/v1", "spec_url": base_url + "/openapi.json",
                      "spec_v2_url": base_url + "/openapi-v2.json", "control": base_url + "/_control", "api_key": API_KEY,
                      "session_token": SESSION_TOKEN, "totp": TOTP, "confirmation_code": CONFIRMATION, "pid": os.getpid()}),
          flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
