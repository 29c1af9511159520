"""JavaScript-like readings of Python values, for messages and checks that match the reference.

The reference package reads an evaluated value with JavaScript's ``typeof``; here a JSON object is
any :class:`~collections.abc.Mapping`, a list is a ``list`` or ``tuple``, a number is an ``int`` or
``float`` that is not a ``bool``. :data:`MISSING` stands for JavaScript's ``undefined``: an absent key.
``MISSING``, ``describe_value``, ``js_string`` and ``js_trim`` are those of :mod:`nx_agent._js`,
which the HTTP layer shares.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .._js import MISSING, describe_value, js_key_order, js_number_text, js_string, js_trim

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
