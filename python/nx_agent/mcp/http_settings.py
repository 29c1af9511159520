"""What bounds ``nx-agent serve --http``: its timeouts, connection and session caps, and where its
bearer token comes from (the ``http`` key of the host configuration; no ``mcp`` extra needed).

Each default is what a tool server on loopback needs, with room, and no more:

- ``headerTimeout`` 10 s: from a connection's start (or the end of its last answer) to a whole
  request head. A client sends one in a millisecond; a slow or idle client is cut off at 10 s
  (``408``), not kept as long as it trickles bytes;
- ``bodyTimeout`` 30 s: from the head to the whole body; a body of ``maxRequestBodySize`` fits
  at 35 KB/s;
- ``maxConnections`` 128: the connections served at once; one more is answered ``503`` and closed
  at once. An MCP client holds one or two (its requests, and its session's event stream);
- ``maxSessions`` 64: the MCP sessions open at once; a request that would open another is
  answered ``503`` (existing sessions carry on);
- ``sessionIdleTimeout`` 600 s: a session with no request in flight and no open event stream for
  this long is closed (its id then answers ``404``, and the client starts a new one);
- ``maxRequestBodySize`` 1 MiB: a request body larger is answered ``413`` unread. The default
  argument limit (``maxArgumentsSize`` 1000) admits about 64 KB of text.

A session is opened only by an ``initialize`` request read whole and parsed (:mod:`.sessions`).
The bearer token clients must send is ``tokenEnv`` or ``tokenFile`` here, else the variable
:data:`SERVE_TOKEN_ENV` (:mod:`.auth`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["HTTP_KEYS", "SERVE_TOKEN_ENV", "HttpSettings", "read_http_settings"]

SERVE_TOKEN_ENV: Final = "NX_AGENT_SERVE_TOKEN"
"""The variable holding the bearer token of ``serve --http`` when the configuration names none."""

_SECONDS = {"headerTimeout": "header_timeout", "bodyTimeout": "body_timeout", "sessionIdleTimeout": "session_idle_timeout"}
_COUNTS = {"maxConnections": "max_connections", "maxSessions": "max_sessions", "maxRequestBodySize": "max_request_body_size"}
HTTP_KEYS: Final = frozenset({"tokenEnv", "tokenFile", *_SECONDS, *_COUNTS})
"""The keys of the host configuration's ``http`` object."""


@dataclass(frozen=True)
class HttpSettings:
    """The bounds of the HTTP transport (see the module for each default and why)."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 128
    max_sessions: int = 64
    session_idle_timeout: float = 600.0
    max_request_body_size: int = 1_048_576
    token: str | None = None
    """The bearer token from ``tokenEnv`` or ``tokenFile``; ``None``: :data:`SERVE_TOKEN_ENV` is read
    when the server starts."""

    def bearer_token(self) -> str | None:
        """The token clients must send: the configured one, else :data:`SERVE_TOKEN_ENV`'s value."""
        return self.token if self.token is not None else os.environ.get(SERVE_TOKEN_ENV) or None


def _token(value: Mapping[str, object]) -> str | None:
    if "tokenEnv" in value and "tokenFile" in value:
        raise ValueError("give tokenEnv or tokenFile, not both")
    if "tokenEnv" in value:
        variable = value["tokenEnv"]
        if not isinstance(variable, str) or not variable:
            raise ValueError("tokenEnv must name an environment variable")
        token = os.environ.get(variable)
        if not token:
            raise ValueError(f"the environment variable {variable} is not set")
        return token
    if "tokenFile" in value:
        path = value["tokenFile"]
        if not isinstance(path, str) or not path:
            raise ValueError("tokenFile must be a path")
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ValueError(f"cannot read tokenFile: {error.strerror or error}") from None
        if not token:
            raise ValueError(f"the tokenFile {path} is empty")
        return token
    return None


def read_http_settings(value: object) -> HttpSettings:
    """The settings of the configuration's ``http`` object; raises ``ValueError`` saying what is wrong."""
    if not isinstance(value, Mapping):
        raise ValueError("must be an object")
    unknown = sorted(set(value) - HTTP_KEYS)
    if unknown:
        raise ValueError(f"unknown key {', '.join(map(repr, unknown))} (known: {', '.join(sorted(HTTP_KEYS))})")
    fields: dict[str, object] = {}
    for key, name in _SECONDS.items():
        if key in value:
            seconds = value[key]
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (math.isfinite(seconds) and seconds > 0):
                raise ValueError(f"{key} must be a positive number of seconds")
            fields[name] = float(seconds)
    for key, name in _COUNTS.items():
        if key in value:
            count = value[key]
            if type(count) is not int or count < 1:
                raise ValueError(f"{key} must be a positive integer")
            fields[name] = count
    return HttpSettings(token=_token(value), **fields)  # type: ignore[arg-type]
