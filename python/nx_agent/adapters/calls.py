"""One tool call as every SDK adapter makes it (agent-package §7 steps 1–5), with no SDK imported.

The host passes up to three functions, each given the :class:`ToolCall` the SDK asked for:
``call_id(call)`` answers the ``callId`` the tool runs with (by default the SDK's own tool-call
id), ``context(call)`` the host's context record (by default none), and ``on_result(event)`` is
told ``{"name", "call_id", "result"}`` once per executable call, success or failure, and awaited
when it answers an awaitable. Provider tools are not run here: ``provider_tool(tool)`` maps them.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, Union, cast, runtime_checkable

from ..agent.results import ToolResult
from ..tool_json import ProviderToolMapper, _provider_tool, tool_fields

__all__ = [
    "CallIdFunction",
    "ContextFunction",
    "ExecutableTool",
    "ProviderToolFunction",
    "ResultHook",
    "ToolCall",
    "ToolResultEvent",
    "map_provider_tool",
    "run_call",
    "split_tools",
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
ResultHook = Callable[[ToolResultEvent], Union[Awaitable[Any], Any]]
ProviderToolFunction = Callable[[Mapping[str, Any]], Any]


@runtime_checkable
class ExecutableTool(Protocol):
    """A tool ``create_agent_tools`` returned with ``aexecute`` (every kind but ``provider``)."""

    @property
    def name(self) -> str: ...

    async def aexecute(self, input: Any, *, call_id: str, context: Any = None) -> ToolResult: ...


def split_tools(tools: Iterable[Any]) -> list[tuple[Mapping[str, Any], ExecutableTool | None]]:
    """Each tool's definition fields, with the tool itself when it can run (``None`` for a provider
    tool), in order. ``tools`` is what ``create_agent_tools`` or ``load_agent`` returned."""
    out: list[tuple[Mapping[str, Any], ExecutableTool | None]] = []
    for tool in tools:
        fields = tool_fields(tool)
        runnable = tool if callable(getattr(tool, "aexecute", None)) else None
        if runnable is None and fields.get("kind") != "provider":
            raise TypeError(
                f"Tool '{fields.get('name')}' has no 'aexecute': pass the tools create_agent_tools returned."
            )
        out.append((fields, runnable))
    return out


def map_provider_tool(tool: Mapping[str, Any], provider_tool: ProviderToolFunction | None) -> Any:
    """The SDK tool the host's ``provider_tool`` gives for a provider tool (``None``: leave it out).

    Without ``provider_tool`` this raises :class:`~nx_agent.tool_json.ToolExportError` naming the
    tool, with the message of :mod:`nx_agent.tool_json`."""
    return _provider_tool(tool, cast(ProviderToolMapper, provider_tool))


async def _settled(value: Any) -> Any:
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
    chosen_id = await _settled(call_id(call)) if call_id is not None else call.tool_call_id
    record = await _settled(context(call)) if context is not None else None
    result = await tool.aexecute(call.input, call_id=chosen_id, context=record)
    if on_result is not None:
        await _settled(on_result({"name": tool.name, "call_id": chosen_id, "result": result}))
    return result
