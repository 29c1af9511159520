"""WHATWG URL parsing through ``ada-url`` (the parser Node.js uses), imported on first use.

JavaScript hands the parser a string of UTF-16 code units and the parser first turns every lone
surrogate into U+FFFD; :func:`parse` does the same before encoding to UTF-8 for ``ada``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Final, NamedTuple

from .._js import well_formed

if TYPE_CHECKING:
    from ada_url.ada_adapter import ParseAttributes

_ATTRIBUTES: Final = ("href", "protocol", "origin", "username", "password", "pathname", "search", "hash")


class WhatwgUrl(NamedTuple):
    """The parts of a parsed URL that the HTTP rules read (WHATWG ``URL`` getters)."""

    href: str
    protocol: str
    origin: str
    username: str
    password: str
    pathname: str
    search: str
    hash: str


_parse_url: Callable[..., ParseAttributes] | None = None


def _parser() -> Callable[..., ParseAttributes]:
    global _parse_url
    if _parse_url is None:
        from ada_url import parse_url

        _parse_url = parse_url
    return _parse_url


def parse(text: str) -> WhatwgUrl | None:
    """``new URL(text)``: the parsed parts, or ``None`` when ``text`` is not an absolute URL."""
    try:
        parts = _parser()(well_formed(text), _ATTRIBUTES)
    except ValueError:
        return None
    return WhatwgUrl(
        parts["href"],
        parts["protocol"],
        parts["origin"],
        parts["username"],
        parts["password"],
        parts["pathname"],
        parts["search"],
        parts["hash"],
    )
