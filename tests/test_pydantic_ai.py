"""nx_agent.pydantic_ai through pydantic-ai's own agent loop: an ``Agent`` whose model is
pydantic-ai's ``FunctionModel`` (pydantic_ai.models.function), which asks for tool calls and then
answers; what the model was sent is read from the messages of its next request. No network, no model.

Cases follow agent-package §8.12 (213–229) as they carry over to this SDK: ``invalid-input``
comes back as a retry (the model is told why), other failures as a failed tool result.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from pydantic_ai import Agent, RunContext, Tool  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.native_tools import WebSearchTool  # noqa: E402
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

from adapter_agents import (  # noqa: E402
    LEAVE_OUT,
    LIMIT_SENTENCE,
    NO_ANSWER_SENTENCE,
    NO_PROVIDER_TOOL_MESSAGE,
    PLANS_5,
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
from nx_agent.pydantic_ai import to_capability, to_tools, to_toolset  # noqa: E402
from nx_agent.tool_json import ToolExportError  # noqa: E402

CONTEXT_AGENT = context_agent()


class Run:
    """An agent run whose model asks for ``calls`` (name, arguments, call id) once, then answers."""

    def __init__(self, calls: list[tuple[str, Any, str]]) -> None:
        self.calls = calls
        self.requests: list[tuple[list[ModelMessage], AgentInfo]] = []

    def model(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests.append((list(messages), info))
        if len(self.requests) == 1 and self.calls:
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=call_id) for name, args, call_id in self.calls])
        return ModelResponse(parts=[TextPart("done")])

    def __call__(self, deps: Any = None, **agent: Any) -> dict[str, ToolReturnPart]:
        runner = Agent(FunctionModel(self.model), deps_type=object, **agent)
        assert runner.run_sync("Which plans fit?", deps=deps).output == "done"
        assert len(self.requests) == (2 if self.calls else 1)
        return {
            part.tool_call_id: part
            for message in self.requests[-1][0]
            for part in getattr(message, "parts", [])
            if isinstance(part, ToolReturnPart)
        }

    def sent(self) -> str:
        """Everything the model's second request held, as text."""
        return repr(self.requests[1][0])


def test_tools_carry_the_definition_and_reach_the_model_as_stored() -> None:
    tools = to_tools(support_agent(), **LEAVE_OUT)
    assert all(isinstance(tool, Tool) for tool in tools)
    assert [tool.name for tool in tools] == ["find_plans", "lookup_order", "open_ticket"]
    run = Run([])
    assert run(tools=tools) == {}
    offered = run.requests[0][1].function_tools
    by_name = {tool["name"]: tool for tool in SUPPORT_DEFINITION["tools"]}
    assert [tool.name for tool in offered] == ["find_plans", "lookup_order", "open_ticket"]
    for tool in offered:
        assert tool.description == by_name[tool.name]["description"]
        assert json.dumps(tool.parameters_json_schema) == json.dumps(stored_schema(tool.name))
    # find_plans has an optional argument, which strict mode cannot express.
    assert {tool.name: tool.strict for tool in offered} == {"find_plans": False, "lookup_order": True, "open_ticket": True}


def test_a_successful_call_returns_the_output() -> None:
    events: list[Any] = []
    run = Run([("find_plans", {"teamSize": 5}, "call_1")])
    parts = run(toolsets=[to_toolset(support_agent(), on_result=events.append, **LEAVE_OUT)])
    assert parts["call_1"].content == PLANS_5
    assert parts["call_1"].outcome == "success"
    [event] = events
    assert list(event) == ["name", "call_id", "result"]
    assert (event["name"], event["call_id"]) == ("find_plans", "call_1")
    assert event["result"]["ok"] is True and event["result"]["output"] == PLANS_5
    assert event["result"]["usage"]["inputSize"] == 5 and event["result"]["usage"]["operations"] > 0


def test_invalid_input_is_a_retry_that_tells_the_model_why() -> None:
    events: list[Any] = []
    run = Run([("find_plans", {"teamSize": "five"}, "call_1")])
    parts = run(tools=to_tools(support_agent(), on_result=events.append, **LEAVE_OUT))
    error = events[0]["result"]["error"]
    assert error["code"] == "invalid-input" and error["diagnostics"][0]["code"] == "nx-ir-boundary-type"
    assert "teamSize" in error["message"]
    assert parts["call_1"].outcome == "retried"
    assert parts["call_1"].content == f"NxAgentToolError: {error['message']}"


