"""How a tool of a definition reads over MCP: its ``tools/list`` entry and its output.

On protocol 2026-07-28 (and later) an output schema may be any JSON Schema and
``structuredContent`` any JSON value, so both go out exactly as the definition holds them.
The handshake-era versions (2024-11-05 … 2025-11-25) require an object: there a tool whose output
schema is not an object schema (``"type": "object"`` at its root; ``find_plans`` answers an array)
is listed with an object schema holding the stored one as its ``result`` property, and its output
is sent as ``{"result": output}``. A tool with no output schema sends its output as
``structuredContent`` there only when the output is an object (otherwise only the text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["HANDSHAKE_VERSIONS", "is_object_schema", "listed_tool", "structured_output", "wraps_output"]

HANDSHAKE_VERSIONS = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
"""The protocol versions on which ``structuredContent`` and output schemas must be objects."""

_HOISTED = ("$defs", "definitions")
_LISTED_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


def is_object_schema(schema: object) -> bool:
    """Whether ``schema`` has ``"type": "object"`` at its root (what MCP before 2026-07-28 requires)."""
    return isinstance(schema, Mapping) and schema.get("type") == "object"


def wraps_output(tool: Mapping[str, Any], protocol_version: str) -> bool:
    """Whether the tool's output goes out as ``{"result": output}`` on this protocol version."""
    schema = tool.get("outputSchema")
    return protocol_version in HANDSHAKE_VERSIONS and schema is not None and not is_object_schema(schema)


def _wrapped_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An object schema whose ``result`` property is ``schema``. ``$defs`` (and ``definitions``) move
    to the root so that ``#/$defs/...`` references still resolve; a schema with its own ``$id`` is
    a resource of its own and is nested whole."""
    inner = dict(schema)
    wrapper: dict[str, Any] = {}
    if "$id" not in inner:
        if "$schema" in inner:
            wrapper["$schema"] = inner.pop("$schema")
        hoisted = {key: inner.pop(key) for key in _HOISTED if key in inner}
    else:
        hoisted = {}
    wrapper.update(
        {"type": "object", "properties": {"result": inner}, "required": ["result"], "additionalProperties": False}
    )
    wrapper.update(hoisted)
    return wrapper


def listed_tool(tool: Mapping[str, Any], protocol_version: str) -> dict[str, Any]:
    """The tool's ``tools/list`` entry (wire keys): name, title (when the definition has one),
    description, inputSchema, outputSchema (when it has one) and annotations, as stored; on a
    handshake-era version a non-object output schema is wrapped (module docstring)."""
    listed = {key: tool[key] for key in _LISTED_KEYS if key in tool}
    if wraps_output(tool, protocol_version):
        listed["outputSchema"] = _wrapped_schema(tool["outputSchema"])
    return listed


def structured_output(tool: Mapping[str, Any], output: Any, protocol_version: str) -> tuple[bool, Any]:
    """``(present, value)``: whether a successful call sends ``structuredContent``, and what."""
    if protocol_version not in HANDSHAKE_VERSIONS:
        return True, output
    if wraps_output(tool, protocol_version):
        return True, {"result": output}
    if isinstance(output, dict) or tool.get("outputSchema") is not None:
        return True, output
    return False, None
