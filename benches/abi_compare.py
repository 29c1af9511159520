"""The stable ABI (abi3) against the full C API build, on the same workloads, interleaved.

    python3 benches/abi_compare.py FULL_PYTHON ABI3_PYTHON [--rounds 9]

Each Python is an interpreter with one build of nx-agent installed (``scripts/wheels.py --abi3``
makes both). A round runs the timing script once in each, in turn first; a cell is the median
over the rounds of each round's best-of-repeats, and the ratio is abi3 / full (above 1: abi3 is
slower); the ratio is the median of the rounds' own ratios (each round pairs the two builds
within seconds, so a change in a shared machine's load moves both alike). Workloads: the bundled example's ``findPlans(5)`` by position (``evaluate_function``,
metered), the same as an agent tool's ``execute``, and the squares of 0..n-1 as a list under a
budget at n = 10^5 and 10^6 (benches/programs.py), where the result list is written item by item.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

TIMING = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from nx_agent import examples, ir, compile_agent, load_agent
from programs import squares_program, SQUARES_OPERATIONS

def best(fn, repeats, number):
    fn()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - began) / number)
    return min(times)

program = examples.link_example()
limits = ir.Limits(max_operations=1000)
compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
tool = load_agent(compiled.definition_text, compiled.images, request=lambda call: {"status": 200})["find_plans"]
squares = squares_program()
budget = ir.Limits(max_operations=SQUARES_OPERATIONS + 10)
small = ir.Limits(max_operations=500_100)
out = {
    "findPlans by position": best(lambda: ir.evaluate_function(program, "findPlans", (5,), limits=limits), 7, 2000),
    "execute(find_plans)": best(lambda: tool.execute({"teamSize": 5}, call_id="c"), 7, 2000),
}
# n = 10^5: the same loop, its end changed.
import re
from programs import SQUARES
text = SQUARES.replace("end=1000000", "end=100000")
squares_small = ir.link_program(ir.prepare_module(ir.assemble(text)))
out["squares n=10^5"] = best(lambda: ir.evaluate_function(squares_small, "squares", limits=small), 7, 3)
out["squares n=10^6"] = best(lambda: ir.evaluate_function(squares, "squares", limits=budget), 5, 1)
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("full")
    parser.add_argument("abi3")
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args(argv)
    runs: dict[str, list[dict[str, float]]] = {"full": [], "abi3": []}
    for round_ in range(options.rounds):
        order = ["full", "abi3"] if round_ % 2 == 0 else ["abi3", "full"]
        for build in order:
            python = getattr(options, build)
            done = subprocess.run([python, "-c", TIMING, str(HERE)], capture_output=True, text=True, check=True)
            runs[build].append(json.loads(done.stdout))
    print(f"{options.rounds} rounds, interleaved")
    print("| workload | full C API | abi3 | abi3 / full (median of the rounds' ratios; lowest, highest) |")
    print("|---|---|---|---|")
    for workload in runs["full"][0]:
        full = statistics.median(r[workload] for r in runs["full"])
        abi3 = statistics.median(r[workload] for r in runs["abi3"])
        ratios = [a[workload] / f[workload] for f, a in zip(runs["full"], runs["abi3"])]
        unit, scale = ("µs", 1e6) if full < 1e-3 else ("ms", 1e3)
        print(
            f"| {workload} | {full * scale:.2f} {unit} | {abi3 * scale:.2f} {unit} | "
            f"{statistics.median(ratios):.3f} ({min(ratios):.2f}, {max(ratios):.2f}) |"
        )


if __name__ == "__main__":
    main()
