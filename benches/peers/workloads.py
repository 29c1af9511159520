"""The workloads, their sizes and budgets, and the values every peer must return.

Expected values come from the NX sources: `findPlans` of the corpus program `agent-library`
(`<Plan name="Team" seats={teamSize} monthlyPrice=20/>`) and the bundled example's catalog.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Workload 1: the argument of `findPlans`.
TEAM_SIZE = 5
#: `findPlans(teamSize=5)` of the corpus program agent-library (main.nx), as plain Python.
FIND_PLANS_RESULT: list[dict[str, Any]] = [
    {"$type": "Plan", "name": "Team", "seats": TEAM_SIZE, "monthlyPrice": 20}
]
#: Workload 2 and 3 sizes.
SQUARES_SIZES = (10**3, 10**5, 10**6)
ITEMS_SIZES = (10**3, 10**5, 10**6)
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


# --- The work-tool workloads (issue 19; benches/programs/workloads.nxir.txt) -------------------

#: Float text: `text(i * 0.1)` for i in 0..FLOATS_SIZE-1.
FLOATS_SIZE = 10**5
#: Catalog: CATALOG_SIZE products built, filtered and mapped to offers.
CATALOG_SIZE = 10**4
#: Nested records: a 3-level record per item.
NESTED_SIZE = 10**4
#: JSON-shaped input: the orders a host passes in.
ORDERS_SIZE = 1_000


def js_float_text(value: float) -> str:
    """ECMAScript's `Number::toString` of `value`, for the floats the benches make (0 or between
    1e-4 and 1e15, where Python's shortest repr is plain decimal): the repr without a `.0`."""
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def floats(n: int) -> list[str]:
    """Expected value of `floats(n)`."""
    return [js_float_text(i * 0.1) for i in range(n)]


def products(n: int) -> list[dict[str, Any]]:
    """The products `catalog(n)` builds (`products(n)` of the NX program)."""
    return [
        {"$type": "Product", "sku": f"sku-{i}", "category": i % 7, "price": i % 97 + 1, "stock": i % 13}
        for i in range(n)
    ]


def catalog(n: int) -> list[dict[str, Any]]:
    """Expected value of `catalog(n)`: the products of category 3 in stock, as offers at twice
    the price."""
    return [
        {"$type": "Offer", "sku": p["sku"], "price": p["price"] * 2}
        for p in products(n)
        if p["category"] == 3 and p["stock"] > 0
    ]


def nested(n: int) -> list[dict[str, Any]]:
    """Expected value of `nested(n)`: Entry > Detail > Leaf per item."""
    return [
        {
            "$type": "Entry",
            "id": i,
            "detail": {
                "$type": "Detail",
                "weight": i % 10,
                "leaf": {"$type": "Leaf", "label": f"item {i}", "value": i * 3},
            },
        }
        for i in range(n)
    ]


def orders(count: int = ORDERS_SIZE) -> list[dict[str, Any]]:
    """The JSON-shaped input of `summarize` (the oracle's workloads-bench passes the same)."""
    return [
        {
            "sku": f"sku-{i}",
            "quantity": i % 20,
            "price": i % 97,
            "customer": {"name": f"customer {i % 50}", "tier": i % 3},
        }
        for i in range(count)
    ]


def summarize(given: list[dict[str, Any]]) -> list[str]:
    """Expected value of `summarize(orders)`: the skus of orders worth more than 900."""
    return [o["sku"] for o in given if o["quantity"] * o["price"] > 900]


# --- The general interpreter by node kind (issue 19; benches/programs/kinds.nxir.txt) ---------

#: Items of each node-kind loop.
KINDS_SIZE = 10**5
#: The record `member` reads a field of (its `pair` argument).
KINDS_PAIR: dict[str, Any] = {"$type": "Pair", "left": 3, "right": 4}
#: Each loop `for i, at in 0..n yield BODY` of kinds.nxir.txt (the index variable, never read,
#: keeps it on the general path): its NX body, what the body adds over the loop variable alone
#: (`slot`, the baseline), and the item it yields for i, as plain Python.
KINDS: dict[str, tuple[str, str, Callable[[int], Any] | None]] = {
    "slot": ("i", "a local read (the baseline)", lambda i: i),
    "literal": ("7", "a number literal instead", lambda i: 7),
    "add": ("(i add 1)", "integer addition and a literal", lambda i: i + 1),
    "multiply": ("(i mul i)", "integer multiplication and a local read", lambda i: i * i),
    "compare": ("(i lt 500)", "a comparison and a literal", lambda i: i < 500),
    "both": ("((i gt 10) and (i lt 500))", "`and` of two comparisons", lambda i: 10 < i < 500),
    "fraction": ("(i mul 0.5)", "float arithmetic (a float written)", lambda i: i * 0.5),
    "negate": ("neg i", "integer negation", lambda i: -i),
    "invert": ("not (i lt 500)", "`not` of a comparison", lambda i: not i < 500),
    "choose": ("if (i lt 500) then i else 0", "`if` on a comparison", lambda i: i if i < 500 else 0),
    "call": ("plusOne(i)", "a call of `plusOne(x: int): int = (x add 1)`", lambda i: i + 1),
    "member": ("pair.left", "a member of a record parameter", lambda i: KINDS_PAIR["left"]),
    "build": ("<Pair left=i right=1 />", "a record built (written as a dict)", lambda i: {"$type": "Pair", "left": i, "right": 1}),
    "list": ("[i, 1]", "a list literal (its items go into the loop's list)", None),  # see node_kind
    "text": ("text<int>(i)", "an integer's text", lambda i: str(i)),
    "concat": ('("item " concat text<int>(i))', "a literal joined to an integer's text", lambda i: f"item {i}"),
    "equal": ('(text<int>(i) eq "7")', "a text comparison of an integer's text", lambda i: str(i) == "7"),
}


def node_kind(name: str, n: int) -> list[Any]:
    """Expected value of the node-kind loop `name` over n items."""
    if name == "list":
        return [x for i in range(n) for x in (i, 1)]
    item = KINDS[name][2]
    assert item is not None
    return [item(i) for i in range(n)]
