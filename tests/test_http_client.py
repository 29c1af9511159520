"""The httpx request functions (§6.11) against a real HTTP server on loopback, sync and async.

Requests are built by ``build_http_request`` from an ``http`` tool whose connection points at the
server (a stored ``http`` base URL, §8.5 case 56), then made through ``request_with`` /
``async_request_with``. The server (``http_server.py``) records what arrives (raw request line, headers, body).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import pytest
from http_server import SLOW_SECONDS, Recorder, server  # noqa: F401 - server is a fixture
from http_support import ANNOTATIONS, NO_BODY, http_arguments, http_tool

from nx_agent import NxError
from nx_agent.agent.diagnostics import NxAgentToolError
from nx_agent.http import HttpRequestBuilt, HttpRequestCall, build_http_request
from nx_agent.http.client import UNKNOWN_OUTCOME_MESSAGE, async_request_with, request_with

TIMEOUT = 0.5


def tokens(connection: str) -> str | None:
    return {"shop": "tok-shop"}.get(connection)


def make_call(
    base: str,
    method: str,
    path: str,
    params: dict[str, str] | None = None,
    query: list[tuple[str, str]] | None = None,
    body: object = NO_BODY,
    call_id: str = "t7:1:0",
    cancel: Any = None,
) -> HttpRequestCall:
    tool = http_tool(method, path, base)
    built = build_http_request(tool, http_arguments(params or {}, query or [], body))
    assert isinstance(built, HttpRequestBuilt), built
    return HttpRequestCall(
        request=built.request,
        arguments=built.arguments,
        call_id=call_id,
        tool_name="lookup_order",
        connection="shop",
        annotations=ANNOTATIONS[method],
        cancel=cancel,
    )


def tool_error(excinfo: pytest.ExceptionInfo[NxAgentToolError]) -> tuple[str, str]:
    assert isinstance(excinfo.value, NxError)
    return excinfo.value.code, excinfo.value.message


# ---- synchronous --------------------------------------------------------------------------------


def test_get_answers_status_and_body_with_bearer_token(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens) as request:
        answer = request(make_call(base, "get", "/orders/{id}", {"id": "A 1/2"}, [("q", "a&b")]))
    assert answer["status"] == 200
    assert answer["body"]["path"] == "/orders/A%201%2F2?q=a%26b"
    assert answer["body"]["authorization"] == "Bearer tok-shop"
    assert answer["body"]["idempotency"] is None  # a read-only tool carries no idempotency key
    assert list(answer) == ["status", "body"]


def test_post_sends_body_and_idempotency_key(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    call = make_call(base, "post", "/orders", query=[("source", "agent")], body={"$type": "NewOrder", "sku": "X", "quantity": 2}, call_id="t7:2:0")
    with request_with(tokens) as request:
        answer = request(call)
    assert answer["status"] == 201
    seen = recorder.requests[0]
    assert seen["method"] == "POST"
    assert seen["path"] == "/orders?source=agent"
    assert seen["body"] == '{"sku":"X","quantity":2}'
    assert seen["content_type"] == "application/json"
    assert seen["authorization"] == "Bearer tok-shop"
    assert seen["idempotency"] == "t7:2:0"


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_every_write_method_carries_the_idempotency_key(server: tuple[str, Recorder], method: str) -> None:
    base, recorder = server
    body = {"a": 1} if method != "delete" else NO_BODY
    with request_with(tokens) as request:
        answer = request(make_call(base, method, "/orders/{id}", {"id": "7"}, body=body, call_id="c:9"))
    assert answer["status"] == 201
    assert recorder.requests[0]["method"] == method.upper()
    assert recorder.requests[0]["idempotency"] == "c:9"


def test_no_token_no_authorization_header(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(lambda connection: None) as request:
        request(make_call(base, "get", "/orders/{id}", {"id": "1"}))
    assert recorder.requests[0]["authorization"] is None


def test_reference_call_record_is_accepted(server: tuple[str, Recorder]) -> None:
    base, _ = server
    record = make_call(base, "get", "/orders/{id}", {"id": "A1"}).to_mapping()
    assert list(record) == ["request", "arguments", "callId", "toolName", "connection", "annotations"]
    with request_with(tokens) as request:
        assert request(record)["status"] == 200


def test_literal_template_characters_arrive_unchanged(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    call = make_call(base, "get", "/v1.2/a:b@c;d=e,f+g!$&'()*/{id}", {"id": "x/y?z"}, [("k y", "!'()*")])
    with request_with(tokens) as request:
        request(call)
    assert recorder.requests[0]["path"] == "/v1.2/a:b@c;d=e,f+g!$&'()*/x%2Fy%3Fz?k%20y=%21%27%28%29%2A"


def test_non_2xx_status_is_an_answer(server: tuple[str, Recorder]) -> None:
    base, _ = server
    with request_with(tokens) as request:
        answer = request(make_call(base, "get", "/missing/{id}", {"id": "1"}))
    assert answer == {"status": 404, "body": {"error": "not found"}}


def test_text_body_kept_as_text_and_capped(server: tuple[str, Recorder]) -> None:
    base, _ = server
    with request_with(tokens, max_body_chars=100) as request:
        assert request(make_call(base, "get", "/text"))["body"] == "plain \u00e9 text"
        big = request(make_call(base, "get", "/big"))
    assert big["body"] == "x" * 100


def test_default_body_cap_is_64000_characters(server: tuple[str, Recorder]) -> None:
    base, _ = server
    with request_with(tokens) as request:
        assert len(request(make_call(base, "get", "/big"))["body"]) == 64_000


def test_redirect_refused_for_a_read(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, "get", "/redirect"))
    assert tool_error(excinfo) == ("request-failed", "The server answered with a redirect, which is not followed.")
    assert recorder.paths() == ["/redirect"]  # the location was never asked for


def test_redirect_of_a_write_has_unknown_outcome(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, "post", "/redirect", body={"a": 1}))
    assert tool_error(excinfo) == ("unknown-outcome", UNKNOWN_OUTCOME_MESSAGE)
    assert recorder.paths() == ["/redirect"]


def test_slow_server_times_out_as_request_failed_for_a_read(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens, timeout=TIMEOUT) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, "get", "/slow"))
    assert tool_error(excinfo) == ("request-failed", "The request failed: it timed out.")
    assert recorder.paths() == ["/slow"]


def test_slow_server_times_out_as_unknown_outcome_for_a_write(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens, timeout=TIMEOUT) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, "post", "/slow", body={"a": 1}))
    assert tool_error(excinfo) == ("unknown-outcome", UNKNOWN_OUTCOME_MESSAGE)
    assert recorder.paths() == ["/slow"]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_refused_connection_of_a_write_is_request_failed() -> None:
    # Nothing was sent, so the write's fate is known: it was not made.
    base = f"http://127.0.0.1:{_closed_port()}"
    with request_with(tokens) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, "post", "/orders", body={"a": 1}))
    assert tool_error(excinfo) == ("request-failed", "The request could not be sent: the connection failed.")


class Flag:
    def __init__(self) -> None:
        self.cancelled = False


def test_cancelled_before_sending_sends_nothing(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    flag = Flag()
    flag.cancelled = True
    with request_with(tokens) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, "post", "/orders", body={"a": 1}, cancel=flag))
    assert tool_error(excinfo) == ("aborted", "The request was cancelled.")
    assert recorder.paths() == []


@pytest.mark.parametrize(("method", "code"), [("get", "aborted"), ("post", "unknown-outcome")])
def test_cancel_token_stops_a_running_request(server: tuple[str, Recorder], method: str, code: str) -> None:
    base, recorder = server
    flag = Flag()
    threading.Timer(0.2, lambda: setattr(flag, "cancelled", True)).start()
    body = {"a": 1} if method == "post" else NO_BODY
    with request_with(tokens, timeout=SLOW_SECONDS * 2) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, method, "/slow", body=body, cancel=flag))
    assert excinfo.value.code == code
    assert recorder.paths() == ["/slow"]


# ---- asynchronous -------------------------------------------------------------------------------


def test_async_get_and_post(server: tuple[str, Recorder]) -> None:
    base, recorder = server

    async def token_for(connection: str) -> str | None:
        return tokens(connection)

    async def run() -> tuple[Any, Any]:
        async with async_request_with(token_for) as request:
            read = await request(make_call(base, "get", "/orders/{id}", {"id": "A1"}))
            write = await request(make_call(base, "post", "/orders", body={"$type": "T", "sku": "X"}, call_id="c:1"))
            return read, write

    read, write = asyncio.run(run())
    assert read["status"] == 200
    assert read["body"]["path"] == "/orders/A1"
    assert read["body"]["authorization"] == "Bearer tok-shop"
    assert read["body"]["idempotency"] is None
    assert write["status"] == 201
    assert recorder.requests[1]["body"] == '{"sku":"X"}'
    assert recorder.requests[1]["idempotency"] == "c:1"


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("get", "/redirect", ("request-failed", "The server answered with a redirect, which is not followed.")),
        ("post", "/redirect", ("unknown-outcome", UNKNOWN_OUTCOME_MESSAGE)),
        ("get", "/slow", ("request-failed", "The request failed: it timed out.")),
        ("post", "/slow", ("unknown-outcome", UNKNOWN_OUTCOME_MESSAGE)),
    ],
)
def test_async_failures(server: tuple[str, Recorder], method: str, path: str, expected: tuple[str, str]) -> None:
    base, recorder = server
    body = {"a": 1} if method == "post" else NO_BODY

    async def run() -> None:
        async with async_request_with(tokens, timeout=TIMEOUT) as request:
            await request(make_call(base, method, path, body=body))

    with pytest.raises(NxAgentToolError) as excinfo:
        asyncio.run(run())
    assert tool_error(excinfo) == expected
    assert recorder.paths() == [path]


def test_async_cancellation_propagates(server: tuple[str, Recorder]) -> None:
    base, recorder = server

    async def run() -> bool:
        async with async_request_with(tokens, timeout=SLOW_SECONDS * 2) as request:
            task = asyncio.ensure_future(request(make_call(base, "get", "/slow")))
            while not recorder.paths():
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return task.cancelled()

    assert asyncio.run(run()) is True
