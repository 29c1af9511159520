"""Request functions over ``httpx`` (the optional ``http`` extra), as the reference README's helper behaves (§6.11).

:func:`request_with` answers a synchronous request function, :func:`async_request_with` an
asynchronous one; both take ``token_for(connection) -> str | None`` and hand every call:

* the built headers, plus ``authorization: Bearer <token>`` (when ``token_for`` answers a token; a
  connection it answers ``None`` for is warned about once, logger ``nx_agent.http``) and,
  for a tool that is not read-only, ``idempotency-key: <call_id>``;
* no redirect is followed: a redirect status (301, 302, 303, 307, 308) is a failure;
* one ``timeout`` (10 s) for the whole exchange, body included;
* ``accept-encoding: gzip, deflate``, and the body decoded as it streams, piece by piece
  (:mod:`nx_agent.http.decoding`): a compressed body is never inflated much past what the cap
  below needs (another coding is a failure);
* the response text (UTF-8) read up to ``max_body_chars`` (64,000) characters and no further, then
  parsed as JSON when it is JSON; the answer is ``{"status": ..., "body": ...}``, and a non-2xx
  status is an answer, not a failure.

A call id that a header cannot carry (anything but printable ASCII, or a space at either end: a
CR/LF above all) is refused as ``invalid-request`` before anything is sent when the tool is not
read-only (the call id is its ``idempotency-key``); a token that a header cannot carry is
``request-failed``, also before anything is sent.

A failure raises :class:`~nx_agent.agent.diagnostics.NxAgentToolError`, whose message never holds
the caught error's text (that is logged on the host side, logger ``nx_agent.http``, with the
connection and call id):

* ``unknown-outcome`` when a tool that is not read-only had its request sent (the request headers
  started going out) and then failed, timed out, was cancelled or was answered with a redirect;
* ``aborted`` when the call was cancelled and nothing was sent, or a read-only call was cancelled;
* ``request-failed`` otherwise (nothing was sent, or a read-only call failed).

The reference's helper reports ``unknown-outcome`` for every failed write; this one does so only
once something was sent (a refused connection is ``request-failed`` for a write too).

Cancellation: the synchronous function watches the call's ``cancel`` flag (a ``CancelToken``) and
gives up as soon as it is set; in the asynchronous one an ``asyncio`` cancellation propagates as
``CancelledError``. An exchange the synchronous function gives up (cancelled, or past its timeout)
has its connection shut down, so its worker thread ends then too, even against a server that
trickles its answer (:mod:`nx_agent.http.abandon`; with a ``client`` of the caller's own, only the
body loop notices, between chunks).
"""

from __future__ import annotations

import asyncio
import codecs
import inspect
import json
import logging
import re
import threading
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Final, Union

from .._extras import missing_extra

try:
    import httpx
except ModuleNotFoundError as _missing:
    raise missing_extra("nx_agent.http.client (the httpx request functions)", "http", _missing, ("httpx", "httpcore")) from None

from .._log_text import quoted
from ..agent.diagnostics import NxAgentToolError
from .abandon import Exchange, abandonable_transport
from .call import HttpRequestCall, HttpRequestCallLike, HttpResponse, as_call
from .decoding import ACCEPT_ENCODING, BodyDecoder, UndecodableBody

__all__ = [
    "AsyncHttpxRequestFunction",
    "HttpxRequestFunction",
    "REDIRECT_STATUSES",
    "UNKNOWN_OUTCOME_MESSAGE",
    "async_request_with",
    "request_headers",
    "request_with",
]

REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
UNKNOWN_OUTCOME_MESSAGE: Final = "The request was sent, and whether it was carried out is not known."
DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_MAX_BODY_CHARS: Final = 64_000
UNSENDABLE_CALL_ID_MESSAGE: Final = (
    "The call id cannot be sent as the request's idempotency key: a header holds only printable ASCII, "
    "with no space at either end."
)
_CANCEL_POLL_SECONDS: Final = 0.02
_CHUNK_BYTES: Final = 16_384
# What h11 (and RFC 9110) let a header value hold, narrowed to ASCII, which httpx encodes it as.
_HEADER_VALUE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")

_log = logging.getLogger("nx_agent.http")

