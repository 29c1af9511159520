"""The ``nx_cost`` pytest plugin, used from a test project made on the fly (pytester): a ceiling, a
baseline written with ``--nx-cost-update``, a rise failing with a table, passing after an update,
and operations and input size in pytest-benchmark's ``extra_info``."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

import pytest

from nx_agent import ir

pytest_plugins = ["pytester"]

PAIRS = """\
module pairs.nx fingerprint 1801
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [pairs] components []

function pairs(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    for j in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
      (i mul j)
"""


def ops(n: int) -> int:
    program = ir.prepare_program(ir.assemble(PAIRS))
    return int(ir.evaluate_function(program, "pairs", [n], max_operations=10**9).usage["operations"])


def project_test(n: int, ceiling: int) -> str:
    return f'''
from nx_agent import ir

PAIRS = {PAIRS!r}


def test_pairs(nx_cost):
    program = ir.prepare_program(ir.assemble(PAIRS))
    nx_cost.call(program, "pairs", [{n}], max_operations=10**9)
    nx_cost.at_most({ceiling})
'''


def test_the_plugin_is_shipped_as_a_pytest11_entry_point() -> None:
    found = [e for e in entry_points(group="pytest11") if e.value == "nx_agent.cost.pytest_plugin"]
    assert len(found) == 1


def test_a_ceiling_fails_a_call_that_uses_more(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_cost=project_test(5, ops(5) - 1))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*used {ops(5):,} operations, over its ceiling of {ops(5) - 1:,} (by 1)*"])


def test_a_rise_over_the_baseline_fails_with_a_table_until_updated(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_cost=project_test(5, 10_000))
    baseline = pytester.path / ".nx-cost-baseline.json"
    # No baseline yet: nothing to rise over. --nx-cost-update writes one.
    pytester.runpytest().assert_outcomes(passed=1)
    assert not baseline.exists()
    result = pytester.runpytest("--nx-cost-update")
    result.assert_outcomes(passed=1)
    assert json.loads(baseline.read_text())["operations"] == {"test_cost.py::test_pairs": ops(5)}
    pytester.runpytest().assert_outcomes(passed=1)
    # The tool now costs more (n 5 -> 6): the rise fails, with a table of what rose and by how much.
    pytester.makepyfile(test_cost=project_test(6, 10_000))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    before, after = ops(5), ops(6)
    rise = after - before
    result.stdout.fnmatch_lines([
        "*operations rose over the nx-cost baseline*",
        "*call*baseline*now*change*%*",
        f"*test_cost.py::test_pairs*{before:,}*{after:,}*+{rise:,}*+{100 * rise / before:.1f}%*",
    ])
    assert (before, after) == (200, 274)
    # Accepted with an update, it passes again.
    pytester.runpytest("--nx-cost-update").assert_outcomes(passed=1)
    assert json.loads(baseline.read_text())["operations"]["test_cost.py::test_pairs"] == 274
    pytester.runpytest().assert_outcomes(passed=1)
    # Cheaper is never a failure.
    pytester.makepyfile(test_cost=project_test(4, 10_000))
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_baseline_file_can_be_named(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_cost=project_test(3, 10_000))
    named = pytester.path / "costs" / "base.json"
    named.parent.mkdir()
    pytester.runpytest("--nx-cost-update", "--nx-cost-baseline", str(named)).assert_outcomes(passed=1)
    assert json.loads(named.read_text())["operations"] == {"test_cost.py::test_pairs": ops(3)}


def test_benchmarked_calls_carry_operations_and_input_size(pytester: pytest.Pytester) -> None:
    program = ir.prepare_program(ir.assemble(PAIRS))
    size = ir.evaluate_function(program, "pairs", [7], limits=ir.Limits(max_operations=10**9, max_input_size=100)).usage["input_size"]
    assert size == 1  # one integer argument (ir-format §6.2)
    pytester.makepyfile(test_bench=f'''
import json
from nx_agent import ir

PAIRS = {PAIRS!r}


def test_pairs(benchmark, nx_cost):
    program = ir.prepare_program(ir.assemble(PAIRS))
    limits = ir.Limits(max_operations=10**9, max_input_size=100)
    evaluated = benchmark(ir.evaluate_function, program, "pairs", [7], limits=limits)
    nx_cost.record(evaluated)
    assert benchmark.extra_info == {{"operations": {ops(7)}, "input_size": {size}}}
''')
    result = pytester.runpytest("--benchmark-json", "bench.json", "--benchmark-min-rounds", "1", "--benchmark-max-time", "0.01")
    result.assert_outcomes(passed=1)
    saved = json.loads((pytester.path / "bench.json").read_text())
    assert saved["benchmarks"][0]["extra_info"] == {"operations": ops(7), "input_size": size}
