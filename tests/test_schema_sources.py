"""Schema sources, the descriptions document, and validation with cached jsonschema-rs
validators."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nx_agent import NxError
from nx_agent.schema import (
    ProgramSchemaSource,
    SchemaError,
    SchemaSource,
    StoredSchemaSource,
    function_schema,
    load_descriptions,
    validate_input,
    validator_for,
)
from schema_programs import DIALECT, dumps, main, program
from test_schema_cases import DOCUMENTED, PLAN

FIND_PLANS = main(PLAN + "\nfunction findPlans(teamSize: int, maxMonthlyPrice?: int): Plan* =\n  {}\n")

# A functionSchema answer as the NX compiler serializes it (E41's documented findPlans, with the
# fixture's documented `yearly` case), diagnostics in the compiler's shape.
COMPILER_ANSWER: dict[str, Any] = {
    "module": "main.nx",
    "name": "findPlans",
    "description": "Finds the plans that fit a team.\n\nPlans are sorted by price.",
    "summary": "Finds the plans that fit a team.",
    "parameters": [
        {"name": "teamSize", "type": "int", "required": True, "description": "Number of people who need a seat."},
        {
            "name": "billing",
            "type": "Billing",
            "required": False,
            "description": "Ignored when `maxMonthlyPrice` is set.",
            "typeRef": {"module": "main.nx", "name": "Billing"},
        },
        {"name": "maxMonthlyPrice", "type": "int", "required": False},
    ],
    "inputSchema": {
        "$schema": DIALECT,
        "type": "object",
        "properties": {
            "teamSize": {"type": "integer", "description": "Number of people who need a seat."},
            "billing": {"$ref": "#/$defs/Billing", "description": "Ignored when `maxMonthlyPrice` is set."},
            "maxMonthlyPrice": {"type": "integer"},
        },
        "required": ["teamSize"],
        "additionalProperties": False,
        "$defs": {
            "Billing": {
                "type": "string",
                "enum": ["monthly", "yearly"],
                "description": "How a plan is billed.\n\n- `yearly`: Billed once a year, at a discount.",
            }
        },
    },
    "outputSchema": {
        "$schema": DIALECT,
        "type": "array",
        "items": {"$ref": "#/$defs/Plan"},
        "$defs": {
            "Plan": {
                "type": "object",
                "properties": {
                    "$type": {"const": "Plan"},
                    "name": {"type": "string", "description": "The plan's display name."},
                    "seats": {"type": "integer"},
                },
                "required": ["$type", "name", "seats"],
                "additionalProperties": False,
                "description": "A plan a team can buy.\n\nPrices are monthly.",
            }
        },
    },
    "resultType": "Plan*",
    "declaration": {"startByte": 0, "endByte": 10, "startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 11},
    "diagnostics": [],
}


def test_both_sources_are_schema_sources() -> None:
    assert isinstance(ProgramSchemaSource(program(FIND_PLANS)), SchemaSource)
    assert isinstance(StoredSchemaSource([COMPILER_ANSWER]), SchemaSource)


def test_program_source_answers_as_function_schema_and_hands_out_copies() -> None:
    p = program(FIND_PLANS)
    source = ProgramSchemaSource(p)
    first = source.function_schema({"module": "main.nx", "name": "findPlans"}, host_supplied_types=[])
    assert dumps(first) == dumps(function_schema(p, {"name": "findPlans"}))
    first["inputSchema"]["properties"].clear()
    again = source.function_schema({"module": "main.nx", "name": "findPlans"})
    assert list(again["inputSchema"]["properties"]) == ["teamSize", "maxMonthlyPrice"]


@pytest.mark.parametrize("ref", [{"name": "missing"}, {"module": "other.nx", "name": "findPlans"}])
def test_unknown_function_is_the_agent_layers_signal(ref: dict[str, str]) -> None:
    for source in (ProgramSchemaSource(program(FIND_PLANS)), StoredSchemaSource([COMPILER_ANSWER])):
        with pytest.raises(NxError) as raised:
            source.function_schema(ref)
        assert isinstance(raised.value, SchemaError) and raised.value.code == "schema-unknown-declaration"
        assert any(d["code"] == "schema-unknown-declaration" for d in raised.value.diagnostics)
        assert all("message" in d for d in raised.value.diagnostics)


def test_stored_answers_load_as_they_are(tmp_path: Path) -> None:
    stored = tmp_path / "answers.json"
    stored.write_text(json.dumps({"functions": [COMPILER_ANSWER]}))
    for source in (StoredSchemaSource([COMPILER_ANSWER]), StoredSchemaSource(stored)):
        assert dumps(source.function_schema({"module": "main.nx", "name": "findPlans"})) == dumps(COMPILER_ANSWER)
        assert dumps(source.function_schema({"name": "findPlans"})) == dumps(COMPILER_ANSWER)


def test_compiler_answers_load_as_descriptions() -> None:
    descriptions = load_descriptions([COMPILER_ANSWER])
    derived = function_schema(program(DOCUMENTED), {"name": "findPlans"}, descriptions=descriptions)
    for key in ("description", "summary", "parameters", "inputSchema", "outputSchema", "resultType"):
        assert dumps(derived[key]) == dumps(COMPILER_ANSWER[key]), key


def test_descriptions_from_a_file_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "descriptions.json"
    path.write_text(json.dumps({"modules": {"main.nx": {"functions": {"findPlans": {"description": "Finds plans."}}}}}))
    answer = function_schema(program(FIND_PLANS), {"name": "findPlans"}, descriptions=str(path))
    assert answer["description"] == "Finds plans." and answer["summary"] == "Finds plans."
    with pytest.raises(NxError):
        load_descriptions({"modules": {"main.nx": {"functions": {"findPlans": {"description": 3}}}}})
    with pytest.raises(NxError):
        load_descriptions({"something": "else"})


def test_validation_gives_json_pointers_and_messages() -> None:
    answer = function_schema(program(FIND_PLANS), {"name": "findPlans"})
    assert validate_input(answer, {"teamSize": 3}) == []
    problems = validate_input(answer, {"teamSize": "three", "extra": 1})
    assert {p["path"] for p in problems} == {"/teamSize", ""}
    assert all(isinstance(p["message"], str) and p["message"] for p in problems)
    assert [p["path"] for p in validate_input(answer, {})] == [""]


def test_a_function_without_an_input_schema_is_refused() -> None:
    text = main('function render(template: <function Item:string />: string): string =\n  "x"\n')
    answer = function_schema(program(text), {"name": "render"})
    with pytest.raises(SchemaError):
        validate_input(answer, {})


def test_one_validator_per_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    import jsonschema_rs

    compiled: list[Any] = []
    real = jsonschema_rs.validator_for

    def counting(schema: Any, **options: Any) -> Any:
        compiled.append(schema)
        return real(schema, **options)

    monkeypatch.setattr(jsonschema_rs, "validator_for", counting)
    text = main("function pick(seats: int, name: string): int =\n  seats\n")
    answer = function_schema(program(text), {"name": "pick"})
    for value in ({"seats": 1, "name": "a"}, {"seats": "x"}, {}):
        validate_input(answer, value)
    copy = json.loads(json.dumps(answer))
    validate_input(copy, {"seats": 1, "name": "a"})
    assert len(compiled) == 1
    assert validator_for(answer["inputSchema"]) is validator_for(copy["inputSchema"])


def test_importing_nx_agent_leaves_jsonschema_rs_unloaded() -> None:
    code = "import sys, nx_agent, nx_agent.schema; print('jsonschema_rs' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_stored_name_two_modules_share_needs_its_module() -> None:
    other = {**COMPILER_ANSWER, "module": "other.nx"}
    source = StoredSchemaSource([COMPILER_ANSWER, other])
    assert source.function_schema({"module": "other.nx", "name": "findPlans"})["module"] == "other.nx"
    assert source.function_schema({"module": "main.nx", "name": "findPlans"})["module"] == "main.nx"
    with pytest.raises(SchemaError) as raised:
        source.function_schema({"name": "findPlans"})
    assert raised.value.code == "schema-unknown-declaration"
    assert "in the stored answers" in str(raised.value)
