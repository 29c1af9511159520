"""The extension's allocator (rust/nx-agent-py/src/alloc.rs): the system's until an evaluation
runs long, mimalloc after, with blocks of both kinds freed by their own allocator. Each test runs in
a fresh interpreter, since the switch is one way and process-wide."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], check=True, capture_output=True, text=True, timeout=120
    )
    return done.stdout.strip()


def program(module: str, function: str, per_item: int) -> str:
    """A script prologue linking `module` (explain text) and defining `function(n)`: a call
    under a budget of `per_item` operations per item."""
    return f"""
from nx_agent import ir
program = ir.link_program(ir.prepare_module(ir.assemble({module!r})))
def {function}(n):
    return ir.evaluate_function(program, "{function}", (n,), max_operations={per_item} * n + 100)
"""


HEADER = """module t/loop.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
"""

LOOP = program(
    HEADER
    + """entrypoints functions [items] components []

function items(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("item " concat text<int>(i))
""",
    "items",
    10,
)


def test_a_cold_start_stays_on_the_system_allocator() -> None:
    """Import, load the bundled example and one call (what a serverless cold start does)."""
    out = run(
        """
        from nx_agent import _native, examples, ir
        before = _native._allocator()
        result = ir.evaluate_function(examples.link_example(), "findPlans", (5,), max_operations=1000).value
        print(before, _native._allocator(), [plan["name"] for plan in result])
        """
    )
    assert out == "system system ['Team', 'Business']"


def test_one_long_evaluation_switches_and_blocks_of_both_kinds_live_together() -> None:
    out = run(
        LOOP
        + """
from nx_agent import _native
small = items(50).value              # made by the system allocator
assert _native._allocator() == "system"
large = items(20_000).value          # runs long (over 10,000 operations): switches
assert _native._allocator() == "mimalloc"
again = items(50).value              # made by mimalloc
assert again == small == ["item %d" % i for i in range(50)]
assert large == ["item %d" % i for i in range(20_000)]
del program                          # the program's blocks, made before the switch, freed after
import gc; gc.collect()
print(len(large), _native._allocator())
"""
    )
    assert out == "20000 mimalloc"


def test_blocks_grow_across_the_large_size_before_and_after_the_switch() -> None:
    """A mimalloc block grown past 64 KiB moves to the system allocator with its bytes; the
    large block stays there; zeroed blocks of both sizes are zero (checked in Rust)."""
    out = run(
        LOOP
        + """
from nx_agent import _native
before = _native._allocator_check()
items(20_000)
print(before, _native._allocator(), _native._allocator_check())
"""
    )
    assert out == "True mimalloc True"


def test_short_calls_stay_on_the_system_allocator() -> None:
    out = run(
        LOOP
        + """
from nx_agent import _native
for call in range(1_000):
    assert items(3).value == ["item 0", "item 1", "item 2"]
print(_native._allocator())
"""
    )
    assert out == "system"


def test_threads_free_each_others_blocks_after_the_switch() -> None:
    out = run(
        LOOP
        + """
import threading
from nx_agent import _native
kept = [items(2_000).value for _ in range(4)]   # system blocks, and the switch
assert _native._allocator() == "mimalloc"
made = []
def work(k):
    for n in range(200, 2_000, 150):
        made.append(items(n + k).value)         # values from every thread, freed on another
threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in threads: t.start()
for t in threads: t.join()
assert all(v == ["item %d" % i for i in range(len(v))] for v in made + kept)
print(len(made))
"""
    )
    assert out == str(4 * len(range(200, 2_000, 150)))


def test_the_example_answers_the_same_either_side_of_the_switch() -> None:
    out = run(
        LOOP
        + """
from nx_agent import examples
program2 = examples.link_example()
before = ir.evaluate_function(program2, "findPlans", (5,), max_operations=1000).value
items(20_000)
after = ir.evaluate_function(program2, "findPlans", (5,), max_operations=1000).value
print(before == after, len(after))
"""
    )
    assert out == "True 2"


RECORDS = program(
    HEADER
    + """entrypoints functions [points] components []

record Point
  x: int required
  label: string required

function points(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    <Point label=("point " concat text<int>(i)) x=i />
""",
    "points",
    20,
)


def test_a_full_arena_spills_to_the_system_allocator() -> None:
    """With mimalloc's arena at its smallest (32 MiB), 400,000 records (a counted record, its
    fields and its label: about 200 bytes each) fill it: the rest come from the system
    allocator, and every block is freed by its own allocator."""
    out = run(
        RECORDS
        + """
from nx_agent import _native
assert _native._allocator_arena(32) == 0
points(20_000)
assert _native._allocator() == "mimalloc" and _native._allocator_arena(32) == 0
n = 400_000
many = points(n).value
spilled = _native._allocator_arena(32)
assert many == [{"$type": "Point", "label": "point %d" % i, "x": i} for i in range(n)]
del many
again = points(30_000).value          # the arena has room again
print(spilled > 50_000, _native._allocator_arena(32) == spilled, _native._allocator_check(), len(again))
"""
    )
    assert out == "True True True 30000"
