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

:class:`PreparedCall` is one tool's function, prepared once and called per tool call (agent-package
§5.3 steps 2–8).

Everything that does not change between calls is worked out at creation: the ``Function`` record,
the runtime :class:`~nx_agent.ir.Limits` (budget and input limit), the context parameter names. A
call then checks the input, fills in the context, calls the runtime and classifies a failure.

For a function without context parameters the model's cap is checked by the runtime itself: its
input limit is then exactly the cap plus the ``Function`` record's size, so the runtime refuses what
the cap refuses and the input is measured once, inside the call. A call with an
:class:`~nx_agent.agent.input_check.InputCheck` measures the input first, then checks it against
the tool's input schema (after dropping context keys), and only then calls the runtime.

Tool contexts (§5.3 step 5, §5.4): a tool whose function declares context parameters is given the
host's record, with ``callId`` set to the call's, under each of their names; the model can never
supply one (its keys of those names are dropped, whatever they hold). The record is measured, with
``callId`` set, against its own cap.

The results' builders (:func:`failure`, :func:`usage_of`) are here too, so that a call loads one
module; :mod:`nx_agent.agent.results` describes the shapes and gives the same functions.
"""

import sys
from _collections_abc import Mapping  # not collections.abc: see load.py

from .._native import Evaluation, NxIrError, Program, call_function, measure_input_size

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from collections.abc import Awaitable, Iterator, Sequence
    from typing import Any, TypeGuard, Union

    from ..profile import Profile
    from .cancel import CancelToken
    from .input_check import InputCheck
    from .load import CallLimits
    from .results import ToolError, ToolFailure, ToolResult, ToolUsage

__all__ = [
    "AgentTool",
    "CallOutcome",
    "FunctionAgentTool",
    "PreparedCall",
    "context_record",
    "failure",
    "missing_context_message",
    "plain_copy",
    "usage_of",
]


if TYPE_CHECKING:
    CallOutcome = Union[Evaluation, ToolFailure]
else:
    CallOutcome = Evaluation | dict  # the same at run time: a failed result is a dict
"""An :class:`~nx_agent.ir.Evaluation` (the call succeeded) or a failed result (a ``dict``)."""


class PreparedCall:
    """Calls of one function for one tool: :meth:`run` answers an evaluation or a failed result."""

    __slots__ = (
        "call_limits",
        "check",
        "context_parameters",
        "function",
        "limits",
        "max_arguments_size",
        "max_context_size",
        "plain",
        "program",
        "run",
        "tool_name",
        "_context_names",
    )

    def __init__(
        self,
        program: "Program",
        reference: "Mapping[str, str]",
        context_parameters: "Sequence[str]",
        tool_name: str,
        limits: "CallLimits",
        check: "InputCheck | None" = None,
    ) -> None:
        self.program = program
        #: The tool's input schema, checked before the runtime is called (``None``: not checked).
        self.check = check
        self.function = {"$type": "Function", "module": reference["module"], "name": reference["name"]}
        self.context_parameters = tuple(context_parameters)
        self._context_names = frozenset(self.context_parameters)
        self.tool_name = tool_name
        #: The limits it was made with (a pickled tool is made again with them).
        self.call_limits = limits
        self.max_arguments_size = limits.max_arguments_size
        self.max_context_size = limits.max_context_size
        self.limits = limits.runtime_limits(reference, self.context_parameters)
        #: No context parameter: the model's cap is the runtime's own input limit (see the module docs).
        self.plain = not self.context_parameters
        self.run = self._run_plain if self.plain else self._run_with_context

    def not_an_object(self) -> "ToolFailure":
        """The input is not a JSON object."""
        return failure("invalid-input", f"Tool '{self.tool_name}' takes a JSON object as its input.")

    def oversized(self, input: object) -> "ToolFailure | None":
        """The ``invalid-input`` refusal when ``input`` is over the model's cap, else ``None``."""
        cap = self.max_arguments_size
        return self.too_large() if measure_input_size(input, cap) > cap else None

    def too_large(self) -> "ToolFailure":
        """The input is over the model's cap."""
        cap = self.max_arguments_size
        return failure(
            "invalid-input",
            f"The input of tool '{self.tool_name}' is larger than its limit of {cap}.",
            limit={"name": "maxArgumentsSize", "value": cap},
        )

    def _run_plain(self, input: object, call_id: str, context: object) -> "CallOutcome":
        """A function with no context parameter: the context is not read at all."""
        if type(input) is not dict:
            copied = plain_copy(input)
            if copied is None:
                return self.not_an_object()
            input = copied
        if self.check is not None:
            cap = self.max_arguments_size
            if measure_input_size(input, cap) > cap:
                return self.too_large()
            refused = self.check.refusal(input)
            if refused is not None:
                return refused
        try:
            return call_function(self.program, self.function, input, limits=self.limits)
        except NxIrError as error:
            return self.failed_plain(error)
        except Exception as error:  # noqa: BLE001 - a call never raises for a tool failure
            return failure("evaluation-failed", str(error))

    def failed_plain(self, error: "NxIrError") -> "ToolFailure":
        """A runtime failure of a call with no context: the runtime's input limit is the model's cap."""
        diagnostics = error.diagnostics
        if diagnostics and diagnostics[0].code == "nx-ir-resource-limit":
            limit = diagnostics[0].limit
            if limit is not None and limit.get("name") == "maxInputSize":
                return self.too_large()
        return self._failed(error)

    def _run_with_context(self, input: object, call_id: str, context: object) -> "CallOutcome":
        if not isinstance(input, Mapping):
            return self.not_an_object()
        cap = self.max_arguments_size
        if measure_input_size(input, cap) > cap:
            return self.too_large()
        names = self._context_names
        copied = plain_copy(input)
        try:
            arguments = None if copied is None else {k: v for k, v in copied.items() if k not in names}
        except Exception:  # noqa: BLE001 - a key whose own __eq__/__hash__ raises
            arguments = None
        if arguments is None:
            return self.not_an_object()
        if self.check is not None:
            refused = self.check.refusal(arguments)
            if refused is not None:
                return refused
        record = context_record(context, call_id)
        if record is None:
            return failure("invalid-context", missing_context_message(self.tool_name, self.context_parameters, context))
        allowance = self.max_context_size
        if measure_input_size(record, allowance) > allowance:
            return failure(
                "resource-limit",
                f"The tool context passed to tool '{self.tool_name}' is larger than its limit of {allowance}.",
                limit={"name": "maxContextSize", "value": allowance},
            )
        for name in self.context_parameters:
            arguments[name] = record
        try:
            return call_function(self.program, self.function, arguments, limits=self.limits)
        except NxIrError as error:
            return self._failed(error)
        except Exception as error:  # noqa: BLE001 - a call never raises for a tool failure
            return failure("evaluation-failed", str(error))

    def _failed(self, error: "NxIrError") -> "ToolFailure":
        """A runtime failure, classified from its diagnostics, with what the call used."""
        from .classify import classify_runtime_failure  # a failure's path only

        classified = classify_runtime_failure(error.diagnostics, self._context_names)
        native_usage = getattr(error, "usage", None)
        return failure(
            classified["code"],
            str(error),
            diagnostics=[diagnostic.to_dict() for diagnostic in error.diagnostics],
            limit=classified.get("limit"),
            usage=usage_of(native_usage) if native_usage is not None else None,
        )


