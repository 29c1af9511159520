"""uvicorn's HTTP/1.1 protocol (h11) with the bounds of :class:`~.http_settings.HttpSettings` on
every connection, before any application code sees a request.

uvicorn's own keep-alive timeout is reset by every byte received, so a client that sends a byte
of its request head now and then keeps its connection (and a slot of the server) for as long as
it likes, and it has no timeout on a request body at all. Here each connection is always in one
of three phases, read from h11's view of the client:

- waiting for a request head (a new connection, or one whose last answer is complete): it must be
  whole within ``header_timeout``;
- reading a request body: it must be whole within ``body_timeout`` of its head;
- answering (the request is read; the answer may stream for as long as the application likes).

A connection past its phase's deadline gets ``408`` (when no answer has started) and is closed; a
body being read then ends, for the application, as a client that went away. A connection made
while ``max_connections`` are open gets ``503`` and is closed at once. Each cut is logged (logger
``nx_agent.mcp``) with the client's address.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .http_settings import HttpSettings

__all__ = ["GuardedH11Protocol", "guarded_protocol"]

_log = logging.getLogger("nx_agent.mcp")


def _response(status: int, reason: str, text: str) -> bytes:
    body = text.encode("ascii")
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode("ascii") + body


_TIMED_OUT = _response(408, "Request Timeout", "Request Timeout")
_TOO_MANY = _response(503, "Service Unavailable", "Too many connections")


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines on reading each request and a cap on connections
    (see the module); :func:`guarded_protocol` makes the class for one server's settings."""

    settings: ClassVar[HttpSettings] = HttpSettings()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._timer: asyncio.TimerHandle | None = None
        self._phase: str | None = None
        self._refused = False
        super().connection_made(transport)
        limit = self.settings.max_connections
        if len(self.connections) > limit:
            self._refused = True
            # Not counted as served: the connections set holds the connections being served.
            self.connections.discard(self)
            _log.warning("refused a connection from %s: %d connections are open (maxConnections)", self._peer(), limit)
            transport.write(_TOO_MANY)
            transport.close()
            return
        self._follow()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        self._phase = None
        super().connection_lost(exc)

    def _peer(self) -> str:
        client: Any = self.client
        return f"{client[0]}:{client[1]}" if client else "an unknown address"

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _follow(self) -> None:
        """Start the deadline of the phase the connection is now in, if it changed."""
        if self.transport is None or self.transport.is_closing():
            return
        state = self.conn.their_state
        phase = "head" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if phase == self._phase:
            return
        self._cancel()
        self._phase = phase
        if phase is not None:
            seconds = self.settings.header_timeout if phase == "head" else self.settings.body_timeout
            self._timer = self.loop.call_later(seconds, self._expired, phase)

    def _expired(self, phase: str) -> None:
        self._timer = None
        if self._phase != phase or self.transport.is_closing():
            return
        seconds = self.settings.header_timeout if phase == "head" else self.settings.body_timeout
        _log.warning("closed a connection from %s: its request %s was not whole within %g s", self._peer(), phase, seconds)
        cycle = self.cycle
        # Waiting for a head, nothing is being answered; reading a body, only when nothing was yet.
        if phase == "head" or (cycle is not None and not cycle.response_started):
            self.transport.write(_TIMED_OUT)
        self.transport.close()


def guarded_protocol(settings: HttpSettings) -> type[GuardedH11Protocol]:
    """The protocol class for a server with ``settings`` (uvicorn's ``Config(http=...)``)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"settings": settings})
