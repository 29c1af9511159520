"""agent-package.md §8.6: normalization at the agent level, and the §2.6 worked example."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from agent_support import (
    FIND_PLANS_INPUT,
    FIND_PLANS_OUTPUT,
    FUNCTION_HINTS,
    GET_HINTS,
    HTTP_OUTPUT,
    POST_HINTS,
    SCHEMA,
    TOOL_CONTEXT,
    WEB_SEARCH_TOOL,
    FakeSchemaSource,
    support_agent_value,
)
from nx_agent import NormalizeAgentResult, definition_text, normalize_agent
from nx_agent.agent.describe import MISSING

# §2.6, with the illustrative `$defs` body (◇) and the two illustrative HTTP input schemas taken
# from the schema source, as the document says a port does.
EXPECTED_SUPPORT_DEFINITION: dict[str, Any] = {
    "formatVersion": 1,
    "name": "support",
    "description": "Answers customer questions.",
    "model": "balanced",
    "instructions": "You are the support assistant. Answer from the documents.",
    "documents": [{"title": "Refund policy", "text": "Refunds are available within 30 days of purchase."}],
    "limits": {"maxSteps": 6, "maxToolCalls": 12},
    "tools": [
        {
            "name": "find_plans",
            "description": "Finds the plans that fit a team.",
            "inputSchema": FIND_PLANS_INPUT,
            "outputSchema": FIND_PLANS_OUTPUT,
            "annotations": FUNCTION_HINTS,
            "kind": "function",
            "config": {"function": {"module": "main.nx", "name": "findPlans"}, "contextParameters": []},
        },
        WEB_SEARCH_TOOL,
        {
            "name": "lookup_order",
            "description": "Looks an order up by its identifier.",
            "inputSchema": {
                "$schema": SCHEMA,
                "type": "object",
                "properties": {"orderId": {"type": "string"}},
                "required": ["orderId"],
                "additionalProperties": False,
            },
            "outputSchema": HTTP_OUTPUT,
            "annotations": GET_HINTS,
            "kind": "http",
            "config": {
                "arguments": {"module": "main.nx", "name": "lookupOrder"},
                "contextParameters": [],
                "connection": {"name": "shop", "baseUrl": "https://api.example.com/v1"},
                "method": "get",
                "path": "/orders/{orderId}",
                "pathPlaceholders": ["orderId"],
            },
        },
        {
            "name": "place_order",
            "description": "Places an order for a product.",
            "inputSchema": {
                "$schema": SCHEMA,
                "type": "object",
                "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "default": 1}},
                "required": ["sku"],
                "additionalProperties": False,
            },
            "outputSchema": HTTP_OUTPUT,
            "annotations": POST_HINTS,
            "kind": "http",
            "config": {
                "arguments": {"module": "main.nx", "name": "placeOrder"},
                "contextParameters": [],
                "connection": {"name": "shop", "baseUrl": "https://api.example.com/v1"},
                "method": "post",
                "path": "/orders",
                "pathPlaceholders": [],
                "maxCallsPerConversation": 3,
            },
        },
    ],
}


def keys_everywhere(value: Any) -> list[Any]:
    """Every object's key list, depth first, so that a comparison covers key order."""
    if isinstance(value, dict):
        return [list(value), *(keys for held in value.values() for keys in keys_everywhere(held))]
    if isinstance(value, list):
        return [keys for held in value for keys in keys_everywhere(held)]
    return []


def refused(result: NormalizeAgentResult) -> list[dict[str, Any]]:
    assert result.ok is False
    assert result.definition is None
    assert "definition" not in result.to_dict()
    return [diagnostic.to_dict() for diagnostic in result.diagnostics]


# 60. and §2.6
def test_the_fixture_agent_normalizes_to_the_worked_example() -> None:
    result = normalize_agent(support_agent_value(), schemas=FakeSchemaSource())
    assert result.ok is True
    assert result.diagnostics == []
    definition = result.definition
    assert definition == EXPECTED_SUPPORT_DEFINITION
    assert keys_everywhere(definition) == keys_everywhere(EXPECTED_SUPPORT_DEFINITION)
    assert list(definition) == ["formatVersion", "name", "description", "model", "instructions", "documents", "limits", "tools"]
    assert [[tool["name"], tool["kind"]] for tool in definition["tools"]] == [
        ["find_plans", "function"],
        ["web_search", "provider"],
        ["lookup_order", "http"],
        ["place_order", "http"],
    ]
    # The stored text is JSON.stringify's: the expected object holds only ASCII text, integers and
    # booleans, for which Python's compact dump writes the same bytes.
    expected_text = json.dumps(EXPECTED_SUPPORT_DEFINITION, separators=(",", ":"), ensure_ascii=False)
    assert definition_text(definition) == expected_text
    assert json.loads(definition_text(definition)) == definition
    assert result.to_dict() == {"ok": True, "definition": definition, "diagnostics": []}


# §2.6 three-tool variant
def test_the_three_tool_variant() -> None:
    value = support_agent_value()
    for key in ("description", "documents", "limits"):
        del value[key]
    value["tools"] = [value["tools"][0], value["tools"][2], value["tools"][1]]
    value["tools"][1]["connection"]["baseUrl"] = "https://api.example.com/v1"
    definition = normalize_agent(value, schemas=FakeSchemaSource()).definition
    assert definition is not None
    assert definition["documents"] == []
    assert definition["limits"] == {}
    assert [tool["name"] for tool in definition["tools"]] == ["find_plans", "lookup_order", "web_search"]
    assert "description" not in definition
    assert definition["tools"][1]["config"]["connection"]["baseUrl"] == "https://api.example.com/v1"


