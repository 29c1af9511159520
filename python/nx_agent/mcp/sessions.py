"""A session is opened only by a request that was read whole and parsed: an ASGI middleware in
front of the SDK's streamable HTTP session manager.

The SDK registers a new session (a slot of its session table, and a task) as soon as a request
without ``mcp-session-id`` arrives, and only then reads its body: a client that sends a request
head and no body holds a slot for as long as it waits. Here such a request (one the SDK would
open a session for: no ``mcp-session-id``, and a protocol version of the handshake era or none)
reaches the SDK only once its body has been read whole (at most ``max_body_size`` bytes:
``413`` beyond, unread) and parsed as a JSON-RPC ``initialize`` request; anything else is
answered ``400`` (a ``GET`` or ``DELETE`` with no session, a body that is not such a request)
without a session ever being made. The body is then handed to the SDK as it came.

Requests of protocol 2026-07-28 (no sessions) and requests of an existing session pass as they are.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["OpeningRequests"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_SESSION_HEADER = b"mcp-session-id"
_VERSION_HEADER = b"mcp-protocol-version"
_INVALID_REQUEST = -32600
_PARSE_ERROR = -32700


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


async def _answer(send: Send, status: int, code: int, message: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii"))]
    if status == 413:
        headers.append((b"connection", b"close"))  # the body is left unread
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _opening_problem(body: bytes) -> tuple[int, str] | None:
    """Why ``body`` cannot open a session (a JSON-RPC code and a message), or ``None``."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return _PARSE_ERROR, "Parse error: the body is not JSON"
    if not (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == "initialize"
        and type(message.get("id")) in (str, int)
    ):
        return _INVALID_REQUEST, "Bad Request: a session begins with an initialize request"
    return None


class OpeningRequests:
    """The middleware (see the module) around ``app``, the streamable HTTP app at ``path``.

    ``handshake_versions`` are the protocol versions whose requests go to the SDK's session
    manager; ``max_body_size`` caps the body read before the SDK sees it."""

    def __init__(self, app: App, *, path: str, handshake_versions: frozenset[str], max_body_size: int) -> None:
        self.app = app
        self.paths = {path, path.rstrip("/") + "/"}
        self.handshake_versions = frozenset(version.encode("ascii") for version in handshake_versions)
        self.max_body_size = max_body_size

    def _could_open_a_session(self, scope: Scope) -> bool:
        if scope.get("type") != "http" or scope.get("path") not in self.paths:
            return False
        if _header(scope, _SESSION_HEADER) is not None:
            return False
        version = _header(scope, _VERSION_HEADER)
        return version is None or version in self.handshake_versions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._could_open_a_session(scope):
            await self.app(scope, receive, send)
            return
        if scope.get("method") != "POST":
            await _answer(send, 400, _INVALID_REQUEST, "Bad Request: no session (a session begins with an initialize POST)")
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_size:
            await _answer(send, 413, _INVALID_REQUEST, "Payload Too Large")
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body_size:
                await _answer(send, 413, _INVALID_REQUEST, "Payload Too Large")
                return
            if not message.get("more_body", False):
                break
        problem = _opening_problem(bytes(body))
        if problem is not None:
            await _answer(send, 400, *problem)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
