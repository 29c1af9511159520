"""conformance-cases.md §E.fixtures (F1–F23): the golden documents (abridged as the reference
text gives them) and their runtime argument cases. Each argument case must be valid against the
function's input schema and accepted by the evaluator, and the result (where recorded, equal to
it) valid against the output schema. F20 (applied generics) is source-only: see
test_schema_cases.SOURCE_ONLY["E35"]; its arguments are still run against what the image says.
"""

from __future__ import annotations

from typing import Any

import pytest

from nx_agent import ir
from nx_agent.schema import function_schema, validate_input, validator_for
from schema_programs import DIALECT, HTTP_METHOD, SHAPES, SIZES, dumps, main, program

PRIMITIVES = main(
    SIZES
    + """
function echo(s: string, f: boolean, n: int, a: int32, b: int64, c: float32, d: float64, o: object): string =
  s

function sizes(): Sizes =
  <Sizes a=1 b=2 c=1.5 d=2.5 f=true n=3 o="x" s="s" />

function anything(value: object): object =
  value
"""
)

OCCURRENCES = main(
    """
record Box
  items: string+ required
  tags: string*
  note: string?

function box(items: string+, tags?: string+, note?: string): Box =
  <Box items=items note=note tags=tags />

function find(id: string): Box? (optional result) =
  if (id eq "x") then
    <Box items=["a"] />

function none(): string* =
  {}

function count(values?: int+): int =
  1
"""
)

RECORDS = main(
    """
record Booking
  host: string required
  notes: string?
  durationMinutes: int = 30

function book(request: Booking): Booking =
  request

record Entity abstract
  id: int required

record User extends Entity
  id: int required
  name: string required

function user(id: int, name: string): User =
  <User id=id name=name />

record Saved
  id: int required

function saved(id: int): Saved =
  <Saved id=id />

record Label
  aria-label: string?
  text: string required

function label(value: Label): Label =
  value

function page(size: int = 20, label: string = "items"): int =
  size
"""
)

UNIONS = main(
    HTTP_METHOD
    + """
function method(m: HttpMethod = HttpMethod.get): HttpMethod =
  m

union LoadState
  case idle constant
  case failed
    message: string required

function fail(message: string): LoadState =
  <LoadState.failed message=message />

function idle(): LoadState =
  LoadState.idle

function state(s: LoadState): LoadState =
  s

record EventBase abstract
  source: string = "ui"

union UiEvent extends EventBase
  case clicked
    source: string = "ui"
    x: int required
  case closed
    source: string = "ui"

function event(e: UiEvent): UiEvent =
  e

function closed(): UiEvent =
  <UiEvent.closed />
"""
)

ABSTRACT = main(
    SHAPES
    + """
function describe(shape: Shape): string =
  "shape"

function unit(): Shape =
  <Circle r=1.0 />

function exact(circle: Circle, shape: Shape): Circle =
  circle
"""
)

ALIASES = main(
    """
record User
  name: string required
  email: string?

record User.Update update of User
  name: string
  email: string?

function rename(name: string): User.Update =
  <User.Update name=name />

function patch(update: User.Update): string =
  "ok"
"""
)

GENERICS = main(
    """
record Plan
  name: string required

record Page
  items: object+ required
  total: int required

function total(plans: Page, names: Page): int =
  (plans.total add names.total)
"""
)

INEXPRESSIBLE = main(
    """
record Row
  template: <function Item:string />: string required

function render(template: <function Item:string />: string, title: string): string =
  title

function shout(Item: string): string =
  Item

function rows(count: int): Row* =
  {}
"""
)

