"""The host configuration of ``nx-agent serve``: what the host, never the model, supplies.

A JSON file, named by ``--host-config FILE`` or the ``NX_AGENT_HOST_CONFIG`` environment variable
(every key optional)::

    {
      "context": {"$type": "ChatToolContext", "conversationId": "conv_9"},
      "connections": {
        "shop": {"tokenEnv": "SHOP_API_TOKEN"},
        "billing": {"tokenFile": "/run/secrets/billing", "baseUrl": "https://billing.internal"},
        "local": {"baseUrl": "http://127.0.0.1:8080", "allowInsecure": true, "noToken": true}
      },
      "limits": {"maxOperations": 100000, "maxArgumentsSize": 1000, "maxContextSize": 1000,
                 "maxMemory": 268435456, "maxCallsPerConversation": 20},
      "timeout": 10,
      "callIdPrefix": "svc-a",
      "http": {"tokenEnv": "SERVE_TOKEN", "headerTimeout": 10, "bodyTimeout": 30, "maxConnections": 128,
               "maxSessions": 64, "sessionIdleTimeout": 600, "maxRequestBodySize": 1048576}
    }

- ``context``: the tool context record handed to every call of a tool with context parameters
  (the call's ``callId`` is set in it per call);
- ``connections``: per connection name of the definition, where its bearer token comes from:
  ``tokenEnv`` (an environment variable) or ``tokenFile`` (a file holding it); without either, the
  variable ``NX_AGENT_TOKEN_<NAME>`` (name upper-cased, other characters than letters and digits
  as ``_``) when it is set. A connection with no token keeps the server from starting unless
  ``"noToken": true`` says it needs none (its requests then carry no ``authorization`` header).
  ``baseUrl`` sends the connection's requests to another base URL than the stored one (a staging
  host, or a local server in tests): the path and query built under the stored base are kept. An
  ``http:`` override needs ``"allowInsecure": true``;
- ``limits``: the per-call limits of ``create_agent_tools`` (``maxMemory``: bytes of values one call
  may allocate, its ``runtime`` option ``max_memory``, default 256 MiB; past it a call fails
  ``resource-limit`` with limit ``memory``), and ``maxCallsPerConversation``, a cap on every tool's
  calls in one conversation (an MCP session) below the tools' own;
- ``tools``: per tool name, limits of its own in place of ``limits`` (``maxOperations``,
  ``maxArgumentsSize``, ``maxContextSize``), as ``nx-agent cost budget`` writes them:
  ``{"find_plans": {"maxOperations": 22}}``;
- ``timeout``: seconds for one HTTP exchange (default 10);
- ``callIdPrefix``: each call's ``callId`` is ``<prefix>:<n>:<request id>`` (``n`` counts the
  server's calls), unique across connections; the default prefix is random per run;
- ``http``: the HTTP transport's bearer token (``tokenEnv`` or ``tokenFile``; default the variable
  ``NX_AGENT_SERVE_TOKEN``) and its bounds (:mod:`.http_settings`, which gives each default).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import NxError
from ..http.connections import token_env_name, token_from_environment
from .http_settings import HttpSettings, read_http_settings

__all__ = ["ENV_HOST_CONFIG", "ConnectionConfig", "HostConfig", "HostConfigError", "load_host_config", "token_env_name"]

ENV_HOST_CONFIG = "NX_AGENT_HOST_CONFIG"
_KEYS = {"context", "connections", "limits", "tools", "timeout", "callIdPrefix", "http"}
_CONNECTION_KEYS = {"tokenEnv", "tokenFile", "baseUrl", "allowInsecure", "noToken"}
_LIMITS = {
    "maxOperations": "max_operations",
    "maxArgumentsSize": "max_arguments_size",
    "maxContextSize": "max_context_size",
    "maxMemory": "max_memory",
    "maxCallsPerConversation": "max_calls_per_conversation",
}


#: The limits a tool can have of its own (``tools``).
_TOOL_LIMITS = ("maxOperations", "maxArgumentsSize", "maxContextSize")


class HostConfigError(NxError):
    """A host configuration that cannot be used; ``code`` is ``nx-agent-host-config``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = "nx-agent-host-config"


@dataclass(frozen=True)
class ConnectionConfig:
    """Where one connection's token comes from, and where its requests go."""

    token: str | None = None
    base_url: str | None = None
    no_token: bool = False
    """The connection needs no bearer token (``"noToken": true``)."""


@dataclass(frozen=True)
class HostConfig:
    """A read host configuration (see the module)."""

    context: dict[str, Any] | None = None
    connections: dict[str, ConnectionConfig] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)
    tool_limits: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per tool name, the limits it has instead of ``limits`` (``tools``)."""
    timeout: float = 10.0
    call_id_prefix: str = field(default_factory=lambda: secrets.token_hex(4))
    http: HttpSettings = field(default_factory=HttpSettings)
    """The HTTP transport's token and bounds."""

    def token_for(self, connection: str) -> str | None:
        """The bearer token of ``connection`` (``None``: none)."""
        configured = self.connections.get(connection)
        if configured is not None and configured.no_token:
            return None
        if configured is not None and configured.token is not None:
            return configured.token
        return token_from_environment(connection)

    def needs_no_token(self, connection: str) -> bool:
        """Whether the configuration says ``connection`` needs no bearer token."""
        configured = self.connections.get(connection)
        return configured is not None and configured.no_token


def _fail(where: str, message: str) -> HostConfigError:
    return HostConfigError(f"host configuration {where}: {message}")


