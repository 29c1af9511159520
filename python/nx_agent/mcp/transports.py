"""Running an :class:`~nx_agent.mcp.server.McpToolServer` over stdio or over streamable HTTP on loopback.

Over HTTP, in the order a request meets them: the connection bounds of
:mod:`.connection_guard` (head and body deadlines, a cap on connections), the bearer token of
:mod:`.auth`, the opening-request check of :mod:`.sessions`, then the SDK's session manager
(with the session caps and body limit of :class:`~.http_settings.HttpSettings`) and the tools.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from typing import Any

from .http_settings import HttpSettings
from .server import McpToolServer

__all__ = ["LOOPBACK", "MCP_PATH", "PortUnavailable", "http_app", "serve_http", "serve_stdio"]

LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"


class PortUnavailable(OSError):
    """The loopback port cannot be listened on (in use, or not allowed); ``errno`` and ``strerror``
    are the system's."""

    def __init__(self, port: int, error: OSError) -> None:
        super().__init__(error.errno, f"cannot listen on {LOOPBACK}:{port}: {error.strerror or error}")
        self.port = port


async def serve_stdio(tools: McpToolServer) -> None:
    """Serve over the process's stdin and stdout until stdin closes."""
    from mcp.server.stdio import stdio_server

    server = tools.server
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http_app(tools: McpToolServer, settings: HttpSettings, token: str | None, *, stateless: bool = False) -> Any:
    """The ASGI app :func:`serve_http` runs: the SDK's streamable HTTP app with its session caps
    and body limit from ``settings``, behind the opening-request check (not ``stateless``: then
    there are no sessions, and any request may come first) and, with a ``token``, the
    bearer-token check. The connection bounds are uvicorn's (:func:`serve_http`)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from .auth import BearerAuth
    from .sessions import OpeningRequests

    app: Any = tools.server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=LOOPBACK,
        max_request_body_size=settings.max_request_body_size,
        session_idle_timeout=settings.session_idle_timeout,
        max_sessions=settings.max_sessions,
        stateless_http=stateless,
    )
    if not stateless:
        app = OpeningRequests(
            app,
            path=MCP_PATH,
            handshake_versions=frozenset(HANDSHAKE_PROTOCOL_VERSIONS),
            max_body_size=settings.max_request_body_size,
        )
    return BearerAuth(app, token) if token is not None else app


async def serve_http(
    tools: McpToolServer,
    *,
    port: int = 8000,
    on_ready: Callable[[str], None] | None = None,
    token: str | None = None,
    no_auth: bool = False,
    settings: HttpSettings | None = None,
    stateless: bool = False,
) -> None:
    """Serve over streamable HTTP at ``http://127.0.0.1:<port>/mcp`` until interrupted.

    Only the loopback address is bound (with the SDK's DNS-rebinding protection for it). Every
    request must carry ``Authorization: Bearer <token>`` (:mod:`.auth`); serving without
    authentication takes ``no_auth=True``, said explicitly (and then ``token`` must be ``None``).
    ``settings`` bounds connections, requests and sessions (default
    :class:`~.http_settings.HttpSettings`: see it for each default). ``port=0`` takes a free port;
    ``on_ready(url)`` is called once the server accepts connections. ``stateless=True`` is the
    SDK's stateless mode: no session, any replica answers any request (:mod:`nx_agent.mcp.workers`).
    Raises
    :class:`PortUnavailable` when the port is in use or not allowed, ``ValueError`` with neither
    a token nor ``no_auth``.
    """
    import uvicorn

    from .connection_guard import guarded_protocol

    if no_auth and token is not None:
        raise ValueError("give a bearer token or no_auth=True, not both")
    if not no_auth and not token:
        raise ValueError("serve_http needs the bearer token its clients send (token=...), or no_auth=True")
    settings = settings if settings is not None else HttpSettings()
    app = http_app(tools, settings, token, stateless=stateless)
    if not 0 <= port <= 65535:
        raise ValueError(f"port must be from 0 to 65535, got {port}")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((LOOPBACK, port))
    except OSError as error:
        listener.close()
        raise PortUnavailable(port, error) from None
    bound = listener.getsockname()[1]
    # log_config=None: uvicorn's records go to the host's logging as they are (serve's escapes them).
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", log_config=None, http=guarded_protocol(settings)
    )
    server = uvicorn.Server(config)
    serving = asyncio.ensure_future(server.serve(sockets=[listener]))
    try:
        while not server.started:
            if serving.done():
                break
            await asyncio.sleep(0.01)
        if server.started and on_ready is not None:
            on_ready(f"http://{LOOPBACK}:{bound}{MCP_PATH}")
        await serving
    finally:
        if not serving.done():
            server.should_exit = True
            await serving
        listener.close()
