"""Shared machinery for the openapi-mcp serve probe harness (issue #39).

Python 3 stdlib only. Everything listens on 127.0.0.1.
"""
import base64, html, http.client, json, os, queue, re, resource, select, socket
import subprocess, sys, tempfile, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BIN = None
WORK = None
PROCS = []          # every serve process started, killed at the end
SERVERS = []        # every listener started, shut at the end
RESULTS = []
VERBOSE = os.environ.get("PROBE_VERBOSE") == "1"


def setup(bin_path):
    global BIN, WORK
    BIN = os.path.abspath(bin_path)
    base = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tmp")
    os.makedirs(base, exist_ok=True)
    WORK = tempfile.mkdtemp(prefix="run-", dir=base)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    except Exception:
        pass


def check(cid, what, ok, evidence=""):
    RESULTS.append((cid, bool(ok)))
    if ok:
        print(f"PASS {cid} {what}", flush=True)
    else:
        ev = str(evidence)
        if len(ev) > 1500:
            ev = ev[:1500] + f"...[{len(ev)} chars]"
        print(f"FAIL {cid} {what}\n      evidence: {ev}", flush=True)


def info(msg):
    print(f"INFO {msg}", flush=True)


def cleanup():
    for p in PROCS:
        try:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)
        except Exception:
            pass
    for s in SERVERS:
        try:
            s.shutdown()
            s.server_close()
        except Exception:
            pass


