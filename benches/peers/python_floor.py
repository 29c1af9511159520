"""Plain Python functions: the unsandboxed floor (no budget, no isolation)."""

from __future__ import annotations

from typing import Any

from . import workloads
from .base import Peer


class PythonFloor(Peer):
    name = "Python (unsandboxed)"
    budget = "none: no budget, no isolation"
    notes: dict[str, str] = {}

    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        return [{"$type": "Plan", "name": "Team", "seats": team_size, "monthlyPrice": 20}]

    def squares(self, n: int) -> list[int]:
        return [i * i for i in range(n)]

    def items(self, n: int) -> list[str]:
        return ["item " + str(i) for i in range(n)]

    def floats(self, n: int) -> list[str]:
        return workloads.floats(n)

    def catalog(self, n: int) -> list[dict[str, Any]]:
        return workloads.catalog(n)

    def nested(self, n: int) -> list[dict[str, Any]]:
        return workloads.nested(n)

    def summarize(self, orders: list[dict[str, Any]]) -> list[str]:
        return workloads.summarize(orders)

    def spin(self, n: int) -> list[int]:
        """Workload 5: n products and comparisons, an empty result."""
        return [i for i in range(n) if i * i < 0]
