"""Class 2: credentials never reach the model."""
from lib import *

APIKEY = 'Zk9/Qw+Rt&y=U<p>"s\'x~Vb mKEY'
BEARER = 'bEaR.tok_9f8e7d6c/5b4a+=Zz'
BUSER, BPASS = 'probeuser', 'p@ss:w0rd/Secret+1'
COOKIE = 'ckSessVal9x8y7z6wQQ'
QKEY = 'q key/&=+val#42?Qq\u00e9\U0001F600z'
HDRVAL = 'sigVALUE-77aa88bb/+Hh'
CLIENT_ID, CLIENT_SECRET = 'probe-client', 'cl!ent/S3cret+&Zz'

CREDS = ["hdr", "bearer", "basic", "cookie", "query", "hfile", "oauth"]


def received_secret(req, cred):
    h = {k.lower(): v for k, v in req.headers.items()}
    if cred == "hdr":
        return h.get("x-api-key")
    if cred in ("bearer", "oauth"):
        a = h.get("authorization", "")
        return a[7:] if a.startswith("Bearer ") else None
    if cred == "basic":
        a = h.get("authorization", "")
        if a.startswith("Basic "):
            try:
                return base64.b64decode(a[6:]).decode().split(":", 1)[1]
            except Exception:
                return None
        return None
    if cred == "cookie":
        for part in h.get("cookie", "").split(";"):
            k, _, v = part.strip().partition("=")
            if k == "probe_sess":
                return urllib.parse.unquote(v)
        return None
    if cred == "query":
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(req.path).query)
        return (q.get("api_key") or [None])[0]
    if cred == "hfile":
        return h.get("x-upstream-sig")
    return None


