"""Extra variants: endless and compressed answers, deep nesting, server-variable passwords, short credentials."""
import zlib, gzip
from lib import *
from t_memory import Peak


def run():
    up = Upstream()
    def endless_cl(r):
        r.send_response(200); r.send_header("Content-Type", "application/json"); r.send_header("Content-Length", str(10 ** 12)); r.end_headers()
        chunk = b"[" + b"1," * 500000
        try:
            r.wfile.write(b"[")
            while True:
                r.wfile.write(b"1," * 500000)
        except Exception:
            pass
    def endless_chunked(r):
        r.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
        piece = b"x" * 1000000
        try:
            while True:
                r.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
        except Exception:
            pass
    bomb = gzip.compress(b'{"a":"' + b"0" * (200 << 20) + b'"}', 6)
    def gz(r):
        r.reply(200, bomb, "application/json", headers=[("Content-Encoding", "gzip")])
    deep = b"[" * 1000000 + b"]" * 1000000
    up.route("/endless-cl", endless_cl)
    up.route("/endless-chunked", endless_chunked)
    up.route("/gzip", gz)
    up.route("/deep", lambda r: r.reply(200, deep))
    up.route("/deep-obj", lambda r: r.reply(200, b'{"a":' * 200000 + b"1" + b"}" * 200000))
    up.route("/", lambda r: r.reply(200, b'{"ok":true}'))
    paths = {f"/{n}": {"get": op(n.replace("-", "_"))} for n in ["endless-cl", "endless-chunked", "gzip", "deep", "deep-obj"]}
    paths["/deep-schema"] = {"get": op("deep_schema", responses={"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array", "items": {"type": "array"}}}}}})}
    up.route("/deep-schema", lambda r: r.reply(200, deep))
    paths["/echo"] = {"post": op("echo", body={"required": True, "content": {"application/json": {"schema": {"type": "object"}}}})}
    sp = wfile("extra.json", spec(paths, servers=[up.url]))
    s = Stdio(sp, ["--timeout", "20"], tag="extra")
    pk = Peak(s.p.pid)
    s.initialize()
    for tool in ["endless_cl", "endless_chunked", "gzip", "deep", "deep_obj", "deep_schema"]:
        t = time.time()
        m = s.call(tool, {}, timeout=40)
        r = result_of(m)
        dt = time.time() - t
        alive = s.request("ping", timeout=5)
        size = len(json.dumps(r)) if r else None
        ok = r is not None and alive is not None and dt < 25 and size < 60000
        check(f"answer-{tool}", f"an answer that is {tool} ends in a bounded result, the server alive", ok,
              f"{dt:.1f}s size={size} alive={alive is not None} text={all_text(r)[:200] if r else m}")
    # deeply nested arguments in a request line
    line = b'{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo","arguments":{"a":' + b"[" * 100000 + b"]" * 100000 + b"}}}\n"
    s.send_raw(line)
    m, _ = s.wait_key('"deep"', 10)
    alive = s.request("ping", timeout=5)
    check("request-deep-nesting", "a request line nested 100,000 deep is answered with its id and the server lives",
          m is not None and alive is not None, f"{str(m)[:200]} alive={alive is not None}")
    pk.stop = True
    peak = max(pk.peak, vmhwm(s.p.pid) or 0)
    check("answer-extreme-peak", "endless/compressed/deep answers keep the peak under 400 MiB", peak < 400, f"peak {peak} MiB")
    s.close()

    # a password in a server variable's default
    PW = "VarPassw0rd-55aa66"
    d = spec({"/x": {"get": op("x")}}, servers=[])
    d["servers"] = [{"url": "http://{user}:{pw}@127.0.0.1:%d/api" % up.port, "variables": {"user": {"default": "u"}, "pw": {"default": PW}}}]
    sp2 = wfile("varpw.json", d)
    s = Stdio(sp2, ["--verbose"], tag="varpw")
    s.initialize()
    tl = s.request("tools/list")
    r = result_of(s.call("x", {}))
    out = json.dumps([tl, r])
    s.close()
    check("meta-server-variable-password", "a password given as a server variable's default is *** in tools/list _meta and results", tl and PW not in out, snippet(out, PW))
    check("meta-server-variable-password-log", "... and in the --verbose log", PW not in s.stderr(), snippet(s.stderr(), PW))

    # short credentials: warned at start-up
    sp3 = wfile("short.json", spec({"/x": {"get": op("x")}}, schemes={"k": {"type": "apiKey", "in": "header", "name": "X-K"}}, security=[{"k": []}], servers=[up.url]))
    s = Stdio(sp3, [], env={"OPENAPI_MCP_K": "abc12"}, tag="short")
    s.initialize()
    time.sleep(0.2)
    err = s.stderr()
    s.close()
    check("warn-short-credential", "a credential shorter than 8 characters gets a start-up warning", re.search(r"warn", err, re.I) and "8" in err, err[-400:])
    # operation-level plain-http server off loopback with credentials
    d = spec({"/x": {"get": op("x", servers=[{"url": "http://ops.example.com/v1"}])}}, schemes={"k": {"type": "apiKey", "in": "header", "name": "X-K"}},
             security=[{"k": []}], servers=["https://api.example.com"])
    sp4 = wfile("opwarn.json", d)
    s = Stdio(sp4, [], env={"OPENAPI_MCP_K": "abcdefgh12345"}, tag="opwarn")
    s.initialize()
    time.sleep(0.2)
    err = s.stderr()
    s.close()
    check("warn-http-op-server", "credentials to an operation's plain-http server off loopback are warned about",
          any("ops.example.com" in l and re.search(r"warn|cleartext|plain", l, re.I) for l in err.splitlines()), err[-500:])
