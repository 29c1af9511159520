"""The workloads, their sizes and budgets, and the values every peer must return.

Expected values come from the NX sources: `findPlans` of the corpus program `agent-library`
(`<Plan name="Team" seats={teamSize} monthlyPrice=20/>`) and the bundled example's catalog.
"""

from __future__ import annotations

from typing import Any

#: Workload 1: the argument of `findPlans`.
TEAM_SIZE = 5
#: `findPlans(teamSize=5)` of the corpus program agent-library (main.nx), as plain Python.
FIND_PLANS_RESULT: list[dict[str, Any]] = [
    {"$type": "Plan", "name": "Team", "seats": TEAM_SIZE, "monthlyPrice": 20}
]
#: Workload 2 and 3 sizes.
SQUARES_SIZES = (10**3, 10**5, 10**6)
ITEMS_SIZES = (10**3, 10**5)
#: Workload 5: a loop that computes a lot and returns a small value.
SPIN_SIZE = 200_000

#: The bundled example's catalog (python/nx_agent/examples/plans__catalog.nx.nxir.txt).
CATALOG: list[dict[str, Any]] = [
    {"$type": "Plan", "monthlyPrice": 8, "name": "Starter", "seats": 3},
    {"$type": "Plan", "monthlyPrice": 20, "name": "Team", "seats": 10},
    {"$type": "Plan", "monthlyPrice": 45, "name": "Business", "seats": 50},
]
#: The bundled example's `findPlans(5)`: the catalog's plans with at least 5 seats.
EXAMPLE_RESULT: list[dict[str, Any]] = [plan for plan in CATALOG if plan["seats"] >= TEAM_SIZE]

#: Budget for one small call, in each peer's own unit (NX operations, Lua VM instructions,
#: wasm fuel).
SMALL_BUDGET = 1_000


def loop_budget(n: int) -> int:
    """Budget for a loop over n items, in each peer's own unit: generous (the wasm `items`
    loop burns about 226 fuel per item), but finite."""
    return 400 * n + 1_000


def squares(n: int) -> list[int]:
    """Expected value of workload 2."""
    return [i * i for i in range(n)]


def items(n: int) -> list[str]:
    """Expected value of workload 3."""
    return [f"item {i}" for i in range(n)]
