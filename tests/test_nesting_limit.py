"""Nestings that no call depth bounds stop at the expression nesting limit (1,000 levels) within
the default 1 MiB of native stack, as the NX reference runtime's release build stops them.

How much stack one level takes is each build's own; this holds the build installed here, a
release build as `pip install` makes it. The programs are `tests/fixtures/nesting/`, which the
oracle (`oracle/tests/nesting.rs`) also runs beside the reference runtime at every budget, and
`Box` (`component_programs.py`), whose state grows a level a tap. The operations below are what `nx-ir-runtime` 0.10.0 reports for them (docs/runtime-differences.md).
On a thread with less stack than the 1 MiB allowed, the allowance is the thread's room instead.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from component_programs import BOX
from nx_agent import ir

TEXT = (Path(__file__).parent / "fixtures" / "nesting" / "nesting.nxir.txt").read_text(encoding="utf-8")
PROGRAM = ir.link_program(ir.prepare_module(ir.assemble(TEXT)))

#: function -> (the declaration the failure names, the operations charged before it).
REFERENCE = {
    "record": ("nesting.nx::Loop", 2998),
    "loop": ("nesting.nx::LoopFor", 2497),
    "unionCase": ("nesting.nx::Chain", 1000),
    "component": ("nesting.nx::Deep", 1000),
    "recursion": ("nesting.nx::down", 4329),
}


@pytest.mark.parametrize("function", list(REFERENCE))
def test_an_unbounded_nesting_stops_at_the_nesting_limit(function: str) -> None:
    declaration, operations = REFERENCE[function]
    # `recursion` calls itself 5,000 deep: the call depth is raised past it.
    with pytest.raises(ir.NxIrError) as failed:
        ir.evaluate_function(PROGRAM, function, (), max_operations=10**9, max_call_depth=10**6)
    error = failed.value
    assert error.code == "nx-ir-resource-limit"
    first = error.diagnostics[0]
    assert first.limit == {"name": "maxExpressionNesting", "value": 1000}
    assert first.declaration == declaration
    assert error.usage["operations"] == operations


#: A child process that prepares what `setup` says on its main thread, then runs `work` (the body
#: of a function appending to `seen`) on a thread of `argv[1]` bytes of stack and prints `seen`;
#: the text on its standard input is `stdin`. A child, so that an overflow fails the test that
#: runs it rather than ending pytest.
ON_A_THREAD = """
import sys, threading
from nx_agent import ir
stdin = sys.stdin.read()
{setup}
threading.stack_size(int(sys.argv[1]))
seen = []
def run():
{work}
thread = threading.Thread(target=run)
thread.start()
thread.join()
print(repr(seen))
"""


def on_a_thread(stack_size: int, work: str, *, setup: str = "", stdin: str = "") -> list[Any]:
    """What `work` appended to `seen` on a thread of `stack_size` bytes of stack (`ON_A_THREAD`)."""
    script = ON_A_THREAD.format(setup=textwrap.dedent(setup), work=textwrap.indent(textwrap.dedent(work), "    "))
    done = subprocess.run(
        [sys.executable, "-c", script, str(stack_size)], input=stdin, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen: list[Any] = ast.literal_eval(done.stdout.strip())
    return seen


@pytest.mark.parametrize("stack_size", [512 << 10, 256 << 10, 128 << 10])
def test_a_thread_with_a_small_stack_meets_the_stack_limit_instead_of_crashing(stack_size: int) -> None:
    # The same nesting on a Python thread with less stack than the 1 MiB allowed: the allowance
    # shrinks to the thread's room, so the call fails with `maxStackBytes`.
    seen = on_a_thread(
        stack_size,
        """
        try:
            ir.evaluate_function(program, "record", (), max_operations=10**9)
        except ir.NxIrError as error:
            seen.append((error.code, error.diagnostics[0].limit))
        """,
        setup="program = ir.link_program(ir.prepare_module(ir.assemble(stdin)))",
        stdin=TEXT,
    )
    [(code, limit)] = seen
    assert code == "nx-ir-resource-limit"
    assert limit["name"] == "maxStackBytes"
    assert limit["value"] < stack_size


@pytest.mark.parametrize("stack_size", [256 << 10, 128 << 10])
def test_deeply_nested_texts_and_images_are_handled_on_a_thread_with_a_small_stack(stack_size: int) -> None:
    # Assembling, preparing and explaining recurse as deep as their input nests (here 295
    # levels, near the assembler's 300): on a thread without the room, they run on a thread of
    # their own, and give what they give on this one. Linking and compiling (on the first call)
    # walk the image's tables without recursing: they run where they are called, and the call
    # gives the value or meets the thread's stack allowance.
    body = "1"
    for _ in range(295):
        body = f"(1 add {body})"
    text = f"module deep.nx fingerprint 1\nentrypoints functions [f] components []\n\nfunction f() =\n  {body}\n"
    image = ir.assemble(text)
    expected = (len(image), len(ir.explain(image)), len(ir.prepare_module(image).explain()))
    seen = on_a_thread(
        stack_size,
        """
        image = ir.assemble(stdin)
        module = ir.prepare_module(image)
        seen.append((len(image), len(ir.explain(image)), len(module.explain())))
        try:
            seen.append(ir.evaluate_function(ir.link_program(module), "f").value)
        except ir.NxIrError as error:
            seen.append(error.diagnostics[0].limit["name"])
        """,
        stdin=text,
    )
    assert seen[0] == expected
    assert seen[1:] in ([296], ["maxStackBytes"])


#: A program with a component, for a stored instance to be restored into.
STORED_PROGRAM = """\
module m.nx fingerprint 1
entrypoints functions [] components [C]

