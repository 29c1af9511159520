"""An HttpTool's path template (§6.2) and the dot-segment rule shared with building (§6.6)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal, Union

from .._js import json_quote
from .problem import HttpProblem

_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERAL: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/")
_HEX: Final = frozenset("0123456789ABCDEFabcdef")
_ENCODED_DOT: Final = re.compile("%2e", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class HttpPlaceholder:
    """A ``{name}`` in a path template."""

    name: str


HttpPathPart = Union[str, HttpPlaceholder]
"""A piece of a template: literal text to copy as it is, or a placeholder to fill."""


@dataclass(frozen=True, slots=True)
class HttpPathTemplate:
    """A usable path template.

    ``placeholders`` are the distinct placeholder names in order of first appearance (what
    normalization stores as ``pathPlaceholders``); ``parts`` is the template split into literal text
    and :class:`HttpPlaceholder` pieces, in order.
    """

    parts: tuple[HttpPathPart, ...]
    placeholders: tuple[str, ...]
    ok: Literal[True] = True

    def to_dict(self) -> dict[str, object]:
        """``{"ok": True, "placeholders": [...]}``."""
        return {"ok": True, "placeholders": list(self.placeholders)}


def is_dot_segment(segment: str) -> bool:
    """Whether a URL parser takes ``segment`` for ``.`` or ``..`` (``%2e`` in either case is a dot)."""
    if "%" in segment:
        segment = _ENCODED_DOT.sub(".", segment)
    return segment == "." or segment == ".."


def _utf16_offset(text: str, index: int) -> int:
    """The UTF-16 code-unit offset of the character at ``index`` (what JavaScript reports)."""
    head = text[:index]
    return index if head.isascii() else index + sum(1 for character in head if ord(character) > 0xFFFF)


def _character_text(character: str) -> str:
    """``JSON.stringify(path[index])`` in JavaScript, where an astral character is its high surrogate."""
    if ord(character) > 0xFFFF:
        return f'"\\u{0xD800 + ((ord(character) - 0x10000) >> 10):04x}"'
    return json_quote(character)


def parse_http_path(path: str) -> HttpPathTemplate | HttpProblem:
    """Read an HttpTool's ``path`` template.

    Accepted: text beginning with ``/`` made of the literal characters
    ``A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , ; = : @ /``, ``%XX`` escapes and ``{name}`` placeholders
    named by identifiers, with no literal ``.`` or ``..`` segment (``%2e`` counting as a dot).
    Answers :class:`HttpPathTemplate`, or :class:`HttpProblem` whose ``problem`` is one of the
    reference's texts (offsets are UTF-16 code-unit offsets, as JavaScript counts):

    * ``it does not begin with '/'``
    * ``the '{' at offset <i> is not closed``
    * ``the placeholder '{<name>}' is not named by an identifier``
    * ``the '}' at offset <i> closes no placeholder``
    * ``the '%' at offset <i> is not followed by two hexadecimal digits``
    * ``the character <JSON-quoted> at offset <i> is not a URL path character``
    * ``it has the segment '<segment>'``
    """
    if not path.startswith("/"):
        return HttpProblem("it does not begin with '/'")
    parts: list[HttpPathPart] = []
    placeholders: list[str] = []
    literal: list[str] = []
    index = 0
    length = len(path)
    while index < length:
        character = path[index]
        if character == "{":
            close = path.find("}", index)
            name = "" if close < 0 else path[index + 1 : close]
            if close < 0 or "{" in name:
                return HttpProblem(f"the '{{' at offset {_utf16_offset(path, index)} is not closed")
            if _IDENTIFIER.fullmatch(name) is None:
                return HttpProblem(f"the placeholder '{{{name}}}' is not named by an identifier")
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(HttpPlaceholder(name))
            if name not in placeholders:
                placeholders.append(name)
            index = close + 1
            continue
        if character == "}":
            return HttpProblem(f"the '}}' at offset {_utf16_offset(path, index)} closes no placeholder")
        if character == "%":
            if path[index + 1 : index + 2] not in _HEX or path[index + 2 : index + 3] not in _HEX:
                offset = _utf16_offset(path, index)
                return HttpProblem(f"the '%' at offset {offset} is not followed by two hexadecimal digits")
            literal.append(path[index : index + 3])
            index += 3
            continue
        if character in _LITERAL:
            literal.append(character)
            index += 1
            continue
        offset = _utf16_offset(path, index)
        return HttpProblem(f"the character {_character_text(character)} at offset {offset} is not a URL path character")
    if literal:
        parts.append("".join(literal))
    # A segment some placeholder contributes to is checked once it is filled; the rest are checked now.
    marked = "".join(part if isinstance(part, str) else "{}" for part in parts)
    for segment in marked.split("/"):
        if "{}" not in segment and is_dot_segment(segment):
            return HttpProblem(f"it has the segment '{segment}'")
    return HttpPathTemplate(tuple(parts), tuple(placeholders))
