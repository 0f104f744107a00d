"""Class 2, more echo paths: output-schema errors, numbers, Link headers, budget notes, mimeType/uri."""
from lib import *
from t_creds import APIKEY, u_esc

NUMKEY = "839201746512907"
TOK = "cursorTOKENsecret-4242/+"


def run():
    up = Upstream()
    items = [{"id": i, "v": "x" * 60} for i in range(2000)]

    def R(fn):
        return fn

    def h_key(r):
        return r.headers.get("X-Api-Key")

    routes = {
        # output schema says integer, API sends the key as a string: the validator's message quotes it
        "/oschema": lambda r: r.reply(200, json.dumps({"v": h_key(r)})),
        "/oschema_esc": lambda r: r.reply(200, '{"v":"%s"}' % "".join(u_esc(c) for c in h_key(r))),
        "/oschema_pattern": lambda r: r.reply(200, json.dumps({"code": h_key(r) + "!"})),
        "/oschema_enum": lambda r: r.reply(200, json.dumps({"kind": h_key(r)})),
        "/oschema_key": lambda r: r.reply(200, json.dumps({"m": {h_key(r): 1}})),
        # a digit-only key echoed as a JSON number
        "/num": lambda r: r.reply(200, '{"n":%s,"f":%s.0,"e":%se0,"s":"%s"}' % (((urllib.parse.parse_qs(urllib.parse.urlsplit(r.path).query).get("nk") or ["0"])[0],) * 4)),
        # the key in a Link header of an over-budget page, and in next_cursor
        "/link": lambda r: r.reply(200, json.dumps(items), headers=[("Link", f'<{up.url}/link?page=2&api_key={urllib.parse.quote(h_key(r), safe="")}&limit=50>; rel="next"')]),
        "/cursor": lambda r: r.reply(200, json.dumps({"data": items, "next_cursor": h_key(r), "meta": {"next": f"{up.url}/cursor?cursor={urllib.parse.quote(h_key(r), safe='')}"}})),
        "/strings_cursor": lambda r: r.reply(200, json.dumps({"doc": "z" * 120000, "next_page_token": h_key(r)})),
        # the key in a binary answer's Content-Type
        "/binmime": lambda r: r.reply(200, b"\x00\x01binary", f"application/x-thing; note={urllib.parse.quote(h_key(r), safe='')}"),
        "/imgmime": lambda r: r.reply(200, b"\x89PNG\r\n\x1a\n\x00", f'image/png; name="{h_key(r).replace(chr(34), "")}"'),
        "/js": lambda r: r.reply(200, 'var k = %s; var j = "%s";' % (json.dumps(h_key(r)), json.dumps(h_key(r))[1:-1].replace("/", "\\u002F")), "application/javascript"),
        "/html_nosemi": lambda r: r.reply(200, "<p>" + "".join("&#x%x" % ord(c) if c in "/+&" else c for c in h_key(r)) + "</p>", "text/html"),
        "/utf16json": lambda r: r.reply(200, json.dumps({"v": h_key(r)}).encode("utf-16"), "application/json; charset=utf-16"),
        "/bomjson": lambda r: r.reply(200, b"\xef\xbb\xbf" + json.dumps({"v": h_key(r)}).encode(), "application/json"),
        "/case": lambda r: r.reply(200, json.dumps({"upper": h_key(r).upper(), "lower": h_key(r).lower()})),
        "/err_oschema": lambda r: r.reply(200, json.dumps({"v": [h_key(r)] * 3})),
    }
    for k, fn in routes.items():
        up.route(k, fn)
    resp = lambda sch: {"200": {"description": "ok", "content": {"application/json": {"schema": sch}}}}
    obj = lambda props: {"type": "object", "properties": props}
    paths = {
        "/oschema": {"get": op("oschema", responses=resp(obj({"v": {"type": "integer"}})))},
        "/oschema_esc": {"get": op("oschema_esc", responses=resp(obj({"v": {"type": "integer"}})))},
        "/oschema_pattern": {"get": op("oschema_pattern", responses=resp(obj({"code": {"type": "string", "pattern": "^[0-9]+$"}})))},
        "/oschema_enum": {"get": op("oschema_enum", responses=resp(obj({"kind": {"type": "string", "enum": ["a", "b"]}})))},
        "/oschema_key": {"get": op("oschema_key", responses=resp(obj({"m": {"type": "object", "additionalProperties": False}})))},
        "/err_oschema": {"get": op("err_oschema", responses=resp(obj({"v": {"type": "array", "maxItems": 1}})))},
        "/num": {"get": op("num", security=[{"nk": []}])},
        "/link": {"get": op("link", [pparam("page", {"type": "integer"}, where="query", required=False),
                                     pparam("limit", {"type": "integer"}, where="query", required=False)],
                             responses=resp({"type": "array", "items": obj({"id": {"type": "integer"}, "v": {"type": "string"}})}))},
        "/cursor": {"get": op("cursor", [pparam("cursor", where="query", required=False), pparam("limit", {"type": "integer"}, where="query", required=False)])},
        "/strings_cursor": {"get": op("strings_cursor", [pparam("page_token", where="query", required=False)])},
    }
    for k in ["binmime", "imgmime", "js", "html_nosemi", "utf16json", "bomjson", "case"]:
        paths[f"/{k}"] = {"get": op(k)}
    schemes = {"hdr": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}, "nk": {"type": "apiKey", "in": "query", "name": "nk"}}
    sp = wfile("creds2.json", spec(paths, schemes=schemes, security=[{"hdr": []}], servers=[up.url]))
    s = Stdio(sp, [], env={"OPENAPI_MCP_HDR": APIKEY, "OPENAPI_MCP_NK": NUMKEY}, tag="creds2")
    s.initialize()
    b64 = base64.b64encode(APIKEY.encode()).decode()
    for tool in ["oschema", "oschema_esc", "oschema_pattern", "oschema_enum", "oschema_key", "err_oschema",
                 "link", "cursor", "strings_cursor", "binmime", "imgmime", "js", "html_nosemi", "utf16json", "bomjson"]:
        up.clear()
        m = s.call(tool, {})
        r = result_of(m)
        sent = up.requests()
        lk = leaks(r, APIKEY) if r is not None else "no result"
        # a JSON-escaped copy in a message (the validator writes values as JSON)
        raw = json.dumps(r)
        for f in [json.dumps(APIKEY)[1:-1], json.dumps(json.dumps(APIKEY))[1:-1], "".join(u_esc(c) for c in APIKEY)]:
            if not lk and f in raw:
                lk = f"escaped form {f[:40]!r} in {snippet(raw, f)}"
        check(f"cred2-{tool}", f"API key echoed via {tool} is masked (result, error text, note, mimeType)",
              sent and not lk, lk or f"sent={len(sent)}")
    # case-changed echo: not promised by the README; reported for information
    r = result_of(s.call("case", {}))
    info(f"case-changed echo of the key shown: upper={APIKEY.upper() in json.dumps(r)} lower={APIKEY.lower() in json.dumps(r)}")
    up.clear()
    r = result_of(s.call("num", {}))
    out = json.dumps(r)
    check("cred2-digit-key-as-number", "a digit-only API key echoed as a JSON number (also 123.0, 123e0) is masked",
          up.requests() and r is not None and not is_error(r) and NUMKEY not in out, f"{snippet(out, NUMKEY)}")
    s.close()
    run_errors()


