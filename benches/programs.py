"""Programs the benchmarks run, as explain text we wrote."""

from __future__ import annotations

from typing import Any

from nx_agent import create_agent_tools, examples, ir

PRELUDE_LINK = 'links @nx/prelude.nx version "1" fingerprint 16429037828798365428'

SQUARES = f"""\
module bench/squares.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [squares] components []

function squares() =
  for i in <@nx/prelude.nx:Range end=1000000 endInclusive=false start=0 /> yield
    (i mul i)
"""

#: ir-format.md §7: `for i in 0..1000000 {{ i * i }}` in an untyped root function.
SQUARES_OPERATIONS = 5_000_009


def squares_program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(SQUARES)))


#: A context tool: ``whoAmI(context: ChatToolContext)`` answers the context's conversation id.
CONTEXT_MODULE = """module main.nx fingerprint 1
links @nx/agent/agent.nx version "b06c00c30be50ada" fingerprint 11527925250760699671
entrypoints functions [whoAmI] components []

record ChatToolContext extends @nx/agent/agent.nx:ToolContext
  callId: string required
  conversationId: string required

function whoAmI(context: ChatToolContext): string =
  context.conversationId
"""


def context_tool() -> tuple[Any, ir.Program]:
    """The ``who_am_i`` agent tool over :data:`CONTEXT_MODULE`, and its program."""
    library = examples.library_text()
    modules = {
        "main.nx": ir.prepare_module(ir.assemble(CONTEXT_MODULE, links=[library])),
        "@nx/agent/agent.nx": ir.prepare_module(
            ir.assemble(library, version="b06c00c30be50ada", links=[CONTEXT_MODULE])
        ),
    }
    program = ir.link_program(modules["main.nx"], modules)
    tool = {
        "name": "who_am_i",
        "description": "Says which conversation the call belongs to.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        "kind": "function",
        "config": {
            "function": {"module": "main.nx", "name": "whoAmI"},
            "contextParameters": [{"name": "context", "type": {"module": "main.nx", "name": "ChatToolContext"}}],
        },
    }
    return create_agent_tools([tool], program)[0], program
