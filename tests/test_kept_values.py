"""Values of value declarations kept between evaluations on one thread (the evaluator's
`constants` cache): an evaluation that replays a kept value charges, returns and fails exactly
as one of a freshly linked program, whatever its budget or limits."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from nx_agent import ir

PRELUDE_LINK = 'links @nx/prelude.nx version "1" fingerprint 16429037828798365428'

KEPT = f"""\
module kept.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [total banner deep] components []

value squares =
  for i in <@nx/prelude.nx:Range end=40 endInclusive=false start=0 /> yield
    (i mul i)

value line =
  ("0123456789012345678901234567890123456789" concat "0123456789012345678901234567890123456789")

value nested =
  down(12)

function down(n: int) =
  if (n gt 0) then
    down((n sub 1))
  else
    squares

function total() =
  [squares, squares]

function banner() =
  [line, line]

function deep() =
  nested
"""

IMAGE = ir.assemble(KEPT)


def fresh() -> ir.Program:
    """A newly linked program: nothing of it has been evaluated on any thread."""
    return ir.link_program(ir.prepare_module(IMAGE))


def outcome(program: ir.Program, name: str, **limits: Any) -> tuple[Any, ...]:
    """What an evaluation returns or how it fails, with what it used."""
    try:
        result = ir.evaluate_function(program, name, (), **limits)
    except ir.NxIrError as error:
        first = error.diagnostics[0]
        return ("failed", error.code, first.declaration, first.limit, getattr(error, "usage", None))
    return ("ok", result.value, result.usage)


@pytest.mark.parametrize("name", ["total", "banner", "deep"])
def test_every_budget_fails_or_succeeds_as_a_fresh_program(name: str) -> None:
    warm = fresh()
    count = outcome(warm, name, max_operations=10**9)[2]["operations"]
    for budget in range(count + 2):
        assert outcome(warm, name, max_operations=budget) == outcome(fresh(), name, max_operations=budget)


@pytest.mark.parametrize("name", ["total", "banner", "deep"])
def test_an_unbudgeted_evaluation_keeps_nothing_a_budgeted_one_counts_differently(name: str) -> None:
    warm = fresh()
    outcome(warm, name)
    assert outcome(warm, name, max_operations=10**9) == outcome(fresh(), name, max_operations=10**9)


def test_a_smaller_range_limit_fails_after_a_kept_value() -> None:
    warm = fresh()
    assert outcome(warm, "total", max_operations=10**9)[0] == "ok"
    failed = outcome(warm, "total", max_operations=10**9, max_range_length=39)
    assert failed == outcome(fresh(), "total", max_operations=10**9, max_range_length=39)
    assert failed[1] == "nx-ir-resource-limit"
    assert failed[3] == {"name": "maxRangeLength", "value": 39}


def test_a_smaller_call_depth_fails_after_a_kept_value() -> None:
    warm = fresh()
    assert outcome(warm, "deep", max_operations=10**9)[0] == "ok"
    for depth in range(14):
        assert outcome(warm, "deep", max_operations=10**9, max_call_depth=depth) == outcome(
            fresh(), "deep", max_operations=10**9, max_call_depth=depth
        )
    failed = outcome(warm, "deep", max_operations=10**9, max_call_depth=5)
    assert failed[1] == "nx-ir-resource-limit"
    assert failed[3] == {"name": "maxCallDepth", "value": 5}


def test_threads_sharing_a_program_count_alike() -> None:
    shared = fresh()
    expected = outcome(fresh(), "deep", max_operations=10**9)
    seen: list[tuple[Any, ...]] = []

    def evaluate() -> None:
        for _ in range(50):
            seen.append(outcome(shared, "deep", max_operations=10**9))

    workers = [threading.Thread(target=evaluate) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert seen == [expected] * 200


def test_a_kept_value_is_replayed_not_evaluated_again() -> None:
    from nx_agent import _native

    warm = fresh()
    cold = outcome(warm, "deep", max_operations=10**9)
    cold_work = _native._last_call_work()
    assert outcome(warm, "deep", max_operations=10**9) == cold
    assert _native._last_call_work() < cold_work