# 61.
def test_the_schema_source_is_asked_in_order_with_the_tool_context_listed() -> None:
    source = FakeSchemaSource()
    normalize_agent(support_agent_value(), schemas=source)
    assert source.calls == [
        ({"module": "main.nx", "name": "findPlans"}, [TOOL_CONTEXT]),
        ({"module": "main.nx", "name": "lookupOrder"}, [TOOL_CONTEXT]),
        ({"module": "main.nx", "name": "placeOrder"}, [TOOL_CONTEXT]),
    ]


# 62.
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"$type": "Plan"}, "The value is a 'Plan', not an 'Agent'."),
        ({"name": "support"}, "The value is a record with no '$type', not an 'Agent'."),
        (None, "The value is null, not an 'Agent'."),
        ("support", 'The value is the string "support", not an \'Agent\'.'),
        ([support_agent_value()], "The value is a list, not an 'Agent'."),
        (MISSING, "The value is undefined, not an 'Agent'."),
    ],
)
def test_a_value_that_is_not_an_agent(value: object, message: str) -> None:
    assert refused(normalize_agent(value, schemas=FakeSchemaSource())) == [
        {"severity": "error", "code": "nx-agent-not-an-agent", "message": message, "path": ""}
    ]


# 63.
def test_duplicate_document_titles() -> None:
    value = support_agent_value()
    value["documents"] = [
        {"$type": "Document", "title": title, "text": "…"} for title in ("Refund policy", "Shipping", "Refund policy")
    ]
    assert refused(normalize_agent(value, schemas=FakeSchemaSource())) == [
        {
            "severity": "error",
            "code": "nx-agent-duplicate-document-title",
            "message": 'The document title "Refund policy" is used by documents[0] and documents[2]; each title names one document.',
            "path": "documents[2].title",
        }
    ]


BARE = {"$type": "Agent", "name": "bare", "instructions": "Be brief."}


# 64.
@pytest.mark.parametrize(
    "extra",
    [{}, {"description": None, "model": [], "documents": [], "tools": None, "limits": []}],
    ids=["absent", "empty-spellings"],
)
def test_a_bare_agent(extra: dict[str, Any]) -> None:
    result = normalize_agent({**BARE, **extra}, schemas=FakeSchemaSource())
    assert result.ok and result.diagnostics == []
    definition = result.definition
    assert definition == {"formatVersion": 1, "name": "bare", "instructions": "Be brief.", "documents": [], "limits": {}, "tools": []}
    assert list(definition) == ["formatVersion", "name", "instructions", "documents", "limits", "tools"]
    assert "null" not in definition_text(definition)


# 65.
@pytest.mark.parametrize(
    ("change", "path", "message"),
    [
        ({"name": 7}, "name", "The value is not a well-formed Agent: 'name' is the number 7, not a string."),
        ({"instructions": MISSING}, "instructions", "The value is not a well-formed Agent: 'instructions' is missing, not a string."),
        ({"model": 4}, "model", "The value is not a well-formed Agent: 'model' is the number 4, not a string."),
        ({"documents": "none"}, "documents", "The value is not a well-formed Agent: 'documents' is the string \"none\", not a list."),
        (
            {"documents": ["Refund policy"]},
            "documents[0]",
            "The value is not a well-formed Agent: documents[0] is the string \"Refund policy\", not a Document.",
        ),
        (
            {"documents": [{"$type": "Document", "title": "T"}]},
            "documents[0].text",
            "The value is not a well-formed Document: 'text' is missing, not a string.",
        ),
        ({"tools": {"$type": "FunctionTool"}}, "tools", "The value is not a well-formed Agent: 'tools' is a 'FunctionTool', not a list."),
        ({"limits": 3}, "limits", "The value is not a well-formed Agent: 'limits' is the number 3, not an AgentLimits."),
        (
            {"limits": {"$type": "AgentLimits", "maxSteps": "six"}},
            "limits.maxSteps",
            "The value is not a well-formed Agent: 'limits.maxSteps' is the string \"six\", not a number.",
        ),
    ],
)
def test_a_malformed_agent_field(change: dict[str, Any], path: str, message: str) -> None:
    value = {**BARE, **change}
    value = {key: held for key, held in value.items() if held is not MISSING}
    assert refused(normalize_agent(value, schemas=FakeSchemaSource())) == [
        {"severity": "error", "code": "nx-agent-not-an-agent", "message": message, "path": path}
    ]


def test_null_name_and_a_boolean_limit() -> None:
    value = {**BARE, "name": None, "limits": {"maxToolCalls": True}, "description": 1.5}
    assert [(d["path"], d["message"]) for d in refused(normalize_agent(value, schemas=FakeSchemaSource()))] == [
        ("name", "The value is not a well-formed Agent: 'name' is null, not a string."),
        ("description", "The value is not a well-formed Agent: 'description' is the number 1.5, not a string."),
        ("limits.maxToolCalls", "The value is not a well-formed Agent: 'limits.maxToolCalls' is the boolean true, not a number."),
    ]


def test_an_empty_description_is_kept_and_the_value_is_not_changed() -> None:
    value = {**BARE, "description": ""}
    before = copy.deepcopy(value)
    definition = normalize_agent(value, schemas=FakeSchemaSource()).definition
    assert definition is not None and definition["description"] == ""
    assert value == before
