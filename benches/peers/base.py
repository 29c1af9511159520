"""What every peer offers: the workloads as callables taking and returning plain Python."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class Refused(Exception):
    """A peer cannot express a workload at this size (the reason is the message)."""


class Peer(ABC):
    """One engine. Every peer implements the three workloads; one it cannot express at some size
    raises :class:`Refused` with the reason."""

    #: Row label in the report.
    name = ""
    #: The budget the peer runs under, or how it has none.
    budget = ""
    #: Whether the peer runs under a budget that stops runaway work (counted steps or fuel).
    metered = False
    #: Workload → what the peer cannot express, or which equivalent is measured instead.
    notes: dict[str, str] = {}
    #: Workload → the largest n the peer is run at (beyond it the report gives the note).
    largest: dict[str, int] = {}

    @abstractmethod
    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        """Workload 1: `findPlans(teamSize)` → one Plan record, as plain Python."""

    @abstractmethod
    def squares(self, n: int) -> list[int]:
        """Workload 2: the squares of 0..n-1 as a list."""

    @abstractmethod
    def items(self, n: int) -> list[str]:
        """Workload 3: `"item <i>"` for i in 0..n-1 as a list, built in a loop."""

    # The work-tool workloads (issue 19): a peer that cannot express one keeps the default,
    # which refuses with the reason in `notes`.

    def floats(self, n: int) -> list[str]:
        """`text(i * 0.1)` for i in 0..n-1, as ECMAScript writes numbers."""
        raise Refused(self.notes.get("floats", "not expressible"))

    def catalog(self, n: int) -> list[dict[str, Any]]:
        """n products built, those of category 3 in stock mapped to offers (records)."""
        raise Refused(self.notes.get("catalog", "not expressible"))

    def nested(self, n: int) -> list[dict[str, Any]]:
        """A 3-level record per item for n items."""
        raise Refused(self.notes.get("nested", "not expressible"))

    def summarize(self, orders: list[dict[str, Any]]) -> list[str]:
        """The skus of the host's orders worth more than 900 (quantity * price)."""
        raise Refused(self.notes.get("summarize", "not expressible"))
