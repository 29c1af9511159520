"""JavaScript-like readings of Python values, for messages and checks that match the reference.

The reference package reads an evaluated value with JavaScript's ``typeof``; here a JSON object is
any :class:`~collections.abc.Mapping`, a list is a ``list`` or ``tuple``, a number is an ``int`` or
``float`` that is not a ``bool``. :data:`MISSING` stands for JavaScript's ``undefined``: an absent key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from .json_text import js_key_order, js_number_text, js_string_literal

__all__ = [
    "MISSING",
    "copy_json",
    "describe_value",
    "is_empty",
    "is_json_object",
    "is_list",
    "is_number",
    "js_trim",
    "js_string",
    "json_problem",
]


class _Missing:
    """The type of :data:`MISSING`."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()
"""An absent value: what ``mapping.get(key, MISSING)`` answers for a key that is not there."""

# ECMAScript WhiteSpace and LineTerminator: what String.prototype.trim removes.
_JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript trims: its whitespace set, which includes U+FEFF and not U+0085."""
    return text.strip(_JS_WHITESPACE)


def is_json_object(value: object) -> bool:
    """Whether ``value`` is a JSON object (any mapping)."""
    return isinstance(value, Mapping)


def is_list(value: object) -> bool:
    """Whether ``value`` is a JSON list (a ``list`` or ``tuple``)."""
    return isinstance(value, (list, tuple))


def is_number(value: object) -> bool:
    """Whether ``value`` is a number as JavaScript's ``typeof`` sees one (a ``bool`` is not)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_empty(value: object) -> bool:
    """Whether an optional field holds nothing: absent, ``None`` or an empty list."""
    return value is MISSING or value is None or (isinstance(value, (list, tuple)) and len(value) == 0)


def describe_value(value: object) -> str:
    """The phrase a message uses for what it got: ``null``, ``a list``, ``a 'Plan'``, ``the number 7``..."""
    if value is None:
        return "null"
    if value is MISSING:
        return "undefined"
    if is_list(value):
        return "a list"
    if isinstance(value, Mapping):
        held = value.get("$type")
        return f"a '{held}'" if isinstance(held, str) else "a record with no '$type'"
    if isinstance(value, str):
        return f"the string {js_string_literal(value)}"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"the number {js_number_text(value)}"
    if callable(value):
        return f"the function {getattr(value, '__name__', type(value).__name__)}"
    return f"the {type(value).__name__} {value!s}"


def js_string(value: object) -> str:
    """``String(value)`` as JavaScript writes it for a message: ``undefined``, ``null``, ``true``, ``2``..."""
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
        return ",".join("" if item is None or item is MISSING else js_string(item) for item in value)
    return str(value)


def copy_json(value: Any) -> Any:
    """A copy of a JSON value that shares nothing with it, as a JSON round trip makes one.

    Mappings become ``dict`` (keys in JavaScript's order), lists and tuples become ``list``.
    """
    if isinstance(value, Mapping):
        return {key: copy_json(value[key]) for key in js_key_order(value.keys())}
    if isinstance(value, (list, tuple)):
        return [copy_json(item) for item in value]
    return value


def json_problem(value: object, path: str, ancestors: tuple[int, ...] = ()) -> str | None:
    """Why ``value`` is not plain JSON, naming the place below ``path``; ``None`` when it is.

    Plain JSON is ``None``, ``bool``, ``str``, a finite ``int``/``float``, a ``list``/``tuple`` of
    plain JSON and a ``dict`` with ``str`` keys holding plain JSON, with no cycle.
    """
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{path} is {js_number_text(value)}, which JSON cannot hold"
    if value is MISSING:
        return f"{path} is undefined, which JSON cannot hold"
    if callable(value) and not isinstance(value, (dict, list, tuple)):
        return f"{path} is a function, which JSON cannot hold"
    if id(value) in ancestors:
        return f"{path} holds itself"
    within = (*ancestors, id(value))
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            problem = json_problem(item, f"{path}[{index}]", within)
            if problem is not None:
                return problem
        return None
    if type(value) is not dict or not all(isinstance(key, str) for key in value):
        return f"{path} is not a plain object"
    for key in js_key_order(value.keys()):
        problem = json_problem(value[key], f"{path}.{key}", within)
        if problem is not None:
            return problem
    return None
