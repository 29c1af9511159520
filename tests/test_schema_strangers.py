"""Schemas of images from strangers: deriving a tool's JSON Schema walks the types an image
declares, and an image can declare them in any number and shape. The walk must finish with the
compiler's answer, or refuse with a code, in work and memory in proportion to the image."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from nx_agent.agent import compile_agent
from nx_agent.schema import function_schema

from agent_programs import one_tool_agent
from schema_programs import main, program

#: Far past Python's recursion limit (1,000 frames): a walk that recursed per record would fail.
CHAIN = 2_000


def python_steps(call: Callable[[], object]) -> int:
    """The bytecode instructions Python runs for ``call()``, in every frame it enters: a
    deterministic count of the work done in Python (work inside C functions is not seen)."""
    count = 0

    def each(frame: Any, event: str, arg: object) -> Any:
        nonlocal count
        if event == "opcode":
            count += 1
        return each

    def enter(frame: Any, event: str, arg: object) -> Any:
        frame.f_trace_opcodes = True
        return each

    sys.settrace(enter)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


def _chain(length: int) -> str:
    """``R0`` holds the union ``U0``, whose payload case holds the abstract ``A0``, which only
    ``R1`` extends, and so on: every kind of definition the walk enters, ``length`` times."""
    parts = []
    for i in range(length):
        parts.append(f"record A{i} abstract\n  tag: string?\n")
        parts.append(f"record R{i} extends A{i - 1}\n  tag: string?\n  next: U{i} required\n" if i else f"record R{i}\n  next: U{i} required\n")
        parts.append(f"union U{i}\n  case stop constant\n  case go\n    on: A{i} required\n")
    parts.append(f"record R{length} extends A{length - 1}\n  tag: string?\n")
    return "\n".join(parts) + "\nfunction take(first: R0): int =\n  1\n"


def test_a_chain_of_definitions_far_past_the_recursion_limit_gets_its_schema() -> None:
    answer = function_schema(program(main(_chain(CHAIN))), {"name": "take"})
    assert answer["diagnostics"] == []
    schema: dict[str, Any] = answer["inputSchema"]
    assert schema["properties"] == {"first": {"$ref": "#/$defs/R0"}}
    defs = schema["$defs"]
    # First-mention order: each record, its union, the union's payload case, then the next record.
    expected = [key for i in range(CHAIN) for key in (f"R{i}", f"U{i}", f"U{i}.go")] + [f"R{CHAIN}"]
    assert list(defs) == expected
    assert defs["U7"] == {"anyOf": [{"type": "string", "enum": ["stop"]}, {"$ref": "#/$defs/U7.go"}]}
    # The abstract `A7` has one shape, `R8`, which must then say what it is.
    assert defs["U7.go"]["properties"]["on"] == {"anyOf": [{"$ref": "#/$defs/R8"}]}
    assert defs["R8"]["properties"]["$type"] == {"const": "R8"}
    assert defs["R8"]["required"] == ["$type", "next"]


def test_an_agent_whose_tool_takes_such_a_chain_compiles() -> None:
    agent = compile_agent(one_tool_agent(_chain(CHAIN), "take"))
    (tool,) = agent.definition["tools"]
    assert tool["inputSchema"]["properties"]["first"] == {"$ref": "#/$defs/R0"}
    assert len(tool["inputSchema"]["$defs"]) == 3 * CHAIN + 1


def test_the_walk_over_a_chain_grows_in_proportion_to_it() -> None:
    # Each abstract record's shapes were looked for in every declaration of the program: twice the
    # chain took 3.7 times the steps (2,000 links took 4 s). They are now read in one pass.
    steps = []
    for length in (150, 300):
        linked = program(main(_chain(length)))
        steps.append(python_steps(lambda: function_schema(linked, {"name": "take"})))
    assert steps[1] < 2.3 * steps[0], steps


def _clashing(count: int) -> str:
    # Records whose names differ only in a character a `$defs` key cannot hold: each is keyed `A_`
    # and must take the next free `A__2`, `A__3`...
    records = "".join(f"record A{chr(0x4E00 + i)}\n  n: int required\n\n" for i in range(count))
    fields = "".join(f"  f{i}: A{chr(0x4E00 + i)} required\n" for i in range(count))
    return f"{records}record Many\n{fields}\nfunction take(m: Many): int =\n  1\n"


def test_clashing_definition_keys_are_numbered_in_proportion_to_their_number() -> None:
    answer = function_schema(program(main(_clashing(300))), {"name": "take"})
    keys = list(answer["inputSchema"]["$defs"])
    assert keys == ["Many", "A_"] + [f"A__{n}" for n in range(2, 301)]
    # Each clash looked for a free key from `_2` up: 2,000 records took 3.9 s.
    steps = []
    for count in (150, 300):
        linked = program(main(_clashing(count)))
        steps.append(python_steps(lambda: function_schema(linked, {"name": "take"})))
    assert steps[1] < 2.3 * steps[0], steps