def _read_connection(where: str, name: str, value: object) -> ConnectionConfig:
    here = f"{where}, connection '{name}'"
    if not isinstance(value, Mapping):
        raise _fail(here, "must be an object")
    unknown = sorted(set(value) - _CONNECTION_KEYS)
    if unknown:
        raise _fail(here, f"unknown key {', '.join(map(repr, unknown))} (known: {', '.join(sorted(_CONNECTION_KEYS))})")
    if "tokenEnv" in value and "tokenFile" in value:
        raise _fail(here, "give tokenEnv or tokenFile, not both")
    token: str | None = None
    if "tokenEnv" in value:
        variable = value["tokenEnv"]
        if not isinstance(variable, str) or not variable:
            raise _fail(here, "tokenEnv must name an environment variable")
        token = os.environ.get(variable)
        if not token:
            raise _fail(here, f"the environment variable {variable} is not set")
    elif "tokenFile" in value:
        path = value["tokenFile"]
        if not isinstance(path, str) or not path:
            raise _fail(here, "tokenFile must be a path")
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise _fail(here, f"cannot read tokenFile: {error.strerror or error}") from None
        if not token:
            raise _fail(here, f"the tokenFile {path} is empty")
    allow_insecure = value.get("allowInsecure", False)
    if not isinstance(allow_insecure, bool):
        raise _fail(here, "allowInsecure must be true or false")
    no_token = value.get("noToken", False)
    if not isinstance(no_token, bool):
        raise _fail(here, "noToken must be true or false")
    if no_token and token is not None:
        raise _fail(here, "give a token (tokenEnv, tokenFile) or noToken, not both")
    base_url = value.get("baseUrl")
    if base_url is not None:
        base_url = _read_base_url(here, base_url, allow_insecure)
    return ConnectionConfig(token=token, base_url=base_url, no_token=no_token)


def _read_base_url(where: str, value: object, allow_insecure: bool) -> str:
    import ada_url

    if not isinstance(value, str) or not ada_url.check_url(value):
        raise _fail(where, f"baseUrl {value!r} is not an absolute URL")
    parsed = ada_url.URL(value)
    if parsed.protocol not in ("https:", "http:") or parsed.search or parsed.hash or parsed.username or parsed.password:
        raise _fail(where, f"baseUrl {value!r} must be an http(s) URL with no query, fragment or credentials")
    if parsed.protocol == "http:" and not allow_insecure:
        raise _fail(where, f"baseUrl {value!r} is not https; set \"allowInsecure\": true to allow it")
    return parsed.href.rstrip("/")


def read_host_config(document: object, where: str = "") -> HostConfig:
    """A host configuration from its parsed JSON."""
    where = where or "(given)"
    if not isinstance(document, Mapping):
        raise _fail(where, "must be a JSON object")
    unknown = sorted(set(document) - _KEYS)
    if unknown:
        raise _fail(where, f"unknown key {', '.join(map(repr, unknown))} (known: {', '.join(sorted(_KEYS))})")
    context = document.get("context")
    if context is not None and not (isinstance(context, dict) and isinstance(context.get("$type"), str)):
        raise _fail(where, "context must be an object with a string '$type'")
    connections_value = document.get("connections", {})
    if not isinstance(connections_value, Mapping):
        raise _fail(where, "connections must be an object")
    connections = {name: _read_connection(where, name, value) for name, value in connections_value.items()}
    limits_value = document.get("limits", {})
    if not isinstance(limits_value, Mapping):
        raise _fail(where, "limits must be an object")
    limits: dict[str, int] = {}
    for key, limit in limits_value.items():
        if key not in _LIMITS:
            raise _fail(where, f"unknown limit {key!r} (known: {', '.join(_LIMITS)})")
        if type(limit) is not int or limit < 0:
            raise _fail(where, f"limit {key} must be a non-negative integer")
        limits[_LIMITS[key]] = limit
    tools_value = document.get("tools", {})
    if not isinstance(tools_value, Mapping):
        raise _fail(where, "tools must be an object of tool names")
    tool_limits: dict[str, dict[str, int]] = {}
    for name, given in tools_value.items():
        if not isinstance(given, Mapping):
            raise _fail(where, f"tools.{name} must be an object of limits")
        own: dict[str, int] = {}
        for key, limit in given.items():
            if key not in _TOOL_LIMITS:
                raise _fail(where, f"unknown limit tools.{name}.{key} (known: {', '.join(_TOOL_LIMITS)})")
            if type(limit) is not int or limit < 0:
                raise _fail(where, f"limit tools.{name}.{key} must be a non-negative integer")
            own[_LIMITS[key]] = limit
        tool_limits[str(name)] = own
    timeout = document.get("timeout", 10.0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise _fail(where, "timeout must be a positive number of seconds")
    prefix = document.get("callIdPrefix")
    if prefix is not None and (not isinstance(prefix, str) or not prefix):
        raise _fail(where, "callIdPrefix must be a non-empty string")
    try:
        http = read_http_settings(document.get("http", {}))
    except ValueError as error:
        raise _fail(where, f"http: {error}") from None
    config = HostConfig(context=context, connections=connections, limits=limits, tool_limits=tool_limits,
                        timeout=float(timeout), http=http)
    return config if prefix is None else replace(config, call_id_prefix=prefix)


def load_host_config(path: str | None = None) -> HostConfig:
    """The host configuration in ``path``, else in the file ``NX_AGENT_HOST_CONFIG`` names, else
    the defaults (no context; tokens from ``NX_AGENT_TOKEN_<NAME>``)."""
    path = path or os.environ.get(ENV_HOST_CONFIG) or None
    if path is None:
        return HostConfig()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise _fail(path, f"cannot be read: {error.strerror or error}") from None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise _fail(path, f"is not JSON: {error}") from None
    return read_host_config(document, path)
