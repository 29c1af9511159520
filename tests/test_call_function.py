"""`call_function`: a Function value called with arguments by name or by position (issue 3;
ir-format §4.9 for binding and codes, §6.2 for input size)."""

from __future__ import annotations

from typing import Any

import pytest

from nx_agent import examples, ir

FIND_PLANS = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}


@pytest.fixture(scope="module")
def program() -> ir.Program:
    return examples.link_example()


def business_only(result: ir.Evaluation) -> None:
    assert [plan["name"] for plan in result.value] == ["Business"]


@pytest.mark.parametrize("args", [{"teamSize": 40}, [40], (40,)])
def test_arguments_by_name_or_by_position(program: ir.Program, args: Any) -> None:
    result = ir.call_function(program, FIND_PLANS, args, max_operations=10_000)
    business_only(result)


def test_by_name_and_by_position_cost_the_same_as_evaluate_function(program: ir.Program) -> None:
    # A call by name binds like namedCall and a call by position like call (§4.9): the
    # evaluation is the same, so is its count.
    reference = ir.evaluate_function(program, "findPlans", [5], max_operations=10_000)
    by_name = ir.call_function(program, FIND_PLANS, {"teamSize": 5}, max_operations=10_000)
    by_position = ir.call_function(program, FIND_PLANS, [5], max_operations=10_000)
    assert by_name.value == by_position.value == reference.value
    assert by_name.usage == by_position.usage == reference.usage


def test_names_the_function_does_not_declare_are_dropped(program: ir.Program) -> None:
    business_only(ir.call_function(program, FIND_PLANS, {"teamSize": 40, "extra": "ignored"}))


def test_too_many_positional_arguments(program: ir.Program) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, FIND_PLANS, [5, 6])
    assert refused.value.code == "nx-ir-arguments"
    assert refused.value.diagnostics[0].argument is None


@pytest.mark.parametrize("args", [{}, [], None])
def test_a_missing_required_argument_names_the_parameter(program: ir.Program, args: Any) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, FIND_PLANS, args)
    assert refused.value.code == "nx-ir-arguments"
    assert refused.value.diagnostics[0].argument == "teamSize"


@pytest.mark.parametrize("args", [{"teamSize": "five"}, ["five"]])
def test_a_value_of_the_wrong_type_names_the_parameter(program: ir.Program, args: Any) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, FIND_PLANS, args)
    assert refused.value.code == "nx-ir-boundary-type"
    assert refused.value.diagnostics[0].argument == "teamSize"


@pytest.mark.parametrize(
    ("args", "path"),
    [([{1}], "args[0]"), ({"teamSize": b"x"}, 'args["teamSize"]'), ([[1, object()]], "args[0][1]")],
)
def test_arguments_without_a_canonical_form(program: ir.Program, args: Any, path: str) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, FIND_PLANS, args)
    assert refused.value.code == "nx-ir-boundary-type"
    assert refused.value.diagnostics[0].message.startswith(path + " ")


@pytest.mark.parametrize("args", [5, "teamSize", {5}])
def test_arguments_that_are_neither_by_name_nor_by_position(program: ir.Program, args: Any) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, FIND_PLANS, args)
    assert refused.value.code == "nx-ir-arguments"


def test_a_dict_key_that_is_not_a_string(program: ir.Program) -> None:
    args: Any = {1: 5}
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, FIND_PLANS, args)
    assert refused.value.code == "nx-ir-boundary-type"


@pytest.mark.parametrize(
    "function",
    [
        {"$type": "Function", "module": "plans/main.nx", "name": "nope"},
        {"$type": "Function", "module": "nowhere.nx", "name": "findPlans"},
        {"module": "plans/main.nx", "name": "findPlans"},
        "findPlans",
    ],
)
def test_a_bad_function_value(program: ir.Program, function: Any) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, function, [5])
    assert refused.value.code == "nx-ir-function-value"
    assert refused.value.diagnostics[0].argument is None


def test_input_size_counts_the_record_then_the_arguments(program: ir.Program) -> None:
    # §6.2: the Function record as one value (1 + two strings = 3), then the arguments as one
    # record (1 + the int); by position, as one list of the same size.
    for args in ({"teamSize": 5}, [5]):
        result = ir.call_function(program, FIND_PLANS, args, max_input_size=5)
        assert result.usage == {"input_size": 5}
        with pytest.raises(ir.NxIrError) as refused:
            ir.call_function(program, FIND_PLANS, args, max_input_size=4)
        assert refused.value.code == "nx-ir-resource-limit"
        assert refused.value.diagnostics[0].limit == {"name": "maxInputSize", "value": 4}
