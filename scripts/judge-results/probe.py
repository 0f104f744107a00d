"""Adversarial probes (edge cases beyond the issue's list). Usage: python3 probe.py BIN"""
import json, os, sys, time, re, base64, threading, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge as J

BIN = sys.argv[1]
up = J.Upstream()
ESC = [{"id": i, "s": '"\\\n\u0001' * 400} for i in range(100)]          # escaping: 1,600 chars -> ~5,200 B serialized
EMOJI = [{"id": i, "s": "😀漢" * 700} for i in range(100)]               # 4+3 bytes a pair
ONE = {"title": "one", "body": "x" * 200000, "tags": ["a"]}
FIRSTBIG = [{"id": 1, "s": "y" * 60000}, {"id": 2, "s": "z"}]
MINITEMS = [{"id": i, "s": "q" * 800} for i in range(100)]
NULLUSER = [{"number": 1, "user": None, "title": "a"}, {"number": 2, "user": {"login": "x", "id": 3}, "title": "b"}]
DEEP = {"a": {"b": {"c": {"d": {"items": [{"id": i, "s": "w" * 800} for i in range(100)]}}}}}
BADJSON = b'{"id": 1, "name": '
NOTYPE = bytes(range(256)) * 10
MISMATCH = {"id": "not-an-integer"}
routes = {"/esc": ESC, "/emoji": EMOJI, "/one": ONE, "/firstbig": FIRSTBIG, "/minitems": MINITEMS,
          "/nulluser": NULLUSER, "/deep": DEEP, "/mismatch": MISMATCH}
for p, v in routes.items():
    up.routes.append((p, (lambda v: lambda h, q, m: (200, [("Content-Type", "application/json")], json.dumps(v).encode()))(v)))
up.routes.append(("/badjson", lambda h, q, m: (200, [("Content-Type", "application/json")], BADJSON)))
up.routes.append(("/notype", lambda h, q, m: (200, [], NOTYPE)))
def bigevent(h, q, m):
    h.send_response(200); h.send_header("Content-Type", "text/event-stream"); h.end_headers()
    h.wfile.write(("data: " + "e" * 100000 + "\n\n").encode()); h.wfile.flush(); time.sleep(20)
up.routes.append(("/bigevent", bigevent))
def big(h, q, m):
    b = ("[" + ",".join(json.dumps({"id": i, "name": f"n{i}", "s": "z" * 150}) for i in range(45000)) + "]").encode()
    return 200, [("Content-Type", "application/json")], b
up.routes.append(("/big", big))

S = {"type": "string"}
def op(oid, schema, params=()):
    return {"get": {"operationId": oid, "parameters": [{"name": n, "in": "query", "schema": {"type": t}} for n, t in params],
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}}}
item = {"type": "object", "properties": {"id": {"type": "integer"}, "s": S}}
spec = {"openapi": "3.0.3", "info": {"title": "probe", "version": "1"}, "servers": [{"url": up.base}], "paths": {
    "/esc": op("esc", {"type": "array", "items": item}, [("limit", "integer")]),
    "/emoji": op("emoji", {"type": "array", "items": item}, [("limit", "integer")]),
    "/one": op("one", {"type": "object", "properties": {"title": S, "body": S, "tags": {"type": "array", "items": S}}}),
    "/firstbig": op("firstbig", {"type": "array", "items": item}, [("limit", "integer")]),
    "/minitems": op("minitems", {"type": "array", "items": item, "minItems": 100}, [("limit", "integer")]),
    "/nulluser": op("nulluser", {"type": "array", "items": {"type": "object", "properties": {
        "number": {"type": "integer"}, "title": S, "user": {"type": "object", "nullable": True, "properties": {"login": S, "id": {"type": "integer"}}}}}}),
    "/deep": op("deep", {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {
        "c": {"type": "object", "properties": {"d": {"type": "object", "properties": {"items": {"type": "array", "items": item}}}}}}}}}}}),
    "/mismatch": op("mismatch", {"type": "object", "properties": {"id": {"type": "integer"}}}),
    "/badjson": op("badjson", {"type": "object"}),
    "/notype": op("notype", {"type": "string", "format": "binary"}),
    "/bigevent": {"get": {"operationId": "bigevent", "responses": {"200": {"description": "ok", "content": {"text/event-stream": {"schema": S}}}}}},
    "/big": op("big", {"type": "array", "items": {"type": "object"}}),
}}
d = tempfile.mkdtemp(dir=J.HERE, prefix="probe-")
sp = os.path.join(d, "probe.json"); json.dump(spec, open(sp, "w"))
c = J.StdioClient([BIN, "serve", sp], "probe")
try:
    c.initialize()
    tools, _ = J.list_tools(c)
    T = {t["name"]: t for t in tools}
    for name in ["esc", "emoji", "one", "firstbig", "minitems", "deep", "mismatch", "badjson", "notype", "bigevent"]:
        res, size, line, el = J.call(c, name, {})
        sc = res.get("structuredContent")
        valid = J.validate(sc, T[name]["outputSchema"])[1] if sc is not None and "outputSchema" in T[name] else "-"
        body = J.body_of(res, T[name]) if sc is not None else None
        n = len(body) if isinstance(body, list) else None
        print(f"== {name}: result {size} B (line {line} B), isError {res.get('isError')}, {el:.2f}s, items {n}, {valid}")
        print("   content:", [(x["type"], (x.get("text") or "")[:260]) for x in res["content"]][:3])
    res, size, _, _ = J.call(c, "nulluser", {"_fields": ["number", "user.login"]})
    print("== nulluser _fields:", res.get("structuredContent"))
    # 8 concurrent 8.5 MB answers
    hwm0 = re.search(r"VmHWM:\s+(\d+)", open(f"/proc/{c.p.pid}/status").read()).group(1)
    outs = []
    def one(i):
        outs.append(J.call(c, "big", {}, timeout=180)[1])
    # the StdioClient is not thread-safe for concurrent requests; send raw and collect
    ids = []
    t0 = time.monotonic()
    for i in range(8):
        c.nid += 1; ids.append(c.nid)
        c.send({"jsonrpc": "2.0", "id": c.nid, "method": "tools/call", "params": {"name": "big", "arguments": {}}})
    got = {}
    while len(got) < 8:
        line = c.q.get(timeout=180)
        m = json.loads(line)
        if m.get("id") in ids:
            got[m["id"]] = J.nbytes(m["result"])
    hwm = re.search(r"VmHWM:\s+(\d+)", open(f"/proc/{c.p.pid}/status").read()).group(1)
    print(f"== 8 concurrent 8.5 MB answers: sizes {sorted(got.values())}, {time.monotonic()-t0:.1f}s, VmHWM before {int(hwm0)//1024} MiB after {int(hwm)//1024} MiB")
finally:
    c.close(); up.stop()
