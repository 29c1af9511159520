"""The IR commands: ``explain``, ``assemble``, ``link`` and ``run``."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from .. import ir
from ..errors import NxIrError
from .inputs import json_option, limit_option, link_files, read_image, read_text, write_bytes
from .output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CliError, Output, error_document, to_json

#: ``run``'s budget and input limit unless told otherwise (so that its usage is always measured).
DEFAULT_MAX_OPERATIONS = 1_000_000
DEFAULT_MAX_INPUT_SIZE = 1_000_000
#: The runtime's own defaults, shown in ``run --help``.
DEFAULT_MAX_CALL_DEPTH = ir.Limits().max_call_depth
DEFAULT_MAX_RANGE_LENGTH = ir.Limits().max_range_length
DEFAULT_MAX_MEMORY = ir.Limits().max_memory
#: ``ir.explain``'s default ``max_output``, in bytes of text (64 MiB), shown in ``explain --help``.
DEFAULT_MAX_OUTPUT = 64 << 20



def module_summary(module: ir.PreparedModule) -> dict[str, Any]:
    """What a module is: identity, schema, version, fingerprint, size, links and functions."""
    return {
        "identity": module.identity,
        "schema": module.schema,
        "version": module.version,
        "fingerprint": module.fingerprint,
        "size": module.size,
        "links": [{"identity": l.identity, "version": l.version, "fingerprint": l.fingerprint} for l in module.links],
        "functions": list(module.functions),
    }


def describe(program: ir.Program) -> str:
    """One line per linked module: identity, version, size and functions."""
    lines = []
    for module in program.modules:
        version = f' version "{module.version}"' if module.version else ""
        functions = ", ".join(module.functions) or "-"
        lines.append(f"{module.identity}{version}: {module.size} bytes; functions {functions}")
    return "\n".join(lines)


def usage_text(usage: Mapping[str, Any]) -> str:
    """``used N operations, input size M`` from a usage record (either spelling of the input size)."""
    parts = []
    if usage.get("operations") is not None:
        parts.append(f"{usage['operations']} operations")
    size = usage.get("inputSize", usage.get("input_size"))
    if size is not None:
        parts.append(f"input size {size}")
    return "used " + ", ".join(parts) if parts else "usage not measured"


def parameters_hint(program: ir.Program, function: str) -> str | None:
    """``findPlans takes teamSize: integer, maxMonthlyPrice: integer (optional)``: a function's
    parameters as JSON Schema types, for a refused argument (``None`` when it has no schema)."""
    try:
        from ..schema import function_schema

        answer = function_schema(program, {"module": program.entry.identity, "name": function})
    except Exception:  # noqa: BLE001 - a hint only; the refusal itself is already reported
        return None
    schema = answer.get("inputSchema") if isinstance(answer, Mapping) else None
    if not isinstance(schema, Mapping) or not isinstance(schema.get("properties"), Mapping):
        return None
    from .agents import tool_parameters

    parts = [
        f"{p['name']}: {p['type']}" + ("" if p["required"] else " (optional)") for p in tool_parameters(schema)
    ]
    return f"{function} takes {', '.join(parts) or 'no arguments'}"


def _cmd_explain(args: argparse.Namespace, out: Output) -> int:
    given = limit_option(args.max_output, "--max-output")
    max_output = DEFAULT_MAX_OUTPUT if given is None else given
    module = read_image(args.image)
    try:
        text = ir.explain(module, max_output=max_output)
    except NxIrError as error:
        limit = error.diagnostics[0].limit if error.diagnostics else None
        hint = "raise the limit with --max-output N (bytes)" if limit and limit.get("name") == "maxOutput" else None
        raise CliError(str(error), code=error.code, path=args.image,
                       details=[d.to_dict() for d in error.diagnostics], hint=hint) from None
    if out.json:
        out.document({**module_summary(module), "explain": text})
    else:
        print(text, end="")
    return EXIT_OK


def _cmd_assemble(args: argparse.Namespace, out: Output) -> int:
    text = read_text(args.text)
    source = read_text(args.source) if args.source else None
    links = [read_text(path) for path in args.link]
    try:
        image = ir.assemble(text, source=source, version=args.version, links=links, schema=args.schema)
        module = ir.prepare_module(image)
    except NxIrError as error:
        details = [d.to_dict() for d in error.diagnostics]
        raise CliError(str(error), code=error.code, path=args.text, details=details) from None
    write_bytes(args.output, image)
    if out.json:
        out.document({"output": args.output, **module_summary(module)})
    else:
        version = f' version "{module.version}"' if module.version else ""
        out.line(
            f"{args.output}: {len(image)} bytes, schema {module.schema}, module {out.style.bold(module.identity)}{version}"
        )
    return EXIT_OK


def _cmd_link(args: argparse.Namespace, out: Output) -> int:
    program = link_files(args.entry, args.modules, allow_version_mismatch=args.allow_version_mismatch)
    if out.json:
        out.document({"entry": program.entry.identity, "modules": [module_summary(m) for m in program.modules]})
    else:
        out.line(describe(program))
    return EXIT_OK


def _limits(args: argparse.Namespace) -> ir.Limits:
    return ir.Limits(
        max_operations=limit_option(args.max_operations, "--max-operations", DEFAULT_MAX_OPERATIONS),
        max_input_size=limit_option(args.max_input_size, "--max-input-size", DEFAULT_MAX_INPUT_SIZE),
        max_call_depth=limit_option(args.max_call_depth, "--max-call-depth"),
        max_range_length=limit_option(args.max_range_length, "--max-range-length"),
        max_memory=limit_option(args.max_memory, "--max-memory"),
    )


def _cmd_run(args: argparse.Namespace, out: Output) -> int:
    limits = _limits(args)
    entry, *others = args.images
    program = link_files(entry, others, allow_version_mismatch=args.allow_version_mismatch)
    arguments = json_option(args.args, "--args")
    if not isinstance(arguments, (list, dict)):
        raise CliError(
            "--args must be a JSON list (positional arguments) or object (arguments by name)",
            code="nx-agent-cli-json",
            path="--args",
        )
    try:
        if isinstance(arguments, list):
            result = ir.evaluate_function(program, args.function, arguments, limits=limits)
        else:
            function = {"$type": "Function", "module": program.entry.identity, "name": args.function}
            result = ir.call_function(program, function, arguments, limits=limits)
    except NxIrError as error:
        if args.function not in program.entry.functions:
            known = ", ".join(program.entry.functions) or "none"
            raise CliError(
                f"{program.entry.identity} has no function '{args.function}' (its functions: {known})",
                code=error.code,
                path="--function",
                details=[d.to_dict() for d in error.diagnostics],
            ) from None
        document = error_document(error)
        if error.code == "nx-ir-boundary-type":
            hint = parameters_hint(program, args.function)
            if hint:
                document["hint"] = hint
        if out.json:
            out.document({"ok": False, "error": document})
        else:
            out.failure_text(document, prefix=f"{args.function} failed: ")
        return EXIT_FAILED
    usage = {"operations": result.operations, "inputSize": result.input_size}
    if out.json:
        out.document({"ok": True, "value": result.value, "usage": usage})
    else:
        out.line(to_json(result.value))
        out.line(out.style.dim(usage_text(usage)))
    return EXIT_OK


def register(commands: Any, common: Sequence[argparse.ArgumentParser]) -> None:
    """Add ``explain``, ``assemble``, ``link`` and ``run`` to the subcommands."""
    explain = commands.add_parser(
        "explain", parents=common, help="print an image as `nxlang ir explain` does",
        description="Print an NX IR image as `nxlang ir explain` does (--json: the module's identity, "
        "schema, version, fingerprint, size, links and functions, and the text). An image whose "
        "nodes or types are shared (a DAG) can describe more text than its size suggests: past "
        "--max-output bytes the command stops with nx-ir-resource-limit (limit maxOutput), exit 3.",
    )
    explain.add_argument("image", help="an NX IR image file")
    explain.add_argument("--max-output", metavar="N",
                         help=f"most bytes of text to write (default {DEFAULT_MAX_OUTPUT:,}, 64 MiB)")
    explain.set_defaults(run=_cmd_explain)

    assemble = commands.add_parser(
        "assemble", parents=common, help="build an image from explain text",
        description="Build an NX IR image from `nxlang ir explain` text and check it.",
    )
    assemble.add_argument("text", help="explain text file")
    assemble.add_argument("-o", "--output", required=True, metavar="IMAGE", help="image file to write")
    assemble.add_argument("--source", metavar="NX", help="the module's NX source, for a debug section")
    assemble.add_argument("--version", default="", help="the module's own version (default: none)")
    assemble.add_argument(
        "--schema", type=int, choices=(5, 6), default=6,
        help="the image schema to write: 6 (NX 0.8 to 0.10, the default) or 5 (NX 0.7); the text does not say",
    )
    assemble.add_argument(
        "--link", action="append", default=[], metavar="TEXT",
        help="explain text file of a module this one links to (repeatable): it tells a record from a "
        "component, a union case from a member, a Range loop from a list loop across modules",
    )
    assemble.set_defaults(run=_cmd_assemble)

    link = commands.add_parser(
        "link", parents=common, help="link an entry image against module images",
        description="Link an entry image against the images of the modules it links to (the prelude is built in).",
    )
    link.add_argument("entry", help="the entry module's image")
    link.add_argument("modules", nargs="*", help="images of the modules it links against")
    link.add_argument(
        "--allow-version-mismatch", action="store_true",
        help="link even where a module's version differs from the one recorded",
    )
    link.set_defaults(run=_cmd_link)

    run = commands.add_parser(
        "run", parents=common, help="evaluate a function of a linked program; print its value and usage",
        description="Link the images (the first is the entry) and evaluate one of the entry's functions. "
        "--args is a JSON list (positional arguments) or object (arguments by name), inline or @FILE. "
        "Exit 1 when the evaluation fails with a code (e.g. nx-ir-resource-limit).",
    )
    run.add_argument("images", nargs="+", metavar="IMAGE", help="the entry image, then the images it links to")
    run.add_argument("--function", required=True, metavar="NAME", help="the entry module's function")
    run.add_argument("--args", default="[]", metavar="JSON", help="arguments: a JSON list or object, or @FILE (default [])")
    run.add_argument("--max-operations", metavar="N",
                     help=f"operation budget (default {DEFAULT_MAX_OPERATIONS:,})")
    run.add_argument("--max-input-size", metavar="N",
                     help=f"largest input size of the arguments (default {DEFAULT_MAX_INPUT_SIZE:,})")
    run.add_argument("--max-call-depth", metavar="N",
                     help=f"deepest nesting of calls (default {DEFAULT_MAX_CALL_DEPTH:,})")
    run.add_argument("--max-range-length", metavar="N",
                     help=f"longest range a loop may run over (default {DEFAULT_MAX_RANGE_LENGTH:,})")
    run.add_argument("--max-memory", metavar="N",
                     help=f"bytes of values the evaluation may allocate (default {DEFAULT_MAX_MEMORY:,}, 256 MiB)")
    run.add_argument(
        "--allow-version-mismatch", action="store_true",
        help="link even where a module's version differs from the one recorded",
    )
    run.set_defaults(run=_cmd_run)
