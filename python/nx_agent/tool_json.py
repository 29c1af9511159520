"""An agent definition's tools in the function-calling formats of model providers.

- :func:`to_openai_tools`: OpenAI function tools, for the Chat Completions API
  (``{"type": "function", "function": {...}}``) or the Responses API (flat).
- :func:`to_anthropic_tools`: Anthropic custom tools (``name``, ``description``,
  ``input_schema``).

Each returns a :class:`ToolExport`: the tools as plain dicts, in definition order, and the
:class:`NameProblem` list of names the provider's own rule refuses (OpenAI
``^[a-zA-Z0-9_-]{1,64}$``, Anthropic ``^[a-zA-Z0-9_-]{1,128}$``; a tool whose name is refused is
still exported, the host decides). Schemas are passed as the definition stores them.

Provider tools (``kind == "provider"``, web search) run at the model's provider, so only the host
knows the provider's own tool for them: ``provider_tool(tool)`` answers a dict to put in their
place, or ``None`` to leave the tool out. Without ``provider_tool`` a provider tool raises
:class:`ToolExportError` naming it, as the reference's AI SDK adapter does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import NxError

__all__ = [
    "ANTHROPIC_TOOL_NAME",
    "NameProblem",
    "OPENAI_TOOL_NAME",
    "ToolExport",
    "ToolExportError",
    "strict_schema_qualifies",
    "to_anthropic_tools",
    "to_openai_tools",
    "tool_fields",
]

OPENAI_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
ANTHROPIC_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")

ProviderToolMapper = Callable[[Mapping[str, Any]], "dict[str, Any] | None"]


class ToolExportError(NxError):
    """A tool cannot be put in a provider's format (a provider tool with no mapping)."""

    def __init__(self, message: str, tool: str) -> None:
        super().__init__(message)
        self.code = "nx-agent-tool-export"
        self.tool = tool


@dataclass(frozen=True)
class NameProblem:
    """A tool name that a provider's name rule refuses."""

    tool: str
    provider: str
    rule: str
    message: str


@dataclass
class ToolExport:
    """Tools in one provider's format, and the names its rule refuses."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    problems: list[NameProblem] = field(default_factory=list)


def tool_fields(tool: Any) -> Mapping[str, Any]:
    """The definition fields of a tool: a definition's tool dict, or a created agent tool."""
    if isinstance(tool, Mapping):
        return tool
    definition = getattr(tool, "definition", None)
    if isinstance(definition, Mapping):
        return definition
    raise TypeError(f"{tool!r} is not a tool of an agent definition")


def _tools_of(source: Any) -> list[Mapping[str, Any]]:
    if isinstance(source, Mapping):
        tools = source.get("tools")
        if not isinstance(tools, list):
            raise TypeError("the definition has no 'tools' list")
        return [tool_fields(t) for t in tools]
    if isinstance(source, Iterable) and not isinstance(source, (str, bytes)):
        return [tool_fields(t) for t in source]
    raise TypeError("expected an agent definition or a list of its tools")


_STRICT_KEYWORDS = frozenset(
    {
        "$schema", "$defs", "$ref", "type", "properties", "required", "additionalProperties",
        "items", "anyOf", "enum", "const", "description", "title", "pattern", "format",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minItems", "maxItems",
    }
)  # fmt: skip


