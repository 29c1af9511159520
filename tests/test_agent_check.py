"""agent-package.md §8.8, the check cases: ``check_agent_tools`` against a linked program (§4).

The program is the corpus's ``agent-library`` (``main.nx`` declares the type ``Plan``, the value
``shop`` and the functions ``findPlans``, ``lookupOrder``, ``openTicket`` and ``root``); the
definition is what ``normalize_agent`` makes of its ``root()`` value, plus a host tool.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from agent_support import SCHEMA, FakeSchemaSource
from corpus_agents import LIBRARY, LIBRARY_INPUT_SCHEMAS, link_main, needs_library, program_images
from nx_agent import NxAgentError, check_agent_tools, definition_text, ir, normalize_agent

pytestmark = needs_library

# What the schema export answers for the program's functions, by the rules of §2.5.
LIBRARY_ANSWERS = {
    ("main.nx", "findPlans"): {
        "description": "Finds the plans that fit a team.",
        "parameters": [{"name": "teamSize"}, {"name": "maxMonthlyPrice"}],
        "inputSchema": LIBRARY_INPUT_SCHEMAS["findPlans"],
        "outputSchema": {"$schema": SCHEMA, "type": "array", "items": {"$ref": "#/$defs/Plan"}, "$defs": {"Plan": {"type": "object"}}},
        "diagnostics": [],
    },
    ("main.nx", "lookupOrder"): {
        "description": "Looks up one order and returns its status.",
        "parameters": [{"name": "orderId"}],
        "inputSchema": LIBRARY_INPUT_SCHEMAS["lookupOrder"],
        "outputSchema": {"$schema": SCHEMA, "type": "object"},
        "diagnostics": [],
    },
    ("main.nx", "openTicket"): {
        "description": "Opens a support ticket for the customer.",
        "parameters": [{"name": "subject"}],
        "inputSchema": LIBRARY_INPUT_SCHEMAS["openTicket"],
        "outputSchema": {"$schema": SCHEMA, "type": "object"},
        "diagnostics": [],
    },
}

SEARCH_RECORDS = {
    "name": "search_records",
    "description": "Searches company records.",
    "inputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    "kind": "builtin",
    "config": {"builtin": "record_search", "recordKind": "company"},
}


@pytest.fixture(scope="module")
def program() -> ir.Program:
    assert LIBRARY is not None
    return link_main(program_images(LIBRARY))


@pytest.fixture(scope="module")
def stored(program: ir.Program) -> str:
    """The definition's stored text: the evaluated agent, normalized, with a host tool added."""
    result = normalize_agent(ir.evaluate_function(program, "root").value, schemas=FakeSchemaSource(LIBRARY_ANSWERS))
    assert result.ok and result.diagnostics == [], [d.to_dict() for d in result.diagnostics]
    assert result.definition is not None
    definition = result.definition
    assert [tool["name"] for tool in definition["tools"]] == ["web_search", "find_plans", "lookup_order", "open_ticket"]
    definition["tools"].append(SEARCH_RECORDS)
    return definition_text(definition)


@pytest.fixture
def definition(stored: str) -> dict[str, Any]:
    """A fresh copy, JSON round-tripped as a host's stored definition is."""
    parsed: dict[str, Any] = json.loads(stored)
    return parsed


def diagnostics(definition: Any, program: ir.Program) -> list[dict[str, Any]]:
    return [diagnostic.to_dict() for diagnostic in check_agent_tools(definition, program)]


def invalid(path: str, message: str, tool: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"severity": "error", "code": "nx-agent-invalid-definition", "message": message, "path": path}
    if tool is not None:
        out["tool"] = tool
    return out


# 126. 135.
def test_a_sound_definition_and_its_tool_list_check_clean(definition: dict[str, Any], program: ir.Program) -> None:
    assert check_agent_tools(definition, program) == []
    assert check_agent_tools(definition["tools"], program) == []
    assert check_agent_tools(tuple(definition["tools"]), program) == []


# 127.
@pytest.mark.parametrize(
    ("value", "path", "message"),
    [
        (None, "", "The definition is null, not a definition or a list of tools."),
        ("{}", "", 'The definition is the string "{}", not a definition or a list of tools.'),
        (7, "", "The definition is the number 7, not a definition or a list of tools."),
    ],
)
def test_a_definition_that_is_not_one(value: Any, path: str, message: str, program: ir.Program) -> None:
    assert diagnostics(value, program) == [invalid(path, message)]


def _set(tool: dict[str, Any], where: str, held: Any) -> None:
    """Set (or, for ``...``, delete) a member at a dotted place inside a tool."""
    *parents, last = where.split(".")
    for key in parents:
        tool = tool[key]
    if held is ...:
        del tool[last]
    else:
        tool[last] = held


