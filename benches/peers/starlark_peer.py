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
"""


class Starlark(Peer):
    name = "Starlark (starlark-pyo3)"
    budget = "none: the binding offers a cancellation callback and a call-stack limit, no step budget"
    notes: dict[str, str] = {}

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
