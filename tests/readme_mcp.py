"""The README's MCP example (run by test_readme_mcp): store the support agent, serve its tools with
`nx-agent serve`, and call them with the `mcp` SDK's client; and the same server made in Python."""

import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from nx_agent import compile_agent, examples, load_agent
from nx_agent.mcp import create_mcp_server


def store(directory: Path) -> list[str]:
    """Compile the bundled support agent; write its definition and images (what `serve` reads)."""
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    (directory / "support.json").write_text(compiled.definition_text, encoding="utf-8")
    files = [str(directory / "support.json")]
    for index, data in enumerate(compiled.images.values()):
        (directory / f"image{index}.nxir").write_bytes(data)
        files.append(str(directory / f"image{index}.nxir"))
    return files


async def find_plans(files: list[str]) -> tuple[list[str], Any]:
    """Start `nx-agent serve` over stdio, list its tools and call find_plans. The `shop` connection
    of lookup_order needs its bearer token (serve refuses to start without one)."""
    env = {**os.environ, "NX_AGENT_TOKEN_SHOP": os.environ.get("NX_AGENT_TOKEN_SHOP", "token-of-the-shop-api")}
    server = StdioServerParameters(command=sys.executable, args=["-m", "nx_agent", "serve", *files], env=env)
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("find_plans", {"teamSize": 5})
        return [tool.name for tool in tools], result.structured_content


def make_server(files: list[str]) -> Any:
    """The same tools behind an MCP server made in Python: run it with
    `asyncio.run(nx_agent.mcp.serve_stdio(server))` or `serve_http(server, port=8000, token=...)`."""
    definition, *images = files
    support = load_agent(
        Path(definition).read_text(encoding="utf-8"),
        [Path(image).read_bytes() for image in images],
        request=lambda call: {"status": 200, "body": {"state": "shipped"}},
    )
    return create_mcp_server(
        support,
        call_id=lambda call: f"conversation-1:{call.request_id}",
        on_result=lambda event: print(event["name"], event["call_id"], event["result"]["ok"]),
    )
