"""The request functions against servers that do not play fair (issue 15, "Server and client").

- a call id a header cannot carry (CR/LF) is refused as ``invalid-request`` before anything is
  sent, instead of ``unknown-outcome`` after h11 refused the header it had started writing;
- a gzip body that inflates to 200 MB is decoded only as far as the body cap needs: what the call
  allocates stays a small fraction of it (tracemalloc's peak);
- a synchronous request given up at its timeout, against a server that trickles its headers
  forever, ends its worker thread and closes its connection (counted on both sides).

Assertions are on bytes, threads and connections, never on durations: where a state has to be
reached, the test polls for it up to a bound far above what it takes, and fails if it never is.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from polling import eventually
from http_server import Recorder, server  # noqa: F401 - server is a fixture
from test_http_client import make_call, tokens

from nx_agent.agent.diagnostics import NxAgentToolError
from nx_agent.http.client import UNSENDABLE_CALL_ID_MESSAGE, async_request_with, request_with
from nx_agent.http.decoding import PIECE_BYTES, BodyDecoder

POLL_BOUND_SECONDS = 10.0


class RawServer:
    """A loopback server that runs ``handle(connection)`` on a thread per connection, and counts
    the connections it holds open."""

    def __init__(self, handle: Callable[[socket.socket], None]) -> None:
        self.handle = handle
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.open = 0
        self.accepted = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.open += 1
                self.accepted += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            self.handle(connection)
        except OSError:
            pass
        finally:
            connection.close()
            with self.lock:
                self.open -= 1

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.stopping.set()
        self.listener.close()


@contextmanager
def raw_server(handle: Callable[[socket.socket], None]) -> Iterator[RawServer]:
    running = RawServer(handle)
    try:
        yield running
    finally:
        running.close()


def read_request_head(connection: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


# ---- a call id a header cannot carry ---------------------------------------------------------


@pytest.mark.parametrize("call_id", ["t7:1:0\r\nx-forged: 1", "t7:1:0\n", "caf\u00e9", " t7", ""])
def test_a_write_whose_call_id_a_header_cannot_carry_is_refused_before_sending(
    server: tuple[str, Recorder], call_id: str
) -> None:
    base, recorder = server
    call = make_call(base, "post", "/orders", body={"a": 1}, call_id=call_id)
    with request_with(tokens) as request, pytest.raises(NxAgentToolError) as excinfo:
        request(call)
    assert (excinfo.value.code, excinfo.value.message) == ("invalid-request", UNSENDABLE_CALL_ID_MESSAGE)

    async def run() -> None:
        async with async_request_with(tokens) as arequest:
            await arequest(call)

    with pytest.raises(NxAgentToolError) as aexcinfo:
        asyncio.run(run())
    assert aexcinfo.value.code == "invalid-request"
    assert recorder.paths() == []


def test_a_read_does_not_send_its_call_id_so_any_call_id_goes(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(tokens) as request:
        answer = request(make_call(base, "get", "/orders/{id}", {"id": "1"}, call_id="t7:1:0\r\nx"))
    assert answer["status"] == 200 and answer["body"]["idempotency"] is None
    assert recorder.paths() == ["/orders/1"]


def test_a_token_a_header_cannot_carry_is_request_failed_before_sending(server: tuple[str, Recorder]) -> None:
    base, recorder = server
    with request_with(lambda connection: "s3cret\r\nx-forged: 1") as request, pytest.raises(NxAgentToolError) as excinfo:
        request(make_call(base, "get", "/orders/{id}", {"id": "1"}))
    assert excinfo.value.code == "request-failed" and "s3cret" not in excinfo.value.message
    assert recorder.paths() == []


# ---- a gzip bomb --------------------------------------------------------------------------------

BOMB_BYTES = 200 * 1024 * 1024
BODY_CHARS = 1_000
# Far above what decoding up to the cap needs (a raw chunk of 64 KB, one piece of 16 KB, the
# text), far below the 64 MB one chunk of this body inflates to.
PEAK_BOUND = 4 * 1024 * 1024


def _bomb() -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"a" * (1024 * 1024)
    parts = [compressor.compress(block) for _ in range(BOMB_BYTES // len(block))]
    parts.append(compressor.flush())
    return b"".join(parts)


BOMB = _bomb()


def _serve_bomb(connection: socket.socket) -> None:
    read_request_head(connection)
    head = (
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-encoding: gzip\r\n"
        f"content-length: {len(BOMB)}\r\nconnection: close\r\n\r\n"
    )
    connection.sendall(head.encode("ascii") + BOMB)


def test_the_bomb_is_a_bomb() -> None:
    # What the test stands on: the body is small on the wire and inflates to 200 MB.
    assert len(BOMB) < 1024 * 1024
    assert len(gzip.decompress(BOMB)) == BOMB_BYTES


def _peak_of(run: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        answer = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return answer, peak


def test_a_gzip_bomb_is_inflated_only_as_far_as_the_body_cap_sync() -> None:
    with raw_server(_serve_bomb) as bomb, request_with(tokens, max_body_chars=BODY_CHARS) as request:
        call = make_call(bomb.base, "get", "/bomb")
        answer, peak = _peak_of(lambda: request(call))
    assert answer == {"status": 200, "body": "a" * BODY_CHARS}
    assert peak < PEAK_BOUND, f"decoding allocated {peak} bytes at its peak"


def test_a_gzip_bomb_is_inflated_only_as_far_as_the_body_cap_async() -> None:
    async def run(base: str) -> Any:
        async with async_request_with(tokens, max_body_chars=BODY_CHARS) as request:
            return await request(make_call(base, "get", "/bomb"))

    with raw_server(_serve_bomb) as bomb:
        answer, peak = _peak_of(lambda: asyncio.run(run(bomb.base)))
    assert answer == {"status": 200, "body": "a" * BODY_CHARS}
    assert peak < PEAK_BOUND, f"decoding allocated {peak} bytes at its peak"


def test_the_decoder_hands_out_bounded_pieces_and_inflates_no_further_than_asked() -> None:
    decoder = BodyDecoder("gzip")
    pieces = decoder.feed(BOMB[:65_536])
    first = [next(pieces) for _ in range(3)]
    assert all(len(piece) == PIECE_BYTES for piece in first)
    assert decoder.produced == 3 * PIECE_BYTES


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, as some servers send it
        (None, lambda data: data),
        ("identity", lambda data: data),
    ],
)
def test_the_decoder_reads_every_coding_it_asks_for(encoding: str | None, encode: Callable[[bytes], bytes]) -> None:
    data = bytes(range(256)) * 300
    encoded = encode(data)
    decoder = BodyDecoder(encoding)
    # Fed a byte at a time at first (a deflate body's wrapping is known from its first two bytes).
    out = b"".join(piece for at in range(0, 3) for piece in decoder.feed(encoded[at : at + 1]))
    out += b"".join(decoder.feed(encoded[3:])) + b"".join(decoder.finish())
    assert out == data and decoder.produced == len(data)


# ---- a request given up at its timeout ----------------------------------------------------------

TRICKLE_TIMEOUT = 0.3


def _trickle_headers(connection: socket.socket) -> None:
    """Answer a status line, then one header byte every 50 ms, for as long as the client listens."""
    read_request_head(connection)
    connection.sendall(b"HTTP/1.1 200 OK\r\nx-slow: ")
    for _ in range(4000):
        time.sleep(0.05)
        connection.sendall(b"a")


def _workers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith("nx-agent-http ")]


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_request_given_up_at_its_timeout_closes_its_connection_and_its_worker_ends(method: str) -> None:
    earlier = set(_workers())  # another test's, if any
    with raw_server(_trickle_headers) as trickle, request_with(tokens, timeout=TRICKLE_TIMEOUT) as request:
        body = {"a": 1} if method == "post" else None
        call = make_call(trickle.base, method, "/orders", **({"body": body} if body is not None else {}))
        with pytest.raises(NxAgentToolError) as excinfo:
            request(call)
        assert excinfo.value.code == ("request-failed" if method == "get" else "unknown-outcome")
        assert trickle.accepted == 1
        # The server trickles for minutes; the worker and the connection end long before.
        assert eventually(lambda: not set(_workers()) - earlier, POLL_BOUND_SECONDS), [thread.name for thread in _workers()]
        assert eventually(lambda: trickle.open == 0, POLL_BOUND_SECONDS), f"{trickle.open} connection(s) still open"
