"""One tool call as every SDK adapter makes it (agent-package §7 steps 1–5), with no SDK imported.

The host passes up to three functions, each given the :class:`ToolCall` the SDK asked for:
``call_id(call)`` answers the ``callId`` the tool runs with (by default the SDK's own tool-call
id), ``context(call)`` the host's context record (by default none), and ``on_result(event)`` is
told ``{"name", "call_id", "result"}`` once per executable call, success or failure, and awaited
when it answers an awaitable. Provider tools are not run here: ``provider_tool(tool)`` maps them.
:func:`answer_call` runs a call and answers what the model is told of it (:mod:`.policy`), after
counting it against the tool's ``maxCallsPerConversation`` (:mod:`nx_agent.agent.conversation`)
when the adapter hands it a :class:`CallCounter`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, Union, cast, runtime_checkable

from ..agent.conversation import ConversationCalls, cap_error
from ..agent.diagnostics import NxAgentToolError
from ..agent.results import ToolResult
from .policy import model_facing_error
from ..tool_json import ProviderToolMapper, _provider_tool, tool_fields

__all__ = [
    "CallAnswer",
    "CallCounter",
    "CallIdFunction",
    "ContextFunction",
    "ExecutableTool",
    "ProviderToolFunction",
    "ResultHook",
    "ToolCall",
    "ToolResultEvent",
    "adapter_tools",
    "answer_call",
    "call_counter",
    "run_call",
    "settled",
]


@dataclass(frozen=True)
class ToolCall:
    """A call the SDK asked for: the tool's name, the SDK's tool-call id, the model's input, and
    the SDK's own context object for the call (``sdk_context``: the Agents SDK's ``ToolContext``,
    pydantic-ai's ``RunContext``), where a host finds its conversation."""

    tool_name: str
    tool_call_id: str
    input: Any
    sdk_context: Any


class ToolResultEvent(TypedDict):
    """What ``on_result`` is told: the tool's ``name``, the ``call_id`` it ran with, its ``result``."""

    name: str
    call_id: str
    result: ToolResult


CallIdFunction = Callable[[ToolCall], str]
ContextFunction = Callable[[ToolCall], Any]
ConversationFunction = Callable[[ToolCall], Any]
ResultHook = Callable[[ToolResultEvent], Union[Awaitable[Any], Any]]
ProviderToolFunction = Callable[[Mapping[str, Any]], Any]


@runtime_checkable
class ExecutableTool(Protocol):
    """A tool ``create_agent_tools`` returned with ``aexecute`` (every kind but ``provider``)."""

    @property
    def name(self) -> str: ...

    async def aexecute(self, input: Any, *, call_id: str, context: Any = None) -> ToolResult: ...


def adapter_tools(
    tools: Iterable[Any], provider_tool: ProviderToolFunction | None
) -> list[tuple[Mapping[str, Any], ExecutableTool | None, Any]]:
    """Each tool's definition fields with the tool itself when it can run, in order. ``tools`` is
    what ``create_agent_tools`` or ``load_agent`` returned.

    A provider tool comes with ``None`` for the tool and the SDK tool ``provider_tool(fields)``
    answers, and is left out when that is ``None``; without ``provider_tool`` it raises
    :class:`~nx_agent.tool_json.ToolExportError` naming the tool, with the message of
    :mod:`nx_agent.tool_json`."""
    split: list[tuple[Mapping[str, Any], ExecutableTool | None]] = []
    for tool in tools:
        fields = tool_fields(tool)
        runnable = tool if callable(getattr(tool, "aexecute", None)) else None
        if runnable is None and fields.get("kind") != "provider":
            raise TypeError(
                f"Tool '{fields.get('name')}' has no 'aexecute': pass the tools create_agent_tools returned."
            )
        split.append((fields, runnable))
    out: list[tuple[Mapping[str, Any], ExecutableTool | None, Any]] = []
    for fields, runnable in split:
        if runnable is not None:
            out.append((fields, runnable, None))
            continue
        mapped = _provider_tool(fields, cast(ProviderToolMapper, provider_tool))
        if mapped is not None:
            out.append((fields, None, mapped))
    return out


