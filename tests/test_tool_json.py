"""Provider tool formats (OpenAI, Anthropic) of a definition's tools."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from nx_agent.tool_json import (
    ToolExportError,
    strict_schema_qualifies,
    to_anthropic_tools,
    to_openai_tools,
)

# The worked `support` definition of agent-package.md §2.6 (the Plan record body is
# illustrative there; ours is what the schema rules write for it).
DEFINITION: dict[str, Any] = json.loads(
    (Path(__file__).parent / "fixtures" / "support_definition.json").read_text()
)


def web_search_mapping(tool: Any) -> dict[str, Any]:
    return {"type": "web_search", "allowed_domains": tool["config"]["allowedDomains"]}


def test_openai_chat_format_keeps_schemas_and_order() -> None:
    export = to_openai_tools(DEFINITION, provider_tool=web_search_mapping)
    assert [t.get("function", t).get("name", t.get("type")) for t in export.tools] == [
        "find_plans",
        "web_search",
        "lookup_order",
        "place_order",
    ]
    find_plans = export.tools[0]
    assert list(find_plans) == ["type", "function"]
    assert list(find_plans["function"]) == ["name", "description", "parameters", "strict"]
    assert find_plans["function"]["parameters"] == DEFINITION["tools"][0]["inputSchema"]
    assert find_plans["function"]["description"] == "Finds the plans that fit a team."
    assert export.tools[1] == {"type": "web_search", "allowed_domains": ["docs.example.com"]}
    assert export.problems == []


def test_openai_strict_only_where_the_schema_qualifies() -> None:
    export = to_openai_tools(DEFINITION, provider_tool=lambda tool: None)
    strict = {t["function"]["name"]: t["function"]["strict"] for t in export.tools}
    # find_plans has an optional parameter; place_order a `default`; lookup_order is closed
    # with every property required.
    assert strict == {"find_plans": False, "lookup_order": True, "place_order": False}
    forced = to_openai_tools(DEFINITION, strict=False, provider_tool=lambda tool: None)
    assert all(t["function"]["strict"] is False for t in forced.tools)


def test_openai_responses_format_is_flat() -> None:
    export = to_openai_tools(DEFINITION["tools"][2:3], api="responses")
    assert export.tools == [
        {
            "type": "function",
            "name": "lookup_order",
            "description": "Looks an order up by its identifier.",
            "parameters": DEFINITION["tools"][2]["inputSchema"],
            "strict": True,
        }
    ]


def test_anthropic_format() -> None:
    export = to_anthropic_tools(DEFINITION, provider_tool=lambda tool: None)
    assert [t["name"] for t in export.tools] == ["find_plans", "lookup_order", "place_order"]
    assert export.tools[0] == {
        "name": "find_plans",
        "description": "Finds the plans that fit a team.",
        "input_schema": DEFINITION["tools"][0]["inputSchema"],
    }


@pytest.mark.parametrize("convert", [to_openai_tools, to_anthropic_tools])
def test_provider_tool_without_a_mapping_names_the_tool(convert: Any) -> None:
    with pytest.raises(ToolExportError, match="Tool 'web_search' is run by the model's provider"):
        convert(DEFINITION)


def test_name_rules_of_each_provider() -> None:
    tools = copy.deepcopy(DEFINITION["tools"][:1])
    tools.append({**tools[0], "name": "a" * 65})
    tools.append({**tools[0], "name": "find.plans"})
    openai = to_openai_tools(tools)
    anthropic = to_anthropic_tools(tools)
    assert [p.tool for p in openai.problems] == ["a" * 65, "find.plans"]
    assert [p.tool for p in anthropic.problems] == ["find.plans"]
    assert len(openai.tools) == 3  # refused names are reported, not dropped


def test_strict_qualification_rules() -> None:
    closed = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "string"}}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert strict_schema_qualifies(closed)
    assert not strict_schema_qualifies({**closed, "additionalProperties": True})
    assert not strict_schema_qualifies({**closed, "required": []})
    nested_open = copy.deepcopy(closed)
    nested_open["properties"]["a"]["items"] = {"type": "object", "properties": {}}
    assert not strict_schema_qualifies(nested_open)
    assert not strict_schema_qualifies({**closed, "properties": {"a": {"not": {"type": "null"}}}})
    assert not strict_schema_qualifies({"type": "array"})


def test_definition_without_tools_is_refused() -> None:
    with pytest.raises(TypeError):
        to_openai_tools({"name": "x"})