TokenFor = Callable[[str], Union[str, None]]
AsyncTokenFor = Callable[[str], Union[str, None, Awaitable[Union[str, None]]]]


class _TokenlessWarning:
    """Warns once per connection (logger ``nx_agent.http``) that its token function answered no
    token: its requests go out without ``authorization``, which an API that needs one refuses."""

    def __init__(self) -> None:
        self.warned: set[str] = set()

    def __call__(self, connection: str, token: str | None) -> None:
        if token is None and connection not in self.warned:
            self.warned.add(connection)
            _log.warning("connection '%s' has no bearer token: its requests are sent without authorization", connection)


def request_headers(call: HttpRequestCall, token: str | None) -> dict[str, str]:
    """The headers to send: the built ones, ``accept-encoding`` (the codings the body is decoded
    from), ``authorization`` when there is a token, and ``idempotency-key`` (the call id) when the
    tool is not read-only.

    Raises :class:`~nx_agent.agent.diagnostics.NxAgentToolError` when a value cannot be a header:
    ``invalid-request`` for the call id, ``request-failed`` for the token."""
    headers = dict(call.request["headers"])
    headers.setdefault("accept-encoding", ACCEPT_ENCODING)
    if token is not None:
        if _HEADER_VALUE.fullmatch(token) is None:
            raise NxAgentToolError(
                "request-failed",
                f"The bearer token of connection '{call.connection}' cannot be sent in a header: a header "
                "holds only printable ASCII, with no space at either end.",
            )
        headers["authorization"] = f"Bearer {token}"
    if not call.read_only:
        if _HEADER_VALUE.fullmatch(call.call_id) is None:
            raise NxAgentToolError("invalid-request", UNSENDABLE_CALL_ID_MESSAGE)
        headers["idempotency-key"] = call.call_id
    return headers


class _Redirected(Exception):
    """The server answered with a redirect status."""

    def __init__(self, status: int) -> None:
        super().__init__(f"redirect status {status}")


class _Abandoned(Exception):
    """The caller gave up on the exchange (timeout or cancellation) while it ran."""


class _BodyText:
    """The response text, decoded as UTF-8 (a leading BOM dropped) and cut at a number of characters."""

    __slots__ = ("_decoder", "_limit", "_parts", "_size", "_started")

    def __init__(self, limit: int) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._limit = limit
        self._parts: list[str] = []
        self._size = 0
        self._started = False

    def add(self, chunk: bytes, final: bool = False) -> bool:
        """Take a chunk; answer whether the limit is reached (nothing more need be read)."""
        text = self._decoder.decode(chunk, final)
        if not self._started and text:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        self._parts.append(text)
        self._size += len(text)
        return self._size >= self._limit

    def text(self) -> str:
        return "".join(self._parts)[: self._limit]


def _reject_constant(name: str) -> object:
    raise ValueError(name)


def parse_body(text: str) -> Any:
    """The response body: ``text`` parsed as JSON (as ``JSON.parse`` would), or ``text`` itself."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError:
        return text


def _failure(call: HttpRequestCall, exchange: Exchange, reason: str, error: BaseException | None) -> NxAgentToolError:
    """The error a failed exchange raises, chosen by whether anything was sent and the tool's hints."""
    _log.warning(
        "HTTP request of tool %s over connection %s failed (call %s): %s",
        quoted(call.tool_name),
        quoted(call.connection),
        quoted(call.call_id),
        reason if error is None else quoted(repr(error)),
    )
    if exchange.sent and not call.read_only:
        return NxAgentToolError("unknown-outcome", UNKNOWN_OUTCOME_MESSAGE)
    if reason == "cancelled":
        return NxAgentToolError("aborted", "The request was cancelled.")
    if reason == "redirect":
        return NxAgentToolError("request-failed", "The server answered with a redirect, which is not followed.")
    if not exchange.sent:
        return NxAgentToolError("request-failed", f"The request could not be sent: {reason}.")
    return NxAgentToolError("request-failed", f"The request failed: {reason}.")


