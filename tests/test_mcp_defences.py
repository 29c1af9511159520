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


# ---- maxCallsPerConversation --------------------------------------------------------------------

# The support agent's open_ticket is stored with maxCallsPerConversation 1 (examples/agent.nx).
TICKET_CAP_TEXT = (
    "NxAgentToolError: Tool 'open_ticket' may be called at most once in a conversation, and this "
    "conversation has reached that: do not call it again here."
)


def test_open_ticket_is_stored_with_a_cap_of_one() -> None:
    stored = {tool.name: tool.config for tool in support_tools()}
    assert stored["open_ticket"]["maxCallsPerConversation"] == 1
    assert "maxCallsPerConversation" not in stored["find_plans"]


def test_a_tool_past_its_cap_does_not_run_and_the_model_is_told_why() -> None:
    events: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []

    def request(call: dict[str, Any]) -> dict[str, Any]:
        sent.append(call)
        return {"status": 201, "body": {}}

    from nx_agent.agent import compile_agent, load_agent
    from nx_agent import examples

    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    server = create_mcp_server(load_agent(compiled.definition_text, compiled.images, request=request), on_result=events.append)

    async def scenario(client: Client) -> None:
        # Arguments refused before anything runs do not count.
        refused = await client.call_tool("open_ticket", {"subject": 7})
        assert refused.is_error is True and "subject" in text_of(refused)
        first = await client.call_tool("open_ticket", {"subject": "Refund"})
        assert first.is_error is False
        for _ in range(2):
            again = await client.call_tool("open_ticket", {"subject": "Refund again"})
            assert again.is_error is True and text_of(again) == TICKET_CAP_TEXT
        # Other tools are not affected.
        assert (await client.call_tool("find_plans", {"teamSize": 5})).is_error is False

    run(server, scenario)
    assert len(sent) == 1
    codes = [event["result"]["ok"] or event["result"]["error"]["code"] for event in events]
    assert codes == ["invalid-input", True, "resource-limit", "resource-limit", True]
    assert events[2]["result"]["error"]["limit"] == {"name": "maxCallsPerConversation", "value": 1}
    assert "usage" not in events[2]["result"]


def test_a_host_cap_lowers_every_tools_cap() -> None:
    events: list[dict[str, Any]] = []
    server = create_mcp_server(support_tools(), on_result=events.append, max_calls_per_conversation=2)

    async def scenario(client: Client) -> None:
        answers = [await client.call_tool("find_plans", {"teamSize": 5}) for _ in range(3)]
        assert [answer.is_error for answer in answers] == [False, False, True]
        assert text_of(answers[2]) == (
            "NxAgentToolError: Tool 'find_plans' may be called at most 2 times in a conversation, and this "
            "conversation has reached that: do not call it again here."
        )
        # A tool's own cap below the host's still holds.
        tickets = [await client.call_tool("open_ticket", {"subject": "Refund"}) for _ in range(2)]
        assert [answer.is_error for answer in tickets] == [False, True]

    run(server, scenario)
    assert events[2]["result"]["error"]["limit"] == {"name": "maxCallsPerConversation", "value": 2}


def test_each_conversation_has_its_own_count() -> None:
    conversations = iter(["c1", "c1", "c2", "c1", "c2"])
    server = create_mcp_server(support_tools(), conversation=lambda call: next(conversations))

    async def scenario(client: Client) -> None:
        answers = [await client.call_tool("open_ticket", {"subject": "Refund"}) for _ in range(5)]
        assert [answer.is_error for answer in answers] == [False, True, False, True, True]

    run(server, scenario)


def test_serve_takes_the_host_cap_from_the_host_configuration(tmp_path: Any) -> None:
    from mcp_support import write_support_agent
    from nx_agent.mcp import read_host_config
    from nx_agent.mcp.command import build_server

    definition, images, _ = write_support_agent(tmp_path)
    config = read_host_config({"limits": {"maxCallsPerConversation": 1}, "connections": {"shop": {"noToken": True}}})
    server = build_server(str(definition), [str(image) for image in images], config, "main.nx")
    assert server.calls is not None and server.calls.caps == {"find_plans": 1, "lookup_order": 1, "open_ticket": 1}

    async def scenario(client: Client) -> None:
        answers = [await client.call_tool("find_plans", {"teamSize": 5}) for _ in range(2)]
        assert [answer.is_error for answer in answers] == [False, True]

    run(server, scenario)
