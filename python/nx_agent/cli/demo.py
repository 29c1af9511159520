"""``nx-agent demo``: the README's main job (compile the bundled support agent, print its definition,
load it from what was stored and run two of its tools); ``--ir`` walks through the IR example."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

from .. import examples, ir
from .images import describe, module_summary
from .output import EXIT_OK, Output

#: The demo's calls: tool, input, call id.
CALLS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("find_plans", {"teamSize": 5}, "demo:1"),
    ("lookup_order", {"orderId": "A 1"}, "demo:2"),
)


def local_shop(seen: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The demo's request function: it answers on this machine, as the shop's API would, and tells
    ``seen`` each request it is handed."""

    def request(call: dict[str, Any]) -> dict[str, Any]:
        seen(call["request"])
        order = call["arguments"]["pathParams"][0]["value"]
        return {"status": 200, "body": {"orderId": order, "state": "shipped"}}

    return request


def _show_result(result: Any) -> None:
    if result["ok"]:
        print(f"  output: {json.dumps(result['output'], ensure_ascii=False)}")
    else:
        print(f"  error: {result['error']['code']}: {result['error']['message']}")
    usage = result.get("usage", {})
    print(f"  usage: {usage.get('operations')} operations, input size {usage.get('inputSize')}")


def _cmd_demo(args: argparse.Namespace, out: Output) -> int:
    if args.ir:
        return _demo_ir(out)
    from ..agent import compile_agent, load_agent

    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    requests: list[dict[str, Any]] = []

    def seen(request: dict[str, Any]) -> None:
        requests.append(request)
        if not out.json:
            print(f"  request function handed: {request['method']} {request['url']}")

    if not out.json:
        print(f"Compiled the support agent; store its definition and {len(compiled.images)} images "
              f"({', '.join(compiled.images)}). The definition:")
        print(json.dumps(compiled.definition, indent=2, ensure_ascii=False))
        print()
    agent = load_agent(compiled.definition_text, compiled.images, request=local_shop(seen))
    if not out.json:
        print(f"Loaded from what was stored: tools {', '.join(tool.name for tool in agent)}.")
    calls = []
    for name, input, call_id in CALLS:
        if not out.json:
            print(f"{name}({json.dumps(input)})  [call {call_id}]")
        before = len(requests)
        result = agent[name].execute(input, call_id=call_id)
        calls.append({"tool": name, "input": input, "callId": call_id, "requests": requests[before:], "result": result})
        if not out.json:
            _show_result(result)
    if out.json:
        out.document({"definition": compiled.definition, "images": list(compiled.images), "calls": calls})
    return EXIT_OK


def _demo_ir(out: Output) -> int:
    program = examples.link_example()
    result = ir.evaluate_function(program, "findPlans", [5], max_operations=10_000)
    explained = program.entry.explain()
    if out.json:
        out.document({
            "modules": [module_summary(module) for module in program.modules],
            "call": {"function": "findPlans", "args": [5], "value": result.value, "usage": dict(result.usage)},
            "explain": explained,
        })
        return EXIT_OK
    print(f"linked {len(program.modules)} modules:")
    print(describe(program))
    names = ", ".join(plan["name"] for plan in result.value)
    print(f"findPlans(teamSize=5) -> {names} ({result.usage['operations']} operations)")
    print()
    print(explained, end="")
    return EXIT_OK


def register(commands: Any, common: Sequence[argparse.ArgumentParser]) -> None:
    """Add ``demo`` to the subcommands."""
    demo = commands.add_parser(
        "demo", parents=common,
        help="compile the bundled support agent, print its definition and run two of its tools",
        description="Compile the bundled support agent, print the definition to store, load it from what "
        "was stored and call find_plans and lookup_order (its request answered on this machine).",
    )
    demo.add_argument(
        "--ir", action="store_true", help="instead: assemble, link, run and explain the bundled IR example"
    )
    demo.set_defaults(run=_cmd_demo)
