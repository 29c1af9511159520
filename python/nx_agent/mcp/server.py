"""An MCP server (the official ``mcp`` SDK's low-level ``Server``) serving the tools of an agent.

``tools/list`` answers each tool as the definition holds it (:mod:`.listing`); ``tools/call``:

1. finds the tool (an unknown name is a protocol error, ``INVALID_PARAMS``);
2. validates the arguments once, with the validator compiled for the tool's input schema when
   the server was made (never a compile per call; :mod:`nx_agent.agent.input_check`, which a tool
   made with ``validate_arguments=True`` runs itself instead), after checking their size against
   the tool's argument limit (so that a value over it is neither validated nor quoted back);
   arguments the limit or the schema refuses are an ``invalid-input`` result and the tool does
   not run;
3. runs ``aexecute`` with ``callId = call_id(call)`` (default: the MCP request id as text) and
   ``context = context(call)`` (default: none);
4. hands ``{"name", "call_id", "result"}`` to ``on_result`` (awaited; once per call of a served
   tool, success or failure, a schema refusal included), where the host reads a failure's full reason;
5. answers ``structuredContent`` and the output as JSON text on success, and on failure an
   ``isError`` result whose text is the model-facing error of agent-package §7
   (:func:`nx_agent.adapters.policy.model_facing_error`): the reason for ``invalid-input`` and a
   host's own codes, a fixed sentence naming only the tool for the package's other codes.

An :class:`~nx_agent.NxAgentToolError` raised by ``on_result`` becomes the call's error, its
message shown as it is; any other exception propagates, and the SDK answers a protocol error
that does not show it. Provider tools (``web_search``) are run by a model's provider, not by a
server: they are left out of the list (:attr:`McpToolServer.skipped`).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Union

from .._extras import missing_extra

try:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
except ModuleNotFoundError as _missing:
    raise missing_extra("nx_agent.mcp", "mcp", _missing, ("mcp", "mcp_types", "anyio", "starlette", "uvicorn", "pydantic", "httpx")) from None

from .._js import json_text
from ..adapters.calls import ToolResultEvent, settled
from ..adapters.policy import model_facing_error, model_text
from ..agent.diagnostics import NxAgentToolError
from ..agent.execute import AgentTool
from ..agent.input_check import InputCheck
from ..agent.results import ToolResult
from .listing import listed_tool, structured_output

__all__ = ["McpCall", "McpToolServer", "ResultEvent", "create_mcp_server"]


@dataclass(frozen=True)
class McpCall:
    """One ``tools/call``, as the host's ``call_id`` and ``context`` functions see it.

    ``request_id`` is the MCP request's id (unique only within one connection); ``sequence`` counts
    the calls this server received (1, 2, …); ``request_context`` is the SDK's
    ``ServerRequestContext`` (session, protocol version, the HTTP request on streamable HTTP)."""

    tool_name: str
    arguments: dict[str, Any]
    request_id: str | int | None
    sequence: int
    protocol_version: str
    request_context: Any


ResultEvent = ToolResultEvent
"""What ``on_result`` receives: ``{"name", "call_id", "result"}`` (the full result of the call), as
the SDK adapters' hook does."""

CallIdFunction = Callable[[McpCall], Union[str, Awaitable[str]]]
ContextFunction = Callable[[McpCall], Any]
OnResult = Callable[[ResultEvent], Any]


def request_id_call_id(call: McpCall) -> str:
    """The default ``callId``: the MCP request id as text. Request ids are unique only within one
    connection, so a host whose tools write (the call id is their idempotency key) should pass a
    ``call_id`` that is unique across connections and runs (``nx-agent serve`` does)."""
    return "" if call.request_id is None else str(call.request_id)


