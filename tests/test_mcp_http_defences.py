"""The MCP server over streamable HTTP against clients that do not play fair (issue 15, "Server and
client"): `serve_http` runs in this process on a free loopback port, with bounds set small, and is
spoken to with raw sockets (to trickle, stall and pile up connections) and with the SDK's client.

- a request head trickled a byte at a time is cut off at ``header_timeout`` (``408``, closed);
- a request body trickled after its head is cut off at ``body_timeout``;
- a connection past ``max_connections`` is answered ``503`` and closed; the others stay open;
- a session is made only for an ``initialize`` read whole: requests stalled in their body, or
  whose body is no such request, make none, so they cannot fill the session table;
- ``max_sessions`` and ``session_idle_timeout`` bound the session table;
- every request needs the bearer token (``401`` and a log line otherwise); ``serve --http``
  refuses to start without one, and ``--no-auth`` says so explicitly;
- ``maxCallsPerConversation`` counts per MCP session.

Assertions are on states (what was answered, what is open, how many sessions exist), never on
durations: a test waits for a state by polling up to a bound far above what it takes, and fails
when the state is not reached.
"""

from __future__ import annotations

import asyncio
import json
import logging
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from polling import eventually

from mcp import Client
from mcp_support import SERVE_TOKEN, authorized, http_server, serve_args, server_env, write_config, write_support_agent
from nx_agent.mcp import create_mcp_server
from nx_agent.mcp.http_settings import HttpSettings
from nx_agent.mcp.transports import serve_http
from test_mcp_server import support_tools

POLL_BOUND_SECONDS = 15.0
AUTH = f"authorization: Bearer {SERVE_TOKEN}\r\n"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}



@dataclass
class Running:
    url: str
    port: int
    tools: Any

    def sessions(self) -> int:
        """The sessions the SDK's session manager holds (its table: private, read here to count)."""
        return len(self.tools.server._session_manager._server_instances)


@contextmanager
def serving(settings: HttpSettings, **options: Any) -> Iterator[Running]:
    """`serve_http` with ``settings`` on a thread of its own, until the block ends."""
    tools = create_mcp_server(support_tools(), **options)
    ready = threading.Event()
    url: list[str] = []
    loop = asyncio.new_event_loop()

    def on_ready(address: str) -> None:
        url.append(address)
        ready.set()

    task = loop.create_task(serve_http(tools, port=0, on_ready=on_ready, token=SERVE_TOKEN, settings=settings))
    thread = threading.Thread(target=lambda: loop.run_until_complete(asyncio.gather(task, return_exceptions=True)), daemon=True)
    thread.start()
    try:
        assert ready.wait(30), "the server did not start"
        yield Running(url[0], int(url[0].rsplit(":", 1)[1].split("/")[0]), tools)
    finally:
        loop.call_soon_threadsafe(task.cancel)
        thread.join(30)


def connect(running: Running) -> socket.socket:
    return socket.create_connection(("127.0.0.1", running.port), timeout=POLL_BOUND_SECONDS)


