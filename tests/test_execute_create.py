"""Creation and checks of executable tools: agent-package §8.8 (cases 125–137)."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

from agent_programs import execute_definition, link_execute_program
from nx_agent import ir
from nx_agent.agent import NxAgentError, check_agent_tools
from nx_agent.agent.create import AgentExecutorError, create_agent_tools
from nx_agent.agent.limits import AgentOptionError

PROGRAM = link_execute_program()
# The definition as a host has it at run time: stored as text and parsed back.
DEFINITION: dict[str, Any] = json.loads(json.dumps(execute_definition()))
HOST: dict[str, Any] = {
    "request": lambda call: {"status": 200, "body": None},
    "executors": {"builtin": lambda tool, input, call: "found"},
}


def create(definition: Any = DEFINITION, **options: Any) -> list[Any]:
    return create_agent_tools(definition, PROGRAM, **{**HOST, **options})


def creation_error(definition: Any, **options: Any) -> NxAgentError:
    with pytest.raises(NxAgentError) as raised:
        create_agent_tools(definition, PROGRAM, **options)
    return raised.value


def tool(name: str) -> dict[str, Any]:
    return next(t for t in DEFINITION["tools"] if t["name"] == name)


def triples(diagnostics: Any) -> list[list[Any]]:
    return [[d.severity, d.code, d.path] for d in diagnostics]


def test_one_tool_per_definition_tool_in_order_with_its_fields() -> None:  # 125
    created = create()
    assert [t.name for t in created] == [t["name"] for t in DEFINITION["tools"]]
    for index, made in enumerate(created):
        assert dict(made) == DEFINITION["tools"][index]
        assert list(made) == list(DEFINITION["tools"][index])
        executable = made.kind != "provider"
        assert hasattr(made, "execute") is executable, made.name
        assert hasattr(made, "aexecute") is executable, made.name


def test_the_tool_list_alone_is_accepted() -> None:  # 126
    assert len(create(DEFINITION["tools"])) == len(DEFINITION["tools"])


FIND_PLANS = tool("find_plans")
LOOKUP = tool("lookup_order")
REFERENCE = FIND_PLANS["config"]["function"]
DAMAGED = [
    (None, "", "The definition is null, not a definition or a list of tools."),
    ("{}", "", 'is the string "{}"'),
    ({**DEFINITION, "tools": {}}, "tools", "'tools' is a record with no '$type', not a list"),
    ({k: v for k, v in DEFINITION.items() if k != "tools"}, "tools", "'tools' is undefined, not a list"),
    ({**DEFINITION, "tools": [None]}, "tools[0]", "it is null, not a tool"),
    ([FIND_PLANS, "find_plans"], "tools[1]", 'it is the string "find_plans", not a tool'),
    ([{**FIND_PLANS, "name": 7}], "tools[0]", "its 'name' is the number 7, not a string"),
    ([{k: v for k, v in FIND_PLANS.items() if k != "kind"}], "tools[0]", "its 'kind' is undefined, not a string"),
    ([{k: v for k, v in FIND_PLANS.items() if k != "config"}], "tools[0]", "its 'config' is undefined, not a record"),
    (
        [{**FIND_PLANS, "config": {"contextParameters": []}}],
        "tools[0]",
        "its 'config.function' is undefined, not the module and the name of a function",
    ),
    (
        [{**FIND_PLANS, "config": {"function": {"module": "main.nx"}, "contextParameters": []}}],
        "tools[0]",
        "its 'config.function' is a record",
    ),
    ([{**FIND_PLANS, "config": {"function": REFERENCE}}], "tools[0]", "its 'config.contextParameters' is undefined, not a list"),
    (
        [{**FIND_PLANS, "config": {"function": REFERENCE, "contextParameters": [{"type": {}}]}}],
        "tools[0]",
        "holds something other than a parameter with a 'name'",
    ),
    (
        [{**LOOKUP, "config": {**LOOKUP["config"], "arguments": "lookupOrder"}}],
        "tools[0]",
        "its 'config.arguments' is the string \"lookupOrder\"",
    ),
    (
        [{**LOOKUP, "config": {k: v for k, v in LOOKUP["config"].items() if k != "connection"}}],
        "tools[0]",
        "its 'config.connection' is undefined, not a connection with a 'name'",
    ),
]


@pytest.mark.parametrize(("value", "path", "message"), DAMAGED, ids=[str(i) for i in range(len(DAMAGED))])
def test_a_damaged_definition_is_reported_with_its_path(value: Any, path: str, message: str) -> None:  # 127
    checked = check_agent_tools(value, PROGRAM)
    assert triples(checked) == [["error", "nx-agent-invalid-definition", path]]
    assert message in checked[0].message
    if path == "":
        assert checked[0].message.endswith(message) or message in checked[0].message
    assert creation_error(value, **HOST).diagnostics == tuple(checked)


def test_every_problem_is_reported_under_the_tools_name() -> None:  # 128
    mixed = [
        {**FIND_PLANS, "config": None},
        {**FIND_PLANS, "name": "gone", "config": {"function": {"module": "main.nx", "name": "gone"}, "contextParameters": []}},
        LOOKUP,
    ]
    error = creation_error(mixed)
    assert [[d.code, d.path, d.tool] for d in error.diagnostics] == [
        ["nx-agent-invalid-definition", "tools[0]", "find_plans"],
        ["nx-agent-unknown-function", "tools[1]", "gone"],
        ["nx-agent-missing-request-function", "tools[2]", "lookup_order"],
    ]
    assert "tool" not in check_agent_tools([None], PROGRAM)[0].to_dict()
    clean = [{"name": "web_search", "kind": "provider"}, {"name": "search_records", "kind": "builtin"}]
    assert check_agent_tools(clean, PROGRAM) == []


@pytest.mark.parametrize(("version", "shown"), [(2, "2"), (0, "0"), ("1", '"1"'), (None, "undefined")])
def test_an_unknown_format_version_is_refused(version: Any, shown: str) -> None:  # 129
    definition = {**DEFINITION, "formatVersion": version} if version is not None else {
        k: v for k, v in DEFINITION.items() if k != "formatVersion"
    }
    error = creation_error(definition, **HOST)
    assert triples(error.diagnostics) == [["error", "nx-agent-unsupported-format", "formatVersion"]]
    assert f"format version {shown}" in error.diagnostics[0].message
    assert error.diagnostics[0].message.endswith("this package supports 1.")
    assert str(error) == error.diagnostics[0].message


@pytest.mark.parametrize(
    "reference",
    [
        {"module": "main.nx", "name": "findPlanz"},
        {"module": "other.nx", "name": "findPlans"},
        {"module": "main.nx", "name": "Plan"},
        {"module": "main.nx", "name": "shop"},
    ],
)
def test_a_function_missing_from_the_program_is_refused(reference: dict[str, str]) -> None:  # 130
    tools = [
        {**t, "config": {"function": reference, "contextParameters": []}} if t["name"] == "find_plans" else t
        for t in DEFINITION["tools"]
    ]
    error = creation_error({**DEFINITION, "tools": tools}, **HOST)
    assert [d.to_dict() for d in error.diagnostics] == [
        {
            "severity": "error",
            "code": "nx-agent-unknown-function",
            "message": f"Tool 'find_plans' names the function '{reference['name']}' of module "
            f"'{reference['module']}', which the linked program does not declare.",
            "path": "tools[0]",
            "tool": "find_plans",
            "declaration": {"module": reference["module"]},
        }
    ]


def test_an_http_tools_arguments_function_is_looked_up() -> None:  # 131
    tools = [
        {**t, "config": {**t["config"], "arguments": {"module": "main.nx", "name": "gone"}}} if t["name"] == "lookup_order" else t
        for t in DEFINITION["tools"]
    ]
    error = creation_error({**DEFINITION, "tools": tools}, **HOST)
    assert [[d.code, d.tool] for d in error.diagnostics] == [["nx-agent-unknown-function", "lookup_order"]]


def test_a_kind_with_no_executor_is_refused() -> None:  # 132
    error = creation_error(DEFINITION, request=HOST["request"])
    assert [d.to_dict() for d in error.diagnostics] == [
        {
            "severity": "error",
            "code": "nx-agent-missing-executor",
            "message": "Tool 'search_records' is of kind 'builtin', and no executor is registered for that kind.",
            "path": "tools[11]",
            "tool": "search_records",
        }
    ]
    inherited = {**DEFINITION, "tools": [{**tool("search_records"), "kind": "toString"}]}
    assert creation_error(inherited).diagnostics[0].code == "nx-agent-missing-executor"


def test_an_http_tool_with_no_request_function_is_refused() -> None:  # 133
    error = creation_error(DEFINITION, executors=HOST["executors"])
    assert [[d.code, d.path, d.tool] for d in error.diagnostics] == [
        ["nx-agent-missing-request-function", "tools[10]", "lookup_order"]
    ]


def test_every_problem_is_raised_together() -> None:  # 134
    tools = [
        {**t, "config": {"function": {"module": "main.nx", "name": "gone"}, "contextParameters": []}} if t["name"] == "divide" else t
        for t in DEFINITION["tools"]
    ]
    error = creation_error({**DEFINITION, "tools": tools})
    assert [d.code for d in error.diagnostics] == [
        "nx-agent-unknown-function",
        "nx-agent-missing-request-function",
        "nx-agent-missing-executor",
    ]


def test_a_host_checks_a_definition_against_its_program() -> None:  # 135
    assert check_agent_tools(DEFINITION, PROGRAM) == []
    assert check_agent_tools(DEFINITION["tools"], PROGRAM) == []
    stale = copy.deepcopy(DEFINITION)
    stale["tools"][0]["config"]["function"] = {"module": "main.nx", "name": "gone"}
    assert [[d.code, d.path, d.tool] for d in check_agent_tools(stale, PROGRAM)] == [
        ["nx-agent-unknown-function", "tools[0]", "find_plans"]
    ]
    assert [d.code for d in check_agent_tools({**DEFINITION, "formatVersion": 7}, PROGRAM)] == ["nx-agent-unsupported-format"]


@pytest.mark.parametrize("kind", ["function", "http", "provider"])
def test_the_packages_own_kinds_cannot_be_given_an_executor(kind: str) -> None:  # 136
    with pytest.raises(TypeError) as raised:
        create(executors={**HOST["executors"], kind: lambda *args: "mine"})
    assert f"'{kind}'" in str(raised.value)
    assert isinstance(raised.value, AgentExecutorError)


@pytest.mark.parametrize("value", [-1, 1.5, math.inf, math.nan, True, "5", 2**53])
@pytest.mark.parametrize("option", ["max_arguments_size", "max_context_size", "max_operations"])
def test_a_limit_that_is_not_a_non_negative_safe_integer_is_refused(option: str, value: Any) -> None:  # 137
    with pytest.raises(ValueError) as raised:
        create(**{option: value})
    assert isinstance(raised.value, AgentOptionError)
    assert str(raised.value).startswith(f"{option} must be a non-negative safe integer, got ")


def test_runtime_options_are_read_and_checked() -> None:
    with pytest.raises(AgentOptionError):
        create(runtime={"max_range_length": -1})
    with pytest.raises(TypeError):
        create(runtime={"max_operations": 5})
    assert len(create(runtime={"max_call_depth": 50, "max_input_size": 10})) == 13
    assert len(create(runtime=ir.Limits(max_range_length=3))) == 13


def test_a_provider_tool_has_no_execute() -> None:
    web_search = next(t for t in create() if t.name == "web_search")
    assert web_search.kind == "provider"
    assert not hasattr(web_search, "execute")
    assert web_search["config"] == {"provider": "web_search"}
