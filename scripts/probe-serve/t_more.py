"""More variants: argument injection into query/cookie/header slots, credential shadowing, stalled request bodies, Origin."""
from lib import *
from concurrent.futures import ThreadPoolExecutor


def run():
    up = Upstream()
    up.route("/", lambda r: r.reply(200, b'{"ok":true}'))
    schemes = {"qk": {"type": "apiKey", "in": "query", "name": "api_key"},
               "hk": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
               "ck": {"type": "apiKey", "in": "cookie", "name": "sid"}}
    obj = {"type": "object", "additionalProperties": {"type": "string"}}
    paths = {
        "/q": {"get": op("q", [pparam("r", where="query", required=False) | {"allowReserved": True},
                               pparam("d", obj, where="query", style="deepObject", explode=True, required=False),
                               pparam("f", obj, where="query", style="form", explode=True, required=False),
                               pparam("p", {"type": "array", "items": {"type": "string"}}, where="query", style="pipeDelimited", explode=False, required=False),
                               pparam("s", where="query", required=False)], security=[])},
        "/qshadow": {"get": op("qshadow", [pparam("api_key", where="query", required=False),
                                           pparam("f", obj, where="query", style="form", explode=True, required=False)], security=[{"qk": []}])},
        "/hshadow": {"get": op("hshadow", [pparam("X-Api-Key", where="header", required=False),
                                           pparam("x-api-key", where="header", required=False)], security=[{"hk": []}])},
        "/cval": {"get": op("cval", [pparam("theme", where="cookie", required=False)], security=[{"ck": []}])},
        "/hval": {"get": op("hval", [pparam("X-Note", where="header", required=False)], security=[])},
    }
    sp = wfile("more.json", spec(paths, schemes=schemes, servers=[up.url]))
    env = {"OPENAPI_MCP_QK": "QueryCredVal123", "OPENAPI_MCP_HK": "HeaderCredVal123", "OPENAPI_MCP_CK": "CookieCredVal123"}
    s = Stdio(sp, [], env=env, tag="more")
    s.initialize()
    tl = s.request("tools/list")
    argmap = {}
    for t in (tl or {}).get("result", {}).get("tools", []):
        argmap[t["name"]] = {v.get("name"): k for k, v in t["_meta"]["openapi-mcp/http"]["arguments"].items()}

    def one(tool, args):
        up.clear()
        r = result_of(s.call(tool, args))
        q = up.requests()
        return r, (q[0] if q else None)

    def qs(req):
        return urllib.parse.parse_qsl(urllib.parse.urlsplit(req["path"]).query, keep_blank_values=True)
    for cid, args, want_keys in [
        ("allowReserved", {"r": "a&admin=1#frag+b=c"}, {"r"}),
        ("deepObject-key", {"d": {"x]&admin=1&y[": "v", "k": "a&b=c"}}, None),
        ("form-explode-key", {"f": {"admin=1&x": "v"}}, None),
        ("pipe", {"p": ["a&admin=1", "b|c"]}, {"p"}),
        ("plain", {"s": "a&admin=1;b=2#x"}, {"s"}),
    ]:
        r, req = one("q", args)
        if r is None:
            check(f"inject-query-{cid}", f"query argument {cid} adds no parameter", False, "no answer"); continue
        if is_error(r):
            ok, why = req is None, f"refused: {all_text(r)[:150]}"
        else:
            keys = [k for k, _ in qs(req)]
            ok = "admin" not in keys and (want_keys is None or set(keys) <= want_keys)
            why = f"sent {req['path']} keys={keys}"
        check(f"inject-query-{cid}", f"query argument {cid} {json.dumps(args)[:60]} adds no parameter", ok, why)
    # credential shadowing by argument: query, header, exploded form key
    for cid, tool, args, test in [
        ("query-arg", "qshadow", {argmap.get("qshadow", {}).get("api_key", "api_key"): "attacker"}, lambda q: [v for k, v in qs(q) if k == "api_key"] == ["QueryCredVal123"]),
        ("query-form-key", "qshadow", {argmap.get("qshadow", {}).get("f", "f"): {"api_key": "attacker"}}, lambda q: [v for k, v in qs(q) if k == "api_key"] == ["QueryCredVal123"]),
        ("header-arg", "hshadow", {argmap.get("hshadow", {}).get("X-Api-Key", "X-Api-Key"): "attacker"}, lambda q: [v for k, v in q["rawheaders"] if k.lower() == "x-api-key"] == ["HeaderCredVal123"]),
        ("header-arg-lower", "hshadow", {argmap.get("hshadow", {}).get("x-api-key", "x_api_key"): "attacker"}, lambda q: [v for k, v in q["rawheaders"] if k.lower() == "x-api-key"] == ["HeaderCredVal123"]),
    ]:
        r, req = one(tool, args)
        if r is None:
            ok, why = False, "no answer"
        elif is_error(r):
            ok, why = req is None, f"refused: {all_text(r)[:150]}"
        else:
            ok, why = test(req), f"sent {req['path']} headers={req['rawheaders']}"
        check(f"shadow-{cid}", f"an argument ({cid}) cannot replace or add to the credential", ok, why)
    for cid, val in [("semicolon", "dark; sid=attacker"), ("comma", "dark, sid=attacker"), ("crlf", "dark\r\nX-Evil: 1"), ("quote", '"dark"; sid=x')]:
        r, req = one("cval", {argmap.get("cval", {}).get("theme", "theme"): val})
        if r is None:
            ok, why = False, "no answer"
        elif is_error(r):
            ok, why = req is None, f"refused {all_text(r)[:100]}"
        else:
            ck = req["headers"].get("cookie", "")
            names = [p.strip().split("=")[0] for p in re.split(r"[;,]", ck)]
            ok = names.count("sid") == 1 and ck.startswith("sid=CookieCredVal123") and "x-evil" not in req["headers"]
            why = f"Cookie: {ck!r}"
        check(f"inject-cookie-{cid}", f"a cookie argument value with {cid} adds no cookie", ok, why)
    for cid, val in [("crlf", "a\r\nX-Evil: 1"), ("lf", "a\nX-Evil: 1"), ("cr", "a\rX-Evil: 1"), ("nul", "a\x00b"), ("nel", "a\u0085X-Evil: 1"), ("ls", "a\u2028X-Evil: 1")]:
        r, req = one("hval", {argmap.get("hval", {}).get("X-Note", "X-Note"): val})
        ok = r is not None and (is_error(r) and req is None or (req is not None and "x-evil" not in req["headers"]))
        check(f"inject-header-{cid}", f"a header argument with {cid} adds no header line", ok,
              f"{all_text(r)[:100] if r else None} sent={req['rawheaders'] if req else None}")
    s.close()

    # ---- stalled request bodies: token holders that never finish their body
    TOK = "body-token-" + "q" * 30
    sp2 = wfile("more2.json", spec({"/x": {"get": op("x")}}, servers=[up.url]))
    hs = HttpServe(sp2, [], env={"OPENAPI_MCP_HTTP_TOKEN": TOK}, tag="bodystall")
    socks = []
    for auth in [True, False]:
        for i in range(70):
            c = socket.create_connection(("127.0.0.1", hs.port), timeout=5)
            c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                      + (f"Authorization: Bearer {TOK}\r\n".encode() if auth else b"") + b"Content-Length: 1000\r\n\r\n{\"jsonrpc\":")
            socks.append(c)
        time.sleep(1)
        t = time.time()
        try:
            st, m = hs.rpc("tools/list", timeout=20)
        except Exception as e:
            st, m = None, repr(e)
        dt = time.time() - t
        label = "with" if auth else "without"
        check(f"body-stall-{label}-token", f"70 requests {label} the token whose bodies stall: another client's tools/list within 2 s", st == 200 and dt < 2, f"{st} after {dt:.1f}s")
        for c in socks:
            c.close()
        socks.clear()
        time.sleep(0.5)
    # the same with no token configured at all (the loopback default): any local client can do it
    hs0 = HttpServe(sp2, [], tag="bodystall-notoken")
    for i in range(70):
        c = socket.create_connection(("127.0.0.1", hs0.port), timeout=5)
        c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
        socks.append(c)
    time.sleep(1)
    t = time.time()
    try:
        st, m = hs0.rpc("tools/list", timeout=20)
    except Exception as e:
        st, m = None, repr(e)
    dt = time.time() - t
    check("body-stall-no-token-configured", "no token configured (loopback default): 70 stalled request bodies, another client's tools/list within 2 s",
          st == 200 and dt < 2, f"{st} after {dt:.1f}s")
    for c in socks:
        c.close()
    socks.clear()
    hs0.close()
    # a body that stalls gets 408 within about 10 s
    c = socket.create_connection(("127.0.0.1", hs.port), timeout=20)
    c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + f"Authorization: Bearer {TOK}\r\n".encode() + b"Content-Length: 100\r\n\r\n{")
    t = time.time()
    try:
        d = c.recv(4096)
    except Exception as e:
        d = repr(e).encode()
    dt = time.time() - t
    c.close()
    check("body-stall-408", "a request body that stops arriving gets 408 within 10 s + 3", d.startswith(b"HTTP/1.1 408") and dt < 13, f"{d[:80]!r} after {dt:.1f}s")
    # Origin
    for cid, hdr, want in [("foreign", {"Origin": "http://evil.example"}, 403), ("null", {"Origin": "null"}, 403),
                           ("two", None, 400)]:
        if hdr is None:
            out = raw_http(hs.port, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://a.example\r\nOrigin: http://b.example\r\n" + f"Authorization: Bearer {TOK}\r\n".encode()
                           + b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 46\r\n\r\n" + b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
            st = int(out[9:12]) if out[:5] == b"HTTP/" else None
        else:
            st, _, _ = hs.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, hdr)
        check(f"origin-{cid}", f"Origin {cid} gets {want}", st == want, st)
    hs.close()
