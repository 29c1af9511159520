"""The refusal that the base-URL and path-template readers answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class HttpProblem:
    """Why a base URL or a path template cannot be used.

    ``problem`` is the reference's clause, without a capital or a full stop (for example
    ``it is not an absolute URL``), ready to follow ``cannot be used: `` in a diagnostic.
    """

    problem: str
    ok: Literal[False] = False

    def to_dict(self) -> dict[str, object]:
        """The reference's shape: ``{"ok": False, "problem": ...}``."""
        return {"ok": False, "problem": self.problem}
