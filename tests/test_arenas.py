"""`ir.keep_python_arenas` (rust/nx-agent-py/src/arenas.rs): freed object arenas kept mapped up
to a limit and handed out again. Each test runs in a fresh interpreter: the choice is
process-wide."""

from __future__ import annotations

import textwrap

import pytest
from test_allocator import LOOP, run

from nx_agent import NxError, _native, ir

#: The stable-ABI build (feature `abi3`) has no arena allocator API to set: there the tests that
#: keep arenas cannot run, and `test_only_the_full_api_build_keeps_arenas` asserts instead that
#: `keep_python_arenas` refuses with NxError and keeps nothing. The usual build skips none.
STABLE_ABI = _native.__file__.endswith(".abi3.so")
full_api_only = pytest.mark.skipif(
    STABLE_ABI,
    reason="the stable-ABI build has no arena allocator API; test_only_the_full_api_build_keeps_arenas checks its refusal",
)


def script(*parts: str) -> str:
    """The parts, each dedented on its own, one after the other."""
    return "\n".join(textwrap.dedent(part) for part in parts)


#: Makes and drops about 30 MB of small strings (thirty arenas' worth); prints the kept bytes
#: after the drop, after making them again, and the minor page faults of making them again.
CHURN = """
import resource
from nx_agent import _native

def churn():
    return [str(i) * 4 for i in range(400_000)]

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

held = churn()
del held
dropped = _native._kept_arena_bytes()
before = faults()
held = churn()
again = faults() - before
remade = _native._kept_arena_bytes()
del held
"""


@full_api_only
def test_freed_arenas_are_kept_up_to_the_limit_and_handed_out_again() -> None:
    out = run(
        script(
            """
            from nx_agent import ir
            assert ir.keep_python_arenas(64 << 20) == 0
            assert ir.keep_python_arenas(64 << 20) == 64 << 20
            """,
            CHURN,
            """
            print(dropped, remade, _native._kept_arena_bytes())
            """,
        )
    )
    dropped, remade, last = map(int, out.split())
    # Thirty-odd arenas were emptied: kept, within the limit.
    assert 16 << 20 <= dropped <= 64 << 20
    # Making the strings again took kept arenas back out.
    assert remade < dropped // 4
    assert 16 << 20 <= last <= 64 << 20


@full_api_only
def test_a_lower_limit_gives_arenas_back_and_zero_keeps_none() -> None:
    out = run(
        script(
            """
            from nx_agent import ir
            ir.keep_python_arenas(4 << 20)
            """,
            CHURN,
            """
            small = _native._kept_arena_bytes()
            ir.keep_python_arenas(64 << 20)
            held = churn()
            del held
            large = _native._kept_arena_bytes()
            assert ir.keep_python_arenas(0) == 64 << 20
            zero = _native._kept_arena_bytes()
            held = churn()
            del held
            print(small, large, zero, _native._kept_arena_bytes())
            """,
        )
    )
    small, large, zero, after = map(int, out.split())
    assert 0 < small <= 4 << 20
    assert large > 4 << 20
    assert zero == 0 and after == 0


@full_api_only
def test_kept_arenas_spare_the_page_faults_of_making_objects_again() -> None:
    """The pages of a kept arena stay backed: making the objects again faults far less than
    when the interpreter has unmapped them."""
    given_back = int(run(script(CHURN, "print(again)")))
    kept = int(run(script("from nx_agent import ir", "ir.keep_python_arenas(64 << 20)", CHURN, "print(again)")))
    assert given_back > 1000
    assert kept * 4 < given_back


@full_api_only
def test_evaluations_are_unchanged_with_arenas_kept() -> None:
    out = run(
        LOOP
        + """
ir.keep_python_arenas(32 << 20)
expected = [f"item {i}" for i in range(100_000)]
for _ in range(5):
    result = items(100_000)
    assert result.value == expected and result.usage == items(100_000).usage
    del result
print("ok")
"""
    )
    assert out == "ok"


def test_only_the_full_api_build_keeps_arenas() -> None:
    """Each build says what it can do: the stable-ABI one refuses with `NxError` (nothing set),
    the other keeps arenas (its first call returns the limit before it, none)."""
    if STABLE_ABI:
        with pytest.raises(NxError, match="stable-ABI"):
            ir.keep_python_arenas(1 << 20)
        assert _native._kept_arena_bytes() == 0
    else:
        assert run(script("from nx_agent import ir", "print(ir.keep_python_arenas(1 << 20), ir.keep_python_arenas(0))")) == f"0 {1 << 20}"
