"""HTTP execution: agent-package §8.10 (cases 180–201), with request functions that record their
calls and answer locally."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import pytest

from agent_programs import failed, http_definition, link_execute_program, succeeded
from nx_agent import build_http_request, ir
from nx_agent.agent import NxAgentToolError
from nx_agent.agent.cancel import CancelToken
from nx_agent.agent.create import create_agent_tools, evaluate_http_arguments
from nx_agent.agent.limits import AgentOptionError

PROGRAM = link_execute_program()
DEFINITION: dict[str, Any] = json.loads(json.dumps(http_definition()))
CHAT = {"$type": "ChatToolContext", "conversationId": "conv_9"}
GET = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True}


def definition_of(name: str) -> dict[str, Any]:
    return next(t for t in DEFINITION["tools"] if t["name"] == name)


# A stored tool whose arguments function, in the linked program, returns a string.
STALE = {
    **definition_of("lookup_order"),
    "name": "stale",
    "config": {**definition_of("lookup_order")["config"], "arguments": {"module": "main.nx", "name": "notArguments"}},
}


class Recorder:
    """A request function that records its calls and answers with `respond`."""

    def __init__(self, respond: Callable[[dict[str, Any]], Any] = lambda call: {"status": 200, "body": {"state": "shipped"}}):
        self.calls: list[dict[str, Any]] = []
        self.respond = respond

    def __call__(self, call: dict[str, Any]) -> Any:
        self.calls.append(call)
        return self.respond(call)


def run(name: str, input: Any, request: Any, *, call_id: str = "t1:0:0", options: dict[str, Any] | None = None, **call: Any) -> Any:
    tools = {t.name: t for t in create_agent_tools([*DEFINITION["tools"], STALE], PROGRAM, request=request, **(options or {}))}
    return tools[name].execute(input, call_id=call_id, **call)


def evaluate(tool: str | Any, input: Any, *, call_id: str = "t1:0:0", options: dict[str, Any] | None = None, **call: Any) -> Any:
    stored = definition_of(tool) if isinstance(tool, str) else tool
    return evaluate_http_arguments(stored, PROGRAM, input, call_id=call_id, **call, **(options or {}))


def test_the_hosts_function_makes_the_call_and_its_answer_is_the_output() -> None:  # 180
    recorder = Recorder()
    token = CancelToken()
    result = succeeded(run("lookup_order", {"orderId": "A1"}, recorder, call_id="t7:1:0", cancel=token))
    assert result["output"] == {"status": 200, "body": {"state": "shipped"}}
    [call] = recorder.calls
    assert call["request"] == {"method": "GET", "url": "https://api.example.com/orders/A1", "headers": {}}
    assert call["arguments"] == {"pathParams": [{"name": "orderId", "value": "A1"}], "query": []}
    assert call["callId"] == "t7:1:0"
    assert call["toolName"] == "lookup_order"
    assert call["connection"] == "shop"
    assert call["annotations"] == GET
    assert call["cancel"] is token
    assert list(call) == ["request", "arguments", "callId", "toolName", "connection", "annotations", "cancel"]


def test_with_no_cancel_token_the_request_function_is_handed_none() -> None:  # 181
    recorder = Recorder()
    run("lookup_order", {"orderId": "A1"}, recorder)
    assert "cancel" not in recorder.calls[0]


def test_a_body_is_sent_as_json_and_handed_over_as_evaluated() -> None:  # 182
    recorder = Recorder(lambda call: {"status": 201, "body": {"id": "o_1"}})
    result = succeeded(run("place_order", {"sku": "X", "quantity": 2}, recorder))
    assert result["output"] == {"status": 201, "body": {"id": "o_1"}}
    [call] = recorder.calls
    request = call["request"]
    assert {k: v for k, v in request.items() if k != "body"} == {
        "method": "POST",
        "url": "https://api.example.com/orders?source=agent",
        "headers": {"content-type": "application/json"},
    }
    assert json.loads(request["body"]) == {"sku": "X", "quantity": 2}
    assert call["arguments"] == {
        "pathParams": [],
        "query": [{"name": "source", "value": "agent"}],
        "body": {"$type": "NewOrder", "sku": "X", "quantity": 2},
    }
    assert call["annotations"]["readOnlyHint"] is False


def test_the_body_text_follows_the_rust_runtimes_field_order() -> None:  # 182, the body text
    # ir-format.md §9.8: the two reference runtimes write record fields in different orders, the
    # Rust one in name order, the TypeScript one (behind the npm package's '{"sku":"X","quantity":2}')
    # in declaration order. We follow the Rust runtime (docs/differences.md); the JSON is the same.
    recorder = Recorder()
    run("place_order", {"sku": "X", "quantity": 2}, recorder)
    body = recorder.calls[0]["request"]["body"]
    assert json.loads(body) == {"sku": "X", "quantity": 2}
    assert body == '{"quantity":2,"sku":"X"}'


def test_no_idempotency_header_and_the_call_id_is_handed_over() -> None:  # 183
    recorder = Recorder()
    run("place_order", {"sku": "X"}, recorder, call_id="t7:2:0")
    headers = [name.lower() for name in recorder.calls[0]["request"]["headers"]]
    assert headers == ["content-type"]
    assert recorder.calls[0]["callId"] == "t7:2:0"
    assert json.loads(recorder.calls[0]["request"]["body"]) == {"sku": "X", "quantity": 1}


def test_the_arguments_function_is_given_the_hosts_context() -> None:  # 184
    recorder = Recorder()
    succeeded(run("lookup_mine", {"orderId": "A1", "context": {"conversationId": "forged"}}, recorder, call_id="t7:3:0", context=CHAT))
    assert recorder.calls[0]["request"]["url"] == "https://api.example.com/orders/A1?conversation=conv_9&call=t7%3A3%3A0"
    assert failed(run("lookup_mine", {"orderId": "A1"}, recorder))["error"]["code"] == "invalid-context"
    assert len(recorder.calls) == 1


@pytest.mark.parametrize("context", [{"$type": "ChatToolContext"}, {"$type": "AuditToolContext", "actor": "kai"}])
def test_a_context_that_does_not_fit_makes_no_request(context: dict[str, Any]) -> None:  # 185
    recorder = Recorder()
    result = failed(run("lookup_mine", {"orderId": "A1"}, recorder, context=context))
    assert result["error"]["code"] == "invalid-context"
    assert result["error"]["diagnostics"][0]["argument"] == "context"
    assert isinstance(result["usage"]["operations"], int)
    assert isinstance(result["usage"]["inputSize"], int)
    evaluated = failed(evaluate("lookup_mine", {"orderId": "A1"}, context=context))
    assert evaluated["error"]["code"] == "invalid-context"
    assert evaluated["usage"] == result["usage"]
    wrong = failed(run("lookup_mine", {"orderId": 7}, recorder, context=CHAT))
    assert wrong["error"]["code"] == "invalid-input"
    assert wrong["error"]["diagnostics"][0]["argument"] == "orderId"
    assert failed(evaluate("lookup_mine", {"orderId": 7}, context=CHAT))["error"]["code"] == "invalid-input"
    assert recorder.calls == []


@pytest.mark.parametrize("response", [{"status": 404, "body": "not found"}, {"status": 500, "body": None}, {"status": 302, "body": []}])
def test_a_non_2xx_status_is_an_output(response: dict[str, Any]) -> None:  # 186
    assert succeeded(run("lookup_order", {"orderId": "A1"}, Recorder(lambda call: response)))["output"] == response


def test_extra_answer_members_are_kept() -> None:  # 187
    answer = {"status": 200, "body": "…", "bodyNote": "truncated", "bytes": 4096}
    assert succeeded(run("lookup_order", {"orderId": "A1"}, Recorder(lambda call: answer)))["output"] == answer


def test_a_result_carries_the_usage_of_the_arguments_call() -> None:  # 188
    result = succeeded(run("lookup_order", {"orderId": "A1"}, Recorder()))
    assert result["usage"]["operations"] > 0
    function = {"$type": "Function", "module": "main.nx", "name": "lookupOrder"}
    assert result["usage"]["inputSize"] == ir.measure_input_size(function) + ir.measure_input_size({"orderId": "A1"})
    assert result["usage"] == succeeded(evaluate("lookup_order", {"orderId": "A1"}))["usage"]


def test_a_structural_failure_never_reaches_the_network() -> None:  # 189
    recorder = Recorder()
    undeclared = failed(run("undeclared_parameter", {"orderId": "A1"}, recorder))
    assert undeclared["error"]["code"] == "invalid-request"
    assert undeclared["error"]["message"].startswith(
        "Tool 'undeclared_parameter': the path '/orders' has no placeholder for the path parameter 'orderId'"
    )
    assert undeclared["usage"]["operations"] > 0
    body = failed(run("body_on_get", {"sku": "X"}, recorder))
    assert body["error"]["code"] == "invalid-request"
    assert "a GET request carries none" in body["error"]["message"]
    traversal = failed(run("lookup_order", {"orderId": ".."}, recorder))
    assert traversal["error"]["code"] == "invalid-request"
    assert "has the segment '..'" in traversal["error"]["message"]
    assert recorder.calls == []


def test_a_function_that_does_not_return_http_arguments_is_refused_at_the_call() -> None:  # 190
    recorder = Recorder()
    result = failed(run("stale", {"orderId": "A1"}, recorder))
    assert result["error"] == {
        "code": "invalid-request",
        "message": "Tool 'stale': its arguments function 'notArguments' of module 'main.nx' returned the string \"A1\", not an 'HttpArguments'.",
    }
    assert result["usage"]["operations"] > 0
    assert recorder.calls == []
    evaluated = failed(evaluate(STALE, {"orderId": "A1"}))
    assert evaluated["error"]["code"] == "invalid-request"
    assert "'notArguments' of module 'main.nx' returned the string \"A1\"" in evaluated["error"]["message"]
    assert evaluated["usage"]["operations"] > 0


def test_the_arguments_function_fails_with_a_function_tools_codes() -> None:  # 191
    recorder = Recorder()
    wrong = failed(run("lookup_order", {"orderId": 7}, recorder))
    assert wrong["error"]["code"] == "invalid-input"
    assert wrong["error"]["diagnostics"][0]["code"] == "nx-ir-boundary-type"
    assert isinstance(wrong["usage"]["operations"], int)
    assert failed(run("lookup_order", {}, recorder))["error"]["code"] == "invalid-input"
    assert failed(run("lookup_order", "A1", recorder))["error"]["code"] == "invalid-input"
    division = failed(run("order_at", {"position": 0}, recorder))
    assert division["error"]["code"] == "evaluation-failed"
    assert division["error"]["diagnostics"][0]["code"] == "nx-ir-division-by-zero"
    budget = failed(run("list_orders", {"pages": 1000}, recorder))
    assert budget["error"]["code"] == "resource-limit"
    assert budget["error"]["limit"] == {"name": "maxOperations", "value": 100_000}
    assert budget["usage"]["operations"] <= 100_000
    host_budget = failed(run("list_orders", {"pages": 1000}, recorder, options={"max_operations": 200_000}))
    assert host_budget["error"]["limit"] == {"name": "maxOperations", "value": 200_000}
    aborted = failed(run("lookup_order", {"orderId": "A1"}, recorder, cancel=CancelToken.cancelled_token()))
    assert aborted["error"]["code"] == "aborted"
    assert failed(run("lookup_order", {"orderId": "A1"}, recorder, call_id=""))["error"]["code"] == "invalid-context"
    assert recorder.calls == []


def test_the_arguments_function_runs_under_the_two_input_limits() -> None:  # 192
    recorder = Recorder()
    large = {"orderId": "A1", "note": "x" * (64 * 999)}
    assert ir.measure_input_size(large) == 1_002
    over_cap = failed(run("lookup_mine", large, recorder, context=CHAT))
    assert over_cap["error"]["code"] == "invalid-input"
    assert over_cap["error"]["limit"] == {"name": "maxArgumentsSize", "value": 1_000}
    assert "usage" not in over_cap
    big_context = {"$type": "ChatToolContext", "conversationId": "c" * (64 * 998)}
    assert ir.measure_input_size({**big_context, "callId": "t1:0:0"}) == 1_001
    over_allowance = failed(run("lookup_mine", {"orderId": "A1"}, recorder, context=big_context))
    assert over_allowance["error"]["code"] == "resource-limit"
    assert over_allowance["error"]["limit"] == {"name": "maxContextSize", "value": 1_000}
    assert "usage" not in over_allowance
    assert recorder.calls == []
    evaluated_cap = failed(evaluate("lookup_mine", large, context=CHAT))
    assert [evaluated_cap["error"]["code"], evaluated_cap["error"]["limit"], "usage" in evaluated_cap] == [
        "invalid-input",
        {"name": "maxArgumentsSize", "value": 1_000},
        False,
    ]
    evaluated_allowance = failed(evaluate("lookup_mine", {"orderId": "A1"}, context=big_context))
    assert [evaluated_allowance["error"]["code"], evaluated_allowance["error"]["limit"], "usage" in evaluated_allowance] == [
        "resource-limit",
        {"name": "maxContextSize", "value": 1_000},
        False,
    ]
    raised = {"max_arguments_size": 2_000, "max_context_size": 2_000}
    succeeded(evaluate("lookup_mine", large, context=big_context, options=raised))
    succeeded(run("lookup_mine", large, recorder, context=big_context, options=raised))


def test_an_error_the_request_function_raises_is_request_failed_with_usage() -> None:  # 193
    def timing_out(call: Any) -> Any:
        raise TimeoutError("connect ETIMEDOUT")

    result = failed(run("lookup_order", {"orderId": "A1"}, timing_out))
    assert result["error"] == {"code": "request-failed", "message": "connect ETIMEDOUT"}
    assert result["usage"]["operations"] > 0

    async def refusing(call: Any) -> Any:
        raise ConnectionRefusedError("refused")

    tools = {t.name: t for t in create_agent_tools(DEFINITION, PROGRAM, request=refusing)}
    answer = asyncio.run(tools["lookup_order"].aexecute({"orderId": "A1"}, call_id="t1:0:0"))
    assert answer["error"] == {"code": "request-failed", "message": "refused"}


def test_a_host_policy_error_keeps_its_code() -> None:  # 194
    def unknown(call: Any) -> Any:
        raise NxAgentToolError("unknown-outcome", "The request timed out after it was sent.")

    result = failed(run("place_order", {"sku": "X"}, unknown))
    assert result["error"] == {"code": "unknown-outcome", "message": "The request timed out after it was sent."}
    assert result["usage"]["operations"] > 0


@pytest.mark.parametrize("response", [None, "ok", {"body": "ok"}, {"status": "200", "body": "ok"}, [200], {"status": True}])
def test_an_answer_with_no_numeric_status_fails(response: Any) -> None:  # 195
    result = failed(run("lookup_order", {"orderId": "A1"}, Recorder(lambda call: response)))
    assert result["error"] == {
        "code": "request-failed",
        "message": "The request function answered tool 'lookup_order' with something that has no numeric 'status'.",
    }
    assert result["usage"]["operations"] > 0


def test_a_forwarded_call_is_rebuilt_identically_by_another_process() -> None:  # 196
    stored = json.loads(json.dumps(DEFINITION))
    rebuilt: list[Any] = []

    def api(message: str) -> Any:
        sent = json.loads(message)
        built = build_http_request(next(t for t in stored["tools"] if t["name"] == sent["toolName"]), sent["args"])
        rebuilt.append(built.request if built.ok else built.error)
        return {"status": 200, "body": {"callId": sent["callId"]}}

    recorder = Recorder(lambda call: api(json.dumps({"toolName": call["toolName"], "args": call["arguments"], "callId": call["callId"]})))
    result = succeeded(run("place_order", {"sku": "X", "quantity": 3}, recorder, call_id="t9:0:0"))
    assert result["output"] == {"status": 200, "body": {"callId": "t9:0:0"}}
    assert rebuilt == [recorder.calls[0]["request"]]


LOOKUP = definition_of("lookup_order")


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        (None, "The tool cannot be run: it is null, not a tool."),
        ({k: v for k, v in LOOKUP.items() if k != "config"}, "its 'config' is undefined, not a record"),
        ({**LOOKUP, "config": {k: v for k, v in LOOKUP["config"].items() if k != "arguments"}}, "its 'config.arguments' is undefined"),
        (
            {**LOOKUP, "config": {k: v for k, v in LOOKUP["config"].items() if k != "contextParameters"}},
            "its 'config.contextParameters' is undefined, not a list",
        ),
    ],
)
def test_a_damaged_tool_fails_the_evaluation(tool: Any, message: str) -> None:  # 197
    result = failed(evaluate(tool, {"orderId": "A1"}))
    assert result["error"]["code"] == "invalid-request"
    assert message in result["error"]["message"]
    assert "usage" not in result


def test_arguments_are_evaluated_without_sending() -> None:  # 198
    result = succeeded(evaluate("lookup_order", {"orderId": "A1"}))
    assert result["arguments"] == {"pathParams": [{"name": "orderId", "value": "A1"}], "query": []}
    assert result["request"] == {"method": "GET", "url": "https://api.example.com/orders/A1", "headers": {}}
    assert result["usage"]["operations"] > 0
    assert list(result) == ["ok", "arguments", "request", "usage"]
    assert [p["name"] for p in result["arguments"]["pathParams"]] == LOOKUP["config"]["pathPlaceholders"]


@pytest.mark.parametrize(
    ("name", "value", "call"),
    [
        ("undeclared_parameter", {"orderId": "A1"}, {}),
        ("body_on_get", {"sku": "X"}, {}),
        ("lookup_order", {"orderId": 7}, {}),
        ("lookup_order", {}, {}),
        ("lookup_order", [], {}),
        ("order_at", {"position": 0}, {}),
        ("list_orders", {"pages": 1000}, {}),
        ("lookup_mine", {"orderId": "A1"}, {}),
        ("lookup_order", {"orderId": "A1"}, {"call_id": ""}),
        ("lookup_order", {"orderId": "A1"}, {"cancel": CancelToken.cancelled_token()}),
    ],
)
def test_the_evaluation_gives_the_failure_execute_would(name: str, value: Any, call: dict[str, Any]) -> None:  # 199
    executed = failed(run(name, value, Recorder(), **call))
    assert failed(evaluate(name, value, **call)) == executed


def test_the_evaluation_is_given_the_context_and_the_budget() -> None:  # 200
    result = succeeded(evaluate("lookup_mine", {"orderId": "A1"}, call_id="t7:3:0", context=CHAT))
    assert result["request"]["url"] == "https://api.example.com/orders/A1?conversation=conv_9&call=t7%3A3%3A0"
    budget = failed(evaluate("list_orders", {"pages": 1000}, options={"max_operations": 5_000}))
    assert budget["error"]["limit"] == {"name": "maxOperations", "value": 5_000}
    with pytest.raises(AgentOptionError):
        evaluate("lookup_order", {"orderId": "A1"}, options={"max_arguments_size": -1})


def test_a_tool_that_is_not_an_http_tool_cannot_be_evaluated() -> None:  # 201
    function_tool = {**LOOKUP, "kind": "function", "config": {"function": LOOKUP["config"]["arguments"], "contextParameters": []}}
    result = failed(evaluate(function_tool, {"orderId": "A1"}))
    assert result["error"] == {"code": "invalid-request", "message": "Tool 'lookup_order' is of kind 'function', not 'http'."}
    built = build_http_request(function_tool, {})
    assert built.ok is False
    assert built.error.message == "Tool 'lookup_order': its kind is the string \"function\", not 'http'."


def test_an_async_request_function_is_awaited_by_aexecute_and_refused_by_execute() -> None:
    async def answering(call: Any) -> Any:
        await asyncio.sleep(0)
        return {"status": 200, "body": call["request"]["url"]}

    tools = {t.name: t for t in create_agent_tools(DEFINITION, PROGRAM, request=answering)}
    result = asyncio.run(tools["lookup_order"].aexecute({"orderId": "A 1"}, call_id="t1:0:0"))
    assert succeeded(result)["output"] == {"status": 200, "body": "https://api.example.com/orders/A%201"}
    sync = failed(tools["lookup_order"].execute({"orderId": "A1"}, call_id="t1:0:0"))
    assert sync["error"]["code"] == "request-failed"
    assert "aexecute" in sync["error"]["message"]


def test_a_request_cancelled_in_flight_answers_aborted_with_usage() -> None:
    async def scenario() -> Any:
        started = asyncio.Event()

        async def hanging(call: Any) -> Any:
            started.set()
            await asyncio.sleep(60)

        tools = {t.name: t for t in create_agent_tools(DEFINITION, PROGRAM, request=hanging)}
        task = asyncio.ensure_future(tools["lookup_order"].aexecute({"orderId": "A1"}, call_id="t1:0:0"))
        await started.wait()
        task.cancel()
        return await task

    result = failed(asyncio.run(scenario()))
    assert result["error"] == {"code": "aborted", "message": "The call of tool 'lookup_order' was cancelled while it ran."}
    assert result["usage"]["operations"] > 0
