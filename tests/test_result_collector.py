"""Results and CPython's cyclic collector: the writer keeps each complete list and dict of a
large result (past its first 128) out of the collector's view while the rest is written (see
`sink.rs`, `set_aside`), and tracks them again before the call returns. Whatever runs meanwhile, the host gets what CPython
itself would have made: every container tracked that CPython tracks, and a cycle the host
builds into a result collected."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from component_programs import BOX
from nx_agent import ir

NESTED = """module main.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [entries] components []

record Leaf
  label: string required
  value: int required

record Detail
  leaf: Leaf required
  weight: int required

record Entry
  id: int required
  detail: Detail required
  tags: string* required

function entries(n: int): Entry* =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    <Entry detail=<Detail leaf=<Leaf label="leaf" value=i /> weight=(i mul 2) /> id=i tags=["a", "b"] />
"""

PROGRAM = ir.link_program(ir.prepare_module(ir.assemble(NESTED)))


def expected(n: int) -> list[dict[str, Any]]:
    return [
        {
            "$type": "Entry",
            "id": i,
            "detail": {"$type": "Detail", "leaf": {"$type": "Leaf", "label": "leaf", "value": i}, "weight": 2 * i},
            "tags": ["a", "b"],
        }
        for i in range(n)
    ]


def containers(value: Any) -> Iterator[Any]:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, dict)):
            yield item
            pending.extend(item.values() if isinstance(item, dict) else item)


def assert_tracked_as_cpython_would(value: Any) -> None:
    seen = 0
    for container in containers(value):
        seen += 1
        # CPython tracks every list, and a dict once anything it may track is set in it: the
        # same items set one by one in a new dict say which. (Not `dict(container)`, which
        # copies the tracking of the dict it copies.)
        twin = list(container) if isinstance(container, list) else {key: item for key, item in container.items()}
        assert gc.is_tracked(container) == gc.is_tracked(twin), container
    assert seen > 0


@pytest.fixture
def collecting_at_every_allocation() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def test_every_container_of_a_result_is_tracked_as_cpython_would_track_it() -> None:
    value = ir.evaluate_function(PROGRAM, "entries", [300]).value
    assert value == expected(300)
    assert_tracked_as_cpython_would(value)
    # Lists, and dicts holding dicts or lists, are tracked; a dict of scalars is not.
    assert gc.is_tracked(value) and gc.is_tracked(value[0]) and gc.is_tracked(value[0]["detail"])
    assert gc.is_tracked(value[0]["tags"]) and not gc.is_tracked(value[0]["detail"]["leaf"])


def test_a_result_written_while_the_collector_runs_at_every_allocation(collecting_at_every_allocation: None) -> None:
    for n in (1, 50, 700):
        value = ir.evaluate_function(PROGRAM, "entries", [n]).value
        assert value == expected(n)
        assert_tracked_as_cpython_would(value)


def test_a_cycle_the_host_builds_into_a_result_is_collected() -> None:
    class Marker:
        pass

    value = ir.evaluate_function(PROGRAM, "entries", [400]).value
    marker = Marker()
    value[-1]["detail"]["leaf"]["marker"] = marker
    marker.result = value  # type: ignore[attr-defined]
    alive = weakref.ref(marker)
    del value, marker
    gc.collect()
    assert alive() is None


def test_a_components_output_and_state_are_tracked_as_cpython_would_track_them(collecting_at_every_allocation: None) -> None:
    program = ir.link_program(ir.prepare_module(ir.assemble(BOX, schema=5)))
    started = ir.initialize_component(program, "Box")
    assert_tracked_as_cpython_would(started.output)
    instance = started.instance
    # Each tap nests Box's state a level deeper: past 140 taps its state is more dicts than
    # the writer leaves in the collector's view.
    for _ in range(140):
        done = ir.dispatch_component_actions(
            program,
            instance,
            [{"$type": "ActionHandlerInvocation", "token": instance.tokens[0], "action": {"$type": "Button.Tapped"}}],
        )
        instance = done.instance
    assert_tracked_as_cpython_would(done.output)
    assert_tracked_as_cpython_would(done.state)
    assert gc.is_tracked(done.output)
