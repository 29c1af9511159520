"""How a host reaches a connection: the bearer token it reads from the environment by default,
and its requests sent under another base URL than the one the definition stores.

``nx-agent call --base-url NAME=URL`` and ``serve``'s host configuration route a connection to
another server (a local stand-in, a proxy): each request is built and checked under the stored
base URL as always, then its stored base is swapped for the one to use, the rest kept as built.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..agent.definition import is_http_tool
from ..agent.diagnostics import NxAgentToolError

__all__ = ["TOKEN_ENV_PREFIX", "RoutedRequest", "stored_base_urls", "token_env_name", "token_from_environment"]

TOKEN_ENV_PREFIX = "NX_AGENT_TOKEN_"


def token_env_name(connection: str) -> str:
    """The variable holding a connection's bearer token: ``NX_AGENT_TOKEN_<NAME>``, the name
    upper-cased with every character but letters and digits as ``_``."""
    return TOKEN_ENV_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", connection).upper()


def token_from_environment(connection: str) -> str | None:
    """The token in ``connection``'s variable (:func:`token_env_name`); ``None`` when unset or empty."""
    return os.environ.get(token_env_name(connection)) or None


def stored_base_urls(tools: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The stored base URL of each connection, by name, read from the ``http`` tools among ``tools``."""
    bases: dict[str, str] = {}
    for tool in tools:
        if is_http_tool(tool):
            connection = tool["config"]["connection"]
            bases[connection["name"]] = connection["baseUrl"]
    return bases


class RoutedRequest:
    """A request function that sends a connection's requests to the base URL its route gives
    instead of the stored one (the rest of the URL as built), then hands the call to ``inner`` and
    answers what it answers: ``inner`` may be synchronous or answer an awaitable. A URL not under
    its stored base URL is refused (``request-failed``), never sent elsewhere."""

    def __init__(self, inner: Any, routes: Mapping[str, tuple[str, str]]) -> None:
        self.inner = inner
        #: connection name → (stored base URL, base URL to use)
        self.routes = dict(routes)

    def __call__(self, call: Mapping[str, Any]) -> Any:
        route = self.routes.get(call["connection"])
        if route is not None:
            stored, used = route
            url: str = call["request"]["url"]
            rest = url[len(stored):]
            if not url.startswith(stored) or (rest and rest[0] not in "/?"):
                raise NxAgentToolError("request-failed", "The request is not under its connection's base URL.")
            call = {**call, "request": {**call["request"], "url": used + rest}}
        return self.inner(call)
