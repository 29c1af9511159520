"""What the agent layer needs of the IR runtime's Python face: the measure of agent-package §5.13
on host values as they lie, the usage of a failed call, and an unconvertible argument named."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nx_agent import ir


def test_measure_worked_values() -> None:
    measure = ir.measure_input_size
    assert measure({"teamSize": 5}, 1000) == 2
    assert measure({"$type": "Function", "module": "main.nx", "name": "findPlans"}, 1000) == 3
    for k in (3, 5, 900, 1000):
        assert measure({"note": "x" * (64 * (k - 2))}, 10**6) == k
        assert measure({"note": "x" * (64 * (k - 2))}) == k
    record = {"$type": "ChatToolContext", "conversationId": "c" * (64 * (900 - 3)), "callId": "t1:0:0"}
    assert measure(record, 10**6) == 900
    assert measure({**record, "callId": "t" * 64}, 10**6) == 901
    assert measure({"x" * 70: 0}, 100) == 3


def test_measure_counts_utf16_units() -> None:
    # 32 astral characters are 64 UTF-16 units: one more.
    assert ir.measure_input_size({"a": "\U0001d11e" * 32}, 100) == 3
    assert ir.measure_input_size({"a": "é" * 64}, 100) == 3
    assert ir.measure_input_size({"a": "\ud800" * 64}, 100) == 3


def test_measure_stops_at_the_limit_and_never_raises() -> None:
    cyclic: dict[str, Any] = {"$type": "X", "a": 1}
    cyclic["self"] = cyclic
    deep: dict[str, Any] = {"$type": "X"}
    for _ in range(20_000):
        deep = {"$type": "X", "inner": deep}
    huge = {"items": [1] * 2_000_000}
    for value in (cyclic, deep, huge):
        assert ir.measure_input_size(value, 1000) > 1000


_TEXT = st.text(st.characters(codec="utf-8"), max_size=140)
_CANONICAL = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.sampled_from(["a", "$type", "x" * 70, "é" * 64]) | _TEXT, inner, max_size=5),
    max_leaves=40,
)


@given(value=_CANONICAL, limit=st.integers(0, 80))
def test_the_measure_where_a_value_lies_is_the_measure_of_the_value_converted(value: Any, limit: int) -> None:
    # The same shared and repeated pieces, held twice: measured as the tree they read as.
    value = [value, value]
    size = ir.measure_input_size(value)
    if size <= limit:
        assert ir.measure_input_size(value, limit) == size
    else:
        assert ir.measure_input_size(value, limit) > limit
    assert ir.measure_input_size(value, 10**9) == size


def test_measure_counts_an_object_of_another_class_as_one() -> None:
    assert ir.measure_input_size({"a": object(), "b": [None, True, 1.5]}, 100) == 6


def _program() -> ir.Program:
    text = (
        "module main.nx fingerprint 1\n"
        "entrypoints functions [half] components []\n\n"
        "function half(n: int): int =\n"
        "  (10 div n)\n"
    )
    return ir.prepare_program(ir.assemble(text))


HALF = {"$type": "Function", "module": "main.nx", "name": "half"}


def test_failed_call_reports_its_usage() -> None:
    limits = ir.Limits(max_operations=1000, max_input_size=100)
    with pytest.raises(ir.NxIrError) as failed:
        ir.call_function(_program(), HALF, {"n": "two"}, limits=limits)
    assert failed.value.code == "nx-ir-boundary-type"
    assert failed.value.usage["input_size"] == 5
    assert isinstance(failed.value.usage["operations"], int)


def test_unconvertible_argument_names_its_parameter() -> None:
    with pytest.raises(ir.NxIrError) as failed:
        ir.call_function(_program(), HALF, {"n": {1, 2}}, max_operations=1000)
    assert failed.value.code == "nx-ir-boundary-type"
    assert failed.value.diagnostics[0].argument == "n"
