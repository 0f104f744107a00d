"""Repro: the budget note's starting_after is the last id's JSON type (integer) though the argument is a string."""
from common import *
up = Upstream()
items = [{"id": i, "name": "x" * 40} for i in range(2000)]
up.route("/l", lambda r: r.reply(200, json.dumps({"data": items, "has_more": True})))
sch = {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}}, "has_more": {"type": "boolean"}}}
sp = wfile("note.json", spec({"/l": {"get": op("l", [pparam("limit", {"type": "integer"}, where="query", required=False),
                                                  pparam("starting_after", where="query", required=False)],
                                          responses={"200": {"description": "ok", "content": {"application/json": {"schema": sch}}}})}}, servers=[up.url]))
s = Stdio(sp); s.initialize()
r = s.call("l", {})["result"]
note = [c["text"] for c in r["content"] if not c["text"].startswith("{")][0]
print("note:", note)
args = json.loads(re.search(r'\{[^{}]*"starting_after"[^{}]*\}', note).group(0))
print("call again with", args, "->", json.dumps(s.call("l", args)["result"])[:300])
cleanup()
