"""Host input read in one pass (issue 19, the `summarize` workload): ``ir.evaluate_function``
reads its Python arguments where they lie straight into the evaluator's values, each record that
is already in its declared shape built once in that shape. What a call gives must not depend on
it: the value, the operations and the input size are those of the reader's way (which a profiled
call takes), and everything the reader refuses is refused with its code and message, the path to
the value included, wherever in a record it sits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nx_agent import ir
from nx_agent.profile import profile_function

ORDERS_MODULE = """module orders.nx fingerprint 1
entrypoints functions [worth first held] components []

record Customer
  name: string required
  tier: int required

record Order
  sku: string required
  quantity: int required
  price: int required
  customer: Customer required

function worth(orders: Order*) =
  for o in orders yield
    if ((o.quantity mul o.price) gt 900) then
      o.sku

function first(order: Order) =
  order

function held(value: object) =
  value
"""

BUDGET = 1_000_000


@pytest.fixture(scope="module")
def program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(ORDERS_MODULE)))


def orders(count: int) -> list[dict[str, Any]]:
    return [
        {
            "sku": f"sku-{i}",
            "quantity": i % 20,
            "price": i % 97,
            "customer": {"name": f"customer {i % 50}", "tier": i % 3},
        }
        for i in range(count)
    ]


def worth(given: list[dict[str, Any]]) -> list[str]:
    """What `worth` computes, in Python."""
    return [o["sku"] for o in given if o["quantity"] * o["price"] > 900]


def refusal(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(ir.NxIrError) as raised:
        call()
    return raised.value.code, str(raised.value)


def test_a_list_of_records_gives_what_the_program_computes(program: ir.Program) -> None:
    given = orders(1_000)
    evaluated = ir.evaluate_function(program, "worth", (given,), max_operations=BUDGET)
    assert evaluated.value == worth(given)
    assert evaluated.value  # some orders are worth more than 900
    # The reader's way (a profiled call takes it) gives the same value and operations.
    profiled = profile_function(program, "worth", (given,), max_operations=BUDGET)
    assert profiled.value == evaluated.value
    assert profiled.total == evaluated.operations


def test_records_in_any_key_order_with_subclasses_read_as_plain_ones(program: ir.Program) -> None:
    class Text(str):
        pass

    class Number(int):
        pass

    class Record(dict):  # type: ignore[type-arg]
        pass

    class Items(list):  # type: ignore[type-arg]
        pass

    plain = orders(60)
    odd = Items(
        Record(
            customer=Record(tier=Number(o["customer"]["tier"]), name=Text(o["customer"]["name"])),
            price=Number(o["price"]),
            sku=Text(o["sku"]),
            quantity=o["quantity"],
        )
        for o in plain
    )
    expected = ir.evaluate_function(program, "worth", (plain,), max_operations=BUDGET)
    got = ir.evaluate_function(program, "worth", [odd], max_operations=BUDGET)
    assert got.value == expected.value == worth(plain)
    assert got.operations == expected.operations


def test_texts_of_every_storage_read_as_the_reader_reads_them(program: ir.Program) -> None:
    # CPython stores a str as compact ASCII (read in place), Latin-1, UCS-2 or UCS-4, and a
    # subclass's characters apart from its header: each is read as its UTF-8, key or value.
    class Text(str):
        pass

    texts = ["sku", "", "a" * 100, "é latin-1", "Ω ucs-2", "😀 ucs-4", Text("ascii subclass"), Text("é subclass")]
    given = {text: text for text in texts}
    evaluated = ir.evaluate_function(program, "held", (given,), max_operations=BUDGET)
    assert evaluated.value == {str(text): str(text) for text in texts}
    profiled = profile_function(program, "held", (given,), max_operations=BUDGET)
    assert profiled.value == evaluated.value
    assert profiled.total == evaluated.operations
    # In a declared record too: each text is the field's value, and the record is in its shape.
    for sku, name in [("sku-é", "😀"), (Text("Ω"), Text("plain")), ("", "a" * 100)]:
        order = {"sku": sku, "quantity": 30, "price": 31, "customer": {"name": name, "tier": 1}}
        assert ir.evaluate_function(program, "worth", ([order],), max_operations=BUDGET).value == [sku]
        first = ir.evaluate_function(program, "first", (order,), max_operations=BUDGET).value
        assert (first["sku"], first["customer"]["name"]) == (sku, name)


def test_a_record_comes_back_in_its_declared_shape(program: ir.Program) -> None:
    given = {"customer": {"tier": 2, "name": "Bo"}, "price": 50, "quantity": 19, "sku": "b"}
    evaluated = ir.evaluate_function(program, "first", (given,), max_operations=BUDGET)
    assert evaluated.value == {"$type": "Order", **given, "customer": {"$type": "Customer", "name": "Bo", "tier": 2}}
    assert list(evaluated.value) == ["$type", "customer", "price", "quantity", "sku"]
    profiled = profile_function(program, "first", (given,), max_operations=BUDGET)
    assert profiled.total == evaluated.operations


def test_values_normalizing_converts_or_refuses_keep_their_answers(program: ir.Program) -> None:
    # An integral float at an int field is the int.
    integral = {**orders(1)[0], "quantity": 19.0, "price": 50}
    assert ir.evaluate_function(program, "worth", ([integral],)).value == ["sku-0"]
    assert ir.evaluate_function(program, "first", (integral,)).value["quantity"] == 19
    wrong = {**orders(1)[0], "sku": 5}
    code, message = refusal(lambda: ir.evaluate_function(program, "worth", ([wrong],)))
    assert code == "nx-ir-boundary-type"
    assert "orders[0].sku" in message
    extra = {**orders(1)[0], "discount": 3}
    code, message = refusal(lambda: ir.evaluate_function(program, "first", (extra,)))
    assert code == "nx-ir-boundary-field"
    assert "'discount'" in message
    missing = {k: v for k, v in orders(1)[0].items() if k != "price"}
    code, message = refusal(lambda: ir.evaluate_function(program, "first", (missing,)))
    assert code == "nx-ir-boundary-field"
    assert "'price'" in message


def _evaluated(program: ir.Program, name: str, args: Any) -> tuple[Any, ...]:
    """`evaluate_function`'s value and operations, or its refusal's code and message."""
    try:
        evaluated = ir.evaluate_function(program, name, args, max_operations=BUDGET)
    except ir.NxIrError as error:
        return ("refused", error.code, str(error))
    return ("value", evaluated.value, evaluated.operations)


def _profiled(program: ir.Program, name: str, args: Any) -> tuple[Any, ...]:
    """The same from the reader's way (`profile_function`), whose refusals come back as the
    profile's error, or raised where nothing ran."""
    try:
        profiled = profile_function(program, name, args, max_operations=BUDGET)
    except ir.NxIrError as error:
        return ("refused", error.code, str(error))
    if profiled.error is not None:
        return ("refused", profiled.error.code, str(profiled.error))
    return ("value", profiled.value, profiled.total)


