"""Evaluation from Python: the corpus's values, operation counts and failure points through the
Python boundary, limits, and host values that have no canonical form."""

from __future__ import annotations

import json
from typing import Any

import pytest

from corpus import CorpusProgram, image, over_corpus, programs
from nx_agent import examples, ir

PROGRAMS = programs()
# The lifecycles `program.json` records are driven in test_components.py.
CASES: list[tuple[CorpusProgram, dict[str, Any]]] = []
for _program in PROGRAMS:
    _spec_file = _program.path / "program.json"
    if _spec_file.is_file():
        _entries = json.loads(_spec_file.read_text(encoding="utf-8")).get("entrypoints", [])
    else:  # a program without a spec (snippet): its results name the entrypoints
        _results = json.loads((_program.path / "expected" / "results.json").read_text("utf-8"))
        _entries = [dict(zip(("module", "function"), key.split("::"))) for key in _results]
    CASES.extend((_program, entry) for entry in _entries)


def key_of(entry: dict[str, Any]) -> str:
    key = f"{entry['module']}::{entry['function']}"
    return f"{key}#{entry['case']}" if "case" in entry else key


def expected(program: CorpusProgram, name: str) -> dict[str, Any]:
    path = program.path / "expected" / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def link(program: CorpusProgram, entry: str, *, full: bool = False) -> ir.Program:
    modules = {
        identity: ir.prepare_module(
            image(program, m, full=full and m.full is not None and m.source is not None)
        )
        for identity, m in program.modules.items()
    }
    return ir.link_program(modules[entry], modules)


def key_order(value: Any) -> Any:
    """The keys of every object in `value`, in order, nested as the value nests."""
    if isinstance(value, dict):
        return [(key, key_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_order(item) for item in value]
    return None


@over_corpus(("program", "entry"), CASES, ids=[f"{p.name}:{key_of(e)}" for p, e in CASES])
def test_corpus_entrypoint(program: CorpusProgram, entry: dict[str, Any]) -> None:
    key = key_of(entry)
    linked = link(program, entry["module"])
    args = entry.get("arguments", [])
    counts = expected(program, "operations.json")
    if entry.get("fails"):
        diagnostic = expected(program, "diagnostics.json")[key]
        with pytest.raises(ir.NxIrError) as refused:
            ir.evaluate_function(linked, entry["function"], args, max_operations=2**40)
        assert refused.value.code == diagnostic["code"]
        assert refused.value.diagnostics[0].argument == diagnostic.get("argument")
        return
    result = ir.evaluate_function(linked, entry["function"], args, max_operations=2**40)
    assert result.value == expected(program, "results.json")[key]
    # Key order too: `$type` first, then the fields in byte order of their names (§5).
    assert key_order(result.value) == key_order(expected(program, "results.json")[key])
    count = counts.get("counts", {}).get(key)
    if count is None:
        return
    assert result.usage["operations"] == count
    assert ir.evaluate_function(linked, entry["function"], args, max_operations=count).value == result.value
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(linked, entry["function"], args, max_operations=count - 1)
    assert refused.value.code == "nx-ir-resource-limit"
    assert refused.value.diagnostics[0].limit == {"name": "maxOperations", "value": count - 1}
    assert refused.value.diagnostics[0].argument is None
    for failure in counts.get("failures", {}).get(key, []):
        with pytest.raises(ir.NxIrError) as failed:
            ir.evaluate_function(linked, entry["function"], args, max_operations=failure["budget"])
        assert failed.value.code == "nx-ir-resource-limit"
        assert failed.value.diagnostics[0].declaration == failure["declaration"]


def plans() -> ir.Program:
    return examples.link_example()


def test_the_example_tool_finds_plans_for_a_team() -> None:
    result = ir.evaluate_function(plans(), "findPlans", [12], max_operations=10_000)
    assert [plan["name"] for plan in result.value] == ["Business"]
    assert result.value[0] == {"$type": "Plan", "monthlyPrice": 45, "name": "Business", "seats": 50}
    assert list(result.value[0])[0] == "$type"
    assert set(result.usage) == {"operations"}


def test_usage_reports_only_what_was_limited() -> None:
    program = plans()
    assert ir.evaluate_function(program, "findPlans", [5]).usage == {}
    usage = ir.evaluate_function(program, "findPlans", [5], max_input_size=10).usage
    assert usage == {"input_size": 1}
    limits = ir.Limits(max_operations=10_000, max_input_size=10)
    both = ir.evaluate_function(program, "findPlans", [5], limits=limits).usage
    assert set(both) == {"operations", "input_size"}
    assert limits.max_call_depth == 100 and limits.max_range_length == 1_000_000


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True])
def test_invalid_limits_are_options_errors(bad: Any) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.Limits(max_operations=bad)
    assert refused.value.code == "nx-ir-options"
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(plans(), "findPlans", [5], max_call_depth=bad)
    assert refused.value.code == "nx-ir-options"


def cyclic() -> list[Any]:
    items: list[Any] = [1]
    items.append(items)
    return items


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({1, 2}, "args[0]"),
        (object(), "args[0]"),
        (b"bytes", "args[0]"),
        ({"$type": "Plan", 3: "x"}, "args[0]"),
        ([1, {"a": {2}}], 'args[0][1]["a"]'),
        (cyclic(), "args[0][1]"),
        (2**70, "args[0]"),
    ],
)
def test_values_without_a_canonical_form_are_boundary_type_errors(value: Any, path: str) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(plans(), "findPlans", [value])
    assert refused.value.code == "nx-ir-boundary-type"
    assert refused.value.diagnostics[0].message.startswith(path + " ")


def test_deeply_nested_host_values_stop_at_the_nesting_limit() -> None:
    deep: Any = 0
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(plans(), "findPlans", [deep])
    assert refused.value.code == "nx-ir-resource-limit"
    assert refused.value.diagnostics[0].limit == {"name": "maxValueNesting", "value": 256}


def test_wrong_argument_type_names_the_argument() -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(plans(), "findPlans", ["five"])
    assert refused.value.code == "nx-ir-boundary-type"
    assert refused.value.diagnostics[0].argument == "teamSize"


def test_missing_entrypoint() -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(plans(), "noSuchFunction")
    assert refused.value.code == "nx-ir-missing-entrypoint"


def test_call_function_takes_arguments_by_name() -> None:
    function = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}
    result = ir.call_function(plans(), function, {"teamSize": 40}, max_operations=10_000)
    assert [plan["name"] for plan in result.value] == ["Business"]
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(plans(), {"$type": "Function", "module": "plans/main.nx", "name": "nope"}, {})
    assert refused.value.code == "nx-ir-function-value"


def test_measure_input_size() -> None:
    # ir-format §6.2: 1 per value, plus 1 per 64 UTF-16 code units of strings and names.
    assert ir.measure_input_size(5) == 1
    assert ir.measure_input_size([1, 2, 3]) == 4
    assert ir.measure_input_size("x" * 64) == 2
    assert ir.measure_input_size({"$type": "T", "a": 1}) == 2
    assert ir.measure_input_size([1] * 100, limit=10) > 10
