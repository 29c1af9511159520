"""The diagnostics one ``normalize_agent`` call collects, in the order it finds them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .diagnostics import NxAgentDiagnostic, Severity

__all__ = ["Report", "subject_of"]


class Report:
    """Collects diagnostics; ``error_count`` read before and after a step says whether it added an error."""

    __slots__ = ("diagnostics", "error_count")

    def __init__(self) -> None:
        self.diagnostics: list[NxAgentDiagnostic] = []
        self.error_count = 0

    def add(
        self,
        severity: Severity,
        code: str,
        path: str,
        message: str,
        *,
        tool: str | None = None,
        declaration: Mapping[str, Any] | None = None,
    ) -> None:
        """Record one diagnostic."""
        self.diagnostics.append(NxAgentDiagnostic(severity, code, message, path, tool, declaration))
        if severity == "error":
            self.error_count += 1

    def error(
        self,
        code: str,
        path: str,
        message: str,
        *,
        tool: str | None = None,
        declaration: Mapping[str, Any] | None = None,
    ) -> None:
        """Record one error."""
        self.add("error", code, path, message, tool=tool, declaration=declaration)


def subject_of(name: str | None, path: str) -> str:
    """How a message names a tool: ``Tool '<name>' (<path>)`` once its name resolved, else the path."""
    return path if name is None else f"Tool '{name}' ({path})"
