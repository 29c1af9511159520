"""Diagnostics about an agent or a stored definition, and the two error classes of the agent layer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from . import Record
from ..errors import NxError

__all__ = [
    "NxAgentDiagnostic",
    "NxAgentDiagnosticCode",
    "NxAgentError",
    "NxAgentToolError",
    "Severity",
]

Severity = Literal["error", "warning"]

NxAgentDiagnosticCode = Literal[
    "nx-agent-not-an-agent",
    "nx-agent-duplicate-document-title",
    "nx-agent-duplicate-tool-name",
    "nx-agent-invalid-tool-name",
    "nx-agent-missing-description",
    "nx-agent-inexpressible-parameter",
    "nx-agent-inexpressible-result",
    "nx-agent-unknown-function",
    "nx-agent-context-parameter",
    "nx-agent-unknown-tool-type",
    "nx-agent-describer",
    "nx-agent-http-base-url",
    "nx-agent-http-path",
    "nx-agent-http-arguments-type",
    "nx-agent-unsupported-format",
    "nx-agent-invalid-definition",
    "nx-agent-missing-executor",
    "nx-agent-missing-request-function",
    "nx-agent-definition-too-large",
]


class NxAgentDiagnostic(Record):
    """One problem found before any tool runs.

    ``path`` is where it is inside the agent (``tools[1]``, ``""`` for the agent itself); ``tool``
    the tool's name when one was resolved; ``declaration`` ``{"module", "span"?}`` of the function a
    diagnostic about a tool's function is about (``span`` as the schema source answered it).
    """

    __slots__ = ("severity", "code", "message", "path", "tool", "declaration")
    _defaults = {"tool": None, "declaration": None}

    severity: Severity
    code: str
    message: str
    path: str
    tool: str | None
    declaration: Mapping[str, Any] | None

    def __init__(
        self,
        severity: Severity,
        code: str,
        message: str,
        path: str,
        tool: str | None = None,
        declaration: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(severity, code, message, path, tool, declaration)

    def to_dict(self) -> dict[str, Any]:
        """The diagnostic as the reference writes it: ``severity, code, message, path, tool?, declaration?``."""
        out: dict[str, Any] = {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "path": self.path,
        }
        if self.tool is not None:
            out["tool"] = self.tool
        if self.declaration is not None:
            from .describe import copy_json

            out["declaration"] = copy_json(self.declaration)
        return out


class NxAgentError(NxError):
    """An agent that does not normalize, or a definition that cannot run.

    ``diagnostics`` holds every problem found; the message joins their messages with ``"; "`` and
    ``code`` is the first one's code.
    """

    diagnostics: tuple[NxAgentDiagnostic, ...]

    def __init__(self, diagnostics: Sequence[NxAgentDiagnostic]) -> None:
        held = tuple(diagnostics)
        super().__init__("; ".join(diagnostic.message for diagnostic in held))
        self.diagnostics = held
        self.code = held[0].code if held else "nx-agent-error"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.diagnostics,), self.__dict__)


class NxAgentToolError(NxError):
    """A tool failure with a ``code``.

    A host's request function or executor raises one to choose the code of the failed result.
    ``diagnostics`` and ``limit`` are attributes only when given.
    """

    code: str
    diagnostics: tuple[Any, ...]
    limit: Mapping[str, Any]

    def __init__(
        self,
        code: str,
        message: str,
        *,
        diagnostics: Sequence[Any] | None = None,
        limit: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        if diagnostics is not None:
            self.diagnostics = tuple(diagnostics)
        if limit is not None:
            self.limit = limit

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message), self.__dict__)
