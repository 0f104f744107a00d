"""Class 5: bounded work (patterns, YAML aliases, huge URLs)."""
from lib import *


def run():
    up = Upstream()
    up.route("/big414", lambda r: r.reply(414, ("URI too long: " + r.path) .encode()))
    up.route("/", lambda r: r.reply(200, json.dumps({"len": len(r.path)}).encode()))
    pats = {"alt-backref": r"^(a|aa)+\1$", "lookahead": r"^(?=(a+)+b)", "nested-backref": r"^((a+)+)\2b$",
            "lookbehind": r"(?<=(a|aa)+)c$"}
    paths = {}
    for i, (k, p) in enumerate(pats.items()):
        paths[f"/p{i}"] = {"post": op(f"pat_{i}", body={"required": True, "content": {"application/json": {"schema": {
            "type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "pattern": p}}}}}}})}
    paths["/pp"] = {"post": op("pat_props", body={"required": True, "content": {"application/json": {"schema": {
        "type": "object", "properties": {"m": {"type": "object", "patternProperties": {r"^(a|aa)+\1$": {"type": "string"}}}}}}}})}
    paths["/q"] = {"get": op("q", [pparam("q", where="query"), pparam("h", where="header", required=False)])}
    paths["/big414"] = {"get": op("big414", [pparam("q", where="query")])}
    paths["/path/{p}"] = {"get": op("pathp", [pparam("p")])}
    sp = wfile("bounded.json", spec(paths, servers=[up.url]))
    s = Stdio(sp, ["--timeout", "10"], tag="bounded")
    s.initialize()
    evil = "a" * 28 + "!"
    for i, k in enumerate(pats):
        up.clear()
        t = time.time()
        r = result_of(s.call(f"pat_{i}", {"tags": [evil] * 2000}, timeout=60))
        dt = time.time() - t
        txt = all_text(r) if r else ""
        ok = r is not None and is_error(r) and dt < 15 and not up.requests() and ("budget" in txt or "tags" in txt)
        check(f"pattern-{k}", f"backtracking pattern {pats[k]!r} x 2000 strings is refused within a bounded time with a clear tool error",
              ok, f"{dt:.1f}s error={is_error(r) if r else None} sent={len(up.requests())} text={txt[:200]}")
    t = time.time()
    r = result_of(s.call("pat_props", {"m": {("a" * 28 + "!" + str(i)): "x" for i in range(500)}}, timeout=60))
    dt = time.time() - t
    check("pattern-properties", "a backtracking patternProperties key x 500 keys is bounded",
          r is not None and dt < 15, f"{dt:.1f}s {all_text(r)[:200] if r else None}")
    r = s.request("ping", timeout=5)
    check("pattern-server-alive", "the server answers after the pattern calls", r is not None, r)
    # a matching value still passes (the check is not simply 'refuse everything')
    up.clear()
    r = result_of(s.call("pat_0", {"tags": ["aa"]}))
    check("pattern-valid-passes", "a value the pattern accepts goes through (baseline)", r is not None and not is_error(r), all_text(r)[:200] if r else None)

    # huge unbuildable URLs / values: the error text stays bounded
    for cid, tool, args in [("header-newline", "q", {"q": "x", "h": "a" * (4 << 20) + "\r\nX-Evil: 1"}),
                            ("upstream-414", "big414", {"q": "z" * (3 << 20)}),
                            ("path-huge", "pathp", {"p": "\x00" * (2 << 20)}),
                            ("query-huge-ctrl", "q", {"q": "\u0000\n" * (1 << 20)})]:
        r = result_of(s.call(tool, args, timeout=40))
        size = len(json.dumps(r)) if r else None
        ok = r is not None and size < 20000
        check(f"huge-{cid}", f"a huge argument ({cid}) gives a bounded result/error text", ok,
              f"result size={size} error={is_error(r) if r else None} text={all_text(r)[:200] if r else None}")
    s.close()
    yaml_bombs()


def yaml_bombs():
    # classic: 9 levels x 9 aliases
    lines = ['openapi: "3.0.3"', 'info: {title: bomb, version: "1"}', 'paths: {}', 'x-bomb:']
    lines.append('  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]')
    for i in range(1, 10):
        lines.append(f'  a{i}: &a{i} [' + ",".join([f"*a{i-1}"] * 9) + "]")
    classic = "\n".join(lines) + "\n"
    # few aliases, big scalar: stays under any repetition count limit
    big = "x" * (1 << 20)
    wide = 'openapi: "3.0.3"\ninfo: {title: wide, version: "1"}\npaths: {}\nx-s: &s "' + big + '"\nx-list: [' + ",".join(["*s"] * 300) + "]\n"
    # aliases to a big mapping, used from a schema that gets expanded into tools
    m = "{" + ",".join(f"k{i}: {{type: string, description: '{'d' * 200}'}}" for i in range(150)) + "}"
    schema = ('openapi: "3.0.3"\ninfo: {title: schema, version: "1"}\nservers: [{url: "http://127.0.0.1:9"}]\nx-p: &p ' + m + "\npaths:\n" +
              "".join(f"  /p{i}:\n    get:\n      operationId: p{i}\n      parameters: [{{name: q, in: query, schema: {{type: object, properties: *p}}}}]\n      responses: {{'200': {{description: ok}}}}\n" for i in range(300)))
    lines = ['openapi: "3.0.3"', 'info: {title: mid, version: "1"}', 'paths: {}', 'x-bomb:']
    lines.append('  a0: &a0 [' + ",".join(['"' + "L" * 2000 + '"'] * 9) + ']')
    for i in range(1, 6):
        lines.append(f'  a{i}: &a{i} [' + ",".join([f"*a{i-1}"] * 9) + "]")
    mid = "\n".join(lines) + "\n"
    for cid, text in [("classic", classic), ("nested-under-repetition", mid), ("wide-scalar", wide), ("schema-fanout", schema)]:
        sp = wfile(f"bomb-{cid}.yaml", text)
        t = time.time()
        outf = open(os.path.join(WORK, f"bomb-{cid}.out"), "wb")
        p = subprocess.Popen([BIN, "serve", sp], stdin=subprocess.PIPE, stdout=outf, stderr=subprocess.PIPE)
        PROCS.append(p)
        peak = 0
        timed = True
        end = time.time() + 20
        try:
            p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}\n')
            p.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
            p.stdin.flush()
            p.stdin.close()
        except Exception:
            pass
        while time.time() < end:
            h = vmhwm(p.pid)
            if h:
                peak = max(peak, h)
            if p.poll() is not None:
                timed = False
                break
            time.sleep(0.02)
        dt = time.time() - t
        if timed:
            p.kill()
        err = p.stderr.read().decode("utf-8", "replace")
        ok = not timed and dt < 15 and peak < 1024
        check(f"yaml-{cid}", f"YAML alias amplification ({cid}, {len(text)} bytes) bounded at start-up",
              ok, f"{dt:.1f}s peak={peak} MiB exit={p.returncode} stderr={err[-200:]!r}")
        info(f"yaml-{cid}: exit {p.returncode} in {dt:.1f}s, peak {peak} MiB, stderr {err.strip()[-150:]!r}")
