"""A schema-6 agent with constrained parameters, for the tests of the tools built on it.

Our own NX, written as explain text and assembled as schema 6 with the bundled `@nx/agent`
library (itself assembled as schema 6): `book(nights: int where in 1..=14, guests: int where in
1..=10)` returns a `Booking`, and `dim(level: float32 where > 0.0 && < 1.0, fade?: ...)` a float
bounded the same way. Their schemas are what the mapping of schema-6.md gives; the expected
values in the tests are written from those rules.
"""

from __future__ import annotations

from typing import Any

from nx_agent import examples, ir
from nx_agent.agent import CompiledAgent, compile_agent

AGENT = "@nx/agent/agent.nx"
AGENT_VERSION = examples.AGENT_LIBRARY[2]

MAIN = f"""module main.nx fingerprint 6101
links {AGENT} version "{AGENT_VERSION}" fingerprint 11527925250760699671
requires function-values-v1 constraints-v1
entrypoints functions [book dim root] components []

record Booking
  nights: int where in 1..=14 required
  guests: int where in 1..=10 required

function book(nights: int where in 1..=14, guests: int where in 1..=10): Booking =
  <Booking guests=guests nights=nights />

function dim(level: float32 where > 0.0 && < 1.0, fade?: (float64 where >= 0.0 && <= 10.0)): float32 where > 0.0 && < 1.0 =
  level

value bookingTools: {AGENT}:Tool+ =
  [<{AGENT}:FunctionTool function=book />, <{AGENT}:FunctionTool function=dim />]

value bookingAgent =
  <{AGENT}:Agent model="balanced" name="booking" tools=bookingTools>
    "You book rooms and set the lights."
  </{AGENT}:Agent>

function root(): {AGENT}:Agent =
  bookingAgent
"""

DESCRIPTIONS: dict[str, Any] = {
    "modules": {
        "main.nx": {
            "functions": {
                "book": {
                    "description": "Books a stay.",
                    "parameters": {"nights": "How many nights.", "guests": "How many guests."},
                },
                "dim": {"description": "Dims the lights.", "parameters": {"level": "The brightness, above 0 and below 1."}},
            }
        }
    }
}

# What schema-6.md's rules give for the two tools' parameters.
BOOK_INPUT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "nights": {"type": "integer", "minimum": 1, "maximum": 14, "description": "How many nights."},
        "guests": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many guests."},
    },
    "required": ["nights", "guests"],
    "additionalProperties": False,
}
DIM_LEVEL = {"type": "number", "minimum": 2**-149, "maximum": 1 - 2**-24, "description": "The brightness, above 0 and below 1."}
DIM_FADE = {"type": "number", "minimum": 0, "maximum": 10}


def images() -> dict[str, bytes]:
    """The agent's images, both schema 6."""
    texts = {"main.nx": MAIN, AGENT: examples.library_text()}
    versions = {AGENT: AGENT_VERSION}
    return {
        identity: ir.assemble(text, schema=6, version=versions.get(identity, ""), links=[t for i, t in texts.items() if i != identity])
        for identity, text in texts.items()
    }


def compiled() -> CompiledAgent:
    return compile_agent(images(), descriptions=DESCRIPTIONS)
