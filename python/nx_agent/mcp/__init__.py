"""An agent's tools over MCP, with the official ``mcp`` SDK (the ``mcp`` extra).

- :func:`create_mcp_server` puts the tools ``load_agent``/``create_agent_tools`` answer behind the
  SDK's low-level ``Server`` (:mod:`.server`; how tools and outputs read on each protocol version:
  :mod:`.listing`);
- :func:`serve_stdio` and :func:`serve_http` run it (:mod:`.transports`);
- ``nx-agent serve`` (:mod:`.command`) does both from a stored definition and its images, with a
  host configuration (:mod:`.host_config`) for contexts, tokens and base URL overrides.

The host configuration (:mod:`.host_config`) and :mod:`.listing` need no extra; the server and
the transports are imported on first use, and without the ``mcp`` extra say which to install.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .host_config import HostConfig, HostConfigError, load_host_config, read_host_config

if TYPE_CHECKING:
    from .listing import listed_tool, structured_output
    from .server import McpCall, McpToolServer, ResultEvent, create_mcp_server, request_id_call_id, session_conversation
    from .transports import serve_http, serve_stdio

__all__ = [
    "HostConfig",
    "HostConfigError",
    "McpCall",
    "McpToolServer",
    "ResultEvent",
    "create_mcp_server",
    "listed_tool",
    "load_host_config",
    "read_host_config",
    "request_id_call_id",
    "serve_http",
    "serve_stdio",
    "session_conversation",
    "structured_output",
]

_LAZY = {
    "listed_tool": ".listing",
    "structured_output": ".listing",
    "McpCall": ".server",
    "McpToolServer": ".server",
    "ResultEvent": ".server",
    "create_mcp_server": ".server",
    "request_id_call_id": ".server",
    "session_conversation": ".server",
    "serve_http": ".transports",
    "serve_stdio": ".transports",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
