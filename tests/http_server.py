"""A threaded HTTP server on loopback for the request-function tests: it records what arrives.

Routes (by path prefix): ``/slow`` answers after ``SLOW_SECONDS`` (or when released), ``/redirect``
answers 302, ``/missing`` 404, ``/text`` plain text, ``/big`` 200,000 bytes; anything else echoes the
request it saw as JSON (200 for GET, 201 otherwise).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

SLOW_SECONDS = 5.0


class Recorder:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        self.lock = threading.Lock()

    def paths(self) -> list[str]:
        with self.lock:
            return [entry["path"] for entry in self.requests]


class LoopbackHTTPServer(ThreadingHTTPServer):
    """A threaded server whose handlers may find their client gone: a test of a timeout or of a
    body cap hangs up before the answer is written, which is expected and not printed (any other
    failure of a handler still is)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def make_handler(recorder: Recorder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode("utf-8") if length else None
            entry = {
                "method": self.command,
                "path": self.path,
                "authorization": self.headers.get("authorization"),
                "idempotency": self.headers.get("idempotency-key"),
                "content_type": self.headers.get("content-type"),
                "body": body,
            }
            with recorder.lock:
                recorder.requests.append(entry)
            route = self.path.split("?")[0]
            if route.startswith("/slow"):
                recorder.release.wait(SLOW_SECONDS)
                self._send(200, b'{"late":true}')
            elif route.startswith("/redirect"):
                self._send(302, b"", {"location": "/elsewhere"})
            elif route.startswith("/missing"):
                self._send(404, b'{"error":"not found"}')
            elif route.startswith("/text"):
                self._send(200, "plain \u00e9 text".encode("utf-8"), {"content-type": "text/plain"})
            elif route.startswith("/big"):
                self._send(200, b"x" * 200_000, {"content-type": "text/plain"})
            else:
                self._send(200 if self.command == "GET" else 201, json.dumps(entry).encode("utf-8"))

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {"content-type": "application/json"}).items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

    return Handler


@contextmanager
def loopback_server() -> Iterator[tuple[str, Recorder]]:
    """The server running on a free loopback port: its base URL and its recorder."""
    recorder = Recorder()
    httpd = LoopbackHTTPServer(("127.0.0.1", 0), make_handler(recorder))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", recorder
    finally:
        recorder.release.set()
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server() -> Iterator[tuple[str, Recorder]]:
    with loopback_server() as running:
        yield running
