"""The corpus's ``agent-library`` program end to end on the compile side: ``root()`` evaluated,
normalized with the schema answers ``nx_agent.schema`` derives from the linked images (with a
descriptions document holding ``main.nx``'s ``///`` comments), and checked against the program.

Expected values: the agent as the corpus's ``results.json`` records it, the definition format of
``agent-package.md`` §2 and the schema export's rules of §2.5.
"""

from __future__ import annotations

import json
from typing import Any

from agent_support import EMPTY_INPUT, FUNCTION_HINTS, GET_HINTS, HTTP_OUTPUT, POST_HINTS, SCHEMA, WEB_SEARCH_TOOL
from corpus_agents import (
    CHAT_TOOL_CONTEXT,
    CONTEXT_DESCRIPTIONS,
    CONTEXT_PROGRAM,
    LIBRARY,
    LIBRARY_DESCRIPTIONS,
    LIBRARY_INPUT_SCHEMAS,
    link_main,
    needs_context,
    needs_library,
    program_images,
    recorded,
)
from nx_agent import check_agent_tools, definition_text, ir, normalize_agent

pytestmark = needs_library

SHOP = {"name": "shop", "baseUrl": "https://api.example.com"}


def expected_tools() -> list[dict[str, Any]]:
    return [
        WEB_SEARCH_TOOL,
        {
            "name": "find_plans",
            "description": "Finds the plans that fit a team.",
            "inputSchema": LIBRARY_INPUT_SCHEMAS["findPlans"],
            "outputSchema": "checked below",
            "annotations": FUNCTION_HINTS,
            "kind": "function",
            "config": {"function": {"module": "main.nx", "name": "findPlans"}, "contextParameters": []},
        },
        {
            "name": "lookup_order",
            "description": "Looks up one order and returns its status.",
            "inputSchema": LIBRARY_INPUT_SCHEMAS["lookupOrder"],
            "outputSchema": HTTP_OUTPUT,
            "annotations": GET_HINTS,
            "kind": "http",
            "config": {
                "arguments": {"module": "main.nx", "name": "lookupOrder"},
                "contextParameters": [],
                "connection": SHOP,
                "method": "get",
                "path": "/orders/{orderId}",
                "pathPlaceholders": ["orderId"],
            },
        },
        {
            "name": "open_ticket",
            "description": "Opens a support ticket for the customer.",
            "inputSchema": LIBRARY_INPUT_SCHEMAS["openTicket"],
            "outputSchema": HTTP_OUTPUT,
            "annotations": POST_HINTS,
            "kind": "http",
            "config": {
                "arguments": {"module": "main.nx", "name": "openTicket"},
                "contextParameters": [],
                "connection": SHOP,
                "method": "post",
                "path": "/tickets",
                "pathPlaceholders": [],
                "maxCallsPerConversation": 1,
            },
        },
    ]


def test_the_library_agent_normalizes_and_checks_clean() -> None:
    from nx_agent.schema import ProgramSchemaSource

    assert LIBRARY is not None
    program = link_main(program_images(LIBRARY))
    value = ir.evaluate_function(program, "root").value
    root = recorded(LIBRARY, "results.json")["main.nx::root"]
    assert value == root

    result = normalize_agent(value, schemas=ProgramSchemaSource(program, LIBRARY_DESCRIPTIONS))
    assert result.ok and result.diagnostics == [], [d.to_dict() for d in result.diagnostics]
    definition = result.definition
    assert definition is not None
    assert list(definition) == ["formatVersion", "name", "model", "instructions", "documents", "limits", "tools"]
    assert definition["formatVersion"] == 1
    assert (definition["name"], definition["model"]) == ("support", "balanced")
    assert definition["instructions"] == root["instructions"]
    assert definition["documents"] == [{"title": "Refund policy", "text": "Refunds are available within 30 days of purchase."}]
    assert definition["limits"] == {"maxSteps": 6}

    tools = definition["tools"]
    output = tools[1]["outputSchema"]
    assert (output["$schema"], output["type"], output["items"]) == (SCHEMA, "array", {"$ref": "#/$defs/Plan"})
    assert "Plan" in output["$defs"]
    tools[1]["outputSchema"] = "checked below"
    assert tools == expected_tools()
    assert [list(tool) for tool in tools] == [list(tool) for tool in expected_tools()]
    tools[1]["outputSchema"] = output

    text = definition_text(definition)
    assert json.loads(text) == definition
    assert check_agent_tools(json.loads(text), program) == []


@needs_context
def test_the_tool_context_agent_records_its_context_parameters() -> None:
    from nx_agent.schema import ProgramSchemaSource

    assert CONTEXT_PROGRAM is not None
    program = link_main(program_images(CONTEXT_PROGRAM))
    value = ir.evaluate_function(program, "root").value
    source = ProgramSchemaSource(program, CONTEXT_DESCRIPTIONS)

    result = normalize_agent(value, schemas=source, tool_context_type=CHAT_TOOL_CONTEXT)
    assert result.ok and result.diagnostics == [], [d.to_dict() for d in result.diagnostics]
    assert result.definition is not None
    tools = result.definition["tools"]
    assert [(tool["name"], tool["config"]["contextParameters"]) for tool in tools] == [
        ("who_am_i", [{"name": "context", "type": CHAT_TOOL_CONTEXT}]),
        ("call_id_of", [{"name": "context", "type": {"module": "@nx/agent/agent.nx", "name": "ToolContext"}}]),
        ("seat_count", []),
    ]
    assert tools[0]["inputSchema"] == EMPTY_INPUT
    assert tools[1]["inputSchema"] == EMPTY_INPUT
    assert tools[2]["inputSchema"] == {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {"teamSize": {"type": "integer"}, "cap": {"type": "integer"}},
        "required": ["teamSize"],
        "additionalProperties": False,
    }
    assert check_agent_tools(json.loads(definition_text(result.definition)), program) == []

    without = normalize_agent(value, schemas=source)
    assert [(d.code, d.path, d.tool) for d in without.diagnostics] == [
        ("nx-agent-context-parameter", "tools[0]", "who_am_i"),
        ("nx-agent-context-parameter", "tools[1]", "call_id_of"),
    ]
    elsewhere = normalize_agent(value, schemas=source, tool_context_type={"module": "other.nx", "name": "ChatToolContext"})
    assert [d.message for d in elsewhere.diagnostics] == [
        "Tool 'who_am_i' (tools[0]): the parameter 'context' of 'whoAmI' is declared with 'ChatToolContext' of "
        "'context.nx', and the host supplies 'ChatToolContext' of 'other.nx'."
    ]