def plain_copy(value: object) -> "dict[Any, Any] | None":
    """A plain dict copy of a mapping a host handed in, or ``None`` when it is not a mapping or
    reading it raises. A dict, subclasses too, is read from its storage (as the runtime reads it),
    so none of a subclass's own methods run; another mapping is read through its methods."""
    try:
        if isinstance(value, dict):
            return dict(dict.items(value))
        if isinstance(value, Mapping):
            return dict(value)
    except Exception:  # noqa: BLE001 - a mapping whose own methods (or keys' __hash__) raise
        return None
    return None


def context_record(context: object, call_id: str) -> "dict[str, Any] | None":
    """A copy of the host's record with ``callId`` set to this call's, or ``None`` when ``context`` is
    not a record with a string ``$type`` (or a mapping that cannot be read). The host's own record is
    not changed."""
    record = plain_copy(context)
    try:
        if record is None or not isinstance(record.get("$type"), str):
            return None
        record["callId"] = call_id
    except Exception:  # noqa: BLE001 - a key whose own __eq__ raises
        return None
    return record


def missing_context_message(tool_name: str, parameters: "Sequence[str]", context: object) -> str:
    """The message of a call that gave no usable record to a tool that needs one."""
    names = ", ".join(f"'{name}'" for name in parameters)
    supplied = "none" if context is None else "one with no '$type'"
    return (
        f"Tool '{tool_name}' needs the host's tool context record, with its '$type', for its "
        f"parameter {names}; the call supplied {supplied}."
    )


# The results' builders (the shapes: nx_agent.agent.results).


def usage_of(native: "Mapping[str, int]") -> "ToolUsage":
    """The usage the runtime reported (``operations``, ``input_size``) under the result's keys."""
    usage: "ToolUsage" = {}
    operations = native.get("operations")
    if operations is not None:
        usage["operations"] = operations
    input_size = native.get("input_size")
    if input_size is not None:
        usage["inputSize"] = input_size
    return usage


def failure(
    code: str,
    message: str,
    *,
    diagnostics: "Sequence[Mapping[str, Any]] | None" = None,
    limit: "Mapping[str, Any] | None" = None,
    usage: "ToolUsage | None" = None,
) -> "ToolFailure":
    """A failed result; each optional member is present only when given."""
    error: "ToolError" = {"code": code, "message": message}
    if diagnostics is not None:
        error["diagnostics"] = [dict(diagnostic) for diagnostic in diagnostics]
    if limit is not None:
        error["limit"] = dict(limit)  # type: ignore[typeddict-item]
    result: "ToolFailure" = {"ok": False, "error": error}
    if usage is not None:
        result["usage"] = usage
    return result


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


