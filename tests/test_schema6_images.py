"""Schema 6 images from Python: assembling as either schema, the schema a module reports, the
prelude a program gets, a program mixing schemas refused, the declarations view of a constrained
type and a component's state record, schema 6 evaluated (values and refusals as nx-ir-runtime
0.10.0 gave them, from expected.json), and `nx-agent assemble --schema`. The sample texts are
rust/nx-ir-core/tests/schema6/, checked against the NX reference crates by the oracle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nx_agent import cli, ir

SAMPLES = Path(__file__).resolve().parent.parent / "rust" / "nx-ir-core" / "tests" / "schema6"


def sample(name: str) -> str:
    return (SAMPLES / f"{name}.nxir.txt").read_text(encoding="utf-8")


PRELUDE_USER = """\
module {identity} fingerprint 7
links @nx/prelude.nx version "1" fingerprint 3805895034114390176
{links}entrypoints functions [firstThree] components []

function firstThree() =
  <@nx/prelude.nx:Range end=3 endInclusive=false start=0 />
"""


def prelude_user(identity: str, schema: int, links: str = "") -> ir.PreparedModule:
    text = PRELUDE_USER.format(identity=identity, links=links)
    return ir.prepare_module(ir.assemble(text, schema=schema))


def test_assemble_writes_schema_6_unless_told_5() -> None:
    text = PRELUDE_USER.format(identity="m.nx", links="")
    six, five = ir.assemble(text), ir.assemble(text, schema=5)
    assert (six[4], five[4]) == (6, 5)
    assert (ir.prepare_module(six).schema, ir.prepare_module(five).schema) == (6, 5)
    assert ir.explain(six) == ir.explain(five) == text
    with pytest.raises(ir.NxIrError) as refused:
        ir.assemble(text, schema=7)
    assert refused.value.code == "nx-ir-assemble"


@pytest.mark.parametrize("name", ["booking", "geometry", "palette", "settings"])
def test_the_samples_round_trip(name: str) -> None:
    text = sample(name)
    module = ir.prepare_module(ir.assemble(text))
    assert module.schema == 6
    assert module.explain() == text


def test_schema_6_text_assembled_as_schema_5_is_refused_naming_it() -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.assemble(sample("geometry"), schema=5)
    assert refused.value.code == "nx-ir-assemble"
    message = str(refused.value)
    assert "line 10, column 3" in message and "standard-math-v1" in message


def test_a_program_gets_the_prelude_of_its_schema() -> None:
    for schema in (5, 6):
        program = ir.link_program(prelude_user("counting.nx", schema))
        prelude = program.module("@nx/prelude.nx")
        assert prelude is not None
        assert prelude.schema == schema
        assert prelude.to_bytes() == ir.builtin_prelude(schema=schema).to_bytes()


def test_a_program_mixing_schemas_is_refused() -> None:
    catalog = prelude_user("plans/catalog.nx", 5)
    main = prelude_user("main.nx", 6, 'links plans/catalog.nx version "" fingerprint 7\n')
    with pytest.raises(ir.NxIrError) as refused:
        ir.link_program(main, {"plans/catalog.nx": catalog})
    assert refused.value.code == "nx-ir-link-schema"
    assert refused.value.diagnostics[0].message == (
        "Module 'main.nx' is schema 6, but 'plans/catalog.nx' is schema 5: "
        "every module of a program must be one schema."
    )


def test_declarations_show_constrained_types_and_state_records() -> None:
    booking = ir.prepare_module(ir.assemble(sample("booking")))
    record = next(d for d in booking.declarations() if d["name"] == "Booking")
    guests, nights, budget = (field["type"] for field in record["fields"])
    assert guests == {
        "kind": "constrained",
        "base": {"kind": "primitive", "name": "int"},
        "low": {"value": 1, "exclusive": False, "text": "1"},
        "high": {"value": 10, "exclusive": False, "text": "10"},
    }
    assert isinstance(guests["low"]["value"], int)
    assert nights["high"] is None
    assert budget["kind"] == "seq" and budget["occurrence"] == "?"
    low = budget["item"]["low"]
    assert low == {"value": 0.0, "exclusive": True, "text": "0.0"} and isinstance(low["value"], float)

    settings = ir.prepare_module(ir.assemble(sample("settings")))
    counter = next(d for d in settings.declarations() if d["name"] == "Counter")
    assert counter["state_record"] == ("settings.nx", "Counter.State")
    five = ir.prepare_module(ir.assemble(PRELUDE_USER.format(identity="m.nx", links=""), schema=5))
    assert all("state_record" not in d or d["state_record"] is None for d in five.declarations())


#: What nx-ir-runtime 0.10.0 did with each call of the schema 6 programs (written by the oracle).
EXPECTED = json.loads((SAMPLES / "expected.json").read_text(encoding="utf-8"))["calls"]
AMPLE = ir.Limits(max_operations=2**40)


def expected(program: str, function: str, case: str) -> dict[str, Any]:
    return next(c for c in EXPECTED if (c["program"], c["function"], c["case"]) == (program, function, case))


def refusal(program: ir.Program, function: str, args: list[Any]) -> ir.Diagnostic:
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(program, function, args)
    assert refused.value.code == refused.value.diagnostics[0].code
    return refused.value.diagnostics[0]


def test_a_schema_6_program_evaluates_as_the_reference_runtime_does() -> None:
    program = ir.link_program(ir.prepare_module(ir.assemble(sample("booking"))))
    inside = expected("booking", "book", "inside")
    result = ir.evaluate_function(program, "book", inside["arguments"], limits=AMPLE)
    assert result.value == inside["outcome"]["value"] == {"$type": "Booking", "guests": 3, "nights": 2}
    assert result.operations == inside["operations"]
    by_name = ir.call_function(
        program, {"$type": "Function", "module": "booking.nx", "name": "book"}, {"nights": 2, "guests": 3}
    )
    assert by_name.value == inside["outcome"]["value"]

    # An argument outside its interval is refused before the body runs, naming the argument.
    above = expected("booking", "book", "guestsAbove")
    [wanted] = above["outcome"]["error"]
    refused = refusal(program, "book", above["arguments"])
    assert (refused.code, refused.argument, refused.message) == (
        wanted["code"],
        wanted["argument"],
        wanted["message"],
    ) == ("nx-ir-boundary-constraint", "guests", "Expected guests to be in 1..=10, got 11.")
    nested = expected("booking", "stay", "nightsBelow")
    refused = refusal(program, "stay", nested["arguments"])
    assert (refused.code, refused.message) == ("nx-ir-boundary-constraint", nested["outcome"]["error"][0]["message"])
    assert "b.nights" in refused.message


@pytest.mark.parametrize(
    ("name", "function", "case", "code"),
    [
        ("booking", "checkedAll", "secondBelow", "nx-ir-constraint"),
        ("geometry", "every", "outsideAsin", "nx-math-domain"),
        ("palette", "swatch", "bad", "color-invalid-text"),
        ("settings", "merged", "notARecord", "nx-ir-type"),
    ],
)
def test_schema_6_refusals_pass_through_with_their_diagnostics(name: str, function: str, case: str, code: str) -> None:
    program = ir.link_program(ir.prepare_module(ir.assemble(sample(name))))
    call = expected(name, function, case)
    [wanted] = call["outcome"]["error"]
    refused = refusal(program, function, call["arguments"])
    assert refused.code == wanted["code"] == code
    assert refused.declaration == wanted.get("declaration")
    if "message" in wanted:
        assert refused.message == wanted["message"]


def test_the_command_line_assembles_either_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "geometry.nxir.txt"
    text.write_text(sample("geometry"), encoding="utf-8")
    image = tmp_path / "geometry.nxir"
    assert cli.main(["assemble", str(text), "-o", str(image)]) == 0
    assert "schema 6" in capsys.readouterr().out
    assert ir.prepare_module(image.read_bytes()).schema == 6
    assert cli.main(["assemble", str(text), "-o", str(image), "--schema", "5"]) == 3
    err = capsys.readouterr().err
    assert "[nx-ir-assemble]" in err and "schema 5" in err
    plain = tmp_path / "plain.nxir.txt"
    plain.write_text(PRELUDE_USER.format(identity="m.nx", links=""), encoding="utf-8")
    assert cli.main(["--json", "assemble", str(plain), "-o", str(image), "--schema", "5"]) == 0
    assert json.loads(capsys.readouterr().out)["schema"] == 5
    with pytest.raises(SystemExit):
        cli.main(["assemble", str(plain), "-o", str(image), "--schema", "7"])
