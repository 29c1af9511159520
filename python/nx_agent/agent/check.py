"""``check_agent_tools``: whether a stored definition can run with a linked program (§4).

``definition_problems`` and ``tool_shape_problem`` are the same checks in the form
``create_agent_tools`` builds on: it adds its own (missing executor, missing request function) for
the tools not marked damaged.
"""

from _collections_abc import Mapping  # not collections.abc: see load.py

from . import Record

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any

    from .._native import Program
    from .diagnostics import NxAgentDiagnostic

__all__ = ["DefinitionProblems", "SUPPORTED_FORMAT_VERSIONS", "check_agent_tools", "definition_problems", "tool_shape_problem"]

#: agent/definition.py's AGENT_DEFINITION_FORMAT_VERSION (tests/test_bundle.py holds them equal),
#: written here so that a check loads no definition module.
SUPPORTED_FORMAT_VERSIONS: "tuple[int, ...]" = (1,)


class DefinitionProblems(Record):
    """The tools read from a definition, the indices of those too damaged to read further, and the diagnostics."""

    __slots__ = ("tools", "damaged", "diagnostics")
    _defaults: "dict[str, Any]" = {"damaged": frozenset(), "diagnostics": []}

    tools: "list[Any]"
    damaged: "frozenset[int]"
    diagnostics: "list[NxAgentDiagnostic]"

    def __init__(
        self, tools: "list[Any]", damaged: "frozenset[int]" = frozenset(), diagnostics: "list[NxAgentDiagnostic] | None" = None
    ) -> None:
        super().__init__(tools, damaged, [] if diagnostics is None else diagnostics)


def _diagnostic(*fields: "Any") -> "NxAgentDiagnostic":
    from .diagnostics import NxAgentDiagnostic  # the problems' path only

    return NxAgentDiagnostic(*fields)


def _get(mapping: "Mapping[str, Any]", key: str) -> "Any":
    """``mapping.get(key, MISSING)``, the absent value (:data:`nx_agent._missing.MISSING`) loaded only
    when a key is absent: a definition that is whole never needs it."""
    try:
        return mapping[key]
    except KeyError:
        from .._missing import MISSING

        return MISSING


def describe_value(value: object) -> str:
    """How a message shows a value (:func:`nx_agent._js.describe_value`), loaded for a message only."""
    from .._js import describe_value as describe

    return describe(value)


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_declaration_name(value: object) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("module"), str) and isinstance(value.get("name"), str)


def tool_shape_problem(tool: object) -> "str | None":
    """Why one stored tool does not have the shape the package wrote, or ``None``.

    Checks every member read before a call; what a call reads (method, path, base URL) the
    request builder checks at the call.
    """
    if not isinstance(tool, Mapping):
        return f"it is {describe_value(tool)}, not a tool"
    for member in ("name", "kind"):
        held = _get(tool, member)
        if not isinstance(held, str):
            return f"its '{member}' is {describe_value(held)}, not a string"
    kind = tool["kind"]
    if kind not in ("function", "http"):
        return None
    config = _get(tool, "config")
    if not isinstance(config, Mapping):
        return f"its 'config' is {describe_value(config)}, not a record"
    reference = "function" if kind == "function" else "arguments"
    held_reference = _get(config, reference)
    if not _is_declaration_name(held_reference):
        return (
            f"its 'config.{reference}' is {describe_value(held_reference)}, "
            "not the module and the name of a function"
        )
    parameters = _get(config, "contextParameters")
    if not isinstance(parameters, (list, tuple)):
        return f"its 'config.contextParameters' is {describe_value(parameters)}, not a list"
    if not all(isinstance(parameter, Mapping) and isinstance(parameter.get("name"), str) for parameter in parameters):
        return "its 'config.contextParameters' is a list that holds something other than a parameter with a 'name'"
    if kind == "http":
        connection = _get(config, "connection")
        if not (isinstance(connection, Mapping) and isinstance(connection.get("name"), str)):
            return f"its 'config.connection' is {describe_value(connection)}, not a connection with a 'name'"
    return None


def _is_supported_version(version: object) -> bool:
    return is_number(version) and version in SUPPORTED_FORMAT_VERSIONS


def _declares_function(program: "Program", module: str, name: str) -> bool:
    prepared = program.module(module)
    return prepared is not None and name in prepared.functions


def definition_problems(definition: object, program: "Program") -> "DefinitionProblems":
    """Every problem of a definition (or a bare tool list) that does not depend on how it will run.

    An unsupported format version is reported alone; a definition that is not one, or whose
    ``tools`` is not a list, stops the check. Each damaged tool is reported and skipped; each other
    ``function``/``http`` tool must name a function the linked ``program`` declares.
    """
    diagnostics: "list[NxAgentDiagnostic]" = []
    tools: "list[Any]"
    if isinstance(definition, (list, tuple)):
        tools = list(definition)
    elif not isinstance(definition, Mapping):
        diagnostics.append(
            _diagnostic(
                "error",
                "nx-agent-invalid-definition",
                f"The definition is {describe_value(definition)}, not a definition or a list of tools.",
                "",
            )
        )
        return DefinitionProblems(tools=[], diagnostics=diagnostics)
    else:
        version = _get(definition, "formatVersion")
        if not _is_supported_version(version):
            from .._js import js_json

            shown = js_json(version)
            supported = ", ".join(str(one) for one in SUPPORTED_FORMAT_VERSIONS)
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-unsupported-format",
                    f"The definition has format version {shown}, and this package supports {supported}.",
                    "formatVersion",
                )
            )
            return DefinitionProblems(tools=[], diagnostics=diagnostics)
        held = _get(definition, "tools")
        if not isinstance(held, (list, tuple)):
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-invalid-definition",
                    f"The definition's 'tools' is {describe_value(held)}, not a list.",
                    "tools",
                )
            )
            return DefinitionProblems(tools=[], diagnostics=diagnostics)
        tools = list(held)

    damaged: "set[int]" = set()
    for index, tool in enumerate(tools):
        path = f"tools[{index}]"
        problem = tool_shape_problem(tool)
        if problem is not None:
            name = tool.get("name") if isinstance(tool, Mapping) else None
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-invalid-definition",
                    f"{path} of the definition cannot be run: {problem}.",
                    path,
                    name if isinstance(name, str) else None,
                )
            )
            damaged.add(index)
            continue
        kind = tool["kind"]
        if kind not in ("function", "http"):
            continue
        reference: "Mapping[str, str]" = tool["config"]["function" if kind == "function" else "arguments"]
        if not _declares_function(program, reference["module"], reference["name"]):
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-unknown-function",
                    f"Tool '{tool['name']}' names the function '{reference['name']}' of module "
                    f"'{reference['module']}', which the linked program does not declare.",
                    path,
                    tool["name"],
                    {"module": reference["module"]},
                )
            )
    return DefinitionProblems(tools=tools, damaged=frozenset(damaged), diagnostics=diagnostics)


def check_agent_tools(definition: object, program: "Program") -> "list[NxAgentDiagnostic]":
    """The diagnostics that keep ``definition`` from running with ``program``; empty when it can.

    ``definition`` is a definition or a bare list of its tools (no format check then). Needs no
    executors and no request function: the problems reported are ``nx-agent-unsupported-format``,
    ``nx-agent-invalid-definition`` and ``nx-agent-unknown-function``.
    """
    return definition_problems(definition, program).diagnostics
