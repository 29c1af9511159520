"""Soak: a million ``execute`` calls on one loaded agent, mixed successes and failures, from 1 and
then from T threads sharing one program; every result checked, resident memory sampled.

Run: ``python3 benches/soak.py [--calls N] [--threads T] [--max-growth-mib M]``.

The agent is the bundled support agent (``nx_agent.examples``), compiled and loaded as a host
loads it, with a request function that answers or raises. Beside its tools: the same definition's
tools created over the same program with a budget of 3 operations (every call a
``resource-limit``), and a tool with a context parameter (its own small program). The first half of
the calls runs on one thread, the second half on ``T`` threads at once.

Each call is tagged with a unique number ``n`` (in ``teamSize``, the order id, the ticket subject,
the conversation id and the call id) and its result is compared with the one expected for ``n``
alone, so a result lost, or handed to the wrong call or thread, is a mismatch. Resident memory
(``VmRSS``) is read every ``--sample-every`` calls; the growth reported is from the end of the
warm-up (the first 10 % of the calls) to the end. Exits 1 when any result is wrong or the growth
exceeds ``--max-growth-mib``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import threading
import time
from pathlib import Path
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import nx_agent
from nx_agent import examples, ir

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benches/programs.py, when loaded by path
from programs import context_tool  # noqa: E402

#: The budget of the starved tools: ``findPlans`` and the arguments functions need more.
STARVED_BUDGET = 3
#: The model's cap on a tool's input (the package's default).
ARGUMENTS_CAP = 1_000



def _request(call: Mapping[str, Any]) -> dict[str, Any]:
    """The host's request function: echoes what identifies the call, or raises for ``fail-`` orders."""
    arguments = call["arguments"]
    if call["toolName"] == "lookup_order":
        order = arguments["pathParams"][0]["value"]
        if order.startswith("fail-"):
            raise ConnectionError(f"shop unreachable for {order}")
        return {"status": 200, "body": {"order": order, "callId": call["callId"], "url": call["request"]["url"]}}
    return {"status": 201, "body": {"subject": arguments["body"]["subject"], "callId": call["callId"]}}


@dataclass
class Tools:
    """The tools every worker shares."""

    find_plans: Any
    lookup_order: Any
    open_ticket: Any
    starved_find_plans: Any
    starved_lookup_order: Any
    who_am_i: Any
    program: ir.Program


def load_tools() -> Tools:
    """The bundled agent compiled, stored as text and loaded; the starved tools over its program."""
    compiled = nx_agent.compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    agent = nx_agent.load_agent(compiled.definition_text, compiled.images, request=_request)
    starved = {
        tool.name: tool
        for tool in nx_agent.create_agent_tools(
            agent.definition, agent.program, request=_request, max_operations=STARVED_BUDGET
        )
    }
    return Tools(
        find_plans=agent["find_plans"],
        lookup_order=agent["lookup_order"],
        open_ticket=agent["open_ticket"],
        starved_find_plans=starved["find_plans"],
        starved_lookup_order=starved["lookup_order"],
        who_am_i=context_tool()[0],
        program=agent.program,
    )


Check = Callable[[Any], bool]


def _plans(n: int) -> list[dict[str, Any]]:
    return [{"$type": "Plan", "monthlyPrice": 20, "name": "Team", "seats": n}]


def _ok(output: Any) -> Check:
    def check(result: Any) -> bool:
        return (
            type(result) is dict
            and result.get("ok") is True
            and result.get("output") == output
            and isinstance(result.get("usage", {}).get("operations"), int)
        )

    return check


def _failed(code: str, *, message: str | None = None, limit: dict[str, Any] | None = None, argument: str | None = None) -> Check:
    def check(result: Any) -> bool:
        if type(result) is not dict or result.get("ok") is not False:
            return False
        error = result.get("error")
        if not isinstance(error, dict) or error.get("code") != code:
            return False
        if message is not None and message not in error.get("message", ""):
            return False
        if limit is not None and error.get("limit") != limit:
            return False
        if argument is not None and [d.get("argument") for d in error.get("diagnostics", [])] != [argument]:
            return False
        return True

    return check


#: One call: (label, run(tools, n, call_id, loop) -> result, expected(n, call_id) -> check).
Call = tuple[str, Callable[[Tools, int, str, asyncio.AbstractEventLoop], Any], Callable[[int, str], Check]]

