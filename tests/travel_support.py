"""What the travel tests (pickling, process pools, Ray) share: the bundled support agent loaded
with host functions defined at module level (so that they pickle by reference), a host-kind tool
beside its tools, and one call per tool with the answer in-process `execute` gives.

A child process started by `spawn` imports this module again by name (pytest puts `tests/` on
`sys.path`, and multiprocessing hands the child the parent's path)."""

from __future__ import annotations

import functools
from typing import Any

from nx_agent import compile_agent, examples, ir, load_agent
from nx_agent.agent import CompiledAgent, LoadedAgent

#: A tool of a host kind, run by the host's executor (agent-package §5.6).
CRM_TOOL: dict[str, Any] = {
    "name": "search_crm",
    "description": "Find a customer by name.",
    "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    "kind": "crm",
    "config": {},
}

#: One call per tool that runs here: (tool, input).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("find_plans", {"teamSize": 5}),
    ("find_plans", {"teamSize": 60}),
    ("find_plans", {"teamSize": "five"}),
    ("lookup_order", {"orderId": "A 1"}),
    ("open_ticket", {"subject": "Broken", "body": "It broke."}),
    ("search_crm", {"name": "Acme"}),
]


def shop(call: dict[str, Any]) -> dict[str, Any]:
    """The request function: answers with what it was asked, so a result shows the request."""
    request = call["request"]
    return {"status": 200, "body": {"method": request["method"], "url": request["url"], "tool": call["toolName"]}}


def crm(tool: Any, value: Any, call: Any) -> dict[str, Any]:
    """The executor of the `crm` kind."""
    return {"customer": value.get("name"), "callId": call.call_id}


@functools.cache
def compiled() -> CompiledAgent:
    return compile_agent(examples.support_images(), descriptions=examples.support_descriptions())


def definition() -> dict[str, Any]:
    stored = dict(compiled().definition)
    stored["tools"] = [*stored["tools"], CRM_TOOL]
    return stored


def agent(**options: Any) -> LoadedAgent:
    """The support agent with the `crm` tool, its request function and executor set."""
    return load_agent(definition(), compiled().images, request=shop, executors={"crm": crm}, **options)


def run_calls(tools: Any) -> list[Any]:
    """Every call of CALLS on `tools` (a loaded agent), with numbered call ids."""
    return [tools[name].execute(value, call_id=f"c{i}") for i, (name, value) in enumerate(CALLS)]


def find_plans_value(program: ir.Program, team_size: int) -> Any:
    return ir.evaluate_function(program, "findPlans", [team_size], max_operations=10_000).value


def agent_from(compiled_agent: CompiledAgent) -> LoadedAgent:
    """The tools of a compiled agent (as `agent` loads them), with the `crm` tool."""
    stored = dict(compiled_agent.definition)
    stored["tools"] = [*stored["tools"], CRM_TOOL]
    return load_agent(stored, compiled_agent.images, request=shop, executors={"crm": crm})


def make_host() -> dict[str, Any]:
    """The host's functions, made where the tools run (Ray's `make_host`)."""
    return {"request": shop, "executors": {"crm": crm}}
