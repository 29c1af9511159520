"""nx-agent beside the peers a user would pick instead, on the same machine in the same run.

Run them all and write the report: `python3 benches/report.py` (see its docstring). Each benchmark
asserts its engine's answer (the same values as NX) and records in `extra_info` what the report
needs: the workload, the engine, n, and for NX the operations the call was charged.
"""

from __future__ import annotations

import contextlib
import functools
import os
import json
import marshal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from nx_agent import examples, ir
from nx_agent.agent import compile_agent, load_agent
from peers import nx, workloads
from peers.base import Peer
from peers.cel_peer import Cel
from peers.cold_start import SCRIPTS, prepare_artifacts
from peers.lua_peer import Lua
from peers.python_floor import PythonFloor
from peers.simpleeval_peer import SimpleEval
from peers.starlark_peer import Starlark
from peers.wasm_peer import Wasm
from programs import spin_tool
from timing import per_call

NX = "nx-agent"
NX_EXECUTE = "nx-agent (tool.execute)"
#: nx-agent with Python's freed object arenas given back to the OS, as the interpreter does by
#: default (the work tools and the general items loop run so too).
NX_GIVEN_BACK = "nx-agent (arenas given back)"
#: Bytes of freed object arenas this process keeps (`ir.keep_python_arenas`), for every engine
#: in it, as a host serving many calls would; NX_BENCH_KEEP_ARENAS=0 runs with the default.
KEPT_ARENAS = int(os.environ.get("NX_BENCH_KEEP_ARENAS", str(256 << 20)))
ir.keep_python_arenas(KEPT_ARENAS)
PEERS: list[Peer] = [PythonFloor(), Cel(), Starlark(), Lua(), Wasm(), SimpleEval()]
LIBRARY = nx.agent_library_program()
LOOPS = nx.loops_program()
#: Rounds of each cold start (a fresh interpreter each).
COLD_ROUNDS = 10
#: Workload 5: tasks shared out to the pool; each is one `spin` execute or CALLS `find_plans` executes.
TASKS = 8
CALLS = 500


def record(benchmark: Any, workload: str, engine: str, n: int | None = None, **more: Any) -> None:
    benchmark.extra_info.update(workload=workload, engine=engine, n=n, kept_arenas=KEPT_ARENAS, **more)


@contextlib.contextmanager
def arenas_given_back() -> Iterator[None]:
    """Freed object arenas go back to the OS while it runs (the interpreter's default)."""
    kept = ir.keep_python_arenas(0)
    try:
        yield
    finally:
        ir.keep_python_arenas(kept)


def sizes(peer: Peer, workload: str, all_sizes: tuple[int, ...]) -> list[int]:
    largest = peer.largest.get(workload)
    return [n for n in all_sizes if largest is None or n <= largest]


def peer_cases(workload: str, all_sizes: tuple[int, ...]) -> list[Any]:
    return [
        pytest.param(peer, n, id=f"{type(peer).__name__}-{n}")
        for peer in PEERS
        for n in sizes(peer, workload, all_sizes)
    ]


# --- Workload 1: findPlans(teamSize=5), one record, per call from Python ---------------------


@pytest.mark.benchmark(group="find_plans")
def test_nx_find_plans(benchmark: Any) -> None:
    result = per_call(benchmark, nx.find_plans, LIBRARY, workloads.TEAM_SIZE)
    assert result.value == workloads.FIND_PLANS_RESULT
    record(benchmark, "find_plans", NX, operations=result.usage["operations"])


@pytest.fixture(scope="module")
def find_plans_tool() -> Any:
    """The corpus program's `find_plans` tool, as a host gets it: compiled (with the bundled
    support agent's descriptions, the same doc comments) and loaded from the stored text."""
    compiled = compile_agent(nx.corpus_images(), descriptions=examples.support_descriptions())
    agent = load_agent(
        compiled.definition_text,
        compiled.images,
        request=lambda call: {"status": 200, "body": {}},
        max_operations=workloads.SMALL_BUDGET,
    )
    return agent["find_plans"]


