"""The ``nx-agent`` command line (also ``python -m nx_agent``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

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


def _cmd_demo(args: argparse.Namespace) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nx-agent", description="Read, link, explain and assemble NX IR images."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="assemble, link, run and explain the bundled example")
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
