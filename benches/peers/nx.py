"""nx-agent: the workloads as NX programs (explain text we wrote) and the corpus's findPlans."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from nx_agent import examples, ir

from . import workloads

PRELUDE_LINK = 'links @nx/prelude.nx version "1" fingerprint 16429037828798365428'

#: Workloads 2 and 3: `for i in 0..n { i * i }` and `for i in 0..n { "item " + i }` (the checker
#: wraps the int in a text conversion). Both loops run fused (a loop body the evaluator runs
#: without its general per-node path); `itemsGeneral` is the items loop with an index variable
#: it never reads, which the fused path does not take: the same items and operations, through
#: the general interpreter. Workload 5's `spin` is an agent tool: benches/programs.py.
LOOPS = f"""\
module bench/loops.nx fingerprint 1
{PRELUDE_LINK}
requires ranges-v1
entrypoints functions [squares items itemsGeneral] components []

function squares(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (i mul i)

function items(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("item " concat text<int>(i))

function itemsGeneral(n: int) =
  for i, at in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("item " concat text<int>(i))
"""


def loops_program() -> ir.Program:
    """The loop workloads, linked."""
    return ir.link_program(ir.prepare_module(ir.assemble(LOOPS)))


def corpus_images() -> dict[str, bytes]:
    """The images of the corpus program `agent-library`, assembled from its explain texts as
    `tests/corpus.py` does. Without the corpus, the bundled support agent's images: its `main.nx`
    is the same explain text as the corpus program's but for the module fingerprint, so the
    functions measured are the same."""
    tests = Path(__file__).resolve().parents[2] / "tests"
    if str(tests) not in sys.path:
        sys.path.insert(0, str(tests))
    from corpus import image, programs  # type: ignore[import-not-found]

    found = [p for p in programs() if p.name == "agent-library"]
    if not found:
        return examples.support_images()
    return {identity: image(found[0], module) for identity, module in found[0].modules.items()}


def agent_library_program() -> ir.Program:
    """The corpus program `agent-library`, linked."""
    modules = {identity: ir.prepare_module(data) for identity, data in corpus_images().items()}
    return ir.link_program(modules["main.nx"], modules)


SMALL_LIMITS = ir.Limits(max_operations=workloads.SMALL_BUDGET)


def find_plans(program: ir.Program, team_size: int) -> ir.Evaluation:
    """Workload 1: one metered call of `findPlans`."""
    return ir.evaluate_function(program, "findPlans", (team_size,), limits=SMALL_LIMITS)


def loop(program: ir.Program, name: str, n: int) -> ir.Evaluation:
    """Workloads 2 and 3: one metered call of a loop function."""
    return ir.evaluate_function(program, name, (n,), max_operations=workloads.loop_budget(n))


#: The work-tool workloads (issue 19): explain text the oracle's workloads-bench also times.
WORKLOADS_TEXT = Path(__file__).resolve().parents[1] / "programs" / "workloads.nxir.txt"


def workloads_program() -> ir.Program:
    """benches/programs/workloads.nxir.txt, linked."""
    return ir.link_program(ir.prepare_module(ir.assemble(WORKLOADS_TEXT.read_text(encoding="utf-8"))))


def work(program: ir.Program, name: str, arg: Any, n: int) -> ir.Evaluation:
    """One metered call of a work-tool workload over n items (budget 400 n + 1,000)."""
    return ir.evaluate_function(program, name, (arg,), max_operations=workloads.loop_budget(n))


#: The node-kind loops (issue 19): benches/programs/kinds.nxir.txt.
KINDS_TEXT = Path(__file__).resolve().parents[1] / "programs" / "kinds.nxir.txt"


def kinds_program() -> ir.Program:
    """benches/programs/kinds.nxir.txt, linked."""
    return ir.link_program(ir.prepare_module(ir.assemble(KINDS_TEXT.read_text(encoding="utf-8"))))


def node_kind(program: ir.Program, name: str, n: int) -> ir.Evaluation:
    """One metered call of the node-kind loop `name` over n items (budget 400 n + 1,000)."""
    args = (n, workloads.KINDS_PAIR) if name == "member" else (n,)
    return ir.evaluate_function(program, name, args, max_operations=workloads.loop_budget(n))
