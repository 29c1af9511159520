"""``nx-agent serve DEFINITION IMAGES...``: a stored agent's tools over MCP (stdio, or streamable
HTTP on loopback with ``--http``), with the host configuration of :mod:`.host_config`.

What the command does with a failed call's reason: the model is told what agent-package §7 allows,
and the full result (code, message, diagnostics, limit) is logged on stderr (logger
``nx_agent.mcp``), with the tool's name and the call id. Every log line goes through
:class:`~nx_agent._log_text.EscapingFormatter`, and the values a client chose (the call id holds
its request id) are quoted and bounded: a newline in a JSON-RPC id cannot start a line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._log_text import EscapingFormatter, quoted
from ..agent.compile import load_agent
from ..agent.limits import (
    NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    NX_AGENT_DEFAULT_MAX_OPERATIONS,
)
from ..errors import NxError, NxIrError
from ..http.connections import RoutedRequest, stored_base_urls, token_env_name
from ..ir import prepare_module
from .host_config import HostConfig, HostConfigError, load_host_config
from .http_settings import SERVE_TOKEN_ENV
from .server import McpCall, McpToolServer, ResultEvent, create_mcp_server
from .transports import serve_http, serve_stdio

__all__ = ["StoredFileError", "build_server", "run_serve"]

_log = logging.getLogger("nx_agent.mcp")


class StoredFileError(NxError):
    """A stored definition or image that ``serve`` cannot read; ``code`` is ``nx-agent-stored-file``
    and ``path`` names the file."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.code = "nx-agent-stored-file"
        self.path = path


def _request_function(definition: Mapping[str, Any], config: HostConfig) -> Any:
    bases = stored_base_urls(definition.get("tools", []))
    unknown = sorted(set(config.connections) - set(bases))
    if unknown:
        raise HostConfigError(
            f"host configuration: connection {', '.join(map(repr, unknown))} is not one of the definition's "
            f"({', '.join(sorted(bases)) or 'none'})"
        )
    if not bases:
        return None
    # A connection with no token is refused unless the configuration says it needs none: a request
    # without the header it needs would fail at the API, call after call, with nothing said here.
    tokenless = [name for name in sorted(bases) if config.token_for(name) is None and not config.needs_no_token(name)]
    if tokenless:
        raise HostConfigError(
            "connection " + ", ".join(map(repr, tokenless)) + " has no bearer token: set "
            + ", ".join(token_env_name(name) for name in tokenless)
            + ", give tokenEnv or tokenFile in the host configuration, or set \"noToken\": true there "
            "for a connection that needs none"
        )
    try:
        from ..http.client import async_request_with
    except ImportError:
        raise HostConfigError("the definition has HTTP tools: install nx-agent[http] (httpx)") from None
    inner = async_request_with(config.token_for, timeout=config.timeout)
    routes = {
        name: (bases[name], connection.base_url)
        for name, connection in config.connections.items()
        if connection.base_url is not None
    }
    return RoutedRequest(inner, routes) if routes else inner


def _log_result(event: ResultEvent) -> None:
    result = event["result"]
    call_id, name = quoted(event["call_id"]), quoted(event["name"])
    if result["ok"]:
        _log.info("call %s of %s: ok, usage %s", call_id, name, json.dumps(result.get("usage", {})))
    else:
        _log.warning("call %s of %s failed: %s", call_id, name, json.dumps(result["error"]))


