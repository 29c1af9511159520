"""The stateless MCP server (issue 17, item 4): `nx-agent serve --http --stateless --workers 2`
answering the MCP SDK's own client from both worker processes, and a session whose requests a
load balancer spreads over two replicas (each answered, since no replica holds a session), where
the stateful server refuses the replica that did not open the session.

Two kinds of client: `mode="legacy"` (the initialize handshake of the 2025 protocol versions,
which the stateful server ties to an `Mcp-Session-Id`) and the SDK's default `mode="auto"`, which
speaks the 2026-07-28 protocol: sessionless per request, which the SDK answers statelessly from
either server."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_support import (
    PLANS_5,
    SERVE_TOKEN,
    STARTUP_SECONDS,
    authorized,
    http_server,
    serve_args,
    server_env,
    write_config,
    write_support_agent,
)

mcp = pytest.importorskip("mcp")
httpx2 = pytest.importorskip("httpx2")
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

CALL_LOG = re.compile(r"call \"(test-(\d+):\d+:[^\"]+)\" of \"find_plans\": ok")


@contextmanager
def serving(*flags: str, setup: tuple[Path, list[Path], Path]) -> Iterator[tuple[str, list[str]]]:
    """`nx-agent serve ... --http --port 0 <flags>`; yields its URL and its stderr lines so far."""
    definition, images, config = setup
    lines: list[str] = []
    with http_server(definition, images, config, flags, lines) as url:
        yield url, lines


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], Path]:
    directory = tmp_path_factory.mktemp("stateless")
    definition, images, _ = write_support_agent(directory)
    config = {"connections": {"shop": {"tokenEnv": "TEST_SHOP_TOKEN"}}, "callIdPrefix": "test"}
    return definition, images, write_config(directory, "host.json", config)


async def _session(url: str, team_size: int, mode: str = "legacy") -> tuple[list[str], Any]:
    async with Client(authorized(url), mode=mode) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("find_plans", {"teamSize": team_size})
        assert result.is_error is False
        return names, json.loads(result.content[0].text)  # the output (its structured form is wrapped before 2026)


def _wait_until_answering(url: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        try:
            anyio.run(_session, url, 5)
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_two_stateless_workers_answer_a_real_mcp_client(setup: tuple[Path, list[Path], Path], mode: str) -> None:
    with serving("--stateless", "--workers", "2", setup=setup) as (url, lines):
        assert "with 2 workers" in "".join(lines)
        _wait_until_answering(url)
        # Every worker asks for the bearer token, as one process does.
        for _ in range(4):
            refused = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert refused.status_code == 401
        pids: set[str] = set()
        for _ in range(10):  # many sessions at once, until the kernel has handed both workers some
            results: list[Any] = []

            async def many() -> None:
                async def one(n: int) -> None:
                    results.append(await _session(url, n, mode))

                async with anyio.create_task_group() as group:
                    for n in range(1, 13):
                        group.start_soon(one, n)

            anyio.run(many)
            for names, output in results:
                assert names == ["find_plans", "lookup_order", "open_ticket"]
                assert output[0]["name"] == "Team" and output[0]["$type"] == "Plan"
            assert sorted(output[0]["seats"] for _, output in results) == list(range(1, 13))
            time.sleep(0.3)  # the workers log each call on stderr
            pids = {match.group(2) for line in list(lines) if (match := CALL_LOG.search(line))}
            if len(pids) >= 2:
                break
        assert len(pids) == 2, "".join(lines[-20:])


class RoundRobin(httpx2.AsyncBaseTransport):  # type: ignore[misc]
    """A load balancer in the client: each HTTP request goes to the next replica's port."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = itertools.cycle(ports)
        self.inner = httpx2.AsyncHTTPTransport()
        self.sent: list[int] = []

    async def handle_async_request(self, request: Any) -> Any:
        port = next(self.ports)
        self.sent.append(port)
        request.url = request.url.copy_with(port=port)
        return await self.inner.handle_async_request(request)


def _balanced_session(urls: list[str], mode: str = "legacy") -> tuple[list[int], Any]:
    balancer = RoundRobin([int(re.search(r":(\d+)/", url).group(1)) for url in urls])  # type: ignore[union-attr]

    async def main() -> Any:
        async with httpx2.AsyncClient(transport=balancer, headers={"authorization": f"Bearer {SERVE_TOKEN}"}) as http:
            async with Client(streamable_http_client(urls[0], http_client=http), mode=mode) as client:
                answers = [await client.call_tool("find_plans", {"teamSize": n}) for n in (5, 6, 7)]
                return [json.loads(answer.content[0].text) for answer in answers]

    return balancer.sent, anyio.run(main)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_one_session_spread_over_two_stateless_replicas(setup: tuple[Path, list[Path], Path], mode: str) -> None:
    with serving("--stateless", setup=setup) as (first, _), serving("--stateless", setup=setup) as (second, _):
        _wait_until_answering(first)
        _wait_until_answering(second)
        sent, answers = _balanced_session([first, second], mode)
        assert len(set(sent)) == 2  # both replicas were sent requests of the one session
        assert answers == [[{**PLANS_5[0], "seats": n}] for n in (5, 6, 7)]


def test_the_stateful_server_needs_sticky_sessions_for_handshake_clients(setup: tuple[Path, list[Path], Path]) -> None:
    with serving(setup=setup) as (first, first_log), serving(setup=setup) as (second, second_log):
        _wait_until_answering(first)
        _wait_until_answering(second)
        with pytest.raises(BaseException):
            _balanced_session([first, second], "legacy")
        time.sleep(0.3)
        log = "".join(first_log + second_log)
        assert "Rejected request with unknown or expired session ID" in log or "Session not found" in log, log[-2000:]
        # A 2026-07-28 client keeps no session: either stateful replica answers each request.
        sent, answers = _balanced_session([first, second], "auto")
        assert len(set(sent)) == 2 and answers == [[{**PLANS_5[0], "seats": n}] for n in (5, 6, 7)]


def test_workers_without_stateless_are_refused(setup: tuple[Path, list[Path], Path]) -> None:
    definition, images, config = setup
    done = subprocess.run(
        [sys.executable, *serve_args(definition, images, config), "--http", "--workers", "2"],
        capture_output=True, text=True, env=server_env(), timeout=60,
    )
    assert done.returncode == 2
    assert "needs --http --stateless" in done.stderr and "sticky sessions" in done.stderr
