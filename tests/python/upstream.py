"""The local API that the Python SDK clients (serve_client.py, http_client.py) point `serve` at,
and the transcript helpers they share.

`start()` serves it on a free port in a thread and returns the server and its base URL. Every
request is recorded in `RECEIVED` (method, path, headers, body); `header(request, name)` reads a
recorded header whatever its case. GET /v1/files/... answers a file, GET elsewhere 404, and POST
echoes the JSON body with an id.
"""

import http.server
import json
import sys
import threading

RECEIVED = []


class Handler(http.server.BaseHTTPRequestHandler):
    def _answer(self, status, content_type, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        RECEIVED.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
        if self.path.startswith("/v1/files/"):
            self._answer(200, "application/json", json.dumps({"id": "f-1", "size": 3}))
        else:
            self._answer(404, "application/json", json.dumps({"error": "no such thing"}))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        RECEIVED.append({"method": "POST", "path": self.path, "body": body.decode(),
                         "headers": dict(self.headers)})
        self._answer(201, "application/json", json.dumps({"id": 7, **json.loads(body)}))

    def log_message(self, *args):
        pass


def start():
    """Serve the API in a thread: the server (to `shutdown()`) and its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def header(request, name):
    """A recorded request's header `name`, whatever its case; None when it was not sent."""
    wanted = name.lower()
    return next((v for k, v in request["headers"].items() if k.lower() == wanted), None)


def transcript(prefix):
    """`show(label, value)` and `check(condition, message)`, printing under `prefix`; a failed
    check ends the process with status 1."""

    def show(label, value):
        print(f"{prefix}: {label}: {json.dumps(value, sort_keys=True)}")

    def check(condition, message):
        if not condition:
            print(f"{prefix}: FAILED: {message}")
            sys.exit(1)

    return show, check


async def initialize_and_list(session, show, check):
    """Initialize `session`, check that it serves the test API with `get_file` and `create_pet`
    among its tools, and return the tools."""
    init = await session.initialize()
    show("initialize -> serverInfo", init.server_info.model_dump(exclude_none=True))
    show("initialize -> protocolVersion", init.protocol_version)
    check(init.server_info.name == "Serve Test API", "serverInfo.name is the API title")
    tools = (await session.list_tools()).tools
    names = [t.name for t in tools]
    show("tools/list -> names", names)
    check("get_file" in names and "create_pet" in names, "tools listed")
    return tools
