"""JavaScript renderings the reference's messages and bodies are written in.

The reference package interpolates values with ``String(v)``, quotes them with ``JSON.stringify`` and
describes them with its ``describeValue`` helper; these functions give the same text for the JSON-like
values a Python host holds. ``MISSING`` stands for JavaScript's ``undefined`` (a member not present).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Final


class _Missing:
    """The type of :data:`MISSING`: a member that is not there (JavaScript's ``undefined``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()

_SHORT_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def well_formed(text: str) -> str:
    """``text`` as JavaScript's UTF-8 encoders see it: a lone surrogate becomes U+FFFD.

    An adjacent high and low surrogate form one character, as the two UTF-16 code units they are in
    JavaScript. Strings without surrogates are returned as they are.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def json_quote(text: str) -> str:
    """``JSON.stringify`` of a string: short escapes, ``\\u00XX`` for other controls, lone surrogates escaped."""
    out = ['"']
    units = text.encode("utf-16-le", "surrogatepass")
    count = len(units) // 2
    index = 0
    while index < count:
        unit = units[2 * index] | (units[2 * index + 1] << 8)
        if 0xD800 <= unit <= 0xDBFF and index + 1 < count:
            low = units[2 * index + 2] | (units[2 * index + 3] << 8)
            if 0xDC00 <= low <= 0xDFFF:
                out.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                index += 2
                continue
        character = chr(unit)
        if character in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[character])
        elif unit < 0x20 or 0xD800 <= unit <= 0xDFFF:
            out.append(f"\\u{unit:04x}")
        else:
            out.append(character)
        index += 1
    out.append('"')
    return "".join(out)


def js_number(value: float) -> str:
    """ECMAScript ``Number::toString`` of ``value`` (``2.0`` is ``2``, ``1e-7`` is ``1e-7``, NaN is ``NaN``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(digit) for digit in digits_tuple.digits)
    exponent = digits_tuple.exponent
    assert isinstance(exponent, int)
    k = len(digits)
    n = k + exponent  # the decimal point sits after n digits
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        power = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"
    return sign + text


def js_string(value: object) -> str:
    """JavaScript ``String(value)`` for a JSON-like value (``...`` for one nested too deeply to render)."""
    try:
        return _js_string(value)
    except RecursionError:
        return "..."


def _js_string(value: object) -> str:
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None or item is MISSING else _js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def js_json(value: object) -> str:
    """``JSON.stringify(value)`` for a JSON-like value; ``undefined`` for :data:`MISSING` (``...`` if too deep)."""
    try:
        return _js_json(value)
    except RecursionError:
        return "..."


def _js_json(value: object) -> str:
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, list):
        return "[" + ",".join("null" if item is MISSING else _js_json(item) for item in value) + "]"
    if isinstance(value, dict):
        members = [f"{json_quote(str(key))}:{_js_json(held)}" for key, held in value.items() if held is not MISSING]
        return "{" + ",".join(members) + "}"
    return json_quote(str(value))


def describe_value(value: object) -> str:
    """The phrase the reference's messages use for what a value is (``describeValue``)."""
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        held_type = value.get("$type")
        return f"a '{held_type}'" if isinstance(held_type, str) else "a record with no '$type'"
    if isinstance(value, str):
        return f"the string {json_quote(value)}"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"the number {js_string(value)}"
    return f"the {type(value).__name__} {value}"
