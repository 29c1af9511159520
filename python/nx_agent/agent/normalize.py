"""``normalize_agent``: an evaluated ``Agent`` value into a definition, or the diagnostics that say why not.

The compile-time half of the agent layer (``agent-package.md`` §3). It loads no compiler: the host
passes a schema source that answers the NX compiler's ``functionSchema`` query.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._js import json_quote
from ..json_tree import HostValueError, json_chars_within, read_json_tree
from .definition import AGENT_DEFINITION_FORMAT_VERSION
from .describe import MISSING, describe_value, is_empty, is_number
from .diagnostics import NxAgentDiagnostic
from .host_tools import ToolDescriber, describe_host_tool
from .report import Report
from .tool_functions import AgentSchemaSource
from .tools import normalize_function_tool, normalize_http_tool, normalize_web_search_tool

__all__ = ["NormalizeAgentResult", "normalize_agent"]

_PACKAGE_TOOL_TYPES = ("FunctionTool", "HttpTool", "WebSearchTool")


@dataclass(frozen=True)
class NormalizeAgentResult:
    """``ok`` with a ``definition`` (warnings possible), or not ``ok`` with ``definition`` ``None``."""

    ok: bool
    definition: dict[str, Any] | None
    diagnostics: list[NxAgentDiagnostic] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{ok, definition, diagnostics}``, or ``{ok, diagnostics}`` when not ``ok``, as the reference answers."""
        out: dict[str, Any] = {"ok": self.ok}
        if self.definition is not None:
            out["definition"] = self.definition
        out["diagnostics"] = [diagnostic.to_dict() for diagnostic in self.diagnostics]
        return out


def _required_string(report: Report, value: Mapping[str, Any], key: str, path: str, owner: str) -> str | None:
    held = value.get(key, MISSING)
    if isinstance(held, str):
        return held
    got = "missing" if held is MISSING else describe_value(held)
    report.error("nx-agent-not-an-agent", path, f"The value is not a well-formed {owner}: '{key}' is {got}, not a string.")
    return None


def _optional_string(report: Report, value: Mapping[str, Any], key: str) -> str | None:
    held = value.get(key, MISSING)
    if is_empty(held):
        return None
    if isinstance(held, str):
        return held
    report.error(
        "nx-agent-not-an-agent", key, f"The value is not a well-formed Agent: '{key}' is {describe_value(held)}, not a string."
    )
    return None


def _optional_list(report: Report, value: Mapping[str, Any], key: str) -> list[Any]:
    held = value.get(key, MISSING)
    if is_empty(held):
        return []
    if isinstance(held, (list, tuple)):
        return list(held)
    report.error(
        "nx-agent-not-an-agent", key, f"The value is not a well-formed Agent: '{key}' is {describe_value(held)}, not a list."
    )
    return []


def _documents(report: Report, value: Mapping[str, Any]) -> list[dict[str, str]]:
    documents: list[dict[str, str]] = []
    titles: dict[str, int] = {}
    for index, document in enumerate(_optional_list(report, value, "documents")):
        path = f"documents[{index}]"
        if not isinstance(document, Mapping):
            report.error(
                "nx-agent-not-an-agent",
                path,
                f"The value is not a well-formed Agent: {path} is {describe_value(document)}, not a Document.",
            )
            continue
        title = _required_string(report, document, "title", f"{path}.title", "Document")
        text = _required_string(report, document, "text", f"{path}.text", "Document")
        if title is None or text is None:
            continue
        first = titles.setdefault(title, index)
        if first != index:
            report.error(
                "nx-agent-duplicate-document-title",
                f"{path}.title",
                f"The document title {json_quote(title)} is used by documents[{first}] and {path}; "
                "each title names one document.",
            )
        documents.append({"title": title, "text": text})
    return documents


def _limits(report: Report, value: Mapping[str, Any]) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    authored = value.get("limits", MISSING)
    if isinstance(authored, Mapping):
        for key in ("maxSteps", "maxToolCalls"):
            held = authored.get(key, MISSING)
            if is_number(held):
                limits[key] = held
            elif not is_empty(held):
                report.error(
                    "nx-agent-not-an-agent",
                    f"limits.{key}",
                    f"The value is not a well-formed Agent: 'limits.{key}' is {describe_value(held)}, not a number.",
                )
    elif not is_empty(authored):
        report.error(
            "nx-agent-not-an-agent",
            "limits",
            f"The value is not a well-formed Agent: 'limits' is {describe_value(authored)}, not an AgentLimits.",
        )
    return limits


def _tool_context_type(option: Mapping[str, str] | None) -> tuple[str, str] | None:
    if option is None:
        return None
    module, name = option.get("module"), option.get("name")
    if not isinstance(module, str) or not isinstance(name, str):
        raise TypeError("tool_context_type must be a mapping with a string 'module' and a string 'name'")
    return module, name


def _duplicates(report: Report, placed: list[tuple[dict[str, Any], str]]) -> None:
    paths_by_name: dict[str, list[str]] = {}
    for tool, path in placed:
        paths_by_name.setdefault(tool["name"], []).append(path)
    for name, paths in paths_by_name.items():
        if len(paths) > 1:
            report.error(
                "nx-agent-duplicate-tool-name",
                paths[-1],
                f"The tool name '{name}' is used by {', '.join(paths[:-1])} and {paths[-1]}; "
                "each tool of an agent needs its own name.",
                tool=name,
            )


