#!/usr/bin/env python3
"""Independent checks of issue #38 ("Results a model can use") against an openapi-mcp binary.

Usage:
    python3 judge.py BIN [--gh-spec api.github.com.json] [--fixtures DIR] [--skip-github]
                         [--out results.json]

Starts a fake upstream on 127.0.0.1, writes a small OpenAPI spec pointing at it, drives
`BIN serve` over stdio JSON-RPC (and over --http, and --dynamic), and prints PASS/FAIL per check.
The GitHub part replays real recorded api.github.com responses (@octokit/fixtures) under
GitHub's own spec (@octokit/openapi@23.0.2, generated/api.github.com.json).

Python 3.11 standard library only; `jsonschema` is used as a second validator when importable.
"""
import argparse
import base64
import copy
import gzip
import http.server
import io
import json
import os
import queue
import random
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import wave
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = []
PROCS = []


def record(cid, ok, detail):
    status = {True: "PASS", False: "FAIL", None: "INFO"}[ok]
    RESULTS.append({"id": cid, "status": status, "detail": detail})
    print(f"[{status}] {cid}: {detail}", flush=True)


def jdump(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def nbytes(v):
    return len(jdump(v).encode())


# ----------------------------------------------------------------------------------------------
# A small JSON Schema (2020-12) validator for the subset the output schemas use.
# ----------------------------------------------------------------------------------------------

def _type_ok(inst, t):
    if t == "object":
        return isinstance(inst, dict)
    if t == "array":
        return isinstance(inst, list)
    if t == "string":
        return isinstance(inst, str)
    if t == "boolean":
        return isinstance(inst, bool)
    if t == "null":
        return inst is None
    if t == "integer":
        return (isinstance(inst, int) and not isinstance(inst, bool)) or (
            isinstance(inst, float) and inst.is_integer())
    if t == "number":
        return isinstance(inst, (int, float)) and not isinstance(inst, bool)
    return True


def _resolve(ref, root):
    if not ref.startswith("#"):
        return None
    node = root
    for part in ref[1:].split("/")[1:]:
        part = urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(part)]
        else:
            node = node[part]
    return node


def mini_validate(inst, schema, root=None, path="$", depth=0):
    """Returns a list of error strings (empty: valid)."""
    if root is None:
        root = schema
    if depth > 200:
        return []
    if schema is True or schema is None:
        return []
    if schema is False:
        return [f"{path}: schema false"]
    errs = []
    if "$ref" in schema:
        target = _resolve(schema["$ref"], root)
        if target is None:
            return []  # outside the document: not checked
        errs += mini_validate(inst, target, root, path, depth + 1)
    t = schema.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(_type_ok(inst, x) for x in ts):
            return errs + [f"{path}: type {type(inst).__name__} not {t}"]
    if "enum" in schema and inst not in schema["enum"]:
        errs.append(f"{path}: {inst!r} not in enum")
    if "const" in schema and inst != schema["const"]:
        errs.append(f"{path}: not const")
    if isinstance(inst, dict):
        props = schema.get("properties", {})
        for r in schema.get("required", []):
            if r not in inst:
                errs.append(f"{path}: missing required {r}")
        pprops = schema.get("patternProperties", {})
        for k, v in inst.items():
            matched = False
            if k in props:
                matched = True
                errs += mini_validate(v, props[k], root, f"{path}.{k}", depth + 1)
            for pat, ps in pprops.items():
                try:
                    if re.search(pat, k):
                        matched = True
                        errs += mini_validate(v, ps, root, f"{path}.{k}", depth + 1)
                except re.error:
                    matched = True
            if not matched and "additionalProperties" in schema:
                errs += mini_validate(v, schema["additionalProperties"], root, f"{path}.{k}", depth + 1)
        if "maxProperties" in schema and len(inst) > schema["maxProperties"]:
            errs.append(f"{path}: too many properties")
        if "minProperties" in schema and len(inst) < schema["minProperties"]:
            errs.append(f"{path}: too few properties")
    if isinstance(inst, list):
        pre = schema.get("prefixItems", [])
        for i, v in enumerate(inst):
            if i < len(pre):
                errs += mini_validate(v, pre[i], root, f"{path}[{i}]", depth + 1)
            elif "items" in schema:
                errs += mini_validate(v, schema["items"], root, f"{path}[{i}]", depth + 1)
        if "minItems" in schema and len(inst) < schema["minItems"]:
            errs.append(f"{path}: fewer than minItems")
        if "maxItems" in schema and len(inst) > schema["maxItems"]:
            errs.append(f"{path}: more than maxItems")
        if schema.get("uniqueItems"):
            seen = [jdump(x) for x in inst]
            if len(set(seen)) != len(seen):
                errs.append(f"{path}: items not unique")
    if isinstance(inst, str):
        if "minLength" in schema and len(inst) < schema["minLength"]:
            errs.append(f"{path}: shorter than minLength")
        if "maxLength" in schema and len(inst) > schema["maxLength"]:
            errs.append(f"{path}: longer than maxLength")
        if "pattern" in schema:
            try:
                if not re.search(schema["pattern"], inst):
                    errs.append(f"{path}: pattern {schema['pattern']} fails")
            except re.error:
                pass
    if isinstance(inst, (int, float)) and not isinstance(inst, bool):
        if "minimum" in schema and inst < schema["minimum"]:
            errs.append(f"{path}: below minimum")
        if "maximum" in schema and inst > schema["maximum"]:
            errs.append(f"{path}: above maximum")
    for sub in schema.get("allOf", []):
        errs += mini_validate(inst, sub, root, path, depth + 1)
    if "anyOf" in schema:
        if not any(not mini_validate(inst, s, root, path, depth + 1) for s in schema["anyOf"]):
            errs.append(f"{path}: no anyOf branch matches")
    if "oneOf" in schema:
        n = sum(1 for s in schema["oneOf"] if not mini_validate(inst, s, root, path, depth + 1))
        if n != 1:
            errs.append(f"{path}: {n} oneOf branches match")
    if "not" in schema and not mini_validate(inst, schema["not"], root, path, depth + 1):
        errs.append(f"{path}: matches not")
    if "if" in schema:
        if not mini_validate(inst, schema["if"], root, path, depth + 1):
            if "then" in schema:
                errs += mini_validate(inst, schema["then"], root, path, depth + 1)
        elif "else" in schema:
            errs += mini_validate(inst, schema["else"], root, path, depth + 1)
    return errs


def validate(inst, schema):
    """(ok, how): the mini validator, and jsonschema when it is importable."""
    errs = mini_validate(inst, schema)
    how = f"mini-validator: {'valid' if not errs else 'INVALID ' + '; '.join(errs[:3])}"
    ok = not errs
    try:
        import jsonschema  # noqa
        v = jsonschema.Draft202012Validator(schema)
        jerrs = [e.message[:160] for e in v.iter_errors(inst)]
        how += f"; jsonschema {jsonschema.__name__}: {'valid' if not jerrs else 'INVALID ' + '; '.join(jerrs[:3])}"
        ok = ok and not jerrs
    except ImportError:
        how += "; jsonschema not installed"
    return ok, how


# ----------------------------------------------------------------------------------------------
# The fake upstream.
# ----------------------------------------------------------------------------------------------

class Upstream:
    def __init__(self):
        self.hits = []
        self.lock = threading.Lock()
        self.routes = []  # (regex, fn)
        up = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                u = urllib.parse.urlsplit(self.path)
                q = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
                with up.lock:
                    up.hits.append(("GET", self.path))
                for rx, fn in up.routes:
                    m = re.fullmatch(rx, u.path)
                    if m:
                        try:
                            out = fn(self, q, m)
                        except (BrokenPipeError, ConnectionResetError):
                            return
                        if out is None:
                            return  # streamed by fn
                        status, headers, body = out
                        self.send_response(status)
                        for k, v in headers:
                            self.send_header(k, v)
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        try:
                            self.wfile.write(body)
                        except (BrokenPipeError, ConnectionResetError):
                            pass
                        return
                body = b'{"message":"Not Found"}'
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *a: None  # a client that hung up is not news
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def route(self, rx):
        def deco(fn):
            self.routes.append((rx, fn))
            return fn
        return deco

    def count(self, prefix=None):
        with self.lock:
            return sum(1 for _, p in self.hits if prefix is None or p.startswith(prefix))

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# ----------------------------------------------------------------------------------------------
# MCP clients.
# ----------------------------------------------------------------------------------------------