@pytest.mark.benchmark(group="find_plans")
def test_nx_execute_find_plans(benchmark: Any, find_plans_tool: Any) -> None:
    result = per_call(benchmark, find_plans_tool.execute, {"teamSize": workloads.TEAM_SIZE}, call_id="c1")
    assert result["ok"] is True and result["output"] == workloads.FIND_PLANS_RESULT
    record(benchmark, "find_plans", NX_EXECUTE, operations=result["usage"]["operations"])


@pytest.mark.benchmark(group="find_plans")
@pytest.mark.parametrize("peer", PEERS, ids=lambda peer: type(peer).__name__)
def test_peer_find_plans(benchmark: Any, peer: Peer) -> None:
    assert per_call(benchmark, peer.find_plans, workloads.TEAM_SIZE) == workloads.FIND_PLANS_RESULT
    record(benchmark, "find_plans", peer.name)


# --- Workload 2: the squares of 0..n-1 as a list, under a budget ------------------------------


@pytest.mark.parametrize("n", workloads.SQUARES_SIZES)
def test_nx_squares(benchmark: Any, n: int) -> None:
    benchmark.group = f"squares n={n}"
    result = benchmark(nx.loop, LOOPS, "squares", n)
    assert result.value == workloads.squares(n)
    record(benchmark, "squares", NX, n, operations=result.usage["operations"])


@pytest.mark.parametrize(("peer", "n"), peer_cases("squares", workloads.SQUARES_SIZES))
def test_peer_squares(benchmark: Any, peer: Peer, n: int) -> None:
    benchmark.group = f"squares n={n}"
    assert benchmark(peer.squares, n) == workloads.squares(n)
    record(benchmark, "squares", peer.name, n)


#: Workload 2 once more for the sizes where a call takes milliseconds, interleaved: each round
#: times one nx-agent call and one peer call, in turn first, so a change in the machine's load
#: moves both figures of a round alike. Rounds per size.
PAIRED_ROUNDS = {10**5: 101, 10**6: 21}


@pytest.mark.parametrize(("peer", "n"), peer_cases("squares", tuple(PAIRED_ROUNDS)))
def test_paired_squares(benchmark: Any, peer: Peer, n: int) -> None:
    benchmark.group = f"squares paired n={n}"
    expected = workloads.squares(n)
    assert nx.loop(LOOPS, "squares", n).value == expected and peer.squares(n) == expected
    _paired(benchmark, "squares", peer, n, lambda: nx.loop(LOOPS, "squares", n), lambda: peer.squares(n), PAIRED_ROUNDS[n])


def _paired(benchmark: Any, workload: str, peer: Peer, n: int, ours_call: Callable[[], Any],
            peer_call: Callable[[], Any], rounds: int) -> None:
    """Times ``rounds`` interleaved rounds of one nx-agent call and one peer call (in turn first)
    and records the median of the rounds' ratios as ``<workload>_paired``."""
    ours: list[float] = []
    theirs: list[float] = []

    def timed(call: Callable[[], Any], into: list[float]) -> None:
        start = time.perf_counter()
        call()  # the result is freed inside the timing, as in the benchmarks above
        into.append(time.perf_counter() - start)

    def pair() -> None:
        calls = [(ours_call, ours), (peer_call, theirs)]
        for call, into in calls if len(ours) % 2 == 0 else calls[::-1]:
            timed(call, into)

    benchmark.pedantic(pair, rounds=rounds, iterations=1)
    ratios = [peer_time / our_time for our_time, peer_time in zip(ours, theirs)]
    record(
        benchmark,
        f"{workload}_paired",
        peer.name,
        n,
        nx_median=statistics.median(ours),
        peer_median=statistics.median(theirs),
        ratio=statistics.median(ratios),
        rounds=len(ratios),
    )


# --- Workload 3: "item <i>" for i in 0..n-1, strings built in a loop ---------------------------