CALLS: list[Call] = [
    ("find_plans ok",
     lambda t, n, c, _: t.find_plans.execute({"teamSize": n}, call_id=c),
     lambda n, c: _ok(_plans(n))),
    ("find_plans with maxMonthlyPrice ok",
     lambda t, n, c, _: t.find_plans.execute({"teamSize": n, "maxMonthlyPrice": n % 97}, call_id=c),
     lambda n, c: _ok(_plans(n))),
    ("find_plans wrong type",
     lambda t, n, c, _: t.find_plans.execute({"teamSize": str(n)}, call_id=c),
     lambda n, c: _failed("invalid-input", argument="teamSize")),
    ("find_plans missing argument",
     lambda t, n, c, _: t.find_plans.execute({"maxMonthlyPrice": n}, call_id=c),
     lambda n, c: _failed("invalid-input", argument="teamSize")),
    ("find_plans not an object",
     lambda t, n, c, _: t.find_plans.execute([n], call_id=c),
     lambda n, c: _failed("invalid-input")),
    ("find_plans over the input cap",
     lambda t, n, c, _: t.find_plans.execute({"teamSize": n, "notes": list(range(n % 7, n % 7 + 2_000))}, call_id=c),
     lambda n, c: _failed("invalid-input", limit={"name": "maxArgumentsSize", "value": ARGUMENTS_CAP})),
    ("find_plans over the budget",
     lambda t, n, c, _: t.starved_find_plans.execute({"teamSize": n}, call_id=c),
     lambda n, c: _failed("resource-limit", limit={"name": "maxOperations", "value": STARVED_BUDGET})),
    ("find_plans aexecute ok",
     lambda t, n, c, loop: loop.run_until_complete(t.find_plans.aexecute({"teamSize": n}, call_id=c)),
     lambda n, c: _ok(_plans(n))),
    ("lookup_order ok",
     lambda t, n, c, _: t.lookup_order.execute({"orderId": f"o{n}"}, call_id=c),
     lambda n, c: _ok({"status": 200, "body": {"order": f"o{n}", "callId": c,
                                              "url": f"https://api.example.com/orders/o{n}"}})),
    ("lookup_order request raises",
     lambda t, n, c, _: t.lookup_order.execute({"orderId": f"fail-{n}"}, call_id=c),
     lambda n, c: _failed("request-failed", message=f"shop unreachable for fail-{n}")),
    ("lookup_order over the budget",
     lambda t, n, c, _: t.starved_lookup_order.execute({"orderId": f"o{n}"}, call_id=c),
     lambda n, c: _failed("resource-limit", limit={"name": "maxOperations", "value": STARVED_BUDGET})),
    ("lookup_order aexecute request raises",
     lambda t, n, c, loop: loop.run_until_complete(t.lookup_order.aexecute({"orderId": f"fail-{n}"}, call_id=c)),
     lambda n, c: _failed("request-failed", message=f"shop unreachable for fail-{n}")),
    ("open_ticket ok, a context passed",
     lambda t, n, c, _: t.open_ticket.execute({"subject": f"s{n}"}, call_id=c, context={"conversationId": f"c{n}"}),
     lambda n, c: _ok({"status": 201, "body": {"subject": f"s{n}", "callId": c}})),
    ("who_am_i ok (context)",
     lambda t, n, c, _: t.who_am_i.execute({}, call_id=c, context={"$type": "ChatToolContext", "conversationId": f"conv{n}"}),
     lambda n, c: _ok(f"conv{n}")),
    ("who_am_i no context",
     lambda t, n, c, _: t.who_am_i.execute({}, call_id=c),
     lambda n, c: _failed("invalid-context")),
    ("who_am_i context too large",
     lambda t, n, c, _: t.who_am_i.execute({}, call_id=c, context={"$type": "ChatToolContext", "conversationId": f"conv{n}", "pad": list(range(2_000))}),
     lambda n, c: _failed("resource-limit", limit={"name": "maxContextSize", "value": ARGUMENTS_CAP})),
    ("find_plans empty call id",
     lambda t, n, c, _: t.find_plans.execute({"teamSize": n}, call_id=""),
     lambda n, c: _failed("invalid-context")),
    ("find_plans cancelled",
     lambda t, n, c, _: t.find_plans.execute({"teamSize": n}, call_id=c, cancel=nx_agent.CancelToken.cancelled_token()),
     lambda n, c: _failed("aborted")),
]