def normalize_agent(
    value: object,
    *,
    schemas: AgentSchemaSource,
    tool_context_type: Mapping[str, str] | None = None,
    tool_types: Mapping[str, ToolDescriber] | None = None,
    allow_insecure_base_url: bool = False,
    max_chars: int | None = None,
) -> NormalizeAgentResult:
    """Turn an evaluated ``Agent`` into a definition (format version 1), reporting every problem in one pass.

    ``schemas`` answers ``function_schema`` for each ``FunctionTool`` function and ``HttpTool``
    arguments function; ``tool_context_type`` is ``{"module", "name"}`` of the host's concrete
    ``ToolContext`` subtype (``None``: the host supplies no context); ``tool_types`` maps a host
    tool ``$type`` to its describer; ``allow_insecure_base_url`` admits ``http:`` base URLs (only
    ``True`` does); ``max_chars`` bounds the JSON text its tools and their diagnostics may take
    together (``None``: no bound): past it, ``nx-agent-definition-too-large`` and no more tools are
    read, since many tools can name one function and each holds a copy of its schemas.

    With any error the result is not ``ok`` and has no definition; warnings alone leave it ``ok``.
    The definition is plain JSON sharing nothing with ``value`` or the schema answers; store it as
    :func:`definition_text` writes it. Raises whatever ``schemas`` or a describer raises, except the
    schema source's report of an unknown function, which becomes a diagnostic.
    """
    report = Report()
    try:
        # Read as the runtime reads a host value: from storage, at most 256 levels, no cycles.
        value = read_json_tree(value, strict=False)
    except HostValueError as error:
        report.error("nx-agent-not-an-agent", "", f"The value cannot be read as an 'Agent': {error}")
        return NormalizeAgentResult(ok=False, definition=None, diagnostics=report.diagnostics)
    if not isinstance(value, Mapping) or value.get("$type") != "Agent":
        report.error("nx-agent-not-an-agent", "", f"The value is {describe_value(value)}, not an 'Agent'.")
        return NormalizeAgentResult(ok=False, definition=None, diagnostics=report.diagnostics)

    describers: Mapping[str, ToolDescriber] = tool_types if tool_types is not None else {}
    for type_name in describers:
        if type_name in _PACKAGE_TOOL_TYPES:
            report.error(
                "nx-agent-describer",
                "",
                f"A describer is registered for '{type_name}', which the package describes itself.",
            )
    context_type = _tool_context_type(tool_context_type)
    insecure = allow_insecure_base_url is True

    name = _required_string(report, value, "name", "name", "Agent")
    description = _optional_string(report, value, "description")
    model = _optional_string(report, value, "model")
    instructions = _required_string(report, value, "instructions", "instructions", "Agent")
    documents = _documents(report, value)
    limits = _limits(report, value)

    placed: list[tuple[dict[str, Any], str]] = []
    left = max_chars
    for index, tool in enumerate(_optional_list(report, value, "tools")):
        path = f"tools[{index}]"
        if left is not None:
            made_before, reported_before = len(placed), len(report.diagnostics)
        tool_type = tool.get("$type") if isinstance(tool, Mapping) else None
        if not isinstance(tool, Mapping) or not isinstance(tool_type, str):
            report.error("nx-agent-unknown-tool-type", path, f"{path} is {describe_value(tool)}, not a tool.")
            continue
        normalized: list[dict[str, Any] | None]
        if tool_type == "FunctionTool":
            normalized = [normalize_function_tool(report, schemas, context_type, tool, path)]
        elif tool_type == "WebSearchTool":
            normalized = [normalize_web_search_tool(report, tool, path)]
        elif tool_type == "HttpTool":
            normalized = [normalize_http_tool(report, schemas, context_type, insecure, tool, path)]
        else:
            describer = describers.get(tool_type)
            if describer is None:
                report.error(
                    "nx-agent-unknown-tool-type",
                    path,
                    f"{path} is a '{tool_type}', and no describer is registered for that tool type.",
                )
                continue
            normalized = list(describe_host_tool(report, schemas, describer, tool, tool_type, path))
        placed.extend((one, path) for one in normalized if one is not None)
        if left is not None:
            made: list[Any] = [one for one, _ in placed[made_before:]]
            made += [d.message for d in report.diagnostics[reported_before:]]
            spent = json_chars_within(made, left)
            if spent is None:
                report.error(
                    "nx-agent-definition-too-large",
                    path,
                    f"The agent's tools would take more than {max_chars:,} characters of JSON by {path}, "
                    "so the tools from there on are not read.",
                )
                break
            left -= spent

    _duplicates(report, placed)

    if report.error_count > 0 or name is None or instructions is None:
        return NormalizeAgentResult(ok=False, definition=None, diagnostics=report.diagnostics)
    definition: dict[str, Any] = {"formatVersion": AGENT_DEFINITION_FORMAT_VERSION, "name": name}
    if description is not None:
        definition["description"] = description
    if model is not None:
        definition["model"] = model
    definition["instructions"] = instructions
    definition["documents"] = documents
    definition["limits"] = limits
    definition["tools"] = [tool for tool, _ in placed]
    return NormalizeAgentResult(ok=True, definition=definition, diagnostics=report.diagnostics)
