"""Class 5, JSON-RPC: every line gets an answer with its id."""
from lib import *


def raw_id(line):
    m = re.search(rb'"id":\s*("(?:[^"\\]|\\.)*"|[-0-9.eE+]+|null)', line or b"")
    return m.group(1) if m else None


def run():
    up = Upstream(); up.route("/", lambda r: r.reply(200, b"{}"))
    sp = wfile("rpc.json", spec({"/x": {"get": op("x", [pparam("q", where="query", required=False)])}}, servers=[up.url]))
    s = Stdio(sp, [], tag="rpc")
    s.initialize()
    # (id as written, message template, want code or None for "any error or result", must-echo-exactly)
    big = "1180591620717411303424"
    cases = [
        ("1e400-params", b'{"jsonrpc":"2.0","id":71,"method":"tools/list","params":{"x":1e400}}', b"71", None),
        ("1e400-args", b'{"jsonrpc":"2.0","id":72,"method":"tools/call","params":{"name":"x","arguments":{"q":"a","n":-1e400}}}', b"72", None),
        ("1e400-before-id", b'{"jsonrpc":"2.0","params":{"x":[1e400]},"method":"tools/list","id":73}', b"73", None),
        ("surrogate", b'{"jsonrpc":"2.0","id":74,"method":"tools/call","params":{"name":"x","arguments":{"q":"\\ud800"}}}', b"74", None),
        ("surrogate-low", b'{"jsonrpc":"2.0","id":"s75","method":"tools/call","params":{"name":"x","arguments":{"q":"\\udc00x"}}}', b'"s75"', None),
        ("surrogate-in-key", b'{"jsonrpc":"2.0","id":76,"method":"tools/list","params":{"\\ud800":1}}', b"76", None),
        ("1e400-string-id", b'{"jsonrpc":"2.0","id":"abc\\"d","method":"tools/list","params":{"x":1e400}}', b'"abc\\"d"', None),
        ("1e400-bigid", b'{"jsonrpc":"2.0","id":' + big.encode() + b',"method":"tools/list","params":{"x":1e400}}', big.encode(), None),
        ("surrogate-floatid", b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list","params":{"x":"\\ud800"}}', b"1.5", None),
        ("1e400-expid", b'{"jsonrpc":"2.0","id":5e0,"method":"tools/list","params":{"x":1e400}}', b"5e0", None),
        ("1e400-negbigid", b'{"jsonrpc":"2.0","id":-99999999999999999999,"method":"tools/list","params":{"x":1e400}}', b"-99999999999999999999", None),
        ("1e400-u64id", b'{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/list","params":{"x":1e400}}', b"18446744073709551615", None),
        ("surrogate-bigid", b'{"jsonrpc":"2.0","id":' + big.encode() + b',"method":"tools/list","params":{"x":"\\ud800"}}', big.encode(), None),
        ("bigid", b'{"jsonrpc":"2.0","id":' + big.encode() + b',"method":"ping"}', big.encode(), -32600),
        ("floatid", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', b"1.5", -32600),
        ("expid", b'{"jsonrpc":"2.0","id":1e2,"method":"ping"}', b"1e2", -32600),
        ("negzero-id", b'{"jsonrpc":"2.0","id":-0.0,"method":"ping"}', b"-0.0", -32600),
        ("u64id", b'{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}', b"18446744073709551615", -32600),
        ("truncated", b'{"jsonrpc":"2.0","id":77,"method":"tools/list",', b"77", -32700),
        ("trailing-garbage", b'{"jsonrpc":"2.0","id":78,"method":"ping"} xx', b"78", -32700),
        ("bad-utf8", b'{"jsonrpc":"2.0","id":79,"method":"ping","params":{"a":"\xff\xfe"}}', b"79", -32700),
        ("name-not-string", b'{"jsonrpc":"2.0","id":80,"method":"tools/call","params":{"name":5,"arguments":{}}}', b"80", -32602),
        ("args-not-object", b'{"jsonrpc":"2.0","id":81,"method":"tools/call","params":{"name":"x","arguments":[1]}}', b"81", -32602),
        ("unknown-tool", b'{"jsonrpc":"2.0","id":82,"method":"tools/call","params":{"name":"nope","arguments":{}}}', b"82", -32602),
        ("not-json", b'hello', b"null", -32700),
    ]
    for cid, line, want_id, want_code in cases:
        s.send_raw(line + b"\n")
        got = None
        end = time.time() + 5
        while time.time() < end and got is None:
            with s.cv:
                for l in s.raw:
                    if l is not None and raw_id(l) == want_id and l not in getattr(s, "_seen", set()):
                        got = l
                        break
            if got is None:
                time.sleep(0.05)
        if got is not None:
            s._seen = getattr(s, "_seen", set()) | {got}
        code = None
        if got:
            try:
                code = json.loads(got).get("error", {}).get("code")
            except Exception:
                pass
        ok = got is not None and (want_code is None or code == want_code)
        last = [l for l in s.raw if l is not None][-1:] if s.raw else []
        check(f"rpc-{cid}", f"{cid}: answered with id {want_id.decode()} as written" + (f" and code {want_code}" if want_code else ""),
              ok, f"answer={got[:300] if got else None} last={last[0][:300] if last else None}")
    # line limit: 17 MiB line with the id at the start, then the server must still answer
    s.send_raw(b'{"jsonrpc":"2.0","id":90,"method":"tools/call","params":{"name":"x","arguments":{"q":"' + b"a" * (17 << 20) + b'"}}}\n')
    m, line = s.wait_key("90", 20)
    code = (m or {}).get("error", {}).get("code")
    check("rpc-line-limit", "a 17 MiB line gets -32600 naming the limit, with its id", code == -32600 and "16" in json.dumps(m),
          str(m)[:300])
    r = s.request("ping", timeout=5)
    check("rpc-after-line-limit", "the server answers the next line after an over-long one", r is not None and "result" in r, r)
    # id at the end of an over-long line: -32600 with null id is fine; just an answer
    s.send_raw(b'{"jsonrpc":"2.0","method":"ping","params":{"p":"' + b"b" * (17 << 20) + b'"},"id":91}\n')
    time.sleep(0.5)
    r = s.request("ping", timeout=10)
    with s.cv:
        got91 = any(l and (raw_id(l) in (b"91", b"null")) and b"-32600" in l for l in s.raw)
    check("rpc-line-limit-late-id", "an over-long line with its id at the end still gets -32600", got91 and r is not None, r)
    s.close()

    # over HTTP: the same kinds of bodies
    hs = HttpServe(sp, [], tag="rpc-http")
    for cid, body, want_id, want_code in [
        ("http-1e400", b'{"jsonrpc":"2.0","id":101,"method":"tools/list","params":{"x":1e400}}', b"101", None),
        ("http-surrogate", b'{"jsonrpc":"2.0","id":"h2","method":"tools/call","params":{"name":"x","arguments":{"q":"\\ud800"}}}', b'"h2"', None),
        ("http-bigid", b'{"jsonrpc":"2.0","id":' + big.encode() + b',"method":"ping"}', big.encode(), -32600),
        ("http-1e400-bigid", b'{"jsonrpc":"2.0","id":' + big.encode() + b',"method":"ping","params":{"x":1e400}}', big.encode(), None),
        ("http-floatid", b'{"jsonrpc":"2.0","id":2.5,"method":"ping"}', b"2.5", -32600),
        ("http-truncated", b'{"jsonrpc":"2.0","id":103,"method":"ping"', b"103", -32700),
        ("http-args-not-object", b'{"jsonrpc":"2.0","id":104,"method":"tools/call","params":{"name":"x","arguments":"s"}}', b"104", -32602),
    ]:
        st, _, data = hs.post(body)
        code = None
        try:
            code = json.loads(data).get("error", {}).get("code")
        except Exception:
            pass
        ok = raw_id(data) == want_id and (want_code is None or code == want_code)
        check(f"rpc-{cid}", f"over HTTP {cid}: answered with id {want_id.decode()}" + (f" and {want_code}" if want_code else ""),
              ok, f"HTTP {st} {data[:300]!r}")
    hs.close()
