"""Schema 6's constrained types in the JSON Schema mapping and the NX spelling.

The five rows of ../shared/reference/schema-6.md ("JSON Schema for constrained types") are tests
verbatim; the other expectations follow from its rules and from how the reference runtime
(nx-ir-runtime 0.10.0, normalize.rs) admits a value: read at the base (a float32 rounded to
float32), then compared with each end as a float64. Float32 values are written as exact binary
fractions (a float32 has a 24-bit significand), not taken from our own output. The spellings are
`nxlang ir explain`'s, checked against the explain text of the same image.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest
from hypothesis import given, strategies as st

from nx_agent import ir
from nx_agent.schema import function_schema, type_schema, validate_input
from nx_agent.schema.bounds import FLOAT32_MAX
from schema_programs import DIALECT, dumps, main, program

# The table of schema-6.md, as written there.
ROWS = [
    ("int where in 1..=10", '{ "type": "integer", "minimum": 1, "maximum": 10 }'),
    ("int where > 0", '{ "type": "integer", "minimum": 1 }'),
    ("float64 where > 0.0 && < 1.0", '{ "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1 }'),
    ("float32 where < 1.0", '{ "type": "number", "maximum": 0.9999999403953552 }'),
    ("int32 where >= 0", '{ "type": "integer", "minimum": 0, "maximum": 2147483647 }'),
]


# 1e39, past float32's greatest value (about 3.4e38); the text form has no exponents.
BEYOND_FLOAT32 = "1" + "0" * 39 + ".0"


def f32(value: float) -> float:
    """``value`` rounded to float32, as the reference reads a float32 argument."""
    rounded: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return rounded


def answer_for(nx_type: str, result: str = "int") -> dict[str, Any]:
    """The schema answer of `f(x: <nx_type>): <result>`."""
    text = main(f"function f(x: {nx_type}): {result} =\n  {{}}\n")
    return function_schema(program(text), {"name": "f"})


def explained(nx_type: str) -> str:
    """The type of `x` in `f(x: <nx_type>)` as explain writes it back."""
    written = ir.explain(ir.assemble(main(f"function f(x: {nx_type}): int =\n  {{}}\n")))
    return written.split("function f(x: ")[1].split("): int =")[0]


def parameter_schema(nx_type: str) -> Any:
    answer = answer_for(nx_type)
    assert answer["diagnostics"] == [], answer["diagnostics"]
    return answer["inputSchema"]["properties"]["x"]


@pytest.mark.parametrize(("nx_type", "row"), ROWS)
def test_the_rows_of_schema_6(nx_type: str, row: str) -> None:
    text = main(f"function f(x: {nx_type}): int =\n  {{}}\n")
    answer = function_schema(program(text), {"name": "f"})
    expected = json.loads(row)
    assert dumps(answer["inputSchema"]["properties"]["x"]) == dumps(expected)
    # The parameter entry keeps the constraint as written, which is what explain writes.
    assert answer["parameters"] == [{"name": "x", "type": nx_type, "required": True}]
    assert f"function f(x: {nx_type}): int =" in ir.explain(ir.assemble(text))


def test_the_float32_row_admits_nothing_that_rounds_out_of_the_interval() -> None:
    schema = json.loads(ROWS[3][1])
    # 1 - 2**-24 is the greatest float32 below 1.0; a number between it and 1.0 may round up to 1.0.
    assert schema["maximum"] == 1 - 2**-24
    assert f32(0.99999999) == 1.0
    assert validate_input(schema, 0.99999999) != []
    assert validate_input(schema, 1 - 2**-24) == []


@pytest.mark.parametrize(
    ("nx_type", "expected"),
    [
        # Integers: an exclusive end is the inclusive neighbour, on either side.
        ("int where > 0 && < 10", {"type": "integer", "minimum": 1, "maximum": 9}),
        ("int where in 1..10", {"type": "integer", "minimum": 1, "maximum": 9}),
        ("int where < 0", {"type": "integer", "maximum": -1}),
        ("int64 where >= -5", {"type": "integer", "minimum": -5}),
        ("int where > -1 && <= 3", {"type": "integer", "minimum": 0, "maximum": 3}),
        # int32: a bound replaces int32's own on its side, the other side keeps int32's.
        ("int32 where <= 100", {"type": "integer", "minimum": -2147483648, "maximum": 100}),
        ("int32 where > 0", {"type": "integer", "minimum": 1, "maximum": 2147483647}),
        ("int32 where in -5..=5", {"type": "integer", "minimum": -5, "maximum": 5}),
        # A bound outside int32's range leaves int32's own, which is the tighter.
        ("int32 where >= -3000000000", {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}),
        # float64: ends as they are; integral ones as JSON integers.
        ("float64 where >= 0.5", {"type": "number", "minimum": 0.5}),
        ("float64 where > -1.5 && <= 2.25", {"type": "number", "exclusiveMinimum": -1.5, "maximum": 2.25}),
        ("float64 where in 0.0..1.0", {"type": "number", "minimum": 0, "exclusiveMaximum": 1}),
        ("float64 where in -2.0..=-1.0", {"type": "number", "minimum": -2, "maximum": -1}),
        ("float64 where <= 0.1", {"type": "number", "maximum": 0.1}),
        # float32: every end inclusive, at the nearest float32 inside.
        ("float32 where > 0.0", {"type": "number", "minimum": 2**-149}),
        ("float32 where > 1.0 && < 2.0", {"type": "number", "minimum": 1 + 2**-23, "maximum": 2 - 2**-23}),
        ("float32 where in 0.5..=1.5", {"type": "number", "minimum": 0.5, "maximum": 1.5}),
        ("float32 where in -1.0..0.0", {"type": "number", "minimum": -1, "maximum": -(2**-149)}),
        # Inclusive ends that are no float32: 0.1 lies between 13421772 and 13421773 * 2**-27,
        # 0.2 between 13421772 and 13421773 * 2**-26; the float32 on the inside is taken.
        ("float32 where >= 0.1 && <= 0.2", {"type": "number", "minimum": 13421773 * 2**-27, "maximum": 13421772 * 2**-26}),
        ("float32 where > 0.1", {"type": "number", "minimum": 13421773 * 2**-27}),
        # An end beyond float32's range: the greatest float32 is the nearest inside.
        (f"float32 where >= -{BEYOND_FLOAT32}", {"type": "number", "minimum": -FLOAT32_MAX}),
        # Open ends add nothing; an infinite end on the outside is an open end.
        ("int where >= 0", {"type": "integer", "minimum": 0}),
        ("float64 where <= 1.0", {"type": "number", "maximum": 1}),
        ("float64 where > -inf && < inf", {"type": "number"}),
        ("float32 where >= -inf", {"type": "number"}),
    ],
)
def test_the_rules(nx_type: str, expected: dict[str, Any]) -> None:
    assert dumps(parameter_schema(nx_type)) == dumps(expected)


def test_float_ends_beyond_2_to_the_53_stay_floats() -> None:
    # 1e300 is integral, but no JSON integer of 301 digits is written for it.
    schema = parameter_schema(explained(f"float64 where < 1{'0' * 300}.0"))
    assert schema == {"type": "number", "exclusiveMaximum": 1e300}
    assert isinstance(schema["exclusiveMaximum"], float)
    assert isinstance(parameter_schema("float64 where <= 9007199254740992.0")["maximum"], int)


@pytest.mark.parametrize(
    "nx_type",
    [
        "float64 where >= NaN",
        "float64 where > inf",
        "int where < -inf",
        f"float32 where > {BEYOND_FLOAT32}",
        f"float32 where <= -{BEYOND_FLOAT32}",
    ],
)
def test_an_interval_no_json_number_satisfies_has_no_json_form(nx_type: str) -> None:
    answer = answer_for(nx_type)
    assert "inputSchema" not in answer
    [problem] = answer["diagnostics"]
    assert problem["code"] == "schema-inexpressible-type"
    spelled = explained(nx_type)
    assert problem["message"] == f"Parameter `x` has the constrained type `{spelled}`, which no JSON number satisfies"
    assert answer["parameters"][0]["type"] == spelled


def test_sequences_of_constrained_items() -> None:
    text = main(
        "function f(scores: (int where in 1..=10)*, weights: (float64 where >= 0.0)+): (int32 where > -1 && < 100)* =\n  {}\n"
    )
    answer = function_schema(program(text), {"name": "f"})
    properties = answer["inputSchema"]["properties"]
    assert dumps(properties["scores"]) == '{"type":"array","items":{"type":"integer","minimum":1,"maximum":10}}'
    assert dumps(properties["weights"]) == '{"type":"array","items":{"type":"number","minimum":0},"minItems":1}'
    assert dumps(answer["outputSchema"]) == (
        f'{{"$schema":"{DIALECT}","type":"array","items":{{"type":"integer","minimum":0,"maximum":99}}}}'
    )
    # A suffix after a constrained type is written after parentheses, as explain writes it.
    types = [entry["type"] for entry in answer["parameters"]]
    assert types == ["(int where in 1..=10)*", "(float64 where >= 0.0)+"]
    assert answer["resultType"] == "(int32 where > -1 && < 100)*"
    explained = ir.explain(ir.assemble(text))
    assert "f(scores: (int where in 1..=10)*, weights: (float64 where >= 0.0)+): (int32 where > -1 && < 100)* =" in explained


def test_optional_parameters_and_results() -> None:
    text = main(
        "function f(nights: int where in 1..=14, budget?: (float64 where > 0.0 && <= 10000.0), tags?: (int where >= 0)+):"
        " float64 where < 1000000.0 =\n  {}\n"
        "\nfunction g(n: int): (int where >= 0)? (optional result) =\n  {}\n"
    )
    p = program(text)
    answer = function_schema(p, {"name": "f"})
    assert answer["parameters"] == [
        {"name": "nights", "type": "int where in 1..=14", "required": True},
        # The declared type, without the parentheses explain keeps from the read type `(...)?`.
        {"name": "budget", "type": "float64 where > 0.0 && <= 10000.0", "required": False},
        {"name": "tags", "type": "(int where >= 0)+", "required": False},
    ]
    assert dumps(answer["inputSchema"]) == dumps(
        {
            "$schema": DIALECT,
            "type": "object",
            "properties": {
                "nights": {"type": "integer", "minimum": 1, "maximum": 14},
                "budget": {"type": "number", "exclusiveMinimum": 0, "maximum": 10000},
                "tags": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
            },
            "required": ["nights"],
            "additionalProperties": False,
        }
    )
    assert dumps(answer["outputSchema"]) == f'{{"$schema":"{DIALECT}","type":"number","exclusiveMaximum":1000000}}'
    assert answer["resultType"] == "float64 where < 1000000.0"
    optional = function_schema(p, {"name": "g"})
    assert dumps(optional["outputSchema"]["anyOf"]) == '[{"type":"integer","minimum":0},{"type":"null"}]'
    assert optional["resultType"] == "(int where >= 0)?"


ROOMS = """
record Stay
  nights: int where in 1..=14 required
  rate: float32 where > 0.0 && < 1000.0 required
  discount: (float64 where in 0.0..1.0)?
  extras: (int where >= 0)*

