"""``nx-agent serve --http --stateless --workers N``: the MCP server in N processes on one port.

Stateless streamable HTTP (the SDK's ``stateless_http``) keeps nothing between requests: no MCP
session, no event stream to resume. So any process, on this machine or behind a load balancer on
another, answers any request of any client, and replicas scale horizontally. It matters for
clients of the handshake protocol versions (2025: ``initialize``, then an ``Mcp-Session-Id`` on
every request): the stateful server (the default) keeps such a session in the one process that
created it and refuses it anywhere else (``Rejected request with unknown or expired session ID``),
so stateful replicas need sticky sessions. A client of the 2026-07-28 protocol keeps no session,
and either server answers it from any replica.

A stateless server has no session to tell one conversation from another, so a tool's
``maxCallsPerConversation`` is counted over all the calls a worker answers (as the stateful server
counts calls that carry no session): the cap is reached sooner, never later. A host that knows its
conversations gives ``create_mcp_server(conversation=...)``. A call's id is made per process
(``<callIdPrefix>-<pid>:<n>:<request id>``), so ids stay unique across workers. A host that adds
per-conversation state must keep it outside the process, or run stateful replicas behind sticky
sessions. Each worker checks the bearer token as ``serve --http`` does, reading it itself from
the environment or the file the host configuration names.

The parent binds the loopback socket once and starts N worker processes (``python -m
nx_agent.mcp.workers``) that inherit it; the kernel hands each new connection to one of them. Each
worker loads the agent itself, from what the parent passes in the environment variable
``NX_AGENT_SERVE``. The parent restarts a worker that dies, and stops them all when it is
interrupted or terminated.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import socket
import sys
from collections.abc import Callable
from typing import Any

from .transports import LOOPBACK, MCP_PATH

__all__ = ["serve_http_workers"]

_ENVIRONMENT = "NX_AGENT_SERVE"


def _app() -> tuple[Any, Any]:
    """One worker's ASGI app (the agent loaded from what the parent passed in ``NX_AGENT_SERVE``,
    served statelessly behind the bearer-token check unless ``--no-auth``) and its HTTP settings.
    The token is read as the parent read it (its environment or file), never passed along."""
    from .command import _bearer_token, _log_serving, build_server
    from .host_config import load_host_config
    from .transports import http_app

    given = json.loads(os.environ[_ENVIRONMENT])
    config = load_host_config(given["host_config"])
    config = dataclasses.replace(config, call_id_prefix=f"{config.call_id_prefix}-{os.getpid()}")
    token = _bearer_token(config, given["no_auth"])
    tools = build_server(given["definition"], given["images"], config, given["entry"])
    _log_serving(tools)
    return http_app(tools, config.http, token, stateless=True), config.http


def _worker(fd: int, ready: int) -> None:
    """A worker's life: serve on the inherited listening socket ``fd`` until terminated, writing
    one byte to the pipe ``ready`` once it accepts connections."""
    import asyncio

    import uvicorn

    from .command import _log_to_stderr
    from .connection_guard import guarded_protocol

    _log_to_stderr()
    listener = socket.socket(fileno=fd)
    app, settings = _app()
    # As serve_http runs one process: uvicorn's records through the escaping formatter, and the
    # connection bounds of the host configuration.
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="on", log_config=None, http=guarded_protocol(settings))
    )

    async def serve() -> None:
        serving = asyncio.ensure_future(server.serve(sockets=[listener]))
        while not server.started and not serving.done():
            await asyncio.sleep(0.01)
        if server.started:
            os.write(ready, b"1")
        os.close(ready)
        await serving

    asyncio.run(serve())


def serve_http_workers(
    definition: str,
    images: list[str],
    *,
    host_config: str | None,
    entry: str,
    workers: int,
    port: int = 8000,
    on_ready: Callable[[str], None] | None = None,
    no_auth: bool = False,
) -> None:
    """Serve statelessly at ``http://127.0.0.1:<port>/mcp`` from ``workers`` processes until
    interrupted or terminated. ``port=0`` takes a free port; ``on_ready(url)`` is called once it is
    bound and every worker accepts connections. Each worker asks for
    the bearer token of the host configuration (or ``NX_AGENT_SERVE_TOKEN``) as ``serve --http``
    does, unless ``no_auth``. Raises ``RuntimeError`` when a worker ends before it is ready, and
    ``KeyboardInterrupt`` once the workers are stopped after SIGINT."""
    import signal
    import subprocess
    import time

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((LOOPBACK, port))
    listener.listen(2048)
    bound = listener.getsockname()[1]
    environment = dict(os.environ)
    environment[_ENVIRONMENT] = json.dumps(
        {"definition": os.path.abspath(definition), "images": [os.path.abspath(p) for p in images],
         "host_config": None if host_config is None else os.path.abspath(host_config), "entry": entry,
         "no_auth": no_auth}
    )
    fd = listener.fileno()
    # Each worker writes a byte here once it accepts connections; on_ready waits for all of them.
    ready_read, ready_write = os.pipe()
    command = [sys.executable, "-m", "nx_agent.mcp.workers", str(fd), str(ready_write)]

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, pass_fds=[fd, ready_write], env=environment, stdin=subprocess.DEVNULL)

    stopping: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        stopping.append(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    processes = [start() for _ in range(workers)]
    try:
        started = 0
        while started < workers and not stopping:
            if select.select([ready_read], [], [], 0.2)[0]:
                started += len(os.read(ready_read, workers))
            elif any(process.poll() is not None for process in processes):
                raise RuntimeError("a worker ended before it accepted connections (its log says why)")
        if on_ready is not None and not stopping:
            on_ready(f"http://{LOOPBACK}:{bound}{MCP_PATH}")
        while not stopping:
            for index, process in enumerate(processes):
                if process.poll() is not None:
                    print(f"nx-agent: worker {process.pid} ended ({process.returncode}); starting another",
                          file=sys.stderr, flush=True)
                    processes[index] = start()
            time.sleep(0.2)
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        listener.close()
        os.close(ready_read)
        os.close(ready_write)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if signal.SIGINT in stopping:
        # As one process stops at Ctrl-C (the command line's exit 130).
        raise KeyboardInterrupt


if __name__ == "__main__":
    _worker(int(sys.argv[1]), int(sys.argv[2]))
