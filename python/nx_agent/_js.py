"""JavaScript readings of Python values, in which the reference package writes its messages and texts.

The reference package interpolates values with ``String(v)``, quotes them with ``JSON.stringify``,
describes them with its ``describeValue`` helper (agent-package.md §0.2), trims with
``String.prototype.trim`` and encodes text as UTF-8 the way its encoders do. These functions give
the same text for the JSON-like values a Python host holds: an object is any
:class:`~collections.abc.Mapping`, a list is a ``list`` or ``tuple``. :data:`MISSING` stands for
JavaScript's ``undefined`` (a member that is not there).

Python's ``json.dumps`` differs from ``JSON.stringify`` in three places, which :func:`json_text`
settles: numbers (``2.0`` is ``2``, ``1e21`` is ``1e+21``, ``1e-7`` is ``1e-7``, a non-finite
number is ``null``), lone surrogates (escaped as ``\\udxxx``), and the key order of an object, where
JavaScript puts array-index keys (``"0"``, ``"17"``) first, in numeric order, before the others in
insertion order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = [
    "MISSING",
    "describe_value",
    "is_array_index",
    "js_json",
    "js_key_order",
    "js_number_text",
    "js_string",
    "js_trim",
    "json_quote",
    "json_text",
    "well_formed",
]


from ._missing import MISSING, _Missing  # noqa: E402 - re-exported: the one sentinel

# ECMAScript WhiteSpace and LineTerminator: what String.prototype.trim removes.
_JS_WHITESPACE: Final = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(source: str) -> re.Pattern[str]:
    """``source`` compiled on first use (a cold start compiles none of these)."""
    pattern = _PATTERNS.get(source)
    if pattern is None:
        pattern = _PATTERNS[source] = re.compile(source)
    return pattern


#: ``json.dumps(value, ensure_ascii=False)`` of a string, without making an encoder per call.
_quoted: Final = json.encoder.encode_basestring
_DIGITS: Final = frozenset("0123456789")
_SURROGATE: Final = "[\ud800-\udfff]"
_SURROGATE_PAIR: Final = "[\ud800-\udbff][\udc00-\udfff]"
_ARRAY_INDEX: Final = r"0|[1-9][0-9]{0,9}"
_MAX_ARRAY_INDEX: Final = 2**32 - 2


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript trims: its whitespace set, which includes U+FEFF and not U+0085."""
    return text.strip(_JS_WHITESPACE)


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
    from decimal import Decimal  # loaded by the first float written: a cold start needs none

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


def json_quote(value: str) -> str:
    """``JSON.stringify(value)`` of a string: a surrogate pair is one character, a lone surrogate ``\\udxxx``."""
    text = _quoted(value)
    if text.isascii() or _compiled(_SURROGATE).search(text) is None:
        return text
    return _compiled(_SURROGATE).sub(_escape_lone_surrogate, _compiled(_SURROGATE_PAIR).sub(_join_pair, text))


def is_array_index(key: str) -> bool:
    """Whether ``key`` is an array index (``"0"``, ``"17"``, at most 2³² − 2), which JavaScript orders first."""
    return _compiled(_ARRAY_INDEX).fullmatch(key) is not None and int(key) <= _MAX_ARRAY_INDEX


def js_key_order(keys: Iterable[str]) -> list[str]:
    """``keys`` in the order a JavaScript object holds them: array indices ascending, then the rest."""
    ordered = list(keys)
    # An index starts with an ASCII digit: most keys are told apart without the pattern.
    indices = [key for key in ordered if key[:1] in _DIGITS and is_array_index(key)]
    if not indices:
        return ordered
    indices.sort(key=int)
    return indices + [key for key in ordered if not is_array_index(key)]


def _member_keys(value: Mapping[Any, Any], loose: bool) -> list[Any]:
    keys = list(value.keys())
    for key in keys:
        if not isinstance(key, str):
            if not loose:
                raise TypeError(f"a JSON object key must be a string, not {type(key).__name__}")
            return keys
    return js_key_order(keys)


def _write(value: Any, parts: list[str], loose: bool) -> None:
    if value is None or value is True or value is False:
        parts.append("null" if value is None else ("true" if value else "false"))
    elif isinstance(value, str):
        parts.append(json_quote(value))
    elif isinstance(value, int):
        parts.append(str(value))
    elif isinstance(value, float):
        parts.append(js_number_text(value) if math.isfinite(value) else "null")
    elif isinstance(value, Mapping):
        parts.append("{")
        first = True
        for key in _member_keys(value, loose):
            held = value[key]
            if loose and held is MISSING:
                continue
            if not first:
                parts.append(",")
            first = False
            parts.append(json_quote(key if isinstance(key, str) else str(key)))
            parts.append(":")
            _write(held, parts, loose)
        parts.append("}")
    elif isinstance(value, (list, tuple)):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            if loose and item is MISSING:
                parts.append("null")
            else:
                _write(item, parts, loose)
        parts.append("]")
    elif loose:
        parts.append("undefined" if value is MISSING else json_quote(str(value)))
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")


def json_text(value: Any) -> str:
    """``JSON.stringify(value)`` of a JSON value: compact, in JavaScript's number and key spelling.

    Raises ``TypeError`` for anything that is not a JSON value (mappings with string keys, lists,
    tuples, strings, numbers, booleans and ``None``).
    """
    parts: list[str] = []
    _write(value, parts, False)
    return "".join(parts)


def js_json(value: object) -> str:
    """``JSON.stringify(value)`` as a message interpolates it, for any value (never raises).

    :data:`MISSING` is ``undefined`` (a member holding it is left out, a list item is ``null``);
    anything with no JSON form is quoted as its ``str``; a value nested too deeply is ``...``.
    """
    parts: list[str] = []
    try:
        _write(value, parts, True)
    except RecursionError:
        return "..."
    return "".join(parts)


def js_string(value: object) -> str:
    """``String(value)`` as JavaScript writes it for a message: ``undefined``, ``null``, ``true``, ``2``...

    A value nested too deeply to render is ``...``.
    """
    try:
        return _js_string(value)
    except RecursionError:
        return "..."


def _js_string(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_text(value)
    if isinstance(value, Mapping):
        return "[object Object]"
    if isinstance(value, (list, tuple)):
        return ",".join("" if item is None or item is MISSING else _js_string(item) for item in value)
    return str(value)


def describe_value(value: object) -> str:
    """The phrase a message uses for what it got: ``null``, ``a list``, ``a 'Plan'``, ``the number 7``..."""
    if value is None:
        return "null"
    if value is MISSING:
        return "undefined"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        held = value.get("$type")
        return f"a '{held}'" if isinstance(held, str) else "a record with no '$type'"
    if isinstance(value, str):
        return f"the string {json_quote(value)}"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"the number {js_number_text(value)}"
    if callable(value):
        return f"the function {getattr(value, '__name__', type(value).__name__)}"
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a host object whose own __str__ raises: its type alone
        return f"a {type(value).__name__}"
    return f"the {type(value).__name__} {text}"
