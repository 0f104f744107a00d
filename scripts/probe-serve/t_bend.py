"""Class 4: requests that cannot be bent."""
from lib import *


def seg_problems(path, prefix, nseg):
    p = path.split("?")[0]
    if not p.startswith(prefix + "/"):
        return f"left the prefix: {path}"
    segs = p[len(prefix) + 1:].split("/")
    for s in segs:
        d = urllib.parse.unquote(s)
        for part in d.split("/"):
            if part in (".", ".."):
                return f"dot segment {s!r} in {path}"
    if len(segs) != nseg:
        return f"{len(segs)} segments, template has {nseg}: {path}"
    if "?" in path:
        return f"a query appeared: {path}"
    return None


def run():
    up = Upstream()
    up.route("/", lambda r: r.reply(200, b'{"ok":true}'))
    up2 = Upstream()
    up2.route("/", lambda r: r.reply(200, b'{"evil":true}'))
    host2 = up2.url.split("//")[1]
    arr = {"type": "array", "items": {"type": "string"}}
    obj = {"type": "object", "additionalProperties": {"type": "string"}}
    paths = {
        "/files/{id}": {"get": op("simple", [pparam("id")])},
        "/files/{id}/meta": {"get": op("simple_mid", [pparam("id")])},
        "/lab/{id}": {"get": op("label", [pparam("id", style="label")])},
        "/labx/{id}": {"get": op("label_arr_x", [pparam("id", arr, style="label", explode=True)])},
        "/labo/{id}": {"get": op("label_obj_x", [pparam("id", obj, style="label", explode=True)])},
        "/mat/{id}": {"get": op("matrix", [pparam("id", style="matrix")])},
        "/matx/{id}": {"get": op("matrix_arr_x", [pparam("id", arr, style="matrix", explode=True)])},
        "/sarr/{id}": {"get": op("simple_arr", [pparam("id", arr)])},
        "/sobjx/{id}": {"get": op("simple_obj_x", [pparam("id", obj, explode=True)])},
        "/two/{a}{b}": {"get": op("two", [pparam("a"), pparam("b")])},
        "/dot/{a}.{b}": {"get": op("dotjoin", [pparam("a"), pparam("b")])},
        "nolead/{id}": {"get": op("nolead", [pparam("id")])},
        f"@{host2}/x": {"get": op("at_host")},
        "{p}/x": {"get": op("param_first", [pparam("p")])},
        f"//{host2}/y": {"get": op("proto_rel")},
        f"\\\\{host2}/z": {"get": op("backslash")},
        "/../admin": {"get": op("dotdot_tpl")},
        "/a/./../../admin": {"get": op("dotdot_tpl2")},
        f"#{host2}": {"get": op("frag_tpl")},
    }
    sp = wfile("bend.json", spec(paths, servers=[up.url + "/api"]))
    s = Stdio(sp, [], tag="bend")
    init = s.initialize()
    tl = s.request("tools/list")
    names = [t["name"] for t in (tl or {}).get("result", {}).get("tools", [])]
    cases = [
        ("empty-simple", "simple", {"id": ""}, 1, True),
        ("empty-mid", "simple_mid", {"id": ""}, 2, True),
        ("empty-label", "label", {"id": ""}, 1, True),
        ("empty-two", "two", {"a": "", "b": ""}, 1, True),
        ("dotdot-simple", "simple", {"id": ".."}, 1, False),
        ("dot-simple", "simple", {"id": "."}, 1, False),
        ("slash-simple", "simple", {"id": "a/../b"}, 1, False),
        ("slash-plain", "simple", {"id": "a/b"}, 1, False),
        ("pct2e-simple", "simple", {"id": "%2e%2e"}, 1, False),
        ("pct2E-mixed", "simple", {"id": "%2E."}, 1, False),
        ("dotdot-slash-pct", "simple_mid", {"id": "..%2f..%2f"}, 2, False),
        ("query-inject", "simple", {"id": "x?admin=1#frag"}, 1, False),
        ("dot-label", "label", {"id": "."}, 1, False),
        ("label-arr-empties", "label_arr_x", {"id": ["", ""]}, 1, False),
        ("label-arr-one-empty", "label_arr_x", {"id": [""]}, 1, False),
        ("label-arr-dot", "label_arr_x", {"id": ["."]}, 1, False),
        ("label-obj-x", "label_obj_x", {"id": {".": ""}}, 1, False),
        ("matrix-dotdot", "matrix", {"id": ".."}, 1, False),
        ("matrix-arr-x", "matrix_arr_x", {"id": ["..", "/"]}, 1, False),
        ("simple-arr-dotdot", "simple_arr", {"id": [".."]}, 1, False),
        ("simple-arr-dots", "simple_arr", {"id": ["."]}, 1, False),
        ("simple-obj-x", "simple_obj_x", {"id": {"..": ".."}}, 1, False),
        ("two-dots", "two", {"a": ".", "b": "."}, 1, False),
        ("two-one-empty", "two", {"a": "..", "b": ""}, 1, False),
        ("dotjoin-empties", "dotjoin", {"a": "", "b": ""}, 1, False),
        ("dotjoin-dot", "dotjoin", {"a": ".", "b": ""}, 1, False),
        ("nolead-value", "nolead", {"id": "v"}, 2, False),
    ]
    for cid, tool, args, nseg, must_refuse in cases:
        if tool != "nolead":
            nseg += 1
        up.clear()
        r = result_of(s.call(tool, args))
        reqs = up.requests()
        if r is None:
            check(f"bend-{cid}", f"{tool} {json.dumps(args)} refused or kept in its segment", False, "no answer / unknown tool; tools=" + str(names))
            continue
        if is_error(r):
            ok = not reqs
            why = f"tool error but sent {[q['path'] for q in reqs]}"
            if cid == "nolead-value":
                ok, why = False, f"a plain value was refused: {all_text(r)[:200]}"
        else:
            if must_refuse:
                ok, why = False, f"not refused; sent {[q['path'] for q in reqs]}"
            elif len(reqs) != 1:
                ok, why = False, f"{len(reqs)} requests"
            else:
                why = seg_problems(reqs[0]["path"], "/api", nseg)
                ok = why is None
        check(f"bend-{cid}", f"{tool} {json.dumps(args)} {'refused' if must_refuse else 'refused or kept in its segment'}", ok,
              f"{why}; result={all_text(r)[:200]}")
    # templates that try to change host: nothing may reach the other listener
    for tool, args in [("at_host", {}), ("param_first", {"p": "@" + host2}), ("proto_rel", {}),
                       ("backslash", {}), ("frag_tpl", {}), ("param_first", {"p": "%40" + host2})]:
        up.clear(); up2.clear()
        r = result_of(s.call(tool, args))
        other = up2.requests()
        mine = [q["path"] for q in up.requests()]
        ok = r is not None and not other and (is_error(r) or all(p.startswith("/api/") for p in mine))
        check(f"bend-host-{tool}-{len(args)}", f"path template {tool} {json.dumps(args)} cannot change the host or leave /api",
              ok, f"other host got {[q['path'] for q in other]}; base host got {mine}; result={all_text(r)[:200] if r else None}")
    for tool in ["dotdot_tpl", "dotdot_tpl2"]:
        up.clear()
        r = result_of(s.call(tool, {}))
        mine = [q["path"] for q in up.requests()]
        ok = r is not None and (is_error(r) and not mine or all(p.startswith("/api/") and "/../" not in p for p in mine))
        check(f"bend-tpl-{tool}", f"a template with dot segments ({tool}) stays under the base path", ok, f"sent {mine}; {all_text(r)[:200] if r else None}")
    s.close()

    integers(up)
    cookies()
    servers_named()
    https_first()
    http_checks(up)
    refs()


