"""Class 6: say what is risky."""
from lib import *

BAD = ("".join(chr(c) for c in list(range(1, 9)) + [0x0b, 0x0c, 0x0d] + list(range(0x0e, 0x20))) + "\x7f" +
       "".join(chr(c) for c in range(0x80, 0xa0)) +
       "".join(chr(c) for c in range(0x202a, 0x202f)) + "".join(chr(c) for c in range(0x2066, 0x206a)))


def startup(spec_path, args=(), env=None, wait=1.5):
    e = {k: v for k, v in os.environ.items() if not k.startswith("OPENAPI_MCP")}
    e.update(env or {})
    p = subprocess.Popen([BIN, "serve", spec_path, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=e)
    PROCS.append(p)
    try:
        out, err = p.communicate(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}\n', timeout=wait + 5)
    except subprocess.TimeoutExpired:
        p.kill(); out, err = p.communicate()
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def warned(err, needle):
    return any(needle in l and re.search(r"warn|cleartext|plain|insecure|not encrypted|unencrypted", l, re.I) for l in err.splitlines())


def run():
    # ---- plain-http token URLs and API servers
    def oauth_spec(token_url, server="https://api.example.com"):
        return spec({"/x": {"get": op("x")}}, schemes={"o": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": {}}}}},
                    security=[{"o": []}], servers=[server])
    cc = {"OPENAPI_MCP_O_CLIENT_ID": "id", "OPENAPI_MCP_O_CLIENT_SECRET": "secretsecret"}
    for cid, url, env in [("doc", "http://auth.example.com/token", {}),
                          ("upper-scheme", "HTTP://auth.example.com/token", {}),
                          ("env", "https://auth.example.com/token", {"OPENAPI_MCP_O_TOKEN_URL": "http://auth2.example.com/t"}),
                          ("localhost-lookalike", "http://localhost.example.com/token", {})]:
        sp = wfile(f"tok-{cid}.json", oauth_spec(url))
        rc, out, err = startup(sp, env=dict(cc, **env))
        host = (env.get("OPENAPI_MCP_O_TOKEN_URL") or url).split("//")[1].split("/")[0].lower()
        check(f"warn-token-url-{cid}", f"plain-http token URL ({cid}: {host}) is warned about (or refused) at start-up",
              warned(err.lower(), host) or (rc == 2 and "token url" in err.lower()), err[-600:])
    sp = wfile("tok-https.json", oauth_spec("https://auth.example.com/token"))
    rc, out, err = startup(sp, env=cc)
    check("warn-token-url-https-quiet", "an https token URL gets no cleartext warning (baseline)", not warned(err.lower(), "auth.example.com"), err[-400:])
    key = {"type": "apiKey", "in": "header", "name": "X-Key"}
    for cid, servers, args, env in [
            ("doc-server", ["http://api.example.com/v1"], [], {}),
            ("base-url", ["https://api.example.com/v1"], ["--base-url", "http://api2.example.com"], {}),
            ("env-base-url", ["https://api.example.com/v1"], [], {"OPENAPI_MCP_BASE_URL": "http://api3.example.com"}),
            ("lookalike", ["http://127.0.0.1.example.com/v1"], [], {}),
            ("header-file", ["http://api4.example.com"], ["--header-file", "HF"], {})]:
        d = spec({"/x": {"get": op("x")}}, schemes={"k": key}, security=[{"k": []}], servers=servers)
        if cid == "header-file":
            d = spec({"/x": {"get": op("x")}}, servers=servers)
            args = ["--header-file", wfile("warn.headers", "Authorization: Bearer abcdefghijkl\n")]
        sp = wfile(f"srv-{cid}.json", d)
        e = {"OPENAPI_MCP_K": "apikeyvalue123"} if cid != "header-file" else {}
        e.update(env)
        rc, out, err = startup(sp, args, env=e)
        url = (args[1] if cid == "base-url" else env.get("OPENAPI_MCP_BASE_URL") or servers[0])
        host = url.split("//")[1].split("/")[0]
        check(f"warn-http-server-{cid}", f"credentials to a plain-http API off loopback ({cid}: {host}) are warned about",
              warned(err, host), err[-600:])
    # ---- --allow-origin null
    sp = wfile("origin.json", spec({"/x": {"get": op("x")}}, servers=["http://127.0.0.1:9"]))
    for v in ["null", "NULL", "Null", " null"]:
        p = subprocess.run([BIN, "serve", sp, "--http", "127.0.0.1:0", "--allow-origin", v], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=5) if False else None
        pr = subprocess.Popen([BIN, "serve", sp, "--http", "127.0.0.1:0", "--allow-origin", v], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        PROCS.append(pr)
        try:
            _, err = pr.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            pr.terminate(); _, err = pr.communicate()
        err = err.decode()
        ok = pr.returncode == 2 or ("null" in err.lower() and re.search(r"warn", err, re.I))
        check(f"allow-origin-{v.strip()}-{len(v)}", f"--allow-origin {v!r} refused at start-up or warned", ok, f"exit={pr.returncode} {err[-300:]!r}")
    # ---- secrets for --header / --base-url from env or a file
    up = Upstream()
    up.route("/", lambda r: r.reply(200, json.dumps({"h": r.headers.get("X-Sig"), "a": r.headers.get("Authorization"), "p": r.path})))
    sp = wfile("hdrs.json", spec({"/x": {"get": op("x")}}))
    s = Stdio(sp, ["--header-file", wfile("h2.headers", "# c\n\nAuthorization: Bearer fromFILEtoken99\n")],
              env={"OPENAPI_MCP_HEADERS": "X-Sig: fromENVsig12345", "OPENAPI_MCP_BASE_URL": up.url + "/envbase"}, tag="hdrs")
    s.initialize()
    up.clear()
    r = result_of(s.call("x", {}))
    reqs = up.requests()
    h = reqs[0]["headers"] if reqs else {}
    out = json.dumps(r)
    ok = reqs and h.get("x-sig") == "fromENVsig12345" and h.get("authorization") == "Bearer fromFILEtoken99" and reqs[0]["path"].startswith("/envbase/")
    check("secrets-from-env-file", "headers from OPENAPI_MCP_HEADERS and --header-file, and OPENAPI_MCP_BASE_URL, are used", ok, f"{reqs[:1]}")
    check("secrets-from-env-file-masked", "those headers are masked when echoed back", "fromENVsig12345" not in out and "fromFILEtoken99" not in out, out[:300])
    cmd = open(f"/proc/{s.p.pid}/cmdline", "rb").read()
    check("secrets-not-in-cmdline", "the secrets are not in the process's command line", b"fromENV" not in cmd and b"fromFILE" not in cmd, cmd)
    s.close()
    # ---- controls and bidi overrides stripped
    t = "Ti" + BAD + "tle"
    d = spec({"/x/{id}": {"get": op("get" + "\u202e" + "x\u0007", [dict(pparam("id"), description="pd" + BAD + "end")],
                                     summary="Sum" + BAD + "mary", description="De" + BAD + "sc\n\ttab")}},
             servers=["http://127.0.0.1:9"], title=t)
    d["info"]["description"] = "info" + BAD
    sp = wfile("ctrl.json", d)
    p = subprocess.run([BIN, "convert", sp], capture_output=True, timeout=10)
    conv = p.stdout.decode("utf-8")
    def found(text):
        v = json.loads(text) if text.strip().startswith("{") else None
        hits = []
        def walk(x, path):
            if isinstance(x, str):
                bad = sorted({"U+%04X" % ord(c) for c in x if c in BAD})
                if bad:
                    hits.append(f"{path}: {bad[:6]}{'...' if len(bad) > 6 else ''}")
            elif isinstance(x, dict):
                for k, y in x.items():
                    walk(k, path + "/<key>"); walk(y, path + "/" + k)
            elif isinstance(x, list):
                for i, y in enumerate(x):
                    walk(y, f"{path}/{i}")
        walk(v, "")
        return hits
    hits = found(conv) if conv else ["no output: " + p.stderr.decode()[-200:]]
    top = [h for h in hits if re.search(r"/tools/\d+/(name|title|description|annotations/title)$", h.split(":")[0])]
    check("ctrl-convert-tool-text", "convert: C0/C1 controls and bidi overrides stripped from tool names, titles, descriptions", not top, top)
    params = [h for h in hits if "inputSchema" in h]
    check("ctrl-convert-param-desc", "convert: ... and from parameter descriptions in inputSchema", not params, params)
    s = Stdio(sp, [], tag="ctrl")
    init = s.initialize()
    name = ((init or {}).get("result") or {}).get("serverInfo", {}).get("name", "")
    badn = sorted({"U+%04X" % ord(c) for c in name if c in BAD})
    check("ctrl-serverinfo-name", "serve: serverInfo.name (from info.title) has no controls or bidi overrides", name and not badn, f"{name!r} {badn}")
    tl = s.request("tools/list")
    hits = found(json.dumps(tl["result"])) if tl else ["no tools/list"]
    top = [h for h in hits if re.search(r"/tools/\d+/(name|title|description|annotations/title)$", h.split(":")[0])]
    check("ctrl-serve-tool-text", "serve: tools/list names/titles/descriptions stripped", not top, top)
    ins = sorted({"U+%04X" % ord(c) for c in json.dumps(init, ensure_ascii=False) if c in BAD})
    check("ctrl-serve-initialize", "serve: nothing in the initialize answer (instructions, serverInfo) carries controls", not ins, ins)
    s.close()
    s = Stdio(sp, ["--dynamic"], tag="ctrl-dyn")
    s.initialize()
    r1 = result_of(s.call("search_operations", {"query": "summary"}))
    txt = json.dumps(r1, ensure_ascii=False)
    bad = sorted({"U+%04X" % ord(c) for c in txt if c in BAD})
    check("ctrl-dynamic-search", "--dynamic search_operations hits carry no controls or bidi overrides", r1 is not None and not bad, bad or r1)
    nm = None
    try:
        nm = re.search(r'"name"\s*:\s*"([^"]+)"', all_text(r1)).group(1)
    except Exception:
        pass
    r2 = result_of(s.call("describe_operation", {"name": nm or "getx"}))
    d2 = json.loads(all_text(r2)) if r2 and not is_error(r2) else {}
    tt = json.dumps({k: d2.get(k) for k in ("name", "title", "description")}, ensure_ascii=False)
    bad = sorted({"U+%04X" % ord(c) for c in tt if c in BAD})
    check("ctrl-dynamic-describe", "--dynamic describe_operation name/title/description stripped", r2 is not None and not is_error(r2) and not bad, bad or all_text(r2)[:200] if r2 else None)
    s.close()
    # ---- bearer token on HTTP
    up2 = Upstream(); up2.route("/", lambda r: r.reply(200, b"{}"))
    sp = wfile("tok.json", spec({"/x": {"get": op("x")}}, servers=[up2.url]))
    TOK = "T0ken-" + "k" * 34
    hs = HttpServe(sp, [], env={"OPENAPI_MCP_HTTP_TOKEN": TOK}, tag="tok")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    st, hd, _ = hs.post(body)
    check("token-right", "the right bearer token is accepted (baseline)", st == 200, st)
    for cid, auth in [("prefix", "Bearer " + TOK[:-1]), ("longer", "Bearer " + TOK + "k"), ("empty", "Bearer "),
                      ("case", "Bearer " + TOK.upper()), ("basic", "Basic " + base64.b64encode(TOK.encode()).decode()),
                      ("none", None), ("double", "Bearer " + TOK + ", Bearer " + TOK), ("nul", "Bearer " + TOK[:5])]:
        h = {"Authorization": auth} if auth is not None else {}
        st, hd, data = hs.post(body, h, token=auth is None and False)
        www = {k.lower(): v for k, v in hd.items()}.get("www-authenticate", "")
        check(f"token-wrong-{cid}", f"a wrong bearer token ({cid}) gets 401 with WWW-Authenticate", st == 401 and "Bearer" in www, f"{st} {www!r} {data[:100]!r}")
    hs.close()
    hs = HttpServe(sp, [], env={"OPENAPI_MCP_HTTP_TOKEN": "short"}, tag="tok-short")
    time.sleep(0.2)
    err = hs.stderr()
    check("token-short-warned", "an HTTP token shorter than 16 characters gets a start-up warning", re.search(r"warn", err, re.I) and "16" in err, err[-400:])
    hs.close()