def u_esc(ch, upper=False):
    if ord(ch) > 0xFFFF:
        v = ord(ch) - 0x10000
        x = "\\u%04x\\u%04x" % (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
    else:
        x = "\\u%04x" % ord(ch)
    return x.upper().replace("\\U", "\\u") if upper else x


def sse_lines(S):
    return f"event: tick\ndata: {S}\n\nevent: tick\ndata: glued{S}glued\n\n"


def echo(mode, S, req):
    """(status, content-type, body bytes, headers, literal encoded forms to look for)"""
    js = lambda o: json.dumps(o)
    mid = len(S) // 2
    if mode == "json_raw":
        b = js({"v": S}); f = []
    elif mode == "json_slash":
        b = js({"v": S}).replace("/", "\\/"); f = [S.replace("/", "\\/")]
    elif mode == "json_u_all":
        enc = "".join(u_esc(c) for c in S); b = '{"v":"%s"}' % enc; f = [enc]
    elif mode == "json_u_one_upper":
        enc = json.dumps(S)[1:-1]; c = S[mid]
        enc2 = json.dumps(S[:mid])[1:-1] + u_esc(c, True) + json.dumps(S[mid + 1:])[1:-1]
        b = '{"v":"%s"}' % enc2; f = [enc2]
    elif mode == "json_u_one_lower":
        enc2 = json.dumps(S[:3])[1:-1] + u_esc(S[3]) + json.dumps(S[4:])[1:-1]
        b = '{"v":"%s"}' % enc2; f = [enc2]
    elif mode == "json_after_escapes":
        b = '{"v":"line\\n%s\\tend\\r\\n%s"}' % (json.dumps(S)[1:-1], json.dumps(S)[1:-1]); f = []
    elif mode == "json_nested":
        b = js({"v": js({"inner": S}), "w": js({"a": js({"b": S})})}); f = []
    elif mode == "json_glued":
        b = js({"v": "abc" + S + "xyz", "w": "0" + S + "9"}); f = []
    elif mode == "json_as_key":
        b = js({S: 1, "k": {"x" + S: True}}); f = []
    elif mode == "json_url_in_json":
        b = js({"next": "https://x.example/?k=" + urllib.parse.quote_plus(S),
                "low": "https://x.example/?k=" + urllib.parse.quote(S, safe="").lower()}); f = []
    elif mode == "text_plain":
        b = f"token={S}\nglued:xx{S}yy\n"; f = []
        return 200, "text/plain", b.encode(), [], f
    elif mode == "url_plus":
        enc = urllib.parse.quote_plus(S); b = f"k={enc}&z=1"; f = [enc]
        return 200, "text/plain", b.encode(), [], f
    elif mode == "url_lower":
        enc = re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), urllib.parse.quote(S, safe=""))
        b = f"k={enc}"; f = [enc]
        return 200, "text/plain", b.encode(), [], f
    elif mode == "url_every_char":
        enc = "".join("%%%02X" % ord(c) for c in S); b = f"k={enc}"; f = [enc]
        return 200, "text/plain", b.encode(), [], f
    elif mode == "url_double":
        enc = urllib.parse.quote(urllib.parse.quote(S, safe=""), safe=""); b = f"k={enc}"; f = [enc]
        return 200, "text/plain", b.encode(), [], f
    elif mode == "html_amp":
        enc = html.escape(S, quote=True); b = f"<p title=\"{enc}\">{enc}</p>"; f = [enc]
        return 200, "text/html", b.encode(), [], f
    elif mode == "html_hex_every":
        enc = "".join("&#x%x;" % ord(c) for c in S); b = f"<p>{enc}</p>"; f = [enc]
        return 200, "text/html", b.encode(), [], f
    elif mode == "html_dec_one":
        enc = S[:mid] + "&#%d;" % ord(S[mid]) + S[mid + 1:]; b = f"<p>{enc}</p>"; f = [enc]
        return 200, "text/html", b.encode(), [], f
    elif mode == "html_in_json":
        enc = html.escape(S, quote=True); b = js({"html": f"<b>{enc}</b>"}); f = [enc]
    elif mode == "base64":
        enc = base64.b64encode(S.encode()).decode(); b = js({"b64": enc}); f = [enc]
    elif mode == "base64url":
        enc = base64.urlsafe_b64encode(S.encode()).decode().rstrip("="); b = f"t={enc}"; f = [enc]
        return 200, "text/plain", b.encode(), [], f
    elif mode == "csv":
        q = '"' + S.replace('"', '""') + '"'; b = f"id,key\n1,{q}\n2,x{S.replace(',', '')}\n"; f = [S.replace('"', '""')]
        return 200, "text/csv", b.encode(), [], f
    elif mode == "xml":
        enc = html.escape(S, quote=False); b = f"<?xml version=\"1.0\"?><r><k>{enc}</k><a v=\"{html.escape(S)}\"/></r>"; f = [enc]
        return 200, "application/xml", b.encode(), [], f
    elif mode == "svg":
        enc = html.escape(S); b = f"<svg xmlns=\"http://www.w3.org/2000/svg\"><text>{enc}</text><desc>{enc}</desc></svg>"; f = [enc]
        return 200, "image/svg+xml", b.encode(), [], f
    elif mode == "sse":
        b = sse_lines(S); f = []
        return 200, "text/event-stream", b.encode(), [], f
    elif mode == "ndjson":
        b = js({"a": S}) + "\n" + js({"b": "x" + S}) + "\n"; f = []
        return 200, "application/x-ndjson", b.encode(), [], f
    elif mode == "octet_utf8":
        b = f"raw {S} end"; f = []
        return 200, "application/octet-stream", b.encode(), [], f
    elif mode == "no_ctype":
        return 200, None, f"raw {S} end".encode(), [], []
    elif mode == "utf16":
        b = ("\ufeff" + f"k={S}").encode("utf-16-le"); f = []
        return 200, "text/plain; charset=utf-16", b, [], f
    elif mode == "latin1":
        b = f"k=\xe9{S}\xe9".encode("latin-1", "ignore"); f = []
        return 200, "text/plain; charset=iso-8859-1", b, [], f
    elif mode == "headers_echo":
        b = js({"headers": dict(req.headers.items()), "path": req.path}); f = []
    elif mode == "headers_echo_text":
        b = "\n".join(f"{k}: {v}" for k, v in req.headers.items()) + "\n" + req.path; f = []
        return 200, "text/plain", b.encode(), [], f
    elif mode == "err400_json":
        return 400, "application/json", js({"error": f"bad key {S}", "key": S}).encode(), [], []
    elif mode == "err401_text":
        return 401, "text/plain", f"Unauthorized: {S} / {urllib.parse.quote_plus(S)}".encode(), [], [urllib.parse.quote_plus(S)]
    elif mode == "err500_html":
        return 500, "text/html", f"<h1>oops</h1><pre>{html.escape(S)}</pre>".encode(), [], [html.escape(S)]
    elif mode == "err_boundary":
        pad = "e" * (2000 - mid)
        return 502, "text/plain", (pad + S + "tail" * 50).encode(), [], []
    elif mode == "err_boundary_json":
        enc = "".join(u_esc(c) for c in S)
        pad = "e" * (2000 - len(enc) // 2 - 10)
        return 500, "application/json", ('{"m":"%s%s"}' % (pad, enc)).encode(), [], [enc]
    elif mode == "redirect":
        loc = "http://127.0.0.1:9/cb?token=" + urllib.parse.quote_plus(S) + "&raw=" + S.replace(" ", "").encode().decode("latin-1")
        return 302, "text/plain", f"see {loc} {S}".encode(), [("Location", loc)], [urllib.parse.quote_plus(S)]
    elif mode == "budget_text":
        unit = "filler " + S + " "
        return 200, "text/plain", (unit * (120000 // len(unit))).encode(), [], []
    elif mode == "budget_text_offsets":
        # the secret at every offset mod its length, so one occurrence straddles any cut point
        parts = []
        for i in range(3000):
            parts.append("x" * (i % 37) + S)
        return 200, "text/plain", "".join(parts).encode(), [], []
    elif mode == "budget_json_string":
        b = js({"doc": ("lorem " + S + " ") * 3000}); f = []
    elif mode == "budget_json_list":
        b = js([{"id": i, "k": S, "n": "pad" * 20} for i in range(3000)]); f = []
    else:
        return 404, "text/plain", b"unknown mode", [], []
    return 200, "application/json", b.encode(), [], f


MODES = ["json_raw", "json_slash", "json_u_all", "json_u_one_upper", "json_u_one_lower",
         "json_after_escapes", "json_nested", "json_glued", "json_as_key", "json_url_in_json",
         "text_plain", "url_plus", "url_lower", "url_every_char", "url_double", "html_amp",
         "html_hex_every", "html_dec_one", "html_in_json", "base64", "base64url", "csv", "xml",
         "svg", "sse", "ndjson", "octet_utf8", "no_ctype", "utf16", "latin1", "headers_echo",
         "headers_echo_text", "err400_json", "err401_text", "err500_html", "err_boundary",
         "err_boundary_json", "redirect", "budget_text", "budget_text_offsets",
         "budget_json_string", "budget_json_list"]

SECRETS = {"hdr": APIKEY, "bearer": BEARER, "basic": BPASS, "cookie": COOKIE, "query": QKEY,
           "hfile": HDRVAL}


def make_upstream():
    up = Upstream()
    state = {"tokens": [], "n": 0}
    up.state = state

    def token_ep(req):
        body = urllib.parse.parse_qs(req.body.decode())
        auth = req.headers.get("Authorization", "")
        ok = auth == "Basic " + base64.b64encode(
            f"{urllib.parse.quote_plus(CLIENT_ID)}:{urllib.parse.quote_plus(CLIENT_SECRET)}".encode()).decode()
        if not ok:
            # echo what we got into the error, as a careless token endpoint may
            return req.reply(401, json.dumps({"error": "invalid_client",
                                               "error_description": f"got {auth} and {body}"}))
        state["n"] += 1
        t = f"oatk{state['n']:04d}x{os.urandom(6).hex()}"
        state["tokens"].append(t)
        req.reply(200, json.dumps({"access_token": t, "token_type": "Bearer"}))

    def bad_token_ep(req):
        auth = req.headers.get("Authorization", "")
        req.reply(401, json.dumps({"error": "invalid_client",
                                   "error_description": f"secret {CLIENT_SECRET} / {auth} / {urllib.parse.quote_plus(CLIENT_SECRET)}"}))

    up.route("/token", token_ep)
    up.route("/badtoken", bad_token_ep)

    def rotate(req):
        # each token is good once: the next use gets 401, so serve fetches a new one
        t = received_secret(req, "oauth")
        used = state.setdefault("used", set())
        if t in used:
            return req.reply(401, b'{"error":"expired"}')
        used.add(t)
        req.reply(200, json.dumps({"ok": True}))

    def dump(req):
        req.reply(200, json.dumps({"tokens": state["tokens"]}))

    up.route("/api/oauth/rotate", rotate)
    up.route("/api/oauth/dump", dump)

    def echo_route(req):
        parts = req.path.split("?")[0].split("/")
        cred, mode = parts[2], parts[3]
        S = received_secret(req, cred)
        if S is None:
            return req.reply(200, json.dumps({"v": "NOT-SENT"}))
        st, ct, body, hdrs, forms = echo(mode, S, req)
        req.send_response(st)
        if ct:
            req.send_header("Content-Type", ct)
        req.send_header("Content-Length", str(len(body)))
        for k, v in hdrs:
            req.send_header(k, v)
        req.end_headers()
        req.wfile.write(body)

    up.route("/api/", echo_route)
    return up


def make_spec(up):
    schemes = {
        "hdr": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        "bearer": {"type": "http", "scheme": "bearer"},
        "basic": {"type": "http", "scheme": "basic"},
        "cookie": {"type": "apiKey", "in": "cookie", "name": "probe_sess"},
        "query": {"type": "apiKey", "in": "query", "name": "api_key"},
        "oauth": {"type": "oauth2", "flows": {"clientCredentials": {
            "tokenUrl": up.url + "/token", "scopes": {"read": "r"}}}},
        "badoauth": {"type": "oauth2", "flows": {"clientCredentials": {
            "tokenUrl": up.url + "/badtoken", "scopes": {}}}},
    }
    paths = {}
    for c in CREDS:
        sec = [{c: []}] if c != "hfile" else []
        paths[f"/{c}/{{mode}}"] = {"get": op(f"{c}_echo", [pparam("mode")], security=sec,
                                             description=f"echo {c}")}
    paths["/oauth/rotate"] = {"get": op("oauth_rotate", security=[{"oauth": ["read"]}])}
    paths["/oauth/dump"] = {"get": op("oauth_dump", security=[{"oauth": ["read"]}])}
    paths["/bad/oauth"] = {"get": op("bad_oauth", security=[{"badoauth": []}])}
    return spec(paths, schemes=schemes, servers=[up.url + "/api"])


def env_for(up):
    return {"OPENAPI_MCP_HDR": APIKEY, "OPENAPI_MCP_BEARER": BEARER,
            "OPENAPI_MCP_BASIC": f"{BUSER}:{BPASS}", "OPENAPI_MCP_COOKIE": COOKIE,
            "OPENAPI_MCP_QUERY": QKEY,
            "OPENAPI_MCP_OAUTH_CLIENT_ID": CLIENT_ID, "OPENAPI_MCP_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
            "OPENAPI_MCP_BADOAUTH_CLIENT_ID": CLIENT_ID,
            "OPENAPI_MCP_BADOAUTH_CLIENT_SECRET": CLIENT_SECRET}


def extra_forms_for(cred, S):
    forms = [base64.b64encode(S.encode()).decode()]
    if cred == "basic":
        forms.append(base64.b64encode(f"{BUSER}:{BPASS}".encode()).decode())
    return forms


def prefixes(S, n=7):
    """Every run of n consecutive characters of S: a cut secret leaves one."""
    return [S[i:i + n] for i in range(0, len(S) - n + 1)]


def scan_result(msg, cred, S, mode):
    if msg is None or "result" not in msg:
        return f"no tool result: {str(msg)[:300]}"
    res = msg.get("result") or msg.get("error")
    if "NOT-SENT" in json.dumps(res):
        return "credential was not sent upstream (harness could not test)"
    forms = extra_forms_for(cred, S)
    if mode in ("base64", "base64url"):
        forms.append(base64.urlsafe_b64encode(S.encode()).decode().rstrip("="))
    lk = leaks(res, S, forms)
    if lk:
        return lk
    if mode.startswith("budget") or mode.startswith("err_boundary"):
        for s in strings_in(res):
            for d in decodings(s):
                for p in prefixes(S, 8):
                    if p in d and p.strip() == p:
                        return f"piece {p!r} of the secret survives a cut: {snippet(d, p)}"
    return None


def run(only=None):
    up = make_upstream()
    sp = wfile("creds.json", make_spec(up))
    hf = wfile("creds.headers", f"# secret headers\nX-Upstream-Sig: {HDRVAL}\n")
    env = env_for(up)
    s = Stdio(sp, ["--verbose", "--header-file", hf], env=env, tag="creds")
    init = s.initialize()
    if not init:
        check("cred-start", "serve starts with every credential set", False, s.stderr()[-2000:])
        return
    # ---- every mode x every credential, over stdio
    for mode in MODES:
        bad = []
        for cred in CREDS:
            if cred == "oauth":
                continue
            S = SECRETS[cred]
            m = s.call(f"{cred}_echo", {"mode": mode}, timeout=20)
            why = scan_result(m, cred, S, mode)
            if why:
                bad.append(f"[{cred}] {why}")
        # oauth: the current token
        m = s.call("oauth_echo", {"mode": mode}, timeout=20)
        toks = up.state["tokens"]
        if toks:
            why = scan_result(m, "oauth", toks[-1], mode)
            if why:
                bad.append(f"[oauth] {why}")
        check(f"cred-{mode}", f"credentials echoed as {mode} are masked (stdio, 7 kinds)",
              not bad, "; ".join(bad))
    # ---- the verbose log
    err = s.stderr()
    bad = []
    for cred, S in list(SECRETS.items()) + [("oauth", t) for t in up.state["tokens"]] + [("client", CLIENT_SECRET)]:
        for line in err.splitlines():
            for d in decodings(line):
                if S in d:
                    bad.append(f"[{cred}] {snippet(d, S)}")
                    break
            for f in extra_forms_for(cred, S):
                if f in line:
                    bad.append(f"[{cred}] b64 {snippet(line, f)}")
    check("cred-verbose-log", "no credential in the --verbose log on stderr", not bad, "; ".join(bad[:5]))
    check("cred-verbose-log-has-lines", "--verbose logged the requests (so the log check is real)",
          err.count("/api/") >= 50, err[-500:])
    # ---- token endpoint that echoes the client secret in its error
    m = s.call("bad_oauth", {}, timeout=20)
    res = result_of(m)
    basic = base64.b64encode(f"{urllib.parse.quote_plus(CLIENT_ID)}:{urllib.parse.quote_plus(CLIENT_SECRET)}".encode()).decode()
    lk = leaks(res, CLIENT_SECRET, [basic])
    check("cred-token-endpoint-error", "a token endpoint error quoting the client secret/Basic form is masked",
          res is not None and is_error(res) and not lk, lk or res)
    # ---- more than 64 distinct OAuth tokens
    before = len(up.state["tokens"])
    okcalls = 0
    for i in range(72):
        r = result_of(s.call("oauth_rotate", {}, timeout=20))
        if r and not is_error(r):
            okcalls += 1
    toks = list(up.state["tokens"])
    m = s.call("oauth_dump", {}, timeout=20)
    res = result_of(m)
    out = json.dumps(res)
    unmasked = [t for t in toks if t in out]
    recent = toks[-65:]
    recent_leak = [t for t in recent if t in out]
    check("cred-oauth-many-refresh", f"after {len(toks)} distinct OAuth tokens the current one and the latest 64 are masked",
          len(toks) - before >= 65 and okcalls >= 70 and not recent_leak,
          f"tokens={len(toks)} new={len(toks)-before} ok_calls={okcalls} recent unmasked={recent_leak[:3]} ({len(recent_leak)})")
    older = [t for t in toks[:-65] if t in out]
    info(f"oauth: {len(older)} of {len(toks[:-65])} tokens older than the latest 65 are shown unmasked (README masks only the latest 64 dropped)")
    s.close()

    # ---- over HTTP, a subset of modes
    hs = HttpServe(sp, ["--header-file", hf], env=dict(env, OPENAPI_MCP_HTTP_TOKEN="h" * 40), tag="creds-http")
    if not hs.port:
        check("cred-http-start", "serve --http starts", False, hs.stderr()[-1000:])
    else:
        bad = []
        for mode in ["json_u_one_upper", "json_nested", "url_double", "html_hex_every", "json_u_all",
                     "err_boundary", "budget_text_offsets", "headers_echo", "redirect", "sse"]:
            for cred in ["hdr", "bearer", "basic", "query", "hfile"]:
                m = hs.call(f"{cred}_echo", {"mode": mode}, timeout=20)
                why = scan_result(m, cred, SECRETS[cred], mode)
                if why:
                    bad.append(f"[{cred}/{mode}] {why}")
        check("cred-http", "credentials masked over Streamable HTTP (10 modes x 5 kinds)", not bad, "; ".join(bad[:6]))
        hs.close()
    return up
