"""Connections the synchronous request function can close from another thread.

The synchronous request function runs each exchange on a worker thread and stops waiting for it at
its timeout. A worker blocked reading a response whose server trickles its headers (a byte now and
then, each read inside the read timeout) would keep its thread and its connection for as long as
the server likes. Here every connection of the function's own client goes through a
:class:`TrackedBackend`: each read and write first notes, on the :class:`Exchange` of the thread
making it, which connection it uses, and refuses to start once that exchange was given up;
:meth:`Exchange.abandon` marks it given up and shuts the socket in use down, which ends a blocked
read at once. The worker then fails, its connection is discarded, and its thread ends.

Uses ``httpcore`` (which ``httpx`` depends on); :func:`abandonable_transport` is the ``httpx``
transport made with it.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

__all__ = ["Exchange", "TrackedBackend", "abandonable_transport", "current_exchange"]

_local = threading.local()


class Exchange:
    """One exchange of the synchronous request function: whether its request started going out
    (:attr:`sent`), whether it was given up (:attr:`abandoned`), and the connection it reads and
    writes now."""

    __slots__ = ("_lock", "_stream", "abandoned", "sent")

    def __init__(self) -> None:
        self.sent = False
        self.abandoned = False
        self._lock = threading.Lock()
        self._stream: httpcore.NetworkStream | None = None

    def trace(self, event: str, info: object) -> None:
        """``httpx``'s trace hook: notes when the request headers start going out."""
        if event.endswith("send_request_headers.started"):
            self.sent = True

    async def atrace(self, event: str, info: object) -> None:
        self.trace(event, info)

    def using(self, stream: httpcore.NetworkStream) -> None:
        """Note that this exchange's thread is about to use ``stream``; raise ``httpcore.ReadError``
        when the exchange was given up."""
        with self._lock:
            if self.abandoned:
                raise httpcore.ReadError("the exchange was given up")
            self._stream = stream

    def abandon(self) -> None:
        """Give the exchange up: nothing more is read or written for it, and the connection in use
        is shut down (which ends a read blocked on it)."""
        with self._lock:
            self.abandoned = True
            stream, self._stream = self._stream, None
        if stream is not None:
            _shut_down(stream)

    def __enter__(self) -> Exchange:
        """Make this the exchange of the current thread (for the worker thread that runs it)."""
        _local.exchange = self
        return self

    def __exit__(self, *exc: object) -> None:
        _local.exchange = None


def current_exchange() -> Exchange | None:
    """The exchange the current thread runs, if any."""
    return getattr(_local, "exchange", None)


def _shut_down(stream: httpcore.NetworkStream) -> None:
    sock = stream.get_extra_info("socket")
    if isinstance(sock, socket.socket):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _TrackedStream(httpcore.NetworkStream):
    """A connection that tells the exchange of the thread using it before each read and write."""

    __slots__ = ("_inner",)

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def _use(self) -> None:
        exchange = current_exchange()
        if exchange is not None:
            exchange.using(self._inner)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._use()
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._use()
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        self._use()
        return _TrackedStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class TrackedBackend(httpcore.NetworkBackend):
    """``httpcore``'s synchronous backend, whose connections report to the exchange using them."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = _TrackedStream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))
        # A connection opened for an exchange given up meanwhile is closed before any use.
        try:
            stream._use()
        except httpcore.ReadError:
            stream.close()
            raise
        return stream

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        return _TrackedStream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _AbandonableTransport(httpx.HTTPTransport):
    """``httpx``'s default transport (its TLS settings, 100 connections, 20 kept alive for 5 s)
    whose connection pool opens its connections through a :class:`TrackedBackend`."""

    # ``HTTPTransport`` keeps its pool as ``_pool`` and reads nothing else of its own state; its
    # constructor is not called, which would build a pool (and an SSL context) only to drop it.
    def __init__(self) -> None:  # noqa: super-init-not-called
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=TrackedBackend(),
        )


def abandonable_transport() -> httpx.HTTPTransport:
    """The ``httpx`` transport of the synchronous request function's own client: its connections
    can be shut down by :meth:`Exchange.abandon` from another thread."""
    return _AbandonableTransport()