@pytest.mark.parametrize(
    "given",
    [
        {**orders(1)[0], "$type": "Order"},
        {**orders(1)[0], "$type": "Customer"},
        {**orders(1)[0], "$type": 5},
        {"sku": "a", "quantity": 30, "sku2": "b", "price": 31, "customer": {"name": "Bo", "tier": 1}},
        {**orders(1)[0], "customer": {"name": "Bo", "tier": 1, "$type": "Order"}},
        {**orders(1)[0], "customer": {"name": "Bo", "tier": 1, "vip": True}},
        {"quantity": 30.0, "price": 31, "customer": {"tier": 1, "name": "Bo"}, "sku": "a", "note": None},
    ],
)
def test_a_record_found_part_way_not_in_its_shape_is_read_the_readers_way(program: ir.Program, given: dict[str, Any]) -> None:
    # Members are matched to the declared fields as they come, in the dict's order: a `$type`
    # naming another type, or a member no field takes, met after fields already read, sends the
    # record the reader's way from its start. Value, operations or refusal are the reader's.
    for name, args in (("first", (given,)), ("worth", ([given, *orders(2)],))):
        assert _evaluated(program, name, args) == _profiled(program, name, args)


def _nested(value: Any) -> list[dict[str, Any]]:
    """Two orders, the second's customer tier set to `value`."""
    given = orders(2)
    given[1]["customer"]["tier"] = value
    return given


