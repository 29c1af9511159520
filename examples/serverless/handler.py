"""A serverless function serving an NX agent's tools, in the shape AWS Lambda calls:
``handler(event, context)``.

Deploy this file with ``nx-agent`` installed and the agent's bundle beside it
(``nx-agent compile main.nx.nxir agent.nx.nxir --bundle -o agent.bundle.json``); set
``NX_AGENT_BUNDLE`` to another path to move it. The bundle is loaded once per cold start, when
the runtime imports this module; each invocation is then one tool call:

- a direct invocation: ``{"name": "find_plans", "input": {"teamSize": 5}, "callId": "turn-1:0"}``
  answers the tool's result (``{"ok": true, "output": ..., "usage": ...}`` or ``{"ok": false,
  "error": {"code", "message"}}``);
- through an HTTP front (API Gateway or a function URL: the event has a ``body``): the same call
  as the JSON body, answered as ``{"statusCode", "headers", "body"}``.

``http`` tools send their requests with httpx (the ``http`` extra), each connection's bearer token
read from ``NX_AGENT_TOKEN_<CONNECTION>``; the client is made on the first such call, so a
function whose calls never reach an ``http`` tool never loads httpx.
"""

from __future__ import annotations

import json
import os
from typing import Any

from nx_agent import load_bundle

BUNDLE = os.environ.get("NX_AGENT_BUNDLE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent.bundle.json"))
_client: Any = None


def _request(call: dict[str, Any]) -> Any:
    """The request function of ``http`` tools: an httpx client made on the first call, then kept."""
    global _client
    if _client is None:
        from nx_agent.http.client import request_with

        _client = request_with(lambda connection: os.environ.get(f"NX_AGENT_TOKEN_{connection.upper()}"))
    return _client(call)


# Loaded at import: the runtime's init phase, once per cold start.
AGENT = load_bundle(BUNDLE, request=_request)


def _call(call: Any) -> dict[str, Any]:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not isinstance(call.get("callId"), str):
        message = "A call is a JSON object with 'name' (a tool), 'input' and 'callId' (a string)."
        return {"ok": False, "error": {"code": "invalid-request", "message": message}}
    try:
        tool = AGENT[call["name"]]
    except KeyError:
        return {"ok": False, "error": {"code": "invalid-request", "message": f"There is no tool '{call['name']}'."}}
    if tool.kind == "provider":
        return {"ok": False, "error": {"code": "invalid-request", "message": f"Tool '{tool.name}' is run by the model's provider."}}
    return tool.execute(call.get("input"), call_id=call["callId"])  # type: ignore[no-any-return]


def handler(event: Any, context: Any = None) -> Any:
    """One tool call per invocation (see the module docs for the two event shapes)."""
    if isinstance(event, dict) and "body" in event:
        body = event.get("body") or ""
        if event.get("isBase64Encoded"):
            import base64

            body = base64.b64decode(body).decode("utf-8")
        try:
            call = json.loads(body)
        except ValueError:
            call = None
        result = _call(call)
        status = 200 if result.get("ok") or result["error"]["code"] != "invalid-request" else 400
        return {"statusCode": status, "headers": {"content-type": "application/json"}, "body": json.dumps(result)}
    return _call(event)
