"""Bearer-token authentication of the HTTP transport: an ASGI middleware in front of everything else.

Every HTTP request must carry ``Authorization: Bearer <token>`` with the server's token; the
token is compared in constant time (the SHA-256 digests of the two, so that not even the length
of the server's token shows in the time taken). A request without it, or with another token, is
answered ``401`` with ``WWW-Authenticate: Bearer`` (and the connection closed), before its body
is read and before any session exists, and is logged (logger ``nx_agent.mcp``: the client's address, the method, the
path quoted, and whether a token was sent; never the token).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging

from .._log_text import quoted
from .sessions import App, Receive, Scope, Send

__all__ = ["BearerAuth"]

_log = logging.getLogger("nx_agent.mcp")
_BODY = json.dumps({
    "jsonrpc": "2.0",
    "id": None,
    "error": {"code": -32600, "message": "Unauthorized: send 'Authorization: Bearer <token>'"},
}).encode("ascii")


def _digest(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


class BearerAuth:
    """The middleware (see the module) around ``app``, admitting requests that carry ``token``."""

    def __init__(self, app: App, token: str) -> None:
        if not token:
            raise ValueError("the bearer token must not be empty")
        self.app = app
        self._expected = _digest(token.encode("utf-8"))

    def _admits(self, scope: Scope) -> tuple[bool, str]:
        given = None
        for key, value in scope.get("headers", ()):
            if key == b"authorization":
                given = bytes(value)
                break
        if given is None:
            return False, "no authorization header"
        scheme, _, credentials = given.partition(b" ")
        if scheme.lower() != b"bearer":
            return False, "an authorization that is not a bearer token"
        if not hmac.compare_digest(_digest(credentials.strip()), self._expected):
            return False, "a wrong bearer token"
        return True, ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        admitted, why = self._admits(scope)
        if admitted:
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        where = f"{client[0]}:{client[1]}" if client else "an unknown address"
        _log.warning(
            "refused a request from %s (%s %s): %s", where, quoted(scope.get("method", "")), quoted(scope.get("path", "")), why
        )
        await send({
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(_BODY)).encode("ascii")),
                (b"www-authenticate", b'Bearer realm="nx-agent"'),
                (b"connection", b"close"),
            ],
        })
        await send({"type": "http.response.body", "body": _BODY, "more_body": False})
