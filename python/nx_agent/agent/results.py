"""What a tool call answers (agent-package §5.9–§5.11): plain dicts, never ``None`` placeholders.

- success: ``{"ok": True, "output": ..., "usage": {...}}`` (``usage`` only when the call reached
  the IR runtime);
- failure: ``{"ok": False, "error": {"code", "message", "diagnostics"?, "limit"?}, "usage"?}``.

``usage`` is ``{"operations"?, "inputSize"?}``, the numbers the runtime reported, with the keys of the
reference's JSON so a result reads the same in a JavaScript host.
"""

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any

    from .shapes import ToolError, ToolFailure, ToolLimit, ToolResult, ToolSuccess, ToolUsage

__all__ = [
    "PACKAGE_ERROR_CODES",
    "ToolError",
    "ToolFailure",
    "ToolLimit",
    "ToolResult",
    "ToolSuccess",
    "ToolUsage",
    "failure",
    "usage_of",
]

PACKAGE_ERROR_CODES: "tuple[str, ...]" = (
    "invalid-input",
    "invalid-context",
    "resource-limit",
    "evaluation-failed",
    "invalid-request",
    "request-failed",
    "aborted",
)
"""The result codes the package itself gives (§5.10); a host's request function or executor may
choose any other."""

if not TYPE_CHECKING:

    def __getattr__(name: str) -> "Any":
        # The TypedDict shapes are made when first read (agent/shapes.py): a cold start runs none of
        # typing's work for them.
        if name in {'ToolLimit', 'ToolResult', 'ToolSuccess', 'ToolFailure', 'ToolUsage', 'ToolError'}:
            from . import shapes

            return getattr(shapes, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def usage_of(native: "Mapping[str, int]") -> "ToolUsage":
    """The usage the runtime reported (``operations``, ``input_size``) under the result's keys."""
    usage: "ToolUsage" = {}
    operations = native.get("operations")
    if operations is not None:
        usage["operations"] = operations
    input_size = native.get("input_size")
    if input_size is not None:
        usage["inputSize"] = input_size
    return usage


def failure(
    code: str,
    message: str,
    *,
    diagnostics: "Sequence[Mapping[str, Any]] | None" = None,
    limit: "Mapping[str, Any] | None" = None,
    usage: "ToolUsage | None" = None,
) -> "ToolFailure":
    """A failed result; each optional member is present only when given."""
    error: "ToolError" = {"code": code, "message": message}
    if diagnostics is not None:
        error["diagnostics"] = [dict(diagnostic) for diagnostic in diagnostics]
    if limit is not None:
        error["limit"] = dict(limit)  # type: ignore[typeddict-item]
    result: "ToolFailure" = {"ok": False, "error": error}
    if usage is not None:
        result["usage"] = usage
    return result