def integers(up):
    paths = {"/int": {"get": op("int_q", [pparam("n", {"type": "integer"}, where="query"),
                                           pparam("m", {"type": "array", "items": {"type": "integer"}}, where="query", required=False)])},
             "/intb": {"post": op("int_b", body={"required": True, "content": {"application/json": {"schema": {
                 "type": "object", "properties": {"n": {"type": "integer"}, "deep": {"type": "object", "properties": {"k": {"type": "integer"}}}}}}}})}}
    sp = wfile("ints.json", spec(paths, servers=[up.url + "/api"]))
    s = Stdio(sp, [], tag="ints")
    s.initialize()
    hs = HttpServe(sp, [], tag="ints-http")
    big = 2 ** 70 + 1
    cases = [("2p70p1", big, False), ("2p64", 2 ** 64, False), ("2p64m1", 2 ** 64 - 1, True),
             ("m2p63", -2 ** 63, True), ("m2p63m1", -2 ** 63 - 1, False), ("2p53p1", 2 ** 53 + 1, True)]
    for transport, client in (("stdio", s), ("http", hs)):
        for cid, val, in_range in cases:
            up.clear()
            r = result_of(client.call("int_q", {"n": val}))
            reqs = up.requests("/api/int")
            sent = urllib.parse.parse_qs(urllib.parse.urlsplit(reqs[0]["path"]).query).get("n", [None])[0] if reqs else None
            if r is None:
                ok, why = False, "no answer"
            elif is_error(r):
                ok = (not in_range) and not reqs and ("64" in all_text(r) or "exact" in all_text(r))
                why = f"refused: {all_text(r)[:200]}; sent={len(reqs)}"
            else:
                ok = sent == str(val)
                why = f"sent n={sent!r}, asked {val}"
            check(f"int-{transport}-query-{cid}", f"integer {val} in a query over {transport} {'sent exactly' if in_range else 'sent exactly or refused clearly'}", ok, why)
        # body and array positions
        for cid, args in [("body", {"n": big}), ("body-deep", {"deep": {"k": -2 ** 64}})]:
            up.clear()
            r = result_of(client.call("int_b", args))
            reqs = up.requests("/api/intb")
            body = reqs[0]["body"].decode() if reqs else ""
            want = str(big) if cid == "body" else str(-2 ** 64)
            if r is None:
                ok, why = False, "no answer"
            elif is_error(r):
                ok, why = not reqs and "64" in all_text(r), f"refused: {all_text(r)[:200]}"
            else:
                ok, why = want in body, f"body sent: {body[:200]}"
            check(f"int-{transport}-{cid}", f"integer beyond 64 bits in a JSON body ({cid}) over {transport} exact or refused", ok, why)
        up.clear()
        r = result_of(client.call("int_q", {"n": 1, "m": [1, big]}))
        reqs = up.requests("/api/int")
        ok = r is not None and ((is_error(r) and not reqs) or (reqs and str(big) in urllib.parse.unquote(reqs[0]["path"])))
        check(f"int-{transport}-array", f"integer beyond 64 bits inside a query array over {transport} exact or refused", ok,
              f"{all_text(r)[:200] if r else None} sent={[q['path'] for q in reqs]}")
        # a float literal for a whole number beyond 64 bits
        up.clear()
        if transport == "stdio":
            s.send_raw(b'{"jsonrpc":"2.0","id":"f1","method":"tools/call","params":{"name":"int_q","arguments":{"n":1e21}}}\n')
            m = s.wait_key('"f1"')[0]
        else:
            st, _, data = hs.post(b'{"jsonrpc":"2.0","id":"f1","method":"tools/call","params":{"name":"int_q","arguments":{"n":1e21}}}')
            m = parse_http_json(data)
        r = result_of(m)
        reqs = up.requests("/api/int")
        sent = urllib.parse.parse_qs(urllib.parse.urlsplit(reqs[0]["path"]).query).get("n", [None])[0] if reqs else None
        ok = r is not None and ((is_error(r) and not reqs) or sent == "1000000000000000000000")
        check(f"int-{transport}-float-literal", f"integer argument written 1e21 over {transport} exact or refused", ok,
              f"{all_text(r)[:200] if r else m} sent={sent}")
    s.close(); hs.close()


