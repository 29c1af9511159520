"""Starlark through `starlark-pyo3` (PyO3 over starlark-rust): one frozen module, called by name."""

from __future__ import annotations

from typing import Any

import starlark

from .base import Peer

SOURCE = """
def find_plans(team_size):
    return [{"$type": "Plan", "name": "Team", "seats": team_size, "monthlyPrice": 20}]

def squares(n):
    return [i * i for i in range(n)]

def items(n):
    return ["item " + str(i) for i in range(n)]

def float_text(x):
    s = str(x)
    return s[:-2] if s.endswith(".0") else s

def floats(n):
    return [float_text(i * 0.1) for i in range(n)]

def catalog(n):
    products = [
        {"$type": "Product", "sku": "sku-" + str(i), "category": i % 7, "price": i % 97 + 1, "stock": i % 13}
        for i in range(n)
    ]
    return [
        {"$type": "Offer", "sku": p["sku"], "price": p["price"] * 2}
        for p in products
        if p["category"] == 3 and p["stock"] > 0
    ]

def nested(n):
    return [
        {"$type": "Entry", "id": i, "detail": {"$type": "Detail", "weight": i % 10,
            "leaf": {"$type": "Leaf", "label": "item " + str(i), "value": i * 3}}}
        for i in range(n)
    ]

def summarize(orders):
    return [o["sku"] for o in orders if o["quantity"] * o["price"] > 900]
"""


class Starlark(Peer):
    name = "Starlark (starlark-pyo3)"
    budget = "none: the binding offers a cancellation callback and a call-stack limit, no step budget"
    notes = {
        "floats": "`str(float)` is the shortest round-trip text with a `.0` on integral values, "
        "which the Starlark function strips (ECMAScript writes `1`)",
        "summarize": "the host's list of dicts is converted by the binding (timed)",
    }

    def __init__(self) -> None:
        module = starlark.Module()
        starlark.eval(module, starlark.parse("peers.star", SOURCE), starlark.Globals.standard())
        self._module = module.freeze()

    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._module.call("find_plans", team_size)  # type: ignore[assignment]
        return result

    def squares(self, n: int) -> list[int]:
        result: list[int] = self._module.call("squares", n)  # type: ignore[assignment]
        return result

    def items(self, n: int) -> list[str]:
        result: list[str] = self._module.call("items", n)  # type: ignore[assignment]
        return result

    def floats(self, n: int) -> list[str]:
        result: list[str] = self._module.call("floats", n)  # type: ignore[assignment]
        return result

    def catalog(self, n: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._module.call("catalog", n)  # type: ignore[assignment]
        return result

    def nested(self, n: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._module.call("nested", n)  # type: ignore[assignment]
        return result

    def summarize(self, orders: list[dict[str, Any]]) -> list[str]:
        result: list[str] = self._module.call("summarize", orders)  # type: ignore[assignment]
        return result
