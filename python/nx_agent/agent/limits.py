"""The limits a tool call runs under (agent-package §5.2): defaults, how a host's options are read,
and the runtime :class:`~nx_agent.ir.Limits` of one tool's function.

Every call gets the whole budget; a host raises or lowers the limits, and can turn none off: each
given value must be a non-negative safe integer (``0 ≤ n ≤ 2**53 − 1``).
"""

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ..errors import AgentOptionError

from . import Record
from .. import _lazy_names as lazy_names
from .._native import Limits, measure_input_size

__all__ = [
    "AgentOptionError",
    "CallLimits",
    "NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE",
    "NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE",
    "NX_AGENT_DEFAULT_MAX_OPERATIONS",
    "name_cost",
    "read_call_limits",
]

NX_AGENT_DEFAULT_MAX_OPERATIONS = 100_000
"""The budget of one call, in operations, when the host sets none."""
NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE = 1_000
"""The cap on the input size of what the model sends, when the host sets none."""
NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE = 1_000
"""The cap on the input size of the host's context record (with ``callId`` set)."""

_MAX_SAFE_INTEGER = 2**53 - 1
# Runtime options a host may pass through; the input limit is the package's to compute.
_RUNTIME_OPTIONS = ("max_call_depth", "max_range_length", "max_memory")

# AgentOptionError is made by nx_agent.errors, loaded with the first refusal (nx_agent._lazy_names).
__getattr__, __dir__ = lazy_names(__name__, globals(), {"nx_agent.errors": ("AgentOptionError",)})


def _refused(message: str) -> "AgentOptionError":
    from ..errors import AgentOptionError

    return AgentOptionError(message)


def _limit(name: str, value: object) -> int:
    """A limit option: a non-negative safe integer (an integral float is read as one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _refused(f"{name} must be a non-negative safe integer, got {value!r}.")
    if isinstance(value, float):
        if not value.is_integer():  # false for infinities and NaN too
            raise _refused(f"{name} must be a non-negative safe integer, got {value!r}.")
        value = int(value)
    if not 0 <= value <= _MAX_SAFE_INTEGER:
        raise _refused(f"{name} must be a non-negative safe integer, got {value!r}.")
    return value


class CallLimits(Record):
    """The limits every call of a set of tools runs under."""

    __slots__ = (
        "max_operations", "max_arguments_size", "max_context_size", "max_call_depth", "max_range_length", "max_memory"
    )
    _defaults = {
        "max_operations": NX_AGENT_DEFAULT_MAX_OPERATIONS,
        "max_arguments_size": NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
        "max_context_size": NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
        "max_call_depth": None,
        "max_range_length": None,
        "max_memory": None,
    }

    max_operations: int
    max_arguments_size: int
    max_context_size: int
    max_call_depth: "int | None"
    max_range_length: "int | None"
    max_memory: "int | None"
    """Bytes of values one call may allocate (``None``: the runtime's default, 256 MiB)."""

    def __init__(
        self,
        max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
        max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
        max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
        max_call_depth: "int | None" = None,
        max_range_length: "int | None" = None,
        max_memory: "int | None" = None,
    ) -> None:
        super().__init__(
            max_operations, max_arguments_size, max_context_size, max_call_depth, max_range_length, max_memory
        )

    def runtime_limits(self, reference: "Mapping[str, str]", context_parameters: "Sequence[str]") -> "Limits":
        """The runtime limits of one function's calls. The input limit is the function record, the
        model's cap, and per context parameter the context's cap and what its name costs, so it
        never refuses a call that passed the package's own two checks."""
        function_record = {"$type": "Function", "module": reference["module"], "name": reference["name"]}
        max_input_size = self.max_arguments_size + measure_input_size(function_record)
        for name in context_parameters:
            max_input_size += self.max_context_size + name_cost(name)
        return Limits(
            max_operations=self.max_operations,
            max_input_size=max_input_size,
            max_call_depth=self.max_call_depth,
            max_range_length=self.max_range_length,
            max_memory=self.max_memory,
        )


def name_cost(name: str) -> int:
    """What a field name adds to a record's input size: ``⌊UTF-16 length / 64⌋``."""
    return measure_input_size({name: 0}) - 2


def read_call_limits(
    *,
    max_operations: object = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: object = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: object = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "Mapping[str, Any] | Limits | None" = None,
) -> "CallLimits":
    """Read a host's limit options, raising :class:`AgentOptionError` for a value that is not a
    non-negative safe integer, and ``TypeError`` for a runtime option the package does not pass on.

    ``runtime`` holds the IR runtime's other limits, ``max_call_depth``, ``max_range_length`` and
    ``max_memory`` (a mapping, or an :class:`~nx_agent.ir.Limits` whose budget and input limit are
    not used): the budget is ``max_operations``, and the input limit the package computes per
    function.
    """
    depth: "int | None" = None
    ranges: "int | None" = None
    memory: "int | None" = None
    if isinstance(runtime, Limits):
        depth, ranges, memory = runtime.max_call_depth, runtime.max_range_length, runtime.max_memory
    elif runtime is not None:
        unknown = sorted(set(runtime) - {*_RUNTIME_OPTIONS, "max_input_size"})
        if unknown:
            raise TypeError(
                f"runtime options {', '.join(map(repr, unknown))} are not passed on: the budget is "
                "max_operations, and the input limit is the package's to compute."
            )
        if runtime.get("max_call_depth") is not None:
            depth = _limit("runtime.max_call_depth", runtime["max_call_depth"])
        if runtime.get("max_range_length") is not None:
            ranges = _limit("runtime.max_range_length", runtime["max_range_length"])
        if runtime.get("max_memory") is not None:
            memory = _limit("runtime.max_memory", runtime["max_memory"])
    return CallLimits(
        max_operations=_limit("max_operations", max_operations),
        max_arguments_size=_limit("max_arguments_size", max_arguments_size),
        max_context_size=_limit("max_context_size", max_context_size),
        max_call_depth=depth,
        max_range_length=ranges,
        max_memory=memory,
    )
