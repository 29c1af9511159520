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
#: Our own: a schema whose JSON text would pass its budget (see ``document.SCHEMA_BASE_CHARS``).
SCHEMA_TOO_LARGE = "schema-too-large"


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


def key_of(found: dict[str, Any]) -> tuple[str, ...]:
    """What tells one diagnostic from another (its texts are shared, not copied)."""
    return (found["code"], found["message"], str(found["help"]), repr(found["labels"]), str(found["note"]))


def distinct(diagnostics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``diagnostics`` with each repeat of an earlier one left out, in one pass."""
    seen: set[tuple[str, ...]] = set()
    kept = []
    for found in diagnostics:
        key = key_of(found)
        if key not in seen:
            seen.add(key)
            kept.append(found)
    return kept


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