@pytest.mark.parametrize("n", workloads.ITEMS_SIZES)
def test_nx_items(benchmark: Any, n: int) -> None:
    benchmark.group = f"items n={n}"
    result = benchmark(nx.loop, LOOPS, "items", n)
    assert result.value == workloads.items(n)
    record(benchmark, "items", NX, n, operations=result.usage["operations"])


@pytest.mark.parametrize("n", workloads.ITEMS_SIZES)
def test_nx_items_general(benchmark: Any, n: int) -> None:
    """The items loop through the general interpreter (`itemsGeneral`, which the fused path
    does not take): the same value and operations as `items`."""
    benchmark.group = f"items general n={n}"
    result = benchmark(nx.loop, LOOPS, "itemsGeneral", n)
    assert result.value == workloads.items(n)
    assert result.usage == nx.loop(LOOPS, "items", n).usage
    record(benchmark, "items_general", NX, n, operations=result.usage["operations"])


@pytest.mark.parametrize("n", workloads.ITEMS_SIZES)
def test_nx_items_general_given_back(benchmark: Any, n: int) -> None:
    """`itemsGeneral` with Python's freed arenas given back to the OS between calls."""
    benchmark.group = f"items general n={n}"
    with arenas_given_back():
        result = benchmark(nx.loop, LOOPS, "itemsGeneral", n)
    assert result.value == workloads.items(n)
    record(benchmark, "items_general", NX_GIVEN_BACK, n, operations=result.usage["operations"])


@pytest.mark.parametrize(("peer", "n"), peer_cases("items", workloads.ITEMS_SIZES))
def test_peer_items(benchmark: Any, peer: Peer, n: int) -> None:
    benchmark.group = f"items n={n}"
    assert benchmark(peer.items, n) == workloads.items(n)
    record(benchmark, "items", peer.name, n)


#: Workload 3 interleaved with the engines closest to nx-agent (as workload 2 is): rounds per size.
PAIRED_ITEMS_ROUNDS = {10**5: 51, 10**6: 11}
PAIRED_ITEMS_PEERS = ("Python (unsandboxed)", "wasm (wasmtime, fuel)")


@pytest.mark.parametrize(
    ("peer", "n"),
    [c for c in peer_cases("items", tuple(PAIRED_ITEMS_ROUNDS)) if c.values[0].name in PAIRED_ITEMS_PEERS],
)
def test_paired_items(benchmark: Any, peer: Peer, n: int) -> None:
    benchmark.group = f"items paired n={n}"
    expected = workloads.items(n)
    assert nx.loop(LOOPS, "items", n).value == expected and peer.items(n) == expected
    _paired(benchmark, "items", peer, n, lambda: nx.loop(LOOPS, "items", n), lambda: peer.items(n), PAIRED_ITEMS_ROUNDS[n])


# --- The work-tool workloads (issue 19): float text, a catalog, nested records, host input -----

WORK = nx.workloads_program()
ORDERS = workloads.orders()
#: Workload -> (n, the NX function's argument, the expected value).
WORK_CASES: dict[str, tuple[int, Any, Any]] = {
    "floats": (workloads.FLOATS_SIZE, workloads.FLOATS_SIZE, workloads.floats(workloads.FLOATS_SIZE)),
    "catalog": (workloads.CATALOG_SIZE, workloads.CATALOG_SIZE, workloads.catalog(workloads.CATALOG_SIZE)),
    "nested": (workloads.NESTED_SIZE, workloads.NESTED_SIZE, workloads.nested(workloads.NESTED_SIZE)),
    "summarize": (workloads.ORDERS_SIZE, ORDERS, workloads.summarize(ORDERS)),
}


@pytest.mark.parametrize("workload", list(WORK_CASES))
def test_nx_work(benchmark: Any, workload: str) -> None:
    n, arg, expected = WORK_CASES[workload]
    benchmark.group = f"{workload} n={n}"
    result = benchmark(nx.work, WORK, workload, arg, n)
    assert result.value == expected
    record(benchmark, workload, NX, n, operations=result.usage["operations"])


