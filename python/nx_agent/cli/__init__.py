"""The ``nx-agent`` command line (also ``python -m nx_agent``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import examples, ir
from .errors import NxError


def _read_module(path: str) -> ir.PreparedModule:
    return ir.prepare_module(Path(path).read_bytes())


def _link_files(entry_path: str, others: Sequence[str], allow_mismatch: bool) -> ir.Program:
    entry = _read_module(entry_path)
    modules = {m.identity: m for m in map(_read_module, others)}
    return ir.link_program(entry, modules, allow_version_mismatch=allow_mismatch)


def _describe(program: ir.Program) -> str:
    lines = []
    for module in program.modules:
        version = f' version "{module.version}"' if module.version else ""
        functions = ", ".join(module.functions) or "-"
        lines.append(f"{module.identity}{version}: {module.size} bytes; functions {functions}")
    return "\n".join(lines)


def _local_shop(call: dict[str, Any]) -> dict[str, Any]:
    """The demo's request function: it answers on this machine, as the shop's API would."""
    request = call["request"]
    print(f"  request function handed: {request['method']} {request['url']}")
    order = call["arguments"]["pathParams"][0]["value"]
    return {"status": 200, "body": {"orderId": order, "state": "shipped"}}


def _show_call(tool: Any, input: dict[str, Any], call_id: str) -> None:
    print(f"{tool.name}({json.dumps(input)})  [call {call_id}]")
    result = tool.execute(input, call_id=call_id)
    if result["ok"]:
        print(f"  output: {json.dumps(result['output'], ensure_ascii=False)}")
    else:
        print(f"  error: {result['error']['code']}: {result['error']['message']}")
    usage = result.get("usage", {})
    print(f"  usage: {usage.get('operations')} operations, input size {usage.get('inputSize')}")


def _cmd_demo(args: argparse.Namespace) -> None:
    if args.ir:
        _demo_ir()
        return
    from .agent import compile_agent, load_agent

    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    print(f"Compiled the support agent; store its definition and {len(compiled.images)} images "
          f"({', '.join(compiled.images)}). The definition:")
    print(json.dumps(compiled.definition, indent=2, ensure_ascii=False))
    print()
    agent = load_agent(compiled.definition_text, compiled.images, request=_local_shop)
    print(f"Loaded from what was stored: tools {', '.join(tool.name for tool in agent)}.")
    _show_call(agent["find_plans"], {"teamSize": 5}, "demo:1")
    _show_call(agent["lookup_order"], {"orderId": "A 1"}, "demo:2")


def _demo_ir() -> None:
    program = examples.link_example()
    print(f"linked {len(program.modules)} modules:")
    print(_describe(program))
    result = ir.evaluate_function(program, "findPlans", [5], max_operations=10_000)
    names = ", ".join(plan["name"] for plan in result.value)
    print(f"findPlans(teamSize=5) -> {names} ({result.usage['operations']} operations)")
    print()
    print(program.entry.explain(), end="")


def _cmd_explain(args: argparse.Namespace) -> None:
    print(ir.explain(Path(args.image).read_bytes()), end="")


def _cmd_assemble(args: argparse.Namespace) -> None:
    text = Path(args.text).read_text(encoding="utf-8")
    source = Path(args.source).read_text(encoding="utf-8") if args.source else None
    image = ir.assemble(text, source=source, version=args.version)
    ir.prepare_module(image)
    Path(args.output).write_bytes(image)
    print(f"{args.output}: {len(image)} bytes")


def _cmd_link(args: argparse.Namespace) -> None:
    print(_describe(_link_files(args.entry, args.modules, args.allow_version_mismatch)))


def _cmd_serve(args: argparse.Namespace) -> None:
    try:
        from .mcp.command import run_serve
    except ImportError as error:
        raise NxError(f"serve needs the mcp extra: pip install 'nx-agent[mcp]' ({error})") from None
    run_serve(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nx-agent", description="Read, link, explain and assemble NX IR images."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser(
        "demo", help="compile the bundled support agent, print its definition and run two of its tools"
    )
    demo.add_argument(
        "--ir", action="store_true", help="instead: assemble, link, run and explain the bundled IR example"
    )
    demo.set_defaults(run=_cmd_demo)

    explain = commands.add_parser("explain", help="print an image as `nxlang ir explain` does")
    explain.add_argument("image", help="an NX IR image file")
    explain.set_defaults(run=_cmd_explain)

    assemble = commands.add_parser("assemble", help="build an image from explain text")
    assemble.add_argument("text", help="explain text file")
    assemble.add_argument("-o", "--output", required=True, help="image file to write")
    assemble.add_argument("--source", help="the module's source, for a debug section")
    assemble.add_argument("--version", default="", help="the module's own version")
    assemble.set_defaults(run=_cmd_assemble)

    link = commands.add_parser("link", help="link an entry image against module images")
    link.add_argument("entry", help="the entry module's image")
    link.add_argument("modules", nargs="*", help="images of the modules it links against")
    link.add_argument(
        "--allow-version-mismatch",
        action="store_true",
        help="link even where a module's version differs from the one recorded",
    )
    link.set_defaults(run=_cmd_link)

    serve = commands.add_parser(
        "serve",
        help="serve a stored agent's tools over MCP (stdio; streamable HTTP on loopback with --http)",
        description="Serve the tools of a stored agent over MCP (needs nx-agent[mcp]). Contexts, tokens "
        "and base URL overrides come from a host configuration: a JSON file named by --host-config or "
        "NX_AGENT_HOST_CONFIG (see nx_agent.mcp.host_config); tokens also from NX_AGENT_TOKEN_<CONNECTION>.",
    )
    serve.add_argument("definition", help="the stored definition (JSON)")
    serve.add_argument("images", nargs="+", help="the stored NX IR images")
    serve.add_argument("--http", action="store_true", help="streamable HTTP on 127.0.0.1 instead of stdio")
    serve.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000; 0: any free port)")
    serve.add_argument("--host-config", help="host configuration file (default: $NX_AGENT_HOST_CONFIG)")
    serve.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    serve.set_defaults(run=_cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except NxError as error:
        print(f"nx-agent: {error} [{error.code}]", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"nx-agent: {error}", file=sys.stderr)
        return 1
    return 0