def run_errors():
    QK = "QKnetERR/secret+77&x"
    up = Upstream()
    up.route("/blob", lambda r: r.reply(200, b"\x00\x01\x02bin", "application/octet-stream"))
    up.route("/slowq", lambda r: (time.sleep(4), r.reply(200, b"{}")))
    up.route("/redir", lambda r: r.reply(301, b"", "text/plain", headers=[("Location", r.path)]))
    dead = socket.socket(); dead.bind(("127.0.0.1", 0)); dport = dead.getsockname()[1]; dead.close()
    schemes = {"qk": {"type": "apiKey", "in": "query", "name": "api_key"}}
    paths = {"/blob": {"get": op("blob")}, "/slowq": {"get": op("slowq")}, "/redir": {"get": op("redir")},
             "/dead": {"get": op("dead", servers=[{"url": f"http://127.0.0.1:{dport}"}])}}
    sp = wfile("creds-neterr.json", spec(paths, schemes=schemes, security=[{"qk": []}], servers=[up.url]))
    s = Stdio(sp, ["--timeout", "1", "--verbose"], env={"OPENAPI_MCP_QK": QK}, tag="neterr")
    s.initialize()
    for tool in ["dead", "slowq", "blob", "redir"]:
        r = result_of(s.call(tool, {}, timeout=15))
        lk = leaks(r, QK) if r is not None else "no result"
        check(f"cred2-neterr-{tool}", f"a query credential in the URL is masked in the {tool} result (error text / resource uri / Location)", not lk, lk)
    s.close()
    err = s.stderr()
    bad = [l for l in err.splitlines() if any(QK in d for d in decodings(l))]
    check("cred2-neterr-log", "... and in the --verbose log lines of those failures", not bad, bad[:2])
