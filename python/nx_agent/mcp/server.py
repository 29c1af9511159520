"""An MCP server (the official ``mcp`` SDK's low-level ``Server``) serving the tools of an agent.

``tools/list`` answers each tool as the definition holds it (:mod:`.listing`); ``tools/call``:

1. finds the tool (an unknown name is a protocol error, ``INVALID_PARAMS``);
2. validates the arguments once, with the validator compiled for the tool's input schema when
   the server was made (never a compile per call; :mod:`nx_agent.agent.input_check`, which a tool
   made with ``validate_arguments=True`` runs itself instead), after checking their size against
   the tool's argument limit (so that a value over it is neither validated nor quoted back);
   arguments the limit or the schema refuses are an ``invalid-input`` result and the tool does
   not run;
3. counts the call against the tool's ``maxCallsPerConversation`` (and the host's own cap,
   ``max_calls_per_conversation``; :mod:`nx_agent.agent.conversation`): past it the tool does not
   run, the result is ``resource-limit`` (limit ``maxCallsPerConversation``), and the model is
   told in the host's words that the tool cannot be called again in this conversation. A
   conversation is an MCP session (its ``mcp-session-id``, on streamable HTTP with the handshake
   versions); where there is none (stdio, where the process serves one client; protocol
   2026-07-28 over HTTP, which has no sessions) every call counts in one conversation, the
   server's, unless ``conversation(call)`` says otherwise;
4. runs ``aexecute`` with ``callId = call_id(call)`` (default: the MCP request id as text) and
   ``context = context(call)`` (default: none);
5. hands ``{"name", "call_id", "result"}`` to ``on_result`` (awaited; once per call of a served
   tool, success or failure, a schema refusal included), where the host reads a failure's full reason;
6. answers ``structuredContent`` and the output as JSON text on success, and on failure an
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
from ..agent.conversation import ConversationCalls, cap_error
from ..agent.diagnostics import NxAgentToolError
from ..agent.execute import AgentTool
from ..agent.input_check import InputCheck
from ..agent.results import ToolResult
from .listing import listed_tool, structured_output

__all__ = ["McpCall", "McpToolServer", "ResultEvent", "create_mcp_server", "session_conversation"]


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
ConversationFunction = Callable[[McpCall], Any]
OnResult = Callable[[ResultEvent], Any]

_SESSION_HEADER = "mcp-session-id"


def session_conversation(call: McpCall) -> Any:
    """The default conversation of a call: its MCP session (``("mcp-session", id)``) when the
    request carries an ``mcp-session-id``, else ``None``, the one conversation of every call
    without a session."""
    request = getattr(call.request_context, "request", None)
    headers = getattr(request, "headers", None)
    session = headers.get(_SESSION_HEADER) if headers is not None else None
    return ("mcp-session", session) if session else None


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
    parameter types; a host executor gets them as they came). ``max_calls_per_conversation``
    caps every tool's calls in one conversation (a tool's own ``maxCallsPerConversation``, when
    lower, still holds), and ``conversation(call)`` answers the key a call counts under (default
    :func:`session_conversation`). Run ``.server`` with :func:`nx_agent.mcp.serve_stdio` or
    :func:`nx_agent.mcp.serve_http`.
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
        max_calls_per_conversation: int | None = None,
        conversation: ConversationFunction | None = None,
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
        calls = ConversationCalls(self.tools.values(), max_calls_per_conversation=max_calls_per_conversation)
        #: The calls of each tool in each conversation (``None`` when no tool has a cap).
        self.calls: ConversationCalls | None = calls if calls.caps else None
        self._conversation = conversation if conversation is not None else session_conversation
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
        calls, conversation, capped = self.calls, None, None
        if calls is not None:
            conversation = await settled(self._conversation(call))
            capped = calls.take(conversation, tool.name)
        result: ToolResult
        if capped is not None:
            result = capped
        else:
            result = await self._run(tool, call, arguments, call_id)
            if calls is not None and not result["ok"] and result["error"]["code"] == "invalid-input":
                calls.give_back(conversation, tool.name)
        shown: NxAgentToolError | None = None
        if self._on_result is not None:
            try:
                await settled(self._on_result({"name": tool.name, "call_id": call_id, "result": result}))
            except NxAgentToolError as error:
                shown = error
        if shown is None:
            if result["ok"] is True:
                return self._success(tool, result["output"], ctx.protocol_version)
            shown = cap_error(result) if capped is not None else model_facing_error(tool.name, result["error"])
        return types.CallToolResult(content=[types.TextContent(text=model_text(shown))], is_error=True)

    async def _run(self, tool: AgentTool, call: McpCall, arguments: dict[str, Any], call_id: str) -> ToolResult:
        """The result of one call: its arguments checked (size, then schema), then the tool run."""
        check = self._checks.get(tool.name)
        if check is not None:
            oversized = getattr(tool, "oversized", None)
            refused = oversized(arguments) if oversized is not None else None
            if refused is None:
                refused = check.refusal(arguments)
            if refused is not None:
                return refused
        context = await settled(self._context(call)) if self._context is not None else None
        result: ToolResult = await tool.aexecute(arguments, call_id=call_id, context=context)  # type: ignore[attr-defined]
        return result

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
