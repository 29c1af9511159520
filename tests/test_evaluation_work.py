"""Work in proportion to what is charged, through the Python boundary, and the GIL released
only while long evaluations run (issue 3). The work counter (`_native._last_call_work`) counts
values read, copied, built, compared or written, fields scanned and 64-byte units of text."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest

from nx_agent import _native, ir

PRELUDE_LINK = 'links @nx/prelude.nx version "1" fingerprint 16429037828798365428'

ADVERSARY = f"""\
module adversary.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [echo growList squares compare] components []

function echo(o: object) =
  o

function growList(n: int, xs: object) =
  if (n gt 0) then
    growList((n sub 1), [xs, xs])
  else
    xs

function squares(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (i mul i)

function compare(a: object, b: object) =
  (a eq b)
"""

#: Work units allowed per operation charged or unit of input size (as in the Rust tests).
WORK_PER_UNIT = 48


@pytest.fixture(scope="module")
def program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(ADVERSARY)))


def run(program: ir.Program, name: str, args: list[Any], budget: int) -> tuple[Any, int, int]:
    """(the value or the error, operations, input size) with the work checked against them."""
    limits = ir.Limits(max_operations=budget, max_input_size=2**40)
    try:
        result = ir.evaluate_function(program, name, args, limits=limits)
    except ir.NxIrError as error:
        outcome: Any = error
        work = _native._last_call_work()
        # A failed call reports no usage: bound the work by the budget and the measured input.
        operations, size = budget, sum(ir.measure_input_size(a) for a in args)
    else:
        outcome = result.value
        work = _native._last_call_work()
        operations, size = result.usage["operations"], result.usage["input_size"]
    assert work <= WORK_PER_UNIT * (operations + size + 1), (work, operations, size)
    return outcome, operations, size


def test_a_large_python_value_costs_work_in_proportion_to_its_size(program: ir.Program) -> None:
    big = {f"f{i:06}": [i, str(i)] for i in range(50_000)}
    value, operations, size = run(program, "echo", [big], 10**9)
    assert value == big
    # §6.1: the check at object 1, the slot 1, then every value written once.
    assert size == 1 + 50_000 * 3
    assert operations == 2 + size


def test_writing_a_large_python_value_stops_at_the_budget(program: ir.Program) -> None:
    big = [[i, i] for i in range(100_000)]
    error, _, _ = run(program, "echo", [big], 10_000)
    assert isinstance(error, ir.NxIrError)
    assert error.code == "nx-ir-resource-limit"
    assert error.diagnostics[0].limit == {"name": "maxOperations", "value": 10_000}


def test_shared_python_structure_is_bounded_by_the_input_limit(program: ir.Program) -> None:
    # 40 levels of a dict holding one list twice: 2^40 places. The input limit refuses it
    # before anything is read (§6.2).
    shared: Any = [1]
    for _ in range(40):
        shared = {"a": shared, "b": shared}
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(program, "echo", [shared], max_input_size=100_000)
    assert refused.value.diagnostics[0].limit == {"name": "maxInputSize", "value": 100_000}
    assert ir.measure_input_size(shared, limit=1000) > 1000


def contains_itself(levels: int, ints: int) -> tuple[dict[str, Any], int]:
    """`levels` levels of {"a": [next level, this level]} over a list of `ints` ints: every
    level contains itself. Returns the value and the number of objects it is made of."""
    top: dict[str, Any] = {"a": None}
    level = top
    for _ in range(levels):
        below: dict[str, Any] = {"a": None}
        level["a"] = [below, level]
        level = below
    level["a"] = list(range(ints))
    return top, 2 * levels + 1 + ints


def test_a_value_that_contains_itself_is_refused_before_it_is_read_round_its_cycle(program: ir.Program) -> None:
    # Read where it lies (no input limit), it was read round its cycles until the nesting
    # limit stopped it (107,470 units of work, the 1,000 ints read again and again), and at 40
    # levels over 100,000 ints it took 2 GB; it is refused where the first cycle closes, and
    # the reader names it.
    top, objects = contains_itself(20, 1000)
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(program, "echo", [top], max_operations=10**6)
    assert refused.value.code == "nx-ir-boundary-type"
    assert "contains itself" in str(refused.value)
    assert _native._last_call_work() <= 4 * objects, _native._last_call_work()


@pytest.mark.parametrize("limit", [10**7, 2**62])
def test_measuring_a_value_that_contains_itself_stops_where_its_cycle_closes(limit: int) -> None:
    # A value that holds itself has no finite size, so it is over any limit (§6.2). Measured as
    # a tree, it was walked round its cycles until the size passed the limit: 6,666,667 values
    # read for a limit of 10^7 (10^7 by the call's check below), and a limit of 2^62 would take
    # thousands of years.
    top, objects = contains_itself(20, 1000)
    assert ir.measure_input_size(top, limit) > limit
    assert _native._last_measure_work() <= 2 * objects, _native._last_measure_work()
    # Without a cycle, the same shape of value is measured whole.
    tree, _ = contains_itself(0, 1000)
    assert ir.measure_input_size(tree, limit) == ir.measure_input_size(tree) == 1 + 1 + 1000
    with pytest.raises(ir.NxIrError) as refused:
        ir.measure_input_size(top)
    assert refused.value.code == "nx-ir-boundary-type"


@pytest.mark.parametrize("limit", [10**7, 2**62])
def test_a_value_that_contains_itself_is_over_any_input_limit(program: ir.Program, limit: int) -> None:
    # With an input limit, the call is refused on the limit, as the runtime measures before it
    # converts (§6.2), and the measure stops where the cycle closes instead of walking round it.
    top, objects = contains_itself(20, 1000)
    function = {"$type": "Function", "module": program.entry.identity, "name": "echo"}
    calls = [
        lambda: ir.evaluate_function(program, "echo", [top], max_input_size=limit),
        lambda: ir.call_function(program, function, {"o": top}, max_input_size=limit),
        lambda: ir.call_function(program, function, [top], max_input_size=limit),
    ]
    for call in calls:
        with pytest.raises(ir.NxIrError) as refused:
            call()
        assert refused.value.code == "nx-ir-resource-limit"
        assert refused.value.diagnostics[0].limit == {"name": "maxInputSize", "value": limit}
        assert _native._last_measure_work() <= 2 * objects, _native._last_measure_work()


def test_doubling_a_list_written_to_python_stops_at_the_budget(program: ir.Program) -> None:
    error, _, _ = run(program, "growList", [60, [1]], 200_000)
    assert isinstance(error, ir.NxIrError)
    assert error.diagnostics[0].limit == {"name": "maxOperations", "value": 200_000}
    assert error.diagnostics[0].declaration == "adversary.nx::growList"


def test_comparing_large_python_records_is_charged_per_field(program: ir.Program) -> None:
    left = {f"k{i}": i for i in range(20_000)}
    right = dict(left)
    value, _, _ = run(program, "compare", [left, right], 10**9)
    assert value is True
    error, _, _ = run(program, "compare", [left, right], 5_000)
    assert isinstance(error, ir.NxIrError)
    assert error.diagnostics[0].limit == {"name": "maxOperations", "value": 5_000}


def test_long_evaluations_release_the_gil(program: ir.Program) -> None:
    # With a switch interval far longer than the call, this thread can only run while the
    # other one is inside evaluate_function if the evaluation released the GIL.
    results: list[ir.Evaluation] = []
    started = threading.Event()

    def evaluate() -> None:
        started.set()
        results.append(ir.evaluate_function(program, "squares", [1_000_000], max_operations=10**9))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        worker = threading.Thread(target=evaluate)
        worker.start()
        started.wait()
        ran_during_the_call = not results
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert ran_during_the_call
    # ir-format §7.2: 5,000,009 for the literal bound, + the check and slot read of `n`.
    assert results[0].usage == {"operations": 5_000_010}
    assert results[0].value[999_999] == 999_999**2


def test_threads_share_one_program(program: ir.Program) -> None:
    outcomes: list[int] = []

    def evaluate() -> None:
        result = ir.evaluate_function(program, "squares", [100_000], max_operations=10**9)
        outcomes.append(result.value[-1])

    workers = [threading.Thread(target=evaluate) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert outcomes == [99_999**2] * 4
