"""The README's MCP example (`readme_mcp.py`), run as written: `nx-agent serve` over stdio through the
SDK client, and the server made in Python through the SDK's in-process client."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import readme_mcp
from mcp import Client
from mcp_support import PLANS_5


def test_the_serve_example(tmp_path: Path) -> None:
    files = readme_mcp.store(tmp_path)
    names, plans = anyio.run(readme_mcp.find_plans, files)
    assert names == ["find_plans", "lookup_order", "open_ticket"]
    assert plans == PLANS_5


def test_the_python_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = readme_mcp.make_server(readme_mcp.store(tmp_path))

    async def scenario() -> object:
        async with Client(server.server) as client:
            return (await client.call_tool("lookup_order", {"orderId": "A 1"})).structured_content

    assert anyio.run(scenario) == {"status": 200, "body": {"state": "shipped"}}
    name, call_id, ok = capsys.readouterr().out.split()
    assert (name, ok) == ("lookup_order", "True") and call_id.startswith("conversation-1:")