def _reason(error: BaseException) -> str:
    if isinstance(error, _Redirected):
        return "redirect"
    if isinstance(error, (httpx.TimeoutException, TimeoutError, asyncio.TimeoutError)):
        return "it timed out"
    if isinstance(error, httpx.ConnectError):
        return "the connection failed"
    if isinstance(error, UndecodableBody):
        return "its body could not be decoded"
    return "the exchange failed"


_HANDLED: Final = (
    httpx.HTTPError,
    httpx.InvalidURL,
    OSError,
    _Redirected,
    UndecodableBody,
    asyncio.TimeoutError,
    TimeoutError,
)


def _body_reader(response: httpx.Response, max_body_chars: int) -> tuple[BodyDecoder, _BodyText]:
    """The decoder and the text of a response's body. A body a transport already read (a mock
    transport's) is in memory, decoded by ``httpx``: it is passed through."""
    encoding = None if response.is_stream_consumed else response.headers.get("content-encoding")
    return BodyDecoder(encoding), _BodyText(max_body_chars)


def _read_body(decoder: BodyDecoder, body: _BodyText, raw: bytes) -> bool:
    """Decode ``raw`` into ``body`` piece by piece; answer whether the body's cap is reached."""
    for piece in decoder.feed(raw):
        if body.add(piece):
            return True
    return False


def _end_body(decoder: BodyDecoder, body: _BodyText) -> None:
    for piece in decoder.finish():
        if body.add(piece):
            return
    body.add(b"", final=True)


class HttpxRequestFunction:
    """A synchronous request function over an ``httpx.Client``; see :func:`request_with`."""

    def __init__(
        self,
        token_for: TokenFor,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_body_chars: int = DEFAULT_MAX_BODY_CHARS,
        client: httpx.Client | None = None,
    ) -> None:
        self.token_for = token_for
        self.timeout = timeout
        self.max_body_chars = max_body_chars
        self._owned = client is None
        self._client = (
            client if client is not None else httpx.Client(follow_redirects=False, transport=abandonable_transport())
        )
        self._tokenless = _TokenlessWarning()

    def __call__(self, call: HttpRequestCallLike) -> HttpResponse:
        """Make the request of one call; answer ``{"status", "body"}`` or raise ``NxAgentToolError``."""
        held = as_call(call)
        exchange = Exchange()
        cancel = held.cancel
        if cancel is not None and cancel.cancelled:
            raise _failure(held, exchange, "cancelled", None)
        token = self.token_for(held.connection)
        self._tokenless(held.connection, token)
        headers = request_headers(held, token)
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                with exchange:
                    outcome["value"] = self._exchange(held, headers, exchange)
            except BaseException as error:  # noqa: BLE001 - carried to the calling thread
                outcome["error"] = error
            finally:
                done.set()

        threading.Thread(target=work, name=f"nx-agent-http {held.call_id}", daemon=True).start()
        deadline = time.monotonic() + self.timeout
        while True:
            remaining = deadline - time.monotonic()
            wait = remaining if cancel is None else min(remaining, _CANCEL_POLL_SECONDS)
            if done.wait(max(wait, 0.0)):
                break
            if cancel is not None and cancel.cancelled:
                exchange.abandon()
                raise _failure(held, exchange, "cancelled", None)
            if time.monotonic() >= deadline:
                exchange.abandon()
                raise _failure(held, exchange, "it timed out", None)
        if "error" in outcome:
            error = outcome["error"]
            if isinstance(error, _HANDLED):
                raise _failure(held, exchange, _reason(error), error) from None
            raise error
        value: HttpResponse = outcome["value"]
        return value

    def _exchange(self, call: HttpRequestCall, headers: dict[str, str], exchange: Exchange) -> HttpResponse:
        request = call.request
        content = request["body"].encode("utf-8") if "body" in request else None
        with self._client.stream(
            request["method"],
            request["url"],
            headers=headers,
            content=content,
            follow_redirects=False,
            timeout=self.timeout,
            extensions={"trace": exchange.trace},
        ) as response:
            if response.status_code in REDIRECT_STATUSES:
                raise _Redirected(response.status_code)
            decoder, body = _body_reader(response, self.max_body_chars)
            chunks = response.iter_bytes(_CHUNK_BYTES) if response.is_stream_consumed else response.iter_raw(_CHUNK_BYTES)
            for chunk in chunks:
                if exchange.abandoned:
                    raise _Abandoned
                if _read_body(decoder, body, chunk):
                    break
            else:
                _end_body(decoder, body)
            return {"status": response.status_code, "body": parse_body(body.text())}

    def close(self) -> None:
        """Close the client this function made (a client handed in is the caller's to close)."""
        if self._owned:
            self._client.close()

    def __enter__(self) -> HttpxRequestFunction:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


