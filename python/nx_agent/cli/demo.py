"""``nx-agent demo``: the README's main job (compile the bundled support agent, load it from what
was stored and run two of its tools); ``--definition`` also prints the definition to store,
``--write DIR`` writes every file the README's commands use, and ``--ir`` walks through the IR
example, and ``--flow`` answers the bundled conversation flow (a component) from the terminal."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from .. import examples, ir
from .images import describe, module_summary
from .inputs import write_bytes
from .output import EXIT_OK, CliError, Output

#: The demo's calls: tool, input, call id.
CALLS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("find_plans", {"teamSize": 5}, "demo:1"),
    ("lookup_order", {"orderId": "A 1"}, "demo:2"),
)

#: What ``demo --write DIR`` writes: file name → what it holds. The README's commands use these
#: names.
WRITTEN: dict[str, str] = {
    "main.nx.nxir": "the support agent's image (module main.nx)",
    "agent.nx.nxir": "the image of the @nx/agent library it links (module @nx/agent/agent.nx)",
    "main.nx.descriptions.json": "the descriptions document: the doc comments the images do not keep",
    "support.json": "the definition compile writes from them, to store beside the images",
    "main.nx.nxir.txt": "main.nx.nxir as explain text (what nx-agent explain prints)",
    "agent.nx.nxir.txt": "agent.nx.nxir as explain text",
}
#: Image file name of each module of the support agent.
IMAGE_FILES = {examples.SUPPORT_ENTRY: "main.nx.nxir", examples.AGENT_LIBRARY[0]: "agent.nx.nxir"}


def local_shop(seen: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The demo's request function: it answers on this machine, as the shop's API would, and tells
    ``seen`` each request it is handed."""

    def request(call: dict[str, Any]) -> dict[str, Any]:
        seen(call["request"])
        order = call["arguments"]["pathParams"][0]["value"]
        return {"status": 200, "body": {"orderId": order, "state": "shipped"}}

    return request


def _show_result(out: Output, result: Any) -> None:
    if result["ok"]:
        out.line(f"  output: {json.dumps(result['output'], ensure_ascii=False)}")
    else:
        out.line(f"  error: {result['error']['code']}: {result['error']['message']}")
    usage = result.get("usage", {})
    out.line(out.style.dim(f"  used {usage.get('operations')} operations, input size {usage.get('inputSize')}"))


