"""Profiling's cost, and that the unprofiled path kept its speed, in one run.

- profile on vs off (pytest-benchmark groups): squares (10^6 items, the fused loop and the general
  interpreter) and findPlans per call, each profiled (`profile_function`) beside the same call
  unprofiled; the summary prints the ratios.
- the off path against a baseline build: with `NX_AGENT_BASELINE_PYTHON` naming an interpreter
  whose nx-agent is another build (main's), `profile_timing.py` runs in it and in this build
  alternately, five times each, and the summary prints this build's figures over the baseline's
  (1.00 is unchanged; other engineers' load on a shared machine moves both alike).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nx_agent import examples, ir
from nx_agent.profile import profile_function
from programs import SQUARES_OPERATIONS, squares_program
from timing import per_call

BUDGET = ir.Limits(max_operations=10**9)
FIGURES: dict[str, float] = {}
AGAINST_BASELINE: dict[str, float] = {}


def record(name: str, benchmark: Any) -> None:
    FIGURES[name] = benchmark.stats.stats.min


@pytest.mark.benchmark(group="profile off/on: squares 0..10^6")
def test_squares_off(benchmark: Any) -> None:
    program = squares_program()
    result = benchmark(ir.evaluate_function, program, "squares", (), limits=BUDGET)
    assert result.usage["operations"] == SQUARES_OPERATIONS
    record("squares off", benchmark)


@pytest.mark.benchmark(group="profile off/on: squares 0..10^6")
def test_squares_on(benchmark: Any) -> None:
    program = squares_program()
    profile = benchmark.pedantic(profile_function, args=(program, "squares", ()), kwargs={"limits": BUDGET}, rounds=3)
    assert profile.total == SQUARES_OPERATIONS
    record("squares on", benchmark)


@pytest.mark.benchmark(group="profile off/on: squares general 0..10^6")
def test_squares_general_off(benchmark: Any) -> None:
    program = squares_program()
    result = benchmark(ir.evaluate_function, program, "squaresIndexed", (), limits=BUDGET)
    assert result.usage["operations"] == SQUARES_OPERATIONS
    record("squares general off", benchmark)


@pytest.mark.benchmark(group="profile off/on: squares general 0..10^6")
def test_squares_general_on(benchmark: Any) -> None:
    program = squares_program()
    profile = benchmark.pedantic(profile_function, args=(program, "squaresIndexed", ()), kwargs={"limits": BUDGET}, rounds=3)
    assert profile.total == SQUARES_OPERATIONS
    record("squares general on", benchmark)


@pytest.mark.benchmark(group="profile off/on: findPlans(5) per call")
def test_find_plans_off(benchmark: Any) -> None:
    program = examples.link_example()
    assert per_call(benchmark, ir.evaluate_function, program, "findPlans", (5,), limits=BUDGET).usage["operations"] == 56
    record("findPlans off", benchmark)


@pytest.mark.benchmark(group="profile off/on: findPlans(5) per call")
def test_find_plans_on(benchmark: Any) -> None:
    program = examples.link_example()
    assert per_call(benchmark, profile_function, program, "findPlans", (5,), limits=BUDGET).total == 56
    record("findPlans on", benchmark)


def test_off_path_against_the_baseline_build() -> None:
    baseline = os.environ.get("NX_AGENT_BASELINE_PYTHON")
    if not baseline:
        pytest.skip("set NX_AGENT_BASELINE_PYTHON to an interpreter with the baseline build (e.g. main's)")
    script = str(Path(__file__).with_name("profile_timing.py"))
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for _ in range(5):
        for interpreter, into in ((sys.executable, ours), (baseline, theirs)):
            out = subprocess.run([interpreter, script, "15"], capture_output=True, text=True, check=True, env=clean,
                                 cwd="/").stdout
            for name, value in json.loads(out).items():
                into[name] = min(into.get(name, float("inf")), value)
    for name in ("squares", "squares general", "findPlans"):
        AGAINST_BASELINE[name] = ours[name] / theirs[name]
        AGAINST_BASELINE[name + " (this build, s)"] = ours[name]
        AGAINST_BASELINE[name + " (baseline, s)"] = theirs[name]
    # A loose bound only: the figure is the ratio the summary prints.
    assert all(AGAINST_BASELINE[name] < 1.5 for name in ("squares", "squares general", "findPlans"))


def summary(write: Any) -> None:
    pairs = [("squares", "squares off", "squares on"), ("squares general", "squares general off", "squares general on"),
             ("findPlans(5)", "findPlans off", "findPlans on")]
    if any(off in FIGURES and on in FIGURES for _, off, on in pairs):
        write("profiling, on over off (same run):")
    for label, off, on in pairs:
        if off in FIGURES and on in FIGURES:
            write("  %-16s off %10.2f us  on %10.2f us  %6.2fx" % (label, FIGURES[off] * 1e6, FIGURES[on] * 1e6, FIGURES[on] / FIGURES[off]))
    if AGAINST_BASELINE:
        write("profiling off, this build over the baseline build (same run, fastest of 5 alternating runs):")
        for name in ("squares", "squares general", "findPlans"):
            write("  %-16s %.3fx  (%.2f us vs %.2f us)" % (name, AGAINST_BASELINE[name], AGAINST_BASELINE[name + " (this build, s)"] * 1e6,
                                                     AGAINST_BASELINE[name + " (baseline, s)"] * 1e6))
