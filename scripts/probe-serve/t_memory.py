"""Class 1: memory follows limits."""
from lib import *
from concurrent.futures import ThreadPoolExecutor

KEY = "memKEY-0123456789abcdef"


def body_objects():
    unit = {"id": 0, "name": "n" * 20, "text": "x" * 200, "key": KEY, "flag": True}
    n = 9_800_000 // (len(json.dumps(unit)) + 2)
    items = ",".join(json.dumps(dict(unit, id=i)) for i in range(n))
    b = ('{"items":[' + items + ']}').encode()
    return b[:0] + b


def body_small_values():
    return ("[" + ",".join(["1"] * 4_800_000) + "]").encode()


def body_one_string():
    return json.dumps({"doc": ("y" * 97 + KEY) * (9_700_000 // (97 + len(KEY)))}).encode()


class Peak:
    def __init__(self, pid):
        self.pid = pid
        self.peak = 0
        self.stop = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self.stop:
            h = vmhwm(self.pid)
            if h is None:
                return
            self.peak = max(self.peak, h)
            time.sleep(0.05)


def stdio_slow_reader(up, sp, path_tool, label, limit, budget_args=()):
    s = Stdio(sp, list(budget_args), env={"OPENAPI_MCP_K": KEY}, reader=False, tag=f"mem-{label}")
    pk = Peak(s.p.pid)
    s.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}}})
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for i in range(1, 51):
        s.send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": path_tool, "arguments": {}}})
    got = set()
    buf = b""
    fd = s.p.stdout.fileno()
    os.set_blocking(fd, False)
    end = time.time() + 150
    leaked = False
    while len(got) < 50 and time.time() < end:
        # read at most 1 MiB, then pause 50 ms: a slow reader
        r, _, _ = select.select([s.p.stdout], [], [], 1)
        eof = False
        if r:
            got_now = 0
            while got_now < (1 << 20):
                try:
                    chunk = os.read(fd, (1 << 20) - got_now)
                except BlockingIOError:
                    break
                if not chunk:
                    eof = True
                    break
                got_now += len(chunk)
                buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if KEY.encode() in line:
                    leaked = True
                try:
                    m = json.loads(line)
                    if isinstance(m.get("id"), int) and m["id"] > 0:
                        got.add(m["id"])
                except Exception:
                    pass
        if eof:
            break
        time.sleep(0.05)
    pk.stop = True
    peak = max(pk.peak, vmhwm(s.p.pid) or 0)
    s.close()
    check(f"mem-stdio-{label}", f"stdio, 50 calls x 10 MB {label} answers, slow reader: all answered, peak < {limit} MiB",
          len(got) == 50 and peak < limit, f"answered {len(got)}/50, peak {peak} MiB")
    info(f"mem-stdio-{label}: peak {peak} MiB, {len(got)} answers, key in output: {leaked}")
    return peak


