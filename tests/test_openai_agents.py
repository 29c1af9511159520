"""nx_agent.openai_agents through the OpenAI Agents SDK's own run loop: an ``Agent`` run by
``Runner.run`` with the SDK's ``ScriptedModel`` (agents.testing), which asks for tool calls and then
answers; what the model was sent is read from the model's next request. No network, no model.

Cases follow agent-package §8.12 (213–229) as they carry over to this SDK.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")

from agents import Agent, FunctionTool, RunConfig, Runner, WebSearchTool  # noqa: E402
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402

from adapter_agents import (  # noqa: E402
    LEAVE_OUT,
    LIMIT_SENTENCE,
    NO_ANSWER_SENTENCE,
    NO_PROVIDER_TOOL_MESSAGE,
    PLANS_5,
    PLANS_5_TEXT,
    REWORDED_SENTENCE,
    SECRET,
    SUPPORT_DEFINITION,
    UNAVAILABLE_SENTENCE,
    Journal,
    chat,
    context_agent,
    reword,
    stored_schema,
    support_agent,
)
from corpus_agents import needs_context  # noqa: E402
from nx_agent.adapters.calls import ToolCall  # noqa: E402
from nx_agent.openai_agents import to_function_tools  # noqa: E402
from nx_agent.tool_json import ToolExportError  # noqa: E402

CONTEXT_AGENT = context_agent()


def run(tools: list[Any], calls: list[tuple[str, Any, str]], context: Any = None) -> tuple[dict[str, str], list[Any]]:
    """Run an agent whose model asks for ``calls`` (name, arguments, call id) and then answers;
    what the model was sent back for each call id, and everything its second request held."""
    model = ScriptedModel(
        [[function_call(name, args, call_id=call_id) for name, args, call_id in calls], [assistant_message("done")]]
    )
    agent = Agent(name="support", instructions="Be brief.", tools=tools, model=model)
    result = asyncio.run(Runner.run(agent, "Which plans fit?", context=context, run_config=RunConfig(tracing_disabled=True)))
    assert result.final_output == "done"
    model.assert_complete()
    assert model.last_call is not None
    sent = list(model.last_call.input)
    outputs = {item["call_id"]: item["output"] for item in sent if item.get("type") == "function_call_output"}
    return outputs, sent


def test_function_tools_carry_the_definition() -> None:
    tools = to_function_tools(support_agent(), **LEAVE_OUT)
    assert all(isinstance(tool, FunctionTool) for tool in tools)
    assert [tool.name for tool in tools] == ["find_plans", "lookup_order", "open_ticket"]
    by_name = {tool["name"]: tool for tool in SUPPORT_DEFINITION["tools"]}
    for tool in tools:
        assert isinstance(tool, FunctionTool)
        assert tool.description == by_name[tool.name]["description"]
        # As stored, also where strict mode is on (the SDK's strict pass changed nothing).
        assert json.dumps(tool.params_json_schema) == json.dumps(stored_schema(tool.name))
    strict = {tool.name: tool.strict_json_schema for tool in tools if isinstance(tool, FunctionTool)}
    # find_plans has an optional argument (maxMonthlyPrice), which strict mode cannot express;
    # lookup_order and open_ticket have closed objects whose arguments are all required.
    assert strict == {"find_plans": False, "lookup_order": True, "open_ticket": True}


def test_a_successful_call_returns_the_output_as_json() -> None:
    events: list[Any] = []
    outputs, _ = run(to_function_tools(support_agent(), on_result=events.append, **LEAVE_OUT), [("find_plans", {"teamSize": 5}, "call_1")])
    assert outputs == {"call_1": PLANS_5_TEXT}
    assert json.loads(outputs["call_1"]) == PLANS_5
    [event] = events
    assert list(event) == ["name", "call_id", "result"]
    assert (event["name"], event["call_id"]) == ("find_plans", "call_1")
    result = event["result"]
    assert result["ok"] is True and result["output"] == PLANS_5
    assert result["usage"]["inputSize"] == 5 and result["usage"]["operations"] > 0


def test_invalid_input_tells_the_model_why() -> None:
    events: list[Any] = []
    outputs, _ = run(
        to_function_tools(support_agent(), on_result=events.append, **LEAVE_OUT),
        [("find_plans", {"teamSize": "five"}, "call_1"), ("find_plans", '{"teamSize": ', "call_2")],
    )
    first, second = events
    error = first["result"]["error"]
    assert error["code"] == "invalid-input"
    assert error["diagnostics"][0]["code"] == "nx-ir-boundary-type"
    assert "teamSize" in error["message"]
    assert outputs["call_1"] == f"NxAgentToolError: {error['message']}"
    # Arguments that are not JSON reach the tool as they are, and it refuses them as input.
    assert second["result"]["error"]["code"] == "invalid-input"
    assert outputs["call_2"] == f"NxAgentToolError: {second['result']['error']['message']}"


def test_an_input_over_the_size_limit_is_invalid_input_with_its_limit() -> None:
    events: list[Any] = []
    outputs, _ = run(
        to_function_tools(support_agent(max_arguments_size=1000), on_result=events.append, **LEAVE_OUT),
        [("find_plans", {"teamSize": 5, "note": "x" * 70_000}, "call_1")],
    )
    error = events[0]["result"]["error"]
    assert error["code"] == "invalid-input" and error["limit"] == {"name": "maxArgumentsSize", "value": 1000}
    assert outputs["call_1"] == f"NxAgentToolError: {error['message']}"


def test_a_resource_limit_gets_the_fixed_sentence_and_on_result_the_reason() -> None:
    events: list[Any] = []
    outputs, sent = run(
        to_function_tools(support_agent(max_operations=10), on_result=events.append, **LEAVE_OUT),
        [("find_plans", {"teamSize": 5}, "call_1")],
    )
    assert outputs == {"call_1": LIMIT_SENTENCE}
    assert not re.search(r"100000|operations|budget", json.dumps(sent))
    error = events[0]["result"]["error"]
    assert error["code"] == "resource-limit"
    assert error["limit"] == {"name": "maxOperations", "value": 10}
    assert events[0]["result"]["usage"]["operations"] == 10


def test_host_failures_request_failed_hidden_and_a_host_code_kept() -> None:
    events: list[Any] = []
    outputs, sent = run(
        to_function_tools(support_agent(), on_result=events.append, **LEAVE_OUT),
        [("lookup_order", {"orderId": "down"}, "call_1"), ("lookup_order", {"orderId": "A1"}, "call_2")],
    )
    assert outputs == {"call_1": NO_ANSWER_SENTENCE, "call_2": "NxAgentToolError: There is no order A1."}
    text = json.dumps(sent)
    assert "billing.internal" not in text and "sk-live" not in text and "fetch failed" not in text
    down, unknown = (event["result"]["error"] for event in events)
    assert down["code"] == "request-failed" and SECRET in down["message"]
    assert unknown == {"code": "order-not-found", "message": "There is no order A1.", "limit": {"name": "orders", "value": 1}}


@needs_context
def test_call_id_is_the_sdks_or_the_hosts() -> None:
    assert CONTEXT_AGENT is not None
    record = {"conversation": "conv_9"}
    outputs, _ = run(
        to_function_tools(CONTEXT_AGENT, context=lambda call: chat(call.sdk_context.context["conversation"])),
        [("call_id_of", {}, "call_abc")],
        context=record,
    )
    assert outputs == {"call_abc": '"call_abc"'}

    seen: list[ToolCall] = []

    def turn_id(call: ToolCall) -> str:
        seen.append(call)
        return "turn_7:1:0"

    events: list[Any] = []
    outputs, _ = run(
        to_function_tools(CONTEXT_AGENT, call_id=turn_id, context=lambda call: chat("conv_9"), on_result=events.append),
        [("call_id_of", {"anything": 1}, "call_xyz")],
    )
    assert outputs == {"call_xyz": '"turn_7:1:0"'}
    [call] = seen
    assert (call.tool_name, call.tool_call_id, call.input) == ("call_id_of", "call_xyz", {"anything": 1})
    assert isinstance(call.sdk_context, ToolContext) and call.sdk_context.tool_call_id == "call_xyz"
    assert events[0]["call_id"] == "turn_7:1:0"


@needs_context
def test_context_is_derived_per_call_and_required_where_the_tool_needs_it() -> None:
    assert CONTEXT_AGENT is not None
    tools = to_function_tools(CONTEXT_AGENT, context=lambda call: chat(call.sdk_context.context["conversation"]))
    assert run(tools, [("who_am_i", {}, "c1")], context={"conversation": "conv_1"})[0] == {"c1": '"conv_1"'}
    assert run(tools, [("who_am_i", {}, "c2")], context={"conversation": "conv_2"})[0] == {"c2": '"conv_2"'}

    events: list[Any] = []
    outputs, sent = run(to_function_tools(CONTEXT_AGENT, on_result=events.append), [("who_am_i", {}, "c3")])
    assert outputs == {"c3": UNAVAILABLE_SENTENCE}
    assert "conversationId" not in json.dumps(sent)
    assert events[0]["result"]["error"]["code"] == "invalid-context"


def test_on_result_is_awaited_and_called_once_per_executable_call() -> None:
    journal = Journal()
    outputs, _ = run(
        to_function_tools(support_agent(), on_result=journal, provider_tool=lambda tool: WebSearchTool()),
        [("find_plans", {"teamSize": 5}, "a"), ("find_plans", {"teamSize": "five"}, "b"), ("lookup_order", {"orderId": "A 1"}, "c")],
    )
    assert set(outputs) == {"a", "b", "c"}
    journal.assert_awaited_once_each("abc")


def test_on_result_raising_a_tool_error_is_what_the_model_is_told() -> None:
    outputs, _ = run(to_function_tools(support_agent(), on_result=reword, **LEAVE_OUT), [("lookup_order", {"orderId": "down"}, "c")])
    assert outputs == {"c": REWORDED_SENTENCE}


def test_on_result_raising_anything_else_fails_the_run() -> None:
    def broken(event: Any) -> None:
        raise RuntimeError("journal unavailable")

    tools = to_function_tools(support_agent(), on_result=broken, **LEAVE_OUT)
    with pytest.raises(Exception) as raised:
        run(tools, [("find_plans", {"teamSize": 5}, "c")])
    chain = []
    error: BaseException | None = raised.value
    while error is not None:
        chain.append(error)
        error = error.__cause__
    assert any(isinstance(link, RuntimeError) and str(link) == "journal unavailable" for link in chain)


def test_provider_tools_are_mapped_left_out_or_refused() -> None:
    agent = support_agent()
    asked: list[Any] = []

    def web(tool: Any) -> WebSearchTool:
        asked.append(tool)
        return WebSearchTool()

    tools = to_function_tools(agent, provider_tool=web)
    assert [type(tool).__name__ for tool in tools] == ["WebSearchTool", "FunctionTool", "FunctionTool", "FunctionTool"]
    assert [(tool["name"], tool["kind"], tool["config"]) for tool in asked] == [
        ("web_search", "provider", {"provider": "web_search", "allowedDomains": ["docs.example.com"]})
    ]
    assert [tool.name for tool in to_function_tools(agent, provider_tool=lambda tool: None)] == [
        "find_plans",
        "lookup_order",
        "open_ticket",
    ]
    with pytest.raises(ToolExportError) as refused:
        to_function_tools(agent)
    assert "'web_search'" in str(refused.value) and refused.value.tool == "web_search"
    assert str(refused.value) == NO_PROVIDER_TOOL_MESSAGE
    # The mapped tool is offered to the model with the function tools.
    model = ScriptedModel([[assistant_message("done")]])
    asyncio.run(Runner.run(Agent(name="s", tools=tools, model=model), "hi", run_config=RunConfig(tracing_disabled=True)))
    assert model.last_call is not None
    assert [type(tool).__name__ for tool in model.last_call.tools] == [type(tool).__name__ for tool in tools]


# The support agent's open_ticket is stored with maxCallsPerConversation 1.
TICKET_CAP_TEXT = (
    "NxAgentToolError: Tool 'open_ticket' may be called at most once in a conversation, and this "
    "conversation has reached that: do not call it again here."
)


def test_max_calls_per_conversation_is_enforced_per_run() -> None:
    events: list[Any] = []
    tools = to_function_tools(support_agent(), on_result=events.append, **LEAVE_OUT)
    calls = [("open_ticket", {"subject": "Refund"}, "c1"), ("open_ticket", {"subject": "Again"}, "c2")]
    outputs, _ = run(tools, calls)
    assert json.loads(outputs["c1"])["status"] == 200
    assert outputs["c2"] == TICKET_CAP_TEXT
    assert events[1]["result"]["error"] == {
        "code": "resource-limit",
        "message": TICKET_CAP_TEXT.removeprefix("NxAgentToolError: "),
        "limit": {"name": "maxCallsPerConversation", "value": 1},
    }
    # A new run is a new conversation: the same tools may open a ticket again.
    outputs, _ = run(tools, [("open_ticket", {"subject": "Next"}, "c3")])
    assert json.loads(outputs["c3"])["status"] == 200


def test_a_host_cap_and_a_host_conversation() -> None:
    tools = to_function_tools(
        support_agent(), max_calls_per_conversation=1, conversation=lambda call: "one conversation", **LEAVE_OUT
    )
    outputs, _ = run(tools, [("find_plans", {"teamSize": 5}, "c1"), ("find_plans", {"teamSize": 5}, "c2")])
    assert json.loads(outputs["c1"]) == PLANS_5 and "at most once in a conversation" in outputs["c2"]
    # The host's key spans runs.
    outputs, _ = run(tools, [("find_plans", {"teamSize": 5}, "c3")])
    assert "at most once in a conversation" in outputs["c3"]
