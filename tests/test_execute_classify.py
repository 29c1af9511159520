"""Classification of runtime failures: agent-package §8.11 (context parameters `context`, `session`)."""

from __future__ import annotations

from typing import Any

import pytest

from nx_agent.agent.classify import classify_runtime_failure

CONTEXT = frozenset({"context", "session"})
LIMIT = {"name": "maxOperations", "value": 100000}


def d(code: str, argument: str | None = None, limit: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"severity": "error", "code": code, "message": "m"}
    if argument is not None:
        out["argument"] = argument
    if limit is not None:
        out["limit"] = limit
    return out


BOUNDARY = ("nx-ir-boundary-type", "nx-ir-boundary-field", "nx-ir-arguments")


@pytest.mark.parametrize("code", BOUNDARY)
def test_one_boundary_failure_naming_a_model_argument_is_invalid_input(code: str) -> None:
    classified = classify_runtime_failure([d(code, "teamSize")], CONTEXT)
    assert classified == {"code": "invalid-input"}
    assert "limit" not in classified


def test_several_naming_model_arguments_and_an_empty_context_set() -> None:
    diagnostics = [d("nx-ir-boundary-type", "teamSize"), d("nx-ir-arguments", "note")]
    assert classify_runtime_failure(diagnostics, CONTEXT) == {"code": "invalid-input"}
    assert classify_runtime_failure([d("nx-ir-boundary-type", "context")], frozenset()) == {"code": "invalid-input"}


@pytest.mark.parametrize("code", BOUNDARY)
def test_naming_a_context_parameter_is_invalid_context(code: str) -> None:
    assert classify_runtime_failure([d(code, "context")], CONTEXT) == {"code": "invalid-context"}


def test_boundary_field_naming_the_other_context_parameter() -> None:
    assert classify_runtime_failure([d("nx-ir-boundary-field", "session")], CONTEXT) == {"code": "invalid-context"}


def test_model_and_context_together_is_invalid_context_in_either_order() -> None:
    model, context = d("nx-ir-boundary-type", "teamSize"), d("nx-ir-boundary-field", "context")
    assert classify_runtime_failure([model, context], CONTEXT) == {"code": "invalid-context"}
    assert classify_runtime_failure([context, model], CONTEXT) == {"code": "invalid-context"}


@pytest.mark.parametrize("code", (*BOUNDARY, "nx-ir-boundary-constraint"))
def test_a_boundary_failure_naming_no_argument_is_evaluation_failed(code: str) -> None:
    assert classify_runtime_failure([d(code)], CONTEXT) == {"code": "evaluation-failed"}
    named_and_not = [d("nx-ir-boundary-type", "teamSize"), d(code)]
    assert classify_runtime_failure(named_and_not, CONTEXT) == {"code": "evaluation-failed"}


def test_future_boundary_codes_are_classified_by_argument() -> None:
    constraint = d("nx-ir-boundary-constraint", "teamSize")
    assert classify_runtime_failure([constraint], CONTEXT) == {"code": "invalid-input"}
    beside = [constraint, d("nx-ir-boundary-type", "note")]
    assert classify_runtime_failure(beside, CONTEXT) == {"code": "invalid-input"}
    on_context = d("nx-ir-boundary-constraint", "context")
    assert classify_runtime_failure([on_context], CONTEXT) == {"code": "invalid-context"}


def test_any_non_boundary_failure_is_evaluation_failed() -> None:
    mixed = [d("nx-ir-boundary-type", "teamSize"), d("nx-ir-division-by-zero")]
    assert classify_runtime_failure(mixed, CONTEXT) == {"code": "evaluation-failed"}
    for argument in ("step", "context"):
        function_value = [d("nx-ir-function-value", argument)]
        assert classify_runtime_failure(function_value, CONTEXT) == {"code": "evaluation-failed"}


@pytest.mark.parametrize(
    "code",
    ["nx-ir-boundary", "nx-ir-boundaries-type", "x-nx-ir-boundary-type", "nx-ir-argument", "nx-ir-arguments-extra", ""],
)
def test_look_alike_codes_are_not_boundary_failures(code: str) -> None:
    assert classify_runtime_failure([d(code, "teamSize")], CONTEXT) == {"code": "evaluation-failed"}


def test_a_resource_limit_wins_with_its_limit() -> None:
    limit = d("nx-ir-resource-limit", limit=LIMIT)
    expected = {"code": "resource-limit", "limit": {"name": "maxOperations", "value": 100000}}
    assert classify_runtime_failure([limit], CONTEXT) == expected
    for other in (d("nx-ir-boundary-type", "teamSize"), d("nx-ir-division-by-zero"), d("nx-ir-boundary-type", "context")):
        assert classify_runtime_failure([limit, other], CONTEXT) == expected
        assert classify_runtime_failure([other, limit], CONTEXT) == expected
    assert classify_runtime_failure([d("nx-ir-resource-limit")], CONTEXT) == {"code": "resource-limit"}


def test_no_diagnostics_is_evaluation_failed() -> None:
    assert classify_runtime_failure([], CONTEXT) == {"code": "evaluation-failed"}


def test_runtime_diagnostic_objects_are_read_as_dicts_are() -> None:
    from nx_agent import ir

    program = ir.prepare_program(
        ir.assemble("module main.nx fingerprint 1\nentrypoints functions [f] components []\n\nfunction f(n: int): int =\n  n\n")
    )
    with pytest.raises(ir.NxIrError) as failed:
        ir.call_function(program, {"$type": "Function", "module": "main.nx", "name": "f"}, {"n": "x"})
    assert classify_runtime_failure(failed.value.diagnostics, CONTEXT) == {"code": "invalid-input"}
    assert classify_runtime_failure(failed.value.diagnostics, {"n"}) == {"code": "invalid-context"}
