"""End to end: the corpus programs `agent-library` and `agent-tool-context` (images assembled from
their explain texts) and the bundled support agent, through both halves: `compile_agent` (link,
evaluate `root`, normalize, check) and `load_agent` (link the stored images, create the tools),
then every function and HTTP tool executed.

Expected values: `root()` and its operation count from the corpus' `results.json` and
`operations.json` (the only calls they record); tool outputs from the NX functions as the corpus
sources declare them, HTTP requests from agent-package §2.6/§6; each tool's usage equals the same
call made directly through the runtime.
"""

from __future__ import annotations

import json
from typing import Any

from corpus_agents import (
    CHAT_TOOL_CONTEXT,
    CONTEXT_DESCRIPTIONS,
    CONTEXT_PROGRAM,
    LIBRARY,
    LIBRARY_DESCRIPTIONS,
    link_main,
    needs_context,
    needs_library,
    program_images,
    recorded,
)
from nx_agent import examples, ir
from nx_agent.agent.compile import compile_agent, load_agent

PLANS_5 = [{"$type": "Plan", "name": "Team", "seats": 5, "monthlyPrice": 20}]


class LocalShop:
    """A request function that answers locally, as the shop would: it records each call."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, call: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(call)
        if call["request"]["method"] == "GET":
            return {"status": 200, "body": {"orderId": call["arguments"]["pathParams"][0]["value"], "state": "shipped"}}
        return {"status": 201, "body": {"ticket": "T-1"}}


def direct_usage(program: ir.Program, function: str, args: dict[str, Any], limit: int) -> dict[str, int]:
    """The same call made directly through the runtime, with the limits a tool gives it."""
    reference = {"$type": "Function", "module": "main.nx", "name": function}
    evaluation = ir.call_function(program, reference, args, max_operations=100_000, max_input_size=limit)
    return {"operations": evaluation.usage["operations"], "inputSize": evaluation.usage["input_size"]}


def run_support_agent(images: dict[str, bytes], descriptions: Any) -> None:
    """Compile, store, load and run the support agent's function and HTTP tools."""
    compiled = compile_agent(images, descriptions=descriptions)
    assert compiled.warnings == []
    definition = compiled.definition
    assert [(t["name"], t["kind"]) for t in definition["tools"]] == [
        ("web_search", "provider"),
        ("find_plans", "function"),
        ("lookup_order", "http"),
        ("open_ticket", "http"),
    ]
    assert [t["description"] for t in definition["tools"]] == [
        "Searches the web and returns relevant results.",
        "Finds the plans that fit a team.",
        "Looks up one order and returns its status.",
        "Opens a support ticket for the customer.",
    ]
    assert definition["tools"][3]["config"] == {
        "arguments": {"module": "main.nx", "name": "openTicket"},
        "contextParameters": [],
        "connection": {"name": "shop", "baseUrl": "https://api.example.com"},
        "method": "post",
        "path": "/tickets",
        "pathPlaceholders": [],
        "maxCallsPerConversation": 1,
    }
    assert json.loads(compiled.definition_text) == definition
    assert list(compiled.images) == ["@nx/agent/agent.nx", "main.nx"]

    # The run-time half: only the stored text and images.
    shop = LocalShop()
    agent = load_agent(compiled.definition_text, compiled.images, request=shop)
    assert [t.name for t in agent] == ["web_search", "find_plans", "lookup_order", "open_ticket"]
    assert not hasattr(agent["web_search"], "execute")

    plans = agent["find_plans"].execute({"teamSize": 5}, call_id="t1:0:0")
    assert plans == {"ok": True, "output": PLANS_5, "usage": direct_usage(agent.program, "findPlans", {"teamSize": 5}, 1003)}
    assert plans["usage"]["inputSize"] == 5

    order = agent["lookup_order"].execute({"orderId": "A 1"}, call_id="t1:1:0")
    assert order["ok"] is True
    assert order["output"] == {"status": 200, "body": {"orderId": "A 1", "state": "shipped"}}
    assert order["usage"] == direct_usage(agent.program, "lookupOrder", {"orderId": "A 1"}, 1003)
    assert shop.calls[0]["request"] == {"method": "GET", "url": "https://api.example.com/orders/A%201", "headers": {}}

    ticket = agent["open_ticket"].execute({"subject": "Refund"}, call_id="t1:2:0")
    assert ticket["ok"] is True
    assert ticket["output"] == {"status": 201, "body": {"ticket": "T-1"}}
    assert ticket["usage"] == direct_usage(agent.program, "openTicket", {"subject": "Refund"}, 1003)
    request = shop.calls[1]["request"]
    assert (request["method"], request["url"], request["headers"]) == (
        "POST",
        "https://api.example.com/tickets",
        {"content-type": "application/json"},
    )
    assert json.loads(request["body"]) == {"subject": "Refund", "priority": 2}
    assert shop.calls[1]["arguments"]["body"] == {"$type": "NewTicket", "subject": "Refund", "priority": 2}