record Booking
  stay: Stay required
  guests: int32 where >= 1 required

record Booking.Update update of Booking
  stay: Stay
  guests: (int32 where >= 1)?

union Payment
  case cash constant
  case card
    installments: int where in 1..=12 required
"""


def test_fields_of_nested_records_union_cases_and_update_records() -> None:
    text = main(ROOMS + "\nfunction pay(booking: Booking, payment: Payment): Booking.Update =\n  {}\n")
    answer = function_schema(program(text), {"name": "pay"})
    assert answer["diagnostics"] == []
    defs = answer["inputSchema"]["$defs"]
    stay = defs["Stay"]["properties"]
    assert dumps(stay["nights"]) == '{"type":"integer","minimum":1,"maximum":14}'
    assert dumps(stay["rate"]) == dumps({"type": "number", "minimum": 2**-149, "maximum": 1000 - 2**-14})
    assert dumps(stay["discount"]) == '{"type":"number","minimum":0,"exclusiveMaximum":1}'
    assert dumps(stay["extras"]) == '{"type":"array","items":{"type":"integer","minimum":0}}'
    assert defs["Stay"]["required"] == ["nights", "rate"]
    assert dumps(defs["Booking"]["properties"]["guests"]) == '{"type":"integer","minimum":1,"maximum":2147483647}'
    card = defs["Payment.card"]["properties"]
    assert dumps(card["installments"]) == '{"type":"integer","minimum":1,"maximum":12}'
    # An update record's optional field is nullable (null clears it), the bounds kept on the value.
    update = answer["outputSchema"]["$defs"]["Booking.Update"]["properties"]["guests"]
    assert dumps(update) == '{"anyOf":[{"type":"integer","minimum":1,"maximum":2147483647},{"type":"null"}]}'
    # The same record written for output, where every field that cannot be empty is required.
    output = type_schema(program(text), {"name": "Stay"})["schema"]["$defs"]["Stay"]
    assert dumps(output["properties"]["nights"]) == dumps(stay["nights"])
    assert output["required"] == ["$type", "nights", "rate"]


def test_a_value_out_of_range_is_refused_with_its_path() -> None:
    text = main(ROOMS + "\nfunction book(stay: Stay, guests: (int where in 1..=10)*): int =\n  {}\n")
    answer = function_schema(program(text), {"name": "book"})
    good = {"stay": {"nights": 14, "rate": 99.5, "discount": 0.0}, "guests": [1, 10]}
    assert validate_input(answer, good) == []
    bad = {"stay": {"nights": 15, "rate": 0.0, "discount": 1.0}, "guests": [0, 3, 11]}
    paths = sorted(problem["path"] for problem in validate_input(answer, bad))
    assert paths == ["/guests/0", "/guests/2", "/stay/discount", "/stay/nights", "/stay/rate"]


def test_the_booking_sample() -> None:
    """rust/nx-ir-core/tests/schema6/booking.nxir.txt, the sample the oracle checks."""
    from test_schema6_images import sample

    p = ir.link_program(ir.prepare_module(ir.assemble(sample("booking"))))
    book = function_schema(p, {"name": "book"})
    assert [entry["type"] for entry in book["parameters"]] == [
        "int where in 1..=10",
        "int where >= 1",
        "float64 where > 0.0 && <= 10000.0",
    ]
    assert dumps(book["inputSchema"]["properties"]) == (
        '{"guests":{"type":"integer","minimum":1,"maximum":10},"nights":{"type":"integer","minimum":1},'
        '"budget":{"type":"number","exclusiveMinimum":0,"maximum":10000}}'
    )
    quote = function_schema(p, {"name": "quote"})
    assert dumps(quote["inputSchema"]["properties"]["discounts"]["items"]) == '{"type":"integer","minimum":0,"maximum":99}'
    assert quote["resultType"] == "float64 where < 1000000.0"


# -- float32 ends, as a property -------------------------------------------------------------------


def admits(value: float, low: tuple[float, bool] | None, high: tuple[float, bool] | None) -> bool:
    """The reference's interval test (nx-ir-runtime 0.10.0, `Interval::admits`)."""
    if math.isnan(value):
        return False
    above = low is None or (value > low[0] if low[1] else value >= low[0])
    below = high is None or (value < high[0] if high[1] else value <= high[0])
    return above and below


