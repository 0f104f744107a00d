"""Repro: four echo forms of a credential that come back unmasked.
usage: python3 masking.py BIN"""
from common import *
KEY = 'Zk9/Qw+Rt&y=U<p>"s\'x~Vb mKEY'     # OPENAPI_MCP_API_KEY
NUM = "839201746512907"                  # OPENAPI_MCP_NK (digit-only query key)
up = Upstream()
k = lambda r: r.headers.get("X-Api-Key")
up.route("/csv", lambda r: r.reply(200, 'id,key\n1,"%s"\n' % k(r).replace('"', '""'), "text/csv"))
up.route("/b64", lambda r: r.reply(200, json.dumps({"b64": base64.b64encode(k(r).encode()).decode()})))
up.route("/ent", lambda r: r.reply(200, "<p>" + "".join("&#x%x" % ord(c) if c in "/+&" else c for c in k(r)) + "</p>", "text/html"))
up.route("/num", lambda r: r.reply(200, '{"n":%s}' % urllib.parse.parse_qs(urllib.parse.urlsplit(r.path).query)["nk"][0]))
sp = wfile("masking.json", spec({"/csv": {"get": op("csv")}, "/b64": {"get": op("b64")}, "/ent": {"get": op("ent")},
                                 "/num": {"get": op("num", security=[{"nk": []}])}},
                                schemes={"k": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
                                         "nk": {"type": "apiKey", "in": "query", "name": "nk"}},
                                security=[{"k": []}], servers=[up.url]))
print(open(sp).read())
s = Stdio(sp, [], env={"OPENAPI_MCP_K": KEY, "OPENAPI_MCP_NK": NUM})
s.initialize()
for t in ["csv", "b64", "ent", "num"]:
    print(f"--- {t}:", json.dumps(s.call(t, {})["result"]))
cleanup()