def _cyclic() -> list[dict[str, Any]]:
    given = orders(2)
    given[1]["customer"]["tier"] = given[1]
    return given


def _keyed() -> list[dict[Any, Any]]:
    given: list[dict[Any, Any]] = orders(2)
    given[1]["customer"][7] = "seven"
    return given


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: _nested(10**20), 'args[0][1]["customer"]["tier"] is the integer 100000000000000000000, outside the 64-bit range'),
        (lambda: _nested(2**200), 'args[0][1]["customer"]["tier"] is an integer of more than 128 bits, outside the 64-bit range'),
        (lambda: _nested("\ud800"), 'args[0][1]["customer"]["tier"] is a string that is not valid Unicode'),
        (lambda: _nested({1, 2}), 'args[0][1]["customer"]["tier"] is a set, which has no canonical NX form'),
        (lambda: _nested(b"x"), 'args[0][1]["customer"]["tier"] is a bytes, which has no canonical NX form'),
        (_cyclic, 'args[0][1]["customer"]["tier"] contains itself; a canonical value has no cycles'),
        (_keyed, 'args[0][1]["customer"] has a key of type int, which is not a string'),
    ],
)
def test_what_the_reader_refuses_inside_a_record_is_refused_as_it_was(
    program: ir.Program, make: Callable[[], Any], message: str
) -> None:
    code, text = refusal(lambda: ir.evaluate_function(program, "worth", (make(),), max_operations=BUDGET))
    assert code == "nx-ir-boundary-type"
    assert message in text


def test_nesting_past_the_limit_is_refused_at_the_boundary(program: ir.Program) -> None:
    for depth in (256, 257, 300):
        value: Any = 1
        for _ in range(depth):
            value = [value]
        code, text = refusal(lambda: ir.evaluate_function(program, "held", (value,)))
        assert code == "nx-ir-resource-limit"
        assert "256 levels" in text
    value = 1
    for _ in range(255):
        value = [value]
    assert ir.evaluate_function(program, "held", (value,)).value == value


def test_the_input_size_is_measured_before_anything_is_read(program: ir.Program) -> None:
    given = orders(100)
    size = ir.measure_input_size([given]) - 1  # the arguments' list counts nothing for a call
    evaluated = ir.evaluate_function(program, "worth", (given,), max_input_size=size)
    assert evaluated.value == worth(given)
    assert evaluated.input_size == size
    code, text = refusal(lambda: ir.evaluate_function(program, "worth", (given,), max_input_size=size - 1))
    assert code == "nx-ir-resource-limit"
    assert f"limit of {size - 1}" in text
    # Over the limit and cyclic: the limit is what the call fails on, as before.
    code, _ = refusal(lambda: ir.evaluate_function(program, "worth", (_cyclic(),), max_input_size=50))
    assert code == "nx-ir-resource-limit"


def _function(program: ir.Program, name: str) -> dict[str, str]:
    return {"$type": "Function", "module": program.entry.identity, "name": name}


def test_call_function_reads_its_arguments_in_one_pass_by_name_and_by_position(program: ir.Program) -> None:
    given = orders(300)
    function = _function(program, "worth")
    for args in ({"orders": given}, [given], (given,)):
        evaluated = ir.call_function(program, function, args, max_operations=BUDGET)
        assert evaluated.value == worth(given)
        profiled = profile_function(program, function, args, max_operations=BUDGET)
        assert profiled.value == evaluated.value
        assert profiled.total == evaluated.operations


