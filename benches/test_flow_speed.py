"""Components: a question-flow run beside the NX reference runtime on the same image, same run.

The image is the bundled conversation flow (`python/nx_agent/examples/flow.nx.nxir.txt`, schema
6: component `Flow`, four questions, one answer per dispatch). Timed from Python, metered:
`initialize_component` alone, and a question-flow run (initialize and 30 dispatches: six passes
through the four questions and the restart), with the instance held in the process, and again
as a serverless host holds it (written to bytes after each step and restored before the next).
The oracle crate's release binary `flow-bench` times nx-ir-core and `nx-ir-runtime` 0.10.0 on the
same image and script in Rust, rounds interleaved, after checking every call's output, effects,
state and count equal in both (it is built by this module with cargo when needed).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nx_agent import examples, ir
from timing import per_call

ROOT = Path(__file__).resolve().parent.parent
BUDGET = ir.Limits(max_operations=10**12)
PASS = [
    (1, {"$type": "TextAnswer.Submitted", "text": "Ada"}),
    (2, {"$type": "Option.Picked"}),
    (3, {"$type": "Option.Picked"}),
    (1, {"$type": "Option.Picked"}),
    (1, {"$type": "Restart.Pressed"}),
]
#: The 30 batches, one entry each; generation g's batch names tokens of generation g.
BATCHES = [
    [{"$type": "ActionHandlerInvocation", "token": f"h{g}-{token}", "action": action}]
    for g, (token, action) in enumerate(PASS * 6, 1)
]

FIGURES: dict[str, float] = {}
OPERATIONS: dict[str, int] = {}
REFERENCE: dict[tuple[str, str], dict[str, Any]] = {}


def run(program: ir.Program) -> int:
    """Initialize and 30 dispatches; the operations used."""
    started = ir.initialize_component(program, "Flow", limits=BUDGET)
    operations, instance = started.operations or 0, started.instance
    for batch in BATCHES:
        done = ir.dispatch_component_actions(program, instance, batch, limits=BUDGET)
        operations += done.operations or 0
        instance = done.instance
    return operations


def run_stored(program: ir.Program) -> int:
    """The same run, the instance written to bytes after each step and restored before the next."""
    started = ir.initialize_component(program, "Flow", limits=BUDGET)
    operations, stored = started.operations or 0, started.instance.to_bytes()
    for batch in BATCHES:
        done = ir.dispatch_component_actions(program, ir.restore_component_instance(program, stored), batch, limits=BUDGET)
        operations += done.operations or 0
        stored = done.instance.to_bytes()
    return operations


@pytest.mark.benchmark(group="components: question flow")
def test_nx_initialize(benchmark: Any) -> None:
    program = examples.link_flow()
    started = per_call(benchmark, ir.initialize_component, program, "Flow", limits=BUDGET)
    OPERATIONS["initialize"] = started.operations or 0
    FIGURES["initialize"] = benchmark.stats.stats.min


@pytest.mark.benchmark(group="components: question flow")
def test_nx_question_flow_run(benchmark: Any) -> None:
    program = examples.link_flow()
    run(program)
    operations = benchmark.pedantic(run, args=(program,), rounds=200, warmup_rounds=5)
    OPERATIONS["question-flow run"] = operations
    FIGURES["question-flow run"] = benchmark.stats.stats.min


@pytest.mark.benchmark(group="components: question flow")
def test_nx_question_flow_run_stored_between_steps(benchmark: Any) -> None:
    program = examples.link_flow()
    assert run_stored(program) == run(program)
    benchmark.pedantic(run_stored, args=(program,), rounds=200, warmup_rounds=5)
    FIGURES["question-flow run, stored between steps"] = benchmark.stats.stats.min


def test_reference_runtime_on_the_same_image() -> None:
    """Runs the oracle's release bench binary (nx-ir-core and nx-ir-runtime 0.10.0 in Rust)."""
    manifest = ROOT / "oracle" / "Cargo.toml"
    env = {**os.environ, "CARGO_BUILD_JOBS": os.environ.get("CARGO_BUILD_JOBS", "1")}
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--ignore-rust-version", "--manifest-path", str(manifest), "--bin", "flow-bench"],
        check=True,
        env=env,
    )
    binary = ROOT / "oracle" / "target" / "release" / "flow-bench"
    output = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    for line in output.splitlines():
        record = json.loads(line)
        REFERENCE[(record["workload"], record["engine"])] = record
    assert {w for w, _ in REFERENCE} == {"initialize", "question-flow run"}
    for (workload, _), record in REFERENCE.items():
        assert workload not in OPERATIONS or record["operations"] == OPERATIONS[workload]


def summary(write: Any) -> None:
    """The component lines of the terminal summary (`conftest.py`)."""
    for workload in ("initialize", "question-flow run"):
        if workload not in FIGURES:
            continue
        ours = FIGURES[workload] * 1e6
        write("components %s (%d operations), metered:" % (workload, OPERATIONS[workload]))
        write("  nx-agent from Python       %9.1f us" % ours)
        if workload == "question-flow run" and "question-flow run, stored between steps" in FIGURES:
            write("  ... stored between steps   %9.1f us" % (FIGURES["question-flow run, stored between steps"] * 1e6))
        core = REFERENCE.get((workload, "nx-ir-core"))
        reference = REFERENCE.get((workload, "nx-ir-runtime 0.10.0"))
        if core and reference:
            write("  nx-ir-core in Rust         %9.1f us" % (core["ns_per_run"] / 1e3))
            write("  nx-ir-runtime 0.10.0       %9.1f us  (%.2fx nx-ir-core in Rust, %.2fx nx-agent from Python)"
                  % (reference["ns_per_run"] / 1e3, reference["ns_per_run"] / core["ns_per_run"], reference["ns_per_run"] / 1e3 / ours))
