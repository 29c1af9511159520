"""Ctrl-C during a long evaluation: the evaluator's long-run hook polls for signals on the main
thread, so a SIGINT stops the evaluation within milliseconds of work; Python gets the handler's
``KeyboardInterrupt`` (its ``__context__`` the call's ``nx-ir-interrupted`` error, with the usage),
and ``nx-agent run`` exits 130 without a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nx_agent import NxIrError, ir

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: Loops that run for minutes under a large budget: a fused loop, the general interpreter, and a
#: nested loop.
LOOPS = """module loop.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [squares general nested idle] components []

function squares(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (i mul i)

function general(n: int) =
  for i, at in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (i mul i)

function nested(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    for j in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
      0

function idle(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    {}
"""
ARGS = {"squares": [10**11], "general": [10**11], "nested": [10**5]}
# No memory ceiling to speak of: these calls must run until the signal stops them (a list of 10^11
# squares would meet the default 256 MiB ceiling first).
LONG = ir.Limits(max_operations=10**12, max_range_length=10**12, max_memory=2**40)


@pytest.fixture(scope="module")
def program() -> ir.Program:
    module = ir.prepare_module(ir.assemble(LOOPS))
    return ir.link_program(module, {"loop.nx": module})


def _signal_after(delay: float, sent: list[float]) -> threading.Thread:
    def fire() -> None:
        time.sleep(delay)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=fire, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def handler_times() -> Iterator[list[float]]:
    """A SIGINT handler that records when it ran and raises ``KeyboardInterrupt``, as the default does."""
    seen: list[float] = []

    def handler(signum: int, frame: Any) -> None:
        seen.append(time.monotonic())
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_sigint_stops_a_long_evaluation(program: ir.Program, handler_times: list[float], name: str) -> None:
    sent: list[float] = []
    # Memory grows with the work done (the loops build lists), so the signal comes early.
    thread = _signal_after(0.15, sent)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as raised:
        ir.evaluate_function(program, name, ARGS[name], limits=LONG)
    ended = time.monotonic()
    thread.join()
    assert ended - started < 60
    # The handler ran while the evaluation ran, within about 100 ms of work after the signal.
    assert handler_times and handler_times[0] - sent[0] < 0.1, (handler_times, sent)
    # The evaluation then ended: the partial value is freed and the interrupt raised.
    assert ended - sent[0] < 1.0
    context = raised.value.__context__
    assert isinstance(context, NxIrError) and context.code == "nx-ir-interrupted"
    assert context.usage["operations"] > 10_000


def test_sigint_stops_call_function_and_the_program_runs_again(program: ir.Program, handler_times: list[float]) -> None:
    sent: list[float] = []
    _signal_after(0.15, sent).join(0)
    function = {"$type": "Function", "module": "loop.nx", "name": "general"}
    with pytest.raises(KeyboardInterrupt):
        ir.call_function(program, function, {"n": 10**11}, limits=LONG)
    assert handler_times[0] - sent[0] < 0.1
    # Nothing of the stopped call is left behind.
    assert ir.evaluate_function(program, "squares", [4], max_operations=1000).value == [0, 1, 4, 9]


def test_a_handler_that_does_not_raise_leaves_the_evaluation_whole(program: ir.Program) -> None:
    calls: list[float] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(time.monotonic()))
    try:
        _signal_after(0.05, [])
        n = 5 * 10**6
        result = ir.evaluate_function(program, "general", [n], limits=LONG)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(calls) == 1
    assert len(result.value) == n and result.value[-1] == (n - 1) ** 2
    assert result.usage["operations"] == ir.evaluate_function(program, "general", [n], limits=LONG).usage["operations"]


def test_another_thread_is_not_polled(program: ir.Program) -> None:
    # Python runs signal handlers on the main thread only: an evaluation in another thread runs to
    # its end, with its value whole.
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(ir.evaluate_function(program, "squares", [3 * 10**6], limits=LONG)))
    thread.start()
    thread.join()
    assert results[0].value[-1] == (3 * 10**6 - 1) ** 2


def test_nx_agent_run_exits_130_on_sigint(tmp_path: Path) -> None:
    text = tmp_path / "loop.nxir.txt"
    text.write_text(LOOPS, encoding="utf-8")
    image = tmp_path / "loop.nxir"
    nx_agent = [sys.executable, "-m", "nx_agent"]
    subprocess.run([*nx_agent, "assemble", str(text), "-o", str(image)], check=True, capture_output=True)
    process = subprocess.Popen(
        # `idle` keeps nothing (each item is the empty list), so it runs until interrupted under
        # the default memory ceiling, which a list of 10^11 squares would reach in a moment.
        [*nx_agent, "run", str(image), "--function", "idle", "--args", "[100000000000]",
         "--max-operations", "1000000000000", "--max-range-length", "1000000000000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(1.5)
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - sent < 1.0
    assert process.returncode == 130
    assert out == ""
    assert "Traceback" not in err
    assert err.strip() == "nx-agent: interrupted"
