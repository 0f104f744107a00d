"""Class 7 (issue #38): results."""
from lib import *


def run():
    up = Upstream()
    items = [{"id": i, "name": f"item-{i}", "text": "t" * 40} for i in range(2000)]
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(3000) + b"\x00\x00IEND"
    blob = b"\x00\x01\x02binary\xff\xfe" + os.urandom(2000)
    up.route("/list", lambda r: r.reply(200, json.dumps(items)))
    up.route("/wrapped", lambda r: r.reply(200, json.dumps({"data": items, "has_more": True})))
    up.route("/png", lambda r: r.reply(200, png, "image/png"))
    up.route("/bin", lambda r: r.reply(200, blob, "application/octet-stream"))
    up.route("/pdf", lambda r: r.reply(200, b"%PDF-1.4\x00" + blob, "application/pdf"))
    up.route("/bigbin", lambda r: r.reply(200, os.urandom(200000) + b"\x00", "application/zip"))
    up.route("/bigpng", lambda r: r.reply(200, b"\x89PNG" + os.urandom(200000), "image/png"))

    def sse(mode):
        def h(r):
            r.send_response(200)
            r.send_header("Content-Type", "text/event-stream")
            r.end_headers()
            try:
                if mode == "idle":
                    r.wfile.write(b"event: a\ndata: first\n\n"); r.wfile.flush()
                    time.sleep(30)
                elif mode == "silent":
                    time.sleep(30)
                elif mode == "chatty":
                    for i in range(200):
                        r.wfile.write(f"data: tick {i}\n\n".encode()); r.wfile.flush()
                        time.sleep(0.3)
                elif mode == "comments":
                    for i in range(60):
                        r.wfile.write(b": keepalive\n\n"); r.wfile.flush()
                        time.sleep(0.5)
            except Exception:
                pass
        return h
    for m in ["idle", "silent", "chatty", "comments"]:
        up.route(f"/sse-{m}", sse(m))
    item_schema = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "text": {"type": "string"}}}
    json_resp = lambda sch: {"200": {"description": "ok", "content": {"application/json": {"schema": sch}}}}
    paths = {
        "/list": {"get": op("list_items", [pparam("limit", {"type": "integer"}, where="query", required=False),
                                           pparam("offset", {"type": "integer"}, where="query", required=False)],
                            responses=json_resp({"type": "array", "items": item_schema}))},
        "/wrapped": {"get": op("list_wrapped", [pparam("limit", {"type": "integer"}, where="query", required=False),
                                                pparam("starting_after", where="query", required=False)],
                               responses=json_resp({"type": "object", "properties": {"data": {"type": "array", "items": item_schema}, "has_more": {"type": "boolean"}}}))},
    }
    for n in ["png", "bin", "pdf", "bigbin", "bigpng", "sse-idle", "sse-silent", "sse-chatty", "sse-comments"]:
        paths[f"/{n}"] = {"get": op(n.replace("-", "_"))}
    sp = wfile("results.json", spec(paths, servers=[up.url]))
    s = Stdio(sp, [], tag="results")
    s.initialize()
    for tool, key in [("list_items", None), ("list_wrapped", "data")]:
        m = s.call(tool, {"limit": 2000})
        r = result_of(m)
        size = len(json.dumps(r, separators=(",", ":"), ensure_ascii=False).encode()) if r else None
        sc = (r or {}).get("structuredContent")
        tx = texts(r)
        parsed = []
        for t in tx:
            try:
                parsed.append(json.loads(t))
            except Exception:
                pass
        lst = None
        if isinstance(sc, dict):
            lst = sc.get("result") if key is None else sc.get(key)
        elif isinstance(sc, list):
            lst = sc
        note = " ".join(t for t in tx if not t.strip().startswith(("[", "{")))
        if isinstance(sc, dict) and "_budget_note" in sc:
            note += " " + json.dumps(sc["_budget_note"])
        n = len(lst) if isinstance(lst, list) else None
        ok = (r is not None and not is_error(r) and size <= 40000 and n and 0 < n < 2000 and
              all(it == items[i] for i, it in enumerate(lst)) and len(parsed) >= 1 and "2000" in note.replace(",", "") and
              re.search(r"offset|starting_after", note))
        check(f"result-cut-{tool}", f"a 2000-item list over the budget ({tool}) comes back as valid JSON with its first items and a note saying what was cut and how to continue",
              ok, f"size={size} items={n} parsed_text_copies={len(parsed)} note={note[:300]!r}")
        # the note's arguments really continue the page
        if ok:
            mm = re.search(r"\{[^{}]*\"(offset|starting_after)\"[^{}]*\}", note)
            info(f"{tool}: {n} items sent; continue with {mm.group(0) if mm else '?'}")
            cont = json.loads(mm.group(0)) if mm else None
            up.clear()
            r2 = result_of(s.call(tool, cont)) if cont else None
            q = up.requests()
            check(f"result-continue-{tool}", f"calling {tool} again with the note's arguments {json.dumps(cont)} is accepted and sent",
                  r2 is not None and not is_error(r2) and len(q) == 1, f"{all_text(r2)[:300] if r2 else None} sent={[x['path'] for x in q]}")
    r = result_of(s.call("png", {}))
    imgs = [c for c in (r or {}).get("content", []) if c.get("type") == "image"]
    ok = imgs and imgs[0].get("mimeType") == "image/png" and base64.b64decode(imgs[0]["data"]) == png
    check("result-image", "image/png comes back as image content with the same bytes", ok, json.dumps(r)[:300])
    for tool, body, ct in [("bin", blob, "application/octet-stream"), ("pdf", b"%PDF-1.4\x00" + blob, "application/pdf")]:
        r = result_of(s.call(tool, {}))
        res = [c for c in (r or {}).get("content", []) if c.get("type") == "resource"]
        ok = res and base64.b64decode(res[0]["resource"].get("blob", "")) == body and res[0]["resource"].get("mimeType", "").startswith(ct)
        check(f"result-blob-{tool}", f"{ct} comes back as a resource blob with the same bytes", ok, json.dumps(r)[:300])
    for tool in ["bigbin", "bigpng"]:
        r = result_of(s.call(tool, {}))
        size = len(json.dumps(r)) if r else None
        ok = r is not None and size < 40000 and "max-result-bytes" in all_text(r)
        check(f"result-{tool}-described", f"binary over the budget ({tool}) is described, not sent", ok, f"size={size} {all_text(r)[:200] if r else None}")
    for tool, limit in [("sse_idle", 5), ("sse_silent", 5), ("sse_chatty", 12.5), ("sse_comments", 12.5)]:
        t = time.time()
        r = result_of(s.call(tool, {}, timeout=40))
        dt = time.time() - t
        ok = r is not None and dt < limit and (tool != "sse_idle" or "first" in all_text(r))
        check(f"result-{tool}", f"an open event stream ({tool}) returns within {limit} s with the events so far", ok,
              f"{dt:.1f}s {all_text(r)[:200] if r else None}")
    s.close()
