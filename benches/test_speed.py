"""Evaluation speed, each figure beside a baseline measured in the same run.

Run: `python3 -m pip install ".[bench]" && python3 -m pytest benches`. Compare each NX row with
its baseline: the ratio is what the figure means, not the absolute time. The summary at the end
gives the squares loop in ns per operation (evaluation alone, writing the million-item result
to Python, end to end) and findPlans in µs per call (the bundled example's, and the corpus
`agent-library` one computed from its argument only), each with its ratio to the baseline; then
records checked again (a subtype as its base, a union case as its union) in ns per operation,
against records checked as their own declaration in the same run, and host records read where
an abstract record or a union is declared, against the same records where a record is; and a
union of 4,096 long-named cases built and checked, against one of 2 short ones.
"""

from __future__ import annotations

from typing import Any

import pytest

from nx_agent import _native, examples, ir
from peers import nx as nx_peer
from programs import (
    HOST_SHAPES_INPUT,
    RECHECKS_ITEMS,
    RECHECKS_OPERATIONS,
    SQUARES_OPERATIONS,
    host_shapes_program,
    many_cases_program,
    rechecks_program,
    squares_program,
)
from timing import per_call

BUDGET = ir.Limits(max_operations=10**9)

#: Fastest round of each benchmark (seconds), for the summary `conftest.py` prints.
FIGURES: dict[str, float] = {}


def record(name: str, benchmark: Any) -> None:
    FIGURES[name] = benchmark.stats.stats.min




@pytest.mark.benchmark(group="squares 0..10^6")
def test_nx_squares_metered(benchmark: Any) -> None:
    program = squares_program()
    result = benchmark(ir.evaluate_function, program, "squares", (), limits=BUDGET)
    assert result.usage["operations"] == SQUARES_OPERATIONS
    assert result.value[999_999] == 999_999**2
    record("squares end to end", benchmark)


@pytest.mark.benchmark(group="squares 0..10^6")
def test_nx_squares_metered_evaluation_only(benchmark: Any) -> None:
    # The same evaluation, its writes charged, but no Python objects built.
    program = squares_program()
    usage = benchmark(_native._evaluate_discarding, program, "squares", (), limits=BUDGET)
    assert usage["operations"] == SQUARES_OPERATIONS
    record("squares evaluation", benchmark)


@pytest.mark.benchmark(group="squares 0..10^6")
def test_nx_squares_general_interpreter(benchmark: Any) -> None:
    # The same loop with an index variable it never reads: no fused loop, every node evaluated.
    program = squares_program()
    result = benchmark(ir.evaluate_function, program, "squaresIndexed", (), limits=BUDGET)
    assert result.usage["operations"] == SQUARES_OPERATIONS
    assert result.value[999_999] == 999_999**2
    record("squares general", benchmark)


@pytest.mark.benchmark(group="squares 0..10^6")
def test_python_squares_baseline(benchmark: Any) -> None:
    result = benchmark(lambda: [i * i for i in range(10**6)])
    assert result[999_999] == 999_999**2
    record("squares python", benchmark)


def find_plans_python(team_size: int) -> list[dict[str, Any]]:
    plans = [
        {"$type": "Plan", "monthlyPrice": 8, "name": "Starter", "seats": 3},
        {"$type": "Plan", "monthlyPrice": 20, "name": "Team", "seats": 10},
        {"$type": "Plan", "monthlyPrice": 45, "name": "Business", "seats": 50},
    ]
    return [plan for plan in plans if plan["seats"] >= team_size]


@pytest.mark.benchmark(group="findPlans(5) per call")
def test_nx_find_plans_metered(benchmark: Any) -> None:
    program = examples.link_example()
    result = per_call(benchmark, ir.evaluate_function, program, "findPlans", (5,), limits=BUDGET)
    assert result.value == find_plans_python(5)
    record("findPlans nx", benchmark)


@pytest.mark.benchmark(group="findPlans(5) per call")
def test_nx_find_plans_metered_evaluation_only(benchmark: Any) -> None:
    program = examples.link_example()
    assert per_call(benchmark, _native._evaluate_discarding, program, "findPlans", (5,), limits=BUDGET) == {"operations": 56}
    record("findPlans evaluation", benchmark)


@pytest.mark.benchmark(group="findPlans(5) per call")
def test_python_find_plans_baseline(benchmark: Any) -> None:
    assert len(per_call(benchmark, find_plans_python, 5)) == 2
    record("findPlans python", benchmark)


FIND_PLANS = {"$type": "Function", "module": "main.nx", "name": "findPlans"}


