"""Records written from their shape's template (see `sink.rs`, `Template`): a result of a
record declaration copies a dict holding its keys, and the small scalar values of the first
result of that shape, and sets only the values that are not those very objects. Whatever the
values, each result is the record it should be, in its key order, and a result a host changes
changes nothing after it."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nx_agent import ir

SHAPES = """module main.nx fingerprint 1
entrypoints functions [plan plans tagged] components []

record Plan
  name: string required
  seats: int required
  ratio: float64 required
  open: boolean required

record Tagged
  name: string required
  tags: string* required

function plan(name: string, seats: int, ratio: float64, open: boolean): Plan =
  <Plan name=name open=open ratio=ratio seats=seats />

function plans(seats: int): Plan* =
  <Plan name="Team" open=true ratio=0.5 seats=seats />

function tagged(name: string, tags: string*): Tagged =
  <Tagged name=name tags=tags />
"""

PROGRAM = ir.link_program(ir.prepare_module(ir.assemble(SHAPES)))


def plan(name: str, seats: int, ratio: float, open: bool) -> dict[str, Any]:
    return {"$type": "Plan", "name": name, "open": open, "ratio": ratio, "seats": seats}


def test_a_record_repeated_with_the_same_literals_is_the_same_record_each_time() -> None:
    first = ir.evaluate_function(PROGRAM, "plans", [5]).value
    assert first == [plan("Team", 5, 0.5, True)]
    first[0]["name"] = "changed by the host"
    first[0]["extra"] = 1
    for seats in [5, 6, 1000, -3, 2**40]:
        value = ir.evaluate_function(PROGRAM, "plans", [seats]).value
        assert value == [plan("Team", seats, 0.5, True)]
        assert list(value[0]) == ["$type", "name", "open", "ratio", "seats"]


@given(st.lists(st.tuples(st.text(max_size=80), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.booleans()), min_size=1, max_size=6))
def test_every_result_of_a_shape_holds_its_own_values(calls: list[tuple[str, int, float, bool]]) -> None:
    results = [ir.evaluate_function(PROGRAM, "plan", list(call)).value for call in calls]
    for value, (name, seats, ratio, open) in zip(results, calls):
        assert value == plan(name, seats, ratio, open)
        assert list(value) == ["$type", "name", "open", "ratio", "seats"]
        assert value["ratio"] == ratio and type(value["ratio"]) is float


def test_a_list_field_is_never_shared_between_results() -> None:
    first = ir.evaluate_function(PROGRAM, "tagged", ["a", ["x", "y"]]).value
    first["tags"].append("changed by the host")
    second = ir.evaluate_function(PROGRAM, "tagged", ["a", ["x", "y"]]).value
    assert second["tags"] == ["x", "y"]
    assert second["tags"] is not first["tags"]
    third = ir.evaluate_function(PROGRAM, "tagged", ["b", ["z"]]).value
    assert third == {"$type": "Tagged", "name": "b", "tags": ["z"]}


def test_a_string_literal_is_written_as_the_programs_one_string_object() -> None:
    # Literal texts are written from the program's cache of Python strings (`TextCache`), not
    # made anew per result: the same object each call, and the same for every literal of a text.
    program = ir.link_program(
        ir.prepare_module(
            ir.assemble(
                """module main.nx fingerprint 1
entrypoints functions [team teams] components []

function team() =
  "Team"

function teams() =
  ["Team", "name", "Team"]
"""
            )
        )
    )
    first = ir.evaluate_function(program, "team", []).value
    again = ir.evaluate_function(program, "team", []).value
    listed = ir.evaluate_function(program, "teams", []).value
    assert first == again == "Team" and listed == ["Team", "name", "Team"]
    assert again is first and listed[0] is first and listed[2] is first