def wfile(name, content):
    path = os.path.join(WORK, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(content, (bytes, bytearray)) else "w"
    with open(path, mode) as f:
        if isinstance(content, (dict, list)):
            json.dump(content, f)
        else:
            f.write(content)
    return path


def vmhwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024   # MiB
    except Exception:
        return None
    return None


# ---------------------------------------------------------------- fake upstream

class Upstream:
    """A local HTTP API. routes: list of (prefix, fn(req) -> None); fn writes via req helpers."""

    def __init__(self, host="127.0.0.1"):
        self.routes = []
        self.log = []
        self.lock = threading.Lock()
        up = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *a):
                pass

            def _any(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = b""
                while len(body) < n:
                    chunk = self.rfile.read(min(1 << 20, n - len(body)))
                    if not chunk:
                        break
                    body += chunk
                self.body = body
                with up.lock:
                    up.log.append({"method": self.command, "path": self.path,
                                   "headers": {k.lower(): v for k, v in self.headers.items()},
                                   "rawheaders": list(self.headers.items()),
                                   "body": body if len(body) < 65536 else body[:65536],
                                   "bodylen": len(body)})
                for prefix, fn in up.routes:
                    if self.path.startswith(prefix):
                        try:
                            fn(self)
                        except (BrokenPipeError, ConnectionResetError):
                            pass
                        return
                self.reply(404, b'{"error":"no route"}')

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _any

            def reply(self, status, body, ctype="application/json", headers=()):
                if isinstance(body, str):
                    body = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        class S(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 1024
            allow_reuse_address = True

        self.httpd = S((host, 0), H)
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        SERVERS.append(self.httpd)

    def route(self, prefix, fn):
        self.routes.append((prefix, fn))

    def requests(self, prefix=""):
        with self.lock:
            return [r for r in self.log if r["path"].startswith(prefix)]

    def clear(self):
        with self.lock:
            self.log.clear()


class RawListener:
    """Records the first bytes of every connection (e.g. a TLS ClientHello)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.first = []
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                c.settimeout(2)
                data = c.recv(4096)
                self.first.append(data)
                if data[:1] != b"\x16":
                    c.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            except Exception:
                pass
            finally:
                c.close()

    def close(self):
        self.sock.close()


# ---------------------------------------------------------------- specs

def spec(paths, schemes=None, security=None, servers=None, title="probe", extra=None):
    d = {"openapi": "3.0.3", "info": {"title": title, "version": "1"}, "paths": paths}
    if servers is not None:
        d["servers"] = [{"url": s} for s in servers]
    if schemes:
        d["components"] = {"securitySchemes": schemes}
    if security is not None:
        d["security"] = security
    if extra:
        d.update(extra)
    return d


def op(op_id, params=(), security=None, body=None, responses=None, **kw):
    o = {"operationId": op_id, "parameters": list(params),
         "responses": responses or {"200": {"description": "ok"}}}
    if security is not None:
        o["security"] = security
    if body is not None:
        o["requestBody"] = body
    o.update(kw)
    return o


def pparam(name, schema=None, style=None, explode=None, where="path", required=True):
    p = {"name": name, "in": where, "required": required, "schema": schema or {"type": "string"}}
    if style:
        p["style"] = style
    if explode is not None:
        p["explode"] = explode
    return p


# ---------------------------------------------------------------- MCP over stdio

class Stdio:
    def __init__(self, spec_path, args=(), env=None, reader=True, tag="stdio"):
        self.errpath = os.path.join(WORK, f"{tag}-{len(PROCS)}.stderr")
        self.errf = open(self.errpath, "wb")
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("OPENAPI_MCP"):
                del e[k]
        e.update(env or {})
        self.p = subprocess.Popen([BIN, "serve", spec_path, *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.errf, env=e, bufsize=0)
        PROCS.append(self.p)
        self.msgs = {}
        self.raw = []
        self.cv = threading.Condition()
        self.wlock = threading.Lock()
        self.next_id = 1000
        if reader:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = self.p.stdout.read(1 << 20)
            except Exception:
                chunk = b""
            if not chunk:
                with self.cv:
                    self.raw.append(None)
                    self.cv.notify_all()
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    m = json.loads(line)
                except Exception:
                    m = {"_unparsed": line[:2000].decode("utf-8", "replace")}
                with self.cv:
                    self.raw.append(line)
                    key = json.dumps(m.get("id")) if isinstance(m, dict) else None
                    self.msgs.setdefault(key, []).append((m, line))
                    self.cv.notify_all()

    def stderr(self):
        try:
            self.errf.flush()
        except Exception:
            pass
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def send_raw(self, data):
        with self.wlock:
            self.p.stdin.write(data)
            self.p.stdin.flush()

    def send(self, obj):
        self.send_raw(json.dumps(obj).encode() + b"\n")

    def wait_key(self, key, timeout=10):
        end = time.time() + timeout
        with self.cv:
            while True:
                if self.msgs.get(key):
                    return self.msgs[key].pop(0)
                left = end - time.time()
                if left <= 0 or (self.raw and self.raw[-1] is None):
                    return (None, None)
                self.cv.wait(min(left, 0.2))

    def request(self, method, params=None, timeout=10, rid=None):
        if rid is None:
            self.next_id += 1
            rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.wait_key(json.dumps(rid), timeout)[0]

    def initialize(self, timeout=15):
        r = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "probe", "version": "1"}}, timeout)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def call(self, name, args, timeout=15):
        return self.request("tools/call", {"name": name, "arguments": args}, timeout)

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=3)
        except Exception:
            self.p.kill()
            self.p.wait()
        try:
            self.errf.close()
        except Exception:
            pass


# ---------------------------------------------------------------- MCP over HTTP

class HttpServe:
    def __init__(self, spec_path, args=(), env=None, tag="http", wait=True):
        self.errpath = os.path.join(WORK, f"{tag}-{len(PROCS)}.stderr")
        self.errf = open(self.errpath, "wb")
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("OPENAPI_MCP"):
                del e[k]
        e.update(env or {})
        self.token = e.get("OPENAPI_MCP_HTTP_TOKEN")
        self.p = subprocess.Popen([BIN, "serve", spec_path, "--http", "127.0.0.1:0", *args],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=self.errf, env=e)
        PROCS.append(self.p)
        self.port = None
        if wait:
            end = time.time() + 15
            while time.time() < end and self.p.poll() is None:
                m = re.search(r"at http://127\.0\.0\.1:(\d+)/mcp", self.stderr())
                if m and int(m.group(1)) != 0:
                    self.port = int(m.group(1))
                    break
                time.sleep(0.05)

    def stderr(self):
        try:
            self.errf.flush()
        except Exception:
            pass
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def post(self, body, headers=None, timeout=15, path="/mcp", token=True):
        if not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body).encode()
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if token and self.token:
            h["Authorization"] = "Bearer " + self.token
        h.update(headers or {})
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request("POST", path, body=body, headers=h)
            r = c.getresponse()
            data = r.read()
            return r.status, dict(r.getheaders()), data
        finally:
            c.close()

    def rpc(self, method, params=None, rid=1, headers=None, timeout=15):
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        st, h, data = self.post(msg, headers, timeout)
        return st, parse_http_json(data)

    def call(self, name, args, timeout=15, headers=None):
        st, m = self.rpc("tools/call", {"name": name, "arguments": args}, headers=headers,
                         timeout=timeout)
        return m

    def get(self, path, timeout=5):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()

    def close(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=5)
            except Exception:
                self.p.kill()
                self.p.wait()
        try:
            self.errf.close()
        except Exception:
            pass


def parse_http_json(data):
    try:
        return json.loads(data)
    except Exception:
        pass
    # SSE framing
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("data:"):
            try:
                return json.loads(line[5:].strip())
            except Exception:
                pass
    return {"_unparsed": data[:2000].decode("utf-8", "replace")}


def raw_http(port, data, timeout=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                c = s.recv(65536)
            except socket.timeout:
                break
            if not c:
                break
            out += c
            if b"\r\n\r\n" in out:
                head, _, rest = out.partition(b"\r\n\r\n")
                m = re.search(rb"content-length:\s*(\d+)", head, re.I)
                if m and len(rest) >= int(m.group(1)):
                    break
        return out
    finally:
        s.close()


# ---------------------------------------------------------------- results

def result_of(msg):
    if not msg:
        return None
    return msg.get("result")


def texts(res):
    if not res:
        return []
    return [c.get("text", "") for c in res.get("content", []) if c.get("type") == "text"]


def all_text(res):
    return "\n".join(texts(res))


def is_error(res):
    return bool(res and res.get("isError"))


def strings_in(v, out=None):
    if out is None:
        out = []
    if isinstance(v, str):
        out.append(v)
        try:
            out.extend(strings_in(json.loads(v)))   # a text copy of JSON, or JSON in a string
        except Exception:
            pass
    elif isinstance(v, dict):
        for k, x in v.items():
            out.append(k)
            strings_in(x, out)
    elif isinstance(v, list):
        for x in v:
            strings_in(x, out)
    return out


def decodings(s):
    """Every reading of s a model could make: raw, URL-decoded (once, twice, + as space), HTML."""
    forms = {s}
    for f in list(forms):
        forms.add(html.unescape(f))
    for f in list(forms):
        a = urllib.parse.unquote(f)
        forms.update({a, urllib.parse.unquote_plus(f), urllib.parse.unquote(a),
                      urllib.parse.unquote_plus(urllib.parse.unquote_plus(f))})
    for f in list(forms):
        forms.add(html.unescape(f))
    # CSV-style doubled quotes and backslash escapes
    for f in list(forms):
        forms.add(f.replace('""', '"'))
        try:
            forms.add(json.loads('"' + f.replace('"', '\\"') + '"') if "\\" in f else f)
        except Exception:
            pass
    return forms


def leaks(obj, secret, extra_forms=()):
    """Return a description of where `secret` (or one of extra_forms) shows in obj, or None."""
    strs = strings_in(obj)
    for s in strs:
        for f in extra_forms:
            if f and f in s:
                return f"encoded form {f[:60]!r} in {snippet(s, f)}"
        for d in decodings(s):
            if secret in d:
                return f"secret in {snippet(d, secret)}"
    return None


def snippet(s, needle, w=60):
    i = s.find(needle)
    if i < 0:
        return repr(s[:120])
    return repr(s[max(0, i - w): i + len(needle) + w])
