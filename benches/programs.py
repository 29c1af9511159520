"""Programs the benchmarks run, as explain text we wrote."""

from __future__ import annotations

from typing import Any

from nx_agent import create_agent_tools, examples, ir
from nx_agent.agent import compile_agent, load_agent

PRELUDE_LINK = 'links @nx/prelude.nx version "1" fingerprint 16429037828798365428'

SQUARES = f"""\
module bench/squares.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [squares squaresIndexed] components []

function squares() =
  for i in <@nx/prelude.nx:Range end=1000000 endInclusive=false start=0 /> yield
    (i mul i)

function squaresIndexed() =
  for i, at in <@nx/prelude.nx:Range end=1000000 endInclusive=false start=0 /> yield
    (i mul i)
"""

#: ir-format.md §7: `for i in 0..1000000 {{ i * i }}` in an untyped root function. `squares`
#: runs as a fused loop (one integer operator of the loop variable); `squaresIndexed` is the same
#: loop with an index variable it never reads, which the general interpreter runs node by node, at
#: the same charge.
SQUARES_OPERATIONS = 5_000_009


def squares_program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(SQUARES)))


RECHECKS = f"""\
module bench/rechecks.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [viaOwn viaBase viaUnion] components []

record Named abstract
  name: string required

record User extends Named
  name: string required
  age: int required

union Shape
  case circle
    radius: int required
  case square
    side: int required

function nameOf(n: Named) =
  n.name

function ownName(u: User) =
  u.name

function sizeOf(s: Shape) =
  1

function users(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    <User age=i name="x" />

function shapes(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    <Shape.circle radius=i />

function viaOwn(n: int) =
  for u in users(n) yield
    ((ownName(u) concat ownName(u)) concat ownName(u))

function viaBase(n: int) =
  for u in users(n) yield
    ((nameOf(u) concat nameOf(u)) concat nameOf(u))

function viaUnion(n: int) =
  for s in shapes(n) yield
    ((sizeOf(s) add sizeOf(s)) add sizeOf(s))
"""

#: Each record built once and checked three times: `viaOwn` as its own declaration, `viaBase`
#: as its abstract base (a subtype's check), `viaUnion` a union case as its union. The charges
#: are the same whichever way a record is checked; only the work differs.
RECHECKS_OPERATIONS = {"viaOwn": 340_015, "viaBase": 340_015, "viaUnion": 260_015}
RECHECKS_ITEMS = 10_000


def rechecks_program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(RECHECKS)))


HOST_SHAPES = """\
module bench/hostshapes.nx fingerprint 1
entrypoints functions [viaRecord viaBase viaUnion] components []

record Named abstract
  name: string required

record Circle extends Named
  name: string required
  radius: int required

union Shape
  case circle
    name: string required
    radius: int required

function viaRecord(xs: Circle*) =
  for x in xs yield
    x.radius

function viaBase(xs: Named*) =
  for x in xs yield
    x.name

function viaUnion(xs: Shape*) =
  for x in xs yield
    x.radius
"""

#: What each function of HOST_SHAPES is given: 1,000 records where a concrete record, an abstract
#: record (a subtype's `$type`) or a union (a case's `$type`) is declared; "late", the same
#: records with their `$type` last.
HOST_SHAPES_INPUT = {
    "viaRecord": [{"name": f"c{i}", "radius": i} for i in range(1000)],
    "viaBase": [{"$type": "Circle", "name": f"c{i}", "radius": i} for i in range(1000)],
    "viaUnion": [{"$type": "Shape.circle", "name": f"c{i}", "radius": i} for i in range(1000)],
    "viaBase late": [{"name": f"c{i}", "radius": i, "$type": "Circle"} for i in range(1000)],
    "viaUnion late": [{"name": f"c{i}", "radius": i, "$type": "Shape.circle"} for i in range(1000)],
}


def host_shapes_program() -> ir.Program:
    return ir.link_program(ir.prepare_module(ir.assemble(HOST_SHAPES)))


def many_cases_program(cases: int, name_length: int) -> tuple[ir.Program, str]:
    """A union of `cases` cases whose names share all but their last five bytes (`name_length`
    in all), and the name of its last case; `checked(n)` builds that case and checks it as the
    union n times (10 operations per item)."""
    prefix = "c" * (name_length - 5)
    body = "".join(f"  case {prefix}{i:05d}\n    v: int required\n" for i in range(cases))
    last = f"{prefix}{cases - 1:05d}"
    text = f"""module bench/cases.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [checked] components []

union U
{body}
function take(u: U) =
  1

function checked(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    take(<U.{last} v=i />)
"""
    return ir.link_program(ir.prepare_module(ir.assemble(text))), last


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


#: An agent with one evaluation-heavy tool: ``spin(n)`` runs a loop over 0..n whose condition never
#: holds (a product and a comparison per item, about 6 operations each), so it returns ``[]``. The
#: body is nested (an ``if`` in the loop), so the general interpreter runs it, not a fused loop.
SPIN_MODULE = f"""module main.nx fingerprint 1
{PRELUDE_LINK}
links @nx/agent/agent.nx version "b06c00c30be50ada" fingerprint 11527925250760699671
requires ranges-v1 function-values-v1
entrypoints functions [spin root] components []

function spin(n: int): int* =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    if ((i mul i) lt 0) then
      i

function root(): @nx/agent/agent.nx:Agent =
  <@nx/agent/agent.nx:Agent name="spinner" tools=<@nx/agent/agent.nx:FunctionTool function=spin />>
    "Runs the spin tool."
  </@nx/agent/agent.nx:Agent>
"""

#: The doc comments of :data:`SPIN_MODULE`, which its image does not keep.
SPIN_DESCRIPTIONS = {
    "modules": {
        "main.nx": {
            "functions": {
                "spin": {
                    "description": "Computes i * i for each i in 0..n and keeps none of them.",
                    "parameters": {"n": "How many items the loop runs over."},
                }
            }
        }
    }
}


def spin_tool(*, max_operations: int) -> Any:
    """The ``spin`` tool of :data:`SPIN_MODULE`, as a host gets it: the agent compiled, then loaded
    from its stored definition text and images with ``max_operations`` for every call."""
    library = examples.library_text()
    images = {
        "main.nx": ir.assemble(SPIN_MODULE, links=[library]),
        "@nx/agent/agent.nx": ir.assemble(library, version="b06c00c30be50ada", links=[SPIN_MODULE]),
    }
    compiled = compile_agent(images, descriptions=SPIN_DESCRIPTIONS)
    return load_agent(compiled.definition_text, compiled.images, max_operations=max_operations)["spin"]
