"""Times the unprofiled path (and, where the build has it, the profiled one) of squares and
findPlans in whatever nx-agent this interpreter imports, and prints the fastest figures as JSON.

`test_profile_speed.py` runs it in this checkout's build and in a baseline interpreter (another
build, e.g. main's: NX_AGENT_BASELINE_PYTHON) alternately, so both are measured in one run.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable

from nx_agent import _native, examples, ir
from programs import squares_program  # this script's folder is on sys.path

BUDGET = ir.Limits(max_operations=10**9)


def fastest(call: Callable[[], Any], rounds: int, per_round: int = 1) -> float:
    call()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(per_round):
            call()
        best = min(best, (time.perf_counter() - start) / per_round)
    return best


def measure(rounds: int) -> dict[str, float]:
    squares = squares_program()
    plans = examples.link_example()
    figures = {
        "squares": fastest(lambda: _native._evaluate_discarding(squares, "squares", (), limits=BUDGET), rounds),
        "squares general": fastest(lambda: _native._evaluate_discarding(squares, "squaresIndexed", (), limits=BUDGET), rounds),
        "findPlans": fastest(lambda: ir.evaluate_function(plans, "findPlans", (5,), limits=BUDGET), rounds * 20, 200),
    }
    if hasattr(_native, "_take_profile"):
        from nx_agent.profile import profile_function

        figures["squares profiled"] = fastest(lambda: profile_function(squares, "squares", (), limits=BUDGET), max(3, rounds // 3))
        figures["findPlans profiled"] = fastest(lambda: profile_function(plans, "findPlans", (5,), limits=BUDGET), rounds * 5, 50)
    return figures


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 15)))