class StdioClient:
    def __init__(self, argv, name, env=None):
        self.errpath = os.path.join(HERE, "logs", f"{name}.stderr")
        os.makedirs(os.path.dirname(self.errpath), exist_ok=True)
        self.err = open(self.errpath, "wb")
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, env=env)
        PROCS.append(self.p)
        self.q = queue.Queue()
        self.nid = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line)
        self.q.put(None)

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params=None, timeout=120):
        self.nid += 1
        rid = self.nid
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        t0 = time.monotonic()
        self.send(msg)
        deadline = t0 + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{method}: no answer in {timeout}s")
            line = self.q.get(timeout=left)
            if line is None:
                raise RuntimeError(f"{method}: server exited (stderr {self.errpath})")
            m = json.loads(line)
            if m.get("id") == rid:
                return m, len(line.rstrip(b"\n")), time.monotonic() - t0

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def initialize(self):
        m, _, _ = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "judge38", "version": "1"}}, timeout=300)
        assert "result" in m, m
        self.notify("notifications/initialized")
        return m["result"]

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.err.close()


class HttpClient:
    """Streamable HTTP, stateless: each POST answered on its own."""

    def __init__(self, argv, name, token, env):
        self.errpath = os.path.join(HERE, "logs", f"{name}.stderr")
        self.err = open(self.errpath, "wb")
        env = dict(env, OPENAPI_MCP_HTTP_TOKEN=token)
        self.token = token
        self.p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=self.err, env=env)
        PROCS.append(self.p)
        self.nid = 0
        self.url = None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            text = open(self.errpath, "rb").read().decode("utf-8", "replace")
            m = re.search(r"http://(127\.0\.0\.1:\d+)", text)
            if m:
                self.url = f"http://{m.group(1)}/mcp"
                break
            if self.p.poll() is not None:
                raise RuntimeError(f"http server exited: {text}")
            time.sleep(0.2)
        if not self.url:
            raise RuntimeError("http server did not say where it listens")
        # wait for /healthz
        for _ in range(100):
            try:
                urllib.request.urlopen(self.url.replace("/mcp", "/healthz"), timeout=5).read()
                break
            except Exception:
                time.sleep(0.2)

    def post(self, msg, token="__default__", timeout=120):
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-06-18"}
        tok = self.token if token == "__default__" else token
        if tok:
            headers["Authorization"] = f"Bearer {tok}"
        req = urllib.request.Request(self.url, data=json.dumps(msg).encode(), headers=headers,
                                     method="POST")
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                body = r.read()
                ct = r.headers.get("Content-Type", "")
                status = r.status
        except urllib.error.HTTPError as e:
            return e.code, None, len(e.read()), time.monotonic() - t0
        el = time.monotonic() - t0
        if not body:
            return status, None, 0, el
        if ct.startswith("text/event-stream"):
            data = [ln[5:].strip() for ln in body.decode().splitlines() if ln.startswith("data:")]
            data = [d for d in data if d]
            return status, json.loads(data[-1]), len(body), el
        return status, json.loads(body), len(body), el

    def request(self, method, params=None, timeout=120):
        self.nid += 1
        msg = {"jsonrpc": "2.0", "id": self.nid, "method": method}
        if params is not None:
            msg["params"] = params
        status, m, n, el = self.post(msg, timeout=timeout)
        if m is None:
            raise RuntimeError(f"HTTP {status} for {method}")
        return m, n, el

    def initialize(self):
        m, _, _ = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "judge38", "version": "1"}})
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return m["result"]

    def close(self):
        self.p.terminate()
        try:
            self.p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.err.close()


def list_tools(client):
    tools, cursor = [], None
    while True:
        m, n, _ = client.request("tools/list", {"cursor": cursor} if cursor else {}, timeout=300)
        tools += m["result"]["tools"]
        cursor = m["result"].get("nextCursor")
        if not cursor:
            return tools, n


def call(client, name, args, timeout=120):
    m, line_bytes, el = client.request("tools/call", {"name": name, "arguments": args},
                                       timeout=timeout)
    if "result" not in m:
        return None, m, line_bytes, el
    return m["result"], nbytes(m["result"]), line_bytes, el


def texts(result):
    return [c["text"] for c in result.get("content", []) if c.get("type") == "text"]


def body_of(result, tool):
    """The API's body from structuredContent, unwrapped when the tool wraps it."""
    sc = result.get("structuredContent")
    wrapped = tool.get("_meta", {}).get("openapi-mcp/http", {}).get("output", {}).get("wrapped")
    if sc is not None and wrapped:
        return sc.get(wrapped)
    return sc


def note_of(result):
    """The budget note: structuredContent._budget_note, else the text that starts 'Partial'."""
    sc = result.get("structuredContent") or {}
    if isinstance(sc, dict) and isinstance(sc.get("_budget_note"), str):
        return sc["_budget_note"]
    for t in texts(result):
        if "Partial result" in t or "cut" in t[:200]:
            return t
    return None


def args_in(note):
    """Every JSON object in the note's text (the arguments it offers)."""
    out = []
    for m in re.finditer(r"\{[^{}]*\}", note or ""):
        try:
            out.append(json.loads(m.group(0)))
        except ValueError:
            pass
    return out


# ----------------------------------------------------------------------------------------------
# Test data.
# ----------------------------------------------------------------------------------------------

LOREM = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
         "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
         "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. ")


def make_items(n):
    return [{
        "id": i + 1,
        "name": f"item-{i + 1}",
        "owner": {"login": f"user{i % 7}", "id": 1000 + i % 7,
                  "url": f"https://example.test/users/user{i % 7}"},
        "description": (LOREM * 3)[: 400 + (i * 37) % 300],
        "meta.version": f"v{i % 3}",
        "created_at": "2024-05-01T12:00:00Z",
    } for i in range(n)]


ITEMS = make_items(300)