component C
  state
    n: int = 0
  body =
    n
"""


@pytest.mark.parametrize("stack_size", [(2 << 20) + (256 << 10), 256 << 10])
def test_a_deeply_nested_stored_instance_is_refused_on_a_thread_with_a_small_stack(stack_size: int) -> None:
    # A stored instance's JSON nests up to 10,000 deep before it is refused, which takes more
    # than 2.25 MiB of stack to read: on a thread with less room it is read on a thread of its own.
    seen = on_a_thread(
        stack_size,
        """
        try:
            ir.restore_component_instance(program, "[" * 9999 + "]" * 9999)
        except ir.NxIrError as error:
            seen.append(error.code)
        """,
        setup="program = ir.link_program(ir.prepare_module(ir.assemble(stdin)))",
        stdin=STORED_PROGRAM,
    )
    assert seen == ["nx-ir-component"]


#: What each way a host hands a value over does with `value` (255 levels deep, the most a host
#: value may nest): True when the value came back whole, else the code and limit name it was
#: refused with. `program` is `box.nxir.txt`'s, `echo` the program with `held`.
HAND_OVER = """
def outcome(call):
    try:
        return call()
    except ir.NxIrError as error:
        limit = error.diagnostics[0].limit
        return (error.code, limit and limit["name"])
held = {"$type": "Function", "module": "held.nx", "name": "held"}
for kind, value in values.items():
    seen.append((kind, "evaluate", outcome(lambda: ir.evaluate_function(echo, "held", (value,)).value == value)))
    seen.append((kind, "call", outcome(lambda: ir.call_function(echo, held, {"value": value}).value == value)))
    seen.append((kind, "measure", outcome(lambda: ir.measure_input_size(value, 10**6) > 255)))
    seen.append((kind, "state", outcome(lambda: ir.initialize_component(program, "Box", state={"s": value}).state == {"s": value})))
    inner = value[0] if isinstance(value, list) else value["a"]  # in a record, 255 levels again
    wrap = {"$type": "Wrap", "next": inner}
    seen.append((kind, "apply", outcome(lambda: ir.apply_update(wrap, {"$type": "Wrap.Update", "next": inner}) == wrap)))
