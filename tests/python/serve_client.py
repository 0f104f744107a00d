"""Drive `openapi-mcp serve` with the official MCP Python SDK client.

Usage: serve_client.py BINARY SPEC [dynamic]

Starts the local API of upstream.py (127.0.0.1, a free port; it records requests), launches
`BINARY serve SPEC --base-url ...` through `mcp.client.stdio.stdio_client`, and with a
`ClientSession` initializes, lists the tools and calls some of them. Prints a short transcript
and exits non-zero when a check fails. With `dynamic`, serves `--dynamic` and goes through its four
tools (search, describe, a read, a refused write, a write). Run by tests/it/serve_python.rs.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from upstream import RECEIVED, header, initialize_and_list, start, transcript

show, check = transcript("python-sdk")


async def run(binary, spec, base):
    params = StdioServerParameters(
        command=binary,
        args=["serve", spec, "--base-url", base, "--verbose"],
        env={"OPENAPI_MCP_HEADERKEY": "py-key-1", "OPENAPI_MCP_BEARER_TOKEN": "py-tok-2"},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            tools = await initialize_and_list(session, show, check)
            get_file = next(t for t in tools if t.name == "get_file")
            meta = (get_file.meta or {}).get("openapi-mcp/http", {})
            show("tools/list -> get_file _meta", meta)
            check(meta.get("path") == "/files/{id}", "the call mapping is listed")

            result = await session.call_tool("get_file", {"id": "a/b c?"})
            show("tools/call get_file {id: 'a/b c?'} -> structuredContent", result.structured_content)
            show("  request received by the API", RECEIVED[-1])
            check(not result.is_error, "get_file succeeded")
            check(result.structured_content == {"id": "f-1", "size": 3}, "structured content")
            check(RECEIVED[-1]["path"] == "/v1/files/a%2Fb%20c%3F", "path encoded as one segment")
            check(header(RECEIVED[-1], "X-API-Key") == "py-key-1", "API key from the environment")

            result = await session.call_tool("create_pet", {"name": "Rex", "tags": ["a"]})
            show("tools/call create_pet -> structuredContent", result.structured_content)
            show("  request received by the API", RECEIVED[-1])
            check(result.structured_content == {"id": 7, "name": "Rex", "tags": ["a"]}, "created")
            check(json.loads(RECEIVED[-1]["body"]) == {"name": "Rex", "tags": ["a"]}, "JSON body")

            count = len(RECEIVED)
            result = await session.call_tool("get_file", {})
            show("tools/call get_file {} -> isError", result.is_error)
            show("  text", result.content[0].text)
            check(result.is_error and "`id`" in result.content[0].text, "missing argument named")
            check(len(RECEIVED) == count, "no request for invalid arguments")

            result = await session.call_tool("get_missing", {})
            show("tools/call get_missing -> isError", result.is_error)
            show("  text", result.content[0].text)
            check(result.is_error and "404" in result.content[0].text, "404 is a tool error")

    print("python-sdk: ok")


async def run_dynamic(binary, spec, base):
    params = StdioServerParameters(
        command=binary,
        args=["serve", spec, "--base-url", base, "--dynamic"],
        env={"OPENAPI_MCP_HEADERKEY": "py-key-1", "OPENAPI_MCP_BEARER_TOKEN": "py-tok-2"},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            show("tools/list -> names", names)
            check(
                names == ["search_operations", "describe_operation", "call_read_operation", "call_operation"],
                "the four tools",
            )
            read = next(t for t in tools.tools if t.name == "call_read_operation")
            show("call_read_operation annotations", read.annotations.model_dump(exclude_none=True))
            check(read.annotations.read_only_hint is True, "call_read_operation is read-only")

            result = await session.call_tool("search_operations", {"query": "get the metadata of a file"})
            hits = result.structured_content["operations"]
            show("search_operations -> first", hits[0])
            check(hits[0]["name"] == "get_file", "search finds get_file first")

            result = await session.call_tool("describe_operation", {"name": "get_file"})
            show("describe_operation -> inputSchema", result.structured_content["inputSchema"])
            check(result.structured_content["name"] == "get_file", "described")

            result = await session.call_tool("call_read_operation", {"name": "get_file", "arguments": {"id": "x"}})
            show("call_read_operation get_file -> structuredContent", result.structured_content)
            check(not result.is_error and result.structured_content == {"id": "f-1", "size": 3}, "read")
            check(RECEIVED[-1]["path"] == "/v1/files/x", "the read reached the API")

            count = len(RECEIVED)
            result = await session.call_tool("call_read_operation", {"name": "create_pet", "arguments": {"name": "Rex"}})
            show("call_read_operation create_pet -> text", result.content[0].text)
            check(result.is_error and "call_operation" in result.content[0].text, "write refused")
            check(len(RECEIVED) == count, "nothing sent for a refused write")

            result = await session.call_tool("call_operation", {"name": "create_pet", "arguments": {"name": "Rex"}})
            show("call_operation create_pet -> structuredContent", result.structured_content)
            check(not result.is_error and json.loads(RECEIVED[-1]["body"]) == {"name": "Rex"}, "write sent")

    print("python-sdk: ok")


def main():
    binary, spec = sys.argv[1], sys.argv[2]
    dynamic = len(sys.argv) > 3 and sys.argv[3] == "dynamic"
    server, base = start()
    try:
        go = run_dynamic if dynamic else run
        asyncio.run(asyncio.wait_for(go(binary, spec, base), timeout=60))
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