@needs_library
def test_agent_library_root_agrees_with_the_corpus() -> None:
    assert LIBRARY is not None
    linked = link_main(program_images(LIBRARY))
    evaluated = ir.evaluate_function(linked, "root", max_operations=2**40)
    assert evaluated.value == recorded(LIBRARY, "results.json")["main.nx::root"]
    assert evaluated.usage["operations"] == recorded(LIBRARY, "operations.json")["counts"]["main.nx::root"] == 176


@needs_library
def test_agent_library_runs_every_tool() -> None:
    assert LIBRARY is not None
    run_support_agent(program_images(LIBRARY), LIBRARY_DESCRIPTIONS)


@needs_library
def test_the_bundled_example_is_the_corpus_agent() -> None:
    program = LIBRARY
    assert program is not None
    linked = link_main(examples.support_images())
    evaluated = ir.evaluate_function(linked, "root", max_operations=2**40)
    assert evaluated.value == recorded(program, "results.json")["main.nx::root"]
    assert evaluated.usage["operations"] == recorded(program, "operations.json")["counts"]["main.nx::root"]
    library = program.modules["@nx/agent/agent.nx"].stripped_text
    assert examples.library_text() == library


def test_the_bundled_example_runs_every_tool() -> None:
    run_support_agent(examples.support_images(), examples.support_descriptions())


CHAT = {"$type": "ChatToolContext", "conversationId": "conv_9"}


@needs_context
def test_agent_tool_context_runs_every_tool() -> None:
    program = CONTEXT_PROGRAM
    assert program is not None
    images = program_images(program)
    linked = link_main(images)
    root = ir.evaluate_function(linked, "root", max_operations=2**40)
    assert root.value == recorded(program, "results.json")["main.nx::root"]
    assert root.usage["operations"] == recorded(program, "operations.json")["counts"]["main.nx::root"] == 48

    compiled = compile_agent(images, descriptions=CONTEXT_DESCRIPTIONS, tool_context_type=CHAT_TOOL_CONTEXT)
    assert [(t["name"], t["config"]["contextParameters"]) for t in compiled.definition["tools"]] == [
        ("who_am_i", [{"name": "context", "type": {"module": "context.nx", "name": "ChatToolContext"}}]),
        ("call_id_of", [{"name": "context", "type": {"module": "@nx/agent/agent.nx", "name": "ToolContext"}}]),
        ("seat_count", []),
    ]
    assert list(compiled.images) == ["@nx/agent/agent.nx", "context.nx", "main.nx"]
    agent = load_agent(compiled.definition_text, compiled.images)

    record = {**CHAT, "callId": "t5:0:0"}
    who = agent["who_am_i"].execute({}, call_id="t5:0:0", context=CHAT)
    assert who == {"ok": True, "output": "conv_9", "usage": direct_usage(agent.program, "whoAmI", {"context": record}, 2003)}
    call_id = agent["call_id_of"].execute({"context": "forged"}, call_id="t5:0:0", context=CHAT)
    assert call_id == {"ok": True, "output": "t5:0:0", "usage": direct_usage(agent.program, "callIdOf", {"context": record}, 2003)}
    seats = agent["seat_count"].execute({"teamSize": 4}, call_id="t5:0:1")
    assert seats == {"ok": True, "output": 4, "usage": direct_usage(agent.program, "seatCount", {"teamSize": 4}, 1003)}
    assert seats["usage"]["inputSize"] == 5
    missing = agent["who_am_i"].execute({}, call_id="t5:0:2")
    assert missing["ok"] is False and missing["error"]["code"] == "invalid-context"