def strict_schema_qualifies(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts ``schema`` as it is, with no rewriting.

    Strict mode needs an object at the root, every object closed (``additionalProperties:
    false``) with every property required, and only the keywords it supports.
    """
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return False
    return _strict_node(schema, depth=0)


def _strict_node(node: Any, depth: int) -> bool:
    if depth > 100:
        return False
    if isinstance(node, bool):
        return False  # `true` / `false` schemas are not in the strict subset
    if not isinstance(node, Mapping):
        return False
    if any(key not in _STRICT_KEYWORDS for key in node):
        return False
    properties = node.get("properties")
    if properties is not None or node.get("type") == "object":
        if node.get("additionalProperties") is not False:
            return False
        props = properties if isinstance(properties, Mapping) else {}
        required = node.get("required", [])
        if not isinstance(required, list) or sorted(required) != sorted(props):
            return False
        if not all(_strict_node(sub, depth + 1) for sub in props.values()):
            return False
    for key in ("items",):
        if key in node and not _strict_node(node[key], depth + 1):
            return False
    for key in ("anyOf",):
        if key in node:
            options = node[key]
            if not isinstance(options, list) or not all(
                _strict_node(sub, depth + 1) for sub in options
            ):
                return False
    defs = node.get("$defs")
    if defs is not None:
        if not isinstance(defs, Mapping) or not all(
            _strict_node(sub, depth + 1) for sub in defs.values()
        ):
            return False
    return True


def _provider_tool(
    tool: Mapping[str, Any], provider_tool: ProviderToolMapper | None
) -> dict[str, Any] | None:
    name = str(tool.get("name"))
    if provider_tool is None:
        raise ToolExportError(
            f"Tool '{name}' is run by the model's provider, and 'provider_tool' gave no tool "
            "for it. Map it to the provider's tool, or answer None to leave it out.",
            name,
        )
    return provider_tool(tool)


def _check_name(
    export: ToolExport, name: Any, provider: str, rule: re.Pattern[str]
) -> None:
    if not isinstance(name, str) or rule.fullmatch(name) is None:
        export.problems.append(
            NameProblem(
                tool=str(name),
                provider=provider,
                rule=rule.pattern,
                message=f"The tool name {name!r} does not match ^{rule.pattern}$, "
                f"which {provider} requires.",
            )
        )


def _export(
    definition_or_tools: Any,
    provider_tool: ProviderToolMapper | None,
    provider: str,
    rule: re.Pattern[str],
    write: Callable[[Any, Mapping[str, Any]], dict[str, Any]],
) -> ToolExport:
    """The tools in definition order: each one the host runs as ``write(name, tool)``, its name
    checked against ``rule``; each provider tool as ``provider_tool`` maps it."""
    export = ToolExport()
    for tool in _tools_of(definition_or_tools):
        if tool.get("kind") == "provider":
            mapped = _provider_tool(tool, provider_tool)
            if mapped is not None:
                export.tools.append(mapped)
            continue
        name = tool.get("name")
        _check_name(export, name, provider, rule)
        export.tools.append(write(name, tool))
    return export


def to_openai_tools(
    definition_or_tools: Any,
    *,
    api: Literal["chat", "responses"] = "chat",
    strict: bool | None = None,
    provider_tool: ProviderToolMapper | None = None,
) -> ToolExport:
    """The tools as OpenAI function tools.

    ``strict=None`` turns strict mode on for exactly the tools whose input schema qualifies
    (:func:`strict_schema_qualifies`); ``True`` or ``False`` sets it for every tool.
    """
    if api not in ("chat", "responses"):
        raise ValueError("api must be 'chat' or 'responses'")

    def write(name: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        schema = tool.get("inputSchema")
        is_strict = strict_schema_qualifies(schema) if strict is None else strict
        function = {
            "name": name,
            "description": tool.get("description"),
            "parameters": schema,
            "strict": is_strict,
        }
        if api == "chat":
            return {"type": "function", "function": function}
        return {"type": "function", **function}

    return _export(definition_or_tools, provider_tool, "OpenAI", OPENAI_TOOL_NAME, write)


def to_anthropic_tools(
    definition_or_tools: Any, *, provider_tool: ProviderToolMapper | None = None
) -> ToolExport:
    """The tools as Anthropic custom tools (``name``, ``description``, ``input_schema``)."""

    def write(name: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "name": name,
            "description": tool.get("description"),
            "input_schema": tool.get("inputSchema"),
        }

    return _export(definition_or_tools, provider_tool, "Anthropic", ANTHROPIC_TOOL_NAME, write)
