"""A connection's base URL (§6.1) and the check that a built URL stays under it (§6.6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from . import _whatwg
from .problem import HttpProblem


@dataclass(frozen=True, slots=True)
class HttpBaseUrl:
    """A usable base URL.

    ``prefix`` is the text without a trailing ``/`` (what a path, which begins with one, is appended
    to); ``origin`` is the WHATWG origin; ``path`` is the parsed path without a trailing ``/``
    (``""`` for the origin alone).
    """

    prefix: str
    origin: str
    path: str
    ok: Literal[True] = True

    def to_dict(self) -> dict[str, object]:
        """The reference's shape: ``{"ok": True, "prefix", "origin", "path"}``."""
        return {"ok": True, "prefix": self.prefix, "origin": self.origin, "path": self.path}


def parse_http_base_url(base_url: str, *, allow_insecure: bool = False) -> HttpBaseUrl | HttpProblem:
    """Read a connection's ``baseUrl`` with WHATWG URL semantics.

    Accepted: an absolute ``https`` URL (``http`` too with ``allow_insecure``) with no query, no
    fragment, no user information, written exactly as a URL parser writes it (one trailing ``/``
    aside). Answers :class:`HttpBaseUrl`, or :class:`HttpProblem` whose ``problem`` is one of the
    reference's texts, checked in this order:

    * ``it is not an absolute URL``
    * ``its scheme is '<scheme>', not 'https'``
    * ``it has a query`` / ``it has a fragment`` (any ``?`` / ``#`` in the text)
    * ``it has user information``
    * ``a URL parser reads it as '<canonical>'; write it that way``

    Never raises for a string; ``ada_url`` is imported on first use.
    """
    url = _whatwg.parse(base_url)
    if url is None:
        return HttpProblem("it is not an absolute URL")
    scheme = url.protocol[:-1]
    if scheme != "https" and not (scheme == "http" and allow_insecure):
        return HttpProblem(f"its scheme is '{scheme}', not 'https'")
    if "?" in base_url:
        return HttpProblem("it has a query")
    if "#" in base_url:
        return HttpProblem("it has a fragment")
    authority = base_url[len(url.protocol) + 2 :].split("/", 1)[0]
    if url.username or url.password or "@" in authority:
        return HttpProblem("it has user information")
    prefix = base_url[:-1] if base_url.endswith("/") else base_url
    canonical = url.href[:-1] if url.href.endswith("/") else url.href
    if canonical != prefix:
        return HttpProblem(f"a URL parser reads it as '{canonical}'; write it that way")
    path = url.pathname[:-1] if url.pathname.endswith("/") else url.pathname
    return HttpBaseUrl(prefix, url.origin, path)


def under_base_url(base: HttpBaseUrl, path: str, query: str) -> str | None:
    """The URL ``base.prefix + path + query`` if a WHATWG parser reads it exactly as it was put together.

    Answers the URL only when ``path`` begins with ``/``, the text parses, the parser's ``href`` is the
    text itself, the origin is the base's, there is no user information, the parsed path is
    ``base.path + path``, the parsed search is ``query`` (so a bare ``?`` fails) and there is no
    fragment. Answers ``None`` otherwise.
    """
    url = base.prefix + path + query
    if not path.startswith("/"):
        return None
    parsed = _whatwg.parse(url)
    if (
        parsed is not None
        and parsed.href == url
        and parsed.origin == base.origin
        and parsed.username == ""
        and parsed.password == ""
        and parsed.pathname == base.path + path
        and parsed.search == query
        and parsed.hash == ""
    ):
        return url
    return None
