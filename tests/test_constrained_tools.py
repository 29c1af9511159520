"""Tools with constrained parameters (schema 6), end to end: the bounds in the stored definition,
in the tool JSON and the SDK adapters' tool schemas, and an input that breaks a bound refused as
`invalid-input`, with its path, by the tool's compiled validator before anything is evaluated:
through `execute`/`aexecute` (tools made with `validate_arguments=True`), through an MCP client
session (in process, and `nx-agent serve` over stdio), and through both SDK adapters.

The agent is tests/constrained_agent.py. "Nothing evaluated" is asserted twice: the refused result
has no usage (every call that reaches the runtime reports one), and a counting host around the
runtime's `call_function` sees no call.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import constrained_agent
from constrained_agent import BOOK_INPUT, DIM_FADE, DIM_LEVEL
from mcp import Client, StdioServerParameters
from mcp_support import serve_args, server_env, write_agent
from nx_agent import create_agent_tools
from nx_agent.agent import CompiledAgent, LoadedAgent, load_agent
from nx_agent.agent import execute as execute_module
from nx_agent.mcp import create_mcp_server
from nx_agent.tool_json import to_anthropic_tools, to_openai_tools

BOOKING_3_2 = {"$type": "Booking", "nights": 3, "guests": 2}
REFUSAL = "The arguments of tool '{tool}' do not fit its input schema: "


@pytest.fixture(scope="module")
def compiled() -> CompiledAgent:
    return constrained_agent.compiled()


def loaded(compiled: CompiledAgent, **options: Any) -> LoadedAgent:
    return load_agent(compiled.definition_text, compiled.images, **options)


@pytest.fixture
def evaluations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A counting host: every call the tools make into the runtime, by function name."""
    seen: list[str] = []
    original = execute_module.call_function

    def counting(program: Any, function: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(function["name"])
        return original(program, function, *args, **kwargs)

    # The one module that calls the runtime for a tool: the prepared call and the inline path.
    monkeypatch.setattr(execute_module, "call_function", counting)
    return seen


def refused(result: Any, tool: str, *paths: str) -> str:
    """The message of an `invalid-input` refusal naming ``paths``, checked to have run nothing."""
    assert result == {"ok": False, "error": {"code": "invalid-input", "message": result["error"]["message"]}}
    message: str = result["error"]["message"]
    assert message.startswith(REFUSAL.format(tool=tool))
    assert [part.split(":")[0] for part in message[len(REFUSAL.format(tool=tool)) :].split("; ")] == [
        f"at {path}" for path in paths
    ]
    return message


# -- the definition and the tool JSON ------------------------------------------------------------


def test_the_stored_tools_carry_the_bounds(compiled: CompiledAgent) -> None:
    book, dim = compiled.definition["tools"]
    assert json.dumps(book["inputSchema"]) == json.dumps(BOOK_INPUT)
    assert book["outputSchema"]["$defs"]["Booking"]["properties"]["nights"] == {"type": "integer", "minimum": 1, "maximum": 14}
    assert dim["inputSchema"]["properties"] == {"level": DIM_LEVEL, "fade": DIM_FADE}
    assert dim["inputSchema"]["required"] == ["level"]
    assert dim["outputSchema"] == {
        "$schema": BOOK_INPUT["$schema"],
        "type": "number",
        "minimum": 2**-149,
        "maximum": 1 - 2**-24,
    }
    # Both images are schema 6.
    from nx_agent import ir

    assert {ir.prepare_module(data).schema for data in compiled.images.values()} == {6}


def test_the_tool_json_carries_the_bounds(compiled: CompiledAgent) -> None:
    openai = to_openai_tools(compiled.definition).tools
    assert [tool["function"]["name"] for tool in openai] == ["book", "dim"]
    assert openai[0]["function"]["parameters"] == BOOK_INPUT
    assert openai[1]["function"]["parameters"]["properties"]["level"] == DIM_LEVEL
    # Bounds are in OpenAI's strict subset: book (every argument required) qualifies, dim (an
    # optional argument) does not.
    assert [tool["function"]["strict"] for tool in openai] == [True, False]
    responses = to_openai_tools(compiled.definition, api="responses").tools
    assert responses[0]["parameters"]["properties"]["guests"] == BOOK_INPUT["properties"]["guests"]
    anthropic = to_anthropic_tools(compiled.definition).tools
    assert [tool["input_schema"] for tool in anthropic] == [tool["inputSchema"] for tool in compiled.definition["tools"]]


# -- execute ---------------------------------------------------------------------------------------


def test_execute_refuses_out_of_range_input_before_evaluating(compiled: CompiledAgent, evaluations: list[str]) -> None:
    agent = loaded(compiled, validate_arguments=True)
    book, dim = agent["book"], agent["dim"]
    assert book.checks_input and dim.checks_input
    ok = book.execute({"nights": 3, "guests": 2}, call_id="c1")
    assert ok["ok"] is True and ok["output"] == BOOKING_3_2 and ok["usage"]["operations"] > 0
    assert evaluations == ["book"]

    message = refused(book.execute({"nights": 15, "guests": 2}, call_id="c2"), "book", "/nights")
    assert "15" in message and "14" in message
    refused(book.execute({"nights": 0, "guests": 11}, call_id="c3"), "book", "/nights", "/guests")
    # The ends themselves are in.
    assert book.execute({"nights": 14, "guests": 1}, call_id="c4")["ok"] is True
    assert evaluations == ["book", "book"]

    lit = dim.execute({"level": 0.5}, call_id="c5")
    assert lit["ok"] is True and lit["output"] == 0.5
    evaluations.clear()
    refused(dim.execute({"level": 1.0}, call_id="c7"), "dim", "/level")
    refused(dim.execute({"level": 0.0}, call_id="c8"), "dim", "/level")
    # 0.99999999 is below 1.0, but it is 1.0 once read as a float32: the schema's maximum is the
    # greatest float32 below 1.0.
    refused(dim.execute({"level": 0.99999999}, call_id="c9"), "dim", "/level")
    refused(dim.execute({"level": 0.5, "fade": 10.5}, call_id="c10"), "dim", "/fade")
    assert evaluations == []
    assert asyncio.run(dim.aexecute({"level": 0.9999999403953552, "fade": 10}, call_id="c11"))["ok"] is True
    refused(asyncio.run(book.aexecute({"nights": 2, "guests": 12}, call_id="c12")), "book", "/guests")
    assert evaluations == ["dim"]


def test_the_check_comes_after_the_input_is_an_object_and_within_its_cap(compiled: CompiledAgent, evaluations: list[str]) -> None:
    agent = loaded(compiled, validate_arguments=True, max_arguments_size=3)
    book = agent["book"]
    not_object = book.execute([1, 2], call_id="c1")
    assert not_object["error"] == {"code": "invalid-input", "message": "Tool 'book' takes a JSON object as its input."}
    too_large = book.execute({"nights": 99, "guests": 99, "x": "y"}, call_id="c2")
    assert too_large["error"]["limit"] == {"name": "maxArgumentsSize", "value": 3}
    refused(book.execute({"nights": 99, "guests": 2}, call_id="c3"), "book", "/nights")
    assert evaluations == []


def test_without_the_option_execute_leaves_the_arguments_to_the_runtime(compiled: CompiledAgent, evaluations: list[str]) -> None:
    agent = loaded(compiled)
    assert not agent["book"].checks_input
    assert agent["book"].execute({"nights": 3, "guests": 2}, call_id="c1")["output"] == BOOKING_3_2
    # A type the runtime checks is its refusal, after the call reached it.
    wrong = agent["book"].execute({"nights": "three", "guests": 2}, call_id="c2")
    assert wrong["error"]["code"] == "invalid-input" and wrong["error"]["diagnostics"][0]["code"] == "nx-ir-boundary-type"
    assert "usage" in wrong and evaluations == ["book", "book"]


def test_create_agent_tools_takes_the_option(compiled: CompiledAgent) -> None:
    program = loaded(compiled).program
    checked = create_agent_tools(compiled.definition, program, validate_arguments=True)
    refused(checked[0].execute({"nights": 3, "guests": 0}, call_id="c1"), "book", "/guests")  # type: ignore[attr-defined]


# -- MCP -------------------------------------------------------------------------------------------


def run_session(server: Any, scenario: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(server) as client:
            await scenario(client)

    anyio.run(main)


@pytest.mark.parametrize("tools_check", [False, True])
def test_mcp_refuses_out_of_range_input(compiled: CompiledAgent, evaluations: list[str], tools_check: bool) -> None:
    events: list[dict[str, Any]] = []
    # The server checks by default; tools that check their own input are not checked twice.
    server = create_mcp_server(loaded(compiled, validate_arguments=tools_check), on_result=events.append)

    async def scenario(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert listed["book"].input_schema == BOOK_INPUT
        assert listed["dim"].input_schema["properties"]["level"] == DIM_LEVEL
        good = await client.call_tool("book", {"nights": 3, "guests": 2})
        assert good.is_error is False and good.structured_content == BOOKING_3_2
        bad = await client.call_tool("book", {"nights": 3, "guests": 11})
        assert bad.is_error is True and bad.structured_content is None
        [content] = bad.content
        assert content.type == "text"
        assert content.text == f"NxAgentToolError: {events[1]['result']['error']['message']}"
        low = await client.call_tool("dim", {"level": 0.0})
        assert low.is_error is True

    run_session(server.server, scenario)
    refused(events[1]["result"], "book", "/guests")
    refused(events[2]["result"], "dim", "/level")
    assert evaluations == ["book"]


@pytest.fixture(scope="module")
def stored(compiled: CompiledAgent, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[Path]]]:
    yield write_agent(tmp_path_factory.mktemp("constrained"), compiled)


def test_nx_agent_serve_refuses_out_of_range_input_over_stdio(stored: tuple[Path, list[Path]]) -> None:
    definition, images = stored
    server = StdioServerParameters(command=sys.executable, args=serve_args(definition, images, None), env=server_env())

    async def scenario(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert listed["book"].input_schema == BOOK_INPUT
        good = await client.call_tool("book", {"nights": 14, "guests": 10})
        assert good.is_error is False and good.structured_content == {"$type": "Booking", "nights": 14, "guests": 10}
        bad = await client.call_tool("book", {"nights": 15, "guests": 10})
        assert bad.is_error is True
        text = bad.content[0].text  # type: ignore[union-attr]
        assert text.startswith("NxAgentToolError: " + REFUSAL.format(tool="book") + "at /nights: ")

    run_session(server, scenario)


# -- the SDK adapters --------------------------------------------------------------------------------


def test_openai_agents_tools_carry_the_bounds_and_refuse(compiled: CompiledAgent, evaluations: list[str]) -> None:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    from agents import Agent, FunctionTool, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    from nx_agent.openai_agents import to_function_tools

    tools = to_function_tools(loaded(compiled, validate_arguments=True))
    book, dim = tools
    assert isinstance(book, FunctionTool) and isinstance(dim, FunctionTool)
    assert json.dumps(book.params_json_schema) == json.dumps(BOOK_INPUT)
    assert dim.params_json_schema["properties"]["level"] == DIM_LEVEL
    assert (book.strict_json_schema, dim.strict_json_schema) == (True, False)
    model = ScriptedModel(
        [[function_call("book", json.dumps({"nights": 30, "guests": 2}), call_id="call_1")], [assistant_message("done")]]
    )
    agent = Agent(name="booking", instructions="Book.", tools=tools, model=model)
    result = asyncio.run(Runner.run(agent, "Book a month.", run_config=RunConfig(tracing_disabled=True)))
    assert result.final_output == "done"
    assert model.last_call is not None
    [output] = [item["output"] for item in model.last_call.input if item.get("type") == "function_call_output"]
    assert output.startswith("NxAgentToolError: " + REFUSAL.format(tool="book") + "at /nights: ")
    assert evaluations == []


def test_pydantic_ai_tools_carry_the_bounds_and_refuse(compiled: CompiledAgent, evaluations: list[str]) -> None:
    pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from nx_agent.pydantic_ai import to_tools

    tools = to_tools(loaded(compiled, validate_arguments=True))
    offered: list[Any] = []
    requests: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(list(messages))
        if len(requests) == 1:
            offered.extend(info.function_tools)
            return ModelResponse(parts=[ToolCallPart("book", {"nights": 3, "guests": 0}, tool_call_id="call_1")])
        return ModelResponse(parts=[TextPart("done")])

    assert Agent(FunctionModel(model), tools=tools).run_sync("Book for nobody.").output == "done"
    by_name = {tool.name: tool for tool in offered}
    assert json.dumps(by_name["book"].parameters_json_schema) == json.dumps(BOOK_INPUT)
    assert by_name["dim"].parameters_json_schema["properties"]["level"] == DIM_LEVEL
    assert (by_name["book"].strict, by_name["dim"].strict) == (True, False)
    # invalid-input is a retry: the model is told why, with the path.
    [retry] = [part for message in requests[1] for part in getattr(message, "parts", []) if isinstance(part, ToolReturnPart)]
    assert retry.tool_call_id == "call_1" and retry.outcome == "retried"
    assert isinstance(retry.content, str)
    assert retry.content.startswith("NxAgentToolError: " + REFUSAL.format(tool="book") + "at /guests: ")
    assert evaluations == []


def test_a_value_the_validator_cannot_read_is_left_to_the_runtime(compiled: CompiledAgent, evaluations: list[str]) -> None:
    book = loaded(compiled, validate_arguments=True)["book"]
    result = book.execute({"nights": {1, 2}, "guests": 2}, call_id="c1")
    assert result["ok"] is False and result["error"]["code"] == "invalid-input"
    assert "do not fit its input schema" not in result["error"]["message"]
    assert evaluations == ["book"]