NO_RESULT = object()
# (program, function, arguments, recorded result or NO_RESULT)
ARGUMENT_CASES: list[tuple[str, str, dict[str, Any], Any]] = [
    (PRIMITIVES, "echo", {"s": "s", "f": True, "n": 1, "a": 2, "b": 3, "c": 1.5, "d": 2.5, "o": {"any": [1]}}, "s"),
    (PRIMITIVES, "anything", {"value": 1}, 1),
    (PRIMITIVES, "anything", {"value": "x"}, NO_RESULT),
    (OCCURRENCES, "box", {"items": ["a"]}, {"$type": "Box", "items": ["a"]}),
    (OCCURRENCES, "find", {"id": "x"}, {"$type": "Box", "items": ["a"]}),
    (OCCURRENCES, "find", {"id": "y"}, None),
    (OCCURRENCES, "none", {}, []),
    (OCCURRENCES, "count", {"values": [1, 2]}, NO_RESULT),
    (OCCURRENCES, "count", {}, NO_RESULT),
    (RECORDS, "book", {"request": {"host": "Ada"}}, {"$type": "Booking", "host": "Ada", "durationMinutes": 30}),
    (RECORDS, "user", {"id": 1, "name": "Ada"}, {"$type": "User", "id": 1, "name": "Ada"}),
    (RECORDS, "saved", {"id": 7}, {"$type": "Saved", "id": 7}),
    (RECORDS, "label", {"value": {"aria-label": "Close", "text": "x"}}, NO_RESULT),
    (RECORDS, "page", {}, 20),
    (RECORDS, "page", {"size": 5, "label": "rows"}, 5),
    (UNIONS, "method", {"m": "post"}, "post"),
    (UNIONS, "method", {}, "get"),
    (UNIONS, "fail", {"message": "Offline"}, {"$type": "LoadState.failed", "message": "Offline"}),
    (UNIONS, "idle", {}, "idle"),
    (UNIONS, "state", {"s": "idle"}, "idle"),
    (UNIONS, "state", {"s": {"$type": "LoadState.failed", "message": "x"}}, NO_RESULT),
    (UNIONS, "event", {"e": {"$type": "UiEvent.clicked", "x": 3}}, NO_RESULT),
    (UNIONS, "event", {"e": {"$type": "UiEvent.closed", "source": "keyboard"}}, NO_RESULT),
    (UNIONS, "closed", {}, {"$type": "UiEvent.closed", "source": "ui"}),
    (ABSTRACT, "describe", {"shape": {"$type": "Circle", "r": 1}}, NO_RESULT),
    (ABSTRACT, "unit", {}, {"$type": "Circle", "r": 1}),
    (ALIASES, "rename", {"name": "Ada"}, {"$type": "User.Update", "name": "Ada"}),
    (ALIASES, "patch", {"update": {"email": None}}, NO_RESULT),
    (ALIASES, "patch", {"update": {}}, NO_RESULT),
    (GENERICS, "total", {"plans": {"items": [{"name": "a"}], "total": 1}, "names": {"items": ["b"], "total": 2}}, 3),
]


@pytest.mark.parametrize(("text", "name", "args", "result"), ARGUMENT_CASES)
def test_argument_cases_are_valid_accepted_and_answered(text: str, name: str, args: dict[str, Any], result: Any) -> None:
    p = program(text)
    answer = function_schema(p, {"name": name})
    assert validate_input(answer, args) == []
    value = ir.call_function(p, {"$type": "Function", "module": "main.nx", "name": name}, args).value
    if result is not NO_RESULT:
        assert value == result  # a JSON value: key order and 1 vs 1.0 are the evaluator's to choose
    assert list(validator_for(answer["outputSchema"]).iter_errors(value)) == []


def test_f1_f3_primitives() -> None:
    p = program(PRIMITIVES)
    echo = function_schema(p, {"name": "echo"})["inputSchema"]
    assert echo["required"] == ["s", "f", "n", "a", "b", "c", "d", "o"]
    sizes = function_schema(p, {"name": "sizes"})["outputSchema"]
    assert sizes["$ref"] == "#/$defs/Sizes"
    assert sizes["$defs"]["Sizes"]["required"] == ["$type", "s", "f", "n", "a", "b", "c", "d", "o"]
    anything = function_schema(p, {"name": "anything"})
    assert dumps(anything["inputSchema"]["properties"]["value"]) == '{"not":{"type":"null"}}'
    assert dumps(anything["outputSchema"]) == dumps({"$schema": DIALECT, "not": {"type": "null"}})