def _log_to_stderr() -> None:
    """Every record on stderr, one line each (:class:`~nx_agent._log_text.EscapingFormatter`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapingFormatter("nx-agent: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise StoredFileError(path, f"cannot read the file: {error.strerror or error}") from None


def build_server(definition_path: str, image_paths: Sequence[str], config: HostConfig, entry: str) -> McpToolServer:
    """Load the stored agent and put its tools behind an MCP server, as ``serve`` does."""
    text = _read(definition_path).decode("utf-8", errors="replace")
    images = []
    for path in image_paths:
        try:
            images.append(prepare_module(_read(path)))
        except NxIrError as error:
            raise StoredFileError(path, f"{error} [{error.code}]") from None
    try:
        definition = json.loads(text)
    except ValueError as error:
        raise StoredFileError(definition_path, f"the definition is not JSON: {error}") from None
    if not isinstance(definition, dict):
        raise StoredFileError(definition_path, "the definition is not a JSON object")
    limits = config.limits
    agent = load_agent(
        definition,
        images,
        entry=entry,
        request=_request_function(definition, config),
        max_operations=limits.get("max_operations", NX_AGENT_DEFAULT_MAX_OPERATIONS),
        max_arguments_size=limits.get("max_arguments_size", NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE),
        max_context_size=limits.get("max_context_size", NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE),
        runtime={"max_memory": limits["max_memory"]} if "max_memory" in limits else None,
        tool_limits=config.tool_limits,
    )

    def call_id(call: McpCall) -> str:
        return f"{config.call_id_prefix}:{call.sequence}:{call.request_id}"

    from .. import __version__

    return create_mcp_server(
        agent,
        name=str(definition.get("name") or "nx-agent"),
        version=__version__,
        call_id=call_id,
        context=config.context,
        on_result=_log_result,
        max_calls_per_conversation=limits.get("max_calls_per_conversation"),
    )


def _bearer_token(config: HostConfig, no_auth: bool) -> str | None:
    """The token HTTP clients must send; ``None`` with ``--no-auth``. Without either, serving is refused."""
    if no_auth:
        return None
    token = config.http.bearer_token()
    if token is None:
        raise HostConfigError(
            f"serve --http needs the bearer token its clients will send: set {SERVE_TOKEN_ENV}, give http.tokenEnv "
            "or http.tokenFile in the host configuration, or pass --no-auth to serve without authentication"
        )
    return token


def _log_serving(tools: McpToolServer) -> str:
    """Log the provider tools left out; answer the served tools' names."""
    for skipped in tools.skipped:
        _log.info("tool %s (kind %s) is run by a model's provider: not served", skipped.name, skipped.kind)
    return ", ".join(tools.tools) or "none"


def run_serve(args: Any) -> None:
    """Run ``serve`` with parsed arguments (``definition``, ``images``, ``http``, ``port``,
    ``no_auth``, ``host_config``, ``entry``, and ``stateless`` and ``workers`` where given). Raises
    :class:`~nx_agent.mcp.transports.PortUnavailable` when the port cannot be listened on, and
    :class:`HostConfigError` for HTTP with no bearer token and no ``--no-auth``."""
    _log_to_stderr()
    config = load_host_config(args.host_config)
    no_auth = bool(getattr(args, "no_auth", False))
    token = _bearer_token(config, no_auth) if args.http else None
    workers = getattr(args, "workers", 1)
    stateless = getattr(args, "stateless", False)
    # The configuration, the images and the connections' tokens are checked here, once, also for
    # workers (each of which loads the agent again): a worker that cannot start is a CLI error.
    tools = build_server(args.definition, args.images, config, args.entry)
    if args.http and workers > 1:
        # Stateless workers (nx_agent.mcp.workers): each process loads the agent itself and reads
        # the bearer token as this one did.
        from .workers import serve_http_workers

        def announce(url: str) -> None:
            print(f"nx-agent: serving over stateless streamable HTTP at {url} with {workers} workers",
                  file=sys.stderr, flush=True)
            if no_auth:
                _log.warning("clients are not authenticated (--no-auth): any local process can call the tools")

        serve_http_workers(args.definition, list(args.images), host_config=args.host_config, entry=args.entry,
                           workers=workers, port=args.port, on_ready=announce, no_auth=no_auth)
        return
    names = _log_serving(tools)
    if args.http:

        def ready(url: str) -> None:
            mode = "stateless streamable HTTP" if stateless else "streamable HTTP"
            print(f"nx-agent: serving {names} over {mode} at {url}", file=sys.stderr, flush=True)
            if no_auth:
                _log.warning("clients are not authenticated (--no-auth): any local process can call the tools")

        asyncio.run(serve_http(tools, port=args.port, on_ready=ready, token=token, no_auth=no_auth,
                               settings=config.http, stateless=stateless))
    else:
        _log.info("serving %s over stdio", names)
        asyncio.run(serve_stdio(tools))