def library_find_plans_python(team_size: int) -> list[dict[str, Any]]:
    # The corpus `agent-library` findPlans: `{ <Plan name="Team" seats={teamSize} monthlyPrice=20 /> }`.
    return [{"$type": "Plan", "monthlyPrice": 20, "name": "Team", "seats": team_size}]


@pytest.mark.benchmark(group="agent-library findPlans(teamSize=5) per call")
def test_nx_library_find_plans_metered(benchmark: Any) -> None:
    # A function computed from its arguments only, called by name as a host's tool call is.
    program = nx_peer.agent_library_program()
    result = per_call(benchmark, ir.call_function, program, FIND_PLANS, {"teamSize": 5}, limits=BUDGET)
    assert result.value == library_find_plans_python(5)
    record("library findPlans nx", benchmark)


@pytest.mark.benchmark(group="agent-library findPlans(teamSize=5) per call")
def test_nx_library_find_plans_by_position(benchmark: Any) -> None:
    # The same function as an entrypoint, its argument by position (`evaluate_function`).
    program = nx_peer.agent_library_program()
    result = per_call(benchmark, ir.evaluate_function, program, "findPlans", (5,), limits=BUDGET)
    assert result.value == library_find_plans_python(5)
    record("library findPlans by position", benchmark)


@pytest.mark.benchmark(group="agent-library findPlans(teamSize=5) per call")
def test_python_library_find_plans_baseline(benchmark: Any) -> None:
    assert per_call(benchmark, library_find_plans_python, 5)[0]["seats"] == 5
    record("library findPlans python", benchmark)


@pytest.mark.benchmark(group="cold start: prepare and link the example")
def test_nx_prepare_and_link(benchmark: Any) -> None:
    images = {i: ir.assemble(examples.text(i), version=v) for i, (_, v) in examples.MODULES.items()}

    def cold() -> ir.Program:
        modules = {i: ir.prepare_module(data) for i, data in images.items()}
        return ir.link_program(modules[examples.ENTRY], modules)

    assert len(benchmark(cold).modules) == 2


@pytest.mark.benchmark(group="cold start: prepare and link the example")
def test_bytes_copy_baseline(benchmark: Any) -> None:
    images = [ir.assemble(examples.text(i), version=v) for i, (_, v) in examples.MODULES.items()]
    assert len(benchmark(lambda: [bytes(bytearray(data)) for data in images])) == 2


@pytest.mark.parametrize("function", ["viaOwn", "viaBase", "viaUnion"])
@pytest.mark.benchmark(group="records checked again (10^4 records, 3 checks each)")
def test_nx_records_checked_again(benchmark: Any, function: str) -> None:
    # A subtype checked as its base, and a union case as its union, beside a record checked as
    # its own declaration: the same charges, and after the first check the same kept record.
    program = rechecks_program()
    result = benchmark(ir.evaluate_function, program, function, (RECHECKS_ITEMS,), limits=BUDGET)
    assert result.usage["operations"] == RECHECKS_OPERATIONS[function]
    assert result.value == ([3] if function == "viaUnion" else ["xxx"]) * RECHECKS_ITEMS
    record(f"rechecks {function}", benchmark)


@pytest.mark.parametrize("case", list(HOST_SHAPES_INPUT))
@pytest.mark.benchmark(group="host input: 1,000 records as a record, a subtype, a union case")
def test_nx_host_records_by_layout(benchmark: Any, case: str) -> None:
    # The same records from Python where a concrete record, an abstract record or a union is
    # declared: each read in the layout its declaration (or its `$type`, first or last) names.
    program = host_shapes_program()
    function, given = case.split()[0], HOST_SHAPES_INPUT[case]
    result = benchmark(ir.evaluate_function, program, function, (given,), limits=BUDGET)
    assert result.value == [r["name"] if function == "viaBase" else r["radius"] for r in given]
    assert result.usage["operations"] == 7_003
    record(f"host records {case}", benchmark)


@pytest.mark.parametrize(("cases", "name_length"), [(2, 8), (4096, 1000)])
@pytest.mark.benchmark(group="union cases found by name (1,000 built and checked)")
def test_nx_union_cases_found_by_name(benchmark: Any, cases: int, name_length: int) -> None:
    # The same loop over a union of 2 short cases and of 4,096 cases whose 1,000-byte names
    # share all but their last five bytes: each case is found by a search, not a scan.
    program, _ = many_cases_program(cases, name_length)
    result = benchmark(ir.evaluate_function, program, "checked", (1000,), limits=BUDGET)
    assert result.value == [1] * 1000
    assert result.usage["operations"] == 10_010
    record(f"union cases {cases}", benchmark)
