"""A tool's input checked against its input schema before anything runs: what the MCP server and
``nx-agent call`` do with the arguments a model (or a person) sends.

Two layers check a call's input, and they differ on purpose:

- this check, against the tool's stored ``inputSchema`` (JSON Schema 2020-12, what the model was
  shown): an ``integer`` must be a whole number, a bound of a constrained type holds, and a key the
  schema does not list is refused (``additionalProperties: false``);
- the NX runtime, when the tool runs: the function's parameter types, by the reference runtimes'
  rules, under which a number with a fraction is accepted where an ``int`` is declared and keys
  that are not parameters are left out.

The MCP server checks every call this way (``validate_arguments``, on by default);
``create_agent_tools(..., validate_arguments=True)`` makes ``function`` and ``http`` tools do it in
``execute`` too, where by default the runtime alone checks the arguments against the parameter
types (agent-package §5.3). The check is how a bound the runtime does not check yet (a schema-6
constraint) is refused before evaluation, and it refuses without any evaluation: no usage.

Each check holds the validator compiled for the schema once, when the tool is made
(:func:`nx_agent.schema.validator_for`, which keeps one per schema). A refusal is an
``invalid-input`` result naming where and why, the first :data:`MAX_PROBLEMS_SHOWN` problems, each
bounded (:data:`MAX_POINTER_CHARS`, :data:`MAX_PROBLEM_CHARS`: the validator's messages quote the
value they refuse, and a key or a string of the model's may be as long as its input may be). The
input's size is checked first, by whoever runs the check (the tool, or the MCP server), so that a
value over the argument limit is never validated, let alone quoted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._log_text import bounded
from .results import failure

if TYPE_CHECKING:
    from .results import ToolFailure

__all__ = ["InputCheck", "MAX_POINTER_CHARS", "MAX_PROBLEMS_SHOWN", "MAX_PROBLEM_CHARS", "check_input", "schema_refusal"]

MAX_PROBLEMS_SHOWN = 3
MAX_POINTER_CHARS = 120
"""The most characters of a problem's JSON pointer a refusal shows (its middle left out beyond)."""
MAX_PROBLEM_CHARS = 240
"""The most characters of a problem's message a refusal shows (its middle left out beyond, which
keeps both the start of a quoted value and what is wrong with it)."""


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def schema_refusal(tool_name: str, problems: list[tuple[str, str]]) -> ToolFailure:
    """The ``invalid-input`` result for input a tool's schema refuses: ``(pointer, message)`` each."""
    shown = "; ".join(
        f"at {bounded(path or '/', MAX_POINTER_CHARS)}: {bounded(message, MAX_PROBLEM_CHARS)}"
        for path, message in problems[:MAX_PROBLEMS_SHOWN]
    )
    more = len(problems) - MAX_PROBLEMS_SHOWN
    if more > 0:
        shown += f"; and {more} more"
    return failure("invalid-input", f"The arguments of tool '{tool_name}' do not fit its input schema: {shown}.")


class InputCheck:
    """The input schema of one tool, compiled: :meth:`refusal` answers the result for input it
    refuses, ``None`` for input it admits."""

    __slots__ = ("schema", "tool_name", "validator")

    def __init__(self, tool_name: str, schema: Mapping[str, Any]) -> None:
        # Imported here: a bare ``import nx_agent`` loads neither the schema package nor jsonschema-rs.
        from ..schema.validation import validator_for

        self.tool_name = tool_name
        self.schema = schema
        self.validator: Any = validator_for(schema)

    def refusal(self, value: object) -> ToolFailure | None:
        """The ``invalid-input`` result when the schema refuses ``value``; ``None`` when it admits it,
        or when ``value`` is not a JSON value the validator reads (the runtime then says what is
        wrong with it, as it does without a check)."""
        try:
            if self.validator.is_valid(value):
                return None
            problems = [(_pointer(e.instance_path), e.message) for e in self.validator.iter_errors(value)]
        except (ValueError, TypeError, UnicodeError, RecursionError, OverflowError):
            return None
        return schema_refusal(self.tool_name, problems)


def check_input(tool: Mapping[str, Any], arguments: object) -> ToolFailure | None:
    """The refusal of ``arguments`` by the input schema of ``tool`` (a definition's tool entry), or
    ``None`` when they fit."""
    return InputCheck(str(tool["name"]), tool["inputSchema"]).refusal(arguments)