def test_a_resource_limit_is_a_failed_result_with_the_fixed_sentence() -> None:
    events: list[Any] = []
    run = Run([("find_plans", {"teamSize": 5}, "call_1")])
    parts = run(tools=to_tools(support_agent(max_operations=10), on_result=events.append, **LEAVE_OUT))
    assert (parts["call_1"].outcome, parts["call_1"].content) == ("failed", LIMIT_SENTENCE)
    assert not re.search(r"100000|operations|budget", run.sent())
    error = events[0]["result"]["error"]
    assert error["code"] == "resource-limit" and error["limit"] == {"name": "maxOperations", "value": 10}


def test_host_failures_request_failed_hidden_and_a_host_code_kept() -> None:
    events: list[Any] = []
    run = Run([("lookup_order", {"orderId": "down"}, "call_1"), ("lookup_order", {"orderId": "A1"}, "call_2")])
    parts = run(tools=to_tools(support_agent(), on_result=events.append, **LEAVE_OUT))
    assert (parts["call_1"].outcome, parts["call_1"].content) == ("failed", NO_ANSWER_SENTENCE)
    assert (parts["call_2"].outcome, parts["call_2"].content) == ("failed", "NxAgentToolError: There is no order A1.")
    sent = run.sent()
    assert "billing.internal" not in sent and "sk-live" not in sent and "fetch failed" not in sent
    by_call = {event["call_id"]: event["result"]["error"] for event in events}
    assert by_call["call_1"]["code"] == "request-failed" and SECRET in by_call["call_1"]["message"]
    assert by_call["call_2"] == {"code": "order-not-found", "message": "There is no order A1.", "limit": {"name": "orders", "value": 1}}


@needs_context
def test_call_id_is_pydantic_ais_or_the_hosts() -> None:
    assert CONTEXT_AGENT is not None
    parts = Run([("call_id_of", {}, "call_abc")])(tools=to_tools(CONTEXT_AGENT, context=lambda call: chat("conv_9")))
    assert parts["call_abc"].content == "call_abc"

    seen: list[ToolCall] = []

    def turn_id(call: ToolCall) -> str:
        seen.append(call)
        return "turn_7:1:0"

    events: list[Any] = []
    tools = to_tools(CONTEXT_AGENT, call_id=turn_id, context=lambda call: chat("conv_9"), on_result=events.append)
    parts = Run([("call_id_of", {"anything": 1}, "call_xyz")])(tools=tools)
    assert parts["call_xyz"].content == "turn_7:1:0"
    [call] = seen
    assert (call.tool_name, call.tool_call_id, call.input) == ("call_id_of", "call_xyz", {"anything": 1})
    assert isinstance(call.sdk_context, RunContext) and call.sdk_context.tool_call_id == "call_xyz"
    assert events[0]["call_id"] == "turn_7:1:0"


@needs_context
def test_context_is_derived_per_call_from_the_runs_deps() -> None:
    assert CONTEXT_AGENT is not None
    tools = to_tools(CONTEXT_AGENT, context=lambda call: chat(call.sdk_context.deps["conversation"]))
    assert Run([("who_am_i", {}, "c1")])({"conversation": "conv_1"}, tools=tools)["c1"].content == "conv_1"
    assert Run([("who_am_i", {}, "c2")])({"conversation": "conv_2"}, tools=tools)["c2"].content == "conv_2"

    events: list[Any] = []
    run = Run([("who_am_i", {}, "c3")])
    parts = run(tools=to_tools(CONTEXT_AGENT, on_result=events.append))
    assert (parts["c3"].outcome, parts["c3"].content) == ("failed", UNAVAILABLE_SENTENCE)
    assert "conversationId" not in run.sent()
    assert events[0]["result"]["error"]["code"] == "invalid-context"


def test_on_result_is_awaited_and_called_once_per_executable_call() -> None:
    journal = Journal()
    run = Run([("find_plans", {"teamSize": 5}, "a"), ("lookup_order", {"orderId": "A1"}, "b"), ("lookup_order", {"orderId": "A 1"}, "c")])
    parts = run(capabilities=[to_capability(support_agent(), on_result=journal, provider_tool=lambda tool: WebSearchTool())])
    assert set(parts) == {"a", "b", "c"}
    journal.assert_awaited_once_each("abc")


