"""What the atheris target (fuzz/boundary.py) found at the Python boundary, kept as tests: host
values whose own methods raise, run forever or change the value being read; names and messages
that made Python errors other than NxError escape; and inputs, contexts and request answers that
made a tool's ``execute`` raise."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, Iterator

import pytest

from agent_programs import execute_definition, link_execute_program
from corpus import programs
from nx_agent import NxError, create_agent_tools, examples, ir
from test_evaluate import link
from hostile import Boom, RaisingDict, RaisingList

HOST_VALUES = next((p for p in programs() if p.name == "host-values"), None)
needs_corpus = pytest.mark.skipif(HOST_VALUES is None, reason="no corpus: see tests/corpus.py")


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


@pytest.mark.parametrize("args", ["teamSize", 3, {5}, b"5"])
def test_call_function_refuses_args_that_are_neither_a_dict_nor_a_sequence(args: Any) -> None:
    function = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(examples.link_example(), function, args)
    assert refused.value.code == "nx-ir-arguments"


def test_call_function_reads_positional_args_from_storage() -> None:
    function = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}
    by_position = ir.call_function(examples.link_example(), function, RaisingList([40]))
    by_name = ir.call_function(examples.link_example(), function, {"teamSize": 40})
    assert by_position.value == by_name.value


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


# ---- execute (agent-package §5.3 step 9: a call never raises for a tool failure) ---------------

CHAT = {"$type": "ChatToolContext", "conversationId": "conv_9"}


class RaisingMapping(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise Boom("__getitem__")

    def __iter__(self) -> Iterator[str]:
        raise Boom("__iter__")

    def __len__(self) -> int:
        return 1


class EqStr(str):
    """A key equal in hash to a name but whose comparison raises."""

    def __eq__(self, other: object) -> bool:
        raise Boom("__eq__")

    def __hash__(self) -> int:
        return str.__hash__(self)


def tools(answer: Any = None) -> dict[str, Any]:
    created = create_agent_tools(
        json.loads(json.dumps(execute_definition())),
        link_execute_program(),
        request=lambda call: answer,
        executors={"builtin": lambda tool, input, call: "found"},
    )
    return {tool.name: tool for tool in created}


def test_a_dict_subclass_is_read_from_its_storage_as_input_and_context() -> None:
    by_name = tools()
    plain = by_name["find_plans"].execute({"teamSize": 5}, call_id="t1")
    assert plain["ok"] is True
    assert by_name["find_plans"].execute(RaisingDict(teamSize=5), call_id="t1") == plain
    chat = by_name["who_am_i"].execute({}, call_id="t1", context=CHAT)
    assert chat["ok"] is True and chat["output"] == "conv_9"
    assert by_name["who_am_i"].execute(RaisingDict(), call_id="t1", context=RaisingDict(CHAT)) == chat


@pytest.mark.parametrize(
    ("tool", "input", "context", "code"),
    [
        ("find_plans", RaisingMapping(), None, "invalid-input"),
        ("who_am_i", RaisingMapping(), CHAT, "invalid-input"),
        ("who_am_i", {EqStr("context"): 1}, CHAT, "invalid-input"),
        ("who_am_i", {}, RaisingMapping(), "invalid-context"),
        ("who_am_i", {}, {EqStr("$type"): "ChatToolContext"}, "invalid-context"),
    ],
)
def test_a_mapping_that_cannot_be_read_is_a_failed_result(tool: str, input: Any, context: Any, code: str) -> None:
    result = tools()[tool].execute(input, call_id="t1", context=context)
    assert result["ok"] is False and result["error"]["code"] == code, result


def test_a_request_answer_that_cannot_be_read_is_request_failed() -> None:
    result = tools(RaisingMapping())["lookup_order"].execute({"orderId": "A1"}, call_id="t1")
    assert result["ok"] is False and result["error"]["code"] == "request-failed", result
