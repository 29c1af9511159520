"""A response body decoded as it streams, one bounded piece at a time (no ``httpx`` needed).

``httpx`` inflates each chunk it reads whole: a 64 KB chunk of a gzip bomb becomes tens of
megabytes before any cap on the body can look at it. :class:`BodyDecoder` instead hands out the
decoded bytes in pieces of at most :data:`PIECE_BYTES`, inflating only as far as the reader asks,
so a reader that stops at its cap never holds more than one piece beyond it.

``gzip``, ``x-gzip`` and ``deflate`` (zlib-wrapped or raw, as browsers accept it) are decoded;
``identity`` and no ``content-encoding`` pass the bytes through. Any other coding (``br``,
``zstd``, a list of several) is refused with :class:`UndecodableBody`: the request functions ask
only for ``gzip, deflate``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Final

__all__ = ["ACCEPT_ENCODING", "PIECE_BYTES", "BodyDecoder", "UndecodableBody"]

ACCEPT_ENCODING: Final = "gzip, deflate"
"""The ``accept-encoding`` the request functions send: the codings :class:`BodyDecoder` reads."""
PIECE_BYTES: Final = 16_384
"""The most decoded bytes one piece holds."""

_GZIP_WBITS: Final = 16 + zlib.MAX_WBITS
_ZLIB_WBITS: Final = zlib.MAX_WBITS
_RAW_WBITS: Final = -zlib.MAX_WBITS


class UndecodableBody(Exception):
    """The response's ``content-encoding`` is not one :class:`BodyDecoder` reads, or its bytes are
    not what the coding says."""


def _codings(header: str | None) -> list[str]:
    if not header:
        return []
    return [part for part in (token.strip().lower() for token in header.split(",")) if part and part != "identity"]


class BodyDecoder:
    """The decoded bytes of one response body, in pieces of at most :data:`PIECE_BYTES`.

    ``feed(raw)`` and then ``finish()`` (once the raw body has ended) yield the pieces; a reader
    that has enough stops iterating, and nothing more is inflated. :attr:`produced` counts the
    decoded bytes handed out."""

    __slots__ = ("_inflater", "_pending", "_wbits", "produced")

    def __init__(self, content_encoding: str | None) -> None:
        codings = _codings(content_encoding)
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            raise UndecodableBody(f"content-encoding {content_encoding!r} is not read (only gzip or deflate)")
        self._wbits: int | None = None if not codings else _GZIP_WBITS if codings[0] != "deflate" else 0
        self._inflater: zlib._Decompress | None = None
        self._pending = b""
        #: Decoded bytes handed out so far.
        self.produced = 0

    def _ready(self, raw: bytes) -> bytes | None:
        """The inflater made once the first bytes say which wrapping ``deflate`` has; the bytes to inflate."""
        if self._inflater is not None:
            return raw
        wbits = self._wbits
        assert wbits is not None
        if wbits == 0:
            raw = self._pending + raw
            if len(raw) < 2:
                self._pending = raw
                return None
            self._pending = b""
            # A zlib stream begins with a header whose 16 bits are a multiple of 31 (RFC 1950).
            wrapped = raw[0] & 0x0F == 8 and ((raw[0] << 8) | raw[1]) % 31 == 0
            wbits = _ZLIB_WBITS if wrapped else _RAW_WBITS
        self._inflater = zlib.decompressobj(wbits)
        return raw

    def _inflate(self, raw: bytes) -> Iterator[bytes]:
        inflater = self._inflater
        assert inflater is not None
        while True:
            if inflater.eof:
                return
            try:
                piece = inflater.decompress(raw, PIECE_BYTES)
            except zlib.error as error:
                raise UndecodableBody(f"the body is not valid {'gzip' if self._wbits else 'deflate'}: {error}") from None
            raw = inflater.unconsumed_tail
            if piece:
                self.produced += len(piece)
                yield piece
            # A full piece may leave output inside the inflater even when all input was taken.
            if not raw and len(piece) < PIECE_BYTES:
                return

    def feed(self, raw: bytes) -> Iterator[bytes]:
        """The decoded pieces of the next raw bytes of the body."""
        if self._wbits is None:
            for start in range(0, len(raw), PIECE_BYTES):
                piece = raw[start : start + PIECE_BYTES]
                self.produced += len(piece)
                yield piece
            return
        ready = self._ready(raw)
        if ready:
            yield from self._inflate(ready)

    def finish(self) -> Iterator[bytes]:
        """The pieces still held once the raw body has ended."""
        if self._wbits is None:
            return
        if self._inflater is None:
            if not self._pending:
                return
            # One byte of a deflate body: read it as raw deflate.
            self._inflater = zlib.decompressobj(_RAW_WBITS)
            pending, self._pending = self._pending, b""
            yield from self._inflate(pending)
            return
        yield from self._inflate(b"")