def cookies():
    up = Upstream()
    up.route("/", lambda r: r.reply(200, b'{"ok":true}'))
    sec = {"sess": {"type": "apiKey", "in": "cookie", "name": "sess_id"}}
    params = [pparam(n, where="cookie", required=False) for n in ["sess.id", "sess id", "sess[id", "sess_id", " sess_id", "theme"]]
    params.append(pparam("prefs", {"type": "object", "additionalProperties": {"type": "string"}}, where="cookie", style="form", explode=True, required=False))
    # argument names must be distinct: give them a suffix via x- names? the tool arg names derive from param names
    sp = wfile("cookies.json", spec({"/c": {"get": op("cook", params)}}, schemes=sec, security=[{"sess": []}], servers=[up.url]))
    s = Stdio(sp, [], env={"OPENAPI_MCP_SESS": "CredCookieValue123"}, tag="cookies")
    s.initialize()
    tl = s.request("tools/list")
    props = {}
    for t in (tl or {}).get("result", {}).get("tools", []):
        if t["name"] == "cook":
            props = t["_meta"]["openapi-mcp/http"]["arguments"]
    byname = {v.get("name"): k for k, v in props.items()}
    for pname in ["sess.id", "sess id", "sess[id", "sess_id", " sess_id"]:
        arg = byname.get(pname)
        if arg is None:
            check(f"cookie-shadow-{pname.strip().replace(' ', 'sp')}", f"argument cookie {pname!r} named like the credential cookie is refused", False, f"no argument for it: {props}")
            continue
        up.clear()
        r = result_of(s.call("cook", {arg: "attacker"}))
        reqs = up.requests()
        ck = reqs[0]["headers"].get("cookie") if reqs else None
        check(f"cookie-shadow-{pname.replace(' ', 'sp').replace('[', 'br')}", f"argument cookie {pname!r} (PHP name sess_id) is refused, nothing sent",
              r is not None and is_error(r) and not reqs, f"result={all_text(r)[:200] if r else None} cookie={ck!r}")
    for key in ["sess.id", "sess_id", "sess[id", "sess id"]:
        up.clear()
        r = result_of(s.call("cook", {byname.get("prefs", "prefs"): {key: "attacker"}}))
        reqs = up.requests()
        ck = reqs[0]["headers"].get("cookie") if reqs else None
        check(f"cookie-shadow-obj-{key.replace(' ', 'sp').replace('[', 'br')}", f"exploded object cookie key {key!r} shadowing the credential is refused",
              r is not None and is_error(r) and not reqs, f"result={all_text(r)[:200] if r else None} cookie={ck!r}")
    up.clear()
    r = result_of(s.call("cook", {byname.get("theme", "theme"): "dark", byname.get("prefs", "prefs"): {"a": "1"}}))
    reqs = up.requests()
    ck = reqs[0]["headers"].get("cookie", "") if reqs else ""
    check("cookie-credential-first", "the credential cookie is sent first, before argument cookies",
          r is not None and not is_error(r) and ck.startswith("sess_id=CredCookieValue123") and "theme=dark" in ck, f"Cookie: {ck!r}")
    s.close()


