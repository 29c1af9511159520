"""Encoding of values into a URL (§6.5) and of a body into JSON text (§6.7)."""

from __future__ import annotations

import json
import math
import re
from typing import Final
from urllib.parse import quote_from_bytes

from .._js import is_array_index, js_key_order, json_text, well_formed

_MAX_SAFE_INTEGER: Final = 2**53
_UNRESERVED: Final = re.compile(r"[A-Za-z0-9\-._~]*")


def encode_component(value: str) -> str:
    """Percent-encode every UTF-8 byte of ``value`` outside ``A-Z a-z 0-9 - . _ ~`` (upper-case hex).

    A lone surrogate is first replaced by U+FFFD (an adjacent high and low surrogate count as the one
    character they stand for in UTF-16), as JavaScript's encoders do.
    """
    if _UNRESERVED.fullmatch(value) is not None:
        return value
    return quote_from_bytes(well_formed(value).encode("utf-8"), safe="")


class _NotJson(Exception):
    """A body member that has no JSON form."""


def _strip(value: object, plain: list[bool]) -> object:
    """``value`` without ``$type`` keys at any depth; ``plain[0]`` turns false if ``json.dumps`` would differ from JS."""
    if isinstance(value, dict):
        copy: dict[str, object] = {}
        indexed = False
        for key, held in value.items():
            if not isinstance(key, str):
                raise _NotJson
            if key != "$type":
                copy[key] = _strip(held, plain)
            if plain[0] and not key.isascii():
                plain[0] = _utf8_clean(key)
            indexed = indexed or is_array_index(key)
        return {key: copy[key] for key in js_key_order(copy)} if indexed else copy
    if isinstance(value, list):
        return [_strip(item, plain) for item in value]
    if isinstance(value, str):
        if plain[0] and not value.isascii():
            plain[0] = _utf8_clean(value)
        return value
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < _MAX_SAFE_INTEGER:
            return int(value)
        plain[0] = False
        return value
    raise _NotJson


def _utf8_clean(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def body_json(body: object) -> str | None:
    """The body as ``JSON.stringify`` writes it after removing every ``$type`` key, or ``None`` if it is no JSON value.

    JSON values are ``None``, ``bool``, ``int``, ``float``, ``str``, ``list`` and ``dict`` with string
    keys. Numbers are written as JavaScript writes them (``2.0`` as ``2``; NaN and infinities as
    ``null``); lone surrogates are escaped. The value handed in is not modified.
    """
    plain = [True]
    try:
        stripped = _strip(body, plain)
    except (_NotJson, RecursionError):
        return None
    if plain[0]:
        return json.dumps(stripped, separators=(",", ":"), ensure_ascii=False)
    return json_text(stripped)