def test_on_result_raising_a_tool_error_is_what_the_model_is_told() -> None:
    parts = Run([("lookup_order", {"orderId": "down"}, "c")])(tools=to_tools(support_agent(), on_result=reword, **LEAVE_OUT))
    assert (parts["c"].outcome, parts["c"].content) == ("failed", REWORDED_SENTENCE)


def test_on_result_raising_anything_else_ends_the_run_with_it() -> None:
    def broken(event: Any) -> None:
        raise RuntimeError("journal unavailable")

    run = Run([("find_plans", {"teamSize": 5}, "c")])
    with pytest.raises(RuntimeError, match="journal unavailable"):
        run(tools=to_tools(support_agent(), on_result=broken, **LEAVE_OUT))


def test_max_retries_bounds_invalid_input_retries() -> None:
    tools = to_tools(support_agent(), max_retries=3, **LEAVE_OUT)
    assert {tool.max_retries for tool in tools} == {3}


def test_provider_tools_become_native_tools_or_are_left_out_or_refused() -> None:
    agent = support_agent()
    asked: list[Any] = []

    def web(tool: Any) -> WebSearchTool:
        asked.append(tool)
        return WebSearchTool(allowed_domains=list(tool["config"]["allowedDomains"]))

    run = Run([])
    assert run(capabilities=[to_capability(agent, provider_tool=web)]) == {}
    info = run.requests[0][1]
    assert [tool.name for tool in info.function_tools] == ["find_plans", "lookup_order", "open_ticket"]
    [native] = info.model_request_parameters.native_tools
    assert isinstance(native, WebSearchTool) and native.allowed_domains == ["docs.example.com"]
    assert [(tool["name"], tool["kind"], tool["config"]) for tool in asked] == [
        ("web_search", "provider", {"provider": "web_search", "allowedDomains": ["docs.example.com"]})
    ]

    assert [tool.name for tool in to_tools(agent, provider_tool=lambda tool: None)] == ["find_plans", "lookup_order", "open_ticket"]
    assert isinstance(to_toolset(agent, provider_tool=lambda tool: None), FunctionToolset)
    for make in (to_tools, to_toolset, to_capability):
        with pytest.raises(ToolExportError) as refused:
            make(agent)
        assert str(refused.value) == NO_PROVIDER_TOOL_MESSAGE and refused.value.tool == "web_search"
    # A list of tools cannot hold the provider's tool: it says so, naming the tool.
    with pytest.raises(ToolExportError, match="'web_search'"):
        to_tools(agent, provider_tool=web)
    with pytest.raises(ToolExportError, match="'web_search'"):
        to_capability(agent, provider_tool=lambda tool: {"type": "web_search"})


# The support agent's open_ticket is stored with maxCallsPerConversation 1.
TICKET_CAP_TEXT = (
    "NxAgentToolError: Tool 'open_ticket' may be called at most once in a conversation, and this "
    "conversation has reached that: do not call it again here."
)


def test_max_calls_per_conversation_is_enforced_per_run() -> None:
    events: list[Any] = []
    tools = to_tools(support_agent(), on_result=events.append, **LEAVE_OUT)
    run = Run([("open_ticket", {"subject": "Refund"}, "c1"), ("open_ticket", {"subject": "Again"}, "c2")])
    returned = run(tools=tools)
    assert returned["c1"].content["status"] == 200
    assert returned["c2"].content == TICKET_CAP_TEXT and returned["c2"].outcome == "failed"
    assert events[1]["result"]["error"]["limit"] == {"name": "maxCallsPerConversation", "value": 1}
    # A new run is a new conversation.
    again = Run([("open_ticket", {"subject": "Next"}, "c3")])(tools=tools)
    assert again["c3"].content["status"] == 200


def test_a_host_cap_lowers_every_tools_cap() -> None:
    tools = to_tools(support_agent(), max_calls_per_conversation=1, **LEAVE_OUT)
    returned = Run([("find_plans", {"teamSize": 5}, "c1"), ("find_plans", {"teamSize": 5}, "c2")])(tools=tools)
    assert returned["c1"].content == PLANS_5
    assert "find_plans' may be called at most once in a conversation" in str(returned["c2"].content)
