"""The per-call memory ceiling (`max_memory`, nx-agent's own guard, issue 15): bytes of values an
evaluation allocates, off the operation count, ending the call with `nx-ir-resource-limit` and
limit `memory`."""

from __future__ import annotations

import pickle

import pytest

from nx_agent import ir

PRELUDE_LINK = 'links @nx/prelude.nx version "1" fingerprint 16429037828798365428'

GROW = f"""\
module grow.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [grow copies] components []

function grow(n: int, s: string) =
  if (n gt 0) then
    grow((n sub 1), (s concat s))
  else
    s

function copies(n: int, s: string) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (s concat "!")
"""


@pytest.fixture(scope="module")
def program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(GROW)))


def test_the_default_ceiling_is_generous_and_reported() -> None:
    limits = ir.Limits()
    assert limits.max_memory == 256 << 20
    assert "max_memory=268435456" in repr(limits)
    assert pickle.loads(pickle.dumps(ir.Limits(max_memory=12345))).max_memory == 12345


def test_a_call_past_the_ceiling_fails_with_limit_memory(program: ir.Program) -> None:
    # 2^22 bytes of text built by doubling, with no budget at all: past a 1 MiB ceiling.
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(program, "grow", [22, "x"], max_memory=1 << 20)
    assert refused.value.code == "nx-ir-resource-limit"
    assert refused.value.diagnostics[0].limit == {"name": "memory", "value": 1 << 20}
    # Counted as allocated, never given back within the call: copies dropped as they go count.
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(program, "copies", [200, "y" * 10_000], limits=ir.Limits(max_memory=1 << 20))
    assert refused.value.diagnostics[0].limit == {"name": "memory", "value": 1 << 20}


def test_under_the_ceiling_the_counts_are_unchanged(program: ir.Program) -> None:
    small = ir.evaluate_function(program, "grow", [10, "x"], max_operations=100_000)
    roomy = ir.evaluate_function(program, "grow", [10, "x"], max_operations=100_000, max_memory=1 << 30)
    assert small.value == roomy.value == "x" * 1024
    assert small.operations == roomy.operations


def test_call_function_takes_the_keyword(program: ir.Program) -> None:
    grow = {"$type": "Function", "module": "grow.nx", "name": "grow"}
    with pytest.raises(ir.NxIrError) as refused:
        ir.call_function(program, grow, {"n": 22, "s": "x"}, max_memory=1 << 20)
    assert refused.value.diagnostics[0].limit == {"name": "memory", "value": 1 << 20}