@pytest.mark.parametrize("workload", list(WORK_CASES))
def test_nx_work_given_back(benchmark: Any, workload: str) -> None:
    """A work tool with Python's freed arenas given back to the OS between calls."""
    n, arg, expected = WORK_CASES[workload]
    benchmark.group = f"{workload} n={n}"
    with arenas_given_back():
        result = benchmark(nx.work, WORK, workload, arg, n)
    assert result.value == expected
    record(benchmark, workload, NX_GIVEN_BACK, n, operations=result.usage["operations"])


#: The nested records' Python objects made alone, with no evaluation: `marshal.loads` of the
#: expected value builds the same dicts, strings and ints in C. A floor under any engine that
#: returns them (the report sets it beside the 12 ns/op target).
OBJECTS_ALONE = "Python objects alone (marshal.loads)"


def test_nested_objects_alone(benchmark: Any) -> None:
    n, _, expected = WORK_CASES["nested"]
    benchmark.group = f"nested n={n}"
    data = marshal.dumps(expected)
    assert benchmark(marshal.loads, data) == expected
    record(benchmark, "nested_objects", OBJECTS_ALONE, n)


def _work_cases() -> list[Any]:
    cases = []
    for workload in WORK_CASES:
        for peer in PEERS:
            n = WORK_CASES[workload][0]
            # Only the peers that express the workload (the others keep Peer's refusal, and
            # the report gives their note instead of a figure).
            if getattr(type(peer), workload) is not getattr(Peer, workload):
                cases.append(pytest.param(peer, workload, id=f"{type(peer).__name__}-{workload}-{n}"))
    return cases


@pytest.mark.parametrize(("peer", "workload"), _work_cases())
def test_peer_work(benchmark: Any, peer: Peer, workload: str) -> None:
    n, _, expected = WORK_CASES[workload]
    benchmark.group = f"{workload} n={n}"
    call: Callable[[], Any] = (
        (lambda: peer.summarize(ORDERS)) if workload == "summarize" else (lambda: getattr(peer, workload)(n))
    )
    assert benchmark(call) == expected
    record(benchmark, workload, peer.name, n)


# --- The general interpreter by node kind (issue 19): one loop per body ------------------------

KINDS = nx.kinds_program()


@pytest.mark.parametrize("kind", list(workloads.KINDS))
def test_nx_node_kind(benchmark: Any, kind: str) -> None:
    """The loop `for i, at in 0..n yield BODY` of benches/programs/kinds.nxir.txt for one body."""
    n = workloads.KINDS_SIZE
    benchmark.group = f"node kinds n={n}"
    # The body the report names is the one the program runs.
    function = nx.KINDS_TEXT.read_text(encoding="utf-8").split(f"function {kind}(", 1)[1].split("\n\n", 1)[0]
    assert " ".join(function.split(" yield", 1)[1].split()) == workloads.KINDS[kind][0]
    result = benchmark(nx.node_kind, KINDS, kind, n)
    assert result.value == workloads.node_kind(kind, n)
    record(benchmark, "node_kind", NX, n, kind=kind, operations=result.usage["operations"])


#: What the oracle's workloads-bench printed (one record per workload, n and engine).
REFERENCE_BIN = "workloads-bench"


def test_reference_runtime_workloads(benchmark: Any) -> None:
    """Runs the oracle's release binary `workloads-bench`: nx-ir-core and nx-ir-runtime 0.10.0
    on the same image (benches/programs/workloads.nxir.txt) and budgets, evaluation only, their
    results and operation counts checked equal before timing. Each record goes into this
    benchmark's extra_info for the report (the benchmark's own timing is of nothing)."""
    root = Path(__file__).resolve().parent.parent
    manifest = root / "oracle" / "Cargo.toml"
    env = {**os.environ, "CARGO_BUILD_JOBS": os.environ.get("CARGO_BUILD_JOBS", "1")}
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--ignore-rust-version", "--manifest-path", str(manifest), "--bin", REFERENCE_BIN],
        check=True,
        env=env,
    )
    binary = root / "oracle" / "target" / "release" / REFERENCE_BIN
    output = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert {r["workload"] for r in records} == {"items", "floats", "catalog", "nested", "summarize"}
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    benchmark.extra_info.update(workload="reference", engine="oracle", records=records)


