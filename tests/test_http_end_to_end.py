"""HTTP tools of a linked NX program executed through ``create_agent_tools`` and the httpx request
functions against a real server on loopback: evaluation, building, sending, and the answer or the
failure code coming back as the tool's result (sync ``execute`` and async ``aexecute``)."""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
from agent_programs import http_definition, link_execute_program
from http_server import LoopbackHTTPServer, Recorder, server  # noqa: F401 - server is a fixture

from nx_agent import build_http_request
from nx_agent.agent.create import create_agent_tools
from nx_agent.http import HttpRequestBuilt
from nx_agent.http.client import UNKNOWN_OUTCOME_MESSAGE, async_request_with, request_with

PROGRAM = link_execute_program()
TIMEOUT = 0.5


def tools_at(base_url: str, request: Any) -> dict[str, Any]:
    return {tool.name: tool for tool in create_agent_tools(tools_at_definition(base_url), PROGRAM, request=request)}


def tokens(connection: str) -> str | None:
    return {"shop": "tok-shop"}.get(connection)


def test_execute_lookup_and_place_order(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens) as request:
        tools = tools_at(base + "/v1", request)
        read = tools["lookup_order"].execute({"orderId": "A 1"}, call_id="t7:1:0")
        write = tools["place_order"].execute({"sku": "X", "quantity": 2}, call_id="t7:2:0")
    assert read["ok"] is True, read
    assert read["output"]["status"] == 200
    assert read["output"]["body"]["path"] == "/v1/orders/A%201"
    assert read["usage"]["operations"] > 0
    assert write["ok"] is True, write
    assert write["output"]["status"] == 201
    seen = recorder.requests[1]
    assert (seen["method"], seen["path"]) == ("POST", "/v1/orders?source=agent")
    assert json.loads(seen["body"]) == {"sku": "X", "quantity": 2}
    assert seen["authorization"] == "Bearer tok-shop"
    assert seen["idempotency"] == "t7:2:0"
    assert recorder.requests[0]["idempotency"] is None


@pytest.mark.parametrize(
    ("tool", "input", "prefix", "code", "message"),
    [
        ("lookup_order", {"orderId": "A1"}, "/slow", "request-failed", "The request failed: it timed out."),
        ("place_order", {"sku": "X"}, "/slow", "unknown-outcome", UNKNOWN_OUTCOME_MESSAGE),
        ("lookup_order", {"orderId": "A1"}, "/redirect", "request-failed", "The server answered with a redirect, which is not followed."),
        ("place_order", {"sku": "X"}, "/redirect", "unknown-outcome", UNKNOWN_OUTCOME_MESSAGE),
    ],
)
def test_execute_failures_become_result_codes(
    server: tuple[str, Recorder], tool: str, input: dict[str, Any], prefix: str, code: str, message: str
) -> None:
    base, recorder = server
    with request_with(tokens, timeout=TIMEOUT) as request:
        result = tools_at(base + prefix, request)[tool].execute(input, call_id="t7:3:0")
    assert result["ok"] is False
    assert result["error"] == {"code": code, "message": message}
    assert result["usage"]["operations"] > 0
    assert len(recorder.requests) == 1


def test_aexecute_through_the_async_request_function(server: tuple[str, Recorder]) -> None:
    base, recorder = server

    async def run() -> tuple[Any, Any]:
        async with async_request_with(tokens, timeout=TIMEOUT) as request:
            tools = tools_at(base, request)
            read = await tools["lookup_order"].aexecute({"orderId": "A1"}, call_id="t8:0:0")
            late = await tools_at(base + "/slow", request)["place_order"].aexecute({"sku": "X"}, call_id="t8:1:0")
            return read, late

    read, late = asyncio.run(run())
    assert read["ok"] is True, read
    assert read["output"]["status"] == 200
    assert read["output"]["body"]["path"] == "/orders/A1"
    assert late["ok"] is False
    assert late["error"] == {"code": "unknown-outcome", "message": UNKNOWN_OUTCOME_MESSAGE}
    assert recorder.requests[1]["idempotency"] == "t8:1:0"


def test_forwarded_call_is_rebuilt_identically_in_another_process(server: tuple[str, Recorder]) -> None:
    """§6.10 / §8.10 case 196 over a real wire: the host forwards ``{toolName, args, callId}`` as JSON;
    the receiving side rebuilds the request from its own stored copy of the definition."""
    base, _ = server
    stored = {tool["name"]: tool for tool in json.loads(json.dumps(tools_at_definition(base + "/v1")))}

    class Rebuilder(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            sent = json.loads(self.rfile.read(int(self.headers["content-length"])))
            rebuilt = build_http_request(stored[sent["toolName"]], sent["args"])
            assert isinstance(rebuilt, HttpRequestBuilt)
            payload = json.dumps({"request": rebuilt.request, "callId": sent["callId"]}).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    rebuilder = LoopbackHTTPServer(("127.0.0.1", 0), Rebuilder)
    threading.Thread(target=rebuilder.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    calls: list[dict[str, Any]] = []

    def forward(call: dict[str, Any]) -> dict[str, Any]:
        calls.append(call)
        message = {"toolName": call["toolName"], "args": call["arguments"], "callId": call["callId"]}
        answer = httpx.post(f"http://127.0.0.1:{rebuilder.server_address[1]}/", json=message)
        return {"status": answer.status_code, "body": answer.json()}

    try:
        tools = tools_at(base + "/v1", forward)
        result = tools["place_order"].execute({"sku": "X", "quantity": 2}, call_id="t9:0:0")
    finally:
        rebuilder.shutdown()
        rebuilder.server_close()
    assert result["ok"] is True, result
    assert result["output"]["body"] == {"request": calls[0]["request"], "callId": "t9:0:0"}


def tools_at_definition(base_url: str) -> list[dict[str, Any]]:
    definition = copy.deepcopy(http_definition())
    for tool in definition["tools"]:
        tool["config"]["connection"]["baseUrl"] = base_url
    tools: list[dict[str, Any]] = definition["tools"]
    return tools
