"""The contract, as properties over the corpus' functions and the §E declarations: any value
valid against a function's input schema is accepted by the evaluator as its arguments (no
`nx-ir-boundary-*` or `nx-ir-arguments` failure), and every value a function returns is valid
against its output schema. Every schema the mapping writes is valid against the 2020-12
meta-schema. The generated values' domain is described in `schema_values.py`.

Where the mapping (the NX compiler's, followed exactly) and the runtime disagree, the function is
listed in KNOWN_FINDINGS with the disagreement; its property run must still reproduce it (a
finding that no longer reproduces fails, so the list cannot go stale), and every other
function must hold the contract exactly.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from corpus import image, needs_corpus_mark, programs
from nx_agent import ir
from nx_agent.schema import check_schema, function_schema, type_schema, validate_input, validator_for
from schema_programs import USER_UPDATE, main, module, program
from schema_values import values
from test_schema_fixtures import ABSTRACT, ALIASES, GENERICS, INEXPRESSIBLE, OCCURRENCES, PRIMITIVES, RECORDS, UNIONS

CASES_PER_FUNCTION = 200
MAX_OPERATIONS = 200_000

DECLARATIONS = main(
    """
union Status
  case active constant
  case paused constant

record Defaults
  s: string = "hi"
  n: int = -3
  f: float64 = 1.5
  b: boolean = true
  status: Status = Status.active
  note: string?

record Folder
  name: string required
  children: Folder*

record Shape abstract
  label: string?

record Signal abstract
  label: string?

record Circle extends Shape
  label: string?
  r: float64 required

union Event extends Signal
  case clicked
    label: string?
    x: int required
  case closed
    label: string?

union Target
  case nobody constant
  case card
    title: string required
    tags: string*
"""
    + USER_UPDATE
    + """
union User.Property property of User
  case name constant
  case email constant
  case age constant

function defaults(d: Defaults, s: Status = Status.paused): Defaults =
  d

function folder(f: Folder): Folder =
  f

function shape(s: Shape, many?: Shape+): Shape =
  s

function event(e: Event): Event =
  e

function target(t: Target, ts: Target*): Target* =
  ts

function user(u: User, patch: User.Update, key: User.Property): User =
  apply(u, patch)

function keep(value: object, many: object+, maybe?: object): object =
  value

function nothing(n: int32, f: float32): int32? (optional result) =
  {}
