"""One tool's function, prepared once and called per tool call (agent-package §5.3 steps 2–8).

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

from collections.abc import Mapping, Sequence

from .._native import Evaluation, NxIrError, Program, call_function, measure_input_size
from .limits import CallLimits

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any, Union

    from .input_check import InputCheck
    from .results import ToolError, ToolFailure, ToolUsage

__all__ = ["CallOutcome", "PreparedCall", "context_record", "failure", "missing_context_message", "plain_copy", "usage_of"]

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