def closed_with(sock: socket.socket) -> bytes | None:
    """What the server sent before closing ``sock``, or ``None`` while it is open (not waiting)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return None
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    except ConnectionError:
        return data


def trickle(sock: socket.socket, payload: bytes, interval: float = 0.05) -> tuple[int, bytes | None]:
    """Send ``payload`` a byte every ``interval`` until the server closes: how many bytes went, and
    what the server answered (``None``: it never closed)."""
    for sent in range(len(payload)):
        answer = closed_with(sock)
        if answer is not None:
            return sent, answer
        try:
            sock.sendall(payload[sent : sent + 1])
        except (BrokenPipeError, ConnectionResetError):
            return sent, b""
        time.sleep(interval)
    return len(payload), closed_with(sock)


# ---- head and body deadlines, the connection cap -----------------------------------------------

SLOW = HttpSettings(header_timeout=0.5, body_timeout=0.5)


def test_a_trickled_request_head_is_cut_off() -> None:
    with serving(SLOW) as running, connect(running) as sock:
        head = f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{running.port}\r\n{AUTH}".encode() + b"x-slow: " + b"a" * 200
        sent, answer = trickle(sock, head)
    # 200 bytes at one per 50 ms would take 10 s: the head deadline ends it long before.
    assert answer is not None and answer.startswith(b"HTTP/1.1 408 "), answer
    assert sent < len(head)


def test_an_idle_connection_is_cut_off() -> None:
    with serving(SLOW) as running, connect(running) as sock:
        assert eventually(lambda: closed_with(sock) is not None, POLL_BOUND_SECONDS)


def test_a_trickled_request_body_is_cut_off() -> None:
    body = json.dumps(INITIALIZE).encode()
    with serving(SLOW) as running, connect(running) as sock:
        sock.sendall(
            f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{running.port}\r\n{AUTH}content-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        )
        sent, answer = trickle(sock, body)
        assert running.sessions() == 0
    assert answer is not None and answer.startswith(b"HTTP/1.1 408 "), answer
    assert sent < len(body)


def test_connections_past_the_cap_are_refused_and_the_rest_kept() -> None:
    settings = HttpSettings(max_connections=3, header_timeout=60)
    with serving(settings) as running:
        held = [connect(running) for _ in range(3)]
        try:
            with connect(running) as extra:
                assert eventually(lambda: closed_with(extra) is not None, POLL_BOUND_SECONDS)
                extra.settimeout(POLL_BOUND_SECONDS)
            # The three are still open; one closing makes room for another.
            assert all(closed_with(sock) is None for sock in held)
            held.pop().close()

            def served() -> bool:
                with connect(running) as room:
                    room.sendall(
                        f"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:{running.port}\r\n{AUTH}mcp-session-id: none\r\n\r\n".encode()
                    )
                    return room.recv(12) == b"HTTP/1.1 404"  # served (no such session), not refused

            assert eventually(served, POLL_BOUND_SECONDS)
        finally:
            for sock in held:
                sock.close()


def test_the_connection_refused_past_the_cap_is_answered_503() -> None:
    with serving(HttpSettings(max_connections=1, header_timeout=60)) as running:
        with connect(running) as first, connect(running) as second:
            answer: list[bytes] = []
            assert eventually(lambda: bool(answer.append(closed_with(second) or b"") or answer[-1]), POLL_BOUND_SECONDS)
            assert answer[-1].startswith(b"HTTP/1.1 503 ") and answer[-1].endswith(b"Too many connections")
            assert closed_with(first) is None


# ---- sessions -----------------------------------------------------------------------------------


def raw_post(running: Running, body: bytes, headers: str = "") -> tuple[int, dict[str, str], bytes]:
    with connect(running) as sock:
        sock.sendall(
            f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{running.port}\r\n{AUTH}content-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\nconnection: close\r\n{headers}"
            f"content-length: {len(body)}\r\n\r\n".encode() + body
        )
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in fields.items()}, rest


def test_requests_stalled_in_their_body_hold_no_session() -> None:
    body = json.dumps(INITIALIZE).encode()
    with serving(HttpSettings(max_sessions=2, header_timeout=60, body_timeout=60)) as running:
        stalled = [connect(running) for _ in range(3)]
        try:
            for sock in stalled:
                sock.sendall(
                    f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{running.port}\r\n{AUTH}content-type: application/json\r\n"
                    f"accept: application/json, text/event-stream\r\ncontent-length: {len(body)}\r\n\r\n".encode()
                    + body[:10]
                )
            # A request that is no initialize, or no JSON, is refused and makes no session.
            assert raw_post(running, b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}')[0] == 400
            assert raw_post(running, b"{not json")[0] == 400
            assert running.sessions() == 0
            # With three requests stalled, both sessions of the cap are still there to open.
            opened = [raw_post(running, body) for _ in range(2)]
            assert [status for status, _, _ in opened] == [200, 200]
            assert all("mcp-session-id" in headers for _, headers, _ in opened)
            assert running.sessions() == 2
            # The cap holds.
            assert raw_post(running, body)[0] == 503
            assert all(closed_with(sock) is None for sock in stalled)
        finally:
            for sock in stalled:
                sock.close()


def test_a_get_or_delete_without_a_session_makes_none() -> None:
    with serving(HttpSettings()) as running:
        for method in ("GET", "DELETE"):
            with connect(running) as sock:
                sock.sendall(f"{method} /mcp HTTP/1.1\r\nhost: 127.0.0.1:{running.port}\r\n{AUTH}accept: text/event-stream\r\n\r\n".encode())
                assert sock.recv(12) == b"HTTP/1.1 400"
        assert running.sessions() == 0


def test_an_idle_session_is_closed() -> None:
    body = json.dumps(INITIALIZE).encode()
    with serving(HttpSettings(session_idle_timeout=0.5)) as running:
        status, headers, _ = raw_post(running, body)
        assert status == 200 and running.sessions() == 1
        assert eventually(lambda: running.sessions() == 0, POLL_BOUND_SECONDS)
        ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
        assert raw_post(running, ping, f"mcp-session-id: {headers['mcp-session-id']}\r\nmcp-protocol-version: 2025-06-18\r\n")[0] == 404


def test_a_body_over_the_cap_is_refused_unread() -> None:
    with serving(HttpSettings(max_request_body_size=1000)) as running:
        padded = dict(INITIALIZE, padding="x" * 2000)
        assert raw_post(running, json.dumps(padded).encode())[0] == 413
        assert running.sessions() == 0


# ---- authentication -----------------------------------------------------------------------------


def test_requests_without_the_token_are_refused_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    body = json.dumps(INITIALIZE).encode()
    with caplog.at_level(logging.WARNING, logger="nx_agent.mcp"), serving(HttpSettings()) as running:
        for authorization in ("", "authorization: Bearer s3cret-guess\r\n", "authorization: Basic dG9rOg==\r\n"):
            with connect(running) as sock:
                sock.sendall(
                    f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{running.port}\r\n{authorization}content-type: application/json\r\n"
                    f"content-length: {len(body)}\r\n\r\n".encode() + body
                )
                data = b""
                while chunk := sock.recv(65536):
                    data += chunk
            assert data.startswith(b"HTTP/1.1 401 ") and b"www-authenticate: Bearer" in data.lower().replace(b"bearer", b"Bearer")
        assert running.sessions() == 0

        async def listed() -> list[str]:
            async with Client(authorized(running.url)) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        assert anyio.run(listed) == ["find_plans", "lookup_order", "open_ticket"]
    refusals = [record.getMessage() for record in caplog.records if record.getMessage().startswith("refused a request")]
    assert [message.rsplit(": ", 1)[1] for message in refusals] == [
        "no authorization header",
        "a wrong bearer token",
        "an authorization that is not a bearer token",
    ]
    # The address, method and path are logged; what was sent as a token never is.
    assert all('("POST" "/mcp")' in message and "s3cret" not in message and "dG9r" not in message for message in refusals)


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import hmac

    from nx_agent.mcp import auth

    compared: list[tuple[int, int]] = []
    original = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((len(a), len(b)))
        return original(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    guard = auth.BearerAuth(lambda scope, receive, send: None, "a-token")  # type: ignore[arg-type,return-value]
    for given in (b"Bearer a-token", b"Bearer a", b"Bearer " + b"x" * 500):
        guard._admits({"headers": [(b"authorization", given)]})
    # Digests of equal length, whatever the length of what was sent.
    assert compared == [(32, 32)] * 3


def test_serve_refuses_http_without_a_token_unless_told_no_auth(tmp_path: Path) -> None:
    definition, images, _ = write_support_agent(tmp_path)
    env = {**server_env(), "NX_AGENT_TOKEN_SHOP": "tok"}
    del env["NX_AGENT_SERVE_TOKEN"]
    done = subprocess.run(
        [sys.executable, *serve_args(definition, images, None), "--http", "--port", "0"],
        env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 3, done.stderr
    assert "NX_AGENT_SERVE_TOKEN" in done.stderr and "--no-auth" in done.stderr and "[nx-agent-host-config]" in done.stderr
    stdio = subprocess.run(
        [sys.executable, *serve_args(definition, images, None), "--no-auth"],
        env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
    )
    assert stdio.returncode == 2 and "--no-auth" in stdio.stderr


def no_shop_token(directory: Path) -> Path:
    return write_config(directory, "host.json", {"connections": {"shop": {"noToken": True}}})


def test_serve_no_auth_serves_anyone_and_says_so(tmp_path: Path) -> None:
    definition, images, _ = write_support_agent(tmp_path)
    lines: list[str] = []
    with http_server(definition, images, no_shop_token(tmp_path), extra=("--no-auth",), lines=lines) as url:
        async def listed() -> list[str]:
            async with Client(url) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        assert anyio.run(listed) == ["find_plans", "lookup_order", "open_ticket"]
    assert any("not authenticated (--no-auth)" in line for line in lines)


def test_serve_with_a_token_refuses_a_client_without_it(tmp_path: Path) -> None:
    definition, images, _ = write_support_agent(tmp_path)
    with http_server(definition, images, no_shop_token(tmp_path)) as url:
        assert httpx2.post(url, json=INITIALIZE).status_code == 401
        async def listed() -> list[str]:
            async with Client(authorized(url)) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        assert anyio.run(listed) == ["find_plans", "lookup_order", "open_ticket"]


# ---- maxCallsPerConversation per session ----------------------------------------------------------


def test_calls_are_counted_per_mcp_session() -> None:
    with serving(HttpSettings()) as running:
        async def session() -> list[bool]:
            async with Client(authorized(running.url), mode="legacy") as client:
                return [(await client.call_tool("open_ticket", {"subject": "Refund"})).is_error for _ in range(2)]

        # open_ticket is stored with maxCallsPerConversation 1: once per session.
        assert anyio.run(session) == [False, True]
        assert anyio.run(session) == [False, True]


def test_a_stateless_app_has_no_opening_check_and_keeps_the_token() -> None:
    from nx_agent.mcp.auth import BearerAuth
    from nx_agent.mcp.sessions import OpeningRequests
    from nx_agent.mcp.transports import http_app

    stateful = http_app(create_mcp_server(support_tools()), HttpSettings(), "tok")
    stateless = http_app(create_mcp_server(support_tools()), HttpSettings(), "tok", stateless=True)
    assert isinstance(stateful, BearerAuth) and isinstance(stateful.app, OpeningRequests)
    assert isinstance(stateless, BearerAuth) and not isinstance(stateless.app, OpeningRequests)