class McpToolServer:
    """The executable tools of an agent behind an MCP ``Server`` (:attr:`server`); see the module.

    Made with :func:`create_mcp_server` (the same class). ``call_id(call)`` chooses each call's
    ``callId`` (default: the request id as text); ``context`` is the host's tool context record,
    or ``context(call)`` answers it per call (the model never supplies it); ``on_result(event)``
    receives every executed call's full result; ``validate_arguments=False`` leaves argument
    checks to the tools themselves (the NX runtime checks a function's arguments against its
    parameter types; a host executor gets them as they came). Run ``.server`` with
    :func:`nx_agent.mcp.serve_stdio` or :func:`nx_agent.mcp.serve_http`.
    """

    def __init__(
        self,
        tools: Iterable[AgentTool],
        *,
        name: str = "nx-agent",
        version: str = "",
        instructions: str | None = None,
        call_id: CallIdFunction | None = None,
        context: ContextFunction | Mapping[str, Any] | None = None,
        on_result: OnResult | None = None,
        validate_arguments: bool = True,
    ) -> None:
        self.tools: dict[str, AgentTool] = {}
        #: The tools left out: provider tools, which a model's provider runs.
        self.skipped: list[AgentTool] = []
        for tool in tools:
            if hasattr(tool, "aexecute"):
                self.tools[tool.name] = tool
            else:
                self.skipped.append(tool)
        # A tool that checks its own input (validate_arguments at creation) is not checked twice.
        self._checks: dict[str, InputCheck] = (
            {
                name_: InputCheck(name_, tool.input_schema)
                for name_, tool in self.tools.items()
                if not getattr(tool, "checks_input", False)
            }
            if validate_arguments
            else {}
        )
        self._listed: dict[str, list[types.Tool]] = {}
        self._call_id = call_id if call_id is not None else request_id_call_id
        self._context: ContextFunction | None
        if context is None or callable(context):
            self._context = context
        else:
            record = context
            self._context = lambda _call: record
        self._on_result = on_result
        self._sequence = itertools.count(1)
        #: The SDK's low-level server; run it over any transport (:mod:`nx_agent.mcp.transports`).
        self.server: Server[Any] = Server(
            name,
            version=version,
            instructions=instructions,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    def listed_tools(self, protocol_version: str) -> list[types.Tool]:
        """The ``tools/list`` answer for a protocol version (built once per version)."""
        listed = self._listed.get(protocol_version)
        if listed is None:
            listed = [types.Tool.model_validate(listed_tool(tool, protocol_version)) for tool in self.tools.values()]
            self._listed[protocol_version] = listed
        return listed

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.listed_tools(ctx.protocol_version))

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = self.tools.get(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        arguments: dict[str, Any] = params.arguments if params.arguments is not None else {}
        call = McpCall(
            tool_name=tool.name,
            arguments=arguments,
            request_id=ctx.request_id,
            sequence=next(self._sequence),
            protocol_version=ctx.protocol_version,
            request_context=ctx,
        )
        call_id = await settled(self._call_id(call))
        check = self._checks.get(tool.name)
        result: ToolResult
        refused = None
        if check is not None:
            oversized = getattr(tool, "oversized", None)
            refused = oversized(arguments) if oversized is not None else None
            if refused is None:
                refused = check.refusal(arguments)
        if refused is not None:
            result = refused
        else:
            context = await settled(self._context(call)) if self._context is not None else None
            result = await tool.aexecute(arguments, call_id=call_id, context=context)  # type: ignore[attr-defined]
        shown: NxAgentToolError | None = None
        if self._on_result is not None:
            try:
                await settled(self._on_result({"name": tool.name, "call_id": call_id, "result": result}))
            except NxAgentToolError as error:
                shown = error
        if shown is None:
            if result["ok"] is True:
                return self._success(tool, result["output"], ctx.protocol_version)
            shown = model_facing_error(tool.name, result["error"])
        return types.CallToolResult(content=[types.TextContent(text=model_text(shown))], is_error=True)

    @staticmethod
    def _success(tool: AgentTool, output: Any, protocol_version: str) -> types.CallToolResult:
        content: list[types.ContentBlock] = [types.TextContent(text=json_text(output))]
        present, structured = structured_output(tool, output, protocol_version)
        if present:
            return types.CallToolResult(content=content, structured_content=structured)
        return types.CallToolResult(content=content)


create_mcp_server = McpToolServer
"""Serve ``tools`` (what ``create_agent_tools``/``load_agent`` answer) over MCP: the
:class:`McpToolServer` of these tools and options."""
