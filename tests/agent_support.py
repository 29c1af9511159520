"""Shared pieces of the agent-layer tests: a schema source answering from answers written out here,
and builders for the ``Agent`` values the reference's test programs evaluate to.

The answers follow the NX schema export's rules as ``agent-package.md`` §2.5 states them
(properties in parameter order, ``///`` docs as ``description``, defaults as ``default``,
``required`` = parameters with neither ``?`` nor a default, ``additionalProperties: false``, context
parameters left out) for the functions of the reference's test programs (§2.6, §8.6, §8.7).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from nx_agent import NxError

SCHEMA = "https://json-schema.org/draft/2020-12/schema"
TOOL_CONTEXT = {"module": "@nx/agent/agent.nx", "name": "ToolContext"}
CHAT_CONTEXT = {"module": "host/Chat.nx", "name": "ChatToolContext"}
EMPTY_INPUT = {"$schema": SCHEMA, "type": "object", "properties": {}, "additionalProperties": False}
HTTP_OUTPUT = {
    "$schema": SCHEMA,
    "type": "object",
    "properties": {"status": {"type": "integer"}, "body": {}},
    "required": ["status"],
}
FUNCTION_HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
WEB_SEARCH_HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True}
GET_HINTS = WEB_SEARCH_HINTS
POST_HINTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
LONG_NAME = "f" + "x" * 70
WEB_SEARCH_TOOL = {
    "name": "web_search",
    "description": "Searches the web and returns relevant results.",
    "inputSchema": EMPTY_INPUT,
    "annotations": WEB_SEARCH_HINTS,
    "kind": "provider",
    "config": {"provider": "web_search", "allowedDomains": ["docs.example.com"]},
}
"""A ``WebSearchTool`` limited to ``docs.example.com``, normalized (agent-package §2.3, §3.10)."""


def span(line: int, end_line: int | None = None) -> dict[str, int]:
    """A declaration span starting at ``line`` (1-based), as the export answers one."""
    return {
        "startByte": 10 * (line - 1),
        "endByte": 10 * (end_line or line) + 9,
        "startLine": line,
        "startColumn": 1,
        "endLine": end_line or line,
        "endColumn": 40,
    }


def input_schema(properties: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    """An input schema as the export writes one."""
    return {
        "$schema": SCHEMA,
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    } if required else {"$schema": SCHEMA, "type": "object", "properties": properties, "additionalProperties": False}


PLAN_RECORD = {
    "type": "object",
    "description": "A plan a team can buy.",
    "properties": {
        "$type": {"const": "Plan"},
        "name": {"type": "string"},
        "seats": {"type": "integer"},
        "monthlyPrice": {"type": "integer"},
    },
    "required": ["name", "seats", "monthlyPrice"],
    "additionalProperties": False,
}
HTTP_ARGUMENTS_OUTPUT = {"$schema": SCHEMA, "$ref": "#/$defs/HttpArguments", "$defs": {"HttpArguments": {"type": "object"}}}

FIND_PLANS_INPUT = input_schema(
    {
        "teamSize": {"type": "integer", "description": "Number of people who need a seat."},
        "maxMonthlyPrice": {"type": "integer"},
    },
    ["teamSize"],
)
FIND_PLANS_OUTPUT = {"$schema": SCHEMA, "type": "array", "items": {"$ref": "#/$defs/Plan"}, "$defs": {"Plan": PLAN_RECORD}}

_FUNCTION_PARAM = "Parameter `f` has the function type `<function n:int />: int`, which has no JSON form."


def _answer(
    description: str | None,
    parameters: list[dict[str, Any]],
    inputs: dict[str, Any] | None,
    output: dict[str, Any] | None,
    line: int,
    diagnostics: Sequence[str] = (),
) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    if description is not None:
        answer["description"] = description
    answer["parameters"] = parameters
    if inputs is not None:
        answer["inputSchema"] = inputs
    if output is not None:
        answer["outputSchema"] = output
    answer["declaration"] = span(line)
    answer["diagnostics"] = [
        {"severity": "error", "code": "schema-inexpressible-type", "message": message} for message in diagnostics
    ]
    return answer


def _context(name: str, type_ref: Mapping[str, str]) -> dict[str, Any]:
    return {"name": name, "typeRef": dict(type_ref), "hostSupplied": dict(TOOL_CONTEXT)}


def _holding(name: str, type_ref: Mapping[str, str] | None = None) -> dict[str, Any]:
    parameter: dict[str, Any] = {"name": name}
    if type_ref is not None:
        parameter["typeRef"] = dict(type_ref)
    parameter["hostSuppliedWithin"] = [dict(TOOL_CONTEXT)]
    return parameter


_STRING = {"type": "string"}
_INT = {"type": "integer"}
_STRING_OUT = {"$schema": SCHEMA, "type": "string"}
_INT_OUT = {"$schema": SCHEMA, "type": "integer"}
_REQUEST = {"module": "main.nx", "name": "Request"}

ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("main.nx", "findPlans"): _answer(
        "Finds the plans that fit a team.",
        [{"name": "teamSize"}, {"name": "maxMonthlyPrice"}],
        FIND_PLANS_INPUT,
        FIND_PLANS_OUTPUT,
        6,
    ),
    ("main.nx", "lookupOrder"): _answer(
        "Looks an order up by its identifier.",
        [{"name": "orderId"}],
        input_schema({"orderId": _STRING}, ["orderId"]),
        HTTP_ARGUMENTS_OUTPUT,
        3,
    ),
    ("main.nx", "placeOrder"): _answer(
        "Places an order for a product.",
        [{"name": "sku"}, {"name": "quantity"}],
        input_schema({"sku": _STRING, "quantity": {"type": "integer", "default": 1}}, ["sku"]),
        HTTP_ARGUMENTS_OUTPUT,
        8,
    ),
    ("main.nx", "listOrders"): _answer(
        "Lists orders.",
        [{"name": "state"}, {"name": "limit"}, {"name": "after"}],
        input_schema({"state": _STRING, "limit": {"type": "integer", "default": 10}, "after": _STRING}, ["state"]),
        {"$schema": SCHEMA, "type": "array", "items": _STRING},
        3,
    ),
    ("main.nx", "ping"): _answer("Answers pong.", [], dict(EMPTY_INPUT), _STRING_OUT, 5),
    ("main.nx", "HTTPStatusFor"): _answer("One.", [{"name": "code"}], input_schema({"code": _INT}, ["code"]), _STRING_OUT, 3),
    ("main.nx", "PlanRow"): _answer("Two.", [{"name": "name"}], input_schema({"name": _STRING}, ["name"]), _STRING_OUT, 5),
    ("main.nx", "lookupOrder2"): _answer("Three.", [{"name": "id"}], input_schema({"id": _STRING}, ["id"]), _STRING_OUT, 7),
    ("main.nx", LONG_NAME): _answer("Long.", [{"name": "n"}], input_schema({"n": _INT}, ["n"]), _INT_OUT, 2),
    ("main.nx", "undocumented"): _answer(None, [{"name": "n"}], input_schema({"n": _INT}, ["n"]), _INT_OUT, 13),
    ("main.nx", "applyTo"): _answer("Applies a function.", [{"name": "f"}, {"name": "n"}], None, _INT_OUT, 3, [_FUNCTION_PARAM]),
    ("main.nx", "triple"): _answer("Triples a number.", [{"name": "n"}], input_schema({"n": _INT}, ["n"]), _INT_OUT, 3),
    ("main.nx", "pick"): _answer(
        "Picks a function.",
        [{"name": "n"}],
        input_schema({"n": _INT}, ["n"]),
        None,
        5,
        ["The result of `pick` has the function type `<function n:int />: int`, which has no JSON form."],
    ),
    ("main.nx", "both"): _answer(
        "Passes a function through.",
        [{"name": "f"}],
        None,
        None,
        3,
        [_FUNCTION_PARAM, "The result of `both` has the function type `<function n:int />: int`, which has no JSON form."],
    ),
    ("main.nx", "orderFor"): _answer(
        "Looks an order up for the conversation.",
        [{"name": "orderId"}, _context("context", CHAT_CONTEXT)],
        input_schema({"orderId": _STRING}, ["orderId"]),
        _STRING_OUT,
        3,
    ),
    ("main.nx", "whoAmI"): _answer(
        "Says which call this is.", [_context("context", TOOL_CONTEXT)], dict(EMPTY_INPUT), _STRING_OUT, 5
    ),
    ("main.nx", "countContexts"): _answer(
        "Counts the contexts it is given.",
        [{"name": "orderId"}, _holding("contexts", CHAT_CONTEXT)],
        input_schema({"orderId": _STRING, "contexts": {"type": "array", "minItems": 1}}, ["orderId", "contexts"]),
        _INT_OUT,
        3,
    ),
    ("main.nx", "sendOne"): _answer(
        "Sends one request.", [_holding("request", _REQUEST)], input_schema({"request": {"$ref": "#/$defs/Request"}}, ["request"]), _STRING_OUT, 5
    ),
    ("main.nx", "sendAll"): _answer(
        "Sends a batch.",
        [{"name": "note"}, _holding("batch", {"module": "main.nx", "name": "Batch"})],
        input_schema({"note": _STRING, "batch": {"$ref": "#/$defs/Batch"}}, ["note"]),
        _STRING_OUT,
        5,
    ),
    ("main.nx", "audit"): _answer(
        "Audits.", [_holding("contexts")], input_schema({"contexts": {"type": "array"}}, ["contexts"]), _INT_OUT, 2
    ),
    ("main.nx", "anyOf"): _answer(
        "Any.",
        [{"name": "orderId"}, _holding("contexts")],
        input_schema({"orderId": _STRING, "contexts": {"type": "array"}}, ["orderId"]),
        _INT_OUT,
        2,
    ),
    ("main.nx", "viaAlias"): _answer(
        "Looks an order up for the conversation.",
        [{"name": "orderId"}, _context("context", CHAT_CONTEXT)],
        input_schema({"orderId": _STRING}, ["orderId"]),
        _STRING_OUT,
        4,
    ),
    ("main.nx", "viaListAlias"): _answer(
        "Counts contexts.", [_holding("contexts")], input_schema({"contexts": {"type": "array"}}, ["contexts"]), _INT_OUT, 6
    ),
    ("main.nx", "mixed"): _answer(
        "Takes the context twice, once the right way.",
        [_context("context", CHAT_CONTEXT), _holding("request", _REQUEST)],
        input_schema({"request": {"$ref": "#/$defs/Request"}}, ["request"]),
        _STRING_OUT,
        4,
    ),
    ("main.nx", "lookupMine"): _answer(
        "Looks an order up for the conversation.",
        [{"name": "orderId"}, _context("context", CHAT_CONTEXT)],
        input_schema({"orderId": _STRING}, ["orderId"]),
        HTTP_ARGUMENTS_OUTPUT,
        8,
    ),
    ("main.nx", "notArguments"): _answer(
        "Returns its argument.", [{"name": "orderId"}], input_schema({"orderId": _STRING}, ["orderId"]), _STRING_OUT, 3
    ),
}


class UnknownDeclarationError(NxError):
    """What a schema source raises for a function the program does not declare."""

    def __init__(self, module: str, name: str) -> None:
        super().__init__(f"'{name}' is not declared in '{module}'.")
        self.diagnostics = [{"severity": "error", "code": "schema-unknown-declaration", "message": str(self)}]


class FakeSchemaSource:
    """Answers ``function_schema`` from ``answers`` (a fresh deep copy each time) and records each question."""

    def __init__(self, answers: Mapping[tuple[str, str], Mapping[str, Any]] | None = None) -> None:
        self.answers = dict(ANSWERS if answers is None else answers)
        self.calls: list[tuple[dict[str, str], list[dict[str, str]]]] = []
        self.given: list[dict[str, Any]] = []

    def function_schema(
        self, ref: Mapping[str, str], *, host_supplied_types: Sequence[Mapping[str, str]] = ()
    ) -> dict[str, Any]:
        self.calls.append((dict(ref), [dict(one) for one in host_supplied_types]))
        key = (ref["module"], ref["name"])
        if key not in self.answers:
            raise UnknownDeclarationError(*key)
        answer = copy.deepcopy(dict(self.answers[key]))
        self.given.append(answer)
        return answer


def ref(name: str, module: str = "main.nx") -> dict[str, str]:
    """A canonical ``Function`` record."""
    return {"$type": "Function", "module": module, "name": name}


def function_tool(function: str, /, **authored: Any) -> dict[str, Any]:
    """``<FunctionTool function={name} .../>`` as evaluated."""
    return {"$type": "FunctionTool", "function": ref(function), **authored}


def web_search_tool(**authored: Any) -> dict[str, Any]:
    """``<WebSearchTool .../>`` as evaluated."""
    return {"$type": "WebSearchTool", **authored}


def connection(base_url: str, name: str = "shop") -> dict[str, Any]:
    """``<HttpConnection name="shop" baseUrl=.../>`` as evaluated."""
    return {"$type": "HttpConnection", "name": name, "baseUrl": base_url}


def http_tool(
    method: str, path: str, arguments: str, base_url: str = "https://api.example.com", **authored: Any
) -> dict[str, Any]:
    """``<HttpTool connection={shop} method=... path=... arguments={...} .../>`` as evaluated."""
    return {
        "$type": "HttpTool",
        "connection": connection(base_url),
        "method": method,
        "path": path,
        "arguments": ref(arguments),
        **authored,
    }


def agent(*tools: Any, **fields: Any) -> dict[str, Any]:
    """``<Agent name="support" tools={...}>Be brief.</Agent>`` as evaluated."""
    value: dict[str, Any] = {"$type": "Agent", "name": "support"}
    if tools:
        value["tools"] = list(tools)
    value["instructions"] = "Be brief."
    value.update(fields)
    return value


def support_agent_value() -> dict[str, Any]:
    """The reference's fixture agent (``agent-package.md`` §2.6, its ``agent-value.json``)."""
    return {
        "$type": "Agent",
        "name": "support",
        "description": "Answers customer questions.",
        "model": "balanced",
        "documents": [
            {
                "$type": "Document",
                "title": "Refund policy",
                "text": "Refunds are available within 30 days of purchase.",
            }
        ],
        "tools": [
            function_tool("findPlans"),
            web_search_tool(allowedDomains=["docs.example.com"]),
            http_tool("get", "/orders/{orderId}", "lookupOrder", "https://api.example.com/v1/"),
            http_tool("post", "/orders", "placeOrder", "https://api.example.com/v1/", maxCallsPerConversation=3),
        ],
        "limits": {"$type": "AgentLimits", "maxSteps": 6, "maxToolCalls": 12},
        "instructions": "You are the support assistant. Answer from the documents.",
    }
