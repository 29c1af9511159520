"""The normalized definition format (version 1): constants and the shapes of its parts.

A definition is plain JSON: dicts, lists, strings, numbers and booleans, with the key orders of
the reference format (see ``agent-package.md`` §2). The ``TypedDict`` classes of :mod:`nx_agent.agent.shapes` describe it for
type checkers; at run time a definition is an ordinary ``dict``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal


if TYPE_CHECKING:
    from .shapes import (
        DeclarationName,
        ToolAnnotations,
        ContextParameter,
        FunctionToolConfig,
        HttpConnectionConfig,
        HttpToolConfig,
        ProviderToolConfig,
        NormalizedFunctionTool,
        NormalizedHttpTool,
        NormalizedProviderTool,
        NormalizedHostTool,
        NormalizedAgent,
        NormalizedTool,
    )

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

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        # The TypedDict shapes are made when first read (agent/shapes.py): a cold start runs none of
        # typing's work for them.
        if name in {'NormalizedFunctionTool', 'ToolAnnotations', 'NormalizedHttpTool', 'ProviderToolConfig', 'NormalizedTool', 'NormalizedProviderTool', 'DeclarationName', 'ContextParameter', 'NormalizedAgent', 'HttpToolConfig', 'NormalizedHostTool', 'HttpConnectionConfig', 'FunctionToolConfig'}:
            from . import shapes

            return getattr(shapes, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    from .._js import json_text
    from ..json_tree import read_json_tree

    return json_text(read_json_tree(definition))
