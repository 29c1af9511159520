"""What a tool takes from its function: schemas, default name and description, context parameters.

Shared by ``FunctionTool`` (field ``function``) and ``HttpTool`` (field ``arguments``); also the
name and description rules every tool follows (``agent-package.md`` §3.4–§3.7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._js import json_quote
from .._log_text import bounded
from .definition import NX_AGENT_TOOL_CONTEXT, ContextParameter, DeclarationName
from .describe import MISSING, copy_json, describe_value, is_empty, js_string, js_trim
from .names import TOOL_NAME_PATTERN_SOURCE, is_tool_name, to_snake_case
from .report import Report, subject_of

__all__ = [
    "AgentSchemaSource",
    "FunctionFacts",
    "function_reference",
    "read_function",
    "resolve_description",
    "resolve_name",
]


class AgentSchemaSource(Protocol):
    """Anything that answers the NX compiler's ``functionSchema`` query (``nx_agent.schema`` has several).

    The answer is a mapping with camelCase keys: ``description?``, ``parameters`` (each ``name``,
    ``typeRef?``, ``hostSupplied?``, ``hostSuppliedWithin?``), ``inputSchema?``, ``outputSchema?``,
    ``declaration?`` (a text span) and ``diagnostics`` (each with a ``message``). An unknown
    function is reported by raising an error whose ``diagnostics`` hold one with the code
    ``schema-unknown-declaration``.
    """

    def function_schema(
        self, ref: Mapping[str, str], *, host_supplied_types: Sequence[Mapping[str, str]] = ()
    ) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class FunctionFacts:
    """What a tool read from its function; ``name``/``description`` are ``None`` when they did not resolve."""

    reference: DeclarationName
    name: str | None
    description: str | None
    input_schema: dict[str, Any] | None
    output_schema: dict[str, Any] | None
    context_parameters: list[ContextParameter]
    result_reasons: list[str]
    declaration: dict[str, Any] = field(default_factory=dict)


def function_reference(value: object) -> DeclarationName | None:
    """``{module, name}`` of a canonical ``Function`` record, or ``None`` when ``value`` is not one."""
    if not isinstance(value, Mapping) or value.get("$type") != "Function":
        return None
    module, name = value.get("module"), value.get("name")
    if isinstance(module, str) and isinstance(name, str):
        return {"module": module, "name": name}
    return None


def _diagnostic_code(diagnostic: object) -> object:
    if isinstance(diagnostic, Mapping):
        return diagnostic.get("code")
    return getattr(diagnostic, "code", None)


def _is_unknown_declaration(error: BaseException) -> bool:
    diagnostics = getattr(error, "diagnostics", None)
    if not isinstance(diagnostics, (list, tuple)):
        return False
    return any(_diagnostic_code(diagnostic) == "schema-unknown-declaration" for diagnostic in diagnostics)


def _present(answer: Mapping[str, Any], key: str) -> Any:
    """A member of a schema answer, ``None`` when absent or ``None``."""
    held = answer.get(key)
    return None if held is MISSING else held


def _reason_message(reason: object) -> str:
    message = reason.get("message", MISSING) if isinstance(reason, Mapping) else getattr(reason, "message", MISSING)
    return js_string(message)


def _declaration_name(value: object) -> tuple[str, str] | None:
    if isinstance(value, Mapping):
        module, name = value.get("module"), value.get("name")
        if isinstance(module, str) and isinstance(name, str):
            return module, name
    return None


def resolve_name(
    report: Report,
    value: Mapping[str, Any],
    path: str,
    fallback: str,
    declaration: Mapping[str, Any] | None = None,
) -> str | None:
    """The authored ``name`` verbatim, else ``fallback``; a name off the pattern is reported, never converted."""
    authored = value.get("name", MISSING)
    if not is_empty(authored) and not isinstance(authored, str):
        report.error(
            "nx-agent-invalid-tool-name",
            f"{path}.name",
            f"The name of {path} is {describe_value(authored)}, not a string.",
        )
        return None
    if isinstance(authored, str):
        if is_tool_name(authored):
            return authored
        report.error(
            "nx-agent-invalid-tool-name",
            f"{path}.name",
            f"The tool name {json_quote(authored)} of {path} does not match {TOOL_NAME_PATTERN_SOURCE}.",
        )
        return None
    if is_tool_name(fallback):
        return fallback
    report.error(
        "nx-agent-invalid-tool-name",
        path,
        f"The name of {path} defaults to {json_quote(fallback)}, which does not match "
        f"{TOOL_NAME_PATTERN_SOURCE}; give the tool a name.",
        declaration=declaration,
    )
    return None


def resolve_description(
    report: Report,
    value: Mapping[str, Any],
    path: str,
    name: str | None,
    fallback: object,
    declaration: Mapping[str, Any] | None = None,
) -> str | None:
    """The authored ``description``, else ``fallback``; one missing or blank (JS ``trim``) is reported."""
    authored = value.get("description", MISSING)
    is_authored = isinstance(authored, str)
    description = authored if is_authored else (fallback if is_empty(authored) else None)
    if isinstance(description, str) and js_trim(description) != "":
        return description
    subject = subject_of(name, path)
    if is_authored:
        report.error("nx-agent-missing-description", f"{path}.description", f"{subject} has an empty description.", tool=name)
    else:
        message = (
            f"{subject} has no description."
            if declaration is None
            else f"{subject} has no description: give it one, or document its function with a '///' comment."
        )
        report.error("nx-agent-missing-description", path, message, tool=name, declaration=declaration)
    return None


#: The most characters of a function's or parameter's name a message about a parameter quotes.
MAX_QUOTED_NAME_CHARS = 200


def _context_parameters(
    report: Report,
    answer: Mapping[str, Any],
    reference: DeclarationName,
    tool_context_type: tuple[str, str] | None,
    subject: str,
    path: str,
    name: str | None,
    declaration: Mapping[str, Any],
) -> list[ContextParameter]:
    context_types = [(NX_AGENT_TOOL_CONTEXT["module"], NX_AGENT_TOOL_CONTEXT["name"])]
    if tool_context_type is not None:
        context_types.append(tool_context_type)
    recorded: list[ContextParameter] = []
    parameters = _present(answer, "parameters")
    # A message per parameter quotes the function's name: bounded, as a function of thousands of
    # parameters and a long name would otherwise make their number times its length.
    function_name = bounded(str(reference["name"]), MAX_QUOTED_NAME_CHARS)
    for parameter in parameters if isinstance(parameters, (list, tuple)) else ():
        if not isinstance(parameter, Mapping):
            continue
        parameter_name = parameter.get("name")
        type_ref = _declaration_name(_present(parameter, "typeRef"))
        host_supplied = _present(parameter, "hostSupplied")
        where = f"the parameter '{bounded(str(parameter_name), MAX_QUOTED_NAME_CHARS)}' of '{function_name}'"
        if host_supplied is None:
            within = _present(parameter, "hostSuppliedWithin")
            if isinstance(within, (list, tuple)) and len(within) > 0:
                report.error(
                    "nx-agent-context-parameter",
                    path,
                    f"{subject}: {where} holds a tool context without being one, so the model would be asked "
                    "for it. Declare the context as a parameter of its own.",
                    tool=name,
                    declaration=declaration,
                )
            continue
        if tool_context_type is None:
            report.error(
                "nx-agent-context-parameter",
                path,
                f"{subject}: {where} is a tool context, and the host named no tool context type, so it supplies none.",
                tool=name,
                declaration=declaration,
            )
        elif type_ref is None or type_ref not in context_types:
            declared = (
                "a tool context type the schema source does not name"
                if type_ref is None
                else f"'{bounded(type_ref[1], MAX_QUOTED_NAME_CHARS)}' of '{bounded(type_ref[0], MAX_QUOTED_NAME_CHARS)}'"
            )
            report.error(
                "nx-agent-context-parameter",
                path,
                f"{subject}: {where} is declared with {declared}, and the host supplies "
                f"'{tool_context_type[1]}' of '{tool_context_type[0]}'.",
                tool=name,
                declaration=declaration,
            )
        elif isinstance(parameter_name, str):
            recorded.append({"name": parameter_name, "type": {"module": type_ref[0], "name": type_ref[1]}})
    return recorded


def read_function(
    report: Report,
    schemas: AgentSchemaSource,
    tool_context_type: tuple[str, str] | None,
    value: Mapping[str, Any],
    path: str,
    field_name: str,
) -> FunctionFacts | None:
    """Read the function ``value[field_name]`` names; ``None`` only when there is no function to read.

    Raises whatever the schema source raises, except its report of an unknown function.
    """
    held = value.get(field_name, MISSING)
    reference = function_reference(held)
    if reference is None:
        report.error(
            "nx-agent-unknown-function" if field_name == "function" else "nx-agent-http-arguments-type",
            f"{path}.{field_name}",
            f"The '{field_name}' of {path} is {describe_value(held)}, not a function: "
            '{ $type: "Function", module, name }.',
        )
        return None
    try:
        answer = schemas.function_schema(
            {"module": reference["module"], "name": reference["name"]},
            host_supplied_types=(dict(NX_AGENT_TOOL_CONTEXT),),
        )
    except Exception as error:
        if not _is_unknown_declaration(error):
            raise
        report.error(
            "nx-agent-unknown-function",
            f"{path}.{field_name}",
            f"{path} names the function '{reference['name']}' of module '{reference['module']}', "
            "which the program does not declare.",
            declaration={"module": reference["module"]},
        )
        return None

    declaration: dict[str, Any] = {"module": reference["module"]}
    span = _present(answer, "declaration")
    if span is not None:
        declaration["span"] = copy_json(span)
    name = resolve_name(report, value, path, to_snake_case(reference["name"]), declaration)
    description = resolve_description(report, value, path, name, _present(answer, "description"), declaration)
    subject = subject_of(name, path)
    context_parameters = _context_parameters(
        report, answer, reference, tool_context_type, subject, path, name, declaration
    )

    input_schema = _present(answer, "inputSchema")
    output_schema = _present(answer, "outputSchema")
    held_reasons = _present(answer, "diagnostics")
    reasons = [_reason_message(reason) for reason in held_reasons] if isinstance(held_reasons, (list, tuple)) else []
    if input_schema is None:
        for reason in reasons or ["a parameter's type has no JSON form"]:
            report.error(
                "nx-agent-inexpressible-parameter", path, f"{subject}: {reason}", tool=name, declaration=declaration
            )
    return FunctionFacts(
        reference=reference,
        name=name,
        description=description,
        input_schema=None if input_schema is None else copy_json(input_schema),
        output_schema=None if output_schema is None else copy_json(output_schema),
        context_parameters=context_parameters,
        result_reasons=reasons if input_schema is not None and output_schema is None else [],
        declaration=declaration,
    )
