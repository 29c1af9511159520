"""What a tool call answers (agent-package §5.9–§5.11): plain dicts, never ``None`` placeholders.

- success: ``{"ok": True, "output": ..., "usage": {...}}`` (``usage`` only when the call reached
  the IR runtime);
- failure: ``{"ok": False, "error": {"code", "message", "diagnostics"?, "limit"?}, "usage"?}``.

``usage`` is ``{"operations"?, "inputSize"?}``, the numbers the runtime reported, with the keys of the
reference's JSON so a result reads the same in a JavaScript host.
"""

from .execute import failure, usage_of  # the builders live with the call (the bundle path loads no results module)

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
