"""An agent's tools as pydantic-ai tools (``pip install 'nx-agent[pydantic-ai]'``).

- :func:`to_tools`: one ``pydantic_ai.Tool`` per tool that runs here, built from the raw JSON
  schema (``Tool.from_schema``: the definition's name, description and input schema as stored;
  ``strict`` only when the schema qualifies, :func:`nx_agent.tool_json.strict_schema_qualifies`).
  pydantic-ai does not validate such arguments itself: the tool checks them once, as every call does.
- :func:`to_toolset`: the same tools in a ``FunctionToolset``.
- :func:`to_capability`: the toolset and the provider tools the host mapped (web search becomes a
  pydantic-ai native tool), for ``Agent(capabilities=[...])``.

What the model is told (agent-package §7, :mod:`nx_agent.adapters.policy`): the output on
success. A failure is raised the way pydantic-ai tells a model: ``invalid-input`` as
``ModelRetry`` (its arguments were wrong: it is told why and may call again, within the tool's
retry budget), every other code as ``ToolFailed`` (a failed tool result, no retry). The text is
``NxAgentToolError: <message>``, the reason for ``invalid-input`` and a host's own code, the fixed
sentence for the package's other codes; ``on_result`` sees the full result. An
:class:`~nx_agent.NxAgentToolError` raised by ``on_result`` is what the model is told instead, in
the host's own words; any other exception propagates out of the run.

``maxCallsPerConversation`` (:mod:`nx_agent.agent.conversation`) is counted per run (pydantic-ai's
``RunContext.run_id``): a call past a tool's cap does not run, and the model is told, as a failed
tool result (``resource-limit``), that the tool cannot be called again in this run.
``conversation(call)`` chooses another key (``call.sdk_context.conversation_id`` counts across
the runs of one conversation), and ``max_calls_per_conversation`` lowers the cap of every tool.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from ._extras import missing_extra

try:
    from pydantic_ai import ModelRetry, RunContext, Tool
    from pydantic_ai.capabilities import AbstractCapability, CombinedCapability, NativeTool, Toolset
    from pydantic_ai.exceptions import ToolFailed
    from pydantic_ai.native_tools import AbstractNativeTool
    from pydantic_ai.toolsets import FunctionToolset
except ModuleNotFoundError as _missing:
    raise missing_extra("nx_agent.pydantic_ai", "pydantic-ai", _missing, ("pydantic_ai", "pydantic", "pydantic_core")) from None

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
from .agent.diagnostics import NxAgentToolError
from .tool_json import ToolExportError, strict_schema_qualifies

__all__ = ["to_capability", "to_tools", "to_toolset"]


def _tell_model(error: NxAgentToolError) -> NoReturn:
    if error.code == "invalid-input":
        raise ModelRetry(model_text(error))
    raise ToolFailed(model_text(error))


def _tool(
    fields: Mapping[str, Any],
    tool: ExecutableTool,
    call_id: CallIdFunction | None,
    context: ContextFunction | None,
    on_result: ResultHook | None,
    max_retries: int | None,
    counter: CallCounter | None,
) -> Tool[Any]:
    name: str = fields["name"]
    schema = fields["inputSchema"]

    async def run(ctx: RunContext[Any], /, **input: Any) -> Any:
        call = ToolCall(name, ctx.tool_call_id or "", input, ctx)
        answer = await answer_call(tool, call, call_id=call_id, context=context, on_result=on_result, counter=counter)
        if answer.error is not None:
            _tell_model(answer.error)
        return answer.output

    made: Tool[Any] = Tool.from_schema(
        run, name, fields.get("description"), copy.deepcopy(schema), takes_ctx=True
    )
    made.strict = strict_schema_qualifies(schema)
    if max_retries is not None:
        made.max_retries = max_retries
    return made


def _run_of(call: ToolCall) -> Any:
    """The run a call belongs to: pydantic-ai's id of it."""
    return call.sdk_context.run_id


def _collect(
    tools: Iterable[Any],
    call_id: CallIdFunction | None,
    context: ContextFunction | None,
    on_result: ResultHook | None,
    provider_tool: ProviderToolFunction | None,
    max_retries: int | None,
    max_calls_per_conversation: int | None,
    conversation: ConversationFunction | None,
) -> tuple[list[Tool[Any]], list[tuple[str, Any]]]:
    made: list[Tool[Any]] = []
    provided: list[tuple[str, Any]] = []
    adapted = adapter_tools(tools, provider_tool)
    counter = call_counter(
        [fields for fields, tool, _ in adapted if tool is not None], max_calls_per_conversation, conversation or _run_of
    )
    for fields, tool, mapped in adapted:
        if tool is None:
            provided.append((str(fields["name"]), mapped))
        else:
            made.append(_tool(fields, tool, call_id, context, on_result, max_retries, counter))
    return made, provided


