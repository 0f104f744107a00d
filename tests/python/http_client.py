"""Drive `openapi-mcp serve --http` with the official MCP Python SDK's Streamable HTTP client.

Usage: http_client.py BINARY SPEC

Starts the local API of upstream.py (127.0.0.1, a free port; it records requests), launches
`BINARY serve SPEC --base-url ... --http 127.0.0.1:0` with OPENAPI_MCP_HTTP_TOKEN set, reads the
address from its startup line, and with `streamable_http_client` + `ClientSession` (sending the
bearer token and a header of its own) initializes, lists the tools and calls some of them. Then
sends SIGTERM and checks the server exits 0. Prints a short transcript and exits non-zero when a
check fails. Run by tests/it/serve_python.rs.
"""

import asyncio
import json
import os
import re
import signal
import subprocess
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from upstream import RECEIVED, header, initialize_and_list, start, transcript

TOKEN = "http-token-0123456789abcdef"
show, check = transcript("python-sdk-http")


async def run(url):
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Client-Secret": "client-side-value"}
    async with create_mcp_http_client(headers=headers) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await initialize_and_list(session, show, check)

                result = await session.call_tool("get_file", {"id": "a/b c?"})
                show("tools/call get_file -> structuredContent", result.structured_content)
                check(not result.is_error, "get_file succeeded")
                check(result.structured_content == {"id": "f-1", "size": 3}, "structured content")
                last = RECEIVED[-1]
                show("  request received by the API", last)
                check(last["path"] == "/v1/files/a%2Fb%20c%3F", "path encoded as one segment")
                check(header(last, "X-API-Key") == "py-key-1", "API key from the environment")
                check(header(last, "Authorization") is None,
                      "the client's Authorization is not forwarded")
                check(header(last, "X-Client-Secret") is None,
                      "the client's headers are not forwarded")

                result = await session.call_tool("create_pet", {"name": "Rex", "tags": ["a"]})
                show("tools/call create_pet -> structuredContent", result.structured_content)
                check(result.structured_content == {"id": 7, "name": "Rex", "tags": ["a"]}, "created")
                check(header(RECEIVED[-1], "Authorization") == "Bearer py-tok-2",
                      "the operator's bearer token, not the client's")

                result = await session.call_tool("get_file", {})
                check(result.is_error and "`id`" in result.content[0].text, "missing argument named")
    print("python-sdk-http: session ok")


def main():
    binary, spec = sys.argv[1], sys.argv[2]
    api, base = start()
    env = dict(os.environ)
    env.update({"OPENAPI_MCP_HEADERKEY": "py-key-1", "OPENAPI_MCP_BEARER_TOKEN": "py-tok-2",
                "OPENAPI_MCP_HTTP_TOKEN": TOKEN})
    server = subprocess.Popen(
        [binary, "serve", spec, "--base-url", base, "--http", "127.0.0.1:0", "--verbose"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )
    try:
        url = None
        lines = []
        for _ in range(50):
            line = server.stderr.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"at (http://\S+/mcp)", line)
            if m:
                url = m.group(1)
                break
        check(url is not None, "the startup line names the address: " + "".join(lines))
        show("listening", url)
        asyncio.run(asyncio.wait_for(run(url), timeout=60))
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=20)
        rest = server.stderr.read()
        show("exit code after SIGTERM", code)
        check(code == 0, "exit 0 after SIGTERM: " + rest)
        check(TOKEN not in "".join(lines) + rest, "the HTTP token is not logged")
        check("py-tok-2" not in rest and "py-key-1" not in rest, "credentials not logged")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        api.shutdown()
    print("python-sdk-http: ok")


if __name__ == "__main__":
    main()
