"""Throughput of `execute(find_plans)` past one process (issue 17, item 2), in one run:
in-process, in 1 and 2 worker processes (`ProcessPoolExecutor`), and on Ray with 2 actors,
each beside plain Python doing the same work the same way.

    python3 benches/throughput.py [--rounds 5] [--output benches/THROUGHPUT.md] [--no-ray]

The work: TASKS tasks of CALLS calls each. A task is its number: the worker makes its CALLS inputs
(`{"teamSize": n}`), calls the tool on each and ships back a summary of the results (how many
answered ok and the sum of their plans' seats), which the parent checks against the inputs. So
the figures are the calls' own throughput; shipping a call's input and result between processes
costs about as much again as a short call. A worker loads the tool once (the agent pickled to it when the pool
starts), and every pool is started and warmed before timing. Plain Python: a function with the
same input check and the same result shape (`{"ok", "output": [Plan], "usage"}`), through the
same pools. Rounds are interleaved (each round times every row once); a cell is the median.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import multiprocessing
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TASKS = 16
CALLS = 5_000

_tool: Any = None


def python_find_plans(input: Any, call_id: str) -> dict[str, Any]:
    """The bundled example's `findPlans` written in Python, answering as `execute` answers."""
    if type(input) is not dict or type(input.get("teamSize")) is not int:
        return {"ok": False, "error": {"code": "invalid-input", "message": "Expected teamSize to be a number."}}
    return {
        "ok": True,
        "output": [{"$type": "Plan", "monthlyPrice": 20, "name": "Team", "seats": input["teamSize"]}],
        "usage": {"operations": 17, "inputSize": 5},
    }


def _set_tool(engine: str, agent: Any) -> None:
    global _tool
    _tool = agent["find_plans"].execute if engine == "nx" else python_find_plans


def _summary(answers: list[Any]) -> tuple[int, int]:
    """What a worker ships back: how many calls answered ok, and the sum of their plans' seats."""
    ok = [answer for answer in answers if answer["ok"]]
    return len(ok), sum(answer["output"][0]["seats"] for answer in ok)


def _inputs(task: int) -> list[dict[str, Any]]:
    return [{"teamSize": 1 + (task * CALLS + i) % 40} for i in range(CALLS)]


def _task(task: int) -> tuple[int, int]:
    tool = _tool
    return _summary([tool(value, call_id="c") for value in _inputs(task)])


def _agent() -> Any:
    from nx_agent import compile_agent, examples, load_agent

    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    return load_agent(compiled.definition_text, compiled.images, request=_no_request)


def _no_request(call: Any) -> Any:
    return {"status": 200}


def _work() -> list[list[dict[str, Any]]]:
    return [_inputs(task) for task in range(TASKS)]


def _check(results: list[tuple[int, int]], work: list[list[dict[str, Any]]]) -> None:
    assert len(results) == len(work)
    for inputs, summary in zip(work, results):
        assert summary == (len(inputs), sum(value["teamSize"] for value in inputs)), summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, default=HERE / "THROUGHPUT.md")
    parser.add_argument("--no-ray", action="store_true")
    options = parser.parse_args(argv)
    started = datetime.datetime.now(datetime.timezone.utc)
    load = os.getloadavg()
    agent = _agent()
    work = _work()
    context = multiprocessing.get_context("spawn")
    runners: dict[tuple[str, str], Any] = {}
    closers: list[Any] = []

    for engine in ("nx", "python"):
        _set_tool(engine, agent)
        local_tool = _tool

        def in_process(tool: Any = local_tool) -> list[tuple[int, int]]:
            return [_summary([tool(value, call_id="c") for value in _inputs(task)]) for task in range(TASKS)]

        runners[(engine, "in-process")] = in_process
        for workers in (1, 2):
            pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_set_tool, initargs=(engine, agent))
            list(pool.map(_task, [0] * workers * 2))  # start and warm every worker
            closers.append(pool.shutdown)
            runners[(engine, f"{workers} process{'es' if workers > 1 else ''}")] = lambda pool=pool: list(
                pool.map(_task, range(TASKS))
            )

    if not options.no_ray:
        import ray

        from nx_agent.ray import _ToolActor

        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"PYTHONPATH": str(HERE)}})
        closers.append(ray.shutdown)

        @ray.remote
        class PythonActor:
            def run(self, task: int) -> tuple[int, int]:
                return _summary([python_find_plans(value, "c") for value in _inputs(task)])

        @ray.remote
        class NxActor(_ToolActor):  # type: ignore[misc]
            def run(self, task: int) -> tuple[int, int]:
                execute = self.agent["find_plans"].execute
                return _summary([execute(value, call_id="c") for value in _inputs(task)])

        shared = ray.put(agent)
        for engine, actors in (("nx", [NxActor.remote(shared) for _ in range(2)]),
                               ("python", [PythonActor.remote() for _ in range(2)])):
            ray.get([a.run.remote(0) for a in actors])

            def on_ray(actors: list[Any] = actors) -> list[tuple[int, int]]:
                refs = [actors[task % len(actors)].run.remote(task) for task in range(TASKS)]
                return ray.get(refs)

            runners[(engine, "Ray, 2 actors")] = on_ray

    times: dict[tuple[str, str], list[float]] = {key: [] for key in runners}
    # The inputs and the pools' bookkeeping stay alive: out of the collector's way, so that the
    # in-process rows are not charged for traversing them (a worker has none of them).
    gc.collect()
    gc.freeze()
    try:
        for _ in range(options.rounds):
            for key, run in runners.items():
                began = time.perf_counter()
                results = run()
                times[key].append(time.perf_counter() - began)
                _check(results, work)
    finally:
        for close in closers:
            close()

    calls = TASKS * CALLS
    median = {key: statistics.median(values) for key, values in times.items()}
    shapes = [shape for engine, shape in runners if engine == "nx"]
    lines = [
        "# Throughput of `execute(find_plans)` past one process",
        "",
        f"Generated by `python3 benches/throughput.py` ({started.isoformat(timespec='seconds')}, "
        f"{options.rounds} interleaved rounds, median). {TASKS} tasks of {CALLS:,} calls "
        f"({calls:,} calls); a worker makes a task's inputs and ships back a summary of its results "
        "(calls answered ok, sum of the plans' seats), which is checked. Workers load the tool once and are warm before timing. CPU: "
        f"{os.cpu_count()} logical cores ({platform.machine()}), {platform.python_implementation()} "
        f"{platform.python_version()}; load average before: {', '.join(f'{x:.2f}' for x in load)}.",
        "",
        "| where | nx-agent `execute` | calls/s | plain Python, same work | calls/s | nx-agent scaling |",
        "|---|---|---|---|---|---|",
    ]
    base = median[("nx", "in-process")]
    for shape in shapes:
        nx, py = median[("nx", shape)], median[("python", shape)]
        lines.append(
            f"| {shape} | {nx * 1e3:.1f} ms | {calls / nx:,.0f} | {py * 1e3:.1f} ms | {calls / py:,.0f} | "
            f"{base / nx:.2f}× |"
        )
    lines += [
        "",
        "Scaling: in-process time / this row's time. The machine has 2 cores shared with other work, so "
        "2 workers cannot give more than 2×. Shipping each input and result between processes (not "
        "timed here) costs about as much again as a short call.",
        "",
    ]
    options.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    print(f"wrote {options.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
