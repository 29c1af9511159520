"""The corpus's two agent programs as the agent tests use them.

`agent-library` is the support agent (`main.nx` declares `Plan`, `shop`, `findPlans`,
`lookupOrder`, `openTicket` and `root`); `agent-tool-context` has tools that read a host context
(`whoAmI`, `callIdOf`, `seatCount`), compiled with `context.nx`'s `ChatToolContext` as the host's
context type. The descriptions documents hold the `///` comments of each `main.nx`. Each program
is `None` without the corpus, and `needs_library` / `needs_context` skip a test then.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from agent_support import SCHEMA
from corpus import CorpusProgram, image, programs
from nx_agent import compile_agent, ir
from nx_agent.agent.compile import CompiledAgent

_PROGRAMS = {program.name: program for program in programs()}
LIBRARY: CorpusProgram | None = _PROGRAMS.get("agent-library")
CONTEXT_PROGRAM: CorpusProgram | None = _PROGRAMS.get("agent-tool-context")
needs_library = pytest.mark.skipif(LIBRARY is None, reason="no corpus: see tests/corpus.py")
needs_context = pytest.mark.skipif(CONTEXT_PROGRAM is None, reason="no corpus: see tests/corpus.py")

LIBRARY_DESCRIPTIONS = {
    "modules": {
        "main.nx": {
            "functions": {
                "findPlans": {
                    "description": "Finds the plans that fit a team.",
                    "parameters": {
                        "teamSize": "Number of people who need a seat.",
                        "maxMonthlyPrice": "Upper price limit per month, in dollars.",
                    },
                },
                "lookupOrder": {
                    "description": "Looks up one order and returns its status.",
                    "parameters": {"orderId": "The order number from the customer's confirmation email."},
                },
                "openTicket": {
                    "description": "Opens a support ticket for the customer.",
                    "parameters": {"subject": "A one-line summary of the problem."},
                },
            }
        }
    }
}
# The input schemas the schema export writes for agent-library's functions with those descriptions
# (agent-package §2.5).
LIBRARY_INPUT_SCHEMAS = {
    "findPlans": {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {
            "teamSize": {"type": "integer", "description": "Number of people who need a seat."},
            "maxMonthlyPrice": {"type": "integer", "description": "Upper price limit per month, in dollars."},
        },
        "required": ["teamSize"],
        "additionalProperties": False,
    },
    "lookupOrder": {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {
            "orderId": {"type": "string", "description": "The order number from the customer's confirmation email."}
        },
        "required": ["orderId"],
        "additionalProperties": False,
    },
    "openTicket": {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {"subject": {"type": "string", "description": "A one-line summary of the problem."}},
        "required": ["subject"],
        "additionalProperties": False,
    },
}
CONTEXT_DESCRIPTIONS = {
    "modules": {
        "main.nx": {
            "functions": {
                "whoAmI": {"description": "Says which conversation the call belongs to."},
                "callIdOf": {"description": "Echoes the call's id; any host context will do."},
                "seatCount": {"description": "Counts the seats a team needs, up to a cap."},
            }
        }
    }
}
CHAT_TOOL_CONTEXT = {"module": "context.nx", "name": "ChatToolContext"}
"""The host's context type `agent-tool-context` is compiled with."""


def program_images(program: CorpusProgram) -> dict[str, bytes]:
    """Every module of a corpus program as an image, assembled from its explain text."""
    return {identity: image(program, module) for identity, module in program.modules.items()}


def link_main(images: Mapping[str, bytes]) -> ir.Program:
    """The program linked from its images, `main.nx` the entry."""
    modules = {identity: ir.prepare_module(data) for identity, data in images.items()}
    return ir.link_program(modules["main.nx"], modules)


def recorded(program: CorpusProgram, name: str) -> Any:
    """A JSON file the corpus records for the program (`results.json`, `operations.json`)."""
    return json.loads((program.path / "expected" / name).read_text(encoding="utf-8"))


def compile_context_agent() -> CompiledAgent:
    """`agent-tool-context` compiled with its descriptions and the chat context type."""
    assert CONTEXT_PROGRAM is not None
    return compile_agent(
        program_images(CONTEXT_PROGRAM), descriptions=CONTEXT_DESCRIPTIONS, tool_context_type=CHAT_TOOL_CONTEXT
    )
