"""An agent's tools as OpenAI Agents SDK tools (``pip install 'nx-agent[openai-agents]'``).

:func:`to_function_tools` gives one ``agents.FunctionTool`` per tool that runs here: the
definition's name and description, its input schema as ``params_json_schema`` exactly as stored,
``strict_json_schema`` only when the schema already qualifies for strict mode
(:func:`nx_agent.tool_json.strict_schema_qualifies`, so the SDK never rewrites it), and an async
``on_invoke_tool`` that runs the tool with ``aexecute``.

What the model is told (agent-package §7, :mod:`nx_agent.adapters.policy`): the output as JSON
text on success; on failure the SDK's convention for a model-visible error, a returned string,
``NxAgentToolError: <message>``, where the message is the reason for ``invalid-input`` and for a
host's own code, and the fixed sentence for the package's other codes. ``on_result`` sees the
full result. An :class:`~nx_agent.NxAgentToolError` raised by ``on_result`` is what the model is
told instead, in the host's own words; any other exception it (or ``call_id``/``context``) raises
propagates, and the SDK fails the run with it, as it does for any exception of ``on_invoke_tool``.

``maxCallsPerConversation`` (:mod:`nx_agent.agent.conversation`) is counted per run: a call past
a tool's cap does not run, and the model is told, in a ``resource-limit`` error, that the tool
cannot be called again in this run. A run is known by the SDK's own record of it (the usage
object every tool call of one ``Runner.run`` shares); ``conversation(call)`` chooses another key
(say the conversation id in the host's context), and ``max_calls_per_conversation`` lowers the
cap of every tool.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from ._extras import missing_extra

try:
    from agents import FunctionTool, Tool
    from agents.tool_context import ToolContext
except ModuleNotFoundError as _missing:
    raise missing_extra("nx_agent.openai_agents", "openai-agents", _missing, ("agents", "openai")) from None

from ._js import json_text
from .adapters.calls import (
    CallCounter,
    CallIdFunction,
    ContextFunction,
    ConversationFunction,
    ExecutableTool,
    ProviderToolFunction,
    ResultHook,
    ToolCall,
    adapter_tools,
    answer_call,
    call_counter,
)
from .adapters.policy import model_text
from .tool_json import strict_schema_qualifies

__all__ = ["to_function_tools"]


def _input_of(args_json: str) -> Any:
    """The model's arguments: parsed JSON, ``{}`` for none, and the raw text when it is not JSON
    (the tool then answers ``invalid-input``: its input is not an object)."""
    if not args_json:
        return {}
    try:
        return json.loads(args_json)
    except ValueError:
        return args_json


def _function_tool(
    fields: Any,
    tool: ExecutableTool,
    call_id: CallIdFunction | None,
    context: ContextFunction | None,
    on_result: ResultHook | None,
    counter: CallCounter | None,
) -> FunctionTool:
    name: str = fields["name"]
    schema = fields["inputSchema"]

    async def on_invoke_tool(ctx: ToolContext[Any], args_json: str) -> str:
        call = ToolCall(name, ctx.tool_call_id, _input_of(args_json), ctx)
        answer = await answer_call(tool, call, call_id=call_id, context=context, on_result=on_result, counter=counter)
        return json_text(answer.output) if answer.error is None else model_text(answer.error)

    return FunctionTool(
        name=name,
        description=fields.get("description") or "",
        params_json_schema=copy.deepcopy(schema),
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=strict_schema_qualifies(schema),
    )


def _run_of(call: ToolCall) -> Any:
    """The run a call belongs to: the usage record the SDK shares between the tool calls of one run."""
    return call.sdk_context.usage


def to_function_tools(
    tools: Iterable[Any],
    *,
    call_id: CallIdFunction | None = None,
    context: ContextFunction | None = None,
    on_result: ResultHook | None = None,
    provider_tool: ProviderToolFunction | None = None,
    max_calls_per_conversation: int | None = None,
    conversation: ConversationFunction | None = None,
) -> list[Tool]:
    """The tools (``create_agent_tools``/``load_agent``) as Agents SDK tools, in order.

    ``call_id(call)`` chooses each call's ``callId`` (default: the SDK's tool-call id);
    ``context(call)`` gives the host's context record; ``on_result({"name", "call_id",
    "result"})`` is called (and awaited) once per executable call. Each is handed a
    :class:`~nx_agent.adapters.calls.ToolCall` whose ``sdk_context`` is the SDK's ``ToolContext``.
    A provider tool (web search) becomes what ``provider_tool(tool)`` answers (e.g.
    ``agents.WebSearchTool(...)``), or is left out for ``None``; without ``provider_tool`` it
    raises :class:`~nx_agent.tool_json.ToolExportError` naming the tool.
    ``max_calls_per_conversation`` caps every tool's calls in one run (a tool's own
    ``maxCallsPerConversation``, when lower, still holds); ``conversation(call)`` answers the key
    calls are counted under instead of the run.
    """
    adapted = adapter_tools(tools, provider_tool)
    counter = call_counter(
        [fields for fields, tool, _ in adapted if tool is not None], max_calls_per_conversation, conversation or _run_of
    )
    return [
        mapped if tool is None else _function_tool(fields, tool, call_id, context, on_result, counter)
        for fields, tool, mapped in adapted
    ]