def test_call_function_measures_its_input_before_anything_is_read(program: ir.Program) -> None:
    given = orders(50)
    function = _function(program, "worth")
    for args in ({"orders": given}, [given]):
        # ir-format §6.2: the Function record, then the arguments as one record or one list.
        size = ir.measure_input_size(function) + ir.measure_input_size(args)
        evaluated = ir.call_function(program, function, args, max_input_size=size)
        assert evaluated.value == worth(given)
        assert evaluated.input_size == size
        code, text = refusal(lambda: ir.call_function(program, function, args, max_input_size=size - 1))
        assert code == "nx-ir-resource-limit"
        assert f"limit of {size - 1}" in text


def test_call_function_refuses_as_the_reader_refuses(program: ir.Program) -> None:
    function = _function(program, "worth")
    code, text = refusal(lambda: ir.call_function(program, function, {"orders": _nested(10**20)}))
    assert code == "nx-ir-boundary-type"
    assert 'args["orders"][1]["customer"]["tier"] is the integer 100000000000000000000, outside the 64-bit range' in text
    code, text = refusal(lambda: ir.call_function(program, function, [_keyed()]))
    assert code == "nx-ir-boundary-type"
    assert 'args[0][1]["customer"] has a key of type int, which is not a string' in text
    keyed: dict[Any, Any] = {7: orders(1)}
    code, text = refusal(lambda: ir.call_function(program, function, keyed))
    assert code == "nx-ir-boundary-type"
    assert "args has a key of type int, which is not a string" in text
    # A name that is no parameter is read and dropped; one left out is the function's to fill.
    evaluated = ir.call_function(program, function, {"orders": orders(40), "other": [1, 2]})
    assert evaluated.value == worth(orders(40))


def test_the_input_size_counts_texts_names_and_type_names_as_the_reader_does(program: ir.Program) -> None:
    long_key = "k" * 130
    value = {
        "$type": "T" * 200,
        long_key: ["é" * 70, "x" * 64, "y" * 63, None, True, 1.5, (1, 2)],
        "short": {"$type": 5, "n": "z" * 128},
    }
    size = ir.measure_input_size([value]) - 1
    for limit in (size, size + 1):
        assert ir.evaluate_function(program, "held", (value,), max_input_size=limit).input_size == size
        function = _function(program, "held")
        total = ir.measure_input_size(function) + ir.measure_input_size({"value": value})
        assert ir.call_function(program, function, {"value": value}, max_input_size=total).input_size == total
    code, _ = refusal(lambda: ir.evaluate_function(program, "held", (value,), max_input_size=size - 1))
    assert code == "nx-ir-resource-limit"


def test_a_long_list_over_the_limit_is_refused_by_its_size(program: ir.Program) -> None:
    long = [0] * 1_000_000
    code, text = refusal(lambda: ir.evaluate_function(program, "held", (long,), max_input_size=100))
    assert code == "nx-ir-resource-limit"
    assert "limit of 100" in text
    code, _ = refusal(lambda: ir.call_function(program, _function(program, "held"), {"value": long}, max_input_size=100))
    assert code == "nx-ir-resource-limit"


SHAPES_MODULE = """module shapes.nx fingerprint 1
entrypoints functions [names shapes kept held] components []

record Named abstract
  name: string required

record User extends Named
  name: string required
  age: int = 30

union Shape extends Named
  case circle
    name: string required
    radius: float64 required
  case square
    name: string required
    side: int required
  case blank constant

record Holder
  shape: Shape required
  named: Named required

function nameOf(n: Named) =
  n.name

function names(xs: Named*) =
  for n in xs yield
    nameOf(n)

function shapes(xs: Shape*) =
  xs

function kept(n: Named) =
  [n, nameOf(n)]

function held(h: Holder) =
  [h, nameOf(h.named), nameOf(h.shape)]
"""


@pytest.fixture(scope="module")
def shapes_program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(SHAPES_MODULE)))


