"""Repro: 70 requests whose bodies never finish hold all 64 --max-requests places for ~10 s."""
from common import *
sp = wfile("bs.json", spec({"/x": {"get": op("x")}}, servers=["http://127.0.0.1:9"]))
for tok in ["tok-" + "q" * 30, None]:
    env = {"OPENAPI_MCP_HTTP_TOKEN": tok} if tok else {}
    hs = HttpServe(sp, [], env=env)
    socks = []
    for i in range(70):
        c = socket.create_connection(("127.0.0.1", hs.port))
        c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                  (f"Authorization: Bearer {tok}\r\n".encode() if tok else b"") + b"Content-Length: 1000\r\n\r\n{")
        socks.append(c)
    time.sleep(1)
    t = time.time(); st, _ = hs.rpc("tools/list", timeout=30)
    print(f"token={'set' if tok else 'none (loopback default)'}: tools/list from another client: HTTP {st} after {time.time() - t:.1f}s")
    for c in socks: c.close()
    hs.close()
cleanup()
