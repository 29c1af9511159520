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
    CallIdFunction,
    ContextFunction,
    ExecutableTool,
    ProviderToolFunction,
    ResultHook,
    ToolCall,
    adapter_tools,
    answer_call,
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
) -> Tool[Any]:
    name: str = fields["name"]
    schema = fields["inputSchema"]

    async def run(ctx: RunContext[Any], /, **input: Any) -> Any:
        call = ToolCall(name, ctx.tool_call_id or "", input, ctx)
        answer = await answer_call(tool, call, call_id=call_id, context=context, on_result=on_result)
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


def _collect(
    tools: Iterable[Any],
    call_id: CallIdFunction | None,
    context: ContextFunction | None,
    on_result: ResultHook | None,
    provider_tool: ProviderToolFunction | None,
    max_retries: int | None,
) -> tuple[list[Tool[Any]], list[tuple[str, Any]]]:
    made: list[Tool[Any]] = []
    provided: list[tuple[str, Any]] = []
    for fields, tool, mapped in adapter_tools(tools, provider_tool):
        if tool is None:
            provided.append((str(fields["name"]), mapped))
        else:
            made.append(_tool(fields, tool, call_id, context, on_result, max_retries))
    return made, provided


def to_tools(
    tools: Iterable[Any],
    *,
    call_id: CallIdFunction | None = None,
    context: ContextFunction | None = None,
    on_result: ResultHook | None = None,
    provider_tool: ProviderToolFunction | None = None,
    max_retries: int | None = None,
) -> list[Tool[Any]]:
    """The tools (``create_agent_tools``/``load_agent``) that run here, as pydantic-ai ``Tool``s.

    ``call_id(call)`` chooses each call's ``callId`` (default: pydantic-ai's tool-call id);
    ``context(call)`` gives the host's context record; ``on_result({"name", "call_id",
    "result"})`` is called (and awaited) once per executable call. Each is handed a
    :class:`~nx_agent.adapters.calls.ToolCall` whose ``sdk_context`` is the ``RunContext``.
    ``max_retries`` bounds the ``invalid-input`` retries of each tool (pydantic-ai's default
    otherwise). A list of ``Tool``s cannot hold a provider tool: ``provider_tool(tool)`` must
    answer ``None`` to leave it out (use :func:`to_capability` to keep it); without
    ``provider_tool``, or with another answer, this raises
    :class:`~nx_agent.tool_json.ToolExportError` naming the tool.
    """
    made, provided = _collect(tools, call_id, context, on_result, provider_tool, max_retries)
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
) -> AbstractCapability[Any]:
    """Every tool, for ``Agent(capabilities=[...])``: the tools that run here as a toolset, and
    each provider tool as what ``provider_tool(tool)`` answers, a pydantic-ai native tool (e.g.
    ``WebSearchTool(allowed_domains=...)``) or a capability (``None`` leaves it out; without
    ``provider_tool`` a provider tool raises :class:`~nx_agent.tool_json.ToolExportError`)."""
    made, provided = _collect(tools, call_id, context, on_result, provider_tool, max_retries)
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
