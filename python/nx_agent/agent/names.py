"""Tool names: the pattern every model-facing name matches, and the snake_case of an NX name."""

from __future__ import annotations

import re

__all__ = ["TOOL_NAME_PATTERN", "TOOL_NAME_PATTERN_SOURCE", "is_tool_name", "to_snake_case"]

TOOL_NAME_PATTERN_SOURCE = "^[a-z][a-z0-9_]{0,63}$"
"""The pattern's text, as diagnostics quote it (the reference's ``.source``)."""

TOOL_NAME_PATTERN: re.Pattern[str] = re.compile(TOOL_NAME_PATTERN_SOURCE)
"""What a tool name matches. Use ``fullmatch`` (as :func:`is_tool_name` does): Python's ``$`` also
matches before a final newline, and ``"find_plans\n"`` is not a tool name."""


def is_tool_name(name: object) -> bool:
    """Whether ``name`` is a string that can be a model-facing tool name."""
    return isinstance(name, str) and TOOL_NAME_PATTERN.fullmatch(name) is not None


def _is_upper(character: str) -> bool:
    return "A" <= character <= "Z"


def _is_lower(character: str) -> bool:
    return "a" <= character <= "z"


def _is_digit(character: str) -> bool:
    return "0" <= character <= "9"


def to_snake_case(name: str) -> str:
    """``name`` in snake_case: ``findPlans`` is ``find_plans``, ``HTTPStatusFor`` is ``http_status_for``.

    A word begins at an ASCII capital that follows a lower-case letter or a digit, or that ends a
    run of capitals followed by a lower-case letter. Any character other than an ASCII letter or
    digit ends a word and is dropped. The result is not checked against the name pattern.
    """
    words: list[str] = []
    word: list[str] = []
    last = len(name) - 1
    for index, character in enumerate(name):
        alnum = _is_upper(character) or _is_lower(character) or _is_digit(character)
        starts_word = False
        if _is_upper(character) and index > 0:
            previous = name[index - 1]
            if _is_lower(previous) or _is_digit(previous):
                starts_word = True
            elif _is_upper(previous) and index < last and _is_lower(name[index + 1]):
                starts_word = True
        if (not alnum or starts_word) and word:
            words.append("".join(word))
            word = []
        if alnum:
            word.append(character.lower())
    if word:
        words.append("".join(word))
    return "_".join(words)
