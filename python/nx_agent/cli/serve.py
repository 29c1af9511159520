"""``nx-agent serve``: a stored agent's tools over MCP (the work is in :mod:`nx_agent.mcp.command`).

The stored files are read and linked here first, so that a missing or damaged file, or images that
do not link, are reported as every other command reports them (the file named, exit 3), before
the ``mcp`` extra is imported."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .agents import read_definition
from .inputs import link_checked, read_images
from .output import EXIT_INPUT, EXIT_MISSING_EXTRA, EXIT_OK, EXIT_USAGE, CliError, Output

DEFAULT_PORT = 8000


def _port(args: argparse.Namespace) -> int:
    if args.port is None:
        return DEFAULT_PORT
    if not args.http:
        raise CliError("only --http listens on a port (stdio has none)", code="nx-agent-cli-usage", path="--port",
                       exit_code=EXIT_USAGE)
    text = args.port
    if not (text.isascii() and text.isdigit() and int(text) <= 65535):
        raise CliError(f"must be a port number from 0 to 65535 (0: any free port), got {text!r}",
                       code="nx-agent-cli-usage", path="--port", exit_code=EXIT_USAGE)
    return int(text)


def _cmd_serve(args: argparse.Namespace, out: Output) -> int:
    port = _port(args)
    if args.workers < 1 or (args.workers > 1 and not (args.http and args.stateless)):
        raise CliError(
            "--workers N (N > 1) needs --http --stateless: a stateful session lives in the one process "
            "that created it, so several processes need sticky sessions, which one port cannot give",
            code="nx-agent-cli-usage",
            path="--workers",
            exit_code=EXIT_USAGE,
        )
    if args.no_auth and not args.http:
        raise CliError("only --http authenticates its clients (stdio has none to turn off)", code="nx-agent-cli-usage",
                       path="--no-auth", exit_code=EXIT_USAGE)
    read_definition(args.definition)
    link_checked(read_images(args.images), args.entry)
    try:
        from ..mcp.command import run_serve
        from ..mcp.transports import PortUnavailable
    except ImportError as error:
        raise CliError(
            f"serve needs the mcp extra: pip install 'nx-agent[mcp]' ({error})",
            code="nx-agent-cli-missing-extra",
            exit_code=EXIT_MISSING_EXTRA,
        ) from None
    try:
        run_serve(argparse.Namespace(**{**vars(args), "port": port}))
    except PortUnavailable as error:
        raise CliError(f"{error.strerror} (choose another with --port, or 0 for any free port)",
                       code="nx-agent-cli-port", path="--port", exit_code=EXIT_INPUT) from None
    return EXIT_OK


def register(commands: Any, common: Sequence[argparse.ArgumentParser] = ()) -> None:
    """Add ``serve`` to the subcommands."""
    serve = commands.add_parser(
        "serve",
        help="serve a stored agent's tools over MCP (stdio; streamable HTTP on loopback with --http)",
        description="Serve the tools of a stored agent over MCP (needs nx-agent[mcp]). Contexts, tokens "
        "and base URL overrides come from a host configuration: a JSON file named by --host-config or "
        "NX_AGENT_HOST_CONFIG (see nx_agent.mcp.host_config); tokens also from NX_AGENT_TOKEN_<CONNECTION>. "
        "A connection without a token is refused unless the host configuration says it needs none. "
        "--http listens on 127.0.0.1 only, and every request must carry 'Authorization: Bearer <token>' "
        "with the token in NX_AGENT_SERVE_TOKEN (or the host configuration's http.tokenEnv/tokenFile); "
        "--no-auth serves without it.",
    )
    serve.add_argument("definition", help="the stored definition (JSON)")
    serve.add_argument("images", nargs="+", help="the stored NX IR images")
    serve.add_argument("--http", action="store_true", help="streamable HTTP on 127.0.0.1 instead of stdio")
    serve.add_argument("--port", metavar="N",
                       help=f"with --http: the port (default {DEFAULT_PORT}; 0: any free port)")
    serve.add_argument("--no-auth", action="store_true",
                       help="with --http: serve without authentication (any local process can call the tools)")
    serve.add_argument("--host-config", help="host configuration file (default: $NX_AGENT_HOST_CONFIG)")
    serve.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    # Horizontal scaling (nx_agent.mcp.workers).
    serve.add_argument("--stateless", action="store_true",
                       help="with --http: the SDK's stateless mode (no session; any replica answers any request)")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="with --http --stateless: N processes on the one port (default 1)")
    serve.set_defaults(run=_cmd_serve)
