"""Repro: parameter descriptions keep C0/C1 controls and bidi overrides (tool text is clean)."""
from common import *
d = spec({"/x/{id}": {"get": op("x", [dict(pparam("id"), description="a\u202eb\u0007c\u0085d\u2066e")], summary="S\u202eum\u0007")}}, servers=["http://127.0.0.1:9"])
sp = wfile("ctrl.json", d)
out = subprocess.run([BIN, "convert", sp], capture_output=True).stdout.decode()
t = json.loads(out)["tools"][0]
print("title:", ascii(t["title"]), " description:", ascii(t["description"]))
print("inputSchema.properties.id.description:", ascii(t["inputSchema"]["properties"]["id"]["description"]))
