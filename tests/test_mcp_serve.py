"""`nx-agent serve` as a subprocess, through the `mcp` SDK's own client: over stdio (the SDK's stdio
client starts the server) and over streamable HTTP on loopback (`--http --port 0`).

Each case runs on both transports: the list, a successful call, an `invalid-input` call, a
`resource-limit` call (a host configuration with a budget of 5 operations), and the HTTP tools
answered by a loopback shop the host configuration points the `shop` connection at.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_support import FUNCTION_HINTS, GET_HINTS, POST_HINTS
from http_server import Recorder, loopback_server
from mcp import Client, StdioServerParameters
from mcp_support import (
    PLANS_5,
    SHOP_TOKEN,
    authorized,
    http_server,
    serve_args,
    server_env,
    shop_config,
    write_config,
    write_support_agent,
)

# agent-package §7: what the model is told of a resource-limit failure.
RESOURCE_LIMIT_TEXT = "NxAgentToolError: Tool 'find_plans' stopped at a limit on what one call may do."
CALL_ID = re.compile(r"^test:\d+:\d+$")


class Setup:
    def __init__(self, directory: Path, shop_url: str, recorder: Recorder) -> None:
        self.directory = directory
        self.definition, self.images, self.stored = write_support_agent(directory)
        self.configs = {
            "normal": write_config(directory, "normal.json", shop_config(shop_url)),
            "tight": write_config(directory, "tight.json", shop_config(shop_url, limits={"maxOperations": 5})),
        }
        self.recorder = recorder
        self.urls: dict[str, str] = {}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    with loopback_server() as (shop_url, recorder):
        yield Setup(tmp_path_factory.mktemp("mcp"), shop_url, recorder)


@pytest.fixture(scope="module")
def http_urls(setup: Setup) -> Iterator[dict[str, str]]:
    """One `serve --http` subprocess per host configuration, for the whole module."""
    with http_server(setup.definition, setup.images, setup.configs["normal"]) as normal:
        with http_server(setup.definition, setup.images, setup.configs["tight"]) as tight:
            yield {"normal": normal, "tight": tight}


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, setup: Setup) -> Callable[[str], Any]:
    """`connect(config)` answers what `mcp.Client` is given to reach a server with that configuration."""
    if request.param == "http":
        urls = request.getfixturevalue("http_urls")
        return lambda config: authorized(urls[config])

    def stdio(config: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=serve_args(setup.definition, setup.images, setup.configs[config]),
            env=server_env(),
        )

    return stdio


def run(server: Any, scenario: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(server) as client:
            await scenario(client)

    anyio.run(main)


def test_list_answers_the_stored_tools(setup: Setup, connect: Callable[[str], Any]) -> None:
    async def scenario(client: Client) -> None:
        listed = (await client.list_tools()).tools
        by_name = {tool["name"]: tool for tool in setup.stored["tools"]}
        # The provider tool (web_search) is left out: a model's provider runs it.
        assert [tool.name for tool in listed] == ["find_plans", "lookup_order", "open_ticket"]
        for tool in listed:
            wire = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
            stored = by_name[tool.name]
            assert wire == {
                key: stored[key] for key in ("name", "description", "inputSchema", "outputSchema", "annotations")
            }
        hints = {tool.name: tool.model_dump(by_alias=True, exclude_none=True)["annotations"] for tool in listed}
        assert hints == {"find_plans": FUNCTION_HINTS, "lookup_order": GET_HINTS, "open_ticket": POST_HINTS}
        # An array output schema goes out as stored on 2026-07-28 (agent-package §2.2: never wrapped).
        assert client.protocol_version == "2026-07-28"
        assert listed[0].output_schema is not None and listed[0].output_schema["type"] == "array"

    run(connect("normal"), scenario)


def test_a_successful_call(connect: Callable[[str], Any]) -> None:
    async def scenario(client: Client) -> None:
        result = await client.call_tool("find_plans", {"teamSize": 5})
        assert result.is_error is False
        assert result.structured_content == PLANS_5
        assert len(result.content) == 1 and result.content[0].type == "text"
        assert json.loads(result.content[0].text) == PLANS_5

    run(connect("normal"), scenario)


def test_an_invalid_input_call_tells_the_model_why(connect: Callable[[str], Any]) -> None:
    async def scenario(client: Client) -> None:
        result = await client.call_tool("find_plans", {"teamSize": "five"})
        assert result.is_error is True and result.structured_content is None
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.startswith("NxAgentToolError: ") and "teamSize" in text and "integer" in text
        missing = await client.call_tool("find_plans", {})
        assert missing.is_error is True and "teamSize" in missing.content[0].text  # type: ignore[union-attr]

    run(connect("normal"), scenario)


def test_a_resource_limit_call_gets_the_fixed_sentence(connect: Callable[[str], Any]) -> None:
    async def scenario(client: Client) -> None:
        result = await client.call_tool("find_plans", {"teamSize": 5})
        assert result.is_error is True
        assert [block.text for block in result.content] == [RESOURCE_LIMIT_TEXT]  # type: ignore[union-attr]

    run(connect("tight"), scenario)


def test_http_tools_are_answered_by_the_loopback_shop(setup: Setup, connect: Callable[[str], Any]) -> None:
    async def scenario(client: Client) -> None:
        before = len(setup.recorder.requests)
        order = await client.call_tool("lookup_order", {"orderId": "A 1"})
        assert order.is_error is False
        output = order.structured_content
        assert isinstance(output, dict) and output["status"] == 200
        assert json.loads(order.content[0].text) == output  # type: ignore[union-attr]
        seen = output["body"]
        assert (seen["method"], seen["path"]) == ("GET", "/orders/A%201")
        assert seen["authorization"] == f"Bearer {SHOP_TOKEN}" and seen["idempotency"] is None

        ticket = await client.call_tool("open_ticket", {"subject": "Refund"})
        assert ticket.is_error is False
        answer = ticket.structured_content
        assert isinstance(answer, dict) and answer["status"] == 201
        sent = answer["body"]
        assert (sent["method"], sent["path"], sent["content_type"]) == ("POST", "/tickets", "application/json")
        assert json.loads(sent["body"]) == {"subject": "Refund", "priority": 2}
        # The call id (the write's idempotency key): `<callIdPrefix>:<n>:<MCP request id>`.
        assert CALL_ID.match(sent["idempotency"]), sent["idempotency"]
        assert [entry["path"] for entry in setup.recorder.requests[before:]] == ["/orders/A%201", "/tickets"]

    run(connect("normal"), scenario)