def call_counter(
    tools: Iterable[Mapping[str, Any]], max_calls_per_conversation: int | None, conversation: ConversationFunction
) -> CallCounter | None:
    """The counter of an adapter's calls, or ``None`` when no tool has a cap (neither its own
    ``maxCallsPerConversation`` nor the host's ``max_calls_per_conversation``)."""
    calls = ConversationCalls(tools, max_calls_per_conversation=max_calls_per_conversation)
    return CallCounter(calls, conversation) if calls.caps else None


async def settled(value: Any) -> Any:
    """``value``, awaited when it is awaitable: what a host function answers, sync or async."""
    return await value if inspect.isawaitable(value) else value


async def run_call(
    tool: ExecutableTool,
    call: ToolCall,
    *,
    call_id: CallIdFunction | None = None,
    context: ContextFunction | None = None,
    on_result: ResultHook | None = None,
) -> ToolResult:
    """Run one call: choose its ``callId`` and context, await the tool, tell ``on_result``.

    The result is the tool's (it never raises for a tool failure); whatever a host function
    raises propagates, and the adapter decides what the model is told of it.
    """
    chosen_id = await settled(call_id(call)) if call_id is not None else call.tool_call_id
    record = await settled(context(call)) if context is not None else None
    result = await tool.aexecute(call.input, call_id=chosen_id, context=record)
    if on_result is not None:
        await settled(on_result({"name": tool.name, "call_id": chosen_id, "result": result}))
    return result


@dataclass(frozen=True)
class CallCounter:
    """What an adapter counts each call with: the counts (``calls``) and how a call's conversation
    is found (``conversation(call)``, a key: an object is held weakly, a value kept among the most
    recent)."""

    calls: ConversationCalls
    conversation: ConversationFunction


@dataclass(frozen=True)
class CallAnswer:
    """What the model is told of one call: the tool's ``output``, or ``error`` when it failed."""

    output: Any
    error: NxAgentToolError | None


async def answer_call(
    tool: ExecutableTool,
    call: ToolCall,
    *,
    call_id: CallIdFunction | None = None,
    context: ContextFunction | None = None,
    on_result: ResultHook | None = None,
    counter: CallCounter | None = None,
) -> CallAnswer:
    """:func:`run_call`, and what the model is told of it (agent-package §7).

    The output on success; for a failed result its model-facing error
    (:func:`~nx_agent.adapters.policy.model_facing_error`); an :class:`~nx_agent.NxAgentToolError`
    a host function raised, as it is. Any other exception of a host function propagates.

    With a ``counter``, a call past its tool's ``maxCallsPerConversation`` does not run: it is a
    ``resource-limit`` result for ``on_result``, and the model is told the cap in the host's words
    (:func:`~nx_agent.agent.conversation.cap_error`). A call whose arguments were refused
    (``invalid-input``) does not count.
    """
    conversation: Any = None
    try:
        if counter is not None:
            conversation = counter.conversation(call)
            refusal = counter.calls.take(conversation, call.tool_name)
            if refusal is not None:
                if on_result is not None:
                    chosen_id = await settled(call_id(call)) if call_id is not None else call.tool_call_id
                    await settled(on_result({"name": tool.name, "call_id": chosen_id, "result": refusal}))
                return CallAnswer(None, cap_error(refusal))
        result = await run_call(tool, call, call_id=call_id, context=context, on_result=on_result)
    except NxAgentToolError as raised:
        return CallAnswer(None, raised)
    if result["ok"]:
        return CallAnswer(result["output"], None)
    if counter is not None and result["error"]["code"] == "invalid-input":
        counter.calls.give_back(conversation, call.tool_name)
    return CallAnswer(None, model_facing_error(call.tool_name, result["error"]))
