"""Class 3: no stalls over HTTP."""
from lib import *
from concurrent.futures import ThreadPoolExecutor


def run():
    up = Upstream()
    def stall_body(r):
        r.send_response(200); r.send_header("Content-Type", "application/json"); r.send_header("Content-Length", "1000")
        r.end_headers(); r.wfile.write(b'{"a":"'); r.wfile.flush(); time.sleep(40)
    def stall_chunked(r):
        r.protocol_version = "HTTP/1.1"
        r.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n"); r.wfile.flush(); time.sleep(40)
    def stall_headers(r):
        time.sleep(40)
    def drip(r):
        r.send_response(200); r.send_header("Content-Type", "application/json"); r.send_header("Content-Length", "100000")
        r.end_headers()
        for i in range(400):
            r.wfile.write(b" "); r.wfile.flush(); time.sleep(0.1)
    up.route("/stall-body", stall_body)
    up.route("/stall-chunked", stall_chunked)
    up.route("/stall-headers", stall_headers)
    up.route("/drip", drip)
    up.route("/fast", lambda r: r.reply(200, b'{"fast":true}'))
    paths = {f"/{n}": {"get": op(n.replace("-", "_"))} for n in ["stall-body", "stall-chunked", "stall-headers", "drip", "fast"]}
    sp = wfile("stalls.json", spec(paths, servers=[up.url]))
    TOK = "stall-token-" + "z" * 30
    hs = HttpServe(sp, ["--timeout", "4"], env={"OPENAPI_MCP_HTTP_TOKEN": TOK}, tag="stalls")
    for tool in ["stall_body", "stall_chunked", "stall_headers", "drip"]:
        t = time.time()
        try:
            r = result_of(hs.call(tool, {}, timeout=30))
        except Exception as e:
            r = {"exc": repr(e)}
        dt = time.time() - t
        check(f"stall-one-{tool}", f"an upstream that stalls ({tool}) gives a tool error within --timeout 4 + 4 s", r is not None and is_error(r) and dt < 8,
              f"{dt:.1f}s {json.dumps(r)[:200]}")
    # 70 stalled calls at once; other requests must still be answered
    hs.close()
    hs = HttpServe(sp, ["--timeout", "2"], env={"OPENAPI_MCP_HTTP_TOKEN": TOK}, tag="stalls70")
    pool = ThreadPoolExecutor(80)
    futs = [pool.submit(lambda: hs.call("stall_body", {}, timeout=60)) for _ in range(70)]
    time.sleep(1.5)
    t = time.time()
    try:
        st, m = hs.rpc("tools/list", timeout=20)
    except Exception as e:
        st, m = None, repr(e)
    dt_list = time.time() - t
    t = time.time()
    try:
        code, body = hs.get("/healthz", timeout=20)
    except Exception as e:
        code, body = None, repr(e)
    dt_h = time.time() - t
    t = time.time()
    try:
        st2, m2 = hs.rpc("ping", rid=7, timeout=20)
    except Exception as e:
        st2, m2 = None, repr(e)
    dt_p = time.time() - t
    check("stall-70-tools-list", "with 70 calls stalled upstream, tools/list is answered within 3 s", st == 200 and dt_list < 3, f"{st} after {dt_list:.1f}s")
    check("stall-70-ping", "with 70 calls stalled upstream, ping is answered within 3 s", st2 == 200 and dt_p < 3, f"{st2} after {dt_p:.1f}s")
    check("stall-70-healthz", "with 70 calls stalled upstream, /healthz answers within 2 s", code == 200 and dt_h < 2, f"{code} after {dt_h:.1f}s")
    t = time.time()
    res = [f.result() for f in futs]
    dt_all = time.time() - t + 1.5
    errs = sum(1 for m in res if is_error(result_of(m)))
    # 70 calls through 8 call slots of 2 s each: 9 rounds, about 18 s
    check("stall-70-bounded", "70 stalled calls all end as tool errors (bounded by --timeout x rounds of --max-calls)", errs == 70 and dt_all < 35,
          f"{errs} errors in {dt_all:.1f}s")
    info(f"70 stalled calls took {dt_all:.1f}s in all")
    pool.shutdown()
    hs.close()

    # 1,024 idle connections without a token
    for mode in ["idle", "partial-headers", "refused-401", "over-limit"]:
        hs = HttpServe(sp, [], env={"OPENAPI_MCP_HTTP_TOKEN": TOK}, tag=f"conns-{mode}")
        n = 1100 if mode == "over-limit" else 1024
        socks = []
        try:
            for i in range(n):
                c = socket.socket()
                c.setblocking(True)
                c.settimeout(5)
                try:
                    c.connect(("127.0.0.1", hs.port))
                except Exception:
                    c.close(); continue
                socks.append(c)
                if mode == "partial-headers":
                    c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                elif mode == "refused-401":
                    c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            time.sleep(1.0)
            t = time.time()
            try:
                st, m = hs.rpc("tools/list", timeout=10)
            except Exception as e:
                st, m = None, repr(e)
            dt = time.time() - t
            t = time.time()
            try:
                code, _ = hs.get("/healthz", timeout=10)
            except Exception as e:
                code = repr(e)
            dh = time.time() - t
            check(f"conns-{mode}", f"{len(socks)} {mode} tokenless connections: a token holder is served within 2 s", st == 200 and dt < 2, f"{st} after {dt:.1f}s")
            check(f"conns-{mode}-healthz", f"{len(socks)} {mode} tokenless connections: /healthz answers within 2 s", code == 200 and dh < 2, f"{code} after {dh:.1f}s")
        finally:
            for c in socks:
                c.close()
            hs.close()
