"""Images from strangers (issue 15): an image whose nodes or types refer to an earlier entry more
than once (a DAG) describes a tree exponentially larger than the file. Walking it must stay in
proportion to the image (asserted on allocation, never on time) or refuse with a code under a
limit the caller can set. The images are written by the Rust tests' generators
(`rust/nx-ir-core/tests/dag_images.rs`, which checks these files are exactly theirs)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from nx_agent import NxError, ir
from nx_agent.schema.sources import ProgramSchemaSource

FIXTURES = Path(__file__).parent / "fixtures" / "dag"
NODES = (FIXTURES / "nodes.nxir").read_bytes()  # 2^48 concatenations of "ab" in 50 nodes
TYPES = (FIXTURES / "types.nxir").read_bytes()  # a parameter of a function type 3^60 views big


def peak(call: Any) -> tuple[Any, int]:
    """What ``call()`` returns (or raises), and the peak of Python allocations while it ran."""
    tracemalloc.start()
    try:
        try:
            outcome = call()
        except NxError as error:
            outcome = error
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_explaining_a_node_dag_stops_at_the_output_limit() -> None:
    assert len(NODES) < 2048
    ir.prepare_module(NODES)
    with pytest.raises(ir.NxIrError) as refused:
        ir.explain(NODES)
    assert refused.value.code == "nx-ir-resource-limit"
    assert refused.value.diagnostics[0].limit == {"name": "maxOutput", "value": 64 << 20}
    with pytest.raises(ir.NxIrError) as refused:
        ir.explain(ir.prepare_module(NODES), max_output=4096)
    assert refused.value.diagnostics[0].limit == {"name": "maxOutput", "value": 4096}


def test_declarations_and_function_schema_of_a_type_dag_stay_small() -> None:
    assert len(TYPES) < 4096
    module = ir.prepare_module(TYPES)
    declarations, used = peak(module.declarations)
    assert not isinstance(declarations, NxError)
    assert "invalid" in repr(declarations)
    # 4,096 + 4 per image byte type views at most, each a small dict: well under 32 MB.
    assert used < 32 << 20, used
    source = ProgramSchemaSource(ir.link_program(module))
    answer, used = peak(lambda: source.function_schema({"module": "types.nx", "name": "take"}))
    assert used < 256 << 20, used
    # A function-typed parameter has no JSON form: the schema layer refuses it with a code.
    if isinstance(answer, NxError):
        assert answer.code
    else:
        assert answer.get("diagnostics") or answer.get("errors") or answer


AGENT = "@nx/agent/agent.nx"
# The smallest agent whose program links the type DAG: one function tool, `types.nx::take`. The
# fixture is schema 5, so the entry module and the `@nx/agent` library are assembled as schema 5 too
# (a program is one schema).
DAG_AGENT = f"""\
module main.nx fingerprint 9003
links types.nx version "" fingerprint {{types}}
links {AGENT} version "b06c00c30be50ada" fingerprint 11527925250760699671
requires function-values-v1
entrypoints functions [root] components []

function root(): {AGENT}:Agent =
  <{AGENT}:Agent name="dag" tools=[<{AGENT}:FunctionTool description="Takes a function." function=types.nx:take />]>
    "Take what you are given."
  </{AGENT}:Agent>
"""


def dag_agent_images() -> dict[str, bytes]:
    """``main.nx`` (whose ``root`` is the agent), the type DAG and the ``@nx/agent`` library."""
    from nx_agent import examples

    library = examples.library_text()
    main = DAG_AGENT.format(types=ir.prepare_module(TYPES).fingerprint)
    return {
        "main.nx": ir.assemble(main, links=[library], schema=5),
        "types.nx": TYPES,
        AGENT: ir.assemble(library, version="b06c00c30be50ada", schema=5),
    }


def test_compiling_an_agent_over_a_type_dag_is_refused_with_a_code_and_stays_small() -> None:
    from nx_agent.agent import NxAgentError, compile_agent

    images = dag_agent_images()
    refused, used = peak(lambda: compile_agent(images))
    # A function-typed parameter has no JSON form (the README's "Images from strangers"): refused
    # with the agent layer's code, after reading at most the image's budget of type views.
    assert isinstance(refused, NxAgentError), refused
    codes = {diagnostic.code for diagnostic in refused.diagnostics}
    assert "nx-agent-inexpressible-parameter" in codes
    assert used < 64 << 20, used
    # The message quotes the type's spelling bounded: never the 130 KB the image's budget of type
    # views spells, nor the 3^60 views of the tree.
    assert len(str(refused)) < 4_000, len(str(refused))
    assert "characters left out" in str(refused)
