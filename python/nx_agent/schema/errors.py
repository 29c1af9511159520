"""The error a schema query raises, and the diagnostics a schema answer carries.

Diagnostics are plain dicts in the NX compiler's shape: ``severity``, ``code``, ``message``,
``labels`` (``file``, ``span``, ``message``, ``primary``), ``help`` and ``note``.
"""

from __future__ import annotations

from typing import Any

from .._native import NxError

INEXPRESSIBLE_TYPE = "schema-inexpressible-type"
AMBIGUOUS_DISCRIMINATOR = "schema-ambiguous-discriminator"
UNKNOWN_DECLARATION = "schema-unknown-declaration"


def diagnostic(
    code: str, message: str, *, labels: list[dict[str, Any]] | None = None, help: str | None = None
) -> dict[str, Any]:
    """One error diagnostic in the compiler's key order."""
    return {
        "severity": "error",
        "code": code,
        "message": message,
        "labels": labels or [],
        "help": help,
        "note": None,
    }


class SchemaError(NxError):
    """A schema query that could not be answered, e.g. a reference that names nothing.

    ``code`` is the first diagnostic's code; ``diagnostics`` lists them all as dicts.
    """

    code: str
    diagnostics: list[dict[str, Any]]

    def __init__(self, diagnostics: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(str(d.get("message", "")) for d in diagnostics))
        self.code = str(diagnostics[0].get("code", "")) if diagnostics else ""
        self.diagnostics = diagnostics

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.diagnostics,), self.__dict__)


def unknown_declaration(message: str) -> SchemaError:
    return SchemaError([diagnostic(UNKNOWN_DECLARATION, message)])