def to_tools(
    tools: Iterable[Any],
    *,
    call_id: CallIdFunction | None = None,
    context: ContextFunction | None = None,
    on_result: ResultHook | None = None,
    provider_tool: ProviderToolFunction | None = None,
    max_retries: int | None = None,
    max_calls_per_conversation: int | None = None,
    conversation: ConversationFunction | None = None,
) -> list[Tool[Any]]:
    """The tools (``create_agent_tools``/``load_agent``) that run here, as pydantic-ai ``Tool``s.

    ``call_id(call)`` chooses each call's ``callId`` (default: pydantic-ai's tool-call id);
    ``context(call)`` gives the host's context record; ``on_result({"name", "call_id",
    "result"})`` is called (and awaited) once per executable call. Each is handed a
    :class:`~nx_agent.adapters.calls.ToolCall` whose ``sdk_context`` is the ``RunContext``.
    ``max_retries`` bounds the ``invalid-input`` retries of each tool (pydantic-ai's default
    otherwise). ``max_calls_per_conversation`` caps every tool's calls in one run (a tool's own
    ``maxCallsPerConversation``, when lower, still holds); ``conversation(call)`` answers the key
    calls are counted under instead of the run. A list of ``Tool``s cannot hold a provider tool:
    ``provider_tool(tool)`` must answer ``None`` to leave it out (use :func:`to_capability` to keep
    it); without ``provider_tool``, or with another answer, this raises
    :class:`~nx_agent.tool_json.ToolExportError` naming the tool.
    """
    made, provided = _collect(
        tools, call_id, context, on_result, provider_tool, max_retries, max_calls_per_conversation, conversation
    )
    if provided:
        name = provided[0][0]
        raise ToolExportError(
            f"Tool '{name}' is run by the model's provider, and a list of pydantic-ai tools cannot hold "
            "the provider's tool for it: use to_capability, or answer None to leave it out.",
            name,
        )
    return made


def to_toolset(
    tools: Iterable[Any],
    *,
    call_id: CallIdFunction | None = None,
    context: ContextFunction | None = None,
    on_result: ResultHook | None = None,
    provider_tool: ProviderToolFunction | None = None,
    max_retries: int | None = None,
    max_calls_per_conversation: int | None = None,
    conversation: ConversationFunction | None = None,
) -> FunctionToolset[Any]:
    """:func:`to_tools` in a ``FunctionToolset``, for ``Agent(toolsets=[...])``."""
    return FunctionToolset(
        to_tools(
            tools,
            call_id=call_id,
            context=context,
            on_result=on_result,
            provider_tool=provider_tool,
            max_retries=max_retries,
            max_calls_per_conversation=max_calls_per_conversation,
            conversation=conversation,
        )
    )


def to_capability(
    tools: Iterable[Any],
    *,
    call_id: CallIdFunction | None = None,
    context: ContextFunction | None = None,
    on_result: ResultHook | None = None,
    provider_tool: ProviderToolFunction | None = None,
    max_retries: int | None = None,
    max_calls_per_conversation: int | None = None,
    conversation: ConversationFunction | None = None,
) -> AbstractCapability[Any]:
    """Every tool, for ``Agent(capabilities=[...])``: the tools that run here as a toolset, and
    each provider tool as what ``provider_tool(tool)`` answers, a pydantic-ai native tool (e.g.
    ``WebSearchTool(allowed_domains=...)``) or a capability (``None`` leaves it out; without
    ``provider_tool`` a provider tool raises :class:`~nx_agent.tool_json.ToolExportError`)."""
    made, provided = _collect(
        tools, call_id, context, on_result, provider_tool, max_retries, max_calls_per_conversation, conversation
    )
    parts: list[AbstractCapability[Any]] = [Toolset(FunctionToolset(made))]
    for name, mapped in provided:
        if isinstance(mapped, AbstractCapability):
            parts.append(mapped)
        elif isinstance(mapped, AbstractNativeTool):
            parts.append(NativeTool(mapped))
        else:
            raise ToolExportError(
                f"Tool '{name}': 'provider_tool' answered {type(mapped).__name__}, which is neither a "
                "pydantic-ai native tool nor a capability.",
                name,
            )
    return CombinedCapability(parts)