def float32_neighbour(value: float, up: bool) -> float:
    """The float32 next to the float32 ``value``, by its bits."""
    if value == 0.0:
        return 2**-149 if up else -(2**-149)
    bits = struct.unpack("<i", struct.pack("<f", value))[0]
    step = 1 if (value > 0) == up else -1
    neighbour: float = struct.unpack("<f", struct.pack("<i", bits + step))[0]
    return neighbour


finite_ends = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, width=64) | st.floats(
    min_value=-1e6, max_value=1e6, width=32
)


@given(end=finite_ends, exclusive=st.booleans(), low=st.booleans(), probe=st.floats(allow_nan=False, allow_infinity=False))
def test_float32_ends_are_the_nearest_float32_inside(end: float, exclusive: bool, low: bool, probe: float) -> None:
    interval = ((end, exclusive), None) if low else (None, (end, exclusive))
    spelled_end = {"value": end, "exclusive": exclusive, "text": repr(end)}
    ty = {
        "kind": "constrained",
        "base": {"kind": "primitive", "name": "float32"},
        "low": spelled_end if low else None,
        "high": None if low else spelled_end,
    }
    from nx_agent.schema.bounds import constrained_schema

    schema = constrained_schema(ty)
    assert schema is not None
    assert set(schema) == {"type", "minimum" if low else "maximum"}
    bound = float(schema["minimum" if low else "maximum"])
    # A float32 the interval admits, whose outward neighbour it does not.
    assert f32(bound) == bound
    assert admits(bound, *interval)
    assert not admits(float32_neighbour(bound, up=not low), *interval)
    # Whatever the schema admits rounds to a float32 the interval admits.
    if abs(probe) <= FLOAT32_MAX and (probe >= bound if low else probe <= bound):
        assert admits(f32(probe), *interval)


