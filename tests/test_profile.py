"""The cost profiler: a profile's total is the call's operation count for every corpus entrypoint
(at the full budget, one short of it and at each failure budget the corpus records, where the
profile says where the budget ran out), and its shares add up."""

from __future__ import annotations

from typing import Any

import pytest

from corpus import CorpusProgram, over_corpus
from nx_agent import examples, ir
from nx_agent.profile import Profile, profile_function
from test_evaluate import CASES, expected, key_of, link

RUNS = [(p, e) for p, e in CASES if not e.get("fails")]


def shares_add_up(profile: Profile) -> None:
    """Every operation is in exactly one path and one node kind; each path's total is its own
    operations plus its callees'."""
    assert sum(path.self for path in profile.paths) == profile.total
    assert sum(kind.operations for kind in profile.kinds) == profile.total
    assert sum(p.total for p in profile.paths if len(p.path) == 1) == profile.total
    for path in profile.paths:
        below = sum(p.total for p in profile.paths if len(p.path) == len(path.path) + 1 and p.path[:-1] == path.path)
        assert path.total == path.self + below
    assert all(0 <= d.self <= d.total <= profile.total for d in profile.declarations)


@over_corpus(("program", "entry"), RUNS, ids=[f"{p.name}:{key_of(e)}" for p, e in RUNS])
def test_profile_total_is_the_recorded_count(program: CorpusProgram, entry: dict[str, Any]) -> None:
    key = key_of(entry)
    linked = link(program, entry["module"])
    args = entry.get("arguments", [])
    counts = expected(program, "operations.json")
    profile = profile_function(linked, entry["function"], args, max_operations=2**40)
    assert profile.ok, profile.error
    assert profile.value == expected(program, "results.json")[key]
    assert profile.total == profile.usage["operations"]
    count = counts.get("counts", {}).get(key)
    if count is not None:
        assert profile.total == count
    shares_add_up(profile)
    assert profile.paths[0].path == (f"{entry['module']}::{entry['function']}",)
    assert profile.declaration(f"{entry['module']}::{entry['function']}").calls >= 1
    assert profile.ran_out is None
    if count is None:
        return
    # One short, and every failure budget the corpus records: the total is what the failed call
    # reports it used, and the profile ran out in the declaration the runtime's error names.
    budgets = [(count - 1, None)] + [(f["budget"], f["declaration"]) for f in counts.get("failures", {}).get(key, [])]
    for budget, declaration in budgets:
        failed = profile_function(linked, entry["function"], args, max_operations=budget)
        assert failed.error_code == "nx-ir-resource-limit"
        assert failed.total == failed.usage["operations"] <= budget
        shares_add_up(failed)
        assert failed.ran_out is not None
        named = failed.error.diagnostics[0].declaration
        assert failed.ran_out.path[-1] == named
        if declaration is not None:
            assert named == declaration


def plans() -> ir.Program:
    return examples.link_example()


def test_find_plans_profile_names_the_functions_it_calls() -> None:
    function = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}
    called = ir.call_function(plans(), function, {"teamSize": 40}, max_operations=10_000)
    by_name = profile_function(plans(), function, {"teamSize": 40}, max_operations=10_000)
    by_position = profile_function(plans(), function, [40], limits=ir.Limits(max_operations=10_000))
    assert by_name.total == by_position.total == called.usage["operations"]
    assert by_name.value == called.value
    shares_add_up(by_name)
    root = by_name.declaration("plans/main.nx::findPlans")
    assert root.calls == 1 and root.total == by_name.total
    assert by_name.to_dict()["total"] == by_name.total


def test_without_a_budget_the_profile_still_counts() -> None:
    counted = profile_function(plans(), "findPlans", [12], max_operations=10_000)
    unlimited = profile_function(plans(), "findPlans", [12])
    assert unlimited.total == counted.total and "operations" not in unlimited.usage


def test_refused_before_running_raises_as_the_call_does() -> None:
    with pytest.raises(ir.NxIrError) as refused:
        profile_function(plans(), "noSuchFunction", [12], max_operations=100)
    assert refused.value.code == "nx-ir-missing-entrypoint"
    # The request was withdrawn: the next call is not profiled into a stale slot.
    assert profile_function(plans(), "findPlans", [12], max_operations=10_000).ok


def test_collapsed_and_speedscope_hold_every_operation() -> None:
    profile = profile_function(plans(), "findPlans", [12], max_operations=10_000)
    lines = profile.collapsed().splitlines()
    assert sum(int(line.rsplit(" ", 1)[1]) for line in lines) == profile.total
    assert all(line.rsplit(" ", 1)[0].split(";")[0] == "plans/main.nx::findPlans" for line in lines)
    assert "plans/main.nx::findPlans;plans/catalog.nx::plans;plans/catalog.nx::Plan 9" in lines
    document = profile.speedscope()
    assert sum(document["profiles"][0]["weights"]) == profile.total
    assert document["profiles"][0]["endValue"] == profile.total


def test_ir_exports_the_profiler() -> None:
    assert ir.profile_function is profile_function and ir.Profile is Profile
    assert ir.profile_function(plans(), "findPlans", [12], max_operations=10_000).total == 50
