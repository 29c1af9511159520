"""HTTP tools executed through the `httpx` request functions against a real HTTP server on loopback
(`http_server.py`): the bundled support agent, compiled and loaded as a host does, with its
connection pointed at the server (a stored `http:` base URL, which the builder accepts, §6.1).

What comes back is decided by the request function (§6.11): status and body as an output, a redirect
refused, a slow server timed out as `request-failed` for a read and `unknown-outcome` for a write.
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from typing import Any

import pytest
from http_server import Recorder, server  # noqa: F401 - server is a fixture

from nx_agent import CancelToken, examples
from nx_agent.agent import compile_agent, load_agent
from nx_agent.http.client import UNKNOWN_OUTCOME_MESSAGE, async_request_with, request_with

COMPILED = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())


def tokens(connection: str) -> str | None:
    return {"shop": "tok-shop"}.get(connection)


def stored_for(base: str, paths: dict[str, str] | None = None) -> str:
    """The stored definition text with the shop's base URL (and some paths) changed."""
    definition = copy.deepcopy(COMPILED.definition)
    for tool in definition["tools"]:
        if tool["kind"] == "http":
            tool["config"]["connection"]["baseUrl"] = base
            tool["config"]["path"] = (paths or {}).get(tool["name"], tool["config"]["path"])
    return json.dumps(definition)


def test_status_and_body_come_back(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens, timeout=5) as request:
        agent = load_agent(stored_for(base), COMPILED.images, request=request)
        order = agent["lookup_order"].execute({"orderId": "A 1"}, call_id="t7:1:0")
        ticket = agent["open_ticket"].execute({"subject": "Refund"}, call_id="t7:2:0")
    assert order["ok"] is True
    assert order["output"]["status"] == 200
    assert order["output"]["body"]["path"] == "/orders/A%201"
    assert order["output"]["body"]["authorization"] == "Bearer tok-shop"
    assert order["output"]["body"]["idempotency"] is None
    assert order["usage"]["inputSize"] == 5
    assert ticket["ok"] is True
    assert ticket["output"]["status"] == 201
    seen = recorder.requests[1]
    assert (seen["method"], seen["path"], seen["idempotency"]) == ("POST", "/tickets", "t7:2:0")
    assert seen["content_type"] == "application/json"
    assert json.loads(seen["body"]) == {"subject": "Refund", "priority": 2}


def test_a_redirect_is_refused(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    paths = {"lookup_order": "/redirect/{orderId}", "open_ticket": "/redirect"}
    with request_with(tokens, timeout=5) as request:
        agent = load_agent(stored_for(base, paths), COMPILED.images, request=request)
        read = agent["lookup_order"].execute({"orderId": "A1"}, call_id="t7:3:0")
        write = agent["open_ticket"].execute({"subject": "Refund"}, call_id="t7:4:0")
    assert read["ok"] is False and read["error"]["code"] == "request-failed"
    assert read["usage"]["operations"] > 0
    assert write["ok"] is False
    assert write["error"] == {"code": "unknown-outcome", "message": UNKNOWN_OUTCOME_MESSAGE}
    assert recorder.paths() == ["/redirect/A1", "/redirect"]


def test_a_slow_server_times_out(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    paths = {"lookup_order": "/slow/{orderId}", "open_ticket": "/slow"}
    with request_with(tokens, timeout=0.3) as request:
        agent = load_agent(stored_for(base, paths), COMPILED.images, request=request)
        read = agent["lookup_order"].execute({"orderId": "A1"}, call_id="t7:5:0")
        write = agent["open_ticket"].execute({"subject": "Refund"}, call_id="t7:6:0")
    assert read["ok"] is False and read["error"]["code"] == "request-failed"
    assert write["ok"] is False and write["error"]["code"] == "unknown-outcome"


def test_a_cancel_token_stops_a_read_in_flight(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    token = CancelToken()
    with request_with(tokens, timeout=5) as request:
        agent = load_agent(stored_for(base, {"lookup_order": "/slow/{orderId}"}), COMPILED.images, request=request)
        timer = threading.Timer(0.2, token.cancel)
        timer.start()
        result = agent["lookup_order"].execute({"orderId": "A1"}, call_id="t7:7:0", cancel=token)
        timer.join()
    assert result["ok"] is False and result["error"]["code"] == "aborted"
    assert result["usage"]["operations"] > 0


def test_aexecute_through_the_async_request_function(server: tuple[str, Recorder]) -> None:
    base, recorder = server

    async def scenario() -> tuple[Any, Any]:
        async with async_request_with(tokens, timeout=5) as request:
            agent = load_agent(stored_for(base, {"open_ticket": "/slow"}), COMPILED.images, request=request)
            order = await agent["lookup_order"].aexecute({"orderId": "A 1"}, call_id="t8:1:0")
            task = asyncio.ensure_future(agent["open_ticket"].aexecute({"subject": "Refund"}, call_id="t8:2:0"))
            await asyncio.sleep(0.2)
            task.cancel()
            return order, await task

    order, cancelled = asyncio.run(scenario())
    assert order["ok"] is True and order["output"]["body"]["path"] == "/orders/A%201"
    assert cancelled["ok"] is False
    assert cancelled["error"] == {
        "code": "aborted",
        "message": "The call of tool 'open_ticket' was cancelled while its request was in flight; "
        "whether the request was carried out is not known.",
    }
    assert cancelled["usage"]["operations"] > 0
