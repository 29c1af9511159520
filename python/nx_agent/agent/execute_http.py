"""``http`` tools (agent-package §5.5): the arguments function evaluated, the request built under
the connection's base URL, and the host's request function called with it. Loaded by the first
definition with an ``http`` tool (see :mod:`nx_agent.agent.execute`)."""

from collections.abc import Awaitable, Callable, Mapping

from . import Record
from .execute import (
    PreparedCall,
    _absorb_cancellation,
    _close_coroutine,
    _current_task_cancelling,
    _ExecutableTool,
    _is_awaitable,
    _raised,
    failure,
    usage_of,
)

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any

    from .cancel import CancelToken
    from .results import ToolFailure, ToolResult, ToolSuccess, ToolUsage

__all__ = ["AgentHttpRequestFunction", "HttpAgentTool", "PreparedRequest"]


class PreparedRequest(Record):
    """What an ``http`` tool hands its request function for one call, and what evaluating it used."""

    __slots__ = ("call", "usage")

    call: "dict[str, Any]"
    usage: "ToolUsage"

    def __init__(self, call: "dict[str, Any]", usage: "ToolUsage") -> None:
        super().__init__(call, usage)


AgentHttpRequestFunction = Callable[[dict[str, "Any"]], "Mapping[str, Any] | Awaitable[Mapping[str, Any]]"]
"""Makes one request. It is handed ``{request, arguments, callId, toolName, connection, annotations,
cancel?}`` and answers ``{"status": int, "body": ..., ...}`` (the whole answer is the output), or
an awaitable of it for ``aexecute``; it may raise :class:`NxAgentToolError` to choose the code."""


class HttpAgentTool(_ExecutableTool):
    """An ``http`` tool: its arguments function evaluated, the request built under the connection's
    base URL, and the host's request function called with it (§5.5)."""

    __slots__ = ("_call", "_request", "_connection", "_function_name", "_module")

    def __init__(self, definition: "Mapping[str, Any]", call: "PreparedCall", request: "AgentHttpRequestFunction") -> None:
        super().__init__(definition)
        self._call = call
        self._request = request
        config = self.definition["config"]
        self._connection: str = config["connection"]["name"]
        self._function_name: str = config["arguments"]["name"]
        self._module: str = config["arguments"]["module"]

    @property
    def checks_input(self) -> bool:
        return self._call.check is not None

    def oversized(self, input: object) -> "ToolFailure | None":
        return self._call.oversized(input)

    def prepare(
        self, input: "Any", call_id: str, context: "Any", cancel: "CancelToken | None"
    ) -> "PreparedRequest | ToolFailure":
        """Evaluate the arguments and build the request (§5.5 steps 1–3): the call to hand the
        request function and the usage, or a failed result."""
        refused = self._refused(call_id, cancel)
        if refused is not None:
            return refused
        evaluated = self._call.run(input, call_id, context)
        if isinstance(evaluated, dict):
            return evaluated
        usage = usage_of(evaluated.usage)
        value = evaluated.value
        name = self.definition["name"]
        if not (isinstance(value, dict) and value.get("$type") == "HttpArguments"):
            from .describe import describe_value

            return failure(
                "invalid-request",
                f"Tool '{name}': its arguments function '{self._function_name}' of module "
                f"'{self._module}' returned {describe_value(value)}, not an 'HttpArguments'.",
                usage=usage,
            )
        from ..http.build import HttpRequestRefused, build_http_request  # loaded by the first http call

        built = build_http_request(self.definition, value)
        if isinstance(built, HttpRequestRefused):
            return failure("invalid-request", built.error.message, usage=usage)
        call: "dict[str, Any]" = {
            "request": built.request,
            "arguments": built.arguments,
            "callId": call_id,
            "toolName": name,
            "connection": self._connection,
            "annotations": self.definition["annotations"],
        }
        if cancel is not None:
            call["cancel"] = cancel
        return PreparedRequest(call, usage)

    def _answered(self, answer: object, usage: "ToolUsage") -> "ToolResult":
        try:
            status = answer.get("status") if isinstance(answer, Mapping) else None
        except Exception:  # noqa: BLE001 - an answer whose own methods raise has no status
            status = None
        if isinstance(status, bool) or not isinstance(status, (int, float)):
            return failure(
                "request-failed",
                f"The request function answered tool '{self.definition['name']}' with something that has no "
                "numeric 'status'.",
                usage=usage,
            )
        success: "ToolSuccess" = {"ok": True, "output": answer, "usage": usage}
        return success

    def execute(
        self, input: "Any", *, call_id: str, context: "Any" = None, cancel: "CancelToken | None" = None
    ) -> "ToolResult":
        """Evaluate, build and make the request for one call; never raises for a tool failure.

        The tool's NX function evaluates the request's arguments from ``input``; the request is
        built and checked (:func:`nx_agent.http.build_http_request`) and handed to the request
        function as ``{"request": {"method", "url", "headers", "body"?}, "arguments", "callId",
        "toolName", "connection", "annotations", "cancel"?}``; what it answers (``{"status",
        "body"}``) is the output: ``{"ok": True, "output": {"status": 200, "body": ...}, "usage":
        {...}}``. A failure is ``{"ok": False, "error": {"code", "message", ...}, "usage"?}``; the
        request function chooses the code by raising :class:`~nx_agent.NxAgentToolError`, and
        any other exception is ``request-failed``. The request function must answer synchronously
        here (use :meth:`aexecute` for one that answers an awaitable)."""
        prepared = self.prepare(input, call_id, context, cancel)
        if isinstance(prepared, dict):
            return prepared
        call, usage = prepared.call, prepared.usage
        try:
            answer = self._request(call)
        except Exception as error:  # noqa: BLE001 - the host's failure becomes the result
            return {**_raised(error, "request-failed"), "usage": usage}
        if _is_awaitable(answer):
            _close_coroutine(answer)
            return failure(
                "request-failed",
                f"The request function of tool '{self.definition['name']}' answered an awaitable; "
                "call aexecute to await it.",
                usage=usage,
            )
        return self._answered(answer, usage)

    async def aexecute(self, input: "Any", *, call_id: str, context: "Any" = None) -> "ToolResult":
        """:meth:`execute` in a coroutine, awaiting a request function that answers an awaitable."""
        if _current_task_cancelling():
            return self._aborted()
        import asyncio  # lazily: a bare ``import nx_agent`` does not load it

        prepared = self.prepare(input, call_id, context, None)
        if isinstance(prepared, dict):
            return prepared
        call, usage = prepared.call, prepared.usage
        try:
            answer = self._request(call)
            if _is_awaitable(answer):
                answer = await answer
        except asyncio.CancelledError:
            _absorb_cancellation()
            if self.definition["annotations"].get("readOnlyHint") is True:
                return self._cancelled(usage)
            return failure(
                "aborted",
                f"The call of tool '{self.definition['name']}' was cancelled while its request was in "
                "flight; whether the request was carried out is not known.",
                usage=usage,
            )
        except Exception as error:  # noqa: BLE001 - the host's failure becomes the result
            return {**_raised(error, "request-failed"), "usage": usage}
        return self._answered(answer, usage)
