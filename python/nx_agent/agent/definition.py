"""The normalized definition format (version 1): constants and the shapes of its parts.

A definition is plain JSON: dicts, lists, strings, numbers and booleans, with the key orders of
the reference format (see ``agent-package.md`` §2). The ``TypedDict`` classes below describe it for
type checkers; at run time a definition is an ordinary ``dict``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, TypedDict, Union

from .._js import json_text
from ..json_tree import read_json_tree

__all__ = [
    "AGENT_DEFINITION_FORMAT_VERSION",
    "ContextParameter",
    "DeclarationName",
    "FunctionToolConfig",
    "HttpConnectionConfig",
    "HttpToolConfig",
    "JSON_SCHEMA_DIALECT",
    "NX_AGENT_TOOL_CONTEXT",
    "NormalizedAgent",
    "NormalizedFunctionTool",
    "NormalizedHostTool",
    "NormalizedHttpTool",
    "NormalizedProviderTool",
    "NormalizedTool",
    "PACKAGE_TOOL_KINDS",
    "ProviderToolConfig",
    "ToolAnnotations",
    "WEB_SEARCH_DEFAULT_DESCRIPTION",
    "WEB_SEARCH_DEFAULT_NAME",
    "definition_text",
    "empty_object_schema",
    "http_output_schema",
    "is_function_tool",
    "is_http_tool",
    "is_provider_tool",
]

AGENT_DEFINITION_FORMAT_VERSION: Literal[1] = 1
"""The format version every definition written here carries."""

NX_AGENT_TOOL_CONTEXT: Mapping[str, str] = MappingProxyType(
    {"module": "@nx/agent/agent.nx", "name": "ToolContext"}
)
"""The library's abstract ``ToolContext`` record, by module identity and name (read-only)."""

PACKAGE_TOOL_KINDS: tuple[str, str, str] = ("function", "http", "provider")
"""The kinds the package writes itself; a host kind is any other string."""

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The ``$schema`` of the schemas the package writes itself."""

WEB_SEARCH_DEFAULT_NAME = "web_search"
WEB_SEARCH_DEFAULT_DESCRIPTION = "Searches the web and returns relevant results."


class DeclarationName(TypedDict):
    """A declaration by module identity and name, as a canonical ``Function`` record names one."""

    module: str
    name: str


class ToolAnnotations(TypedDict):
    """The four MCP hints, in this key order."""

    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ContextParameter(TypedDict):
    """A parameter the host fills with its tool context record."""

    name: str
    type: DeclarationName


class FunctionToolConfig(TypedDict):
    """``config`` of a ``function`` tool: ``{function, contextParameters}``."""

    function: DeclarationName
    contextParameters: list[ContextParameter]


class HttpConnectionConfig(TypedDict):
    """A connection as an ``http`` tool stores it: ``baseUrl`` without a trailing ``/``."""

    name: str
    baseUrl: str


class _HttpToolConfigRequired(TypedDict):
    arguments: DeclarationName
    contextParameters: list[ContextParameter]
    connection: HttpConnectionConfig
    method: Literal["get", "post", "put", "patch", "delete"]
    path: str
    pathPlaceholders: list[str]


class HttpToolConfig(_HttpToolConfigRequired, total=False):
    """``config`` of an ``http`` tool; ``maxCallsPerConversation`` (last) only when authored."""

    maxCallsPerConversation: float


class _ProviderToolConfigRequired(TypedDict):
    provider: Literal["web_search"]


class ProviderToolConfig(_ProviderToolConfigRequired, total=False):
    """``config`` of a ``provider`` tool; ``allowedDomains`` only when non-empty."""

    allowedDomains: list[str]


class _ToolHead(TypedDict):
    name: str
    description: str
    inputSchema: dict[str, Any]


class _ToolTail(TypedDict):
    annotations: ToolAnnotations


class _OptionalOutput(TypedDict, total=False):
    outputSchema: dict[str, Any]


class NormalizedFunctionTool(_ToolHead, _ToolTail, _OptionalOutput):
    """A ``FunctionTool``: ``name, description, inputSchema, outputSchema?, annotations, kind, config``."""

    kind: Literal["function"]
    config: FunctionToolConfig


class NormalizedHttpTool(_ToolHead, _ToolTail):
    """An ``HttpTool``: its ``outputSchema`` is always the fixed HTTP output schema."""

    outputSchema: dict[str, Any]
    kind: Literal["http"]
    config: HttpToolConfig


class NormalizedProviderTool(_ToolHead, _ToolTail):
    """A ``WebSearchTool``: no ``outputSchema``, no ``execute``; the model's provider runs it."""

    kind: Literal["provider"]
    config: ProviderToolConfig


class _HostToolOptional(TypedDict, total=False):
    title: str
    outputSchema: dict[str, Any]


class NormalizedHostTool(_ToolHead, _ToolTail, _HostToolOptional):
    """A tool of a host kind, as its describer described it (``title`` only from a describer)."""

    kind: str
    config: dict[str, Any]


NormalizedTool = Union[NormalizedFunctionTool, NormalizedHttpTool, NormalizedProviderTool, NormalizedHostTool]


class _LimitsShape(TypedDict, total=False):
    maxSteps: float
    maxToolCalls: float


class _DocumentShape(TypedDict):
    title: str
    text: str


class _AgentRequired(TypedDict):
    formatVersion: int
    name: str
    instructions: str
    documents: list[_DocumentShape]
    limits: _LimitsShape
    tools: list[NormalizedTool]


class NormalizedAgent(_AgentRequired, total=False):
    """A definition: ``formatVersion, name, description?, model?, instructions, documents, limits, tools``."""

    description: str
    model: str


def is_function_tool(tool: object) -> bool:
    """Whether ``tool`` is a dict whose ``kind`` is ``function``."""
    return isinstance(tool, Mapping) and tool.get("kind") == "function"


def is_http_tool(tool: object) -> bool:
    """Whether ``tool`` is a dict whose ``kind`` is ``http``."""
    return isinstance(tool, Mapping) and tool.get("kind") == "http"


def is_provider_tool(tool: object) -> bool:
    """Whether ``tool`` is a dict whose ``kind`` is ``provider``."""
    return isinstance(tool, Mapping) and tool.get("kind") == "provider"


def empty_object_schema() -> dict[str, Any]:
    """A fresh schema of an object with no properties: the input of a tool that takes none."""
    return {"$schema": JSON_SCHEMA_DIALECT, "type": "object", "properties": {}, "additionalProperties": False}


def http_output_schema() -> dict[str, Any]:
    """A fresh output schema of every ``http`` tool: an open object with an integer ``status``."""
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "type": "object",
        "properties": {"status": {"type": "integer"}, "body": {}},
        "required": ["status"],
    }


def definition_text(definition: Mapping[str, Any]) -> str:
    """The text a host stores for a definition, byte for byte what the npm package stores.

    That is ``JSON.stringify(definition)``: compact, no spaces, non-ASCII characters written as
    themselves. ``json.loads(definition_text(d)) == d`` for every definition ``normalize_agent`` returns.
    Raises :class:`~nx_agent.json_tree.HostValueError` (an ``NxError`` and a ``TypeError``) for a value
    that is not a JSON tree of at most 256 levels.
    """
    return json_text(read_json_tree(definition))
