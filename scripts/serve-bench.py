#!/usr/bin/env python3
"""Time `openapi-mcp serve` start-up and `tools/list` on large documents, beside `convert`.

    cargo build --release
    python3 scripts/serve-bench.py "$(../shared/corpus/fetch)" [NAME ...]

For each document (default: Microsoft Graph v1 and GitHub) it starts `serve` (the binary in
OPENAPI_MCP_BIN, else target/release/openapi-mcp) with `--base-url http://127.0.0.1:9`, and
measures from starting the process to the `initialize` answer, from sending `tools/list` to the
end of its answer, and the server's peak resident memory (VmHWM, read before standard input is
closed). `convert SPEC -o /dev/null` is timed and measured (`/usr/bin/time -f %M`) beside it.
Each figure is the best of RUNS runs (default 3).
"""

import json
import os
import re
import subprocess
import sys
import time

DEFAULT = ["microsoft.com/graph.json", "github.com/api.github.com.json"]
BIN = os.environ.get("OPENAPI_MCP_BIN", "target/release/openapi-mcp")
RUNS = int(os.environ.get("RUNS", "3"))


def read_answer(out, want_id):
    """The answer's line (read whole before it is parsed, so parsing is not timed)."""
    while True:
        line = out.readline()
        if not line:
            raise SystemExit("serve closed its output")
        found = re.search(rb'"id":(\d+)', line[:100])
        if found and int(found.group(1)) == want_id:
            return line


def serve_once(spec):
    start = time.perf_counter()
    p = subprocess.Popen(
        [BIN, "serve", spec, "--base-url", "http://127.0.0.1:9"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def send(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "bench", "version": "0"}}})
    read_answer(p.stdout, 1)
    t_init = time.perf_counter() - start
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = time.perf_counter()
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    line = read_answer(p.stdout, 2)
    t_list = time.perf_counter() - listed
    size = len(line)
    tools = len(json.loads(line)["result"]["tools"])
    with open(f"/proc/{p.pid}/status") as f:
        hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM"))
    p.stdin.close()
    p.wait()
    return t_init, t_list, hwm / 1024, tools, size


def convert_once(spec):
    start = time.perf_counter()
    r = subprocess.run(
        ["/usr/bin/time", "-f", "%M", BIN, "convert", spec, "-o", "/dev/null"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    took = time.perf_counter() - start
    return took, int(r.stderr.decode().strip().splitlines()[-1]) / 1024


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    corpus, names = sys.argv[1], sys.argv[2:] or DEFAULT
    print("| document | tools | list MB | initialize | tools/list | serve peak | convert | convert peak |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        spec = os.path.join(corpus, name)
        serves = [serve_once(spec) for _ in range(RUNS)]
        converts = [convert_once(spec) for _ in range(RUNS)]
        init = min(s[0] for s in serves)
        listing = min(s[1] for s in serves)
        peak = min(s[2] for s in serves)
        tools, size = serves[0][3], serves[0][4]
        c_time = min(c[0] for c in converts)
        c_peak = min(c[1] for c in converts)
        print(f"| {name} | {tools} | {size / 1e6:.0f} | {init:.2f} s | {listing:.2f} s | "
              f"{peak:.0f} MB | {c_time:.2f} s | {c_peak:.0f} MB |")


if __name__ == "__main__":
    main()
