"""A host value read as a plain JSON tree before Python code of ours walks it.

The runtime reads a host value from its storage, refuses nesting past 256 levels and never runs a
method of the value (ir-format §6). :func:`read_json_tree` gives the Python layer the same footing:
dicts and lists (subclasses too) are read from their storage, ``str``/``int``/``float`` subclasses
become the plain type, a key is a plain string, and nesting past :data:`MAX_DEPTH` (a cycle, too)
is refused with :class:`HostValueError` instead of a ``RecursionError`` or a hang. What comes back
is made only of ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None`` (with
``strict=False``, other leaves are kept as they are).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from .errors import NxError

__all__ = ["HOST_VALUE_ERROR", "MAX_DEPTH", "HostValueError", "json_chars_within", "read_json_tree"]

#: The nesting a host value may have, as the runtime allows (ir-format §6.1).
MAX_DEPTH = 256
HOST_VALUE_ERROR = "nx-agent-host-value"
#: The most digits an int may have (Python's own limit on writing an int as text).
_MAX_INT_DIGITS = 4300


class HostValueError(NxError, TypeError):
    """A host value that is not a JSON tree the package can read (``code`` ``nx-agent-host-value``).

    Also a ``TypeError``: what such a value raised before it was read this way."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = HOST_VALUE_ERROR


def _too_large(value: int) -> bool:
    limit = getattr(sys, "get_int_max_str_digits", lambda: _MAX_INT_DIGITS)() or _MAX_INT_DIGITS
    return value.bit_length() > limit * 3.32


def _leaf(value: object, strict: bool, path: str) -> Any:
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return value if type(value) is str else str.__str__(value)
    if isinstance(value, int):
        plain = value if type(value) is int else int.__index__(value)
        if _too_large(plain):
            raise HostValueError(f"The number at {path or 'the top'} has more than {_MAX_INT_DIGITS} digits.")
        return plain
    if isinstance(value, float):
        return value if type(value) is float else float.__float__(value)
    if strict:
        raise HostValueError(f"The value at {path or 'the top'} is of type '{type(value).__name__}', not a JSON value.")
    return value


def _members(value: object, path: str) -> list[tuple[Any, Any]] | list[Any] | None:
    """The members of a container, read from storage; ``None`` for a leaf."""
    try:
        if isinstance(value, dict):
            return list(dict.items(value))
        if isinstance(value, list):
            return list(list.__iter__(value))
        if isinstance(value, tuple):
            return list(tuple.__iter__(value))
        if isinstance(value, Mapping):
            return [(key, value[key]) for key in value]
    except Exception as error:  # noqa: BLE001 - a mapping whose own methods raise
        raise HostValueError(f"The mapping at {path or 'the top'} cannot be read.") from error
    return None


def _key(key: object, path: str) -> str:
    if isinstance(key, str):
        return key if type(key) is str else str.__str__(key)
    raise HostValueError(f"A key at {path or 'the top'} is of type '{type(key).__name__}', not a string.")


def read_json_tree(value: object, *, strict: bool = True, max_depth: int = MAX_DEPTH) -> Any:
    """``value`` as a plain JSON tree (see the module docs); raises :class:`HostValueError`."""
    # Iterative, so depth costs no Python stack: each entry is a place to fill (a container and its
    # key or index), the value that goes there, its path and its depth.
    top: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, str, int]] = [(top, 0, value, "", 0)]
    while stack:
        place, slot, item, path, depth = stack.pop()
        members = _members(item, path)
        if members is None:
            place[slot] = _leaf(item, strict, path)
            continue
        if depth >= max_depth:
            raise HostValueError(f"The value is nested more than {max_depth} levels deep (or contains itself).")
        copy: Any
        if isinstance(item, (list, tuple)):
            copy = [None] * len(members)
            for index in range(len(members) - 1, -1, -1):
                stack.append((copy, index, members[index], f"{path}[{index}]", depth + 1))
        else:
            copy = {}
            named = [(_key(key, path), member) for key, member in members]
            for name, _ in named:
                copy[name] = None  # each key in its place, in order, before the values are read
            for name, member in reversed(named):
                stack.append((copy, name, member, f"{path}.{name}" if path else name, depth + 1))
        place[slot] = copy
    return top[0]


def json_chars_within(value: Any, limit: int) -> int | None:
    """The characters ``value`` takes as compact JSON (at least: escapes aside), or None as soon as
    they pass ``limit``. A part the document holds at several places is counted at each, as its
    text would be, but the count stops at the limit, so the work does too."""
    total = 0
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, str):
            total += len(current) + 2
        elif isinstance(current, dict):
            total += 1 + 2 * len(current)
            for key, item in current.items():
                total += len(key) + 3
                pending.append(item)
        elif isinstance(current, (list, tuple)):
            total += 1 + len(current)
            pending.extend(current)
        elif isinstance(current, bool) or current is None:
            total += 5
        elif isinstance(current, int):
            total += current.bit_length() * 30103 // 100000 + 2
        else:
            total += 24
        if total > limit:
            return None
    return total
