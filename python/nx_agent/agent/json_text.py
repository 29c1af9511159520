"""JSON text exactly as JavaScript's ``JSON.stringify`` writes it, and a definition's stored text.

The reference package stores a definition as ``JSON.stringify(definition)``: compact, no spaces,
non-ASCII characters written as themselves. Python's ``json.dumps`` differs from that in three
places, which this module settles: numbers (``2.0`` is ``2``, ``1e21`` is ``1e+21``, ``1e-7`` is
``1e-7``, a non-finite number is ``null``), lone surrogates (escaped as ``\\udxxx``), and the key
order of an object, where JavaScript puts array-index keys (``"0"``, ``"17"``) first, in numeric
order, before the others in insertion order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

__all__ = ["definition_text", "js_key_order", "js_number_text", "js_string_literal", "json_text"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")
_MAX_ARRAY_INDEX = 2**32 - 2


def js_number_text(value: float | int) -> str:
    """``String(value)`` of a JavaScript number: ``2.0`` is ``2``, ``1e21`` is ``1e+21``, ``nan`` is ``NaN``."""
    if isinstance(value, bool):
        raise TypeError("a bool is not a number")
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(value))).as_tuple()[1:]
    assert isinstance(exponent, int)
    digits = "".join(str(digit) for digit in digits_tuple).rstrip("0")
    exponent += len(digits_tuple) - len(digits)
    k = len(digits)
    n = exponent + k  # value = 0.digits × 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return sign + mantissa + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def _escape_lone_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _join_pair(match: re.Match[str]) -> str:
    pair = match.group()
    high, low = pair[0], pair[1]
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def js_string_literal(value: str) -> str:
    """``JSON.stringify(value)`` of a string: a surrogate pair is one character, a lone surrogate ``\\udxxx``."""
    text = json.dumps(value, ensure_ascii=False)
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(_escape_lone_surrogate, _SURROGATE_PAIR.sub(_join_pair, text))


def _is_array_index(key: str) -> bool:
    return _ARRAY_INDEX.fullmatch(key) is not None and int(key) <= _MAX_ARRAY_INDEX


def js_key_order(keys: Iterable[str]) -> list[str]:
    """``keys`` in the order a JavaScript object holds them: array indices ascending, then the rest."""
    ordered = list(keys)
    indices = [key for key in ordered if _is_array_index(key)]
    if not indices:
        return ordered
    indices.sort(key=int)
    return indices + [key for key in ordered if not _is_array_index(key)]


def _write(value: Any, parts: list[str]) -> None:
    if value is None or value is True or value is False:
        parts.append("null" if value is None else ("true" if value else "false"))
    elif isinstance(value, str):
        parts.append(js_string_literal(value))
    elif isinstance(value, int):
        parts.append(str(value))
    elif isinstance(value, float):
        parts.append(js_number_text(value) if math.isfinite(value) else "null")
    elif isinstance(value, Mapping):
        parts.append("{")
        first = True
        for key in js_key_order(value.keys()):
            if not isinstance(key, str):
                raise TypeError(f"a JSON object key must be a string, not {type(key).__name__}")
            if not first:
                parts.append(",")
            first = False
            parts.append(js_string_literal(key))
            parts.append(":")
            _write(value[key], parts)
        parts.append("}")
    elif isinstance(value, (list, tuple)):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")


def json_text(value: Any) -> str:
    """``JSON.stringify(value)`` of a JSON value: compact, in JavaScript's number and key spelling.

    Raises ``TypeError`` for anything that is not a JSON value (dicts, lists, tuples, strings,
    numbers, booleans and ``None``).
    """
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def definition_text(definition: Mapping[str, Any]) -> str:
    """The text a host stores for a definition, byte for byte what the npm package stores.

    ``json.loads(definition_text(d)) == d`` for every definition ``normalize_agent`` returns.
    """
    return json_text(definition)
