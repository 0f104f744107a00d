"""_fields below a schema-budget stub: accepted? Usage: python3 probe3.py BIN"""
import json, os, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge as J
BIN = sys.argv[1]
up = J.Upstream(); J.setup_upstream(up)
spec = J.make_spec(up.base)
owner = {"type": "object", "properties": {f"field_{i}": {"type": "string", "description": "d" * 40} for i in range(40)}}
spec["components"]["schemas"]["Owner"] = owner
spec["components"]["schemas"]["Item"]["properties"]["owner"] = {"$ref": "#/components/schemas/Owner"}
d = tempfile.mkdtemp(dir=J.HERE, prefix="probe3-")
sp = os.path.join(d, "p.json"); json.dump(spec, open(sp, "w"))
c = J.StdioClient([BIN, "serve", sp, "--schema-budget", "900"], "probe3")
try:
    c.initialize()
    tools, _ = J.list_tools(c)
    t = {x["name"]: x for x in tools}["list_items"]
    print(json.dumps(t.get("outputSchema"))[:700])
    print("_fields offered:", "_fields" in t["inputSchema"]["properties"])
    n0 = up.count()
    res, size, _, _ = J.call(c, "list_items", {"per_page": 2, "_fields": ["id", "owner.login", "owner.not.declared"]})
    print("isError", res.get("isError"), "sent", up.count() - n0, json.dumps(res.get("structuredContent"))[:300], J.texts(res)[:1])
    v = J.validate(res.get("structuredContent"), t["outputSchema"]) if res.get("structuredContent") else None
    print(v)
finally:
    c.close(); up.stop()
# GitHub: a tool with a stub def reachable from the top
gh = os.path.join(J.HERE, "data/oa/package/generated/api.github.com.json")
c = J.StdioClient([BIN, "serve", gh, "--base-url", "http://127.0.0.1:9"], "probe3-gh")
try:
    c.initialize()
    tools, n = J.list_tools(c)
    found = 0
    for t in tools:
        o = t.get("outputSchema") or {}
        defs = o.get("$defs", {})
        stubs = {k for k, v in defs.items() if "not expanded" in str(v.get("description", ""))}
        if not stubs or "_fields" not in t["inputSchema"].get("properties", {}):
            continue
        top = o.get("properties", {})
        if "result" in top and t["_meta"]["openapi-mcp/http"].get("output", {}).get("wrapped"):
            r = top["result"]
            top = r.get("items", r)
            if "$ref" in top:
                top = defs.get(top["$ref"].split("/")[-1], {})
            top = top.get("properties", {})
        for k, v in top.items():
            ref = v.get("$ref") or (v.get("items") or {}).get("$ref", "")
            if ref.split("/")[-1] in stubs:
                print(f"{t['name']}: property `{k}` -> stub {ref}")
                found += 1
                break
        if found >= 3:
            break
finally:
    c.close()
