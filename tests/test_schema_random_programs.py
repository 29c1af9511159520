"""Random programs of records, abstract records, unions and markup, written as explain text: a
tool's schema is derived for each, and must come back as an answer (a valid 2020-12 document or
diagnostics with a code), never as another exception, with its `$ref`s all resolving. Compiling
an agent over it must give an agent or an `NxAgentError`. Seeded: the same programs every run."""

from __future__ import annotations

import random
from typing import Any

import pytest

from nx_agent import NxError
from nx_agent.agent import NxAgentError, compile_agent
from nx_agent.schema import check_schema, function_schema

from agent_programs import one_tool_agent
from schema_programs import main, program

PROGRAMS = 600
PRIMITIVES = ("int", "string", "float64", "boolean", "int32", "object", "Element")


def _type(rng: random.Random, names: list[str]) -> str:
    base = rng.choice(PRIMITIVES) if rng.random() < 0.4 or not names else rng.choice(names)
    return base + rng.choice(("", "", "?", "*", "+"))


def _fields(rng: random.Random, names: list[str], inherited: list[str]) -> str:
    # An image flattens inherited fields into each record; now and then one is left out.
    lines = [line for line in inherited if rng.random() < 0.9]
    for i in range(rng.randrange(4)):
        lines.append(f"  f{i}: {_type(rng, names)}" + (" required" if rng.random() < 0.5 else ""))
    return "".join(f"{line}\n" for line in lines)


def random_program(seed: int) -> str:
    rng = random.Random(seed)
    abstracts = [f"A{i}" for i in range(rng.randrange(5))]
    records = [f"R{i}" for i in range(1, rng.randrange(2, 20))]
    unions = [f"U{i}" for i in range(rng.randrange(3))]
    names = abstracts + records + unions + (["Missing"] if rng.random() < 0.1 else [])
    parts = []
    for name in abstracts:
        parts.append(f"record {name} abstract\n  tag: string?\n")
    for name in records:
        base = rng.choice(abstracts) if abstracts and rng.random() < 0.5 else None
        head = f"record {name} extends {base}\n" if base else f"record {name}\n"
        parts.append(head + _fields(rng, names, ["  tag: string?"] if base else []))
    for name in unions:
        base = rng.choice(abstracts) if abstracts and rng.random() < 0.3 else None
        lines = [f"union {name} extends {base}" if base else f"union {name}"]
        for c in range(rng.randrange(1, 4)):
            if rng.random() < 0.5:
                lines.append(f"  case c{c} constant")
            else:
                lines.append(f"  case c{c}")
                lines.extend(f"  {line}" for line in _fields(rng, names, ["  tag: string?"] if base else []).splitlines())
        parts.append("\n".join(lines) + "\n")
    params = ", ".join(f"p{i}: {_type(rng, names)}" for i in range(rng.randrange(1, 4)))
    parts.append(f"function take({params}): {_type(rng, names)} =\n  1\n")
    return "\n".join(parts)


def _refs(value: Any) -> list[str]:
    found: list[str] = []
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            if isinstance(current.get("$ref"), str):
                found.append(current["$ref"])
            pending.extend(current.values())
        elif isinstance(current, list):
            pending.extend(current)
    return found


@pytest.mark.parametrize("chunk", range(3))
def test_every_random_program_gets_an_answer_or_a_code(chunk: int) -> None:
    linked_count = made = 0
    for seed in range(chunk * PROGRAMS // 3, (chunk + 1) * PROGRAMS // 3):
        text = random_program(seed)
        try:
            linked = program(main(text))
        except NxError as refused:
            assert refused.code, seed
            continue
        linked_count += 1
        answer = function_schema(linked, {"name": "take"})
        assert isinstance(answer["diagnostics"], list), seed
        assert all(d["code"].startswith("schema-") for d in answer["diagnostics"]), seed
        for key in ("inputSchema", "outputSchema"):
            document = answer.get(key)
            if document is None:
                assert answer["diagnostics"], (seed, key)
                continue
            made += 1
            assert check_schema(document) == [], (seed, key)
            defs = document.get("$defs", {})
            for ref in _refs(document):
                assert ref.startswith("#/$defs/") and ref[len("#/$defs/"):] in defs, (seed, ref)
        try:
            compile_agent(one_tool_agent(text, "take"))
        except NxAgentError as refused:
            assert refused.diagnostics and all(d.code.startswith("nx-agent-") for d in refused.diagnostics), seed
    # The generator is meant to make programs that link, and schemas, most of the time.
    assert linked_count > PROGRAMS // 3 // 2
    assert made > linked_count // 2