def test_subtypes_and_union_cases_give_what_the_program_computes(shapes_program: ir.Program) -> None:
    given = [
        {"$type": "User", "name": "ada", "age": 36},
        {"$type": "Shape.circle", "name": "c", "radius": 1.5},
        {"$type": "Shape.square", "name": "s", "side": 2},
    ]
    assert ir.evaluate_function(shapes_program, "names", (given,)).value == ["ada", "c", "s"]
    assert ir.evaluate_function(shapes_program, "shapes", (given[1:],)).value == given[1:]
    user = ir.evaluate_function(shapes_program, "kept", ({"$type": "User", "name": "bo"},)).value
    assert user == [{"$type": "User", "name": "bo", "age": 30}, "bo"]


@pytest.mark.parametrize(
    ("name", "given"),
    [
        ("names", [{"$type": "User", "name": "ada", "age": 36}, {"$type": "Shape.square", "name": "s", "side": 2}]),
        # `$type` after the fields: the layout is known only once it comes.
        ("names", [{"name": "ada", "$type": "User"}, {"side": 2, "name": "s", "$type": "Shape.square"}]),
        ("names", [{"name": "ada", "age": 1.0, "$type": "User"}]),
        ("shapes", [{"$type": "Shape.circle", "name": "c", "radius": 2}, {"radius": 2.5, "$type": "Shape.circle", "name": "d"}]),
        ("shapes", [{"$type": "Shape.square", "side": 2.0, "name": "s"}, "blank"]),
        ("shapes", [{"$type": "Shape.blank"}]),
        ("shapes", [{"$type": "Shape.square", "name": "s"}]),
        ("shapes", [{"$type": "Shape.square", "name": "s", "side": 1, "colour": "red"}]),
        ("shapes", [{"$type": "Shape.triangle", "name": "t"}]),
        ("shapes", [{"$type": "Named", "name": "n"}]),
        ("shapes", [{"name": "s", "side": 1}]),
        ("shapes", [{}]),
        ("kept", {"$type": "Shape.circle", "name": "c", "radius": 1}),
        ("kept", {"$type": "Holder", "name": "h"}),
        ("kept", {"$type": "Shape.blank"}),
        ("kept", {"$type": 7, "name": "n"}),
        ("kept", {"name": "n"}),
        ("held", {"shape": {"$type": "Shape.circle", "name": "c", "radius": 1}, "named": {"$type": "User", "name": "u"}}),
        ("held", {"named": {"name": "u", "$type": "User", "age": 2}, "shape": {"side": 3, "$type": "Shape.square", "name": "s"}}),
        ("held", {"shape": "blank", "named": {"$type": "User", "name": "u"}}),
        ("held", {"shape": {"$type": "Shape.circle", "name": "c", "radius": "r"}, "named": {"$type": "User", "name": "u"}}),
        # `$type` among or after the fields: found by a walk over the members, then read.
        ("names", [{"name": "ada", "$type": "User", "age": 7}, {"name": "s", "side": 2, "$type": "Shape.square"}]),
        ("names", [{"name": "ada", "$type": "Shape.triangle"}, {"name": "n", "$type": "Named"}]),
        ("names", [{"age": 2, "name": "x", "$type": "User", "colour": "red"}]),
        ("shapes", [{"radius": 1, "name": "c", "$type": "Shape.circle"}, {"name": "b", "$type": "Shape.blank"}]),
        ("shapes", [{"side": "two", "name": "s", "$type": "Shape.square"}, {"name": "s", "$type": 3}]),
        ("shapes", [{"name": "s", "side": 1, "side2": 2, "$type": "Shape.square"}]),
        ("kept", {"age": 1, "$type": "User", "name": "bo"}),
        ("held", {"named": {"age": 1, "name": "u", "$type": "User"}, "shape": {"name": "c", "radius": 1.5, "$type": "Shape.circle"}}),
        # A member no field takes, or a `$type` naming another, after members read in the
        # layout: those are kept and the rest read as the reader reads them.
        ("held", {"shape": {"$type": "Shape.circle", "name": "c", "radius": 1}, "named": {"$type": "User", "name": "u"}, "x": [1, {"a": 2}]}),
        ("held", {"shape": {"$type": "Shape.circle", "name": "c", "radius": 1}, "$type": "Other", "named": {"$type": "User", "name": "u"}}),
        ("held", {"shape": {"$type": "Shape.circle", "name": "c", "radius": 1}, "shape2": 1, "named": {"$type": "User", "name": "u"}}),
        ("kept", {"$type": "User", "name": "bo", "age": 3, "nick": "b"}),
        ("kept", {"name": "bo", "age": 3, "nick": {"$type": "User"}, "$type": "User"}),
        ("names", [{"$type": "Shape.circle", "name": "c", "radius": 1, "radius2": 2}]),
    ],
)
def test_subtypes_and_union_cases_are_read_as_the_reader_reads_them(shapes_program: ir.Program, name: str, given: Any) -> None:
    # A record where an abstract record or a union is expected is read in the layout its
    # `$type` names, wherever the `$type` stands among its members; naming no such layout, the
    # reader's way. Value, operations or refusal are the reader's either way.
    assert _evaluated(shapes_program, name, (given,)) == _profiled(shapes_program, name, (given,))


