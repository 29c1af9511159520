"""``nx-agent cost``: budget costs you can see.

- ``cost profile``: where one call's operations go (table, ``--json``, ``--collapsed`` and
  ``--speedscope`` flame graph files);
- ``cost curve``: operations against input size over many inputs, the growth fitted, a budget
  recommended for the largest input, a plot (``--plot``, the ``plot`` extra) or a sparkline;
- ``cost diff``: two builds of one agent over the same inputs, what moved;
- ``cost budget``: per-tool limits from measurements, written as a host configuration.

Each runs a function tool of a stored agent (``DEFINITION IMAGE... TOOL``) or, with
``--function NAME``, a function of a program (``IMAGE...``, the entry first).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import ir
from ..cost.fit import fit_growth, recommend_budget
from ..cost.measure import FunctionSubject, ToolSubject, parse_vary, read_input_lines, vary_inputs
from ..cost.plot import have_matplotlib, plot_curve, sparkline
from .images import DEFAULT_MAX_OPERATIONS
from .inputs import json_option, limit_option, link_checked, link_files, read_images, read_text, write_bytes
from .output import EXIT_FAILED, EXIT_MISSING_EXTRA, EXIT_OK, EXIT_USAGE, CliError, Output, to_json

# ------------------------------------------------------------------------------------- subjects


def _usage(message: str, option: str) -> CliError:
    return CliError(message, code="nx-agent-cli-usage", path=option, exit_code=EXIT_USAGE)


def _max_operations(args: argparse.Namespace) -> int:
    value = limit_option(args.max_operations, "--max-operations", DEFAULT_MAX_OPERATIONS)
    assert value is not None
    return value


def _function_subject(paths: Sequence[str], args: argparse.Namespace) -> FunctionSubject:
    program = link_files(paths[0], paths[1:])
    if args.function not in program.entry.functions:
        known = ", ".join(program.entry.functions) or "none"
        raise CliError(f"{program.entry.identity} has no function '{args.function}' (its functions: {known})",
                       code="nx-ir-missing-entrypoint", path="--function")
    return FunctionSubject(program, args.function, ir.Limits(max_operations=_max_operations(args)))


def _agent(definition: str, images: Sequence[str], args: argparse.Namespace) -> Any:
    from .agents import _DeferredRequest, _load

    loader = argparse.Namespace(definition=definition, images=list(images), entry=args.entry,
                                max_operations=args.max_operations)
    return _load(loader, _DeferredRequest())


def _tool_subject(agent: Any, name: str) -> ToolSubject:
    names = [tool.name for tool in agent]
    if name not in names:
        raise CliError(f"the agent has no tool '{name}' (its tools: {', '.join(names) or 'none'})",
                       code="nx-agent-cli-unknown-tool", path=name)
    tool = agent[name]
    if tool.kind != "function" or not hasattr(tool, "profile"):
        raise CliError(f"tool '{name}' is a {tool.kind} tool: cost commands measure function tools",
                       code="nx-agent-cli-not-runnable", path=name)
    return ToolSubject(tool)


def _subject(args: argparse.Namespace) -> FunctionSubject | ToolSubject:
    """``IMAGE... --function NAME``, or ``DEFINITION IMAGE... TOOL``."""
    paths = args.paths
    if args.function is not None:
        return _function_subject(paths, args)
    if len(paths) < 3:
        raise _usage("give DEFINITION IMAGE... TOOL (a stored agent's tool), or IMAGE... --function NAME", "paths")
    return _tool_subject(_agent(paths[0], paths[1:-1], args), paths[-1])


def _inputs_file(path: str) -> list[Any]:
    try:
        return read_input_lines(read_text(path), path)
    except ValueError as error:
        raise CliError(str(error), code="nx-agent-cli-json", path=path) from None


# -------------------------------------------------------------------------------------- profile


def _cmd_profile(args: argparse.Namespace, out: Output) -> int:
    subject = _subject(args)
    default: Any = [] if args.function is not None else {}
    value = json_option(args.input, "--input") if args.input is not None else default
    profile = subject.profile(value)
    if args.collapsed:
        write_bytes(args.collapsed, profile.collapsed().encode("utf-8"))
    if args.speedscope:
        write_bytes(args.speedscope, profile.speedscope_json(f"{subject.name} {to_json(value, indent=None)}").encode("utf-8"))
    if out.json:
        out.document({"subject": subject.name, "input": value, **profile.to_dict()})
    else:
        out.line(f"{out.style.bold(subject.name)} {to_json(value, indent=None)}")
        out.line(profile.table(top=args.top))
        for path in (args.collapsed, args.speedscope):
            if path:
                out.note(f"wrote {path}")
    return EXIT_OK if profile.ok else EXIT_FAILED


# ---------------------------------------------------------------------------------------- curve


def _curve_points(args: argparse.Namespace, subject: FunctionSubject | ToolSubject) -> tuple[list[dict[str, Any]], str]:
    """Each input measured: ``size`` (the varied value, or the input size), operations, and the
    input size the runtime measured."""
    if (args.inputs is None) == (args.vary is None):
        raise _usage("give either --inputs FILE or --vary NAME=LOW..HIGH", "--inputs")
    rows = []
    if args.vary is not None:
        try:
            name, low, high = parse_vary(args.vary)
        except ValueError as error:
            raise _usage(str(error), "--vary") from None
        base = json_option(args.input, "--input") if args.input is not None else {}
        if not isinstance(base, dict):
            raise _usage("--input with --vary is a JSON object the varied value is put in", "--input")
        for value, input_value in vary_inputs(name, low, high, args.points, base):
            measured = subject.measure(input_value)
            rows.append({"size": value, "operations": measured.operations, "inputSize": measured.input_size,
                         "input": input_value, "error": measured.error})
        return rows, name
    for input_value in _inputs_file(args.inputs):
        measured = subject.measure(input_value)
        rows.append({"size": measured.input_size, "operations": measured.operations, "inputSize": measured.input_size,
                     "input": input_value, "error": measured.error})
    return rows, "input size"


def _cmd_curve(args: argparse.Namespace, out: Output) -> int:
    subject = _subject(args)
    margin = _margin(args)
    rows, x_label = _curve_points(args, subject)
    failed = [row for row in rows if row["error"]]
    points = [(row["size"], row["operations"]) for row in rows if not row["error"]]
    if not points:
        raise CliError(f"every call failed ({failed[0]['error']}): nothing to fit", code="nx-agent-cli-cost", path=subject.name)
    best, fits = fit_growth(points)
    largest = limit_option(args.largest, "--largest", max(size for size, _ in points))
    assert largest is not None
    budget = recommend_budget(best, points, largest, margin)
    written: list[str] = []
    missing_plot = False
    if args.plot:
        if have_matplotlib():
            title = f"{subject.name}: {best.model} growth"
            written = [str(p) for p in plot_curve(points, best, title, args.plot, largest=largest, budget=budget, x_label=x_label)]
        else:
            missing_plot = True
    document = {
        "subject": subject.name,
        "x": x_label,
        "points": [{k: row[k] for k in ("size", "operations", "inputSize", "error")} for row in rows],
        "fit": {"model": best.model, "formula": best.formula(), "rms": best.rms, "relative": best.relative},
        "candidates": [{"model": f.model, "formula": f.formula(), "rms": f.rms, "relative": f.relative} for f in fits],
        "largest": largest,
        "margin": margin,
        "predicted": best.predict(largest),
        "budget": budget,
        "plots": written,
    }
    if out.json:
        out.document(document)
    else:
        style = out.style
        out.line(f"{style.bold(subject.name)}: {len(points)} inputs measured" + (f", {len(failed)} failed" if failed else ""))
        width = max(len(x_label), *(len(f"{size:,}") for size, _ in points))
        out.line(f"  {x_label.rjust(width)}  operations")
        for row in rows:
            tail = f"  (failed: {row['error']})" if row["error"] else ""
            out.line(f"  {row['size']:>{width},}  {row['operations']:>10,}{tail}")
        out.line(f"  {sparkline([ops for _, ops in points])}")
        out.line(f"best fit: {style.bold(best.model)}  {best.formula()}  (residual rms {best.rms:.3g} operations, "
                 f"{100 * best.relative:.2f}% of the mean)")
        others = ", ".join(f"{f.model} {100 * f.relative:.2f}%" for f in fits if f is not best)
        if others:
            out.line(style.dim(f"  others: {others}"))
        out.line(f"recommended maxOperations for {x_label} up to {largest:,} with a {margin:g}% margin: {style.bold(f'{budget:,}')}")
        for path in written:
            out.note(f"wrote {path}")
    if missing_plot:
        out.note("--plot needs matplotlib: pip install 'nx-agent[plot]' (the sparkline above is the curve)")
        return EXIT_MISSING_EXTRA
    return EXIT_OK


def _margin(args: argparse.Namespace) -> float:
    try:
        margin = float(args.margin)
    except ValueError:
        margin = -1.0
    if not (0 <= margin <= 10_000):
        raise _usage(f"must be a percentage from 0 to 10000, got {args.margin!r}", "--margin")
    return margin


# ----------------------------------------------------------------------------------------- diff


def _build(path: str, args: argparse.Namespace, option: str) -> Any:
    """One build: an agent (a bundle file, or a folder holding its definition and images), or with
    ``--function`` a program (an image, or a folder of images whose entry is ``--entry``)."""
    where = Path(path)
    if args.function is not None:
        if where.is_dir():
            images = sorted(str(p) for p in where.iterdir() if p.suffix == ".nxir")
            modules = read_images(images)
            program = link_checked(modules, args.entry, option=path)
        else:
            program = link_files(path, [])
        return FunctionSubject(program, args.function, ir.Limits(max_operations=_max_operations(args)))
    if where.is_dir():
        definitions = []
        for candidate in sorted(where.glob("*.json")):
            try:
                document = json.loads(candidate.read_text(encoding="utf-8"))
            except (ValueError, OSError):
                continue
            if isinstance(document, dict) and isinstance(document.get("tools"), list):
                definitions.append(str(candidate))
        if len(definitions) != 1:
            raise CliError(f"a build folder holds one definition (a JSON file with 'tools'); found {len(definitions)}",
                           code="nx-agent-cli-definition", path=path)
        images = sorted(str(p) for p in where.iterdir() if p.suffix == ".nxir")
        return _agent(definitions[0], images, args)
    from ..agent.diagnostics import NxAgentError
    from ..bundle import load_bundle
    from .agents import _DeferredRequest

    try:
        return load_bundle(path, request=_DeferredRequest(), max_operations=_max_operations(args))
    except (NxAgentError, ValueError, OSError) as error:
        raise CliError(f"not a bundle or a build folder: {error}", code="nx-agent-cli-input", path=path) from None


def _diff_cases(args: argparse.Namespace) -> list[tuple[str | None, Any]]:
    cases: list[tuple[str | None, Any]] = []
    for line in _inputs_file(args.inputs):
        if args.function is not None:
            cases.append((None, line))
        elif isinstance(line, dict) and isinstance(line.get("tool"), str) and "input" in line:
            cases.append((line["tool"], line["input"]))
        else:
            raise CliError('each line is {"tool": NAME, "input": {...}}', code="nx-agent-cli-json", path=args.inputs)
    return cases


def _subject_of(build: Any, tool: str | None) -> FunctionSubject | ToolSubject:
    return build if tool is None else _tool_subject(build, tool)


def _cmd_diff(args: argparse.Namespace, out: Output) -> int:
    fail_over = None
    if args.fail_over is not None:
        try:
            fail_over = float(args.fail_over)
        except ValueError:
            raise _usage(f"must be a percentage, got {args.fail_over!r}", "--fail-over") from None
    old, new = _build(args.old, args, args.old), _build(args.new, args, args.new)
    rows = []
    for tool, input_value in _diff_cases(args):
        before = _subject_of(old, tool).measure(input_value)
        after_subject = _subject_of(new, tool)
        after = after_subject.measure(input_value)
        change = after.operations - before.operations
        percent = (100.0 * change / before.operations) if before.operations else (0.0 if change == 0 else float("inf"))
        rows.append({"tool": after_subject.name, "input": input_value, "before": before.operations, "after": after.operations,
                     "change": change, "percent": percent, "errorBefore": before.error, "errorAfter": after.error})
    rows.sort(key=lambda r: (-abs(r["change"]), r["tool"], to_json(r["input"], indent=None)))
    moved = rows[0] if rows and rows[0]["change"] else None
    profile = None
    if moved is not None:
        profile = _subject_of(new, None if args.function is not None else moved["tool"]).profile(moved["input"])
    over = [r for r in rows if fail_over is not None and r["percent"] > fail_over]
    if out.json:
        out.document({
            "rows": [{**r, "percent": r["percent"] if r["percent"] != float("inf") else None} for r in rows],
            "failOver": fail_over,
            "over": len(over),
            "mostMoved": {"tool": moved["tool"], "input": moved["input"], "profile": profile.to_dict()} if moved and profile else None,
        })
    else:
        table = [("tool", "input", "before", "after", "change", "%")]
        for r in rows:
            pct = "new" if r["percent"] == float("inf") else f"{r['percent']:+.1f}%"
            table.append((r["tool"], _short(r["input"]), f"{r['before']:,}", f"{r['after']:,}", f"{r['change']:+,}", pct))
        from ..profile import _columns

        for line in _columns(table):
            out.line(line)
        if moved is not None and profile is not None:
            out.line()
            out.line(f"profile of the call that moved most ({moved['tool']} {_short(moved['input'])}, new build):")
            out.line(profile.table(top=10))
        if fail_over is not None:
            verdict = f"{len(over)} calls rose more than {fail_over:g}%" if over else f"no call rose more than {fail_over:g}%"
            out.line(out.style.red(verdict) if over else out.style.green(verdict))
    return EXIT_FAILED if over else EXIT_OK


def _short(value: Any, width: int = 40) -> str:
    text = to_json(value, indent=None)
    return text if len(text) <= width else text[: width - 1] + "…"


# --------------------------------------------------------------------------------------- budget


def _cmd_budget(args: argparse.Namespace, out: Output) -> int:
    margin = _margin(args)
    if len(args.paths) < 2:
        raise _usage("give DEFINITION IMAGE...", "paths")
    agent = _agent(args.paths[0], args.paths[1:], args)
    cases: dict[str, list[Any]] = {}
    for line in _inputs_file(args.inputs):
        if not (isinstance(line, dict) and isinstance(line.get("tool"), str) and "input" in line):
            raise CliError('each line is {"tool": NAME, "input": {...}}', code="nx-agent-cli-json", path=args.inputs)
        cases.setdefault(line["tool"], []).append(line["input"])
    largest = limit_option(args.largest, "--largest")
    tools: dict[str, dict[str, Any]] = {}
    for name, inputs in cases.items():
        subject = _tool_subject(agent, name)
        measured = [subject.measure(value) for value in inputs]
        points = [(m.input_size, m.operations) for m in measured if not m.error]
        if not points:
            raise CliError(f"every call of '{name}' failed ({measured[0].error})", code="nx-agent-cli-cost", path=name)
        best, _ = fit_growth(points)
        top = largest if largest is not None else max(size for size, _ in points)
        tools[name] = {"maxOperations": recommend_budget(best, points, top, margin), "measured": max(ops for _, ops in points),
                       "fit": best.model, "largestInputSize": top}
    config: dict[str, Any] = {}
    if args.host_config and Path(args.host_config).is_file():
        existing = json_option("@" + args.host_config, "--host-config")
        if not isinstance(existing, dict):
            raise CliError("the host configuration is not a JSON object", code="nx-agent-cli-json", path=args.host_config)
        config = existing
    config["tools"] = {**(config.get("tools") or {}), **{name: {"maxOperations": t["maxOperations"]} for name, t in tools.items()}}
    target = args.output or args.host_config
    if target:
        write_bytes(target, (to_json(config) + "\n").encode("utf-8"))
    if out.json:
        out.document({"tools": tools, "margin": margin, "written": target, "config": config})
        return EXIT_OK
    table = [("tool", "measured", "fit", "up to size", "maxOperations")]
    for name, t in tools.items():
        table.append((name, f"{t['measured']:,}", t["fit"], f"{t['largestInputSize']:,}", f"{t['maxOperations']:,}"))
    from ..profile import _columns

    for line in _columns(table):
        out.line(line)
    if target:
        out.note(f"wrote {target} (its \"tools\" limits: nx-agent serve --host-config {target})")
    else:
        out.line(to_json(config))
    return EXIT_OK


# -------------------------------------------------------------------------------------- parsers


def _subject_arguments(parser: argparse.ArgumentParser, what: str = "DEFINITION IMAGE... TOOL") -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help=f"{what} (a stored agent's function tool), or IMAGE... with --function")
    parser.add_argument("--function", metavar="NAME", help="measure this function of the program IMAGE... (the entry first)")
    parser.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    parser.add_argument("--max-operations", metavar="N", help=f"operation budget of each call (default {DEFAULT_MAX_OPERATIONS:,})")


def register(commands: Any, common: Sequence[argparse.ArgumentParser]) -> None:
    """Add ``cost`` and its subcommands."""
    cost = commands.add_parser(
        "cost", parents=common, help="operation costs: profile a call, fit a cost curve, diff two builds, write budgets",
        description="Budget costs you can see: operation counts (deterministic, comparable across machines) "
        "profiled, fitted against input size, compared between builds and turned into per-tool limits.",
    )
    sub = cost.add_subparsers(dest="cost_command", required=True, metavar="SUBCOMMAND")

    profile = sub.add_parser("profile", parents=common, help="where one call's operations go",
                             description="Profile one call: self and total operations per declaration, per node kind "
                             "and per call path, with call counts; the total is the call's usage.operations.")
    _subject_arguments(profile)
    profile.add_argument("--input", metavar="JSON", help="the tool's input (object) or the function's arguments "
                         "(list by position, object by name), or @FILE")
    profile.add_argument("--top", type=int, default=20, metavar="N", help="rows per table (default 20)")
    profile.add_argument("--collapsed", metavar="FILE", help="write the collapsed stacks (flamegraph.pl, inferno, speedscope)")
    profile.add_argument("--speedscope", metavar="FILE", help="write a speedscope JSON profile")
    profile.set_defaults(run=_cmd_profile)

    curve = sub.add_parser("curve", parents=common, help="fit how operations grow with input size; recommend a budget",
                           description="Measure operations over many inputs, fit constant, log, linear, n log n, "
                           "quadratic and exponential growth by least squares, and recommend a budget.")
    _subject_arguments(curve)
    curve.add_argument("--inputs", metavar="FILE", help="one JSON input per line")
    curve.add_argument("--vary", metavar="NAME=LOW..HIGH", help="generate inputs: NAME from LOW to HIGH")
    curve.add_argument("--points", type=int, default=12, metavar="N", help="how many values --vary takes (default 12)")
    curve.add_argument("--input", metavar="JSON", help="with --vary: the object the varied value is put in")
    curve.add_argument("--largest", metavar="N", help="the largest input to budget for (default: the largest measured)")
    curve.add_argument("--margin", default="25", metavar="PCT", help="margin on top of the prediction (default 25)")
    curve.add_argument("--plot", metavar="STEM", help="write STEM.png and STEM.svg (needs nx-agent[plot])")
    curve.set_defaults(run=_cmd_curve)

    diff = sub.add_parser("diff", parents=common, help="operations of two builds over the same inputs",
                          description="Run every input in two builds (a bundle or a folder with the definition and "
                          "images; with --function, an image or a folder of images) and compare operations.")
    diff.add_argument("old", metavar="OLD", help="the old build")
    diff.add_argument("new", metavar="NEW", help="the new build")
    diff.add_argument("--inputs", required=True, metavar="FILE",
                      help='one JSON line per call: {"tool": NAME, "input": {...}}, or with --function its arguments')
    diff.add_argument("--function", metavar="NAME", help="compare this function of two programs")
    diff.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    diff.add_argument("--max-operations", metavar="N", help=f"operation budget of each call (default {DEFAULT_MAX_OPERATIONS:,})")
    diff.add_argument("--fail-over", metavar="PCT", help="exit 1 when a call rose by more than PCT percent")
    diff.set_defaults(run=_cmd_diff)

    budget = sub.add_parser("budget", parents=common, help="per-tool maxOperations from measurements, as a host configuration",
                            description="Measure each tool over its inputs and write per-tool limits (\"tools\": "
                            "{NAME: {\"maxOperations\": N}}) into a host configuration nx-agent serve reads.")
    budget.add_argument("paths", nargs="+", metavar="PATH", help="DEFINITION IMAGE...")
    budget.add_argument("--inputs", required=True, metavar="FILE", help='one JSON line per call: {"tool": NAME, "input": {...}}')
    budget.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    budget.add_argument("--max-operations", metavar="N", help=f"operation budget of each measured call (default {DEFAULT_MAX_OPERATIONS:,})")
    budget.add_argument("--margin", default="25", metavar="PCT", help="margin on top of the prediction (default 25)")
    budget.add_argument("--largest", metavar="N", help="the largest input size to budget for (default: the largest measured)")
    budget.add_argument("--host-config", metavar="FILE", help="a host configuration to add the limits to (kept otherwise)")
    budget.add_argument("-o", "--output", metavar="FILE", help="where to write it (default: --host-config, else stdout)")
    budget.set_defaults(run=_cmd_budget)
