"""Tools of a host's own types, described by the host's describers (§3.12)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from .annotations import ANNOTATION_HINTS
from .definition import PACKAGE_TOOL_KINDS
from .describe import MISSING, copy_json, describe_value, is_json_object, js_string, json_problem
from .report import Report
from .tool_functions import AgentSchemaSource, resolve_description, resolve_name

__all__ = ["ToolDescriber", "ToolDescriberContext", "ToolDescription", "describe_host_tool"]

ToolDescription = Mapping[str, Any]
"""One tool a describer returns: ``name, title?, description, inputSchema, outputSchema?, annotations, kind, config``."""

ToolDescriber = Callable[
    [Mapping[str, Any], "ToolDescriberContext"],
    Union[ToolDescription, Sequence[ToolDescription], Mapping[str, Any]],
]
"""Describes one tool value of a host type: one description, a list of them, or ``{"diagnostics": [{"message"}]}``."""


@dataclass(frozen=True)
class ToolDescriberContext:
    """What a describer is given beside the tool value: the schema source, ``to_snake_case`` and the path."""

    schemas: AgentSchemaSource
    to_snake_case: Callable[[str], str]
    path: str


def _description_problem(description: object) -> str | None:
    if not is_json_object(description):
        return f"it returned {describe_value(description)}, not a tool description"
    assert isinstance(description, Mapping)
    name = description.get("name", MISSING)
    if not isinstance(name, str):
        return "the description has no 'name'"
    title = description.get("title", MISSING)
    if title is not MISSING and not isinstance(title, str):
        return f"the 'title' of '{name}' is not a string"
    kind = description.get("kind", MISSING)
    if not isinstance(kind, str) or kind == "":
        return f"'{name}' has no 'kind'"
    if kind in PACKAGE_TOOL_KINDS:
        return f"'{name}' has the kind '{kind}', which is the package's own"
    input_schema = description.get("inputSchema", MISSING)
    if not is_json_object(input_schema):
        return f"'{name}' has no 'inputSchema'"
    output_schema = description.get("outputSchema", MISSING)
    if output_schema is not MISSING and not is_json_object(output_schema):
        return f"the 'outputSchema' of '{name}' is not a schema"
    config = description.get("config", MISSING)
    if not is_json_object(config):
        return f"'{name}' has no 'config'"
    annotations = description.get("annotations", MISSING)
    if not isinstance(annotations, Mapping) or any(
        not isinstance(annotations.get(hint), bool) for hint in ANNOTATION_HINTS
    ):
        return f"'{name}' does not carry the four boolean annotations"
    return (
        json_problem(input_schema, f"the 'inputSchema' of '{name}'")
        or json_problem(None if output_schema is MISSING else output_schema, f"the 'outputSchema' of '{name}'")
        or json_problem(config, f"the 'config' of '{name}'")
    )


def describe_host_tool(
    report: Report,
    schemas: AgentSchemaSource,
    describer: ToolDescriber,
    value: Mapping[str, Any],
    type_name: str,
    path: str,
) -> list[dict[str, Any]]:
    """The tools a describer gives for one element; none at all when it had any error.

    Whatever the describer raises propagates.
    """
    from .names import to_snake_case

    returned: object = describer(value, ToolDescriberContext(schemas=schemas, to_snake_case=to_snake_case, path=path))
    if (
        isinstance(returned, Mapping)
        and isinstance(returned.get("diagnostics"), (list, tuple))
        and "name" not in returned
    ):
        reasons = list(returned["diagnostics"]) or [{"message": "it reported no reason"}]
        for reason in reasons:
            message = reason.get("message", MISSING) if isinstance(reason, Mapping) else MISSING
            report.error(
                "nx-agent-describer", path, f"The describer of '{type_name}' refused {path}: {js_string(message)}"
            )
        return []
    descriptions: list[object] = list(returned) if isinstance(returned, (list, tuple)) else [returned]
    if not descriptions:
        report.error("nx-agent-describer", path, f"The describer of '{type_name}' described no tool for {path}.")
        return []

    tools: list[dict[str, Any]] = []
    errors_before = report.error_count
    for candidate in descriptions:
        problem = _description_problem(candidate)
        if problem is not None:
            report.error("nx-agent-describer", path, f"The describer of '{type_name}' cannot be used for {path}: {problem}.")
            continue
        assert isinstance(candidate, Mapping)
        # The authored fields override a single description's; several have no single name to override.
        authored: Mapping[str, Any] = value if len(descriptions) == 1 else {}
        name = resolve_name(report, authored, path, candidate["name"])
        text = resolve_description(report, authored, path, name, candidate.get("description", MISSING))
        if name is None or text is None:
            continue
        tool: dict[str, Any] = {"name": name}
        if "title" in candidate:
            tool["title"] = candidate["title"]
        tool["description"] = text
        tool["inputSchema"] = copy_json(candidate["inputSchema"])
        if "outputSchema" in candidate:
            tool["outputSchema"] = copy_json(candidate["outputSchema"])
        annotations = candidate["annotations"]
        tool["annotations"] = {hint: annotations[hint] for hint in ANNOTATION_HINTS}
        tool["kind"] = candidate["kind"]
        tool["config"] = copy_json(candidate["config"])
        tools.append(tool)
    return [] if report.error_count > errors_before else tools