def rss_kib() -> int:
    """The process's resident memory (``VmRSS``), in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


@dataclass
class Soak:
    """Shared state of one run: counts per call kind, mismatches, memory samples."""

    tools: Tools
    total: int
    sample_every: int
    done: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    wrong: list[str] = field(default_factory=list)
    samples: list[tuple[int, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def worker(self, thread: int, numbers: range) -> None:
        """Run the calls numbered ``numbers`` on this thread; record any result not as expected."""
        loop = asyncio.new_event_loop()
        counts: dict[str, int] = {}
        wrong: list[str] = []
        pending = 0
        try:
            for n in numbers:
                label, run, expected = CALLS[n % len(CALLS)]
                call_id = f"t{thread}:{n}"
                try:
                    result = run(self.tools, n, call_id, loop)
                except BaseException as error:  # noqa: BLE001 - execute must never raise; record it
                    result = f"raised {type(error).__name__}: {error}"
                if not expected(n, call_id)(result):
                    if len(wrong) < 20:
                        wrong.append(f"call {n} ({label}) on thread {thread}: {result!r}"[:500])
                    else:
                        wrong.append("")
                counts[label] = counts.get(label, 0) + 1
                pending += 1
                if pending == 1_000:
                    self._progress(pending)
                    pending = 0
        finally:
            loop.close()
            self._progress(pending)
            with self.lock:
                for label, count in counts.items():
                    self.counts[label] = self.counts.get(label, 0) + count
                self.wrong.extend(wrong)

    def _progress(self, calls: int) -> None:
        with self.lock:
            before = self.done
            self.done += calls
            if before // self.sample_every != self.done // self.sample_every or self.done == self.total:
                self.samples.append((self.done, rss_kib()))

    def run_phase(self, first: int, count: int, threads: int) -> float:
        """Calls ``first .. first+count-1``, dealt round-robin to ``threads`` threads; seconds taken."""
        workers = [
            threading.Thread(target=self.worker, args=(t, range(first + t, first + count, threads)))
            for t in range(threads)
        ]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return time.perf_counter() - start


@dataclass
class Report:
    """What a run found."""

    calls: int
    threads: int
    seconds: dict[int, float]
    counts: dict[str, int]
    wrong: list[str]
    samples: list[tuple[int, int]]
    warm_kib: int
    end_kib: int
    peak_after_warm_kib: int

    @property
    def growth_kib(self) -> int:
        """Resident memory at the end less at the end of the warm-up."""
        return self.end_kib - self.warm_kib

    def lines(self) -> list[str]:
        single, multi = self.seconds[1], self.seconds[self.threads]
        half = self.calls // 2
        lines = [
            f"soak: {self.calls:,} execute calls on one program ({len(CALLS)} kinds, "
            f"{sum(1 for label in self.counts if ' ok' in label)} of them successes)",
            f"  1 thread:  {half:,} calls in {single:.1f} s ({half / single:,.0f} calls/s)",
            f"  {self.threads} threads: {self.calls - half:,} calls in {multi:.1f} s "
            f"({(self.calls - half) / multi:,.0f} calls/s)",
            f"  results: {sum(self.counts.values()):,} checked, {len(self.wrong):,} wrong",
            f"  resident memory: {self.warm_kib / 1024:.1f} MiB after warm-up (10 %), "
            f"{self.end_kib / 1024:.1f} MiB at the end, peak after warm-up {self.peak_after_warm_kib / 1024:.1f} MiB; "
            f"growth {self.growth_kib / 1024:+.2f} MiB",
        ]
        lines += [f"    {label}: {count:,}" for label, count in sorted(self.counts.items())]
        lines += [f"  WRONG {line}" for line in self.wrong[:20] if line]
        return lines


def soak(calls: int = 1_000_000, threads: int = 2, sample_every: int | None = None) -> Report:
    """Run the soak: half the calls on one thread, then half on ``threads`` threads at once."""
    tools = load_tools()
    every = sample_every or max(1_000, calls // 100)
    state = Soak(tools, calls, every)
    gc.collect()
    state.samples.append((0, rss_kib()))
    half = calls // 2
    seconds = {1: state.run_phase(0, half, 1)}
    seconds[threads] = state.run_phase(half, calls - half, threads)
    gc.collect()
    state.samples.append((calls, rss_kib()))
    warm_mark = calls // 10
    warm = next(kib for done, kib in state.samples if done >= warm_mark)
    after = [kib for done, kib in state.samples if done >= warm_mark]
    return Report(
        calls=calls,
        threads=threads,
        seconds=seconds,
        counts=state.counts,
        wrong=state.wrong,
        samples=state.samples,
        warm_kib=warm,
        end_kib=state.samples[-1][1],
        peak_after_warm_kib=max(after),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sample-every", type=int, default=None, help="calls between RSS samples (default calls/100)")
    parser.add_argument("--max-growth-mib", type=float, default=5.0)
    args = parser.parse_args(argv)
    if args.calls < 20 or args.threads < 2:
        parser.error("--calls must be at least 20 and --threads at least 2")
    report = soak(args.calls, args.threads, args.sample_every)
    for line in report.lines():
        print(line)
    samples = ", ".join(f"{done:,}:{kib / 1024:.1f}" for done, kib in report.samples[:: max(1, len(report.samples) // 10)])
    print(f"  RSS samples (calls:MiB): {samples}")
    failed = bool(report.wrong) or report.growth_kib > args.max_growth_mib * 1024
    print("FAIL" if failed else "OK", f"(growth limit {args.max_growth_mib} MiB)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
