"""A budget gate for tests: the ``nx_cost`` fixture (a pytest plugin, entry point ``pytest11``).

Operation counts are exact and the same on every machine, so a test can hold a call to them::

    def test_find_plans(nx_cost):
        nx_cost.call(program, "findPlans", [12], max_operations=10_000)   # or nx_cost.record(evaluation)
        nx_cost.at_most(120)

- ``nx_cost.record(x, name=None, input=None)`` records one call's operations: ``x`` is an
  ``Evaluation``, an ``NxIrError`` that has a ``usage``, a tool's answer (``{"usage": {...}}``), a
  ``Profile`` or an int. ``nx_cost.call(program, function, args, **limits)`` and
  ``nx_cost.call_tool(tool, input)`` make the call and record it.
- ``nx_cost.at_most(n)`` fails the test when the last recorded call (or the one ``name``\\ d) used
  more than ``n`` operations.
- A baseline file (``--nx-cost-baseline FILE``, default ``.nx-cost-baseline.json`` in the root
  directory) keeps each test's operations; ``--nx-cost-update`` writes it. A test whose operations
  rose over the baseline fails with a table of what rose and by how much.
- With pytest-benchmark, a test that also uses ``benchmark`` gets ``operations`` and
  ``input_size`` in ``benchmark.extra_info``, so ``pytest-benchmark compare`` shows them beside time.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

__all__ = ["NxCost"]

BASELINE = ".nx-cost-baseline.json"
_KEY = pytest.StashKey["NxCost"]()
_SESSION = pytest.StashKey["_Baseline"]()


@dataclass
class _Call:
    operations: int
    input_size: int | None


def _usage_of(value: Any) -> tuple[int, int | None]:
    """(operations, input size) of a recorded value."""
    if isinstance(value, bool):
        raise TypeError("nx_cost.record takes an Evaluation, an error with usage, a tool answer, a Profile or an int")
    if isinstance(value, int):
        return value, None
    from ..profile import Profile

    if isinstance(value, Profile):
        return value.total, value.usage.get("input_size")
    usage = value.get("usage") if isinstance(value, Mapping) else getattr(value, "usage", None)
    if isinstance(usage, Mapping) and usage.get("operations") is not None:
        size = usage.get("input_size", usage.get("inputSize"))
        return int(usage["operations"]), int(size) if size is not None else None
    raise TypeError(f"nx_cost.record: {type(value).__name__} reports no operations (was the call given a budget?)")


class NxCost:
    """The ``nx_cost`` fixture of one test (see the module doc)."""

    def __init__(self, nodeid: str, benchmark: Any = None) -> None:
        self.nodeid = nodeid
        self.calls: dict[str, _Call] = {}
        self._last: str | None = None
        self._benchmark = benchmark

    def key(self, name: str | None) -> str:
        return self.nodeid if name is None else f"{self.nodeid}::{name}"

    def record(self, value: Any, *, name: str | None = None, input: Any = None) -> int:
        """Records one call's operations (added to what ``name`` recorded before in this test);
        answers them. ``input`` measures the input size when the value does not report it."""
        operations, size = _usage_of(value)
        if size is None and input is not None:
            from .. import ir

            size = ir.measure_input_size(input)
        key = self.key(name)
        before = self.calls.get(key)
        self.calls[key] = _Call(operations + (before.operations if before else 0), size if size is not None else before.input_size if before else None)
        self._last = key
        if self._benchmark is not None:
            info = self._benchmark.extra_info
            info["operations"] = self.calls[key].operations
            if self.calls[key].input_size is not None:
                info["input_size"] = self.calls[key].input_size
        return operations

    def call(self, program: Any, function: Any, args: Any = None, *, name: str | None = None, **limits: Any) -> Any:
        """Calls ``function`` (an entrypoint's name, or a ``Function`` record) as
        :func:`nx_agent.profile.profile_function` does, records it and answers its ``Evaluation``.
        Without a budget in ``limits`` the call runs under 2**53 - 1 operations, so it is counted."""
        from .. import ir

        if "max_operations" not in limits and "limits" not in limits:
            limits["max_operations"] = 2**53 - 1
        if isinstance(function, str) and not isinstance(args, Mapping):
            evaluated = ir.evaluate_function(program, function, args, **limits)
        else:
            record = {"$type": "Function", "module": program.entry.identity, "name": function} if isinstance(function, str) else function
            evaluated = ir.call_function(program, record, args, **limits)
        self.record(evaluated, name=name)
        return evaluated

    def call_tool(self, tool: Any, input: Any, *, name: str | None = None, call_id: str = "nx-cost", context: Any = None) -> Any:
        """Calls an agent tool (``tool.execute``), records its answer's usage and answers it."""
        answer = tool.execute(input, call_id=call_id, context=context)
        self.record(answer, name=name, input=input)
        return answer

    @property
    def operations(self) -> int:
        """The last recorded call's operations."""
        if self._last is None:
            raise LookupError("nx_cost has recorded no call yet")
        return self.calls[self._last].operations

    def at_most(self, ceiling: int, *, name: str | None = None) -> None:
        """Fails the test when the last recorded call (or ``name``'s) used more than ``ceiling``."""
        key = self.key(name) if name is not None else self._last
        if key is None or key not in self.calls:
            raise LookupError("nx_cost has recorded no call" + (f" named {name!r}" if name else " yet"))
        used = self.calls[key].operations
        if used > ceiling:
            pytest.fail(f"{key} used {used:,} operations, over its ceiling of {ceiling:,} (by {used - ceiling:,})", pytrace=False)


class _Baseline:
    """The baseline file, and what this session recorded."""

    def __init__(self, path: Path, update: bool) -> None:
        self.path = path
        self.update = update
        self.recorded: dict[str, int] = {}
        self.rises: list[tuple[str, int, int]] = []
        self.known: dict[str, int] = {}
        if path.is_file():
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except ValueError as error:
                raise pytest.UsageError(f"nx-cost baseline {path} is not JSON: {error}") from None
            operations = document.get("operations") if isinstance(document, dict) else None
            if not isinstance(operations, dict):
                raise pytest.UsageError(f"nx-cost baseline {path} has no 'operations' object")
            self.known = {str(k): int(v) for k, v in operations.items()}

    def write(self) -> None:
        merged = {**self.known, **self.recorded}
        document = {"version": 1, "operations": dict(sorted(merged.items()))}
        self.path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def rise_table(rows: list[tuple[str, int, int]]) -> str:
    """What rose over the baseline: call, baseline, now, change and percentage."""
    table = [("call", "baseline", "now", "change", "%")]
    for key, before, now in rows:
        table.append((key, f"{before:,}", f"{now:,}", f"{now - before:+,}", f"{100 * (now - before) / before:+.1f}%" if before else "new"))
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    return "\n".join(
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
        for row in table
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nx-cost", "nx-agent operation budgets (the nx_cost fixture)")
    group.addoption("--nx-cost-update", action="store_true", default=False,
                    help="write the operations each test recorded into the baseline file")
    group.addoption("--nx-cost-baseline", metavar="FILE", default=None,
                    help=f"the baseline file (default {BASELINE} in the root directory)")


def pytest_configure(config: pytest.Config) -> None:
    given = config.getoption("--nx-cost-baseline", default=None)
    path = Path(given) if given else Path(str(config.rootpath)) / BASELINE
    config.stash[_SESSION] = _Baseline(path, bool(config.getoption("--nx-cost-update", default=False)))


@pytest.fixture
def nx_cost(request: pytest.FixtureRequest) -> NxCost:
    """Records calls' operations, holds them to ceilings (``at_most``) and to the baseline."""
    benchmark = request.getfixturevalue("benchmark") if "benchmark" in request.fixturenames else None
    cost = NxCost(request.node.nodeid, benchmark)
    request.node.stash[_KEY] = cost
    return cost


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    result = yield
    cost = item.stash.get(_KEY, None)
    baseline = item.config.stash.get(_SESSION, None)
    if cost is None or baseline is None:
        return result
    rises = []
    for key, call in cost.calls.items():
        baseline.recorded[key] = call.operations
        before = baseline.known.get(key)
        if before is not None and call.operations > before and not baseline.update:
            rises.append((key, before, call.operations))
    if rises:
        baseline.rises.extend(rises)
        pytest.fail("operations rose over the nx-cost baseline "
                    f"({baseline.path.name}; --nx-cost-update accepts them):\n" + rise_table(rises), pytrace=False)
    return result


def pytest_sessionfinish(session: pytest.Session) -> None:
    baseline = session.config.stash.get(_SESSION, None)
    if baseline is not None and baseline.update and baseline.recorded:
        baseline.write()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    baseline = config.stash.get(_SESSION, None)
    if baseline is None or not baseline.recorded:
        return
    if baseline.update:
        terminalreporter.write_line(f"nx-cost: wrote {len(baseline.recorded)} calls' operations to {baseline.path}")
    elif baseline.rises:
        terminalreporter.write_sep("-", "nx-cost: operations over the baseline")
        terminalreporter.write_line(rise_table(baseline.rises))
