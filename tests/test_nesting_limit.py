"""Nestings that no call depth bounds stop at the expression nesting limit (1,000 levels) within
the default 1 MiB of native stack, as the NX reference runtime's release build stops them.

How much stack one level takes is each build's own; this holds the build installed here, a
release build as `pip install` makes it. The programs are `tests/fixtures/nesting/`, which the
oracle (`oracle/tests/nesting.rs`) also runs beside the reference runtime at every budget. The
operations below are what `nx-ir-runtime` 0.10.0 reports for them (docs/runtime-differences.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nx_agent import ir

TEXT = (Path(__file__).parent / "fixtures" / "nesting" / "nesting.nxir.txt").read_text(encoding="utf-8")
PROGRAM = ir.link_program(ir.prepare_module(ir.assemble(TEXT)))

#: function -> (the declaration the failure names, the operations charged before it).
REFERENCE = {
    "record": ("nesting.nx::Loop", 2998),
    "loop": ("nesting.nx::LoopFor", 2497),
    "unionCase": ("nesting.nx::Chain", 1000),
    "component": ("nesting.nx::Deep", 1000),
    "recursion": ("nesting.nx::down", 4329),
}


@pytest.mark.parametrize("function", list(REFERENCE))
def test_an_unbounded_nesting_stops_at_the_nesting_limit(function: str) -> None:
    declaration, operations = REFERENCE[function]
    # `recursion` calls itself 5,000 deep: the call depth is raised past it.
    with pytest.raises(ir.NxIrError) as failed:
        ir.evaluate_function(PROGRAM, function, (), max_operations=10**9, max_call_depth=10**6)
    error = failed.value
    assert error.code == "nx-ir-resource-limit"
    first = error.diagnostics[0]
    assert first.limit == {"name": "maxExpressionNesting", "value": 1000}
    assert first.declaration == declaration
    assert error.usage["operations"] == operations
