"""The tools ``create_agent_tools`` returns (agent-package §5.3–§5.7).

Each tool is the stored tool's fields (read as a mapping, or through the properties below) plus,
for every kind but ``provider``, ``execute(input, *, call_id, context=None, cancel=None)`` and
``async aexecute(input, *, call_id, context=None)``. Neither raises for a tool failure: each answers
a result dict (:mod:`nx_agent.agent.results`) with one of the codes of §5.10.

- :class:`FunctionAgentTool` evaluates its NX function under the call limits;
- :class:`~nx_agent.agent.execute_http.HttpAgentTool` evaluates its arguments function, builds the
  request (:func:`nx_agent.http.build_http_request`) and hands it to the host's request function;
- :class:`~nx_agent.agent.execute_host.HostAgentTool` hands the call to the host's executor for
  its kind;
- a ``provider`` tool is a plain :class:`AgentTool`: the model's provider runs it.

The ``http`` and host kinds live in modules of their own, loaded by the first definition that has
such a tool: a serverless function whose tools are NX functions loads neither.

Cancellation: a sync call checks its :class:`~nx_agent.agent.cancel.CancelToken` before it begins,
and hands it on. An ``aexecute`` that is cancelled (:mod:`asyncio`) answers ``aborted``: before it
begins with nothing done, or while it waits on the host's request function or executor, whose
work is then abandoned (the cancellation is absorbed, and the task's cancel request count undone).
"""

import sys
from collections.abc import Mapping

from .._native import NxIrError, call_function
from .call import PreparedCall, failure

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from collections.abc import Awaitable, Iterator
    from typing import Any, TypeGuard

    from ..profile import Profile
    from .cancel import CancelToken
    from .results import ToolFailure, ToolResult

__all__ = ["AgentTool", "FunctionAgentTool"]


def _is_awaitable(value: object) -> "TypeGuard[Awaitable[Any]]":
    """What ``inspect.isawaitable`` answers, without loading ``inspect`` for the common answers: a
    native coroutine or any object whose type has ``__await__`` is; a generator is when
    ``types.coroutine`` made it one (``inspect`` decides); nothing else is."""
    kind = type(value)
    if hasattr(kind, "__await__"):
        return True
    if kind.__name__ == "generator":
        import inspect

        return inspect.isawaitable(value)
    return False


def _close_coroutine(value: object) -> None:
    """Close a native coroutine that will not be awaited (no "never awaited" warning)."""
    close = getattr(value, "close", None)
    if type(value).__name__ == "coroutine" and close is not None:
        close()


def _current_task_cancelling() -> bool:
    # asyncio is imported lazily (a bare ``import nx_agent`` stays light): no task of it can be
    # running before some other code imported it.
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    cancelling = getattr(task, "cancelling", None)
    if cancelling is not None:
        return bool(cancelling())
    # Python 3.10: no Task.cancelling(); a cancel() of the running task is held in _must_cancel
    # until its next await (scripts/wheels.py found the gap on 3.10).
    return bool(getattr(task, "_must_cancel", False))


def _absorb_cancellation() -> None:
    """Undo the cancel request a caught ``CancelledError`` delivered (Python ≥ 3.11)."""
    import asyncio

    task = asyncio.current_task()
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None:
        uncancel()


def _raised(error: "Exception", default_code: str) -> "ToolFailure":
    """A host function's exception as a failed result: an :class:`NxAgentToolError` keeps its code,
    message, diagnostics and limit; anything else gets ``default_code`` and its text."""
    from .diagnostics import NxAgentToolError  # a host function raised: not the common path

    if isinstance(error, NxAgentToolError):
        diagnostics = getattr(error, "diagnostics", None)
        limit = getattr(error, "limit", None)
        return failure(
            error.code,
            str(error),
            diagnostics=[dict(d) if isinstance(d, Mapping) else d.to_dict() for d in diagnostics]
            if diagnostics is not None
            else None,
            limit=limit,
        )
    return failure(default_code, str(error))


class AgentTool(Mapping[str, "Any"]):
    """A tool of a definition: its stored fields, as a read-only mapping in the stored key order."""

    __slots__ = ("definition",)

    def __init__(self, definition: "Mapping[str, Any]") -> None:
        #: The stored tool, a shallow copy (its fields are the definition's own objects).
        self.definition: "dict[str, Any]" = dict(definition)

    def __getitem__(self, key: str) -> "Any":
        return self.definition[key]

    def __iter__(self) -> "Iterator[str]":
        return iter(self.definition)

    def __len__(self) -> int:
        return len(self.definition)

    @property
    def name(self) -> str:
        """The tool's name."""
        name: str = self.definition["name"]
        return name

    @property
    def kind(self) -> str:
        """``function``, ``http``, ``provider`` or a host kind."""
        kind: str = self.definition["kind"]
        return kind

    @property
    def description(self) -> "str | None":
        """The tool's description."""
        return self.definition.get("description")

    @property
    def title(self) -> "str | None":
        """The title a host describer gave, if any."""
        return self.definition.get("title")

    @property
    def input_schema(self) -> "Any":
        """The JSON Schema of the tool's input, as stored."""
        return self.definition.get("inputSchema")

    @property
    def output_schema(self) -> "Any":
        """The JSON Schema of the tool's output, as stored, if any."""
        return self.definition.get("outputSchema")

    @property
    def annotations(self) -> "Any":
        """The four MCP hints."""
        return self.definition.get("annotations")

    @property
    def config(self) -> "Any":
        """The per-kind configuration."""
        return self.definition.get("config")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.definition.get('name')!r} kind={self.definition.get('kind')!r}>"

    # Pickling and copying: :mod:`nx_agent.agent.travel` (a pickled tool is made again, and checked,
    # with its program, options and host function; a copy shares them).
    def __reduce_ex__(self, protocol: "Any") -> "tuple[Any, ...]":
        from .travel import reduce_tool

        return reduce_tool(self, protocol)

    def __copy__(self) -> "AgentTool":
        from .travel import copy_tool

        return copy_tool(self)

    def __deepcopy__(self, memo: "dict[int, Any]") -> "AgentTool":
        from .travel import copy_tool

        return copy_tool(self, memo)