class AsyncHttpxRequestFunction:
    """An asynchronous request function over an ``httpx.AsyncClient``; see :func:`async_request_with`."""

    def __init__(
        self,
        token_for: AsyncTokenFor,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_body_chars: int = DEFAULT_MAX_BODY_CHARS,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.token_for = token_for
        self.timeout = timeout
        self.max_body_chars = max_body_chars
        self._owned = client is None
        self._client = client if client is not None else httpx.AsyncClient(follow_redirects=False)
        self._tokenless = _TokenlessWarning()

    async def __call__(self, call: HttpRequestCallLike) -> HttpResponse:
        """Make the request of one call; answer ``{"status", "body"}`` or raise ``NxAgentToolError``.

        An ``asyncio`` cancellation is not caught: it propagates as ``CancelledError``."""
        held = as_call(call)
        exchange = Exchange()
        token = self.token_for(held.connection)
        if inspect.isawaitable(token):
            token = await token
        self._tokenless(held.connection, token)
        headers = request_headers(held, token)
        try:
            return await asyncio.wait_for(self._exchange(held, headers, exchange), self.timeout)
        except _HANDLED as error:
            raise _failure(held, exchange, _reason(error), error) from None

    async def _exchange(self, call: HttpRequestCall, headers: dict[str, str], exchange: Exchange) -> HttpResponse:
        request = call.request
        content = request["body"].encode("utf-8") if "body" in request else None
        async with self._client.stream(
            request["method"],
            request["url"],
            headers=headers,
            content=content,
            follow_redirects=False,
            timeout=self.timeout,
            extensions={"trace": exchange.atrace},
        ) as response:
            if response.status_code in REDIRECT_STATUSES:
                raise _Redirected(response.status_code)
            decoder, body = _body_reader(response, self.max_body_chars)
            achunks = response.aiter_bytes(_CHUNK_BYTES) if response.is_stream_consumed else response.aiter_raw(_CHUNK_BYTES)
            async for chunk in achunks:
                if _read_body(decoder, body, chunk):
                    break
            else:
                _end_body(decoder, body)
            return {"status": response.status_code, "body": parse_body(body.text())}

    async def aclose(self) -> None:
        """Close the client this function made (a client handed in is the caller's to close)."""
        if self._owned:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncHttpxRequestFunction:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.aclose()


def request_with(
    token_for: TokenFor,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_body_chars: int = DEFAULT_MAX_BODY_CHARS,
    client: httpx.Client | None = None,
) -> HttpxRequestFunction:
    """A synchronous request function for ``create_agent_tools(..., request=...)``.

    ``token_for(connection)`` answers the bearer token for a connection (``None``: no
    ``authorization`` header, and a warning on logger ``nx_agent.http`` the first time for each
    connection; ``nx-agent call`` and ``serve`` refuse such a connection unless told it needs no
    token). Pass ``client`` to share an ``httpx.Client`` (its redirect setting is
    overridden per request); otherwise one is made, closed by :meth:`HttpxRequestFunction.close`.
    """
    return HttpxRequestFunction(token_for, timeout=timeout, max_body_chars=max_body_chars, client=client)


def async_request_with(
    token_for: AsyncTokenFor,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_body_chars: int = DEFAULT_MAX_BODY_CHARS,
    client: httpx.AsyncClient | None = None,
) -> AsyncHttpxRequestFunction:
    """An asynchronous request function (for ``aexecute``); ``token_for`` may answer an awaitable.

    Pass ``client`` to share an ``httpx.AsyncClient``; otherwise one is made, closed by
    :meth:`AsyncHttpxRequestFunction.aclose`.
    """
    return AsyncHttpxRequestFunction(token_for, timeout=timeout, max_body_chars=max_body_chars, client=client)