def test_f4_f7_occurrences() -> None:
    p = program(OCCURRENCES)
    box = function_schema(p, {"name": "box"})
    assert box["inputSchema"]["required"] == ["items"]
    assert box["outputSchema"]["$defs"]["Box"]["required"] == ["$type", "items"]
    assert dumps(function_schema(p, {"name": "none"})["outputSchema"]) == dumps(
        {"$schema": DIALECT, "type": "array", "items": {"type": "string"}}
    )
    assert "required" not in function_schema(p, {"name": "count"})["inputSchema"]


def test_f8_f12_records() -> None:
    p = program(RECORDS)
    book = function_schema(p, {"name": "book"})
    assert book["inputSchema"]["$defs"]["Booking"]["required"] == ["host"]
    assert book["outputSchema"]["$defs"]["Booking"]["required"] == ["$type", "host", "durationMinutes"]
    label = function_schema(p, {"name": "label"})["inputSchema"]["$defs"]["Label"]
    assert list(label["properties"]) == ["aria-label", "text"] and label["required"] == ["text"]
    page = function_schema(p, {"name": "page"})["inputSchema"]
    assert dumps(page["properties"]) == '{"size":{"type":"integer","default":20},"label":{"type":"string","default":"items"}}'


def test_f13_f17_unions() -> None:
    p = program(UNIONS)
    method = function_schema(p, {"name": "method"})["inputSchema"]
    assert dumps(method["properties"]["m"]) == '{"$ref":"#/$defs/HttpMethod","default":"get"}' and "required" not in method
    fail = function_schema(p, {"name": "fail"})["outputSchema"]["$defs"]["LoadState"]
    assert dumps(fail) == '{"anyOf":[{"type":"string","enum":["idle"]},{"$ref":"#/$defs/LoadState.failed"}]}'
    state = function_schema(p, {"name": "state"})["inputSchema"]["$defs"]
    assert state["LoadState.failed"]["required"] == ["$type", "message"]
    event = function_schema(p, {"name": "event"})
    assert event["inputSchema"]["$defs"]["UiEvent.clicked"]["required"] == ["$type", "x"]
    assert event["inputSchema"]["$defs"]["UiEvent.closed"]["required"] == ["$type"]
    assert event["outputSchema"]["$defs"]["UiEvent.clicked"]["required"] == ["$type", "source", "x"]
    assert event["outputSchema"]["$defs"]["UiEvent.closed"]["required"] == ["$type", "source"]


def test_f18_abstract() -> None:
    p = program(ABSTRACT)
    exact = function_schema(p, {"name": "exact"})["inputSchema"]
    assert dumps(exact["properties"]["circle"]) == '{"$ref":"#/$defs/Circle"}'
    assert "anyOf" in exact["properties"]["shape"]
    assert exact["$defs"]["Circle"]["required"] == ["$type", "r"]
    unit = function_schema(p, {"name": "unit"})["outputSchema"]
    assert dumps(unit["anyOf"]) == '[{"$ref":"#/$defs/Circle"},{"$ref":"#/$defs/Square"}]'


def test_f19_update_record_result() -> None:
    output = function_schema(program(ALIASES), {"name": "rename"})["outputSchema"]
    assert output["$defs"]["User.Update"]["required"] == ["$type"]


def test_f21_f23_inexpressible() -> None:
    p = program(INEXPRESSIBLE)
    render = function_schema(p, {"name": "render"})
    assert "inputSchema" not in render and dumps(render["outputSchema"]) == dumps({"$schema": DIALECT, "type": "string"})
    assert [d["code"] for d in render["diagnostics"]] == ["schema-inexpressible-type"]
    shout = function_schema(p, {"name": "shout"})
    assert shout["diagnostics"] == [] and shout["inputSchema"]["required"] == ["Item"]
    rows = function_schema(p, {"name": "rows"})
    assert "outputSchema" not in rows
    assert dumps(rows["inputSchema"]["properties"]) == '{"count":{"type":"integer"}}' and rows["inputSchema"]["required"] == ["count"]
    assert [d["code"] for d in rows["diagnostics"]] == ["schema-inexpressible-type"]
