"""The MCP server in process against a client that does not play fair (issue 15, "Server and client").

- an argument over the tool's argument limit is refused for its size before the schema check, and
  never quoted back; a value under the limit that the schema refuses is quoted only in part;

The tools are the bundled support agent's (``find_plans`` takes an integer ``teamSize``), the
limits agent-package §5.2's defaults (``maxArgumentsSize`` 1000, where a string of ``64·k``
characters measures ``k``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from mcp import Client
from nx_agent.agent.input_check import MAX_POINTER_CHARS, MAX_PROBLEM_CHARS, MAX_PROBLEMS_SHOWN
from nx_agent.mcp import create_mcp_server
from test_mcp_server import support_tools, text_of

# What a refusal may hold beyond its quoted parts: the sentence naming the tool, and separators.
REFUSAL_SLACK = 200
REFUSAL_BOUND = MAX_PROBLEMS_SHOWN * (MAX_POINTER_CHARS + MAX_PROBLEM_CHARS + 100) + REFUSAL_SLACK


def run(server: Any, scenario: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(server.server) as client:
            await scenario(client)

    anyio.run(main)


def test_an_argument_over_the_size_limit_is_refused_for_its_size_and_never_quoted() -> None:
    events: list[dict[str, Any]] = []
    server = create_mcp_server(support_tools(), on_result=events.append)
    huge = "x" * 1_800_000

    async def scenario(client: Client) -> None:
        result = await client.call_tool("find_plans", {"teamSize": huge})
        assert result.is_error is True
        assert text_of(result) == "NxAgentToolError: The input of tool 'find_plans' is larger than its limit of 1000."

    run(server, scenario)
    error = events[0]["result"]["error"]
    assert error["limit"] == {"name": "maxArgumentsSize", "value": 1000}
    assert "xxxx" not in error["message"]


def test_a_refused_value_under_the_limit_is_quoted_only_in_part() -> None:
    events: list[dict[str, Any]] = []
    server = create_mcp_server(support_tools(), on_result=events.append)
    # 900 (of 1000) in size: admitted by the limit, refused by the schema (not an integer), and a
    # key of 60,000 characters the schema does not list.
    long_value = "y" * (64 * 900)
    long_key = "k" * 60_000

    async def scenario(client: Client) -> None:
        for arguments in ({"teamSize": long_value}, {"teamSize": 5, long_key: 1}):
            result = await client.call_tool("find_plans", arguments)
            assert result.is_error is True
            text = text_of(result)
            assert len(text) < REFUSAL_BOUND, len(text)
            assert "do not fit its input schema" in text and "characters left out" in text

    run(server, scenario)
    first, second = (event["result"]["error"]["message"] for event in events)
    # What is wrong stays readable: the end of the validator's message is kept.
    assert first.endswith('is not of type "integer".') and first.count("y") < MAX_PROBLEM_CHARS
    assert "unexpected" in second and second.count("k") < MAX_PROBLEM_CHARS + 10