def png_bytes(w, h, seed):
    rnd = random.Random(seed)
    raw = b"".join(b"\x00" + bytes(rnd.getrandbits(8) for _ in range(w * 3)) for _ in range(h))

    def chunk(t, d):
        c = struct.pack(">I", len(d)) + t + d
        return c + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def wav_bytes():
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(bytes(128 + int(100 * ((i // 20) % 2 * 2 - 1)) for i in range(4000)))
    return buf.getvalue()


PNG = png_bytes(40, 40, 1)          # ~4.8 KB, does not compress
PNG_BIG = png_bytes(200, 200, 2)    # ~120 KB: over the 40,000 default once base64'd
WAV = wav_bytes()
def tgz_bytes():
    import tarfile
    rnd = random.Random(3)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, n in (("data.bin", 6000), ("README.txt", 0)):
            data = bytes(rnd.getrandbits(8) for _ in range(n)) if n else b"hello archive\n"
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = 1700000000
            tf.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


GZ = tgz_bytes()
GZ_BIG = gzip.compress(random.Random(4).randbytes(60000))
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>SECRETTOKEN123</text></svg>'
CSV_BIG = ("id,text\n" + "".join(f"{i},{LOREM}\n" for i in range(1000))).encode()
CSV = "id,name,city\n1,Zoë,Zürich\n2,Ana,São Paulo\n3,李,北京\n".encode()
CSV_LATIN1 = "id,name\n1,café crème\n2,Müller\n".encode("latin-1")
SMALL = b'{"id": 7, "name": "small", "tags": ["a", "b"], "nested": {"x": 1.5, "y": null}}'
DOCS = {
    "data": [{
        "id": i + 1,
        "title": f"doc {i + 1}",
        "content": ("Chapter %d. " % i + LOREM * 200)[:30000],
        "checksum": ("%064x" % (i + 12345)) * 20,
        "link": "https://example.test/" + "x" * 3000,
    } for i in range(2)],
    "next_cursor": "tok_page2_ABC",
}
NOTES = [{"id": i + 1, "text": (LOREM * 150)[:25000]} for i in range(2)]


def setup_upstream(up):
    def linkhdr(h, path, page, per_page, total):
        host = f"http://127.0.0.1:{up.port}"
        last = max(1, -(-total // per_page))
        parts = []
        if page < last:
            parts.append(f'<{host}{path}?page={page + 1}&per_page={per_page}>; rel="next"')
            parts.append(f'<{host}{path}?page={last}&per_page={per_page}>; rel="last"')
        if page > 1:
            parts.append(f'<{host}{path}?page={page - 1}&per_page={per_page}>; rel="prev"')
        return ", ".join(parts)

    @up.route(r"/items")
    def items(h, q, m):
        page = int(q.get("page", 1))
        per = int(q.get("per_page", 100))
        chunk = ITEMS[(page - 1) * per: page * per]
        hdrs = [("Content-Type", "application/json; charset=utf-8")]
        link = linkhdr(h, "/items", page, per, len(ITEMS))
        if link:
            hdrs.append(("Link", link))
        return 200, hdrs, json.dumps(chunk, indent=2).encode()

    @up.route(r"/cursor")
    def cursor(h, q, m):
        off = int(q.get("cursor", "o0")[1:] or 0) if q.get("cursor") else 0
        lim = int(q.get("limit", 100))
        chunk = ITEMS[off: off + lim]
        nxt = f"o{off + lim}" if off + lim < len(ITEMS) else None
        body = {"data": chunk, "next_cursor": nxt, "has_more": nxt is not None}
        return 200, [("Content-Type", "application/json")], json.dumps(body).encode()

    @up.route(r"/docs")
    def docs(h, q, m):
        return 200, [("Content-Type", "application/json")], json.dumps(DOCS).encode()

    @up.route(r"/notes")
    def notes(h, q, m):
        page = int(q.get("page", 1))
        hdrs = [("Content-Type", "application/json"),
                ("Link", linkhdr(h, "/notes", page, 2, 10))]
        return 200, hdrs, json.dumps(NOTES).encode()

    @up.route(r"/small")
    def small(h, q, m):
        return 200, [("Content-Type", "application/json")], SMALL

    @up.route(r"/png")
    def png(h, q, m):
        return 200, [("Content-Type", "image/png")], PNG

    @up.route(r"/pngbig")
    def pngbig(h, q, m):
        return 200, [("Content-Type", "image/png")], PNG_BIG

    @up.route(r"/audio")
    def audio(h, q, m):
        return 200, [("Content-Type", "audio/wav")], WAV

    @up.route(r"/archive")
    def archive(h, q, m):
        return 200, [("Content-Type", "application/gzip")], GZ

    @up.route(r"/archivebig")
    def archivebig(h, q, m):
        return 200, [("Content-Type", "application/gzip")], GZ_BIG

    @up.route(r"/svg")
    def svg(h, q, m):
        return 200, [("Content-Type", "image/svg+xml")], SVG

    @up.route(r"/csvbig")
    def csvbig(h, q, m):
        return 200, [("Content-Type", "text/csv")], CSV_BIG

    @up.route(r"/csv")
    def csv(h, q, m):
        return 200, [("Content-Type", "text/csv; charset=utf-8")], CSV

    @up.route(r"/csvlatin1")
    def csvl(h, q, m):
        return 200, [("Content-Type", "text/csv; charset=ISO-8859-1")], CSV_LATIN1

    @up.route(r"/legacy")
    def legacy(h, q, m):
        return 200, [("Content-Type", "application/json")], json.dumps(
            {"a": 1, "b": 2, "got_fields": q.get("_fields")}).encode()

    @up.route(r"/fail")
    def fail(h, q, m):
        return 500, [("Content-Type", "text/plain")], b"E" * 100000

    @up.route(r"/huge")
    def huge(h, q, m):
        body = json.dumps(make_items(1) * 1) .encode()
        big = ("[" + ",".join([json.dumps({"id": i, "s": "y" * 200}) for i in range(55000)]) + "]").encode()
        return 200, [("Content-Type", "application/json")], big  # ~12 MB

    @up.route(r"/big")
    def big(h, q, m):
        big = ("[" + ",".join([json.dumps({"id": i, "name": f"n{i}", "s": "z" * 150}) for i in range(45000)]) + "]").encode()
        return 200, [("Content-Type", "application/json")], big  # ~8.5 MB

    def sse(h, events, then_idle, tick=None, firehose=False):
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True
        for e in events:
            h.wfile.write(e.encode())
        h.wfile.flush()
        t0 = time.monotonic()
        i = 0
        while time.monotonic() - t0 < then_idle:
            if tick:
                time.sleep(tick)
                i += 1
                h.wfile.write(f"event: tick\ndata: {i}\n\n".encode())
                h.wfile.flush()
            elif firehose:
                i += 1
                h.wfile.write(f"data: {i} {'f' * 1000}\n\n".encode())
            else:
                time.sleep(0.5)
        return None

    EVENTS = [": a comment\n\n",
              "event: greeting\nid: 1\ndata: hello\n\n",
              "event: update\ndata: line one\ndata: line two\n\n",
              "data: {\"n\": 3}\n\n"]

    @up.route(r"/events")
    def events(h, q, m):
        return sse(h, EVENTS, 40)

    @up.route(r"/ticker")
    def ticker(h, q, m):
        return sse(h, EVENTS, 40, tick=0.5)

    @up.route(r"/firehose")
    def firehose(h, q, m):
        return sse(h, [], 40, firehose=True)


def item_schema():
    return {"type": "object", "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "owner": {"type": "object", "properties": {
            "login": {"type": "string"}, "id": {"type": "integer"}, "url": {"type": "string"}}},
        "description": {"type": "string"},
        "meta.version": {"type": "string"},
        "created_at": {"type": "string", "format": "date-time"},
    }}


def make_spec(base):
    def op(opid, params, content, schema=None):
        media = {content: {"schema": schema}} if schema is not None else {content: {}}
        return {"get": {"operationId": opid, "summary": opid, "parameters": params,
                        "responses": {"200": {"description": "ok", "content": media}}}}

    def qp(name, typ):
        return {"name": name, "in": "query", "schema": {"type": typ}}
    bin_ = {"type": "string", "format": "binary"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Judge38 API", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/items": op("listItems", [qp("page", "integer"), qp("per_page", "integer")],
                         "application/json", {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}),
            "/cursor": op("listCursor", [qp("cursor", "string"), qp("limit", "integer")],
                          "application/json", {"type": "object", "properties": {
                              "data": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
                              "next_cursor": {"type": "string", "nullable": True},
                              "has_more": {"type": "boolean"}}}),
            "/docs": op("listDocs", [qp("cursor", "string")], "application/json", {
                "type": "object", "properties": {
                    "data": {"type": "array", "items": {"type": "object", "properties": {
                        "id": {"type": "integer"}, "title": {"type": "string"},
                        "content": {"type": "string"},
                        "checksum": {"type": "string", "pattern": "^[0-9a-f]+$"},
                        "link": {"type": "string", "format": "uri"}}}},
                    "next_cursor": {"type": "string"}}}),
            "/notes": op("listNotes", [qp("page", "integer")], "application/json", {
                "type": "array", "items": {"type": "object", "properties": {
                    "id": {"type": "integer"}, "text": {"type": "string"}}}}),
            "/small": op("getSmall", [], "application/json", {"type": "object", "properties": {
                "id": {"type": "integer"}, "name": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "nested": {"type": "object", "properties": {"x": {"type": "number"},
                                                            "y": {"type": "string", "nullable": True}}}}}),
            "/png": op("getPng", [], "image/png", bin_),
            "/pngbig": op("getPngBig", [], "image/png", bin_),
            "/audio": op("getAudio", [], "audio/wav", bin_),
            "/archive": op("getArchive", [], "application/gzip", bin_),
            "/archivebig": op("getArchiveBig", [], "application/gzip", bin_),
            "/svg": op("getSvg", [], "image/svg+xml", {"type": "string"}),
            "/csvbig": op("getCsvBig", [], "text/csv", {"type": "string"}),
            "/csv": op("getCsv", [], "text/csv", {"type": "string"}),
            "/csvlatin1": op("getCsvLatin1", [], "text/csv", {"type": "string"}),
            "/legacy": op("getLegacy", [qp("_fields", "string")], "application/json",
                          {"type": "object", "properties": {"a": {"type": "integer"},
                                                            "b": {"type": "integer"}}}),
            "/fail": op("getFail", [], "application/json", {"type": "object"}),
            "/huge": op("getHuge", [], "application/json", {"type": "array", "items": {"type": "object"}}),
            "/big": op("getBig", [], "application/json", {"type": "array", "items": {"type": "object"}}),
            "/events": op("getEvents", [], "text/event-stream", {"type": "string"}),
            "/ticker": op("getTicker", [], "text/event-stream", {"type": "string"}),
            "/firehose": op("getFirehose", [], "text/event-stream", {"type": "string"}),
        },
        "components": {"schemas": {"Item": item_schema()}},
    }


# ----------------------------------------------------------------------------------------------
# Local checks.
# ----------------------------------------------------------------------------------------------

def by_path(tools):
    out = {}
    for t in tools:
        h = t.get("_meta", {}).get("openapi-mcp/http", {})
        out[(h.get("method"), h.get("path"))] = t
    return out


def first_ids(body, key=None):
    items = body if key is None else body[key]
    return [x["id"] for x in items]


def local_checks(bin_, up, workdir):
    spec_path = os.path.join(workdir, "judge38.openapi.json")
    json.dump(make_spec(up.base), open(spec_path, "w"), indent=1)
    env = dict(os.environ)
    hf = os.path.join(workdir, "cred.headers")
    open(hf, "w").write("X-Api-Key: SECRETTOKEN123\n")
    c = StdioClient([bin_, "serve", spec_path, "--header-file", hf], "local")
    try:
        c.initialize()
        tools, _ = list_tools(c)
        T = {k[1]: v for k, v in by_path(tools).items()}
        name = {p: t["name"] for p, t in T.items()}
        budget = 40000

        # ---- L1: long JSON list with a Link header ----
        t = T["/items"]
        res, size, line, el = call(c, name["/items"], {"per_page": 100})
        body = body_of(res, t)
        note = note_of(res)
        ok_json = all(json.loads(x) is not None for x in texts(res) if x.strip().startswith(("[", "{")))
        kept = len(body) if isinstance(body, list) else None
        m = re.search(r"(\d+) of (\d+) items", note or "")
        valid, how = validate(res.get("structuredContent"), t["outputSchema"])
        offered = args_in(note)
        record("L1 long list + Link: within budget", size <= budget and not res.get("isError"),
               f"result {size} B (budget {budget}); uncut answer would be ~{nbytes(ITEMS[:100]) * 2} B for both copies")
        record("L1 long list + Link: cut to valid JSON, first items kept",
               kept is not None and 0 < kept < 100 and first_ids(body) == list(range(1, kept + 1)) and ok_json,
               f"kept {kept} items, ids 1..{kept}; every text block that looks like JSON parses: {ok_json}")
        record("L1 long list + Link: says 'N of M items'",
               bool(m) and int(m.group(1)) == kept and int(m.group(2)) == 100,
               f"note: {note!r}")
        record("L1 long list + Link: structuredContent valid against outputSchema", valid, how)
        sc = res.get("structuredContent")
        jtexts = []
        for x in texts(res):
            try:
                jtexts.append(json.loads(x))
            except ValueError:
                pass
        record("L1 text copy holds the same cut items; note in structuredContent._budget_note", None,
               f"structuredContent keys {sorted(sc)}; text blocks {len(texts(res))} "
               f"(json ones: {len(jtexts)}, equal to the cut list: {any(j == body or j == sc for j in jtexts)}); "
               f"outputSchema top-level properties {sorted(t['outputSchema'].get('properties', {}))}, "
               f"additionalProperties {t['outputSchema'].get('additionalProperties', 'absent')}")
        # follow what the note offers: do the offered arguments give the rest, with no gap or dup?
        cont = next((a for a in offered if "page" in a or "per_page" in a), None)
        if cont:
            args = dict({"per_page": 100}, **cont)
            r2, s2, _, _ = call(c, name["/items"], args)
            b2 = body_of(r2, t)
            ids2 = first_ids(b2)
            per, page = args.get("per_page", 100), args.get("page", 1)
            record("L1 long list + Link: offered arguments continue where the cut stopped",
                   ids2 and ids2[0] == kept + 1,
                   f"offered {cont}; that call's first id {ids2[0] if ids2 else None} (expected {kept + 1}), "
                   f"{len(ids2)} items, result {s2} B, note: {note_of(r2)!r}")
        else:
            record("L1 long list + Link: offered arguments continue where the cut stopped", False,
                   f"no page arguments in note {note!r}")
        # from page 2: do the offered arguments point at item 100+kept+1?
        r3, s3, _, _ = call(c, name["/items"], {"per_page": 100, "page": 2})
        b3, n3 = body_of(r3, t), note_of(r3)
        k3 = len(b3)
        off3 = [a for a in args_in(n3) if "page" in a or "per_page" in a]
        detail = f"page 2: kept {k3}; note {n3!r}"
        ok3 = True
        if off3 and "page" in off3[0]:
            a3 = dict({"per_page": 100, "page": 2}, **off3[0])
            r4, _, _, _ = call(c, name["/items"], a3)
            ids4 = first_ids(body_of(r4, t))
            ok3 = ids4[0] == 100 + k3 + 1
            detail += f"; following {off3[0]} gives first id {ids4[0]} (expected {100 + k3 + 1})"
        record("L1b page 2 cut: continuation arguments correct", ok3, detail)

        # ---- L1c: page fits but strings shortened -> next page from the Link header ----
        t = T["/notes"]
        res, size, _, _ = call(c, name["/notes"], {})
        body, note = body_of(res, t), note_of(res)
        offered = args_in(note)
        cut_marks = [bool(re.search(r"…\[cut [\d,]+ characters\]$", x["text"])) for x in body or []]
        valid, how = validate(res.get("structuredContent"), t["outputSchema"])
        record("L1c whole page, long strings, Link next: next page's arguments offered",
               size <= budget and len(body) == 2 and all(cut_marks) and {"page": 2} in offered and valid,
               f"result {size} B, items {len(body)}, strings end in cut marker {cut_marks}, offered {offered}; {how}; note {note!r}")

        # ---- L2: cursor-paginated list ----
        t = T["/cursor"]
        res, size, _, _ = call(c, name["/cursor"], {"limit": 100})
        body, note = body_of(res, t), note_of(res)
        kept = len(body["data"])
        valid, how = validate(res.get("structuredContent"), t["outputSchema"])
        offered = args_in(note)
        record("L2 cursor list over budget: cut, said, valid",
               size <= budget and 0 < kept < 100 and f"{kept} of 100 items" in (note or "") and valid,
               f"result {size} B, kept {kept}; {how}; note {note!r}")
        lim = next((a.get("limit") for a in offered if "limit" in a), None)
        if lim:
            r2, s2, _, _ = call(c, name["/cursor"], {"limit": lim})
            b2 = body_of(r2, t)
            nc = b2.get("next_cursor")
            r3, s3, _, _ = call(c, name["/cursor"], {"limit": lim, "cursor": nc})
            b3 = body_of(r3, t)
            ok = first_ids(b2, "data") == list(range(1, lim + 1)) and b3["data"][0]["id"] == lim + 1
            record("L2 cursor list: offered {limit: K} then the answer's next_cursor gets the rest",
                   ok, f"limit {lim}: {s2} B, ids 1..{len(b2['data'])}, next_cursor {nc!r} -> first id {b3['data'][0]['id']}")
        else:
            record("L2 cursor list: offered {limit: K}", False, f"offered {offered}")
        # long strings, whole page, cursor in body
        t = T["/docs"]
        res, size, _, _ = call(c, name["/docs"], {})
        body, note = body_of(res, t), note_of(res)
        offered = args_in(note)
        valid, how = validate(res.get("structuredContent"), t["outputSchema"])
        d0 = body["data"][0]
        constrained_whole = all(x["checksum"] == DOCS["data"][i]["checksum"] and x["link"] == DOCS["data"][i]["link"]
                                for i, x in enumerate(body["data"]))
        record("L2b cursor in body, strings cut: next cursor argument offered",
               size <= budget and {"cursor": "tok_page2_ABC"} in offered and valid,
               f"result {size} B; offered {offered}; {how}; note {note!r}")
        record("L2c only unconstrained strings shortened (pattern / format strings kept whole)",
               constrained_whole and d0["content"] != DOCS["data"][0]["content"]
               and re.search(r"…\[cut [\d,]+ characters\]$", d0["content"]) is not None,
               f"checksum(pattern)+link(format uri) whole: {constrained_whole}; content {len(d0['content'])} chars, ends {d0['content'][-30:]!r}")

        # ---- L3: _fields ----
        t = T["/items"]
        fp = t["inputSchema"].get("properties", {}).get("_fields")
        record("L3 _fields advertised on JSON object/array tools, not on binary/text ones",
               fp is not None and "_fields" in T["/cursor"]["inputSchema"]["properties"]
               and "_fields" not in T["/png"]["inputSchema"].get("properties", {})
               and "_fields" not in T["/csv"]["inputSchema"].get("properties", {}),
               f"listItems _fields schema: {json.dumps(fp)[:200]}")
        n0 = up.count("/items")
        res, size, _, _ = call(c, name["/items"], {"per_page": 100, "_fields": ["id", "name", "owner.login"]})
        body = body_of(res, t)
        exact = all(set(x) == {"id", "name", "owner"} and set(x["owner"]) == {"login"} for x in body)
        txt = [x for x in texts(res) if x.startswith("[") or x.startswith("{")]
        txt_ok = bool(txt) and json.loads(txt[0]) in (body, res.get("structuredContent"))
        valid, how = validate(res.get("structuredContent"), t["outputSchema"])
        sent_q = [p for _, p in up.hits[n0:]]
        record("L3 _fields keeps only those fields (all items), text copy matches, valid",
               exact and len(body) == 100 and valid and txt_ok and "_fields" not in "".join(sent_q),
               f"{len(body)} items, exactly id/name/owner.login: {exact}; result {size} B; text copy = structured: {txt_ok}; "
               f"upstream got {sent_q}; {how}")
        res, size, _, _ = call(c, name["/items"], {"per_page": 5, "_fields": ["meta\\.version"]})
        body = body_of(res, t)
        record("L3 _fields key with a dot (meta\\.version)",
               body and all(set(x) == {"meta.version"} for x in body), f"{body}")
        for bad in (["id", "nope"], ["owner.nope"], ["owner.login.x.y"]):
            n0 = up.count()
            res, size, _, _ = call(c, name["/items"], {"_fields": bad})
            n1 = up.count()
            msg = " ".join(texts(res))
            record(f"L3 unknown _fields path {bad} refused, nothing sent",
                   res.get("isError") is True and n1 == n0 and bad[-1].split(".")[-1] in msg,
                   f"isError {res.get('isError')}, upstream hits +{n1 - n0}; message {msg[:300]!r}")
        # operation with its own _fields argument
        res, size, _, _ = call(c, name["/legacy"], {"_fields": "a"})
        body = res.get("structuredContent") or {}
        record("L3 operation's own _fields wins (sent, no projection)",
               body.get("got_fields") == "a" and body.get("b") == 2,
               f"structuredContent {body}")

        # ---- L4: small answer unchanged ----
        t = T["/small"]
        res, size, _, _ = call(c, name["/small"], {})
        sc = res.get("structuredContent")
        tx = texts(res)
        record("L4 small answer unchanged",
               sc == json.loads(SMALL) and len(tx) == 1 and json.loads(tx[0]) == json.loads(SMALL)
               and note_of(res) is None,
               f"structuredContent == body: {sc == json.loads(SMALL)}; text blocks {len(tx)}; "
               f"text byte-identical to the API's body: {tx[0].encode() == SMALL if tx else None}; result {size} B")

        # ---- L5: PNG ----
        res, size, _, _ = call(c, name["/png"], {})
        imgs = [x for x in res["content"] if x["type"] == "image"]
        same = bool(imgs) and base64.b64decode(imgs[0]["data"]) == PNG
        record("L5 PNG as image content, same bytes",
               same and imgs[0].get("mimeType") == "image/png" and not res.get("isError"),
               f"{len(PNG)} B png; content types {[x['type'] for x in res['content']]}, mimeType {imgs[0].get('mimeType') if imgs else None}, "
               f"same bytes {same}; result {size} B; text {texts(res)}")
        res, size, _, _ = call(c, name["/pngbig"], {})
        record("L5b PNG over budget described, not sent",
               size <= budget and not any(x["type"] == "image" for x in res["content"]),
               f"{len(PNG_BIG)} B png -> result {size} B: {texts(res)}")

        # ---- L6: audio ----
        res, size, _, _ = call(c, name["/audio"], {})
        au = [x for x in res["content"] if x["type"] == "audio"]
        same = bool(au) and base64.b64decode(au[0]["data"]) == WAV
        record("L6 audio as audio content, same bytes",
               same and au[0].get("mimeType") == "audio/wav",
               f"{len(WAV)} B wav; content {[x['type'] for x in res['content']]}, mimeType {au[0].get('mimeType') if au else None}, same {same}; result {size} B")

        # ---- L7: gzip archive ----
        res, size, _, _ = call(c, name["/archive"], {})
        rs = [x for x in res["content"] if x["type"] == "resource"]
        r0 = rs[0]["resource"] if rs else {}
        same = "blob" in r0 and base64.b64decode(r0["blob"]) == GZ
        record("L7 gzip as resource blob, same bytes and MIME type",
               same and r0.get("mimeType") == "application/gzip" and bool(r0.get("uri")),
               f"{len(GZ)} B gzip; uri {r0.get('uri')!r}, mimeType {r0.get('mimeType')!r}, same bytes {same}; result {size} B")

        # ---- L8: CSV ----
        res, size, _, _ = call(c, name["/csv"], {})
        tx = texts(res)
        record("L8 CSV as text", CSV.decode() in tx and not res.get("isError"), f"text blocks {tx!r}")
        res, size, _, _ = call(c, name["/csvlatin1"], {})
        tx = texts(res)
        record("L8b CSV in ISO-8859-1 decoded", CSV_LATIN1.decode("latin-1") in tx, f"text blocks {tx!r}")

        res, size, _, _ = call(c, name["/csvbig"], {})
        tx = texts(res)
        record("L8c long CSV cut to the budget with a marker",
               size <= budget and any(re.search(r"cut: [\d,]+ of [\d,]+ characters sent", x) for x in tx),
               f"{len(CSV_BIG):,} B csv -> result {size:,} B; end of text {tx[-1][-90:]!r}")
        res, size, _, _ = call(c, name["/svg"], {})
        tx = " ".join(texts(res))
        record("L8d SVG stays text, credential masked",
               "<svg" in tx and "SECRETTOKEN123" not in tx and "***" in tx
               and not any(x["type"] == "image" for x in res["content"]),
               f"content {[x['type'] for x in res['content']]}: {tx[:200]!r}")
        res, size, _, _ = call(c, name["/archivebig"], {})
        record("L7b archive over budget described, not sent",
               size <= budget and not any(x["type"] == "resource" for x in res["content"]),
               f"{len(GZ_BIG):,} B gzip -> result {size} B: {texts(res)}")
        # _fields on an object answer, and the empty list
        t = T["/cursor"]
        res, size, _, _ = call(c, name["/cursor"], {"limit": 3, "_fields": ["data.id", "next_cursor"]})
        b = body_of(res, t)
        record("L3 _fields on an object answer (data.id, next_cursor)",
               set(b) == {"data", "next_cursor"} and all(set(x) == {"id"} for x in b["data"]),
               f"{b}")
        res, size, _, _ = call(c, name["/cursor"], {"limit": 3, "_fields": []})
        b = body_of(res, t)
        record("L3 _fields [] gives the whole answer", set(b) == {"data", "next_cursor", "has_more"} and set(b["data"][0]) == set(ITEMS[0]),
               f"keys {sorted(b)}")

        # ---- L9: event stream that stays open ----
        res, size, _, el = call(c, name["/events"], {}, timeout=60)
        tx = "\n".join(texts(res))
        ok = el < 5 and "greeting" in tx and "hello" in tx and "line one" in tx and "line two" in tx and '{"n": 3}' in tx
        record("L9 open event stream returns within 5 s with events", ok and not res.get("isError"),
               f"{el:.2f} s; result {size} B; text {tx[:400]!r}")
        res, size, _, el = call(c, name["/ticker"], {}, timeout=60)
        record("L9b event stream that keeps sending (one event / 0.5 s)", None,
               f"returned after {el:.2f} s (README: 10 s cap); result {size} B; first line {texts(res)[0][:160]!r}")
        res, size, _, el = call(c, name["/firehose"], {}, timeout=60)
        record("L9c event firehose stops at the budget", size <= budget and el < 5,
               f"{el:.2f} s; result {size} B; first line {texts(res)[0][:160]!r}")

        # ---- extras: error bound, 10 MB cap, memory ----
        res, size, _, _ = call(c, name["/fail"], {})
        record("X1 error body keeps its own short bound", res.get("isError") is True and size < 10000,
               f"100,000 B error body -> result {size} B: {texts(res)[0][:120]!r}")
        res, size, _, el = call(c, name["/big"], {}, timeout=120)
        vm = open(f"/proc/{c.p.pid}/status").read()
        hwm = re.search(r"VmHWM:\s+(\d+) kB", vm).group(1)
        record("X2 8.5 MB JSON list -> within budget", size <= budget and not res.get("isError"),
               f"result {size} B in {el:.2f} s; note {note_of(res)!r}; serve peak RSS (VmHWM) {int(hwm) // 1024} MiB")
        res, size, _, el = call(c, name["/huge"], {}, timeout=120)
        record("X3 answer over 10 MB refused", res.get("isError") is True,
               f"~12 MB answer -> isError {res.get('isError')}: {texts(res)[0][:160]!r}")
    finally:
        c.close()

    # ---- budget flag and result-copies ----
    c = StdioClient([bin_, "serve", spec_path, "--max-result-bytes", "15000"], "local-15000")
    try:
        c.initialize()
        tools, _ = list_tools(c)
        T = {k[1]: v for k, v in by_path(tools).items()}
        res, size, _, _ = call(c, T["/items"]["name"], {"per_page": 100})
        b = body_of(res, T["/items"])
        record("B1 --max-result-bytes 15000 honoured", size <= 15000 and 0 < len(b) < 100,
               f"result {size} B, {len(b)} items; note {note_of(res)!r}")
    finally:
        c.close()
    c = StdioClient([bin_, "serve", spec_path, "--result-copies", "structured"], "local-structured")
    try:
        c.initialize()
        tools, _ = list_tools(c)
        T = {k[1]: v for k, v in by_path(tools).items()}
        res, size, _, _ = call(c, T["/items"]["name"], {"per_page": 100})
        b = body_of(res, T["/items"])
        record("B2 --result-copies structured: one copy, about twice the items", None,
               f"result {size} B, {len(b)} items, content blocks {[x['type'] + ':' + str(len(x.get('text', ''))) for x in res['content']]}")
    finally:
        c.close()
    # hints-file budget
    hints = os.path.join(workdir, "judge38.hints.yaml")
    open(hints, "w").write("tools:\n  list_items:\n    maxResultBytes: 100000\n")
    c = StdioClient([bin_, "serve", spec_path, "--hints", hints], "local-hints")
    try:
        c.initialize()
        tools, _ = list_tools(c)
        T = {k[1]: v for k, v in by_path(tools).items()}
        meta = T["/items"].get("_meta", {}).get("anthropic/maxResultSizeChars")
        res, size, _, _ = call(c, T["/items"]["name"], {"per_page": 100})
        b = body_of(res, T["/items"])
        record("B3 hints maxResultBytes raises the tool's budget and sets anthropic/maxResultSizeChars",
               meta == 100000 and 40000 < size <= 100000,
               f"_meta maxResultSizeChars {meta}; result {size} B, {len(b)} items")
    finally:
        c.close()
    # tools/list equals convert
    out = subprocess.run([bin_, "convert", spec_path, "--format", "json"], capture_output=True, timeout=120)
    conv = json.loads(out.stdout)["tools"] if out.returncode == 0 else None
    c = StdioClient([bin_, "serve", spec_path], "local-list")
    try:
        c.initialize()
        tools, _ = list_tools(c)
    finally:
        c.close()
    record("B4 tools/list is what convert prints (with _fields)", conv == tools,
           f"convert rc {out.returncode}, {len(conv or [])} tools; equal {conv == tools}")
    # ---- the same content through --dynamic and over --http ----
    for mode in ("dynamic", "http"):
        if mode == "dynamic":
            c = StdioClient([bin_, "serve", spec_path, "--dynamic"], "local-dynamic")
        else:
            c = HttpClient([bin_, "serve", spec_path, "--http", "127.0.0.1:0"], "local-http",
                           "tok-" + os.urandom(6).hex(), dict(os.environ))
        try:
            c.initialize()
            tools, _ = list_tools(c)

            def run(op, args, timeout=60):
                if mode == "dynamic":
                    return call(c, "call_read_operation", {"name": op, "arguments": args}, timeout)
                return call(c, op, args, timeout)
            res, size, _, _ = run("list_items", {"per_page": 100})
            note = note_of(res) or ""
            sc = res.get("structuredContent") or {}
            items = sc.get("result") if isinstance(sc, dict) else None
            ok1 = size <= 40000 and "of 100 items" in note and isinstance(items, list) and 0 < len(items) < 100
            res, s2, _, _ = run("get_png", {})
            imgs = [x for x in res["content"] if x["type"] == "image"]
            ok2 = bool(imgs) and base64.b64decode(imgs[0]["data"]) == PNG
            res, s3, _, _ = run("get_archive", {})
            rs = [x["resource"] for x in res["content"] if x["type"] == "resource"]
            ok3 = bool(rs) and base64.b64decode(rs[0]["blob"]) == GZ and rs[0]["mimeType"] == "application/gzip"
            res, s4, _, el = run("get_events", {})
            ok4 = el < 5 and "hello" in " ".join(texts(res))
            res, s5, _, _ = run("get_audio", {})
            ok5 = any(x["type"] == "audio" and base64.b64decode(x["data"]) == WAV for x in res["content"])
            res, s6, _, _ = run("get_csv", {})
            ok6 = CSV.decode() in texts(res)
            res, s7, _, _ = run("list_items", {"per_page": 100, "_fields": ["id", "owner.login"]})
            sc = res.get("structuredContent") or {}
            b7 = sc.get("result") if isinstance(sc, dict) else None
            ok7 = isinstance(b7, list) and len(b7) == 100 and all(set(x) == {"id", "owner"} for x in b7)
            record(f"P {mode}: cut list, PNG, gzip, events, audio, CSV, _fields as over stdio",
                   all([ok1, ok2, ok3, ok4, ok5, ok6, ok7]),
                   f"list {size} B note ok {ok1}; png {ok2} ({s2} B); gzip {ok3}; events {ok4} ({el:.2f} s); "
                   f"audio {ok5}; csv {ok6}; _fields {ok7} ({s7} B)")
        finally:
            c.close()
    # ---- _fields below a definition cut to a stub by the schema budget ----
    spec = make_spec(up.base)
    spec["components"]["schemas"]["Owner"] = {"type": "object", "properties": {
        f"field_{i}": {"type": "string", "description": "d" * 40} for i in range(40)}}
    spec["components"]["schemas"]["Item"]["properties"]["owner"] = {"$ref": "#/components/schemas/Owner"}
    sp2 = os.path.join(workdir, "stub.openapi.json")
    json.dump(spec, open(sp2, "w"))
    c = StdioClient([bin_, "serve", sp2, "--schema-budget", "900"], "local-stub")
    try:
        c.initialize()
        tools, _ = list_tools(c)
        t = {k[1]: v for k, v in by_path(tools).items()}["/items"]
        stub = "not expanded" in json.dumps(t["outputSchema"].get("$defs", {}).get("Owner", {}))
        n0 = up.count()
        res, size, _, _ = call(c, t["name"], {"per_page": 2, "_fields": ["id", "owner.login", "owner.not.declared"]})
        valid, how = validate(res.get("structuredContent"), t["outputSchema"]) if res.get("structuredContent") else (False, "")
        record("L3 _fields path under a schema-budget stub accepted",
               stub and not res.get("isError") and up.count() == n0 + 1 and valid,
               f"Owner is a stub: {stub}; isError {res.get('isError')}; {json.dumps(res.get('structuredContent'))[:160]}; {how}")
    finally:
        c.close()
    # ---- resource uri masked like any URL ----
    spec = make_spec(up.base)
    spec["components"]["securitySchemes"] = {"qkey": {"type": "apiKey", "in": "query", "name": "api_key"}}
    spec["security"] = [{"qkey": []}]
    sp3 = os.path.join(workdir, "qkey.openapi.json")
    json.dump(spec, open(sp3, "w"))
    c = StdioClient([bin_, "serve", sp3], "local-qkey", env=dict(os.environ, OPENAPI_MCP_QKEY="SUPERSECRETQ"))
    try:
        c.initialize()
        tools, _ = list_tools(c)
        t = {k[1]: v for k, v in by_path(tools).items()}["/archive"]
        res, size, _, _ = call(c, t["name"], {})
        rs = [x["resource"] for x in res["content"] if x["type"] == "resource"]
        uri = rs[0]["uri"] if rs else None
        record("L7c resource uri masked (query credential)",
               uri is not None and "SUPERSECRETQ" not in jdump(res) and "***" in uri
               and "SUPERSECRETQ" in up.hits[-1][1],
               f"uri {uri!r}; upstream got {up.hits[-1][1]!r}")
    finally:
        c.close()
    return spec_path


# ----------------------------------------------------------------------------------------------
# GitHub: real recorded responses under GitHub's own spec.
# ----------------------------------------------------------------------------------------------

def github_page(fixtures):
    raw = json.load(open(os.path.join(fixtures, "paginate-issues", "raw-fixture.json")))
    distinct = {}
    for r in raw:
        if r["method"] == "get" and isinstance(r["response"], list):
            for it in r["response"]:
                distinct.setdefault(it["number"], it)
    base = [distinct[k] for k in sorted(distinct, reverse=True)]
    total = 250
    issues = []
    for i in range(total):
        it = copy.deepcopy(base[i % len(base)])
        old, new = it["number"], total - i
        s = json.dumps(it).replace(f"/issues/{old}\"", f"/issues/{new}\"").replace(
            f"/issues/{old}/", f"/issues/{new}/")
        it = json.loads(s)
        it["number"] = new
        issues.append(it)
    arch = json.load(open(os.path.join(fixtures, "get-archive", "raw-fixture.json")))
    tar = next(r for r in arch if "legacy.tar.gz" in r["path"])
    tar_bytes = bytes.fromhex(tar["response"])
    tar_ct = dict(zip(tar["rawHeaders"][::2], tar["rawHeaders"][1::2]))["Content-Type"]
    return issues, len(base), tar_bytes, tar_ct


def github_checks(bin_, gh_spec, fixtures):
    issues, ndistinct, tar_bytes, tar_ct = github_page(fixtures)
    page1 = json.dumps(issues[:100], separators=(",", ":")).encode()
    record("G0 recorded page", None,
           f"100 issues built from {ndistinct} distinct real recorded issue objects "
           f"(@octokit/fixtures paginate-issues, GET /repos/.../issues responses), cycled, `number` and "
           f"its /issues/N URLs rewritten so items can be told apart; page 1 is {len(page1):,} B compact JSON; "
           f"real recorded tarball {len(tar_bytes)} B {tar_ct}")
    up = Upstream()

    @up.route(r"/repos/([^/]+)/([^/]+)/issues")
    def gh_issues(h, q, m):
        page = int(q.get("page", 1))
        per = int(q.get("per_page", 30))
        chunk = issues[(page - 1) * per: page * per]
        last = -(-len(issues) // per)
        link = []
        if page < last:
            link.append(f'<{up.base}/repositories/515435940/issues?per_page={per}&page={page + 1}>; rel="next"')
            link.append(f'<{up.base}/repositories/515435940/issues?per_page={per}&page={last}>; rel="last"')
        hdrs = [("Content-Type", "application/json; charset=utf-8"),
                ("X-GitHub-Media-Type", "github.v3; format=json")]
        if link:
            hdrs.append(("Link", ", ".join(link)))
        return 200, hdrs, json.dumps(chunk, separators=(",", ":")).encode()

    @up.route(r"/repos/([^/]+)/([^/]+)/tarball/(.+)")
    def gh_tar(h, q, m):
        return 200, [("Content-Type", tar_ct),
                     ("content-disposition", "attachment; filename=x.tar.gz")], tar_bytes

    env = dict(os.environ)
    args = {"owner": "octokit-fixture-org", "repo": "hello-world", "per_page": 100}
    fields = ["number", "title", "user.login"]

    def judge_list(tag, res, size, out_schema, wrapped):
        sc = res.get("structuredContent")
        body = sc.get(wrapped) if (wrapped and sc) else sc
        note = note_of(res)
        valid, how = validate(sc, out_schema) if out_schema else (None, "no outputSchema")
        kept = len(body) if isinstance(body, list) else None
        offered = args_in(note)
        record(f"{tag} 100-issue page within 100,000 B, partial, how to continue, valid",
               size <= 100000 and not res.get("isError") and kept and kept < 100
               and f"of 100 items" in (note or "") and bool(offered) and valid is not False,
               f"result {size:,} B (API answer {len(page1):,} B); kept {kept}; offered {offered}; {how}; note {note!r}")
        return kept, offered, body

    def judge_fields(tag, res, size, out_schema, wrapped):
        sc = res.get("structuredContent")
        body = sc.get(wrapped) if (wrapped and sc) else sc
        valid, how = validate(sc, out_schema) if out_schema else (None, "no outputSchema")
        exact = isinstance(body, list) and all(
            set(x) == {"number", "title", "user"} and set(x["user"]) == {"login"} for x in body)
        right = isinstance(body, list) and [x["number"] for x in body] == [x["number"] for x in issues[:100]] \
            and all(x["title"] == y["title"] and x["user"]["login"] == y["user"]["login"] for x, y in zip(body, issues))
        record(f"{tag} _fields number,title,user.login: exactly those, all 100, within 20 KB",
               exact and right and len(body) == 100 and size <= 20000 and valid is not False
               and note_of(res) is None,
               f"result {size:,} B; {len(body) if isinstance(body, list) else None} items; exactly those keys {exact}; "
               f"values equal the recorded ones {right}; {how}")

    # --- stdio ---
    t0 = time.monotonic()
    c = StdioClient([bin_, "serve", gh_spec, "--base-url", up.base], "github-stdio")
    try:
        c.initialize()
        tools, list_bytes = list_tools(c)
        startup = time.monotonic() - t0
        P = by_path(tools)
        t = P[("GET", "/repos/{owner}/{repo}/issues")]
        wrapped = t["_meta"]["openapi-mcp/http"].get("output", {}).get("wrapped")
        record("G0 serve GitHub spec", None,
               f"{len(tools)} tools, tools/list {list_bytes:,} B, up in {startup:.1f} s; issues tool {t['name']!r}, "
               f"wrapped {wrapped!r}, _fields in inputSchema: {'_fields' in t['inputSchema']['properties']}")
        res, size, line, el = call(c, t["name"], args)
        kept, offered, body = judge_list("G1 stdio", res, size, t.get("outputSchema"), wrapped)
        if body and [x["number"] for x in body] != [x["number"] for x in issues[:kept]]:
            record("G1 stdio first items kept in order", False, "items differ from the page's first")
        cont = next((a for a in offered if "page" in a), None)
        if cont:
            r2, s2, _, _ = call(c, t["name"], dict(args, **cont))
            b2 = r2["structuredContent"].get(wrapped) if wrapped else r2["structuredContent"]
            expected = issues[kept]["number"]
            record("G1b stdio continuation arguments get the next issue",
                   b2 and b2[0]["number"] == expected,
                   f"called with {cont}: first number {b2[0]['number'] if b2 else None}, expected {expected}; result {s2:,} B")
        res, size, _, el = call(c, t["name"], dict(args, _fields=fields))
        judge_fields("G2 stdio", res, size, t.get("outputSchema"), wrapped)
        tt = P.get(("GET", "/repos/{owner}/{repo}/tarball/{ref}"))
        if tt:
            res, size, _, _ = call(c, tt["name"], {"owner": "o", "repo": "r", "ref": "main"})
            rs = [x["resource"] for x in res.get("content", []) if x["type"] == "resource"]
            same = bool(rs) and base64.b64decode(rs[0].get("blob", "")) == tar_bytes
            record("G3 real recorded tarball as resource blob, same bytes and MIME type",
                   same and rs[0].get("mimeType") == tar_ct,
                   f"{len(tar_bytes)} B; mimeType {rs[0].get('mimeType') if rs else None!r}, same {same}, uri {rs[0].get('uri') if rs else None!r}; isError {res.get('isError')}")
    finally:
        c.close()

    # --- http ---
    token = "judge38-" + os.urandom(8).hex()
    h = HttpClient([bin_, "serve", gh_spec, "--base-url", up.base, "--http", "127.0.0.1:0"],
                   "github-http", token, env)
    try:
        st, _, _, _ = h.post({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}, token=None)
        st2, _, _, _ = h.post({"jsonrpc": "2.0", "id": 98, "method": "tools/list"}, token="wrong")
        record("H0 --http refuses a missing / wrong bearer token", st == 401 and st2 == 401,
               f"no token: HTTP {st}; wrong token: HTTP {st2}")
        h.initialize()
        tools, _ = list_tools(h)
        t = by_path(tools)[("GET", "/repos/{owner}/{repo}/issues")]
        wrapped = t["_meta"]["openapi-mcp/http"].get("output", {}).get("wrapped")
        res, size, _, _ = call(h, t["name"], args)
        judge_list("H1 http", res, size, t.get("outputSchema"), wrapped)
        res, size, _, _ = call(h, t["name"], dict(args, _fields=fields))
        judge_fields("H2 http", res, size, t.get("outputSchema"), wrapped)
    finally:
        h.close()

    # --- dynamic ---
    c = StdioClient([bin_, "serve", gh_spec, "--base-url", up.base, "--dynamic"], "github-dynamic")
    try:
        c.initialize()
        tools, list_bytes = list_tools(c)
        names = [x["name"] for x in tools]
        res, _, _, _ = call(c, "search_operations", {"query": "list repository issues"})
        opname = "issues_list_for_repo"
        res, size, _, _ = call(c, "describe_operation", {"name": opname})
        desc_txt = " ".join(texts(res))
        try:
            d = res.get("structuredContent") or json.loads(desc_txt)
        except ValueError:
            d = {}
        d = d.get("tool", d) if isinstance(d, dict) else {}
        has_fields = "_fields" in d.get("inputSchema", {}).get("properties", {})
        record("D0 --dynamic: 4 tools; describe_operation shows _fields",
               len(tools) == 4 and has_fields,
               f"tools {names} ({list_bytes:,} B); describe_operation {opname}: _fields in inputSchema {has_fields}; "
               f"description of _fields {json.dumps(d.get('inputSchema', {}).get('properties', {}).get('_fields'))[:200]}")
        out_schema = d.get("outputSchema")
        wrapped = d.get("_meta", {}).get("openapi-mcp/http", {}).get("output", {}).get("wrapped")
        res, size, _, _ = call(c, "call_read_operation", {"name": opname, "arguments": args})
        judge_list("D1 dynamic call_read_operation", res, size, out_schema, wrapped)
        res, size, _, _ = call(c, "call_read_operation", {"name": opname, "arguments": dict(args, _fields=fields)})
        judge_fields("D2 dynamic call_read_operation", res, size, out_schema, wrapped)
        n0 = up.count()
        res, size, _, _ = call(c, "call_operation", {"name": opname, "arguments": dict(args, _fields=["number", "nope"])})
        record("D3 dynamic: unknown _fields path refused, nothing sent",
               res.get("isError") is True and up.count() == n0,
               f"isError {res.get('isError')}, upstream +{up.count() - n0}: {' '.join(texts(res))[:200]!r}")
    finally:
        c.close()
    up.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--gh-spec", default=os.path.join(HERE, "data/oa/package/generated/api.github.com.json"))
    ap.add_argument("--fixtures", default=os.path.join(HERE, "data/fx/package/scenarios/api.github.com"))
    ap.add_argument("--skip-github", action="store_true")
    ap.add_argument("--skip-local", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "results.json"))
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    workdir = tempfile.mkdtemp(prefix="judge38-", dir=HERE)
    try:
        if not a.skip_local:
            up = Upstream()
            setup_upstream(up)
            try:
                local_checks(a.bin, up, workdir)
            except Exception as e:
                import traceback
                traceback.print_exc()
                record("local checks", False, f"aborted: {e!r}")
            up.stop()
        if not a.skip_github:
            try:
                github_checks(a.bin, a.gh_spec, a.fixtures)
            except Exception as e:
                import traceback
                traceback.print_exc()
                record("github checks", False, f"aborted: {e!r}")
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.kill()
                p.wait()
    json.dump(RESULTS, open(a.out, "w"), indent=1, ensure_ascii=False)
    fails = [r for r in RESULTS if r["status"] == "FAIL"]
    print(f"\n{sum(r['status'] == 'PASS' for r in RESULTS)} PASS, {len(fails)} FAIL, "
          f"{sum(r['status'] == 'INFO' for r in RESULTS)} INFO; details in {a.out}")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
