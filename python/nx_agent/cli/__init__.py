"""The ``nx-agent`` command line (also ``python -m nx_agent``).

One module per command group: :mod:`.demo`, :mod:`.images` (``explain``, ``assemble``, ``link``,
``run``), :mod:`.agents` (``compile``, ``tools``, ``call``), :mod:`.serve` and :mod:`.cost` (``cost
profile``, ``curve``, ``diff``, ``budget``); :mod:`.inputs` reads files and JSON, :mod:`.output`
prints and holds the exit codes. ``--help`` imports no adapter and no
optional dependency.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .._native import __version__
from ..agent.diagnostics import NxAgentError
from ..agent.limits import AgentOptionError
from ..errors import NxError, NxIrError
from . import agents, cost, demo, images, serve
from .output import (
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_MISSING_EXTRA,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Output,
)

__all__ = [
    "EXIT_FAILED", "EXIT_INPUT", "EXIT_INTERRUPTED", "EXIT_MISSING_EXTRA", "EXIT_OK", "EXIT_USAGE", "build_parser", "main",
]

EPILOG = f"""\
output:
  Text for people by default, coloured only when stdout is a terminal and NO_COLOR is unset;
  --json (before or after the command) prints one JSON document on stdout instead. Errors go to
  stderr with their diagnostic code and the file or option they are about (with --json, as
  {{"error": {{"code", "message", "path", "diagnostics"}}}}).

exit codes:
  {EXIT_OK}  done
  {EXIT_FAILED}  the evaluation (run) or the tool call (call) failed with a code
  {EXIT_USAGE}  usage error: unknown command or option, missing argument, bad limit
  {EXIT_INPUT}  bad input: missing or unreadable file, damaged image, bad JSON, images that do not
     link, unknown function or tool, an agent or definition with diagnostics, a port in use
  {EXIT_MISSING_EXTRA}  an optional extra is missing (nx-agent[http] for http tools, nx-agent[mcp] for serve,
     nx-agent[plot] for cost curve --plot)
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C): a long evaluation stops within milliseconds

environment:
  NO_COLOR                     set (not empty): no colour
  NX_AGENT_TOKEN_<CONNECTION>  bearer token of an http tool's connection (call, serve)
  NX_AGENT_HOST_CONFIG         serve's host configuration file

Start with: nx-agent demo, then nx-agent demo --write DIR for files to try every command on.
"""


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="nx-agent",
        description="Compile, inspect and run NX agents and NX IR images.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document for programs")
    parser.add_argument("--version", action="version", version=f"nx-agent {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document for programs"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo.register(commands, [common])
    images.register(commands, [common])
    agents.register(commands, [common])
    serve.register(commands)
    cost.register(commands, [common])
    return parser


def _exit_code(error: NxError) -> int:
    if isinstance(error, CliError):
        return error.exit_code
    if isinstance(error, AgentOptionError):
        return EXIT_USAGE
    if isinstance(error, (NxIrError, NxAgentError)):
        return EXIT_INPUT
    return EXIT_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; answer the exit code."""
    args = build_parser().parse_args(argv)
    out = Output(bool(getattr(args, "json", False)))
    try:
        code: int = args.run(args, out)
    except NxError as error:
        out.error(error)
        return _exit_code(error)
    except KeyboardInterrupt:
        print("nx-agent: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``nx-agent demo | head``): stop quietly.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    return code
