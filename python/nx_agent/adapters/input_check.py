"""The input-schema check a host makes before a tool runs: what the MCP server and ``nx-agent call``
do with the arguments a model (or a person) sends.

Two layers check a call's input, and they differ on purpose:

- this check, against the tool's stored ``inputSchema`` (JSON Schema 2020-12, what the model was
  shown): an ``integer`` must be a whole number, and a key the schema does not list is refused
  (``additionalProperties: false``);
- the NX runtime, when the tool runs: the function's parameter types, by the reference runtimes'
  rules, under which a number with a fraction is accepted where an ``int`` is declared and keys
  that are not parameters are left out.

A refusal is an ``invalid-input`` result that names each place that does not fit (at most
:data:`MAX_PROBLEMS_SHOWN`), as the model is told it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..agent.results import ToolFailure, failure

__all__ = ["MAX_PROBLEMS_SHOWN", "input_problems", "schema_refusal"]

MAX_PROBLEMS_SHOWN = 3


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def input_problems(validator: Any, arguments: Any) -> list[tuple[str, str]]:
    """Each place ``arguments`` does not fit the compiled schema ``validator`` (a ``jsonschema-rs``
    validator): ``(JSON pointer, message)``; empty when it fits."""
    if validator.is_valid(arguments):
        return []
    return [(_pointer(error.instance_path), error.message) for error in validator.iter_errors(arguments)]


def schema_refusal(tool_name: str, problems: list[tuple[str, str]]) -> ToolFailure:
    """The ``invalid-input`` result for arguments that do not fit a tool's input schema."""
    shown = "; ".join(f"at {path or '/'}: {message}" for path, message in problems[:MAX_PROBLEMS_SHOWN])
    more = len(problems) - MAX_PROBLEMS_SHOWN
    if more > 0:
        shown += f"; and {more} more"
    return failure("invalid-input", f"The arguments of tool '{tool_name}' do not fit its input schema: {shown}.")


def check_input(tool: Mapping[str, Any], arguments: Any) -> ToolFailure | None:
    """The refusal of ``arguments`` by ``tool``'s input schema, or ``None`` when they fit."""
    from ..schema.validation import validator_for

    problems = input_problems(validator_for(tool["inputSchema"]), arguments)
    return schema_refusal(str(tool["name"]), problems) if problems else None