def write_example(directory: str) -> dict[str, str]:
    """Write the files of :data:`WRITTEN` into ``directory`` (made if missing); answer each path."""
    from ..agent import compile_agent

    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CliError(f"cannot make the folder: {error.strerror or error}", code="nx-agent-cli-file", path=directory) from None
    descriptions = examples.support_descriptions()
    compiled = compile_agent(examples.support_images(), descriptions=descriptions)
    contents: dict[str, bytes] = {
        IMAGE_FILES[identity]: data for identity, data in compiled.images.items()
    }
    contents["main.nx.descriptions.json"] = (json.dumps(descriptions, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    contents["support.json"] = compiled.definition_text.encode("utf-8")
    for identity, (text_file, _) in examples.SUPPORT_MODULES.items():
        text = resources.files(examples).joinpath(text_file).read_text(encoding="utf-8")
        contents[IMAGE_FILES[identity] + ".txt"] = text.encode("utf-8")
    written = {}
    for name in WRITTEN:
        path = str(folder / name)
        write_bytes(path, contents[name])
        written[name] = path
    return written


def _cmd_demo(args: argparse.Namespace, out: Output) -> int:
    if args.ir:
        return _demo_ir(out)
    if args.flow:
        return _demo_flow(out)
    if args.write is not None:
        return _demo_write(args.write, out)
    from ..agent import compile_agent, load_agent

    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    requests: list[dict[str, Any]] = []

    def seen(request: dict[str, Any]) -> None:
        requests.append(request)
        if not out.json:
            out.line(f"  request function handed: {request['method']} {request['url']}")

    names = [tool["name"] for tool in compiled.definition["tools"]]
    if not out.json:
        out.line(f"Compiled the bundled support agent: {len(names)} tools ({', '.join(names)}); "
                 f"store its definition and {len(compiled.images)} images ({', '.join(compiled.images)}).")
    agent = load_agent(compiled.definition_text, compiled.images, request=local_shop(seen))
    if not out.json:
        out.line("Loaded it from what was stored, and called two of its tools:")
        out.line()
    calls = []
    for name, input, call_id in CALLS:
        if not out.json:
            out.line(f"{out.style.bold(name)}({json.dumps(input)})  [call {call_id}]")
        before = len(requests)
        result = agent[name].execute(input, call_id=call_id)
        calls.append({"tool": name, "input": input, "callId": call_id, "requests": requests[before:], "result": result})
        if not out.json:
            _show_result(out, result)
    if out.json:
        out.document({"definition": compiled.definition, "images": list(compiled.images), "calls": calls})
        return EXIT_OK
    if args.definition:
        out.line()
        out.line("The definition to store:")
        out.line(json.dumps(compiled.definition, indent=2, ensure_ascii=False))
    else:
        out.line()
        out.line("More: nx-agent demo --definition (the definition to store), "
                 "nx-agent demo --write DIR (files for every command of the README).")
    return EXIT_OK


def _demo_write(directory: str, out: Output) -> int:
    written = write_example(directory)
    if out.json:
        out.document({"directory": directory, "files": written})
        return EXIT_OK
    out.line(f"Wrote the support agent's files to {directory}:")
    width = max(map(len, written))
    for name in written:
        out.line(f"  {name.ljust(width)}  {WRITTEN[name]}")
    out.line()
    out.line(f"Try: cd {directory} && nx-agent tools support.json main.nx.nxir agent.nx.nxir")
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
    out.line(f"linked {len(program.modules)} modules:")
    out.line(describe(program))
    names = ", ".join(plan["name"] for plan in result.value)
    out.line(f"findPlans(teamSize=5) -> {names} ({result.usage['operations']} operations)")
    out.line()
    print(explained, end="")
    return EXIT_OK


def _flow_step(output: Any) -> dict[str, Any] | None:
    """The question a rendered flow asks (its ``Ask`` element), or None at the summary."""
    for item in output if isinstance(output, list) else [output]:
        if isinstance(item, dict) and item.get("$type") == "Ask":
            return item
    return None


def _demo_flow(out: Output) -> int:
    """Answer the bundled conversation flow step by step from standard input: a choice by its
    number or its label, a free-text question with a line; at the summary, ``y`` starts again.
    Each answer is one dispatch; the instance travels between steps as bytes, as a host that keeps
    it in its own store would hold it."""
    import sys

    program = examples.link_flow()
    started = ir.initialize_component(program, "Flow", max_operations=100_000)
    output, stored = started.output, started.instance.to_bytes()
    steps: list[dict[str, Any]] = []
    if not out.json:
        out.line("A conversation flow (component Flow of the bundled flow.nx): one answer per dispatch.")
    while True:
        ask = _flow_step(output)
        if ask is None:
            summary = output if isinstance(output, dict) else {}
            answers = summary.get("answers", [])
            restart = summary.get("restart", [])
            if not out.json:
                out.line()
                out.line(f"Summary: {', '.join(answers)}")
                out.line("Start again? [y/N]")
            line = sys.stdin.readline()
            if line.strip().lower() not in ("y", "yes") or not restart:
                break
            token = restart[0]["onPressed"]["token"]
            action: dict[str, Any] = {"$type": "Restart.Pressed"}
        else:
            choices = ask.get("choices", [])
            options = [c for c in choices if c.get("$type") == "Option"]
            if not out.json:
                out.line()
                out.line(out.style.bold(f"{ask['number']}. {ask['prompt']}"))
                for number, option in enumerate(options, 1):
                    out.line(f"  {number}) {option['label']}")
            line = sys.stdin.readline()
            if not line:
                break
            answer = line.strip()
            if options:
                labels = [option["label"] for option in options]
                picked = options[int(answer) - 1] if answer.isdigit() and 1 <= int(answer) <= len(options) else None
                if picked is None and answer in labels:
                    picked = options[labels.index(answer)]
                if picked is None:
                    if not out.json:
                        out.line(f"  answer with a number from 1 to {len(options)} or one of: {', '.join(labels)}")
                    continue
                token, action = picked["onPicked"]["token"], {"$type": "Option.Picked"}
            else:
                text_answer = next(c for c in choices if c.get("$type") == "TextAnswer")
                token, action = text_answer["onSubmitted"]["token"], {"$type": "TextAnswer.Submitted", "text": answer}
        instance = ir.restore_component_instance(program, stored)
        entry = {"$type": "ActionHandlerInvocation", "token": token, "action": action}
        done = ir.dispatch_component_actions(program, instance, [entry], max_operations=100_000)
        output, stored = done.output, done.instance.to_bytes()
        steps.append({"entry": entry, "effects": done.effects, "state": done.state, "usage": dict(done.usage)})
        if not out.json:
            for effect in done.effects:
                out.line(out.style.dim(f"  effect: {effect['prompt']} -> {effect['answer']}"))
            out.line(out.style.dim(f"  ({done.usage['operations']} operations; the instance stored as {len(stored)} bytes)"))
    if out.json:
        out.document({"steps": steps, "output": output})
    return EXIT_OK


def register(commands: Any, common: Sequence[argparse.ArgumentParser]) -> None:
    """Add ``demo`` to the subcommands."""
    demo = commands.add_parser(
        "demo", parents=common,
        help="compile the bundled support agent and run two of its tools (--write DIR: its files)",
        description="Compile the bundled support agent, load it from what was stored and call find_plans "
        "and lookup_order (its request answered on this machine). --definition also prints the "
        "definition to store; --write DIR writes the files the README's commands use instead.",
    )
    mode = demo.add_mutually_exclusive_group()
    mode.add_argument("--definition", action="store_true", help="also print the definition to store")
    mode.add_argument(
        "--write", metavar="DIR",
        help="instead: write the support agent's images, descriptions, definition and explain texts to DIR",
    )
    mode.add_argument(
        "--ir", action="store_true", help="instead: assemble, link, run and explain the bundled IR example"
    )
    mode.add_argument(
        "--flow", action="store_true",
        help="instead: answer the bundled conversation flow (a component) step by step from standard input",
    )
    demo.set_defaults(run=_cmd_demo)