class _ExecutableTool(AgentTool):
    """A tool the package runs: the refusal checks every call begins with."""

    __slots__ = ()

    def _aborted(self) -> "ToolFailure":
        return failure("aborted", f"The call of tool '{self.definition['name']}' was aborted before it began.")

    def _cancelled(self, usage: "Any" = None) -> "ToolFailure":
        return failure(
            "aborted",
            f"The call of tool '{self.definition['name']}' was cancelled while it ran.",
            usage=usage,
        )

    @property
    def checks_input(self) -> bool:
        """Whether ``execute`` checks the input against the input schema before it runs anything
        (``create_agent_tools(..., validate_arguments=True)``)."""
        return False

    def oversized(self, input: object) -> "ToolFailure | None":
        """The ``invalid-input`` refusal when ``input`` is over the tool's argument limit
        (``max_arguments_size``), else ``None``; a tool of a host kind has no such limit."""
        return None

    def _no_call_id(self) -> "ToolFailure":
        return failure(
            "invalid-context",
            f"A call of tool '{self.definition['name']}' needs a 'callId', a string that is not empty.",
        )

    def _refused(self, call_id: object, cancel: "CancelToken | None") -> "ToolFailure | None":
        if cancel is not None and cancel.cancelled:
            return self._aborted()
        if type(call_id) is not str or not call_id:
            return self._no_call_id()
        return None


class FunctionAgentTool(_ExecutableTool):
    """A ``function`` tool: its NX function evaluated under the call limits."""

    __slots__ = ("_call",)

    def __init__(self, definition: "Mapping[str, Any]", call: "PreparedCall") -> None:
        super().__init__(definition)
        self._call = call

    @property
    def checks_input(self) -> bool:
        return self._call.check is not None

    def oversized(self, input: object) -> "ToolFailure | None":
        return self._call.oversized(input)

    def execute(
        self, input: "Any", *, call_id: str, context: "Any" = None, cancel: "CancelToken | None" = None
    ) -> "ToolResult":
        """Run the tool's function for one call; never raises for a tool failure.

        ``input`` is the model's arguments (a JSON object, checked by the NX runtime against the
        function's parameters), ``call_id`` the call's id (a non-empty string), ``context`` the
        host's tool context record when the tool has context parameters, and ``cancel`` a
        :class:`~nx_agent.CancelToken` checked before the call begins. The answer is
        ``{"ok": True, "output": <the function's value, as JSON>, "usage": {"operations": n,
        "inputSize": m}}``, or ``{"ok": False, "error": {"code", "message", "diagnostics"?,
        "limit"?}, "usage"?: {...}}`` with a code of agent-package §5.10 (``invalid-input``,
        ``invalid-context``, ``resource-limit``, ``evaluation-failed``, ``invalid-request``,
        ``aborted``). A ``KeyboardInterrupt`` during a long evaluation is raised, not answered."""
        if (cancel is not None and cancel.cancelled) or type(call_id) is not str or not call_id:
            return self._refused(call_id, cancel)  # type: ignore[return-value]
        call = self._call
        if call.plain and type(input) is dict and call.check is None:
            # The common case in line: a JSON object for a function with no context parameter.
            try:
                evaluated = call_function(call.program, call.function, input, limits=call.limits)
            except NxIrError as error:
                return call.failed_plain(error)
            except Exception as error:  # noqa: BLE001 - a call never raises for a tool failure
                return failure("evaluation-failed", str(error))
        else:
            outcome = call.run(input, call_id, context)
            if isinstance(outcome, dict):
                return outcome
            evaluated = outcome
        # Every call has a budget and an input limit, so the runtime reports both numbers.
        return {
            "ok": True,
            "output": evaluated.value,
            "usage": {"operations": evaluated.operations, "inputSize": evaluated.input_size},  # type: ignore[typeddict-item]
        }

    async def aexecute(self, input: "Any", *, call_id: str, context: "Any" = None) -> "ToolResult":
        """:meth:`execute` in a coroutine; a task already cancelled when it begins answers ``aborted``."""
        if _current_task_cancelling():
            return self._aborted()
        return self.execute(input, call_id=call_id, context=context)

    def profile(self, input: "Any", *, call_id: str = "profile", context: "Any" = None) -> "Profile":
        """One call made as :meth:`execute` makes it, profiled: where its operations went (see
        :mod:`nx_agent.profile`). ``profile.usage`` is the answer's usage, ``profile.value`` its
        output and ``profile.error`` its error object when it failed."""
        from ..profile import profile_tool

        return profile_tool(self, input, call_id=call_id, context=context)


