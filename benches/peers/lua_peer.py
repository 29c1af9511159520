"""Lua through `lupa`, with a `debug.sethook` instruction-count hook as the budget."""

from __future__ import annotations

from typing import Any

from lupa import LuaRuntime  # type: ignore[import-untyped]

from . import workloads
from .base import Peer

#: Runs `f(...)` with a count hook that raises once `budget` VM instructions have run.
METERED = """
function(budget, f, ...)
  debug.sethook(function() error("budget exhausted", 0) end, "", budget)
  local ok, result = pcall(f, ...)
  debug.sethook()
  if not ok then error(result, 0) end
  return result
end
"""
FIND_PLANS = """
function(team_size)
  return {{["$type"] = "Plan", name = "Team", seats = team_size, monthlyPrice = 20}}
end
"""
SQUARES = """
function(n)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = i * i end
  return t
end
"""
ITEMS = """
function(n)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = "item " .. i end
  return t
end
"""


class Lua(Peer):
    name = "Lua (lupa)"
    budget = "VM instruction count hook (`debug.sethook`, count = the budget); not charged inside C functions"
    metered = True
    notes = {
        "find_plans": "the Lua table is turned into a list of dicts by the host (timed)",
    }

    def __init__(self) -> None:
        self.runtime = LuaRuntime()
        self._metered: Any = self.runtime.eval(METERED)
        self._find_plans: Any = self.runtime.eval(FIND_PLANS)
        self._squares: Any = self.runtime.eval(SQUARES)
        self._items: Any = self.runtime.eval(ITEMS)

    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        plans = self._metered(workloads.SMALL_BUDGET, self._find_plans, team_size)
        return [dict(plan.items()) for plan in plans.values()]

    def squares(self, n: int, budget: int | None = None) -> list[int]:
        used = workloads.loop_budget(n) if budget is None else budget
        return list(self._metered(used, self._squares, n).values())

    def items(self, n: int) -> list[str]:
        return list(self._metered(workloads.loop_budget(n), self._items, n).values())