def http_slow_clients(sp, label, args, nclients=100, duration=15):
    hs = HttpServe(sp, args, env={"OPENAPI_MCP_K": KEY}, tag=f"mem-http-{label}")
    pk = Peak(hs.p.pid)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "objects", "arguments": {}}}).encode()
    stop = time.time() + duration
    done = [0]
    def client():
        try:
            c = socket.create_connection(("127.0.0.1", hs.port), timeout=duration + 5)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                      + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            while time.time() < stop:
                d = c.recv(65536)
                if not d:
                    done[0] += 1
                    break
                time.sleep(0.05)
            c.close()
        except Exception:
            pass
    ts = [threading.Thread(target=client, daemon=True) for _ in range(nclients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(duration + 10)
    pk.stop = True
    peak = max(pk.peak, vmhwm(hs.p.pid) or 0)
    hs.close()
    return peak


def run():
    up = Upstream()
    bodies = {"objects": body_objects(), "small": body_small_values(), "string": body_one_string()}
    for k, b in bodies.items():
        up.route(f"/{k}", (lambda b: lambda r: r.reply(200, b))(b))
    def slow(r):
        time.sleep(2)
        r.reply(200, b'{"ok":true}')
    up.route("/slow", slow)
    paths = {f"/{k}": {"get": op(k)} for k in bodies}
    paths["/slow"] = {"post": op("slow", body={"required": True, "content": {"application/json": {"schema": {
        "type": "object", "properties": {"blob": {"type": "string"}}}}}})}
    sp = wfile("memory.json", spec(paths, schemes={"k": {"type": "apiKey", "in": "header", "name": "X-K"}}, security=[{"k": []}], servers=[up.url]))
    info(f"answer sizes: " + ", ".join(f"{k} {len(b)} B" for k, b in bodies.items()))
    for k in bodies:
        stdio_slow_reader(up, sp, k, k, 600)
    stdio_slow_reader(up, sp, "objects", "objects-raised-budget", 600, ["--max-result-bytes", "100000000"])

    # HTTP: 100 slow clients, default budget, then a raised budget under two --max-requests
    p_def = http_slow_clients(sp, "default", [])
    check("mem-http-default", "HTTP, 100 slow clients, default budget: peak < 600 MiB", p_def < 600, f"peak {p_def} MiB")
    p4 = http_slow_clients(sp, "raised-r4", ["--max-result-bytes", "100000000", "--max-requests", "4"])
    p32 = http_slow_clients(sp, "raised-r32", ["--max-result-bytes", "100000000", "--max-requests", "32"])
    info(f"HTTP 100 slow clients: default {p_def} MiB; raised budget --max-requests 4: {p4} MiB, 32: {p32} MiB")
    # 8 calls in flight (~70 MiB each) + 4 held answers of ~20 MB: well under 900 MiB
    check("mem-http-raised-r4", "HTTP, 100 slow clients, 20 MB results, --max-requests 4: peak < 900 MiB", p4 < 900, f"peak {p4} MiB")
    check("mem-http-raised-follows", "raising --max-requests from 4 to 32 is what raises the peak (the limit is what bounds it)", p32 >= p4, f"r4 {p4}, r32 {p32}")

    # 100 calls with 8 MB arguments waiting for one --max-calls slot (stdio)
    s = Stdio(sp, ["--max-calls", "1"], env={"OPENAPI_MCP_K": KEY}, tag="mem-args")
    pk = Peak(s.p.pid)
    s.initialize()
    blob = "b" * (8 << 20)
    t0 = time.time()
    for i in range(100):
        s.send({"jsonrpc": "2.0", "id": 5000 + i, "method": "tools/call", "params": {"name": "slow", "arguments": {"blob": blob}}})
    send_dt = time.time() - t0
    refused, answered, first_err = 0, 0, None
    end = time.time() + 60
    seen = set()
    while time.time() < end and len(seen) < 100:
        for i in range(100):
            if i in seen:
                continue
            m, _ = s.wait_key(str(5000 + i), timeout=0.01)
            if m:
                seen.add(i)
                if "error" in m:
                    refused += 1
                    first_err = first_err or m["error"]
                else:
                    answered += 1
        if refused > 50 and answered >= 3:
            break
        time.sleep(0.2)
    pk.stop = True
    peak = max(pk.peak, vmhwm(s.p.pid) or 0)
    s.close()
    msg = json.dumps(first_err) if first_err else ""
    check("mem-args-waiting-bounded", "100 calls with 8 MB arguments waiting for --max-calls 1: peak < 400 MiB", peak < 400, f"peak {peak} MiB")
    check("mem-args-waiting-refused", "calls beyond the waiting bound get a clear JSON-RPC error at once", refused >= 50 and "wait" in msg.lower(),
          f"refused={refused} answered={answered} first error={msg[:300]}")
    info(f"mem-args: first refusal: {msg[:300]}")
    info(f"mem-args: writing took {send_dt:.1f}s, peak {peak} MiB, refused {refused}, answered {answered}")

    # the same over HTTP (bodies of 8 MB need --max-body)
    hs = HttpServe(sp, ["--max-calls", "1", "--max-body", str(16 << 20)], env={"OPENAPI_MCP_K": KEY}, tag="mem-args-http")
    pk = Peak(hs.p.pid)
    out = []
    def one(i):
        try:
            st, m = hs.rpc("tools/call", {"name": "slow", "arguments": {"blob": blob}}, rid=i, timeout=120)
            out.append((st, m))
        except Exception as e:
            out.append((None, repr(e)))
    ts = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(100)]
    for t in ts:
        t.start()
    end = time.time() + 25
    while time.time() < end and len(out) < 60:
        time.sleep(0.2)
    pk.stop = True
    peak = max(pk.peak, vmhwm(hs.p.pid) or 0)
    hs.close()
    errs = [m for st, m in out if isinstance(m, dict) and "error" in m]
    check("mem-args-waiting-http-bounded", "HTTP: 100 requests with 8 MB arguments, --max-calls 1: peak < 600 MiB", peak < 600, f"peak {peak} MiB")
    check("mem-args-waiting-http-refused", "HTTP: calls beyond the waiting bound get a clear error quickly", len(errs) >= 20,
          f"{len(out)} answers within 25 s, {len(errs)} errors; first={json.dumps(errs[0])[:200] if errs else None}")