def servers_named():
    up = Upstream(); up.route("/", lambda r: r.reply(200, b"{}"))
    up2 = Upstream(); up2.route("/", lambda r: r.reply(200, b"{}"))
    p2 = up2.port
    paths = {"/a": {"get": op("a")},
             "/b": {"get": op("b", servers=[{"url": f"http://localhost:{p2}/opsrv"}])},
             "/c": {"servers": [{"url": f"http://127.0.0.2:{up.port}/pathsrv"}], "get": op("c")}}
    sp = wfile("opservers.json", spec(paths, schemes={"k": {"type": "apiKey", "in": "header", "name": "X-Key"}},
                                       security=[{"k": []}], servers=[up.url + "/api"]))
    s = Stdio(sp, [], env={"OPENAPI_MCP_K": "opserverskey123"}, tag="opservers")
    s.initialize()
    time.sleep(0.2)
    err = s.stderr()
    line = [l for l in err.splitlines() if "credentials are sent to" in l]
    ok = line and f"localhost:{p2}" in line[0] and f"127.0.0.2:{up.port}" in line[0] and f"127.0.0.1:{up.port}" in line[0]
    check("servers-named-at-startup", "start-up names every origin credentials go to, per-operation and path-item servers included",
          ok, line or err[:500])
    s.close()
    # with --base-url, the operation server is still named (credentials go to it? README: base url replaces)
    s = Stdio(sp, ["--base-url", f"http://127.0.0.1:{up.port}/v9"], env={"OPENAPI_MCP_K": "opserverskey123"}, tag="opservers2")
    s.initialize()
    up2.clear(); up.clear()
    s.call("b", {})
    went = [q["path"] for q in up2.requests()] + [q["path"] for q in up.requests()]
    err = s.stderr()
    line = [l for l in err.splitlines() if "credentials are sent to" in l]
    ok = line and (("localhost" not in line[0]) == (not up2.requests()))
    check("servers-named-base-url", "with --base-url, start-up names exactly where credentials go", ok, f"{line} requests={went}")
    s.close()


