"""Validating a small tool input: with the cached validator `validate_input` keeps per schema,
against deriving the schema answer and compiling a validator for every call (what a host without
the cache would do). Both rows are in one group; the ratio between them is the figure.

Run: `python3 -m pytest benches/test_schema_speed.py`.
"""

from __future__ import annotations

from typing import Any

import pytest

from nx_agent import examples
from nx_agent.schema import function_schema, validate_input

REF = {"module": "plans/main.nx", "name": "findPlans"}
ARGS = {"teamSize": 5}


@pytest.mark.benchmark(group="validate findPlans arguments")
def test_validate_with_the_cached_validator(benchmark: Any) -> None:
    answer = function_schema(examples.link_example(), REF)
    assert benchmark(validate_input, answer, ARGS) == []


@pytest.mark.benchmark(group="validate findPlans arguments")
def test_derive_and_compile_every_call_baseline(benchmark: Any) -> None:
    import jsonschema_rs

    program = examples.link_example()

    def derive_and_validate() -> list[str]:
        schema = function_schema(program, REF)["inputSchema"]
        return [e.message for e in jsonschema_rs.validator_for(schema).iter_errors(ARGS)]

    assert benchmark(derive_and_validate) == []
