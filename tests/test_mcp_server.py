"""`nx_agent.mcp.create_mcp_server` in process, through the `mcp` SDK's own `Client` (which connects
to a `Server` directly, or over its in-memory JSON-RPC transport with `mode="legacy"`).

Tools: the execute tests' fixture agent (`agent_programs.execute_definition`: `spin`, `divide`,
`who_am_i`, `call_id_of`, `lookup_order`, a `builtin` host kind, `web_search`) and the bundled
support agent. Expected texts are agent-package §7's sentences; outputs follow from the fixture's
NX functions; the handshake-era wrapping is the one `nx_agent.mcp.listing` documents.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from agent_programs import execute_definition, link_execute_program
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_support import PLANS_5
from nx_agent import NxAgentToolError, create_agent_tools, examples
from nx_agent.agent import compile_agent, load_agent
from nx_agent.mcp import McpCall, create_mcp_server

CHAT = {"$type": "ChatToolContext", "conversationId": "conv_9"}
SECRET = "https://billing.internal/v1?key=sk-live-123"


def fixture_tools(request: Any = None, executor: Any = None) -> list[Any]:
    def default_request(call: dict[str, Any]) -> dict[str, Any]:
        return {"status": 200, "body": {"url": call["request"]["url"]}}

    return create_agent_tools(
        execute_definition(),
        link_execute_program(),
        request=request or default_request,
        executors={"builtin": executor or (lambda tool, input, call: {"kind": "company", "query": input["query"]})},
    )


def support_tools() -> Any:
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    return load_agent(compiled.definition_text, compiled.images, request=lambda call: {"status": 200})


def run(server: Any, scenario: Callable[[Client], Awaitable[None]], mode: str = "auto") -> None:
    async def main() -> None:
        async with Client(server.server, mode=mode) as client:
            await scenario(client)

    anyio.run(main)


def text_of(result: Any) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    text: str = result.content[0].text
    return text


def test_provider_tools_are_left_out_and_the_rest_listed_as_stored() -> None:
    server = create_mcp_server(fixture_tools())
    assert [tool.name for tool in server.skipped] == ["web_search"]
    stored = [tool for tool in execute_definition()["tools"] if tool["kind"] != "provider"]

    async def scenario(client: Client) -> None:
        listed = (await client.list_tools()).tools
        wire = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed]
        keys = ("name", "description", "inputSchema", "outputSchema", "annotations")
        assert wire == [{key: tool[key] for key in keys if key in tool} for tool in stored]

    run(server, scenario)


def test_failures_tell_the_model_only_what_section_7_allows() -> None:
    def request(call: dict[str, Any]) -> dict[str, Any]:
        if call["arguments"]["pathParams"][0]["value"] == "A1":
            raise NxAgentToolError("order-not-found", "There is no order A1.", limit={"name": "orders"})
        raise ConnectionError(f"fetch failed: {SECRET}")

    events: list[dict[str, Any]] = []
    server = create_mcp_server(fixture_tools(request=request), on_result=events.append, validate_arguments=False)

    async def scenario(client: Client) -> None:
        calls = [
            ("spin", {"n": 1000}),
            ("divide", {"n": 0}),
            ("who_am_i", {}),
            ("lookup_order", {"orderId": "B2"}),
            ("lookup_order", {"orderId": "A1"}),
            ("find_plans", {"teamSize": "five"}),
        ]
        texts = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert result.is_error is True and result.structured_content is None
            texts.append(text_of(result))
        assert texts[:5] == [
            "NxAgentToolError: Tool 'spin' stopped at a limit on what one call may do.",
            "NxAgentToolError: Tool 'divide' failed while it ran.",
            "NxAgentToolError: Tool 'who_am_i' is not available for this call.",
            "NxAgentToolError: Tool 'lookup_order' did not get an answer to its request.",
            "NxAgentToolError: There is no order A1.",
        ]
        # invalid-input keeps its reason: here the runtime's, the MCP check being off.
        assert "teamSize" in texts[5] and texts[5] == f"NxAgentToolError: {events[5]['result']['error']['message']}"
        assert all(SECRET not in text and "100000" not in text for text in texts)

    run(server, scenario)
    # The host reads every reason in on_result: one event per call, the full result.
    codes = [event["result"]["error"]["code"] for event in events]
    assert codes == ["resource-limit", "evaluation-failed", "invalid-context", "request-failed", "order-not-found", "invalid-input"]
    assert events[0]["result"]["error"]["limit"]["name"] == "maxOperations"
    assert SECRET in events[3]["result"]["error"]["message"]
    assert events[5]["result"]["error"]["diagnostics"][0]["code"] == "nx-ir-boundary-type"


def test_arguments_are_checked_by_one_compiled_validator_per_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    import jsonschema_rs

    compiled: list[Any] = []
    original = jsonschema_rs.validator_for

    def counting(schema: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(schema)
        return original(schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema_rs, "validator_for", counting)
    events: list[dict[str, Any]] = []
    server = create_mcp_server(fixture_tools(), on_result=events.append)
    after_creation = len(compiled)

    async def scenario(client: Client) -> None:
        for _ in range(3):
            good = await client.call_tool("find_plans", {"teamSize": 5})
            assert good.is_error is False
            bad = await client.call_tool("find_plans", {"teamSize": 5, "extra": True})
            assert bad.is_error is True
            assert text_of(bad).startswith("NxAgentToolError: The arguments of tool 'find_plans' do not fit its input schema: at /:")
            assert "extra" in text_of(bad)

    run(server, scenario)
    assert len(compiled) == after_creation
    # A refused call never ran: its result has no usage, and on_result still heard of it.
    assert events[1]["result"] == {"ok": False, "error": {"code": "invalid-input", "message": events[1]["result"]["error"]["message"]}}


def test_call_ids_and_contexts_come_from_the_host() -> None:
    seen: list[McpCall] = []

    def call_id(call: McpCall) -> str:
        seen.append(call)
        return f"turn_7:{call.request_id}"

    server = create_mcp_server(fixture_tools(), call_id=call_id, context=CHAT)

    async def scenario(client: Client) -> None:
        who = await client.call_tool("who_am_i", {})
        assert who.structured_content == "conv_9" and json.loads(text_of(who)) == "conv_9"
        echoed = await client.call_tool("call_id_of", {})
        assert echoed.structured_content == f"turn_7:{seen[1].request_id}"
        # The model cannot supply the context: the input schema has no such property.
        forged = await client.call_tool("who_am_i", {"context": {"$type": "ChatToolContext", "conversationId": "x"}})
        assert forged.is_error is True and "context" in text_of(forged)

    run(server, scenario)
    assert [(call.tool_name, call.sequence) for call in seen] == [("who_am_i", 1), ("call_id_of", 2), ("who_am_i", 3)]
    assert seen[2].arguments == {"context": {"$type": "ChatToolContext", "conversationId": "x"}}
    assert len({call.request_id for call in seen}) == 3


def test_the_default_call_id_is_the_request_id() -> None:
    events: list[dict[str, Any]] = []
    server = create_mcp_server(fixture_tools(), context=lambda call: CHAT, on_result=events.append)

    async def scenario(client: Client) -> None:
        first = await client.call_tool("call_id_of", {})
        second = await client.call_tool("call_id_of", {})
        # No output schema and a string output: on a handshake-era version, only the text.
        assert first.structured_content is None
        assert json.loads(text_of(first)) != json.loads(text_of(second))

    run(server, scenario, mode="legacy")
    ids = [event["call_id"] for event in events]
    assert [event["result"]["output"] for event in events] == ids
    assert all(isinstance(i, str) and i.isdigit() for i in ids)


def test_on_result_may_choose_the_error_the_model_sees() -> None:
    def on_result(event: dict[str, Any]) -> None:
        raise NxAgentToolError("request-failed", "The order service is down. Try again in an hour.")

    server = create_mcp_server(fixture_tools(), on_result=on_result)

    async def scenario(client: Client) -> None:
        result = await client.call_tool("find_plans", {"teamSize": 5})
        assert result.is_error is True
        assert text_of(result) == "NxAgentToolError: The order service is down. Try again in an hour."

    run(server, scenario)


def test_an_unknown_tool_is_a_protocol_error() -> None:
    server = create_mcp_server(fixture_tools())

    async def scenario(client: Client) -> None:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("web_search", {})
        assert raised.value.error.code == -32602

    run(server, scenario)


def test_handshake_versions_get_object_output_schemas_and_results() -> None:
    server = create_mcp_server(support_tools())
    stored = next(tool for tool in support_tools().definition["tools"] if tool["name"] == "find_plans")["outputSchema"]

    async def scenario(client: Client) -> None:
        assert client.protocol_version == "2025-11-25"
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert listed["find_plans"].output_schema == {
            "$schema": stored["$schema"],
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Plan"}}},
            "required": ["result"],
            "additionalProperties": False,
            "$defs": stored["$defs"],
        }
        # An object schema (every http tool's) is listed as stored.
        http_schema = next(t for t in support_tools().definition["tools"] if t["name"] == "lookup_order")["outputSchema"]
        assert listed["lookup_order"].output_schema == http_schema
        # The SDK client validates structured content against the listed schema; this passes it.
        result = await client.call_tool("find_plans", {"teamSize": 5})
        assert result.is_error is False
        assert result.structured_content == {"result": PLANS_5}
        assert json.loads(text_of(result)) == PLANS_5

    run(server, scenario, mode="legacy")


def test_a_tool_with_no_output_schema_on_each_protocol() -> None:
    server = create_mcp_server(fixture_tools(executor=lambda tool, input, call: f"found {input['query']}"))

    async def modern(client: Client) -> None:
        result = await client.call_tool("search_records", {"query": "acme"})
        assert result.structured_content == "found acme" and json.loads(text_of(result)) == "found acme"

    async def legacy(client: Client) -> None:
        result = await client.call_tool("search_records", {"query": "acme"})
        assert result.is_error is False
        assert result.structured_content is None and json.loads(text_of(result)) == "found acme"

    run(server, modern)
    run(server, legacy, mode="legacy")