def https_first():
    raw = RawListener()
    h = f"127.0.0.1:{raw.port}"
    variants = {
        "oas3": spec({"/p": {"get": op("p")}}, servers=[f"http://{h}/api", f"https://{h}/api"]),
        "oas3-case": spec({"/p": {"get": op("p")}}, servers=[f"HTTP://{h}/api", f"https://{h}/api"]),
        "oas3-slash": spec({"/p": {"get": op("p")}}, servers=[f"http://{h}/api/", f"https://{h}/api"]),
        "oas3-op": spec({"/p": {"get": op("p", servers=[{"url": f"http://{h}/api"}, {"url": f"https://{h}/api"}])}}, servers=[f"http://other.invalid/x"]),
        "swagger2": {"swagger": "2.0", "info": {"title": "s2", "version": "1"}, "host": h, "basePath": "/api",
                     "schemes": ["http", "https"], "paths": {"/p": {"get": {"operationId": "p", "responses": {"200": {"description": "ok"}}}}}},
        "localhost-vs-ip": spec({"/p": {"get": op("p")}}, servers=[f"http://localhost:{raw.port}/api", f"https://localhost:{raw.port}/api"]),
    }
    for name, d in variants.items():
        sp = wfile(f"https-{name}.json", d)
        raw.first.clear()
        s = Stdio(sp, ["--timeout", "3"], tag=f"https-{name}")
        s.initialize()
        r = result_of(s.call("p", {}))
        time.sleep(0.1)
        firsts = [f[:1] for f in raw.first]
        ok = firsts and all(f == b"\x16" for f in firsts)
        check(f"https-first-{name}", f"http listed before https for the same server ({name}): https is used",
              ok, f"first bytes={[f[:16] for f in raw.first]} result={all_text(r)[:150] if r else None}")
        s.close()
    raw.close()


