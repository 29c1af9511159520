"""`call_function`: a Function value called with arguments by name or by position (issue 3;
ir-format §4.9 for binding and codes, §6.2 for input size)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- A plain Function record is resolved at once; the call is the same as for any record -------

LONG_MODULE = "tools/" + "m" * 70 + ".nx"
LONG_NAME = "f" * 70
LONG_NAMES = f"""\
module {LONG_MODULE} fingerprint 1
entrypoints functions [{LONG_NAME}] components []

function {LONG_NAME}(n: int) =
  n
"""


class RecordSubclass(dict):  # type: ignore[type-arg]
    """A Function record the quick path leaves to the runtime's own reading."""


def _same_call(program: ir.Program, function: dict[str, str], args: Any, **limits: Any) -> ir.Evaluation:
    """The call through the plain record, checked against the same record read in full."""
    quick = ir.call_function(program, function, args, **limits)
    for other in (RecordSubclass(function), dict(reversed(list(function.items())))):
        full = ir.call_function(program, other, args, **limits)
        assert (full.value, full.usage) == (quick.value, quick.usage)
    return quick


def test_a_long_module_and_name_add_their_text_to_the_record() -> None:
    program = ir.link_program(ir.prepare_module(ir.assemble(LONG_NAMES)))
    function = {"$type": "Function", "module": LONG_MODULE, "name": LONG_NAME}
    size = ir.measure_input_size(function) + ir.measure_input_size({"n": 7})
    assert size == 3 + 1 + 1 + 2  # each text of 64 to 127 units adds 1
    result = _same_call(program, function, {"n": 7}, max_input_size=size, max_operations=100)
    assert result.value == 7 and result.usage == {"operations": result.usage["operations"], "input_size": size}
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, function, {"n": 7}, max_input_size=size - 1)
    assert refused.value.diagnostics[0].limit == {"name": "maxInputSize", "value": size - 1}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=150),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=70), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(extra=JSON, key=st.text(max_size=80).filter(lambda k: k != "teamSize"))
def test_input_size_is_measured_once_and_exactly(extra: Any, key: str) -> None:
    # Names the function does not declare are dropped, but they are input: the size is the
    # record's and the arguments' (§6.2), at the limit the call runs, one under it is refused.
    program = examples.link_example()
    args = {"teamSize": 40, key: extra}
    size = ir.measure_input_size(FIND_PLANS) + ir.measure_input_size(args)
    result = _same_call(program, FIND_PLANS, args, max_input_size=size)
    assert result.usage == {"input_size": size}
    business_only(result)
    for function in (FIND_PLANS, RecordSubclass(FIND_PLANS)):
        with pytest.raises(ir.NxIrError) as refused:
            ir.call_function(program, function, args, max_input_size=size - 1)
        assert refused.value.code == "nx-ir-resource-limit"
    positional = [40, extra]
    size = ir.measure_input_size(FIND_PLANS) + ir.measure_input_size(positional)
    with pytest.raises(ir.NxIrError) as refused:  # a second argument that is no int
        ir.call_function(program, FIND_PLANS, positional, max_input_size=size - 1)
    assert refused.value.code == "nx-ir-resource-limit"
    entry_args = (40, extra)
    size = sum(ir.measure_input_size(arg) for arg in entry_args)
    for limit, over in ((size - 1, True), (size, False)):
        try:
            ir.evaluate_function(program, "findPlans", entry_args, max_input_size=limit)
            code = None
        except ir.NxIrError as error:
            code = error.code
        assert (code == "nx-ir-resource-limit") is over


MANY = """module many.nx fingerprint 1
entrypoints functions [sum10 first second] components []

function sum10(a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int, i: int, j: int): int =
  (((((((((a add b) add c) add d) add e) add f) add g) add h) add i) add j)

function first(x: int): int =
  (x add 1)

function second(x: int): int =
  (x add 2)
"""


@pytest.fixture(scope="module")
def many() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(MANY)))


def function(name: str) -> dict[str, Any]:
    return {"$type": "Function", "module": "many.nx", "name": name}


def test_more_arguments_than_are_held_on_the_stack(many: ir.Program) -> None:
    # Ten arguments: past the eight a call converts on the stack, by position and by name.
    values = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    by_position = ir.evaluate_function(many, "sum10", values, max_operations=1_000)
    assert by_position.value == 1023
    named = dict(zip("abcdefghij", values))
    assert ir.call_function(many, function("sum10"), named, max_operations=1_000).value == 1023
    assert ir.call_function(many, function("sum10"), values, max_operations=1_000).usage == by_position.usage


def test_each_function_record_calls_its_own_function(many: ir.Program) -> None:
    # Records of different functions, records equal to an earlier one but made anew, and keys
    # that are not the interned strings (built at run time): each calls what it names.
    built = {"".join(["$", "type"]): "Function", "".join(["mod", "ule"]): "many.nx", "".join(["na", "me"]): "".join(["sec", "ond"])}
    for record, expected in [
        (function("first"), 11),
        (function("second"), 12),
        (function("first"), 11),
        (built, 12),
        (dict(function("first")), 11),
        ({"name": "second", "module": "many.nx", "$type": "Function"}, 12),
    ]:
        assert ir.call_function(many, record, {"x": 10}).value == expected, record


def test_a_record_of_a_missing_function_fails_after_one_that_resolved(many: ir.Program) -> None:
    assert ir.call_function(many, function("first"), {"x": 1}).value == 2
    with pytest.raises(ir.NxIrError) as raised:
        ir.call_function(many, function("third"), {"x": 1})
    assert raised.value.code == "nx-ir-function-value"


def test_each_entrypoint_name_calls_its_own_entrypoint(many: ir.Program) -> None:
    # Names in turn, a name equal to an earlier one but made anew, then one naming nothing.
    for name, expected in [("first", 11), ("second", 12), ("first", 11), ("".join(["sec", "ond"]), 12)]:
        assert ir.evaluate_function(many, name, [10]).value == expected, name
    with pytest.raises(ir.NxIrError) as raised:
        ir.evaluate_function(many, "third", [10])
    assert raised.value.code == "nx-ir-missing-entrypoint"
    assert ir.evaluate_function(many, "second", [10]).value == 12
