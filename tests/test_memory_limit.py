"""The per-call memory ceiling (`max_memory`, nx-agent's own guard, issue 15): bytes of values an
evaluation allocates, off the operation count, ending the call with `nx-ir-resource-limit` and
limit `memory`; and the same ceiling set by a host of an agent's tools (`runtime=`), whose calls
past it answer `resource-limit`."""

from __future__ import annotations

import asyncio
import math
import pickle
from typing import Any

import pytest

from nx_agent import create_agent_tools, ir, load_agent, load_bundle
from nx_agent.agent import CompiledAgent
from nx_agent.agent.load import LoadedAgent
from nx_agent.agent.definition import definition_text
from nx_agent.agent.limits import AgentOptionError
from nx_agent.bundle import bundle_bytes

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


# --- The agent layer: load_agent / create_agent_tools / load_bundle and the tools' calls -----------
#
# `grow` as a stored function tool (agent-package §2.2), the form a host holds: a call past the
# ceiling is the result code of §5.12 for a runtime resource limit, `resource-limit`, with the
# runtime's limit (`{"name": "memory", "value": N}`), never an exception.

ONE_MIB = 1 << 20
GROW_TOOL: dict[str, Any] = {
    "name": "grow",
    "description": "Doubles a text n times.",
    "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
        "required": ["n", "s"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    "kind": "function",
    "config": {"function": {"module": "grow.nx", "name": "grow"}, "contextParameters": []},
}
GROW_DEFINITION: dict[str, Any] = {
    "formatVersion": 1, "name": "grower", "instructions": "Grow texts.", "documents": [], "limits": {}, "tools": [GROW_TOOL],
}
# 2^22 bytes of text, in 22 calls: under the default budget and every other limit.
PAST = {"n": 22, "s": "x"}
UNDER = {"n": 10, "s": "x"}


def grow_images() -> dict[str, bytes]:
    return {"grow.nx": ir.assemble(GROW)}


def grow_agent(**options: Any) -> LoadedAgent:
    return load_agent(GROW_DEFINITION, grow_images(), entry="grow.nx", **options)


def over_the_ceiling(result: Any, ceiling: int = ONE_MIB) -> None:
    assert result["ok"] is False, result
    assert result["error"]["code"] == "resource-limit"
    assert result["error"]["limit"] == {"name": "memory", "value": ceiling}
    assert result["error"]["diagnostics"][0]["code"] == "nx-ir-resource-limit"
    # The call ran: what it used is reported, as for any runtime limit (§5.10).
    assert set(result["usage"]) == {"operations", "inputSize"}


@pytest.mark.parametrize("runtime", [{"max_memory": ONE_MIB}, ir.Limits(max_memory=ONE_MIB)], ids=["mapping", "Limits"])
def test_a_tool_call_past_the_hosts_ceiling_is_a_resource_limit_result(runtime: Any) -> None:
    tool = grow_agent(runtime=runtime)["grow"]
    over_the_ceiling(tool.execute(PAST, call_id="c1"))
    over_the_ceiling(asyncio.run(tool.aexecute(PAST, call_id="c2")))
    under = tool.execute(UNDER, call_id="c3")
    assert under["ok"] is True and under["output"] == "x" * 1024


def test_without_a_ceiling_the_runtimes_default_holds() -> None:
    # 4 MiB of text is under the default 256 MiB.
    result = grow_agent(max_operations=10**7)["grow"].execute(PAST, call_id="c1")
    assert result["ok"] is True and result["output"] == "x" * (1 << 22)
    assert grow_agent()["grow"]._call.limits.max_memory == 256 << 20  # type: ignore[attr-defined]


def test_create_agent_tools_and_the_schema_checked_path_take_the_ceiling() -> None:
    program = ir.link_program(ir.prepare_module(ir.assemble(GROW)))
    (tool,) = create_agent_tools(GROW_DEFINITION, program, runtime={"max_memory": ONE_MIB}, validate_arguments=True)
    over_the_ceiling(tool.execute(PAST, call_id="c1"))


def test_load_bundle_takes_the_ceiling() -> None:
    program = ir.link_program(ir.prepare_module(ir.assemble(GROW)))
    compiled = CompiledAgent(GROW_DEFINITION, definition_text(GROW_DEFINITION), grow_images(), program)
    agent = load_bundle(bundle_bytes(compiled), runtime={"max_memory": ONE_MIB})
    over_the_ceiling(agent["grow"].execute(PAST, call_id="c1"))


def test_the_ceiling_travels_with_a_pickled_agent_and_in_stored() -> None:
    agent = grow_agent(runtime={"max_call_depth": 50, "max_memory": ONE_MIB})
    assert agent.stored()["runtime"] == {"max_call_depth": 50, "max_memory": ONE_MIB}
    for back in (pickle.loads(pickle.dumps(agent))["grow"], pickle.loads(pickle.dumps(agent["grow"]))):
        over_the_ceiling(back.execute(PAST, call_id="c1"))
    again = load_agent(**agent.stored())
    over_the_ceiling(again["grow"].execute(PAST, call_id="c1"))


@pytest.mark.parametrize("value", [-1, 1.5, math.inf, math.nan, True, "5", 2**53])
@pytest.mark.parametrize("option", ["max_call_depth", "max_memory"])
def test_a_ceiling_that_is_not_a_non_negative_safe_integer_is_refused_as_the_other_limits_are(
    option: str, value: Any
) -> None:
    with pytest.raises(AgentOptionError) as raised:
        grow_agent(runtime={option: value})
    assert raised.value.code == "nx-agent-option"
    assert str(raised.value).startswith(f"runtime.{option} must be a non-negative safe integer, got ")
