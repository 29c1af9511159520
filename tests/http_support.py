"""Builders for HTTP tool definitions and HttpArguments values, as the reference's tests make them."""

from __future__ import annotations

import re
from typing import Mapping, Sequence

ANNOTATIONS = {
    "get": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True},
    "post": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True},
    "put": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": True},
    "patch": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True},
    "delete": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": True},
}


def http_tool(method: str, path: str, base_url: str = "https://api.example.com", name: str = "lookup_order") -> dict[str, object]:
    """An ``http`` tool as normalization stores it (§2.2/§2.3), connection ``shop``."""
    placeholders = list(dict.fromkeys(re.findall(r"\{([^{}]*)\}", path)))
    return {
        "name": name,
        "description": "Looks an order up.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": dict(ANNOTATIONS[method]),
        "kind": "http",
        "config": {
            "arguments": {"module": "main.nx", "name": "lookupOrder"},
            "contextParameters": [],
            "connection": {"name": "shop", "baseUrl": base_url},
            "method": method,
            "path": path,
            "pathPlaceholders": placeholders,
        },
    }


NO_BODY = object()


def http_arguments(
    path_params: Mapping[str, str] | Sequence[tuple[str, str]] = (),
    query: Sequence[tuple[str, str]] = (),
    body: object = NO_BODY,
) -> dict[str, object]:
    """An ``HttpArguments`` value in canonical form, as an arguments function returns it."""
    pairs = list(path_params.items()) if isinstance(path_params, Mapping) else list(path_params)
    value: dict[str, object] = {"$type": "HttpArguments"}
    if pairs:
        value["pathParams"] = [{"$type": "HttpParam", "name": n, "value": v} for n, v in pairs]
    if query:
        value["query"] = [{"$type": "HttpParam", "name": n, "value": v} for n, v in query]
    if body is not NO_BODY:
        value["body"] = body
    return value
