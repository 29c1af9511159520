"""Schemas of images from strangers: deriving a tool's JSON Schema walks the types an image
declares, and an image can declare them in any number and shape. The walk must finish with the
compiler's answer, or refuse with a code, in work and memory in proportion to the image."""

from __future__ import annotations

from typing import Any

from nx_agent.agent import compile_agent
from nx_agent.schema import function_schema

from agent_programs import one_tool_agent
from schema_programs import main, program

#: Far past Python's recursion limit (1,000 frames): a walk that recursed per record would fail.
CHAIN = 2_000


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
