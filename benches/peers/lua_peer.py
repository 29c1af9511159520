"""Lua through `lupa`, with a `debug.sethook` instruction-count hook as the budget."""

from __future__ import annotations

from typing import Any

import lupa  # type: ignore[import-untyped]
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
CATALOG = """
function(n)
  local products = {}
  for i = 0, n - 1 do
    products[i + 1] = {["$type"] = "Product", sku = "sku-" .. i, category = i % 7, price = i % 97 + 1, stock = i % 13}
  end
  local offers, k = {}, 0
  for _, p in ipairs(products) do
    if p.category == 3 and p.stock > 0 then
      k = k + 1
      offers[k] = {["$type"] = "Offer", sku = p.sku, price = p.price * 2}
    end
  end
  return offers
end
"""
NESTED = """
function(n)
  local t = {}
  for i = 0, n - 1 do
    t[i + 1] = {["$type"] = "Entry", id = i, detail = {["$type"] = "Detail", weight = i % 10,
      leaf = {["$type"] = "Leaf", label = "item " .. i, value = i * 3}}}
  end
  return t
end
"""
SUMMARIZE = """
function(orders)
  local t, k = {}, 0
  for _, o in ipairs(orders) do
    if o.quantity * o.price > 900 then k = k + 1; t[k] = o.sku end
  end
  return t
end
"""


def _plain(value: Any) -> Any:
    """A Lua table of records (string keys) or of items (integer keys) as plain Python."""
    if lupa.lua_type(value) != "table":
        return value
    keys = list(value.keys())
    if keys and all(isinstance(k, int) for k in keys):
        return [_plain(v) for v in value.values()]
    return {k: _plain(v) for k, v in value.items()}


class Lua(Peer):
    name = "Lua (lupa)"
    budget = "VM instruction count hook (`debug.sethook`, count = the budget); not charged inside C functions"
    metered = True
    notes = {
        "find_plans": "the Lua table is turned into a list of dicts by the host (timed)",
        "floats": "not run: Lua's `tostring` writes `%.14g`, or `%.17g` where that does not "
        "read back, not the shortest text (`0.60000000000000009` for 6 * 0.1); a shortest "
        "float writer in Lua would be a program of its own",
        "catalog": "tables built and filtered in Lua; the host turns the result into dicts (timed)",
        "nested": "nested tables; the host turns them into dicts (timed)",
        "summarize": "the host's list of dicts becomes Lua tables (`table_from(recursive=True)`, "
        "timed)",
    }

    def __init__(self) -> None:
        self.runtime = LuaRuntime()
        self._metered: Any = self.runtime.eval(METERED)
        self._find_plans: Any = self.runtime.eval(FIND_PLANS)
        self._squares: Any = self.runtime.eval(SQUARES)
        self._items: Any = self.runtime.eval(ITEMS)
        self._catalog: Any = self.runtime.eval(CATALOG)
        self._nested: Any = self.runtime.eval(NESTED)
        self._summarize: Any = self.runtime.eval(SUMMARIZE)

    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        plans = self._metered(workloads.SMALL_BUDGET, self._find_plans, team_size)
        return [dict(plan.items()) for plan in plans.values()]

    def squares(self, n: int, budget: int | None = None) -> list[int]:
        used = workloads.loop_budget(n) if budget is None else budget
        return list(self._metered(used, self._squares, n).values())

    def items(self, n: int) -> list[str]:
        return list(self._metered(workloads.loop_budget(n), self._items, n).values())

    def catalog(self, n: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = _plain(self._metered(workloads.loop_budget(n), self._catalog, n))
        return result

    def nested(self, n: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = _plain(self._metered(workloads.loop_budget(n), self._nested, n))
        return result

    def summarize(self, orders: list[dict[str, Any]]) -> list[str]:
        table = self.runtime.table_from(orders, recursive=True)
        return list(self._metered(workloads.loop_budget(len(orders)), self._summarize, table).values())