# 127.
@pytest.mark.parametrize(
    ("index", "where", "held", "problem", "tool"),
    [
        (1, "name", 7, "its 'name' is the number 7, not a string", None),
        (1, "kind", ..., "its 'kind' is undefined, not a string", "find_plans"),
        (1, "config", ..., "its 'config' is undefined, not a record", "find_plans"),
        (1, "config", None, "its 'config' is null, not a record", "find_plans"),
        (1, "config.function", ..., "its 'config.function' is undefined, not the module and the name of a function", "find_plans"),
        (
            1,
            "config.function",
            {"module": "main.nx"},
            "its 'config.function' is a record with no '$type', not the module and the name of a function",
            "find_plans",
        ),
        (1, "config.contextParameters", ..., "its 'config.contextParameters' is undefined, not a list", "find_plans"),
        (
            1,
            "config.contextParameters",
            [{"type": {}}],
            "its 'config.contextParameters' is a list that holds something other than a parameter with a 'name'",
            "find_plans",
        ),
        (
            2,
            "config.arguments",
            "lookupOrder",
            "its 'config.arguments' is the string \"lookupOrder\", not the module and the name of a function",
            "lookup_order",
        ),
        (2, "config.connection", ..., "its 'config.connection' is undefined, not a connection with a 'name'", "lookup_order"),
        (2, "config.connection", {"baseUrl": "https://api.example.com"}, "its 'config.connection' is a record with no '$type', not a connection with a 'name'", "lookup_order"),
    ],
)
def test_a_damaged_tool(
    index: int, where: str, held: Any, problem: str, tool: str | None, definition: dict[str, Any], program: ir.Program
) -> None:
    _set(definition["tools"][index], where, held)
    expected = [invalid(f"tools[{index}]", f"tools[{index}] of the definition cannot be run: {problem}.", tool)]
    assert diagnostics(definition, program) == expected
    assert diagnostics(definition["tools"], program) == expected
    assert str(NxAgentError(check_agent_tools(definition, program))) == expected[0]["message"]


# 127.
def test_a_definition_whose_tools_are_not_a_list(definition: dict[str, Any], program: ir.Program) -> None:
    definition["tools"] = {}
    assert diagnostics(definition, program) == [
        invalid("tools", "The definition's 'tools' is a record with no '$type', not a list.")
    ]
    del definition["tools"]
    assert diagnostics(definition, program) == [invalid("tools", "The definition's 'tools' is undefined, not a list.")]


# 127.
def test_tools_that_are_not_tools(definition: dict[str, Any], program: ir.Program) -> None:
    definition["tools"] = [None]
    assert diagnostics(definition, program) == [
        invalid("tools[0]", "tools[0] of the definition cannot be run: it is null, not a tool.")
    ]
    assert diagnostics([copy.deepcopy(SEARCH_RECORDS), "find_plans"], program) == [
        invalid("tools[1]", 'tools[1] of the definition cannot be run: it is the string "find_plans", not a tool.')
    ]


# 128.
def test_a_damaged_tool_is_reported_beside_the_others(definition: dict[str, Any], program: ir.Program) -> None:
    find_plans, lookup_order = copy.deepcopy(definition["tools"][1]), copy.deepcopy(definition["tools"][2])
    find_plans["config"] = None
    gone = copy.deepcopy(definition["tools"][1])
    gone["name"] = "gone"
    gone["config"]["function"] = {"module": "main.nx", "name": "gone"}
    found = diagnostics([find_plans, gone, lookup_order], program)
    assert [(d["code"], d["path"], d["tool"]) for d in found] == [
        ("nx-agent-invalid-definition", "tools[0]", "find_plans"),
        ("nx-agent-unknown-function", "tools[1]", "gone"),
    ]
    assert "tool" not in diagnostics([None], program)[0]
    provider_and_host = [{"name": "web_search", "kind": "provider"}, {"name": "search_records", "kind": "builtin"}]
    assert check_agent_tools(provider_and_host, program) == []


# 129. 135.
@pytest.mark.parametrize(
    ("version", "shown"),
    [(2, "2"), (0, "0"), ("1", '"1"'), (..., "undefined"), (7, "7"), (True, "true"), (None, "null"), (1.5, "1.5")],
)
def test_an_unsupported_format_is_reported_alone(
    version: Any, shown: str, definition: dict[str, Any], program: ir.Program
) -> None:
    if version is ...:
        del definition["formatVersion"]
    else:
        definition["formatVersion"] = version
    definition["tools"] = [None]
    found = check_agent_tools(definition, program)
    message = f"The definition has format version {shown}, and this package supports 1."
    assert [d.to_dict() for d in found] == [
        {"severity": "error", "code": "nx-agent-unsupported-format", "message": message, "path": "formatVersion"}
    ]
    assert str(NxAgentError(found)) == message
    assert NxAgentError(found).code == "nx-agent-unsupported-format"


def test_a_format_version_read_back_as_a_float_is_version_one(definition: dict[str, Any], program: ir.Program) -> None:
    definition["formatVersion"] = 1.0
    assert check_agent_tools(definition, program) == []


# 130. 135.
@pytest.mark.parametrize(
    ("module", "name"),
    [("main.nx", "findPlanz"), ("other.nx", "findPlans"), ("main.nx", "Plan"), ("main.nx", "shop")],
)
def test_a_function_the_linked_program_does_not_declare(
    module: str, name: str, definition: dict[str, Any], program: ir.Program
) -> None:
    definition["tools"][1]["config"]["function"] = {"module": module, "name": name}
    assert diagnostics(definition, program) == [
        {
            "severity": "error",
            "code": "nx-agent-unknown-function",
            "message": f"Tool 'find_plans' names the function '{name}' of module '{module}', which the linked program "
            "does not declare.",
            "path": "tools[1]",
            "tool": "find_plans",
            "declaration": {"module": module},
        }
    ]


# 131.
def test_an_arguments_function_the_linked_program_does_not_declare(definition: dict[str, Any], program: ir.Program) -> None:
    definition["tools"][2]["config"]["arguments"] = {"module": "main.nx", "name": "gone"}
    assert [(d["code"], d["path"], d["tool"]) for d in diagnostics(definition, program)] == [
        ("nx-agent-unknown-function", "tools[2]", "lookup_order")
    ]
