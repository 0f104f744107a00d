"""More probes: resource uri masking, stub paths in _fields, error bounds, _fields cost on GitHub. Usage: python3 probe2.py BIN"""
import json, os, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge as J
BIN = sys.argv[1]
up = J.Upstream()
J.setup_upstream(up)
up.routes.insert(0, ("/failjson", lambda h, q, m: (500, [("Content-Type", "application/json")], json.dumps({"error": "E" * 50000}).encode())))
up.routes.insert(0, ("/mismatchbig", lambda h, q, m: (200, [("Content-Type", "application/json")], json.dumps({"id": "x", "pad": "p" * 50000}).encode())))
spec = J.make_spec(up.base)
spec["components"]["securitySchemes"] = {"qkey": {"type": "apiKey", "in": "query", "name": "api_key"}}
spec["security"] = [{"qkey": []}]
spec["paths"]["/failjson"] = {"get": {"operationId": "failJson", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}}}
spec["paths"]["/mismatchbig"] = {"get": {"operationId": "mismatchBig", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}}}}}}
d = tempfile.mkdtemp(dir=J.HERE, prefix="probe2-")
sp = os.path.join(d, "p.json"); json.dump(spec, open(sp, "w"))
env = dict(os.environ, OPENAPI_MCP_QKEY="SUPERSECRETQ")
c = J.StdioClient([BIN, "serve", sp], "probe2", env=env)
try:
    c.initialize()
    res, size, _, _ = J.call(c, "get_archive", {})
    rs = [x["resource"] for x in res["content"] if x["type"] == "resource"]
    print("archive uri with query credential:", rs[0]["uri"] if rs else res, "| upstream saw:", up.hits[-1])
    for name in ("get_fail", "fail_json", "mismatch_big"):
        res, size, _, _ = J.call(c, name, {})
        t = J.texts(res)[0]
        print(f"{name}: isError {res.get('isError')}, result {size} B, text {len(t)} chars, ends {t[-100:]!r}")
finally:
    c.close()
# stub paths: a tiny schema budget turns Item into a stub
c = J.StdioClient([BIN, "serve", sp, "--schema-budget", "200"], "probe2-stub", env=env)
try:
    c.initialize()
    tools, _ = J.list_tools(c)
    T = {t["name"]: t for t in tools}
    print("list_items outputSchema with --schema-budget 200:", json.dumps(T["list_items"].get("outputSchema"))[:400])
    n0 = up.count()
    res, size, _, _ = J.call(c, "list_items", {"per_page": 3, "_fields": ["owner.login", "anything.under.stub"]})
    print("stub path accepted:", not res.get("isError"), "sent:", up.count() - n0, "->", json.dumps(res.get("structuredContent"))[:300], J.texts(res)[:1])
finally:
    c.close()
up.stop()
# _fields cost on GitHub's list
gh = os.path.join(J.HERE, "data/oa/package/generated/api.github.com.json")
c = J.StdioClient([BIN, "serve", gh, "--base-url", "http://127.0.0.1:9"], "probe2-gh")
try:
    c.initialize()
    tools, n = J.list_tools(c)
    with_f = [t for t in tools if "_fields" in t["inputSchema"].get("properties", {})]
    cost = sum(len(json.dumps(t["inputSchema"]["properties"]["_fields"], separators=(",", ":"))) + len('"_fields":,') + len(',"fields":"_fields"') for t in with_f)
    os_with_props = 0
    for t in tools:
        o = t.get("outputSchema")
        if o:
            os_with_props += 1
    print(f"GitHub: {len(tools)} tools, tools/list {n:,} B; _fields on {len(with_f)} tools, ~{cost:,} B; tools with outputSchema {os_with_props}")
    no_f = [t["name"] for t in tools if t.get("outputSchema") and "_fields" not in t["inputSchema"].get("properties", {})][:8]
    print("with outputSchema but no _fields (sample):", no_f)
finally:
    c.close()
