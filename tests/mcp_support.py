"""What the MCP tests share: the stored support agent on disk, and `nx-agent serve` as a subprocess
(stdio through the SDK's own stdio client, or streamable HTTP on a free loopback port).

Expected values: the tools' fields are the stored definition's (agent-package §2.2: MCP serves them
as stored); `find_plans(5)` is the NX function `findPlans` of the bundled example
(`<Plan name="Team" seats=teamSize monthlyPrice=20 />`); the model-facing sentences are §7's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


from nx_agent import examples
from nx_agent.agent import CompiledAgent, compile_agent

PLANS_5 = [{"$type": "Plan", "name": "Team", "seats": 5, "monthlyPrice": 20}]
SHOP_TOKEN = "tok-shop-test"
SERVE_TOKEN = "tok-serve-test"
"""The bearer token HTTP clients of the test servers send (``NX_AGENT_SERVE_TOKEN``)."""
STARTUP_SECONDS = 60.0


def write_agent(directory: Path, compiled: CompiledAgent) -> tuple[Path, list[Path]]:
    """A compiled agent stored as files: the definition text and its images."""
    definition = directory / "agent.json"
    definition.write_text(compiled.definition_text, encoding="utf-8")
    images = []
    for index, data in enumerate(compiled.images.values()):
        path = directory / f"image{index}.nxir"
        path.write_bytes(data)
        images.append(path)
    return definition, images


def write_support_agent(directory: Path) -> tuple[Path, list[Path], dict[str, Any]]:
    """The bundled support agent compiled and stored as files: the definition and its images."""
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    return (*write_agent(directory, compiled), compiled.definition)


def write_config(directory: Path, name: str, document: dict[str, Any]) -> Path:
    path = directory / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def shop_config(shop_url: str, **extra: Any) -> dict[str, Any]:
    """A host configuration sending the `shop` connection to the loopback shop, token from the environment."""
    return {
        "connections": {"shop": {"tokenEnv": "TEST_SHOP_TOKEN", "baseUrl": shop_url, "allowInsecure": True}},
        "callIdPrefix": "test",
        **extra,
    }


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["TEST_SHOP_TOKEN"] = SHOP_TOKEN
    env["NX_AGENT_SERVE_TOKEN"] = SERVE_TOKEN
    env.pop("NX_AGENT_HOST_CONFIG", None)
    return env


def authorized(url: str, token: str = SERVE_TOKEN) -> Any:
    """What ``mcp.Client`` is given to reach a server over HTTP with a bearer token: the SDK's
    streamable HTTP transport over a client that sends ``Authorization: Bearer <token>``."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}))


def serve_args(definition: Path, images: list[Path], config: Path | None) -> list[str]:
    args = ["-m", "nx_agent", "serve", str(definition), *map(str, images)]
    if config is not None:
        args += ["--host-config", str(config)]
    return args


@contextmanager
def http_server(
    definition: Path, images: list[Path], config: Path | None, extra: tuple[str, ...] = (), lines: list[str] | None = None
) -> Iterator[str]:
    """`nx-agent serve --http --port 0` (and ``extra`` options) as a subprocess; yields the URL it
    prints once ready. Its stderr lines are collected in ``lines`` when given."""
    process = subprocess.Popen(
        [sys.executable, *serve_args(definition, images, config), "--http", "--port", "0", *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )
    assert process.stderr is not None
    if lines is None:
        lines = []
    url: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            # "serving ... over [stateless ]streamable HTTP at URL[ with N workers]"
            ready = re.search(r" streamable HTTP at (http://\S+)", line)
            if ready and not url:
                url.append(ready.group(1))
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not found.wait(0.05) and time.monotonic() < deadline:
            pass
        assert url, f"the server did not start: {''.join(lines)}"
        yield url[0]
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
