"""Running an :class:`~nx_agent.mcp.server.McpToolServer` over stdio or over streamable HTTP on loopback."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from .server import McpToolServer

__all__ = ["LOOPBACK", "MCP_PATH", "PortUnavailable", "serve_http", "serve_stdio"]

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


async def serve_http(
    tools: McpToolServer,
    *,
    port: int = 8000,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve over streamable HTTP at ``http://127.0.0.1:<port>/mcp`` until interrupted.

    Only the loopback address is bound (with the SDK's DNS-rebinding protection for it); there is
    no authentication, so put an authenticating proxy in front to serve other machines. ``port=0``
    takes a free port; ``on_ready(url)`` is called once the server accepts connections. Raises
    :class:`PortUnavailable` when the port is in use or not allowed.
    """
    import uvicorn

    app = tools.server.streamable_http_app(streamable_http_path=MCP_PATH, host=LOOPBACK)
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
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", log_config=None))
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
