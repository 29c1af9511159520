"""The four MCP hints of each tool type, fixed by the type and never authored.

Every table is read-only (a :class:`types.MappingProxyType`); a definition holds a plain copy.
Key order is ``readOnlyHint, destructiveHint, idempotentHint, openWorldHint``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

__all__ = [
    "ANNOTATION_HINTS",
    "FUNCTION_TOOL_ANNOTATIONS",
    "HTTP_TOOL_METHODS",
    "HttpToolMethod",
    "WEB_SEARCH_TOOL_ANNOTATIONS",
    "annotations_copy",
    "http_tool_annotations",
    "is_http_tool_method",
]

HttpToolMethod = Literal["get", "post", "put", "patch", "delete"]

ANNOTATION_HINTS: tuple[str, str, str, str] = (
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
)
"""The four hints, in the order a definition writes them."""


def _hints(read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> Mapping[str, bool]:
    return MappingProxyType(dict(zip(ANNOTATION_HINTS, (read_only, destructive, idempotent, open_world))))


FUNCTION_TOOL_ANNOTATIONS: Mapping[str, bool] = _hints(True, False, True, False)
"""A ``FunctionTool``: read-only, idempotent, closed-world."""

WEB_SEARCH_TOOL_ANNOTATIONS: Mapping[str, bool] = _hints(True, False, True, True)
"""A ``WebSearchTool``: read-only, idempotent, open-world."""

HTTP_TOOL_METHODS: tuple[HttpToolMethod, ...] = ("get", "post", "put", "patch", "delete")
"""The methods of an ``HttpTool``, lower-case, as the ``HttpMethod`` enum writes them."""

_HTTP_TOOL_ANNOTATIONS: Mapping[str, Mapping[str, bool]] = MappingProxyType(
    {
        "get": _hints(True, False, True, True),
        "post": _hints(False, True, False, True),
        "put": _hints(False, True, True, True),
        "patch": _hints(False, True, False, True),
        "delete": _hints(False, True, True, True),
    }
)


def is_http_tool_method(value: object) -> bool:
    """Whether ``value`` is exactly one of the five lower-case method strings."""
    return isinstance(value, str) and value in _HTTP_TOOL_ANNOTATIONS


def http_tool_annotations(method: HttpToolMethod | str) -> Mapping[str, bool]:
    """The hints of an ``HttpTool`` with ``method``: only ``get`` is read-only; ``put`` and ``delete`` are idempotent.

    Raises ``KeyError`` for anything but the five methods.
    """
    return _HTTP_TOOL_ANNOTATIONS[method]


def annotations_copy(annotations: Mapping[str, object]) -> dict[str, bool]:
    """A plain dict of the four hints in canonical order, as a definition holds them."""
    return {hint: bool(annotations[hint]) for hint in ANNOTATION_HINTS}
