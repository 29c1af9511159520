"""Hostile host values shared by the hostile-value tests, the boundary regression tests and the
atheris target (``fuzz/boundary.py``): containers whose own Python methods raise, so a reader that
calls them (instead of reading the storage) lets an exception other than ``NxError`` escape."""

from __future__ import annotations

from typing import Any, Iterator


class Boom(Exception):
    """Raised by hostile user code; must never escape the boundary."""


class RaisingDict(dict):  # type: ignore[type-arg]
    """A dict whose every reading method raises; its storage holds the members."""

    def __iter__(self) -> Iterator[Any]:
        raise Boom("__iter__")

    def __len__(self) -> int:
        raise Boom("__len__")

    def __getitem__(self, key: Any) -> Any:
        raise Boom("__getitem__")

    def keys(self) -> Any:
        raise Boom("keys")

    def items(self) -> Any:
        raise Boom("items")

    def values(self) -> Any:
        raise Boom("values")

    def get(self, key: Any, default: Any = None) -> Any:
        raise Boom("get")

    def __contains__(self, key: object) -> bool:
        raise Boom("__contains__")


class RaisingList(list):  # type: ignore[type-arg]
    """A list whose reading methods raise; its storage holds the items."""

    def __iter__(self) -> Iterator[Any]:
        raise Boom("__iter__")

    def __len__(self) -> int:
        raise Boom("__len__")

    def __getitem__(self, index: Any) -> Any:
        raise Boom("__getitem__")
