"""Schema 6 evaluation speed, beside the NX reference runtime on the same image in the same run.

The image is `rust/nx-ir-core/tests/schema6/bench6.nxir.txt` (also one of the oracle's schema 6
programs): `book(guests: int where in 1..=10, nights: int where >= 1)`, a call whose two
arguments are constrained, and `hypotenuses(n)`, a loop of `math.sqrt(math.hypot(i, 1.5))`.
nx-agent is timed from Python (`ir.evaluate_function`, metered); the oracle crate's release
binary `schema6-bench` times nx-ir-core and `nx-ir-runtime` 0.10.0 on the same image in Rust,
their rounds interleaved (it is built by this module with cargo when needed). The summary at the
end gives ns per operation and the ratios (reference time / nx-agent time: above 1 means
nx-agent is faster).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nx_agent import _native, ir
from timing import per_call

ROOT = Path(__file__).resolve().parent.parent
IMAGE_TEXT = ROOT / "rust" / "nx-ir-core" / "tests" / "schema6" / "bench6.nxir.txt"
BUDGET = ir.Limits(max_operations=10**12)
#: Items of the math loop.
LOOP = 100_000

#: Fastest round of each benchmark (seconds) and each operation count, for the summary.
FIGURES: dict[str, float] = {}
OPERATIONS: dict[str, int] = {}
#: What the oracle's bench binary printed: (workload, engine) -> its record.
REFERENCE: dict[tuple[str, str], dict[str, Any]] = {}


def program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(IMAGE_TEXT.read_text(encoding="utf-8"))))


@pytest.mark.benchmark(group="schema 6: constrained-argument call")
def test_nx_constrained_call(benchmark: Any) -> None:
    linked = program()
    result = per_call(benchmark, ir.evaluate_function, linked, "book", (3, 2), limits=BUDGET)
    assert result.value == 6
    OPERATIONS["constrained call"] = result.operations or 0
    FIGURES["constrained call"] = benchmark.stats.stats.min


@pytest.mark.benchmark(group="schema 6: constrained-argument call")
def test_nx_constrained_call_refused(benchmark: Any) -> None:
    # The refusal path: the first argument outside its interval, raised as NxIrError.
    linked = program()

    def refused() -> str:
        try:
            ir.evaluate_function(linked, "book", (11, 2), limits=BUDGET)
        except ir.NxIrError as error:
            return error.code
        return ""

    assert per_call(benchmark, refused) == "nx-ir-boundary-constraint"
    FIGURES["constrained call refused"] = benchmark.stats.stats.min


@pytest.mark.benchmark(group="schema 6: math loop")
def test_nx_math_loop(benchmark: Any) -> None:
    linked = program()
    result = benchmark.pedantic(
        ir.evaluate_function, args=(linked, "hypotenuses", (LOOP,)), kwargs={"limits": BUDGET}, rounds=15, warmup_rounds=1
    )
    assert len(result.value) == LOOP and result.value[0] == 1.224744871391589
    OPERATIONS["math loop"] = result.operations or 0
    FIGURES["math loop"] = benchmark.stats.stats.min


@pytest.mark.benchmark(group="schema 6: math loop")
def test_nx_math_loop_evaluation_only(benchmark: Any) -> None:
    linked = program()
    usage = benchmark.pedantic(
        _native._evaluate_discarding, args=(linked, "hypotenuses", (LOOP,)), kwargs={"limits": BUDGET}, rounds=15, warmup_rounds=1
    )
    assert usage["operations"] == 6 * LOOP + 10
    FIGURES["math loop evaluation"] = benchmark.stats.stats.min


def test_reference_runtime_on_the_same_image() -> None:
    """Runs the oracle's release bench binary (nx-ir-core and nx-ir-runtime 0.10.0 in Rust)."""
    manifest = ROOT / "oracle" / "Cargo.toml"
    env = {**os.environ, "CARGO_BUILD_JOBS": os.environ.get("CARGO_BUILD_JOBS", "1")}
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--ignore-rust-version", "--manifest-path", str(manifest), "--bin", "schema6-bench"],
        check=True,
        env=env,
    )
    binary = ROOT / "oracle" / "target" / "release" / "schema6-bench"
    output = subprocess.run([str(binary), str(LOOP)], check=True, capture_output=True, text=True).stdout
    for line in output.splitlines():
        record = json.loads(line)
        REFERENCE[(record["workload"], record["engine"])] = record
    assert {w for w, _ in REFERENCE} == {"constrained call", "math loop"}
    for (workload, _), record in REFERENCE.items():
        assert workload not in OPERATIONS or record["operations"] == OPERATIONS[workload]


def summary(write: Any) -> None:
    """The schema 6 lines of the terminal summary (`conftest.py`)."""
    for workload in ("constrained call", "math loop"):
        if workload not in FIGURES:
            continue
        ops = OPERATIONS[workload]
        ours = FIGURES[workload] * 1e9
        write("schema 6 %s (%d operations), metered:" % (workload, ops))
        write("  nx-agent from Python       %10.1f ns/call  %6.2f ns/op" % (ours, ours / ops))
        if workload == "math loop" and "math loop evaluation" in FIGURES:
            evaluation = FIGURES["math loop evaluation"] * 1e9
            write("  nx-agent evaluation only   %10.1f ns/call  %6.2f ns/op" % (evaluation, evaluation / ops))
        core = REFERENCE.get((workload, "nx-ir-core"))
        reference = REFERENCE.get((workload, "nx-ir-runtime 0.10.0"))
        if core and reference:
            write("  nx-ir-core in Rust         %10.1f ns/call  %6.2f ns/op" % (core["ns_per_call"], core["ns_per_operation"]))
            write("  nx-ir-runtime 0.10.0       %10.1f ns/call  %6.2f ns/op  (%.2fx nx-ir-core in Rust, %.2fx nx-agent from Python)"
                  % (reference["ns_per_call"], reference["ns_per_operation"],
                     reference["ns_per_call"] / core["ns_per_call"], reference["ns_per_call"] / ours))
    if "constrained call refused" in FIGURES:
        write("schema 6 constrained call refused (nx-ir-boundary-constraint raised): %.1f ns/call"
              % (FIGURES["constrained call refused"] * 1e9))
