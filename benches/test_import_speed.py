"""Cold start for serverless use: a fresh interpreter running ``import nx_agent`` and
``nx-agent --help``, each beside a fresh interpreter running ``pass`` in the same run.

Run: ``python3 -m pytest benches/test_import_speed.py``. The ratio to the ``pass`` baseline is what
a figure means (the interpreter's own start is in both); ``extra_info`` of each benchmark holds the
ratio and the package's own import time from ``-X importtime`` (microseconds, cumulative), and the
summary lines below the table repeat them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest

ROUNDS = 15
#: The ``pass`` round (seconds) and ``import nx_agent``'s ``-X importtime`` (microseconds), once per run.
BASELINE: dict[str, float] = {}
SCRIPTS = {
    "pass": "pass",
    "import nx_agent": "import nx_agent",
    "nx-agent --help": (
        "import runpy, sys\nsys.argv = ['nx-agent', '--help']\n"
        "try:\n    runpy.run_module('nx_agent', run_name='__main__')\nexcept SystemExit:\n    pass"
    ),
}


def _run(script: str) -> None:
    subprocess.run([sys.executable, "-c", script], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _import_time_us(module: str) -> int:
    """The cumulative import time of ``module`` that ``-X importtime`` reports, in microseconds."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True, check=True
    )
    match = re.search(rf"^import time:\s+\d+ \|\s+(\d+) \| {re.escape(module)}$", result.stderr, re.M)
    assert match, result.stderr[-2000:]
    return int(match.group(1))


@pytest.mark.benchmark(group="cold start")
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_cold_start(benchmark: Any, name: str) -> None:
    benchmark.pedantic(_run, args=(SCRIPTS[name],), rounds=ROUNDS, iterations=1, warmup_rounds=1)
    fastest = benchmark.stats.stats.min
    if name == "pass":
        BASELINE["pass"] = fastest
        return
    if "pass" in BASELINE:
        benchmark.extra_info["ratio_to_pass"] = round(fastest / BASELINE["pass"], 2)
        benchmark.extra_info["added_ms"] = round((fastest - BASELINE["pass"]) * 1e3, 1)
    if "importtime" not in BASELINE:
        BASELINE["importtime"] = _import_time_us("nx_agent")
    benchmark.extra_info["nx_agent_importtime_us"] = BASELINE["importtime"]
    print(
        f"\n{name}: {fastest * 1e3:.1f} ms fastest of {ROUNDS}"
        + (
            f", {fastest / BASELINE['pass']:.2f}x a bare interpreter ({BASELINE['pass'] * 1e3:.1f} ms), "
            f"+{(fastest - BASELINE['pass']) * 1e3:.1f} ms"
            if "pass" in BASELINE
            else ""
        )
        + f"; -X importtime nx_agent: {benchmark.extra_info['nx_agent_importtime_us'] / 1e3:.1f} ms cumulative"
    )
