"""What the atheris target (fuzz/boundary.py) found at the Python boundary, kept as tests: host
values whose own methods raise, run forever or change the value being read; names and messages
that made Python errors other than NxError escape."""

from __future__ import annotations

import sys
from typing import Any, Iterator

import pytest

from corpus import programs
from nx_agent import NxError, examples, ir
from test_evaluate import link

HOST_VALUES = next((p for p in programs() if p.name == "host-values"), None)
needs_corpus = pytest.mark.skipif(HOST_VALUES is None, reason="no corpus: see tests/corpus.py")


class Boom(Exception):
    pass


class RaisingList(list):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[Any]:
        raise Boom("__iter__")

    def __len__(self) -> int:
        raise Boom("__len__")

    def __getitem__(self, index: Any) -> Any:
        raise Boom("__getitem__")


class EndlessList(list):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[Any]:
        while True:
            yield 1


class RaisingTuple(tuple):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[Any]:
        raise Boom("__iter__")


class Clearing(list):  # type: ignore[type-arg]
    """Empties the dict it sits in when iterated."""

    def __init__(self, owner: dict[str, Any]) -> None:
        super().__init__([1, 2])
        self.owner = owner

    def __iter__(self) -> Iterator[Any]:
        self.owner.clear()
        self.owner.update({f"k{i}": i for i in range(40)})
        yield 1


class Unprintable:
    def __str__(self) -> str:
        raise Boom("__str__")

    def __repr__(self) -> str:
        raise Boom("__repr__")

    def __index__(self) -> int:
        raise Boom("__index__")


def held() -> ir.Program:
    assert HOST_VALUES is not None
    return link(HOST_VALUES, "main.nx")


HELD = {"$type": "Function", "module": "main.nx", "name": "held"}


@needs_corpus
@pytest.mark.parametrize("make", [RaisingList, EndlessList, RaisingTuple])
def test_a_list_is_read_from_its_items_not_its_methods(make: Any) -> None:
    value = make([1, "two", [3]])
    # `held(o: object) = o` (host-values) answers the items the list holds.
    assert ir.evaluate_function(held(), "held", [value], max_operations=10_000).value == [1, "two", [3]]
    assert ir.evaluate_function(held(), "held", make([value]), max_operations=10_000).value == [1, "two", [3]]
    assert ir.call_function(held(), HELD, {"o": {"x": value}}, max_operations=10_000).value == {"x": [1, "two", [3]]}
    # §6.2: one per value (the list, 1, "two", [3] and 3); the same measured in place.
    assert ir.measure_input_size(value) == 5
    assert ir.measure_input_size(value, limit=100) == 5
    assert ir.measure_input_size(value, limit=1) > 1


@needs_corpus
def test_a_dict_does_not_change_while_it_is_read() -> None:
    owner: dict[str, Any] = {"a": 1}
    owner["b"] = Clearing(owner)
    result = ir.evaluate_function(held(), "held", [owner], max_operations=10_000)
    assert result.value == {"a": 1, "b": [1, 2]}
    assert ir.measure_input_size(owner, limit=100) == 5
    assert ir.call_function(held(), HELD, {"o": owner}, max_operations=10_000).value == {"a": 1, "b": [1, 2]}


def test_an_entrypoint_name_that_is_not_unicode_names_no_entrypoint() -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(examples.link_example(), "find\ud800Plans", [5])
    assert refused.value.code == "nx-ir-missing-entrypoint"


@pytest.mark.parametrize("args", [[5], "teamSize", 3, RaisingList([1])])
def test_call_function_refuses_args_that_are_not_a_dict(args: Any) -> None:
    function = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(examples.link_example(), function, args)
    assert refused.value.code == "nx-ir-arguments"


@pytest.mark.parametrize(
    "call",
    [
        lambda: ir.evaluate_function(examples.link_example(), "findPlans", [10**5000]),
        lambda: ir.evaluate_function(examples.link_example(), "findPlans", [{Unprintable(): 1}]),
        lambda: ir.call_function(examples.link_example(), {"$type": "Function"}, {Unprintable(): 1}),
        lambda: ir.Limits(max_operations=Unprintable()),
        lambda: ir.Limits(max_operations=-(10**5000)),
        lambda: ir.evaluate_function(examples.link_example(), "findPlans", [5], max_input_size=[[[[]]]] * 3),
    ],
)
def test_refusals_run_no_method_of_the_value(call: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(NxError) as refused:
        call()
    assert refused.value.code in {"nx-ir-boundary-type", "nx-ir-options"}
    assert "Boom" not in str(refused.value) and len(str(refused.value)) < 300
    assert unraisable == []