# -- spellings a host supplies in its descriptions ---------------------------------------------------


def test_an_alias_target_and_a_result_type_may_be_constrained() -> None:
    text = main("alias Guests\n\nfunction count(n: int) =\n  n\n")
    p = program(text)
    descriptions = {
        "modules": {
            "main.nx": {
                "types": {"Guests": {"alias": "int where in 1..=10"}},
                "functions": {"count": {"resultType": "(float64 where > 0.0 && < 1.0)*"}},
            }
        }
    }
    alias = type_schema(p, {"name": "Guests"}, descriptions=descriptions)
    assert dumps(alias["schema"]) == f'{{"$schema":"{DIALECT}","type":"integer","minimum":1,"maximum":10}}'
    answer = function_schema(p, {"name": "count"}, descriptions=descriptions)
    assert answer["resultType"] == "(float64 where > 0.0 && < 1.0)*"
    assert dumps(answer["outputSchema"]) == (
        f'{{"$schema":"{DIALECT}","type":"array","items":{{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}}}}'
    )


@pytest.mark.parametrize(
    ("spelled", "expected"),
    [
        ("int where in 1..=10", {"type": "integer", "minimum": 1, "maximum": 10}),
        ("int where in 1..10", {"type": "integer", "minimum": 1, "maximum": 9}),
        ("int32 where >= -5", {"type": "integer", "minimum": -5, "maximum": 2147483647}),
        ("float64 where > 0.5 && <= 2.0", {"type": "number", "exclusiveMinimum": 0.5, "maximum": 2}),
        ("float32 where < 1.0", {"type": "number", "maximum": 1 - 2**-24}),
        ("float64 where > -inf && < inf", {"type": "number"}),
        ("(int where >= 0)?", {"type": "integer", "minimum": 0}),
        ("(int where >= 0)+", {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1}),
    ],
)
def test_constrained_spellings_are_read(spelled: str, expected: dict[str, Any]) -> None:
    p = program(main("alias Target\n"))
    descriptions = {"modules": {"main.nx": {"types": {"Target": {"alias": spelled}}}}}
    schema = type_schema(p, {"name": "Target"}, direction="input", descriptions=descriptions)["schema"]
    schema.pop("$schema")
    if spelled.endswith("?"):
        expected = {"anyOf": [expected, {"type": "null"}]}
    assert dumps(schema) == dumps(expected)


@pytest.mark.parametrize(
    "spelled", ["string where > 0", "int where >= 0?", "int where in 1", "int where => 0", "int where >= x", "(int where >= 0"]
)
def test_constrained_spellings_that_do_not_read(spelled: str) -> None:
    p = program(main("alias Target\n"))
    descriptions = {"modules": {"main.nx": {"types": {"Target": {"alias": spelled}}}}}
    answer = type_schema(p, {"name": "Target"}, descriptions=descriptions)
    assert "schema" not in answer
    assert [d["code"] for d in answer["diagnostics"]] == ["schema-inexpressible-type"]
