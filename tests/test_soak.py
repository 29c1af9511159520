"""A short soak (``benches/soak.py``): 20,000 mixed ``execute`` calls, half on one thread and half on
two threads sharing one program; every result is the one expected for its call, and resident
memory after the warm-up stays within a generous bound."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SOAK_PATH = Path(__file__).resolve().parent.parent / "benches" / "soak.py"


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nx_agent_soak", SOAK_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_short_soak_loses_or_mixes_no_result_and_memory_stays_flat(soak: ModuleType) -> None:
    report = soak.soak(calls=20_000, threads=2, sample_every=1_000)
    assert report.wrong == []
    assert sum(report.counts.values()) == 20_000
    assert set(report.counts) == {label for label, _, _ in soak.CALLS}
    # Generous: the full million-call run reports its growth; here only unbounded growth fails.
    assert report.growth_kib < 16 * 1024, report.lines()


def test_the_checks_tell_one_call_from_another(soak: ModuleType) -> None:
    """A result handed to the wrong call (another number, another call id) is caught."""
    tools = soak.load_tools()
    loop = asyncio.new_event_loop()
    try:
        for label, run, expected in soak.CALLS:
            result = run(tools, 40, "t0:40", loop)
            assert expected(40, "t0:40")(result), (label, result)
            if result["ok"]:
                assert not expected(41, "t0:41")(result), label
    finally:
        loop.close()