def http_checks(up):
    sp = wfile("httpchk.json", spec({"/x": {"get": op("x")}}, servers=[up.url]))
    hs = HttpServe(sp, [], tag="httpchk")
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    def req(headers):
        return (b"POST /mcp HTTP/1.1\r\n" + b"".join(h.encode() + b"\r\n" for h in headers) +
                b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
                f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    P = hs.port
    base = raw_http(P, req([f"Host: 127.0.0.1:{P}"]))
    check("host-single-ok", "one Host header: 200 (baseline)", base.startswith(b"HTTP/1.1 200"), base[:200])
    for cid, hdrs in [("same", [f"Host: 127.0.0.1:{P}", f"Host: 127.0.0.1:{P}"]),
                      ("differ", [f"Host: 127.0.0.1:{P}", "Host: evil.example"]),
                      ("case", [f"Host: 127.0.0.1:{P}", f"host: localhost:{P}"]),
                      ("empty-second", [f"Host: 127.0.0.1:{P}", "Host:"])]:
        out = raw_http(P, req(hdrs))
        check(f"host-two-{cid}", f"two Host headers ({cid}) get 400", out.startswith(b"HTTP/1.1 400"), out[:200])
    out = raw_http(P, req([f"Host: 127.0.0.1:{P}"]).replace(b"POST /mcp ", b"POST http://evil.example/mcp "))
    check("host-absolute-form", "absolute-form target naming another host is refused", out[:12] in (b"HTTP/1.1 400", b"HTTP/1.1 403"), out[:200])
    out = raw_http(P, req(["Host: evil.example"]))
    check("host-foreign", "a foreign Host gets 403", out.startswith(b"HTTP/1.1 403"), out[:200])
    # standard headers under 2026-07-28
    V = {"MCP-Protocol-Version": "2026-07-28"}
    def st(hdr, msg):
        s_, _, data = hs.post(msg, dict(V, **hdr))
        return s_, data[:200]
    tl = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    tc = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"}}}}
    for cid, hdr, msg, want in [
        ("list-match", {"Mcp-Method": "tools/list"}, tl, 200),
        ("list-missing", {}, tl, 400),
        ("list-differ", {"Mcp-Method": "tools/call"}, tl, 400),
        ("list-case", {"Mcp-Method": "Tools/List"}, tl, 400),
        ("list-two", {"Mcp-Method": "tools/list, tools/call"}, tl, 400),
        ("call-match", {"Mcp-Method": "tools/call", "Mcp-Name": "x"}, tc, 200),
        ("call-name-differ", {"Mcp-Method": "tools/call", "Mcp-Name": "y"}, tc, 400),
        ("call-name-missing", {"Mcp-Method": "tools/call"}, tc, 400),
        ("call-method-differ", {"Mcp-Method": "tools/list", "Mcp-Name": "x"}, tc, 400),
    ]:
        code, data = st(hdr, msg)
        check(f"stdhdr-{cid}", f"MCP-Protocol-Version 2026-07-28, {cid}: HTTP {want}", code == want, f"got {code} {data!r}")
    code, data = st({}, tl) if False else (None, None)
    s_, _, data = hs.post(tl, {"MCP-Protocol-Version": "2025-06-18"})
    check("stdhdr-old-version", "under 2025-06-18 no Mcp-Method needed (baseline)", s_ == 200, data[:200])
    hs.close()


def refs():
    d = os.path.join(WORK, "refs", "doc")
    os.makedirs(os.path.join(d, "sub"), exist_ok=True)
    marker = "OUTSIDE-MARKER-7731"
    outside = wfile("refs/outside.json", {"components": {"schemas": {"X": {"type": "string", "description": marker}}}, "X": {"type": "string", "description": marker}})
    linkp = os.path.join(d, "link.json")
    if not os.path.exists(linkp):
        os.symlink(outside, linkp)
    fifo = os.path.join(d, "fifo.json")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    variants = {"dotdot": "../outside.json#/X", "abs": outside + "#/X", "file-url": "file://" + outside + "#/X",
                "sub-dotdot": "sub/../../outside.json#/X", "pct": "..%2Foutside.json#/X",
                "symlink": "link.json#/X", "fifo": "fifo.json#/X", "dev": "/dev/zero#/X",
                "http": "http://127.0.0.1:9/x.json#/X"}
    for name, ref in variants.items():
        sp = os.path.join(d, f"spec-{name}.json")
        with open(sp, "w") as f:
            json.dump(spec({"/x": {"get": op("x", [pparam("q", {"$ref": ref}, where="query")])}}, servers=["http://127.0.0.1:9"]), f)
        p = subprocess.Popen([BIN, "serve", sp], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        PROCS.append(p)
        try:
            msg = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
            out, err = p.communicate(msg, timeout=8)
            timed = False
        except subprocess.TimeoutExpired:
            p.kill(); out, err = p.communicate(); timed = True
        ok = (not timed) and p.returncode != 0 and marker.encode() not in out
        check(f"ref-outside-{name}", f"$ref {ref[:40]!r} outside the document's folder is refused at start-up",
              ok, f"timed_out={timed} exit={p.returncode} marker_in_tools={marker.encode() in out} stderr={err[-200:]!r}")
