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
