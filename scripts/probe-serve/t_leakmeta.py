"""Class 2, continued: a password in the spec's servers URL; tools/list _meta; describe_operation."""
from lib import *

PW = "SrvPassw0rd-9q8w7e"


def run():
    up = Upstream()
    def echo(req):
        req.reply(200, json.dumps({"auth": req.headers.get("Authorization"), "path": req.path,
                                   "pw": PW, "pwenc": urllib.parse.quote(PW + "/x", safe="")}))
    up.route("/api/", echo)
    host = up.url.split("//", 1)[1]
    server = f"http://svcuser:{PW}@{host}/api"
    sp = wfile("pwserver.json", spec({"/items/{id}": {"get": op("get_item", [pparam("id")])},
                                       "/other": {"get": op("get_other", servers=[{"url": f"http://opuser:{PW}op@{host}/api"}])}},
                                      servers=[server], title="pw server"))
    # per-operation server with the password too; unusable server to force a start-up error
    s = Stdio(sp, ["--verbose"], tag="pw")
    s.initialize()
    tl = s.request("tools/list")
    out = json.dumps(tl)
    check("meta-servers-password", "a password in the spec's servers URL is *** in tools/list _meta (document and operation servers)",
          tl and PW not in out and (PW + "op") not in out and "get_item" in out, snippet(out, PW))
    r = result_of(s.call("get_item", {"id": "1"}))
    sent = [q for q in up.requests("/api/items")]
    check("meta-servers-password-result", "a servers-URL password echoed back by the API is masked in the result",
          r is not None and PW not in json.dumps(r) and urllib.parse.quote(PW + "/x", safe="") not in json.dumps(r),
          f"sent={[q['headers'].get('authorization') for q in sent]} result={json.dumps(r)[:400]}")
    s.close()
    err = s.stderr()
    check("meta-servers-password-log", "the servers-URL password is not in the --verbose log", PW not in err, snippet(err, PW))

    sd = Stdio(sp, ["--dynamic"], tag="pw-dyn")
    sd.initialize()
    res = result_of(sd.call("describe_operation", {"name": "get_item"}))
    res2 = result_of(sd.call("describe_operation", {"name": "get_other"}))
    res3 = result_of(sd.call("search_operations", {"query": "item other"}))
    out = json.dumps([res, res2, res3])
    check("meta-dynamic-describe-password", "describe_operation/search_operations (--dynamic) show the servers password as ***",
          res is not None and not is_error(res) and PW not in out, snippet(out, PW) if PW in out else out[:300])
    r = result_of(sd.call("call_read_operation", {"name": "get_item", "arguments": {"id": "2"}}))
    check("meta-dynamic-call-password", "call_read_operation's result masks the servers password",
          r is not None and not is_error(r) and PW not in json.dumps(r), json.dumps(r)[:400])
    sd.close()

    # start-up error naming the server URL: a relative path join that is refused, or a bad variable
    sp2 = wfile("pwserver-bad.json", spec({"/x": {"get": op("x")}},
                                          servers=[f"http://u:{PW}@{host}/api/{{missing}}"]))
    p = subprocess.run([BIN, "serve", sp2], input=b"", capture_output=True, timeout=10)
    e = p.stderr.decode("utf-8", "replace")
    check("meta-startup-error-password", "a start-up message quoting a servers URL hides its password",
          PW not in e, f"exit={p.returncode} stderr={snippet(e, PW)}")
    p = subprocess.run([BIN, "convert", sp], capture_output=True, timeout=10)
    info(f"convert prints the servers password: {PW in p.stdout.decode()} (README promises *** for serve's tools/list only)")

    # HTTP: tools/list over HTTP
    hs = HttpServe(sp, [], tag="pw-http")
    st, m = hs.rpc("tools/list")
    check("meta-servers-password-http", "tools/list over HTTP hides the servers password",
          st == 200 and PW not in json.dumps(m), f"{st} {snippet(json.dumps(m), PW)}")
    hs.close()
