"""agent-package.md §8.7: normalization of each tool type, host describers, duplicates, storage."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

import pytest

from agent_support import (
    ANSWERS,
    CHAT_CONTEXT,
    EMPTY_INPUT,
    FIND_PLANS_INPUT,
    FUNCTION_HINTS,
    GET_HINTS,
    HTTP_OUTPUT,
    LONG_NAME,
    SCHEMA,
    TOOL_CONTEXT,
    WEB_SEARCH_TOOL,
    FakeSchemaSource,
    agent,
    connection,
    function_tool,
    http_tool,
    ref,
    web_search_tool,
)
from nx_agent import NormalizeAgentResult, NxAgentDiagnostic, NxError, definition_text, normalize_agent
from nx_agent.agent import ToolDescriberContext
from nx_agent.agent.describe import MISSING

TOOL_KEYS = ["name", "description", "inputSchema", "outputSchema", "annotations", "kind", "config"]


def normalize(value: Any, source: Any = None, **options: Any) -> NormalizeAgentResult:
    return normalize_agent(value, schemas=source if source is not None else FakeSchemaSource(), **options)


def definition_of(result: NormalizeAgentResult) -> dict[str, Any]:
    assert result.ok, [d.to_dict() for d in result.diagnostics]
    assert result.definition is not None
    return result.definition


def only_tool(result: NormalizeAgentResult) -> dict[str, Any]:
    tools = definition_of(result)["tools"]
    assert len(tools) == 1
    return tools[0]


def refused(result: NormalizeAgentResult) -> list[NxAgentDiagnostic]:
    assert result.ok is False
    assert result.definition is None
    assert "definition" not in result.to_dict()
    assert any(d.severity == "error" for d in result.diagnostics)
    return result.diagnostics


def only_diagnostic(result: NormalizeAgentResult) -> NxAgentDiagnostic:
    diagnostics = refused(result)
    assert len(diagnostics) == 1, [d.to_dict() for d in diagnostics]
    return diagnostics[0]


# ---- FunctionTool --------------------------------------------------------------------------------


# 66.
def test_a_function_tool_takes_its_name_description_and_schemas_from_its_function() -> None:
    tool = only_tool(normalize(agent(function_tool("findPlans"))))
    answer = ANSWERS[("main.nx", "findPlans")]
    assert tool["name"] == "find_plans"
    assert tool["description"] == "Finds the plans that fit a team."
    assert tool["kind"] == "function"
    assert tool["config"] == {"function": {"module": "main.nx", "name": "findPlans"}, "contextParameters": []}
    assert tool["annotations"] == FUNCTION_HINTS
    assert tool["inputSchema"] == answer["inputSchema"]
    assert tool["outputSchema"] == answer["outputSchema"]
    assert tool["inputSchema"] == {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {
            "teamSize": {"type": "integer", "description": "Number of people who need a seat."},
            "maxMonthlyPrice": {"type": "integer"},
        },
        "required": ["teamSize"],
        "additionalProperties": False,
    }
    assert list(tool["inputSchema"]["properties"]) == ["teamSize", "maxMonthlyPrice"]
    assert list(tool) == TOOL_KEYS
    assert "execute" not in tool


# 67.
def test_an_array_result_is_not_wrapped() -> None:
    tool = only_tool(normalize(agent(function_tool("findPlans"))))
    assert tool["outputSchema"]["type"] == "array"
    assert tool["outputSchema"]["items"] == {"$ref": "#/$defs/Plan"}


# 68.
def test_the_definition_shares_nothing_with_the_schemas() -> None:
    source = FakeSchemaSource()
    tool = only_tool(normalize(agent(function_tool("findPlans")), source))
    assert len(source.given) == 1
    assert tool["inputSchema"] is not source.given[0]["inputSchema"]
    assert tool["inputSchema"] == source.given[0]["inputSchema"]
    assert tool["outputSchema"]["$defs"] is not source.given[0]["outputSchema"]["$defs"]
    source.given[0]["inputSchema"]["properties"]["teamSize"]["type"] = "string"
    assert tool["inputSchema"] == FIND_PLANS_INPUT


# 69.
def test_defaults_optionals_and_no_parameters() -> None:
    list_orders, ping = definition_of(normalize(agent(function_tool("listOrders"), function_tool("ping"))))["tools"]
    assert list(list_orders["inputSchema"]["properties"]) == ["state", "limit", "after"]
    assert list_orders["inputSchema"]["required"] == ["state"]
    assert list_orders["inputSchema"]["properties"]["limit"] == {"type": "integer", "default": 10}
    assert list_orders["inputSchema"]["additionalProperties"] is False
    assert ping["inputSchema"] == {"$schema": SCHEMA, "type": "object", "properties": {}, "additionalProperties": False}
    assert ping["outputSchema"] == {"$schema": SCHEMA, "type": "string"}


# 70.
def test_acronyms_and_element_style_names_are_converted() -> None:
    tools = definition_of(
        normalize(agent(function_tool("HTTPStatusFor"), function_tool("PlanRow"), function_tool("lookupOrder2")))
    )["tools"]
    assert [tool["name"] for tool in tools] == ["http_status_for", "plan_row", "lookup_order2"]


# 71.
def test_an_authored_name_and_description_win() -> None:
    tool = only_tool(normalize(agent(function_tool("findPlans", name="plans", description="Search plans."))))
    assert (tool["name"], tool["description"]) == ("plans", "Search plans.")


# 72.
def test_an_authored_name_off_the_pattern_is_rejected_not_converted() -> None:
    diagnostic = only_diagnostic(normalize(agent(function_tool("findPlans", name="Find Plans"))))
    assert diagnostic.to_dict() == {
        "severity": "error",
        "code": "nx-agent-invalid-tool-name",
        "message": 'The tool name "Find Plans" of tools[0] does not match ^[a-z][a-z0-9_]{0,63}$.',
        "path": "tools[0].name",
    }
    assert diagnostic.tool is None


def test_an_authored_name_that_is_not_a_string() -> None:
    assert only_diagnostic(normalize(agent(function_tool("findPlans", name=7)))).to_dict() == {
        "severity": "error",
        "code": "nx-agent-invalid-tool-name",
        "message": "The name of tools[0] is the number 7, not a string.",
        "path": "tools[0].name",
    }


# 73.
def test_a_derived_name_off_the_pattern_points_at_the_function() -> None:
    diagnostic = only_diagnostic(normalize(agent(function_tool(LONG_NAME))))
    assert diagnostic.code == "nx-agent-invalid-tool-name"
    assert diagnostic.path == "tools[0]"
    assert diagnostic.tool is None and "tool" not in diagnostic.to_dict()
    assert diagnostic.message == (
        f'The name of tools[0] defaults to "{LONG_NAME}", which does not match ^[a-z][a-z0-9_]{{0,63}}$; give the tool a name.'
    )
    span = ANSWERS[("main.nx", LONG_NAME)]["declaration"]
    assert diagnostic.to_dict()["declaration"] == {"module": "main.nx", "span": span}
    # The span is the answer's own: its start line is the `let` line after the doc comment.
    assert span["startLine"] == 2


# 74.
def test_a_tool_with_no_description_points_at_its_function() -> None:
    diagnostic = only_diagnostic(normalize(agent(function_tool("findPlans"), function_tool("undocumented"))))
    assert diagnostic.to_dict() == {
        "severity": "error",
        "code": "nx-agent-missing-description",
        "message": "Tool 'undocumented' (tools[1]) has no description: give it one, or document its function with a '///' comment.",
        "path": "tools[1]",
        "tool": "undocumented",
        "declaration": {"module": "main.nx", "span": ANSWERS[("main.nx", "undocumented")]["declaration"]},
    }


# 75.
def test_a_blank_authored_description_is_rejected_and_not_replaced() -> None:
    diagnostic = only_diagnostic(normalize(agent(function_tool("findPlans", description="   "))))
    assert diagnostic.to_dict() == {
        "severity": "error",
        "code": "nx-agent-missing-description",
        "message": "Tool 'find_plans' (tools[0]) has an empty description.",
        "path": "tools[0].description",
        "tool": "find_plans",
    }


@pytest.mark.parametrize("blank", ["\ufeff", "\u3000\u2028", "\t\n"])
def test_javascript_whitespace_is_blank(blank: str) -> None:
    assert only_diagnostic(normalize(agent(function_tool("findPlans", description=blank)))).code == (
        "nx-agent-missing-description"
    )


def test_a_description_of_other_whitespace_is_kept() -> None:
    # U+0085 and U+200B are not JavaScript white space: trim() keeps them.
    for text in ("\u0085", "\u200b"):
        assert only_tool(normalize(agent(function_tool("findPlans", description=text))))["description"] == text


def test_a_non_string_authored_description_is_no_description() -> None:
    diagnostic = only_diagnostic(normalize(agent(function_tool("findPlans", description=7))))
    assert diagnostic.path == "tools[0]"
    assert diagnostic.message.startswith("Tool 'find_plans' (tools[0]) has no description: give it one")


# 76.
def test_a_function_typed_parameter_is_rejected_with_the_exports_message() -> None:
    answer = ANSWERS[("main.nx", "applyTo")]
    diagnostic = only_diagnostic(normalize(agent(function_tool("applyTo"))))
    assert "inputSchema" not in answer
    assert diagnostic.to_dict() == {
        "severity": "error",
        "code": "nx-agent-inexpressible-parameter",
        "message": f"Tool 'apply_to' (tools[0]): {answer['diagnostics'][0]['message']}",
        "path": "tools[0]",
        "tool": "apply_to",
        "declaration": {"module": "main.nx", "span": answer["declaration"]},
    }
    assert "Parameter `f` has the function type `<function n:int />: int`" in diagnostic.message


# 77.
def test_a_result_with_no_json_form_is_a_warning() -> None:
    result = normalize(agent(function_tool("pick")))
    tool = only_tool(result)
    assert "outputSchema" not in tool
    assert list(tool) == ["name", "description", "inputSchema", "annotations", "kind", "config"]
    assert [d.to_dict() for d in result.diagnostics] == [
        {
            "severity": "warning",
            "code": "nx-agent-inexpressible-result",
            "message": "Tool 'pick' (tools[0]) has no output schema: The result of `pick` has the function type "
            "`<function n:int />: int`, which has no JSON form.",
            "path": "tools[0]",
            "tool": "pick",
            "declaration": {"module": "main.nx", "span": ANSWERS[("main.nx", "pick")]["declaration"]},
        }
    ]


def test_a_missing_result_with_no_reason_has_the_fixed_reason() -> None:
    answers = dict(ANSWERS)
    answers[("main.nx", "pick")] = {**ANSWERS[("main.nx", "pick")], "diagnostics": []}
    result = normalize(agent(function_tool("pick")), FakeSchemaSource(answers))
    assert result.ok
    assert [d.message for d in result.diagnostics] == [
        "Tool 'pick' (tools[0]) has no output schema: the result type has no JSON form"
    ]


# 78.
def test_a_function_with_neither_schema_is_refused() -> None:
    diagnostics = refused(normalize(agent(function_tool("both"))))
    assert [(d.severity, d.code) for d in diagnostics] == [
        ("error", "nx-agent-inexpressible-parameter"),
        ("error", "nx-agent-inexpressible-parameter"),
    ]
    assert "Parameter `f`" in diagnostics[0].message
    assert "The result of `both`" in diagnostics[1].message


def test_no_input_schema_and_no_reason() -> None:
    answers = {("main.nx", "both"): {**ANSWERS[("main.nx", "both")], "diagnostics": []}}
    diagnostic = only_diagnostic(normalize(agent(function_tool("both")), FakeSchemaSource(answers)))
    assert diagnostic.message == "Tool 'both' (tools[0]): a parameter's type has no JSON form"


# 79.
@pytest.mark.parametrize(("module", "name"), [("main.nx", "findPlanz"), ("other.nx", "findPlans")])
def test_a_function_the_program_does_not_declare(module: str, name: str) -> None:
    value = agent({"$type": "FunctionTool", "function": ref(name, module)})
    assert only_diagnostic(normalize(value)).to_dict() == {
        "severity": "error",
        "code": "nx-agent-unknown-function",
        "message": f"tools[0] names the function '{name}' of module '{module}', which the program does not declare.",
        "path": "tools[0].function",
        "declaration": {"module": module},
    }


# 80.
@pytest.mark.parametrize(
    ("held", "described"),
    [
        (MISSING, "undefined"),
        ("findPlans", 'the string "findPlans"'),
        ({"module": "main.nx", "name": "findPlans"}, "a record with no '$type'"),
        ({"$type": "Function", "name": "findPlans"}, "a 'Function'"),
    ],
)
def test_a_function_field_that_is_not_a_function_record(held: Any, described: str) -> None:
    tool = {"$type": "FunctionTool"} if held is MISSING else {"$type": "FunctionTool", "function": held}
    assert only_diagnostic(normalize(agent(tool))).to_dict() == {
        "severity": "error",
        "code": "nx-agent-unknown-function",
        "message": f"The 'function' of tools[0] is {described}, not a function: {{ $type: \"Function\", module, name }}.",
        "path": "tools[0].function",
    }


# 81.
def test_anything_else_a_schema_source_raises_propagates() -> None:
    disposed = RuntimeError("The artifact has been disposed.")
    other = NxError("crashed")
    other.diagnostics = [{"code": "host-crashed", "message": "crashed"}]  # type: ignore[attr-defined]

    for error in (disposed, other):

        class Raising:
            def function_schema(self, ref: Mapping[str, str], *, host_supplied_types: Any = ()) -> Any:
                raise error

        with pytest.raises(type(error)) as caught:
            normalize(agent(function_tool("findPlans")), Raising())
        assert caught.value is error


# 82.
def test_the_span_is_left_out_only_when_the_answer_leaves_it_out() -> None:
    answers = {key: {k: v for k, v in answer.items() if k != "declaration"} for key, answer in ANSWERS.items()}
    diagnostic = only_diagnostic(normalize(agent(function_tool("undocumented")), FakeSchemaSource(answers)))
    assert diagnostic.code == "nx-agent-missing-description"
    assert diagnostic.to_dict()["declaration"] == {"module": "main.nx"}


# ---- context parameters --------------------------------------------------------------------------


# 83.
def test_a_context_parameter_is_left_out_and_recorded_with_its_type() -> None:
    order_for, who_am_i = definition_of(
        normalize(agent(function_tool("orderFor"), function_tool("whoAmI")), tool_context_type=CHAT_CONTEXT)
    )["tools"]
    assert list(order_for["inputSchema"]["properties"]) == ["orderId"]
    assert order_for["inputSchema"]["required"] == ["orderId"]
    assert order_for["config"] == {
        "function": {"module": "main.nx", "name": "orderFor"},
        "contextParameters": [{"name": "context", "type": {"module": "host/Chat.nx", "name": "ChatToolContext"}}],
    }
    assert who_am_i["inputSchema"] == EMPTY_INPUT
    assert who_am_i["config"] == {
        "function": {"module": "main.nx", "name": "whoAmI"},
        "contextParameters": [{"name": "context", "type": TOOL_CONTEXT}],
    }


# 84.
def test_a_context_parameter_with_no_host_type() -> None:
    diagnostics = refused(normalize(agent(function_tool("orderFor"), function_tool("whoAmI"))))
    assert [(d.code, d.path, d.tool) for d in diagnostics] == [
        ("nx-agent-context-parameter", "tools[0]", "order_for"),
        ("nx-agent-context-parameter", "tools[1]", "who_am_i"),
    ]
    assert diagnostics[0].message == (
        "Tool 'order_for' (tools[0]): the parameter 'context' of 'orderFor' is a tool context, and the host "
        "named no tool context type, so it supplies none."
    )
    assert diagnostics[0].to_dict()["declaration"] == {
        "module": "main.nx",
        "span": ANSWERS[("main.nx", "orderFor")]["declaration"],
    }


# 85.
def test_a_context_parameter_declared_with_another_subtype() -> None:
    other = {"module": "host/Other.nx", "name": "OtherToolContext"}
    diagnostic = only_diagnostic(
        normalize(agent(function_tool("orderFor"), function_tool("whoAmI")), tool_context_type=other)
    )
    assert diagnostic.code == "nx-agent-context-parameter"
    assert diagnostic.tool == "order_for"
    assert diagnostic.message == (
        "Tool 'order_for' (tools[0]): the parameter 'context' of 'orderFor' is declared with 'ChatToolContext' of "
        "'host/Chat.nx', and the host supplies 'OtherToolContext' of 'host/Other.nx'."
    )


def test_a_context_parameter_with_no_type_named_by_the_source() -> None:
    answer = ANSWERS[("main.nx", "orderFor")]
    parameters = [answer["parameters"][0], {"name": "context", "hostSupplied": TOOL_CONTEXT}]
    source = FakeSchemaSource({("main.nx", "orderFor"): {**answer, "parameters": parameters}})
    diagnostic = only_diagnostic(normalize(agent(function_tool("orderFor")), source, tool_context_type=CHAT_CONTEXT))
    assert diagnostic.message == (
        "Tool 'order_for' (tools[0]): the parameter 'context' of 'orderFor' is declared with a tool context type the "
        "schema source does not name, and the host supplies 'ChatToolContext' of 'host/Chat.nx'."
    )


# 86.
def test_types_compare_by_module_as_well_as_name() -> None:
    elsewhere = {"module": "elsewhere/Chat.nx", "name": "ChatToolContext"}
    diagnostic = only_diagnostic(normalize(agent(function_tool("orderFor")), tool_context_type=elsewhere))
    assert diagnostic.code == "nx-agent-context-parameter"


def held_message(tool: str, index: int, parameter: str, function: str) -> str:
    return (
        f"Tool '{tool}' (tools[{index}]): the parameter '{parameter}' of '{function}' holds a tool context without "
        "being one, so the model would be asked for it. Declare the context as a parameter of its own."
    )


# 87. 88. 89.
@pytest.mark.parametrize(
    ("function", "tool", "parameter"),
    [
        ("countContexts", "count_contexts", "contexts"),
        ("sendOne", "send_one", "request"),
        ("sendAll", "send_all", "batch"),
        ("audit", "audit", "contexts"),
        ("anyOf", "any_of", "contexts"),
    ],
)
def test_a_parameter_that_holds_a_context(function: str, tool: str, parameter: str) -> None:
    diagnostic = only_diagnostic(normalize(agent(function_tool(function)), tool_context_type=CHAT_CONTEXT))
    assert diagnostic.to_dict() == {
        "severity": "error",
        "code": "nx-agent-context-parameter",
        "message": held_message(tool, 0, parameter, function),
        "path": "tools[0]",
        "tool": tool,
        "declaration": {"module": "main.nx", "span": ANSWERS[("main.nx", function)]["declaration"]},
    }


# 90.
def test_a_context_parameter_declared_through_an_alias() -> None:
    tool = only_tool(normalize(agent(function_tool("viaAlias")), tool_context_type=CHAT_CONTEXT))
    assert list(tool["inputSchema"]["properties"]) == ["orderId"]
    assert tool["config"] == {
        "function": {"module": "main.nx", "name": "viaAlias"},
        "contextParameters": [{"name": "context", "type": CHAT_CONTEXT}],
    }
    diagnostic = only_diagnostic(normalize(agent(function_tool("viaListAlias")), tool_context_type=CHAT_CONTEXT))
    assert "'contexts' of 'viaListAlias' holds a tool context" in diagnostic.message


# 91.
def test_a_context_of_its_own_beside_one_that_is_held() -> None:
    diagnostic = only_diagnostic(normalize(agent(function_tool("mixed")), tool_context_type=CHAT_CONTEXT))
    assert diagnostic.message == held_message("mixed", 0, "request", "mixed")
    messages = [d.message for d in refused(normalize(agent(function_tool("mixed"))))]
    assert [message.split("the parameter '")[1].split("'")[0] for message in messages] == ["context", "request"]


# 92.
def test_a_source_answering_from_what_it_kept_is_held_to_the_same_rule() -> None:
    answer = ANSWERS[("main.nx", "orderFor")]

    def answering(held: list[dict[str, str]]) -> FakeSchemaSource:
        parameters = [{"name": "orderId", "hostSuppliedWithin": held}, answer["parameters"][1]]
        return FakeSchemaSource({("main.nx", "orderFor"): {**answer, "parameters": parameters}})

    diagnostic = only_diagnostic(
        normalize(agent(function_tool("orderFor")), answering([TOOL_CONTEXT]), tool_context_type=CHAT_CONTEXT)
    )
    assert diagnostic.code == "nx-agent-context-parameter"
    assert "'orderId' of 'orderFor' holds a tool context" in diagnostic.message
    assert normalize(agent(function_tool("orderFor")), answering([]), tool_context_type=CHAT_CONTEXT).ok


# 93.
def test_unknown_schema_keywords_are_kept_byte_for_byte() -> None:
    inputs = {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {
            "teamSize": {"type": "integer", "minimum": 1, "maximum": 10, "x-nx-constraint": "1..10"},
            "code": {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[A-Z]+$"},
        },
        "required": ["teamSize"],
        "additionalProperties": False,
    }
    output = {
        "$schema": SCHEMA,
        "type": "array",
        "items": {"type": "string", "pattern": "^plan_"},
        "maxItems": 5,
        "futureKeyword": {"nested": [1, 2]},
    }
    answers = {("main.nx", "findPlans"): {**ANSWERS[("main.nx", "findPlans")], "inputSchema": inputs, "outputSchema": output}}
    tool = only_tool(normalize(agent(function_tool("findPlans")), FakeSchemaSource(answers)))
    assert tool["inputSchema"] == inputs and tool["outputSchema"] == output
    assert definition_text(tool["inputSchema"]) == json.dumps(inputs, separators=(",", ":"))
    assert definition_text(tool["outputSchema"]) == json.dumps(output, separators=(",", ":"))


# ---- WebSearchTool -------------------------------------------------------------------------------


# 94.
def test_a_web_search_tool_is_a_provider_tool_with_its_domains() -> None:
    tool = only_tool(normalize(agent(web_search_tool(allowedDomains=["docs.example.com"]))))
    assert tool == WEB_SEARCH_TOOL
    assert list(tool) == ["name", "description", "inputSchema", "annotations", "kind", "config"]


# 95.
def test_a_web_search_tool_with_no_domains_and_authored_fields() -> None:
    tool = only_tool(normalize(agent(web_search_tool(name="search_docs", description="Search the docs."))))
    assert (tool["name"], tool["description"]) == ("search_docs", "Search the docs.")
    assert tool["config"] == {"provider": "web_search"}


@pytest.mark.parametrize("domains", ["docs.example.com", ["docs.example.com", 7], {"$type": "X"}])
def test_web_search_domains_that_are_not_a_list_of_strings(domains: Any) -> None:
    assert only_diagnostic(normalize(agent(web_search_tool(allowedDomains=domains)))).to_dict() == {
        "severity": "error",
        "code": "nx-agent-unknown-tool-type",
        "message": "tools[0] is not a well-formed WebSearchTool: 'allowedDomains' is not a list of strings.",
        "path": "tools[0].allowedDomains",
        "tool": "web_search",
    }


def test_a_blank_web_search_description_has_no_declaration() -> None:
    assert only_diagnostic(normalize(agent(web_search_tool(description=None, name="")))).to_dict() == {
        "severity": "error",
        "code": "nx-agent-invalid-tool-name",
        "message": 'The tool name "" of tools[0] does not match ^[a-z][a-z0-9_]{0,63}$.',
        "path": "tools[0].name",
    }


# ---- HttpTool ------------------------------------------------------------------------------------

GET_ORDER = ("get", "/orders/{orderId}", "lookupOrder")


# 96.
def test_an_http_tool_is_a_fixed_operation_on_its_connection() -> None:
    tool = only_tool(normalize(agent(http_tool(*GET_ORDER))))
    assert tool["name"] == "lookup_order"
    assert tool["description"] == "Looks an order up by its identifier."
    assert tool["kind"] == "http"
    assert tool["inputSchema"] == ANSWERS[("main.nx", "lookupOrder")]["inputSchema"]
    assert tool["config"] == {
        "arguments": {"module": "main.nx", "name": "lookupOrder"},
        "contextParameters": [],
        "connection": {"name": "shop", "baseUrl": "https://api.example.com"},
        "method": "get",
        "path": "/orders/{orderId}",
        "pathPlaceholders": ["orderId"],
    }
    assert list(tool["config"]) == ["arguments", "contextParameters", "connection", "method", "path", "pathPlaceholders"]
    assert tool["annotations"] == GET_HINTS
    assert list(tool) == TOOL_KEYS


# 97.
def test_an_http_tools_output_schema() -> None:
    tool = only_tool(normalize(agent(http_tool(*GET_ORDER))))
    assert tool["outputSchema"] == {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {"status": {"type": "integer"}, "body": {}},
        "required": ["status"],
    }
    assert "additionalProperties" not in tool["outputSchema"]


# 98.
def test_a_base_urls_trailing_slash_is_removed() -> None:
    tool = only_tool(normalize(agent(http_tool(*GET_ORDER, "https://api.example.com/v1/"))))
    assert tool["config"]["connection"] == {"name": "shop", "baseUrl": "https://api.example.com/v1"}


# 99.
def test_each_method_has_its_annotations_and_the_call_limit_is_kept() -> None:
    tools = [
        http_tool(method, "/orders/{orderId}", "lookupOrder", name=f"{method}_order", maxCallsPerConversation=3)
        for method in ("get", "post", "put", "patch", "delete")
    ]
    definition = definition_of(normalize(agent(*tools)))
    hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
    assert [[tool["config"]["method"], *(tool["annotations"][h] for h in hints)] for tool in definition["tools"]] == [
        ["get", True, False, True, True],
        ["post", False, True, False, True],
        ["put", False, True, True, True],
        ["patch", False, True, False, True],
        ["delete", False, True, True, True],
    ]
    assert definition["tools"][1]["config"]["maxCallsPerConversation"] == 3
    assert list(definition["tools"][1]["config"])[-1] == "maxCallsPerConversation"


# 100.
def test_an_http_tools_context_parameters() -> None:
    value = agent(http_tool("get", "/orders/{orderId}", "lookupMine"))
    tool = only_tool(normalize(value, tool_context_type=CHAT_CONTEXT))
    assert list(tool["inputSchema"]["properties"]) == ["orderId"]
    assert tool["config"]["contextParameters"] == [{"name": "context", "type": CHAT_CONTEXT}]
    assert only_diagnostic(normalize(value)).code == "nx-agent-context-parameter"


# 101.
def test_a_base_url_that_is_not_https() -> None:
    assert only_diagnostic(normalize(agent(http_tool(*GET_ORDER, "http://api.example.com")))).to_dict() == {
        "severity": "error",
        "code": "nx-agent-http-base-url",
        "message": "Tool 'lookup_order' (tools[0]): the base URL 'http://api.example.com' of connection 'shop' cannot be "
        "used: its scheme is 'http', not 'https'.",
        "path": "tools[0].connection.baseUrl",
        "tool": "lookup_order",
    }


# 102.
def test_http_only_for_a_local_server_when_allowed() -> None:
    local = agent(http_tool(*GET_ORDER, "http://localhost:8787"))
    assert only_diagnostic(normalize(local)).code == "nx-agent-http-base-url"
    assert only_diagnostic(normalize(local, allow_insecure_base_url=False)).code == "nx-agent-http-base-url"
    tool = only_tool(normalize(local, allow_insecure_base_url=True))
    assert tool["config"]["connection"] == {"name": "shop", "baseUrl": "http://localhost:8787"}
    ftp = agent(http_tool(*GET_ORDER, "ftp://api.example.com"))
    assert only_diagnostic(normalize(ftp, allow_insecure_base_url=True)).code == "nx-agent-http-base-url"


# 103.
@pytest.mark.parametrize(
    ("base_url", "problem"),
    [
        ("https://api.example.com/v1?key=1", "it has a query"),
        ("https://api.example.com/v1#top", "it has a fragment"),
        ("https://user:secret@api.example.com", "it has user information"),
        ("api.example.com", "it is not an absolute URL"),
        ("https://API.example.com", "a URL parser reads it as 'https://api.example.com'; write it that way"),
    ],
)
def test_a_base_url_that_cannot_be_used(base_url: str, problem: str) -> None:
    diagnostic = only_diagnostic(normalize(agent(http_tool(*GET_ORDER, base_url))))
    assert diagnostic.code == "nx-agent-http-base-url"
    assert diagnostic.message == (
        f"Tool 'lookup_order' (tools[0]): the base URL '{base_url}' of connection 'shop' cannot be used: {problem}."
    )


# 104.
@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("/orders/../admin", "it has the segment '..'"),
        ("orders/{orderId}", "it does not begin with '/'"),
        ("/orders/{orderId", "the '{' at offset 8 is not closed"),
        ("/orders/{order-id}", "the placeholder '{order-id}' is not named by an identifier"),
        ("/orders?id={orderId}", 'the character "?" at offset 7 is not a URL path character'),
        ("/my orders/{orderId}", 'the character " " at offset 3 is not a URL path character'),
    ],
)
def test_a_malformed_path(path: str, problem: str) -> None:
    diagnostic = only_diagnostic(normalize(agent(http_tool("get", path, "lookupOrder"))))
    assert diagnostic.to_dict() == {
        "severity": "error",
        "code": "nx-agent-http-path",
        "message": f"Tool 'lookup_order' (tools[0]): the path '{path}' cannot be used: {problem}.",
        "path": "tools[0].path",
        "tool": "lookup_order",
    }


# 105.
def test_the_arguments_functions_result_type_is_not_checked_nor_anything_contacted() -> None:
    value = agent(http_tool("get", "/orders/{orderId}", "notArguments", "https://no-such-host.invalid"))
    tool = only_tool(normalize(value))
    assert (tool["name"], tool["kind"]) == ("not_arguments", "http")
    assert tool["outputSchema"] == HTTP_OUTPUT


# 106.
def test_a_malformed_http_tool_is_reported_field_by_field() -> None:
    value = agent(
        {
            "$type": "HttpTool",
            "connection": "shop",
            "method": "head",
            "path": 7,
            "arguments": "lookupOrder",
            "maxCallsPerConversation": "three",
        }
    )
    assert [d.to_dict() for d in refused(normalize(value))] == [
        {
            "severity": "error",
            "code": "nx-agent-http-arguments-type",
            "message": "The 'arguments' of tools[0] is the string \"lookupOrder\", not a function: "
            '{ $type: "Function", module, name }.',
            "path": "tools[0].arguments",
        },
        {
            "severity": "error",
            "code": "nx-agent-http-base-url",
            "message": "tools[0]: its connection is the string \"shop\", not an HttpConnection with a 'name' and a 'baseUrl'.",
            "path": "tools[0].connection",
        },
        {
            "severity": "error",
            "code": "nx-agent-unknown-tool-type",
            "message": "tools[0] is not a well-formed HttpTool: its method is the string \"head\", not one of get, post, "
            "put, patch and delete.",
            "path": "tools[0].method",
        },
        {
            "severity": "error",
            "code": "nx-agent-http-path",
            "message": "tools[0]: its path is the number 7, not a string.",
            "path": "tools[0].path",
        },
        {
            "severity": "error",
            "code": "nx-agent-unknown-tool-type",
            "message": "tools[0] is not a well-formed HttpTool: 'maxCallsPerConversation' is the string \"three\", "
            "not a number.",
            "path": "tools[0].maxCallsPerConversation",
        },
    ]


def test_an_unknown_arguments_function_is_an_unknown_function() -> None:
    diagnostic = only_diagnostic(normalize(agent(http_tool("get", "/orders", "gone"))))
    assert (diagnostic.code, diagnostic.path) == ("nx-agent-unknown-function", "tools[0].arguments")


# ---- host describers -----------------------------------------------------------------------------

SEARCH_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string"}},
    "required": ["query"],
    "additionalProperties": False,
}
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
RECORD_SEARCH = {"$type": "RecordSearchTool", "recordKind": "company", "maxResults": 5}


def record_search(value: Mapping[str, Any], context: ToolDescriberContext) -> dict[str, Any]:
    return {
        "name": context.to_snake_case(f"search {value['recordKind']} records"),
        "title": "Record search",
        "description": f"Searches {value['recordKind']} records.",
        "inputSchema": SEARCH_SCHEMA,
        "outputSchema": {"type": "array"},
        "annotations": READ_ONLY,
        "kind": "builtin",
        "config": {"builtin": "record_search", "recordKind": value["recordKind"], "maxResults": value["maxResults"]},
    }


def scheduler(value: Mapping[str, Any], context: ToolDescriberContext) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "description": "Books a meeting." if name == "book_meeting" else "Finds free times.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
            "annotations": {**READ_ONLY, "readOnlyHint": name != "book_meeting", "destructiveHint": name == "book_meeting"},
            "kind": "builtin",
            "config": {"builtin": name, "calendar": value["calendar"]},
        }
        for name in ("find_meeting_times", "book_meeting")
    ]


MEETINGS = {"$type": "MeetingSchedulerTool", "calendar": "sales"}


# 107.
def test_a_host_tool_type_is_described_by_its_describer() -> None:
    seen: list[Any] = []
    source = FakeSchemaSource()

    def describer(value: Mapping[str, Any], context: ToolDescriberContext) -> Any:
        seen.append([value, context.path, context.schemas is source, context.to_snake_case("PlanRow")])
        return record_search(value, context)

    tool = only_tool(normalize(agent(RECORD_SEARCH), source, tool_types={"RecordSearchTool": describer}))
    assert seen == [[RECORD_SEARCH, "tools[0]", True, "plan_row"]]
    assert tool == {
        "name": "search_company_records",
        "title": "Record search",
        "description": "Searches company records.",
        "inputSchema": SEARCH_SCHEMA,
        "outputSchema": {"type": "array"},
        "annotations": READ_ONLY,
        "kind": "builtin",
        "config": {"builtin": "record_search", "recordKind": "company", "maxResults": 5},
    }
    assert list(tool) == ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "kind", "config"]
    assert tool["inputSchema"] is not SEARCH_SCHEMA


# 108.
def test_authored_fields_override_a_single_described_tool() -> None:
    value = agent({**RECORD_SEARCH, "name": "find_companies", "description": "Find a company."})
    tool = only_tool(normalize(value, tool_types={"RecordSearchTool": record_search}))
    assert (tool["name"], tool["description"], tool["title"]) == ("find_companies", "Find a company.", "Record search")


def test_annotations_are_rebuilt_in_canonical_order() -> None:
    def shuffled(value: Mapping[str, Any], context: ToolDescriberContext) -> dict[str, Any]:
        return {**record_search(value, context), "annotations": dict(reversed(list(READ_ONLY.items())))}

    tool = only_tool(normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": shuffled}))
    assert list(tool["annotations"]) == ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]


# 109.
def test_one_element_resolves_to_two_tools_at_its_position() -> None:
    value = agent(function_tool("findPlans"), {**MEETINGS, "name": "ignored"}, web_search_tool())
    definition = definition_of(normalize(value, tool_types={"MeetingSchedulerTool": scheduler}))
    assert [tool["name"] for tool in definition["tools"]] == ["find_plans", "find_meeting_times", "book_meeting", "web_search"]
    assert definition["tools"][2]["config"] == {"builtin": "book_meeting", "calendar": "sales"}
    assert definition["tools"][2]["annotations"]["destructiveHint"] is True


# 110.
@pytest.mark.parametrize("tool_types", [None, {"RecordSearchTool": record_search}])
def test_an_unregistered_tool_type(tool_types: Any) -> None:
    assert only_diagnostic(normalize(agent(MEETINGS), tool_types=tool_types)).to_dict() == {
        "severity": "error",
        "code": "nx-agent-unknown-tool-type",
        "message": "tools[0] is a 'MeetingSchedulerTool', and no describer is registered for that tool type.",
        "path": "tools[0]",
    }


# 111.
def test_inherited_names_are_not_describers() -> None:
    diagnostics = refused(normalize(agent({"$type": "toString"}, {"$type": "constructor"}), tool_types={}))
    assert [d.code for d in diagnostics] == ["nx-agent-unknown-tool-type", "nx-agent-unknown-tool-type"]


@pytest.mark.parametrize(("tool", "described"), [(7, "the number 7"), ({"name": "x"}, "a record with no '$type'"), ([], "a list")])
def test_a_tool_that_is_not_a_tool(tool: Any, described: str) -> None:
    assert only_diagnostic(normalize({**agent(), "tools": [tool]})).to_dict() == {
        "severity": "error",
        "code": "nx-agent-unknown-tool-type",
        "message": f"tools[0] is {described}, not a tool.",
        "path": "tools[0]",
    }


# 112.
def test_a_describers_diagnostics_are_reported_against_the_tool() -> None:
    def refusing(value: Mapping[str, Any], context: ToolDescriberContext) -> Any:
        return {"diagnostics": [{"message": "'invoice' is not a record kind."}, {"message": "Use 'company' or 'person'."}]}

    result = normalize(agent({**RECORD_SEARCH, "recordKind": "invoice"}), tool_types={"RecordSearchTool": refusing})
    assert [d.to_dict() for d in refused(result)] == [
        {
            "severity": "error",
            "code": "nx-agent-describer",
            "message": "The describer of 'RecordSearchTool' refused tools[0]: 'invoice' is not a record kind.",
            "path": "tools[0]",
        },
        {
            "severity": "error",
            "code": "nx-agent-describer",
            "message": "The describer of 'RecordSearchTool' refused tools[0]: Use 'company' or 'person'.",
            "path": "tools[0]",
        },
    ]


def test_a_describer_refusing_with_no_reason() -> None:
    result = normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": lambda value, context: {"diagnostics": []}})
    assert only_diagnostic(result).message == "The describer of 'RecordSearchTool' refused tools[0]: it reported no reason"


BASE_DESCRIPTION = {
    "name": "search_records",
    "description": "Searches.",
    "inputSchema": SEARCH_SCHEMA,
    "annotations": READ_ONLY,
    "kind": "builtin",
    "config": {},
}


def cyclic() -> dict[str, Any]:
    held: dict[str, Any] = {}
    held["self"] = held
    return held


def _without(key: str) -> dict[str, Any]:
    return {k: v for k, v in BASE_DESCRIPTION.items() if k != key}


def cannot(problem: str) -> str:
    return f"The describer of 'RecordSearchTool' cannot be used for tools[0]: {problem}."


# 113. 114.
@pytest.mark.parametrize(
    ("description", "code", "message"),
    [
        (
            {**BASE_DESCRIPTION, "config": {"when": datetime(1970, 1, 1, tzinfo=timezone.utc)}},
            "nx-agent-describer",
            cannot("the 'config' of 'search_records'.when is not a plain object"),
        ),
        ({**BASE_DESCRIPTION, "config": {"limit": math.nan}}, "nx-agent-describer", cannot("the 'config' of 'search_records'.limit is NaN, which JSON cannot hold")),
        ({**BASE_DESCRIPTION, "config": {"limit": math.inf}}, "nx-agent-describer", cannot("the 'config' of 'search_records'.limit is Infinity, which JSON cannot hold")),
        ({**BASE_DESCRIPTION, "config": {"run": lambda: 1}}, "nx-agent-describer", cannot("the 'config' of 'search_records'.run is a function, which JSON cannot hold")),
        ({**BASE_DESCRIPTION, "config": {"missing": MISSING}}, "nx-agent-describer", cannot("the 'config' of 'search_records'.missing is undefined, which JSON cannot hold")),
        ({**BASE_DESCRIPTION, "config": {"list": [1, [2, math.nan]]}}, "nx-agent-describer", cannot("the 'config' of 'search_records'.list[1][1] is NaN, which JSON cannot hold")),
        ({**BASE_DESCRIPTION, "config": cyclic()}, "nx-agent-describer", cannot("the 'config' of 'search_records'.self holds itself")),
        ({**BASE_DESCRIPTION, "inputSchema": {"a": {1, 2}}}, "nx-agent-describer", cannot("the 'inputSchema' of 'search_records'.a is not a plain object")),
        ({**BASE_DESCRIPTION, "outputSchema": {"b": math.nan}}, "nx-agent-describer", cannot("the 'outputSchema' of 'search_records'.b is NaN, which JSON cannot hold")),
        (_without("inputSchema"), "nx-agent-describer", cannot("'search_records' has no 'inputSchema'")),
        ({**BASE_DESCRIPTION, "outputSchema": "array"}, "nx-agent-describer", cannot("the 'outputSchema' of 'search_records' is not a schema")),
        ({**BASE_DESCRIPTION, "annotations": {"readOnlyHint": True}}, "nx-agent-describer", cannot("'search_records' does not carry the four boolean annotations")),
        ({**BASE_DESCRIPTION, "annotations": {**READ_ONLY, "openWorldHint": 1}}, "nx-agent-describer", cannot("'search_records' does not carry the four boolean annotations")),
        (_without("kind"), "nx-agent-describer", cannot("'search_records' has no 'kind'")),
        ({**BASE_DESCRIPTION, "kind": ""}, "nx-agent-describer", cannot("'search_records' has no 'kind'")),
        (_without("config"), "nx-agent-describer", cannot("'search_records' has no 'config'")),
        (_without("name"), "nx-agent-describer", cannot("the description has no 'name'")),
        ({**BASE_DESCRIPTION, "title": 7}, "nx-agent-describer", cannot("the 'title' of 'search_records' is not a string")),
        ([], "nx-agent-describer", "The describer of 'RecordSearchTool' described no tool for tools[0]."),
        ("search", "nx-agent-describer", cannot('it returned the string "search", not a tool description')),
        ({**BASE_DESCRIPTION, "kind": "function"}, "nx-agent-describer", cannot("'search_records' has the kind 'function', which is the package's own")),
        ({**BASE_DESCRIPTION, "kind": "http"}, "nx-agent-describer", cannot("'search_records' has the kind 'http', which is the package's own")),
        ({**BASE_DESCRIPTION, "kind": "provider"}, "nx-agent-describer", cannot("'search_records' has the kind 'provider', which is the package's own")),
    ],
)
def test_a_described_tool_is_held_to_the_packages_rules(description: Any, code: str, message: str) -> None:
    result = normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": lambda value, context: description})
    assert only_diagnostic(result).to_dict() == {"severity": "error", "code": code, "message": message, "path": "tools[0]"}


def test_a_described_name_and_description_follow_the_rules_for_defaults() -> None:
    bad_name = normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": lambda v, c: {**BASE_DESCRIPTION, "name": "Search Records"}})
    assert only_diagnostic(bad_name).to_dict() == {
        "severity": "error",
        "code": "nx-agent-invalid-tool-name",
        "message": 'The name of tools[0] defaults to "Search Records", which does not match ^[a-z][a-z0-9_]{0,63}$; '
        "give the tool a name.",
        "path": "tools[0]",
    }
    blank = normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": lambda v, c: {**BASE_DESCRIPTION, "description": "  "}})
    assert only_diagnostic(blank).to_dict() == {
        "severity": "error",
        "code": "nx-agent-missing-description",
        "message": "Tool 'search_records' (tools[0]) has no description.",
        "path": "tools[0]",
        "tool": "search_records",
    }


def test_one_bad_description_of_several_drops_the_element() -> None:
    def mixed(value: Mapping[str, Any], context: ToolDescriberContext) -> Any:
        return [BASE_DESCRIPTION, {**BASE_DESCRIPTION, "name": "other", "kind": None}]

    diagnostic = only_diagnostic(normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": mixed}))
    assert diagnostic.message == cannot("'other' has no 'kind'")


# 115.
@pytest.mark.parametrize("type_name", ["FunctionTool", "HttpTool", "WebSearchTool"])
def test_a_describer_cannot_replace_the_packages_own_types(type_name: str) -> None:
    called: list[bool] = []

    def describer(value: Mapping[str, Any], context: ToolDescriberContext) -> Any:
        called.append(True)
        return {**BASE_DESCRIPTION}

    result = normalize(
        agent(function_tool("findPlans"), RECORD_SEARCH),
        tool_types={"RecordSearchTool": record_search, type_name: describer},
    )
    assert only_diagnostic(result).to_dict() == {
        "severity": "error",
        "code": "nx-agent-describer",
        "message": f"A describer is registered for '{type_name}', which the package describes itself.",
        "path": "",
    }
    assert called == []


# 116.
def test_what_a_describer_raises_propagates() -> None:
    failure = RuntimeError("the record index is down")

    def broken(value: Mapping[str, Any], context: ToolDescriberContext) -> Any:
        raise failure

    with pytest.raises(RuntimeError) as caught:
        normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": broken})
    assert caught.value is failure


# ---- names across the agent, and the definition as stored ----------------------------------------


# 117.
def test_duplicate_names_are_one_diagnostic_naming_both_positions() -> None:
    value = agent(function_tool("findPlans"), web_search_tool(), function_tool("findPlans", description="Again."))
    assert [d.to_dict() for d in refused(normalize(value))] == [
        {
            "severity": "error",
            "code": "nx-agent-duplicate-tool-name",
            "message": "The tool name 'find_plans' is used by tools[0] and tools[2]; each tool of an agent needs its own name.",
            "path": "tools[2]",
            "tool": "find_plans",
        }
    ]


# 118.
def test_names_are_unique_across_derived_authored_and_described_tools() -> None:
    derived_and_authored = agent(function_tool("findPlans"), web_search_tool(name="find_plans"))
    assert only_diagnostic(normalize(derived_and_authored)).code == "nx-agent-duplicate-tool-name"

    def described_as_find_plans(value: Mapping[str, Any], context: ToolDescriberContext) -> Any:
        return {**record_search(value, context), "name": "find_plans"}

    diagnostic = only_diagnostic(
        normalize(agent(RECORD_SEARCH, function_tool("findPlans")), tool_types={"RecordSearchTool": described_as_find_plans})
    )
    assert diagnostic.code == "nx-agent-duplicate-tool-name"
    assert "'find_plans' is used by tools[0] and tools[1]" in diagnostic.message

    two_of_one = agent(MEETINGS, web_search_tool(name="book_meeting"))
    message = only_diagnostic(normalize(two_of_one, tool_types={"MeetingSchedulerTool": scheduler})).message
    assert "'book_meeting' is used by tools[0] and tools[1]" in message

    three = agent(function_tool("findPlans"), web_search_tool(name="find_plans"), function_tool("findPlans", name="find_plans"))
    assert only_diagnostic(normalize(three)).message == (
        "The tool name 'find_plans' is used by tools[0], tools[1] and tools[2]; each tool of an agent needs its own name."
    )


def test_two_tools_of_one_element_share_its_path() -> None:
    def twice(value: Mapping[str, Any], context: ToolDescriberContext) -> Any:
        return [BASE_DESCRIPTION, {**BASE_DESCRIPTION, "description": "Again."}]

    assert only_diagnostic(normalize(agent(RECORD_SEARCH), tool_types={"RecordSearchTool": twice})).message == (
        "The tool name 'search_records' is used by tools[0] and tools[0]; each tool of an agent needs its own name."
    )


# 119.
def test_two_problems_are_reported_together() -> None:
    value = agent(function_tool("undocumented"), function_tool("findPlans"), function_tool("findPlans"))
    assert [(d.code, d.path, d.tool) for d in refused(normalize(value))] == [
        ("nx-agent-missing-description", "tools[0]", "undocumented"),
        ("nx-agent-duplicate-tool-name", "tools[2]", "find_plans"),
    ]


# 120.
def test_every_problem_of_one_agent_in_one_pass() -> None:
    value = agent(
        function_tool("undocumented"),
        function_tool("findPlans", name="Find Plans"),
        function_tool("applyTo"),
        function_tool("orderFor"),
        function_tool("pick"),
        http_tool("get", "/orders/../{id", "lookupOrder", "http://api.example.com?key=1"),
        MEETINGS,
        web_search_tool(),
        web_search_tool(),
    )
    result = normalize(value)
    assert result.ok is False and result.definition is None
    assert [(d.severity, d.code, d.path) for d in result.diagnostics] == [
        ("error", "nx-agent-missing-description", "tools[0]"),
        ("error", "nx-agent-invalid-tool-name", "tools[1].name"),
        ("error", "nx-agent-inexpressible-parameter", "tools[2]"),
        ("error", "nx-agent-context-parameter", "tools[3]"),
        ("warning", "nx-agent-inexpressible-result", "tools[4]"),
        ("error", "nx-agent-http-base-url", "tools[5].connection.baseUrl"),
        ("error", "nx-agent-http-path", "tools[5].path"),
        ("error", "nx-agent-unknown-tool-type", "tools[6]"),
        ("error", "nx-agent-duplicate-tool-name", "tools[8]"),
    ]
    assert all(d.code.startswith("nx-agent-") and isinstance(d.message, str) for d in result.diagnostics)


# 121.
def test_a_warning_does_not_block_the_definition() -> None:
    result = normalize(agent(function_tool("findPlans"), function_tool("pick")))
    assert len(definition_of(result)["tools"]) == 2
    assert [(d.severity, d.code) for d in result.diagnostics] == [("warning", "nx-agent-inexpressible-result")]


def every_kind() -> dict[str, Any]:
    return {
        "$type": "Agent",
        "name": "support",
        "description": "Answers customer questions.",
        "model": "balanced",
        "documents": [{"$type": "Document", "title": "Refund policy", "text": "Refunds are available within 30 days of purchase."}],
        "tools": [
            function_tool("findPlans"),
            function_tool("orderFor"),
            web_search_tool(allowedDomains=["docs.example.com"]),
            http_tool("get", "/orders/{orderId}", "lookupMine", "https://api.example.com/v1/", maxCallsPerConversation=3),
            RECORD_SEARCH,
            MEETINGS,
        ],
        "limits": {"$type": "AgentLimits", "maxSteps": 6},
        "instructions": "Be brief.",
    }


EVERY_DESCRIBER: dict[str, Callable[..., Any]] = {"RecordSearchTool": record_search, "MeetingSchedulerTool": scheduler}


# 122.
def test_the_definition_survives_storage() -> None:
    definition = definition_of(
        normalize(every_kind(), tool_context_type=CHAT_CONTEXT, tool_types=EVERY_DESCRIBER)
    )
    assert len(definition["tools"]) == 7
    text = definition_text(definition)
    assert json.loads(text) == definition
    assert definition_text(json.loads(text)) == text
    assert "null" not in text
    assert '"title"' in text
    assert definition["limits"] == {"maxSteps": 6}


# 123.
def test_normalization_is_deterministic() -> None:
    options: dict[str, Any] = {"tool_context_type": CHAT_CONTEXT, "tool_types": EVERY_DESCRIBER}
    first = FakeSchemaSource()
    texts = [
        definition_text(definition_of(normalize(every_kind(), first, **options))),
        definition_text(definition_of(normalize(every_kind(), first, **options))),
        definition_text(definition_of(normalize(every_kind(), FakeSchemaSource(), **options))),
    ]
    assert texts[1] == texts[0]
    assert texts[2] == texts[0]


# 124.
def test_changing_the_value_afterwards_does_not_change_the_definition() -> None:
    value = agent(web_search_tool(allowedDomains=["docs.example.com"]))
    definition = definition_of(normalize(value))
    before = definition_text(definition)
    value["tools"][0]["allowedDomains"].append("evil.example")
    assert definition_text(definition) == before


def test_connections_need_a_name_and_a_base_url() -> None:
    tool = http_tool(*GET_ORDER)
    tool["connection"] = {k: v for k, v in connection("https://api.example.com").items() if k != "baseUrl"}
    diagnostic = only_diagnostic(normalize(agent(tool)))
    assert diagnostic.to_dict() == {
        "severity": "error",
        "code": "nx-agent-http-base-url",
        "message": "Tool 'lookup_order' (tools[0]): its connection is a 'HttpConnection', not an HttpConnection with a "
        "'name' and a 'baseUrl'.",
        "path": "tools[0].connection",
        "tool": "lookup_order",
    }