# --- Workload 4: cold start of a serverless function, a fresh interpreter each round -----------


#: The environment of a cold start's process: bytecode written and read as a deployed function's
#: would be (an installed wheel ships it compiled); a session may have set PYTHONDONTWRITEBYTECODE,
#: which would make every round compile the package's Python modules again.
#: Cold processes start as a serverless runtime starts Python: `python -S` (no site hooks: a `.pth`
#: file of the machine, such as one that imports certifi, would load typing, re and pathlib
#: before any engine and hide what each engine loads), the search path passed in PYTHONPATH.
COLD_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
COLD_ENV["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cold-start")
    prepare_artifacts(folder)
    import nx_agent

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(nx_agent.__file__).parent)],
                   check=True, env=COLD_ENV, stdout=subprocess.DEVNULL)
    return folder


#: Rounds of the interleaved pairs (each round: every engine once, each right after its own
#: `python -c pass`). The engines closest to each other differ by a few tenths of a millisecond,
#: and one pair on this shared machine moves by more: with 25 rounds, 2 of 10 runs on 2026-12-02
#: put nx-agent's agent path behind Lua and 8 ahead (by up to 0.9 ms); with 61, 3 of 3 ahead.
COLD_PAIR_ROUNDS = 61


def _cold_process(script: str, artifacts: Path) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-S", "-c", script, str(artifacts)], capture_output=True, text=True, check=True, env=COLD_ENV
    )
    return time.perf_counter() - began, done.stdout


@pytest.fixture(scope="module")
def cold_pairs(artifacts: Path) -> dict[str, list[float]]:
    """What each engine's process adds to a `python -c pass` run just before it, round by round,
    every engine in each round (the order rotating), so that all engines meet the same load."""
    engines = list(SCRIPTS)
    added: dict[str, list[float]] = {engine: [] for engine in engines}
    for script, _ in SCRIPTS.values():  # warm every engine's files once
        _cold_process(script, artifacts)
    for round_ in range(COLD_PAIR_ROUNDS):
        shift = round_ % len(engines)
        for engine in engines[shift:] + engines[:shift]:
            floor, _ = _cold_process("pass", artifacts)
            took, _ = _cold_process(SCRIPTS[engine][0], artifacts)
            added[engine].append(took - floor)
    return added


@pytest.mark.benchmark(group="cold_start")
@pytest.mark.parametrize("engine", list(SCRIPTS))
def test_cold_start(benchmark: Any, engine: str, artifacts: Path, cold_pairs: dict[str, list[float]]) -> None:
    """The process time of each engine (pytest-benchmark's rounds), and what it adds to the floor:
    the median over `cold_pairs`' rounds of (engine process − the `python -c pass` just before it).
    Pairing each process with its own floor, and interleaving the engines, cancels most of the
    drift of a shared machine's load; the report takes the paired figure (`extra_info["over_floor"]`)."""
    script, note = SCRIPTS[engine]

    def run() -> str:
        return _cold_process(script, artifacts)[1]

    out = benchmark.pedantic(run, rounds=COLD_ROUNDS, iterations=1, warmup_rounds=1)
    if engine != "python -c pass":
        assert json.loads(out) == workloads.EXAMPLE_RESULT
    record(benchmark, "cold_start", engine, note=note, over_floor=statistics.median(cold_pairs[engine]),
           pair_rounds=len(cold_pairs[engine]))


# --- Workload 5: throughput of `execute` from 1 and 2 threads sharing one program ------------