"""

#: The set-up of the child processes below: `program` (the `Box` component, whose state grows a
#: level with each tap), `echo` (whose function `held` gives back its argument) and `values`.
DEEP_SETUP = """
program = ir.link_program(ir.prepare_module(ir.assemble(stdin, schema=5)))
echo = ir.link_program(ir.prepare_module(ir.assemble(
    "module held.nx fingerprint 1\\nentrypoints functions [held] components []\\n\\n"
    "function held(value: object) =\\n  value\\n")))
values = {"list": 1, "record": 1, "mixed": 1}
for level in range(255):
    values["list"] = [values["list"]]
    values["record"] = {"a": values["record"]}
    values["mixed"] = [values["mixed"]] if level % 2 else {"$type": "Inner", "a": values["mixed"]}
def tap(token):
    return {"$type": "ActionHandlerInvocation", "token": token, "action": {"$type": "Button.Tapped"}}
"""


@pytest.mark.parametrize("stack_size", [512 << 10, 128 << 10, 64 << 10])
def test_deep_host_values_are_taken_or_refused_on_a_thread_with_a_small_stack(stack_size: int) -> None:
    # Reading a host value, freezing it into an instance and writing it back each recurse a
    # level for each of its 255: where the thread has no stack left for a level, the call is
    # refused with `maxStackBytes` instead of overflowing it.
    seen = on_a_thread(stack_size, HAND_OVER, setup=DEEP_SETUP, stdin=BOX)
    assert len(seen) == 15
    outcomes = {outcome for _, _, outcome in seen}
    assert outcomes <= {True, ("nx-ir-resource-limit", "maxStackBytes")}, seen
    if stack_size == 512 << 10:
        assert outcomes == {True}, seen
    if stack_size == 64 << 10:
        # Too little room for any way to take the value (measuring with a limit walks it in a loop).
        assert {outcome for _, way, outcome in seen if way != "measure"} == {("nx-ir-resource-limit", "maxStackBytes")}


@pytest.mark.parametrize("stack_size", [128 << 10, 64 << 10])
def test_a_deep_instance_is_written_restored_and_dropped_on_a_thread_with_a_small_stack(stack_size: int) -> None:
    # An instance whose state nests 255 levels, made on the main thread; and stored instances
    # whose state is 1,023 records around an integer (1,024 levels, the most restoring takes)
    # and 1,024 records. Writing and restoring run on a thread with room; dispatching refuses;
    # dropping takes the values apart without recursing.
    seen = on_a_thread(
        stack_size,
        """
        seen.append((instance.to_json() == text, instance.to_bytes() == data))
        seen.append(ir.restore_component_instance(program, text).to_bytes() == data)
        seen.append(pickle.loads(pickle.dumps(instance)).to_bytes() == data)
        try:
            ir.dispatch_component_actions(program, instance, [tap(instance.tokens[0])])
        except ir.NxIrError as error:
            seen.append((error.code, error.diagnostics[0].limit["name"]))
        for depth in (1023, 1024):
            try:
                restored = ir.restore_component_instance(program, stored(depth))
                seen.append((depth, restored.generation))
                del restored
            except ir.NxIrError as error:
                seen.append((depth, error.code))
        """,
        setup=DEEP_SETUP
        + """
import json, pickle
instance = ir.initialize_component(program, "Box").instance
for _ in range(255):
    instance = ir.dispatch_component_actions(program, instance, [tap(instance.tokens[0])]).instance
text, data = instance.to_json(), instance.to_bytes()
def stored(depth):
    shape = json.loads(text)
    values = [["int", "0"]] + [["record", "Wrap", [["next", i]]] for i in range(depth)]
    values.append(["handler", "deep.nx", "Box", 5, [depth]])
    return json.dumps(dict(shape, values=values, state=[["s", depth]], handlers=[depth + 1]))
""",
        stdin=BOX,
    )
    assert seen == [
        (True, True),
        True,
        True,
        ("nx-ir-resource-limit", "maxStackBytes"),
        (1023, 256),
        (1024, "nx-ir-component"),
    ]