"""
)

SCHEMA_PROGRAMS = {
    "primitives": [PRIMITIVES],
    "occurrences": [OCCURRENCES],
    "records": [RECORDS],
    "unions": [UNIONS],
    "abstract": [ABSTRACT],
    "aliases": [ALIASES],
    "generics": [GENERICS],
    "inexpressible": [INEXPRESSIBLE],
    "declarations": [DECLARATIONS],
    "library": [
        main(
            "record TableSource extends Source.nx:Source\n  name: string?\n  table: string required\n\n"
            "function pick(s: Source.nx:Source): Source.nx:Source =\n  s\n",
            links=("Source.nx",),
        ),
        module("Source.nx", "record Source abstract\n  name: string?\n\nrecord WebSource extends Source\n  name: string?\n  allowedDomains: string*\n"),
    ],
}


def _programs() -> list[tuple[str, ir.Program]]:
    found = [(name, program(*texts)) for name, texts in SCHEMA_PROGRAMS.items()]
    for corpus_program in programs():
        spec = corpus_program.path / "program.json"
        entry = json.loads(spec.read_text())["entry"] if spec.is_file() else next(iter(corpus_program.modules))
        modules = {
            identity: ir.prepare_module(image(corpus_program, m)) for identity, m in corpus_program.modules.items()
        }
        found.append((f"corpus/{corpus_program.name}", ir.link_program(modules[entry], modules)))
    return found


PROGRAMS = _programs()
FUNCTIONS = [
    (name, linked, m.identity, f)
    for name, linked in PROGRAMS
    for m in linked.modules
    for f in (d["name"] for d in m.declarations() if d["kind"] == "function")
]


KNOWN_FINDINGS = {
    "declarations:main.nx:keep": "input: at an optional `object` site the runtime reads a list of two or more "
    "items as more than one value and refuses it; the schema is {not: {type: null}} (the compiler's, H2)",
    "corpus/argument-diagnostics:main.nx:share": "output: an `int` site holds the non-integral float a `/` gives "
    "(runtimes accept it, ir-format §4.7); the schema is {type: integer}",
}
# A float result can overflow to ±infinity (e.g. conversions' `scaled`), which no JSON number is:
# such a result has no JSON form at all, so the output half of the contract is checked on every
# result that has one.


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    return True


def _call(linked: ir.Program, identity: str, name: str, args: dict[str, Any]) -> tuple[Any, str | None]:
    try:
        value = ir.call_function(
            linked, {"$type": "Function", "module": identity, "name": name}, args, max_operations=MAX_OPERATIONS
        ).value
    except ir.NxIrError as refused:
        return None, refused.code
    return value, None


@pytest.mark.parametrize(
    ("key", "linked", "identity", "name"),
    [(f"{p}:{identity}:{f}", linked, identity, f) for p, linked, identity, f in FUNCTIONS],
    ids=[f"{p}:{identity}:{f}" for p, _, identity, f in FUNCTIONS],
)
def test_valid_arguments_are_accepted_and_results_are_valid(key: str, linked: ir.Program, identity: str, name: str) -> None:
    answer = function_schema(linked, {"module": identity, "name": name})
    for document in ("inputSchema", "outputSchema"):
        if document in answer:
            assert check_schema(answer[document]) == [], document
    if "inputSchema" not in answer:
        return
    output = validator_for(answer["outputSchema"]) if "outputSchema" in answer else None

    broken: list[Any] = []

    def check(args: dict[str, Any]) -> None:
        assert validate_input(answer, args) == [], args
        value, refused = _call(linked, identity, name, args)
        if refused is not None and (refused.startswith("nx-ir-boundary") or refused == "nx-ir-arguments"):
            broken.append((refused, args))
        elif refused is None and output is not None and _finite(value) and list(output.iter_errors(value)):
            broken.append((value, args))
        if key not in KNOWN_FINDINGS:
            assert not broken, broken[-1]

    examples = CASES_PER_FUNCTION if answer["inputSchema"]["properties"] else 1
    run = settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))(
        given(values(answer["inputSchema"]))(check)
    )
    run()
    if key in KNOWN_FINDINGS:
        assert broken, f"the known finding no longer reproduces: {KNOWN_FINDINGS[key]}"


@pytest.mark.parametrize(("source", "at_least"), [("own", 60), pytest.param("corpus", 300, marks=needs_corpus_mark())])
def test_every_type_schema_is_a_2020_12_schema(source: str, at_least: int) -> None:
    checked = 0
    for name, linked in PROGRAMS:
        if name.startswith("corpus/") != (source == "corpus"):
            continue
        for m in linked.modules:
            for decl in m.declarations():
                if decl["kind"] not in ("record", "union", "alias", "component"):
                    continue
                for direction in ("input", "output"):
                    answer = type_schema(linked, {"module": m.identity, "name": decl["name"]}, direction=direction)  # type: ignore[arg-type]
                    if "schema" in answer:
                        assert check_schema(answer["schema"]) == [], (m.identity, decl["name"])
                        checked += 1
    assert checked >= at_least


def test_a_union_case_is_accepted_at_the_abstract_record_it_extends() -> None:
    linked = program(main(
        "record Signal abstract\n  label: string?\n\nunion Event extends Signal\n  case closed\n    label: string?\n\n"
        "function signal(s: Signal): Signal =\n  s\n"
    ))
    answer = function_schema(linked, {"name": "signal"})
    args = {"s": {"$type": "Event.closed"}}
    assert validate_input(answer, args) == []
    assert _call(linked, "main.nx", "signal", args)[1] is None
