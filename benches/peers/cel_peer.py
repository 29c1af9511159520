"""CEL through `common-expression-language` (PyO3 over the Rust `cel` crate), compiled once."""

from __future__ import annotations

from typing import Any

import cel

from .base import Peer, Refused

#: Largest list the map workloads are run on: `map` in this CEL build takes time quadratic in
#: the list's length (n = 2,000 → 0.6 s, 4,000 → 2.5 s, 8,000 → 9.6 s on the bench machine), so
#: n = 10^5 would run for tens of minutes.
LARGEST_MAP = 1_000


class Cel(Peer):
    name = "CEL (common-expression-language)"
    budget = "none exposed (CEL is not Turing-complete; no cost limit in the Python API)"
    notes = {
        "squares": "CEL has no ranges or loops: the host passes the list 0..n-1 in "
        "(its conversion is timed) and CEL maps it, `xs.map(i, i * i)`; not run beyond "
        "n = 1,000 because `map` here takes time quadratic in n (8,000 items: 9.6 s)",
        "items": "no ranges: the host passes 0..n-1 in and CEL maps it, "
        '`xs.map(i, "item " + string(i))`; not run beyond n = 1,000 (quadratic `map`)',
        "floats": "no ranges and a quadratic `map`: not run at n = 100,000",
        "catalog": "no ranges, so no catalog to build (a host-passed catalog is the summarize "
        "workload's shape); `map` is quadratic at 10,000 records anyway",
        "nested": "no ranges, and a quadratic `map` at 10,000 items",
        "summarize": "`orders.filter(o, o.quantity * o.price > 900).map(o, o.sku)`; the "
        "host's list is converted by the binding (timed)",
    }

    largest = {"squares": LARGEST_MAP, "items": LARGEST_MAP}

    def __init__(self) -> None:
        self._find_plans = cel.compile(
            '[{"$type": "Plan", "name": "Team", "seats": teamSize, "monthlyPrice": 20}]'
        )
        self._squares = cel.compile("xs.map(i, i * i)")
        self._items = cel.compile('xs.map(i, "item " + string(i))')
        self._summarize = cel.compile("orders.filter(o, o.quantity * o.price > 900).map(o, o.sku)")

    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._find_plans.execute({"teamSize": team_size})
        return result

    def squares(self, n: int) -> list[int]:
        _check_map_size(n)
        result: list[int] = self._squares.execute({"xs": list(range(n))})
        return result

    def items(self, n: int) -> list[str]:
        _check_map_size(n)
        result: list[str] = self._items.execute({"xs": list(range(n))})
        return result


    def summarize(self, orders: list[dict[str, Any]]) -> list[str]:
        _check_map_size(len(orders))
        result: list[str] = self._summarize.execute({"orders": orders})
        return result


def _check_map_size(n: int) -> None:
    if n > LARGEST_MAP:
        raise Refused(f"not run: CEL map is quadratic in the list length (n = {n:,})")
