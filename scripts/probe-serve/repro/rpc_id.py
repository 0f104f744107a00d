"""Repro: a -32700 answer for valid JSON serde refuses echoes a non-i64 id as a float, not as written."""
from common import *
sp = wfile("rpc.json", spec({"/x": {"get": op("x")}}, servers=["http://127.0.0.1:9"]))
s = Stdio(sp)
for line in [b'{"jsonrpc":"2.0","id":1180591620717411303424,"method":"tools/list","params":{"x":1e400}}',
             b'{"jsonrpc":"2.0","id":5e0,"method":"tools/list","params":{"x":1e400}}',
             b'{"jsonrpc":"2.0","id":-99999999999999999999,"method":"ping","params":{"x":"\\ud800"}}',
             b'{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}']:
    s.send_raw(line + b"\n"); time.sleep(0.3)
    print(">>", line.decode()); print("<<", s.raw[-1].decode())
cleanup()
