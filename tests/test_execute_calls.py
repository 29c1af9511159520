"""Calls of executable tools: agent-package §8.9 (cases 138–179), on the fixture program of
`agent_programs` (the reference's execute tests' NX functions)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest

from agent_programs import LONG_NAME, execute_definition, failed, link_execute_program, succeeded
from nx_agent import ir
from nx_agent.agent import NxAgentToolError
from nx_agent.agent.cancel import CancelToken
from nx_agent.agent.create import create_agent_tools
from nx_agent.agent.execute_host import ToolCallContext
from nx_agent.agent.limits import (
    NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    NX_AGENT_DEFAULT_MAX_OPERATIONS,
)

PROGRAM = link_execute_program()
DEFINITION: dict[str, Any] = json.loads(json.dumps(execute_definition()))
HOST: dict[str, Any] = {
    "request": lambda call: {"status": 200, "body": None},
    "executors": {"builtin": lambda tool, input, call: "found"},
}
CHAT = {"$type": "ChatToolContext", "conversationId": "conv_9"}
PLANS = [{"$type": "Plan", "name": "Team", "seats": 5, "monthlyPrice": 20}]


def tools_with(**options: Any) -> dict[str, Any]:
    return {t.name: t for t in create_agent_tools(DEFINITION, PROGRAM, **{**HOST, **options})}


TOOLS = tools_with()


def run(name: str, input: Any, *, call_id: Any = "t1:0:0", tools: dict[str, Any] = TOOLS, **call: Any) -> Any:
    return tools[name].execute(input, call_id=call_id, **call)


def input_of_size(size: int) -> dict[str, str]:
    """A model input of exactly `size`, the premise checked."""
    value = {"note": "x" * (64 * (size - 2))}
    assert ir.measure_input_size(value) == size
    return value


def context_of_size(size: int) -> dict[str, str]:
    """A host record that measures exactly `size` once `callId` is set on it."""
    record = {"$type": "ChatToolContext", "conversationId": "c" * (64 * (size - 3))}
    assert ir.measure_input_size({**record, "callId": "t1:0:0"}) == size
    return record


# ---- the call context -----------------------------------------------------------------------------


def test_an_aborted_call_does_nothing() -> None:  # 138
    called = []
    tools = tools_with(executors={"builtin": lambda *args: called.append(args) or "found"})
    for name in ("find_plans", "lookup_order", "search_records"):
        result = failed(run(name, {"teamSize": 5, "orderId": "A1", "query": "x"}, tools=tools, cancel=CancelToken.cancelled_token()))
        assert result["error"] == {"code": "aborted", "message": f"The call of tool '{name}' was aborted before it began."}
        assert "usage" not in result
    assert called == []


@pytest.mark.parametrize("call_id", [None, "", 7])
def test_a_call_with_no_call_id_is_an_invalid_context(call_id: Any) -> None:  # 139
    result = failed(run("find_plans", {"teamSize": 5}, call_id=call_id))
    assert result["error"] == {
        "code": "invalid-context",
        "message": "A call of tool 'find_plans' needs a 'callId', a string that is not empty.",
    }
    assert "usage" not in result


def test_the_record_is_passed_with_call_id_set() -> None:  # 140
    assert succeeded(run("order_for", {"orderId": "A1"}, context=CHAT))["output"] == "A1@conv_9#t1:0:0"


def test_the_calls_call_id_replaces_the_records_and_the_host_record_is_unchanged() -> None:  # 141
    record = {"$type": "ChatToolContext", "conversationId": "conv_9", "callId": "stale"}
    assert succeeded(run("order_for", {"orderId": "A1"}, call_id="t2:1:0", context=record))["output"] == "A1@conv_9#t2:1:0"
    assert record["callId"] == "stale"


def test_a_base_typed_parameter_receives_the_host_subtype() -> None:  # 142
    assert succeeded(run("call_id_of", {}, context=CHAT))["output"] == "t1:0:0"
    plain = succeeded(run("who_am_i", {}, context=CHAT))
    assert plain["output"] == "conv_9"
    # A record that is a Mapping but not a dict is read as the record its members make.
    from types import MappingProxyType

    proxied = succeeded(run("who_am_i", {}, context=MappingProxyType(dict(CHAT))))
    assert proxied["output"] == "conv_9"
    assert proxied["usage"]["inputSize"] == plain["usage"]["inputSize"]
    assert list(CHAT) == ["$type", "conversationId"]


def _cyclic() -> dict[str, Any]:
    record: dict[str, Any] = dict(CHAT)
    record["self"] = record
    return record


def _deep() -> dict[str, Any]:
    deep: dict[str, Any] = dict(CHAT)
    for _ in range(20_000):
        deep = {**CHAT, "inner": deep}
    return deep


@pytest.mark.parametrize("make", [_cyclic, _deep, lambda: {**CHAT, "items": [1] * 2_000_000}], ids=["cyclic", "deep", "huge"])
def test_a_context_that_holds_itself_or_is_huge_is_a_resource_limit(make: Any) -> None:  # 143
    result = failed(run("who_am_i", {}, context=make()))
    assert result["error"]["code"] == "resource-limit"
    assert result["error"]["limit"] == {"name": "maxContextSize", "value": 1000}
    assert "usage" not in result


def test_a_null_member_is_a_value_and_an_aliased_parameter_gets_the_record() -> None:  # 144
    assert succeeded(run("who_am_i", {}, context={**CHAT, "contactEmail": None}))["output"] == "conv_9"
    assert succeeded(run("who_am_i_aliased", {"context": "forged"}, context=CHAT))["output"] == "conv_9"


NESTED = {
    "formatVersion": 1,
    "name": "support",
    "instructions": "Be brief.",
    "documents": [],
    "limits": {},
    "tools": [
        {
            **DEFINITION["tools"][0],
            "name": "read_inner",
            "config": {
                "function": {"module": "main.nx", "name": "readInner"},
                "contextParameters": [{"name": "context", "type": {"module": "main.nx", "name": "NestedContext"}}],
            },
        },
        {**DEFINITION["tools"][0], "name": "label_of", "config": {"function": {"module": "main.nx", "name": "labelOf"}, "contextParameters": []}},
    ],
}


@dataclass
class Inner:
    a: str
    b: str | None = None


def test_below_the_top_level_only_plain_data_is_read() -> None:  # 145
    read_inner = create_agent_tools(NESTED, PROGRAM)[0]

    def call(**members: Any) -> Any:
        return read_inner.execute({}, call_id="t1:0:0", context={"$type": "NestedContext", **members})

    assert succeeded(call(inner={"$type": "Inner", "a": "x"}))["output"] == "read"
    assert succeeded(call(extra={"deep": [{"kept": None}]}))["output"] == "read"
    for instance in (Inner("x"), Inner("x", "y")):
        refused = failed(call(inner=instance))
        assert refused["error"]["code"] == "invalid-context"
        assert refused["error"]["diagnostics"][0]["code"] == "nx-ir-boundary-type"
        assert refused["error"]["diagnostics"][0]["argument"] == "context"
        assert "Inner" in refused["error"]["message"]
    assert succeeded(call(inner={"$type": "Inner", **vars(Inner("x", "y"))}))["output"] == "read"
    import datetime

    dated = failed(call(extra={"seen": [datetime.date(1970, 1, 1)]}))
    assert dated["error"]["code"] == "invalid-context"
    assert dated["error"]["diagnostics"][0]["argument"] == "context"
    assert '["extra"]["seen"][0]' in dated["error"]["message"]


@pytest.mark.parametrize("forged", [{"$type": "ChatToolContext", "conversationId": "other", "callId": "forged"}, "other", None, 7, [{"conversationId": "other"}]])
def test_the_model_cannot_supply_the_context(forged: Any) -> None:  # 146
    assert succeeded(run("order_for", {"orderId": "A1", "context": forged}, context=CHAT))["output"] == "A1@conv_9#t1:0:0"


def test_a_missing_context_record_is_reported_naming_the_parameter() -> None:  # 147
    missing = failed(run("order_for", {"orderId": "A1"}))
    assert missing["error"] == {
        "code": "invalid-context",
        "message": "Tool 'order_for' needs the host's tool context record, with its '$type', for its "
        "parameter 'context'; the call supplied none.",
    }
    assert "usage" not in missing
    for context in ({"conversationId": "conv_9"}, {"$type": 7, "conversationId": "conv_9"}, "conv_9", [CHAT]):
        result = failed(run("order_for", {"orderId": "A1"}, context=context))
        assert result["error"]["code"] == "invalid-context", context
        assert result["error"]["message"].endswith("the call supplied one with no '$type'.")
        assert "usage" not in result
    assert "parameter 'first', 'second'" in failed(run("twice", {}))["error"]["message"]


def test_a_tool_with_no_context_parameter_ignores_the_record() -> None:  # 148
    assert succeeded(run("find_plans", {"teamSize": 5}, context={"anything": True}))["output"] == PLANS


def test_a_record_missing_a_required_field_is_the_hosts_mistake() -> None:  # 149
    result = failed(run("order_for", {"orderId": "A1"}, context={"$type": "ChatToolContext"}))
    assert result["error"]["code"] == "invalid-context"
    assert result["error"]["diagnostics"] == [
        {
            "severity": "error",
            "code": "nx-ir-boundary-field",
            "message": "Missing required context field 'conversationId'.",
            "declaration": "host/Chat.nx::ChatToolContext",
            "argument": "context",
        }
    ]
    assert "conversationId" in result["error"]["message"]
    assert isinstance(result["usage"]["operations"], int)
    assert isinstance(result["usage"]["inputSize"], int)


@pytest.mark.parametrize(
    "context",
    [{"$type": "ChatToolContext", "conversationId": 9}, {"$type": "ChatToolContext", "conversationId": "conv_9", "tenant": "acme"}],
)
def test_a_record_that_does_not_fit_is_an_invalid_context(context: dict[str, Any]) -> None:  # 150
    unfit = failed(run("order_for", {"orderId": "A1"}, context=context))
    assert unfit["error"]["code"] == "invalid-context"
    assert unfit["error"]["diagnostics"][0]["argument"] == "context"
    assert isinstance(unfit["usage"]["operations"], int)


@pytest.mark.parametrize(
    "context", [{"$type": "AuditToolContext", "actor": "kai"}, {"$type": "NoSuchContext", "conversationId": "conv_9"}]
)
def test_a_record_of_another_type_is_an_invalid_context(context: dict[str, Any]) -> None:  # 151
    result = failed(run("order_for", {"orderId": "A1"}, context=context))
    assert result["error"]["code"] == "invalid-context"
    assert result["error"]["diagnostics"][0]["code"] == "nx-ir-boundary-type"
    assert result["error"]["diagnostics"][0]["argument"] == "context"
    assert isinstance(result["usage"]["operations"], int)


def test_twice_names_the_first_parameter_that_refuses() -> None:  # 151
    result = failed(run("twice", {}, context={"$type": "ChatToolContext"}))
    assert result["error"]["code"] == "invalid-context"
    assert result["error"]["diagnostics"][0]["argument"] == "first"


def test_a_wrong_or_missing_argument_beside_a_fitting_context_is_invalid_input() -> None:  # 152
    wrong = failed(run("order_for", {"orderId": 7}, context=CHAT))
    assert wrong["error"]["code"] == "invalid-input"
    assert wrong["error"]["diagnostics"][0]["code"] == "nx-ir-boundary-type"
    assert wrong["error"]["diagnostics"][0]["argument"] == "orderId"
    missing = failed(run("order_for", {}, context=CHAT))
    assert missing["error"]["code"] == "invalid-input"
    assert missing["error"]["diagnostics"][0]["argument"] == "orderId"


def test_a_field_default_that_does_not_fit_is_an_evaluation_failure() -> None:  # 153
    label_of = create_agent_tools(NESTED, PROGRAM)[1]

    def call(req: Any) -> Any:
        return label_of.execute({"req": req}, call_id="t1:0:0")

    result = failed(call({"n": 1}))
    assert result["error"]["code"] == "evaluation-failed"
    assert result["error"]["diagnostics"][0]["code"] == "nx-ir-boundary-type"
    assert "argument" not in result["error"]["diagnostics"][0]
    unfit = failed(call({"n": "one"}))
    assert unfit["error"]["code"] == "invalid-input"
    assert unfit["error"]["diagnostics"][0]["argument"] == "req"
    assert succeeded(call({"n": 1, "label": "one"}))["output"] == "one"


# ---- function tools -------------------------------------------------------------------------------


def test_a_function_tool_returns_the_canonical_result_unwrapped() -> None:  # 154
    result = succeeded(run("find_plans", {"teamSize": 5}))
    assert result["output"] == PLANS
    assert list(result) == ["ok", "output", "usage"]


def test_a_result_carries_what_the_call_used() -> None:  # 155
    function = {"$type": "Function", "module": "main.nx", "name": "findPlans"}
    direct = ir.call_function(PROGRAM, function, {"teamSize": 5}, max_operations=1_000_000, max_input_size=1_000_000)
    result = succeeded(run("find_plans", {"teamSize": 5}))
    assert direct.usage["operations"] > 0
    assert result["usage"] == {"operations": direct.usage["operations"], "inputSize": direct.usage["input_size"]}
    assert result["usage"]["inputSize"] == ir.measure_input_size(function) + ir.measure_input_size({"teamSize": 5}) == 5


def test_input_of_the_wrong_type_is_invalid_input_with_the_runtimes_diagnostic() -> None:  # 156
    result = failed(run("find_plans", {"teamSize": "five"}))
    assert result["error"]["code"] == "invalid-input"
    [diagnostic] = result["error"]["diagnostics"]
    # No `declaration`: the reference runtime names none for an argument that does not fit.
    assert diagnostic == {
        "severity": "error",
        "code": "nx-ir-boundary-type",
        "message": "Expected teamSize to be a number.",
        "argument": "teamSize",
    }
    assert result["error"]["message"] == "Expected teamSize to be a number."
    assert "limit" not in result["error"]
    assert isinstance(result["usage"]["operations"], int)
    assert result["usage"]["inputSize"] == 5


def test_a_missing_required_argument_is_invalid_input_naming_it() -> None:  # 157
    result = failed(run("find_plans", {}))
    assert result["error"]["code"] == "invalid-input"
    assert result["error"]["diagnostics"][0]["code"] == "nx-ir-arguments"
    assert "'teamSize'" in result["error"]["message"]


@pytest.mark.parametrize("value", [None, "teamSize=5", 5, [{"teamSize": 5}], True])
def test_input_that_is_not_a_json_object_never_reaches_the_runtime(value: Any) -> None:  # 158
    result = failed(run("find_plans", value))
    assert result["error"] == {"code": "invalid-input", "message": "Tool 'find_plans' takes a JSON object as its input."}
    assert "usage" not in result


def test_an_argument_the_function_does_not_declare_is_dropped() -> None:  # 159
    assert succeeded(run("divide", {"n": 5, "extra": True, "__proto__": {"n": 1}}))["output"] == 2
    assert succeeded(run("divide", json.loads('{ "n": 5, "__proto__": { "polluted": true } }')))["output"] == 2


def test_a_failure_inside_the_function_is_an_evaluation_failure() -> None:  # 160
    result = failed(run("divide", {"n": 0}))
    assert result["error"]["code"] == "evaluation-failed"
    assert result["error"]["diagnostics"][0]["code"] == "nx-ir-division-by-zero"
    assert isinstance(result["usage"]["operations"], int)
    assert "limit" not in result["error"]


@pytest.mark.parametrize(
    ("name", "value"), [("divide", {"n": 0}), ("find_plans", {"teamSize": "five"}), ("spin", {"n": 1000}), ("order_for", {})]
)
def test_execute_never_raises(name: str, value: Any) -> None:  # 161
    assert run(name, value)["ok"] is False


def test_the_default_budget_applies() -> None:  # 162
    assert NX_AGENT_DEFAULT_MAX_OPERATIONS == 100_000
    assert succeeded(run("spin", {"n": 100}))["usage"]["operations"] == 60_810
    result = failed(run("spin", {"n": 150}))
    assert result["error"]["code"] == "resource-limit"
    assert result["error"]["limit"] == {"name": "maxOperations", "value": 100_000}
    assert result["error"]["diagnostics"][0]["code"] == "nx-ir-resource-limit"
    assert 90_000 < result["usage"]["operations"] <= 100_000
    assert result["usage"]["inputSize"] == 5


def test_the_hosts_budget_is_used_when_it_sets_one() -> None:  # 163
    tools = tools_with(max_operations=200_000)
    assert succeeded(run("spin", {"n": 150}, tools=tools))["usage"]["operations"] == 136_210
    result = failed(run("spin", {"n": 200}, tools=tools))
    assert result["error"]["limit"] == {"name": "maxOperations", "value": 200_000}
    assert result["usage"]["operations"] <= 200_000
    low = failed(run("spin", {"n": 100}, tools=tools_with(max_operations=1_000)))
    assert low["error"]["limit"] == {"name": "maxOperations", "value": 1_000}


def test_each_call_gets_the_whole_budget() -> None:  # 164
    for _ in range(3):
        assert succeeded(run("spin", {"n": 100}))["usage"]["operations"] == 60_810


def test_another_runtime_limit_is_a_resource_limit_naming_it() -> None:  # 165
    result = failed(run("spin", {"n": 5}, tools=tools_with(runtime={"max_range_length": 3})))
    assert result["error"]["code"] == "resource-limit"
    assert result["error"]["limit"]["name"] == "maxRangeLength"


# ---- the two input limits -------------------------------------------------------------------------


def test_input_that_is_too_large_is_invalid_input() -> None:  # 166
    assert NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE == 1_000
    assert succeeded(run("weigh", input_of_size(1_000), context=CHAT))["output"] == "conv_9"
    result = failed(run("weigh", input_of_size(1_001), context=CHAT))
    assert result["error"] == {
        "code": "invalid-input",
        "message": "The input of tool 'weigh' is larger than its limit of 1000.",
        "limit": {"name": "maxArgumentsSize", "value": 1_000},
    }
    assert "usage" not in result


def test_a_too_large_input_of_a_tool_with_no_context_is_refused_the_same_way() -> None:  # 166 without a context
    assert succeeded(run("divide", {"n": 5, "note": "x" * (64 * 997)}))["output"] == 2  # size 1000
    result = failed(run("divide", {"n": 5, "note": "x" * (64 * 998)}))  # size 1001
    assert result["error"] == {
        "code": "invalid-input",
        "message": "The input of tool 'divide' is larger than its limit of 1000.",
        "limit": {"name": "maxArgumentsSize", "value": 1_000},
    }
    assert "usage" not in result


def test_the_hosts_context_does_not_count_against_the_models_cap() -> None:  # 167
    result = succeeded(run("weigh", input_of_size(900), context=context_of_size(900)))
    assert result["usage"]["inputSize"] == 3 + 900 + 900


def test_a_context_that_is_too_large_is_a_resource_limit() -> None:  # 168
    assert NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE == 1_000
    succeeded(run("weigh", input_of_size(5), context=context_of_size(1_000)))
    result = failed(run("weigh", input_of_size(5), context=context_of_size(1_001)))
    assert result["error"] == {
        "code": "resource-limit",
        "message": "The tool context passed to tool 'weigh' is larger than its limit of 1000.",
        "limit": {"name": "maxContextSize", "value": 1_000},
    }
    assert "usage" not in result


def test_the_context_is_measured_with_call_id_set() -> None:  # 169
    record = context_of_size(1_000)
    succeeded(run("weigh", {}, call_id="t1:0:0", context=record))
    result = failed(run("weigh", {}, call_id="t" * 64, context=record))
    assert result["error"]["limit"] == {"name": "maxContextSize", "value": 1_000}


def test_two_context_parameters_are_given_the_context_twice() -> None:  # 170
    result = succeeded(run("twice", {}, context=context_of_size(900)))
    assert result["output"] == "t1:0:0t1:0:0"
    assert result["usage"]["inputSize"] == 3 + 1 + 900 + 900
    at_limits = succeeded(run("twice", input_of_size(1_000), context=context_of_size(1_000)))
    assert at_limits["usage"]["inputSize"] == 3 + 1_000 + 1_000 + 1_000


def test_a_context_parameter_with_a_long_name_is_allowed_its_cost() -> None:  # 171
    assert len(LONG_NAME) > 64
    assert ir.measure_input_size({LONG_NAME: 0}) == 3
    result = succeeded(run("long_named", input_of_size(1_000), context=context_of_size(1_000)))
    assert result["usage"]["inputSize"] == 3 + 1_000 + 1_000 + 1


def test_the_hosts_own_input_limit_is_not_used() -> None:  # 172
    result = succeeded(run("weigh", input_of_size(50), context=CHAT, tools=tools_with(runtime={"max_input_size": 10})))
    assert result["output"] == "conv_9"
    assert result["usage"]["inputSize"] > 10


def test_a_host_raises_and_lowers_the_limits() -> None:  # 173
    raised = tools_with(max_arguments_size=5_000, max_context_size=2_000)
    succeeded(run("weigh", input_of_size(3_000), context=context_of_size(1_500), tools=raised))
    assert failed(run("weigh", input_of_size(5_001), context=CHAT, tools=raised))["error"]["limit"] == {
        "name": "maxArgumentsSize",
        "value": 5_000,
    }
    lowered = tools_with(max_arguments_size=4, max_context_size=3)
    succeeded(run("weigh", input_of_size(4), context=context_of_size(3), tools=lowered))
    assert failed(run("weigh", input_of_size(5), context=context_of_size(3), tools=lowered))["error"]["limit"] == {
        "name": "maxArgumentsSize",
        "value": 4,
    }
    assert failed(run("weigh", input_of_size(4), context=context_of_size(4), tools=lowered))["error"]["limit"] == {
        "name": "maxContextSize",
        "value": 3,
    }


# ---- usage ----------------------------------------------------------------------------------------


def test_a_failure_before_the_call_carries_no_usage() -> None:  # 174
    results = [
        run("weigh", input_of_size(1_001), context=CHAT),
        run("weigh", "not an object", context=CHAT),
        run("weigh", {}, context=CHAT, cancel=CancelToken.cancelled_token()),
        run("weigh", {}),
        run("weigh", {}, context=context_of_size(1_001)),
    ]
    assert [[failed(r)["error"]["code"], "usage" in r] for r in results] == [
        ["invalid-input", False],
        ["invalid-input", False],
        ["aborted", False],
        ["invalid-context", False],
        ["resource-limit", False],
    ]


def test_the_hosts_runtime_options_are_left_alone() -> None:  # 175
    runtime = {"max_call_depth": 64}
    tools = tools_with(runtime=runtime)
    assert succeeded(run("find_plans", {"teamSize": 5}, tools=tools))["usage"]["operations"] > 0
    failed(run("spin", {"n": 1000}, tools=tools))
    assert runtime == {"max_call_depth": 64}


def test_calls_started_together_carry_their_own_numbers() -> None:  # 176
    async def together() -> list[Any]:
        return await asyncio.gather(
            TOOLS["find_plans"].aexecute({"teamSize": 5}, call_id="t1:0:0"),
            TOOLS["spin"].aexecute({"n": 100}, call_id="t1:0:1"),
            TOOLS["spin"].aexecute({"n": 1000}, call_id="t1:0:2"),
        )

    small, large, failing = asyncio.run(together())
    assert succeeded(large)["usage"]["operations"] == 60_810
    assert succeeded(small)["usage"]["operations"] < 100
    assert failed(failing)["usage"]["operations"] > 90_000
    assert small["usage"] is not large["usage"]


# ---- host executors -------------------------------------------------------------------------------


def test_a_host_kind_is_executed_with_the_stored_tool_the_input_and_the_call() -> None:  # 177
    seen: list[tuple[Any, Any, ToolCallContext]] = []
    token = CancelToken()
    tools = tools_with(executors={"builtin": lambda tool, value, call: seen.append((tool, value, call)) or {"records": [{"name": "Acme"}]}})
    result = run("search_records", {"query": "acme"}, call_id="t3:0:1", context=CHAT, cancel=token, tools=tools)
    assert result == {"ok": True, "output": {"records": [{"name": "Acme"}]}}
    [(tool, value, call)] = seen
    assert tool["config"] == {"builtin": "record_search", "recordKind": "company"}
    assert tool["name"] == "search_records"
    assert value == {"query": "acme"}
    assert call.call_id == "t3:0:1"
    assert call.cancel is token
    assert call.context == CHAT


def test_a_host_executor_may_be_async_and_its_input_is_passed_as_it_came() -> None:  # 178
    tools = tools_with(executors={"builtin": lambda tool, value, call: "saw raw" if value == "raw" else "other"})
    assert succeeded(run("search_records", "raw", tools=tools))["output"] == "saw raw"

    async def searching(tool: Any, value: Any, call: Any) -> Any:
        await asyncio.sleep(0)
        return f"async {value}"

    async_tools = tools_with(executors={"builtin": searching})
    result = asyncio.run(async_tools["search_records"].aexecute("raw", call_id="t1:0:0"))
    assert result == {"ok": True, "output": "async raw"}
    # The sync path cannot await it, and says so.
    assert failed(run("search_records", "raw", tools=async_tools))["error"]["code"] == "evaluation-failed"


def test_a_host_executor_failure_is_a_result() -> None:  # 179
    def down(*args: Any) -> Any:
        raise RuntimeError("the record index is down")

    def limited(*args: Any) -> Any:
        raise NxAgentToolError("rate-limited", "Too many searches.", limit={"name": "searchesPerMinute", "value": 10})

    assert run("search_records", {"query": "x"}, tools=tools_with(executors={"builtin": down})) == {
        "ok": False,
        "error": {"code": "evaluation-failed", "message": "the record index is down"},
    }
    assert run("search_records", {"query": "x"}, tools=tools_with(executors={"builtin": limited})) == {
        "ok": False,
        "error": {"code": "rate-limited", "message": "Too many searches.", "limit": {"name": "searchesPerMinute", "value": 10}},
    }


# ---- asyncio cancellation -------------------------------------------------------------------------


def test_aexecute_answers_what_execute_does() -> None:
    result = asyncio.run(TOOLS["find_plans"].aexecute({"teamSize": 5}, call_id="t1:0:0"))
    assert result == succeeded(run("find_plans", {"teamSize": 5}))


def test_a_cancelled_aexecute_answers_aborted() -> None:
    started = asyncio.Event

    async def scenario() -> Any:
        gate = started()

        async def slow(tool: Any, value: Any, call: Any) -> Any:
            gate.set()
            await asyncio.sleep(60)
            return "late"

        tools = tools_with(executors={"builtin": slow})
        task = asyncio.ensure_future(tools["search_records"].aexecute({}, call_id="t1:0:0"))
        await gate.wait()
        task.cancel()
        result = await task
        return result, task.cancelled()

    result, cancelled = asyncio.run(scenario())
    assert result == {"ok": False, "error": {"code": "aborted", "message": "The call of tool 'search_records' was cancelled while it ran."}}
    assert cancelled is False


def test_an_aexecute_in_a_task_being_cancelled_does_nothing() -> None:
    async def scenario() -> Any:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        result = await TOOLS["find_plans"].aexecute({"teamSize": 5}, call_id="t1:0:0")
        if hasattr(task, "uncancel"):
            task.uncancel()
        try:
            await asyncio.sleep(0)
        except asyncio.CancelledError:
            pass
        return result

    result = asyncio.run(scenario())
    assert result == {"ok": False, "error": {"code": "aborted", "message": "The call of tool 'find_plans' was aborted before it began."}}
