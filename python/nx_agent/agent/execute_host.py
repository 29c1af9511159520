"""Tools of a host kind (agent-package §5.6), run by the host's executor for that kind. Loaded by
the first definition with such a tool (see :mod:`nx_agent.agent.execute`)."""

from collections.abc import Callable, Mapping

from . import Record
from .execute import _absorb_cancellation, _close_coroutine, _current_task_cancelling, _ExecutableTool, _is_awaitable, _raised, failure

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any

    from .cancel import CancelToken
    from .results import ToolResult

__all__ = ["AgentExecutor", "HostAgentTool", "ToolCallContext"]


class ToolCallContext(Record):
    """What a host executor is given about a call: its ``call_id``, the host's ``context`` record
    as passed (``None`` when none was) and the ``cancel`` token (``None`` from ``aexecute``)."""

    __slots__ = ("call_id", "context", "cancel")
    _defaults = {"context": None, "cancel": None}

    call_id: str
    context: "Any"
    cancel: "CancelToken | None"

    def __init__(self, call_id: str, context: "Any" = None, cancel: "CancelToken | None" = None) -> None:
        super().__init__(call_id, context, cancel)


AgentExecutor = Callable[[Mapping[str, "Any"], "Any", ToolCallContext], "Any"]
"""Runs a tool of a host kind: ``executor(tool_definition, input, call_context)`` answers the output
(or an awaitable of it for ``aexecute``); it may raise :class:`NxAgentToolError` to choose the code."""


class HostAgentTool(_ExecutableTool):
    """A tool of a host kind, run by the host's executor for that kind (§5.6): the input is passed as
    received, with no checks or limits, and the result has no usage."""

    __slots__ = ("_executor",)

    def __init__(self, definition: "Mapping[str, Any]", executor: "AgentExecutor") -> None:
        super().__init__(definition)
        self._executor = executor

    def execute(
        self, input: "Any", *, call_id: str, context: "Any" = None, cancel: "CancelToken | None" = None
    ) -> "ToolResult":
        """Hand the call to the executor; never raises for a tool failure. The executor must answer
        synchronously here (use :meth:`aexecute` for one that answers an awaitable)."""
        refused = self._refused(call_id, cancel)
        if refused is not None:
            return refused
        try:
            output = self._executor(self.definition, input, ToolCallContext(call_id, context, cancel))
        except Exception as error:  # noqa: BLE001 - the host's failure becomes the result
            return _raised(error, "evaluation-failed")
        if _is_awaitable(output):
            _close_coroutine(output)
            return failure(
                "evaluation-failed",
                f"The executor of tool '{self.definition['name']}' answered an awaitable; call aexecute to await it.",
            )
        return {"ok": True, "output": output}

    async def aexecute(self, input: "Any", *, call_id: str, context: "Any" = None) -> "ToolResult":
        """:meth:`execute` in a coroutine, awaiting an executor that answers an awaitable."""
        if _current_task_cancelling():
            return self._aborted()
        import asyncio  # lazily: a bare ``import nx_agent`` does not load it

        refused = self._refused(call_id, None)
        if refused is not None:
            return refused
        try:
            output = self._executor(self.definition, input, ToolCallContext(call_id, context, None))
            if _is_awaitable(output):
                output = await output
        except asyncio.CancelledError:
            _absorb_cancellation()
            return self._cancelled()
        except Exception as error:  # noqa: BLE001 - the host's failure becomes the result
            return _raised(error, "evaluation-failed")
        return {"ok": True, "output": output}