CHAIN_MODULE = """module chain.nx fingerprint 1
entrypoints functions [take] components []

record R
  next: R?
  x: int required

function take(r: R) =
  r.x
"""


@pytest.mark.parametrize("last", [("stray", 2), ("$type", "Other"), ("x", "one")])
def test_a_chain_whose_every_record_ends_off_its_layout_reads_as_the_reader_reads_it(last: tuple[str, Any]) -> None:
    # 200 records, each with its next one first, then a member its declaration does not take
    # (a `$type` naming another, or a mistyped field): each level has read the ones below it
    # in their layout before it meets that member, and keeps them.
    program = ir.link_program(ir.prepare_module(ir.assemble(CHAIN_MODULE)))
    chain: dict[str, Any] = {"x": 1}
    for _ in range(200):
        chain = {"next": chain, "x": 1} | dict([last])
    assert _evaluated(program, "take", (chain,)) == _profiled(program, "take", (chain,))


#: Records, optional records, lists, an abstract record and a union, each a parameter's type: the
#: program `rust/nx-ir-core/tests/host_reading.rs` reads its generated host values with.
READING_MODULE = (Path(__file__).resolve().parent.parent / "rust" / "nx-ir-core" / "tests" / "host_reading" / "reading.nxir.txt").read_text(
    encoding="utf-8"
)

