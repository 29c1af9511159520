"""Programs the benchmarks run, as explain text we wrote."""

from __future__ import annotations

from nx_agent import ir

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