@functools.cache
def _spin_tool() -> Any:
    """The `spin` agent tool (benches/programs.py), its budget covering n = SPIN_SIZE."""
    return spin_tool(max_operations=workloads.loop_budget(workloads.SPIN_SIZE))


@functools.cache
def _support_find_plans_tool() -> Any:
    """The bundled support agent's `find_plans` tool, loaded as a host loads it."""
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    agent = load_agent(compiled.definition_text, compiled.images, request=lambda call: {"status": 200, "body": {}})
    return agent["find_plans"]


def _spin_execute(_: int) -> int:
    """One evaluation-heavy call: `spin` over SPIN_SIZE items."""
    result = _spin_tool().execute({"n": workloads.SPIN_SIZE}, call_id="t1:0:0")
    assert result["ok"] is True and result["output"] == []
    operations: int = result["usage"]["operations"]
    return operations


def _find_plans_execute(_: int) -> int:
    """CALLS short calls of `find_plans` (the support agent's body is the corpus's: one Plan)."""
    tool = _support_find_plans_tool()
    operations = 0
    for _call in range(CALLS):
        result = tool.execute({"teamSize": workloads.TEAM_SIZE}, call_id="t1:0:0")
        assert result["ok"] is True and result["output"] == workloads.FIND_PLANS_RESULT
        operations += result["usage"]["operations"]
    return operations


def _python_spin(_: int) -> int:
    assert PythonFloor().spin(workloads.SPIN_SIZE) == []
    return 0


#: Each task: the engine, the function a worker runs, and its size (n, calls per task) for the report.
THREAD_TASKS: dict[str, tuple[str, Callable[[int], int], dict[str, int]]] = {
    "spin": (NX_EXECUTE, _spin_execute, {"n": workloads.SPIN_SIZE, "calls": 1}),
    "find_plans": (NX_EXECUTE, _find_plans_execute, {"calls": CALLS}),
    "spin-python": ("Python (unsandboxed)", _python_spin, {"n": workloads.SPIN_SIZE, "calls": 1}),
}
#: The tasks run again in 2 processes, as a control.
PROCESS_TASKS = ("spin", "find_plans")


@pytest.mark.parametrize("threads", [1, 2], ids=["1-thread", "2-threads"])
@pytest.mark.parametrize("task", list(THREAD_TASKS))
def test_threads(benchmark: Any, threads: int, task: str) -> None:
    engine, function, size = THREAD_TASKS[task]
    benchmark.group = f"threads {task}"
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(function, range(threads)))  # start the workers before timing
        operations = benchmark(lambda: sum(pool.map(function, range(TASKS))))
    record(benchmark, "threads", engine, task=task, threads=threads, tasks=TASKS, operations=operations, **size)


@pytest.mark.parametrize("task", PROCESS_TASKS)
def test_processes_control(benchmark: Any, task: str) -> None:
    """The same work in 2 processes: what the machine offers two workers at the moment, so the
    2-thread figure can be read against it (a busy machine caps both)."""
    engine, function, size = THREAD_TASKS[task]
    benchmark.group = f"threads {task}"
    with ProcessPoolExecutor(max_workers=2) as pool:
        list(pool.map(function, range(2)))  # start the workers (and load the tool) before timing
        operations = benchmark(lambda: sum(pool.map(function, range(TASKS))))
    record(
        benchmark, "threads", engine, task=task, threads=2, processes=2, tasks=TASKS, operations=operations, **size
    )


# --- Budgets: each metered engine stops a loop its budget does not cover (no timing) ----------


def test_budgets_refuse() -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.evaluate_function(LOOPS, "squares", (1_000,), max_operations=100)
    assert refused.value.code == "nx-ir-resource-limit"
    with pytest.raises(Exception, match="budget exhausted"):
        Lua().squares(1_000, budget=100)
    with pytest.raises(Exception, match="all fuel consumed"):
        Wasm().squares(1_000, budget=100)


def test_simpleeval_refuses_beyond_its_cap() -> None:
    from peers.base import Refused

    with pytest.raises(Refused):
        SimpleEval().squares(10**5)