class _Shaped:
    """Host values shaped after READING_MODULE's types, bent now and then: a `$type` anywhere
    among the members (naming the record, another type, or no string), a member dropped, added
    or mistyped, two members swapped, chains of records hundreds deep."""

    def __init__(self, seed: int) -> None:
        import random

        self.rng = random.Random(seed)

    def any(self, depth: int = 0) -> Any:
        """Any value at all (what a mistyped member holds)."""
        pick = self.rng.randrange(5 if depth > 2 else 8)
        if pick == 5:
            return [self.any(depth + 1) for _ in range(self.rng.randrange(3))]
        if pick == 6:
            return {f"k{i}": self.any(depth + 1) for i in range(self.rng.randrange(3))}
        return [None, True, -3, 2.5, "blank", None, None, (1, "t")][pick]

    def bent(self, members: list[tuple[Any, Any]], type_name: str) -> dict[Any, Any]:
        rng = self.rng
        if rng.randrange(6) == 0 and len(members) > 1:
            a, b = rng.randrange(len(members)), rng.randrange(len(members))
            members[a], members[b] = members[b], members[a]
        if rng.randrange(12) == 0 and members:
            members.pop(rng.randrange(len(members)))
        if rng.randrange(12) == 0:
            members.insert(rng.randrange(len(members) + 1), ("stray", self.any()))
        if rng.randrange(10) == 0 and all(key != "$type" for key, _ in members):
            name = rng.choice([type_name, "Shape.square", "Nothing", 7])
            members.insert(rng.randrange(len(members) + 1), ("$type", name))
        if rng.randrange(16) == 0 and members:
            at = rng.randrange(len(members))
            members[at] = (members[at][0], self.any())
        return dict(members)

    def typed(self, type_name: str, members: list[tuple[Any, Any]]) -> dict[Any, Any]:
        if self.rng.randrange(8):
            at = 0 if self.rng.randrange(2) else self.rng.randrange(len(members) + 1)
            members.insert(at, ("$type", type_name))
        return self.bent(members, type_name)

    def value(self, ty: str) -> Any:
        rng = self.rng
        if rng.randrange(24) == 0:
            return self.any()
        if ty == "int":
            return rng.randrange(1000)
        if ty == "float":
            return rng.randrange(10) if rng.randrange(4) == 0 else rng.randrange(1000) / 4
        if ty == "str":
            return f"s{rng.randrange(100)}"
        if ty == "Person":
            return self.bent([("name", self.value("str")), ("age", self.value("int"))], "Person")
        if ty == "Item":
            members = [("name", self.value("str")), ("price", self.value("float"))]
            if rng.randrange(3):
                members.append(("tags", [self.value("str") for _ in range(rng.randrange(4))]))
            if rng.randrange(2):
                members.append(("owner", self.value("Person")))
            return self.bent(members, "Item")
        if ty == "Shape":
            case = rng.randrange(4)
            if case == 0:
                return "blank"
            if case == 1:
                return self.typed("Shape.blank", [])
            if case == 2:
                return self.typed("Shape.circle", [("name", self.value("str")), ("radius", self.value("float"))])
            return self.typed("Shape.square", [("name", self.value("str")), ("side", self.value("int"))])
        if ty == "Named":
            if rng.randrange(3):
                return self.value("Shape")
            members = [("name", self.value("str"))]
            if rng.randrange(2):
                members.append(("age", self.value("int")))
            return self.typed("User", members)
        if ty == "Holder":
            members = [("shape", self.value("Shape")), ("named", self.value("Named")), ("any", self.any())]
            if rng.randrange(2):
                members.append(("item", self.value("Item")))
            return self.bent(members, "Holder")
        assert ty == "R"
        levels = 100 + rng.randrange(150) if rng.randrange(8) == 0 else rng.randrange(4)
        bend = rng.randrange(6)
        value: Any = None
        for level in range(levels + 1):
            members: list[tuple[Any, Any]] = [] if value is None else [("next", value)]
            members.append(("x", level))
            if rng.randrange(2):
                members.append(("label", "l"))
            if levels > 50:
                members += [[("stray", 1)], [("$type", "Other")], [("$type", "R")], [("x", "x")], [], []][bend]
                value = dict(members)
            else:
                value = self.bent(members, "R")
        return value


def test_host_values_shaped_after_their_types_read_as_the_reader_reads_them() -> None:
    # 1,500 generated arguments, each read where it lies (a record in its declared layout as its
    # members come) and by the reader's way: the same value and operations, or the same refusal.
    program = ir.link_program(ir.prepare_module(ir.assemble(READING_MODULE)))
    outcomes = {"value": 0, "refused": 0}
    for seed in range(1500):
        shaped = _Shaped(seed)
        name = shaped.rng.choice(["chain", "items", "named", "held"])
        if name == "chain":
            arg = shaped.value("R")
        elif name == "held":
            arg = shaped.value("Holder")
        else:
            arg = [shaped.value("Item" if name == "items" else "Named") for _ in range(shaped.rng.randrange(6))]
        evaluated = _evaluated(program, name, (arg,))
        assert evaluated == _profiled(program, name, (arg,)), (seed, name, arg)
        outcomes[evaluated[0]] += 1
    assert min(outcomes.values()) > 300, outcomes
