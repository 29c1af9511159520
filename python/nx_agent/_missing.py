"""The absent-value sentinel the agent layer reads optional fields with, in a module of its own so
that the call path can use it without loading :mod:`nx_agent._js`."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Final

__all__ = ["MISSING"]


class _Missing:
    """The type of :data:`MISSING`: one instance, false in a condition."""

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
