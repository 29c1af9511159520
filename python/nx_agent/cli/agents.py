"""The agent commands: ``compile`` (the compile half), ``tools`` and ``call`` (the run-time half)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ..agent.compile import LoadedAgent, compile_agent, load_agent
from ..agent.definition import PACKAGE_TOOL_KINDS
from ..agent.diagnostics import NxAgentError, NxAgentToolError
from ..agent.limits import (
    NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    NX_AGENT_DEFAULT_MAX_OPERATIONS,
    AgentOptionError,
)
from ..http.connections import RoutedRequest, stored_base_urls, token_env_name, token_from_environment
from .images import DEFAULT_MAX_CALL_DEPTH, DEFAULT_MAX_MEMORY, DEFAULT_MAX_RANGE_LENGTH, usage_text
from .inputs import json_option, limit_option, link_checked, read_images, read_json_file, write_bytes
from .output import EXIT_FAILED, EXIT_MISSING_EXTRA, EXIT_OK, EXIT_USAGE, CliError, Output, to_json

# ---------------------------------------------------------------------------------------- compile


def _cmd_compile(args: argparse.Namespace, out: Output) -> int:
    modules = read_images(args.images)
    paths = modules.paths
    program = link_checked(modules, args.entry)
    if args.root not in program.entry.functions:
        known = ", ".join(program.entry.functions) or "none"
        raise CliError(
            f"{args.entry} has no function '{args.root}' (its functions: {known})",
            code="nx-ir-missing-entrypoint",
            path="--root",
        )
    descriptions = read_json_file(args.descriptions) if args.descriptions else None
    context_type = None
    if args.tool_context_type:
        module, sep, name = args.tool_context_type.rpartition("::")
        if not sep or not module or not name:
            raise CliError("give the record as MODULE::NAME", code="nx-agent-cli-usage",
                           path="--tool-context-type", exit_code=EXIT_USAGE)
        context_type = {"module": module, "name": name}
    try:
        compiled = compile_agent(
            modules,
            entry=args.entry,
            root=args.root,
            descriptions=descriptions,
            tool_context_type=context_type,
            allow_insecure_base_url=args.allow_insecure_base_url,
        )
    except (ValueError, TypeError) as error:
        raise CliError(str(error), code="nx-agent-cli-input", path=args.descriptions or args.images[0]) from None
    if args.bundle:
        from ..bundle import bundle_bytes

        write_bytes(args.output, bundle_bytes(compiled, descriptions=descriptions, entry=args.entry))
    else:
        write_bytes(args.output, compiled.definition_text.encode("utf-8"))
    names = [tool["name"] for tool in compiled.definition.get("tools", [])]
    stored = {identity: paths.get(identity, identity) for identity in compiled.images}
    warnings = [warning.to_dict() for warning in compiled.warnings]
    if out.json:
        out.document(
            {"definition": args.output, "name": compiled.definition.get("name"), "tools": names, "images": stored, "warnings": warnings}
        )
        return EXIT_OK
    for warning in warnings:
        out.note(f"warning: {warning['message']} [{warning['code']}] ({warning['path'] or 'agent'})")
    style = out.style
    out.line(f"{args.output}: agent {style.bold(str(compiled.definition.get('name')))}, {len(names)} tools ({', '.join(names)})")
    if args.bundle:
        out.line("one file: definition and images" + (" and descriptions" if descriptions is not None else "")
                 + "; load it with nx_agent.load_bundle(path, request=...)")
    else:
        out.line("store it with the images: " + ", ".join(f"{identity} ({path})" for identity, path in stored.items()))
    return EXIT_OK


# ------------------------------------------------------------------------------------ tools, call


class _DeferredRequest:
    """The request function handed to ``load_agent``: it makes requests only once ``call`` chose a
    real one (HTTP tools load without ``httpx``; an unexpected request is a failed call)."""

    def __init__(self) -> None:
        self.inner: Any = None

    def __call__(self, call: Any) -> Any:
        if self.inner is None:
            raise NxAgentToolError("request-failed", "No request function was chosen for this tool.")
        return self.inner(call)


def _not_run_here(tool: Mapping[str, Any], input: Any, context: Any) -> Any:
    raise NxAgentToolError("nx-agent-cli-host-tool", "Tools of host kinds are run by their host, not by nx-agent.")


def _limit(args: argparse.Namespace, name: str, default: int | None = None) -> int | None:
    return limit_option(getattr(args, name, None), "--" + name.replace("_", "-"), default)


def _runtime_limits(args: argparse.Namespace) -> dict[str, int]:
    limits = {name: _limit(args, name) for name in ("max_call_depth", "max_range_length", "max_memory")}
    return {name: value for name, value in limits.items() if value is not None}


def read_definition(path: str) -> dict[str, Any]:
    """A stored definition: a JSON object with a ``tools`` list (what ``compile`` writes)."""
    definition = read_json_file(path)
    if not isinstance(definition, dict):
        raise CliError("the definition is not a JSON object", code="nx-agent-cli-json", path=path)
    if not isinstance(definition.get("tools"), list):
        raise CliError(
            "this is not an agent definition: it has no 'tools' list (nx-agent compile writes one)",
            code="nx-agent-cli-definition",
            path=path,
        )
    return definition


def _load(args: argparse.Namespace, request: _DeferredRequest) -> LoadedAgent:
    limits = {
        "max_operations": _limit(args, "max_operations", NX_AGENT_DEFAULT_MAX_OPERATIONS),
        "max_arguments_size": _limit(args, "max_arguments_size", NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE),
        "max_context_size": _limit(args, "max_context_size", NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE),
    }
    runtime = _runtime_limits(args)
    definition = read_definition(args.definition)
    tools = definition.get("tools")
    host_kinds = {
        tool["kind"]
        for tool in (tools if isinstance(tools, list) else [])
        if isinstance(tool, dict) and isinstance(tool.get("kind"), str) and tool["kind"] not in PACKAGE_TOOL_KINDS
    }
    modules = read_images(args.images)
    link_checked(modules, args.entry)
    try:
        return load_agent(
            definition,
            modules,
            entry=args.entry,
            request=request,
            executors={kind: _not_run_here for kind in host_kinds},
            runtime=runtime or None,
            **limits,  # type: ignore[arg-type]
        )
    except AgentOptionError as error:
        raise CliError(str(error), code="nx-agent-cli-usage", path="limits", exit_code=EXIT_USAGE) from None
    except NxAgentError as error:
        details = [d.to_dict() for d in error.diagnostics]
        raise CliError(str(error), code=error.code, path=args.definition, details=details) from None
    except (ValueError, TypeError, KeyError) as error:
        raise CliError(f"the definition cannot be loaded: {error}", code="nx-agent-cli-input", path=args.definition) from None


def _schema_type(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    if "const" in schema:
        return to_json(schema["const"], indent=None)
    if "enum" in schema:
        return " | ".join(to_json(value, indent=None) for value in schema["enum"])
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(_schema_type(option) for option in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(map(str, kind))
    if kind == "array":
        return f"array of {_schema_type(schema.get('items'))}"
    return str(kind) if kind else "any"


def tool_parameters(input_schema: Any) -> list[dict[str, Any]]:
    """The top-level properties of an input schema: name, type, required, description."""
    if not isinstance(input_schema, Mapping) or not isinstance(input_schema.get("properties"), Mapping):
        return []
    required = set(input_schema.get("required") or [])
    return [
        {
            "name": name,
            "type": _schema_type(schema),
            "required": name in required,
            "description": schema.get("description") if isinstance(schema, Mapping) else None,
        }
        for name, schema in input_schema["properties"].items()
    ]


def _cmd_tools(args: argparse.Namespace, out: Output) -> int:
    agent = _load(args, _DeferredRequest())
    listed = [
        {
            "name": tool.name,
            "kind": tool.kind,
            "description": tool.description,
            "parameters": tool_parameters(tool.input_schema),
            "inputSchema": tool.input_schema,
            **({"outputSchema": tool.output_schema} if tool.output_schema is not None else {}),
            "annotations": tool.annotations,
        }
        for tool in agent
    ]
    if out.json:
        out.document({"name": agent.definition.get("name"), "tools": listed})
        return EXIT_OK
    style = out.style
    for index, tool in enumerate(listed):
        if index:
            out.line()
        hints = tool["annotations"] or {}
        marks = [tool["kind"]] + (["read-only"] if hints.get("readOnlyHint") else []) + (
            ["destructive"] if hints.get("destructiveHint") and not hints.get("readOnlyHint") else []
        )
        if tool["kind"] == "provider":
            marks.append("run by the model's provider")
        out.line(f"{style.bold(tool['name'])} {style.dim('(' + ', '.join(marks) + ')')}")
        if tool["description"]:
            out.line(f"  {tool['description']}")
        for parameter in tool["parameters"]:
            need = "required" if parameter["required"] else "optional"
            about = f" - {parameter['description']}" if parameter["description"] else ""
            out.line(f"  {style.cyan(parameter['name'])}: {parameter['type']}, {need}{about}")
    return EXIT_OK


def _base_url_routes(agent: LoadedAgent, given: Sequence[str]) -> dict[str, tuple[str, str]]:
    stored = stored_base_urls(tool.definition for tool in agent)
    routes = {}
    for item in given:
        name, sep, url = item.partition("=")
        parts = urlsplit(url)
        if not sep or not name:
            raise CliError(f"'{item}' is not CONNECTION=URL", code="nx-agent-cli-usage", path="--base-url", exit_code=EXIT_USAGE)
        if name not in stored:
            known = ", ".join(sorted(stored)) or "none"
            raise CliError(f"the definition has no connection '{name}' (its connections: {known})",
                           code="nx-agent-cli-usage", path="--base-url", exit_code=EXIT_USAGE)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise CliError(f"'{url}' is not an http(s) URL without query or fragment",
                           code="nx-agent-cli-usage", path="--base-url", exit_code=EXIT_USAGE)
        routes[name] = (stored[name], url.rstrip("/"))
    return routes


def _timeout(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise CliError(f"must be a number of seconds greater than 0, got {text!r}",
                       code="nx-agent-cli-usage", path="--timeout", exit_code=EXIT_USAGE)
    return seconds


def _require_token(tool: Any, args: argparse.Namespace) -> None:
    """An http tool's connection must have a token, unless ``--no-token`` says it needs none."""
    connection = tool.definition["config"]["connection"]["name"]
    if args.no_token or token_from_environment(connection) is not None:
        return
    raise CliError(
        f"tool '{tool.name}' sends its requests over the connection '{connection}', which has no token: "
        f"set {token_env_name(connection)} to its bearer token, or pass --no-token if it needs none",
        code="nx-agent-cli-no-token",
        path=tool.name,
        exit_code=EXIT_USAGE,
    )


def _http_request_function(agent: LoadedAgent, tool: Any, args: argparse.Namespace, timeout: float) -> Any:
    try:
        from ..http.client import request_with
    except ImportError:
        raise CliError(
            f"tool '{args.tool}' is an http tool; making its request needs httpx: pip install 'nx-agent[http]'",
            code="nx-agent-cli-missing-extra",
            path=args.tool,
            exit_code=EXIT_MISSING_EXTRA,
        ) from None
    routes = _base_url_routes(agent, args.base_url)
    _require_token(tool, args)
    inner = request_with(token_from_environment, timeout=timeout)
    return RoutedRequest(inner, routes) if routes else inner


def _cmd_call(args: argparse.Namespace, out: Output) -> int:
    if not args.call_id:
        raise CliError("give the call a non-empty id (its callId; an http tool's idempotency key)",
                       code="nx-agent-cli-usage", path="--call-id", exit_code=EXIT_USAGE)
    timeout = _timeout(args.timeout)
    request = _DeferredRequest()
    agent = _load(args, request)
    names = [tool.name for tool in agent]
    if args.tool not in names:
        raise CliError(
            f"the agent has no tool '{args.tool}' (its tools: {', '.join(names) or 'none'})",
            code="nx-agent-cli-unknown-tool",
            path=args.tool,
        )
    tool = agent[args.tool]
    if not hasattr(tool, "execute") or tool.kind not in ("function", "http"):
        runner = "the model's provider" if tool.kind == "provider" else f"the host of kind '{tool.kind}'"
        raise CliError(f"tool '{tool.name}' is run by {runner}, not by nx-agent", code="nx-agent-cli-not-runnable", path=tool.name)
    input_value = json_option(args.input, "--input")
    context = json_option(args.context, "--context") if args.context is not None else None
    if tool.kind == "http":
        request.inner = _http_request_function(agent, tool, args, timeout)
    elif args.base_url:
        raise CliError("--base-url is for http tools", code="nx-agent-cli-usage", path="--base-url", exit_code=EXIT_USAGE)
    elif args.no_token:
        raise CliError("--no-token is for http tools", code="nx-agent-cli-usage", path="--no-token", exit_code=EXIT_USAGE)
    refused = None
    if not args.no_schema_check:
        from ..agent.input_check import check_input

        refused = check_input(tool, input_value)
    result: Any = refused if refused is not None else tool.execute(input_value, call_id=args.call_id, context=context)
    if out.json:
        out.document(result)
        return EXIT_OK if result["ok"] else EXIT_FAILED
    usage = result.get("usage") or {}
    if result["ok"]:
        out.line(to_json(result["output"]))
        out.line(out.style.dim(usage_text(usage)))
        return EXIT_OK
    out.failure_text(result["error"], prefix=f"tool {tool.name} failed: ")
    if usage:
        out.note(usage_text(usage))
    return EXIT_FAILED


# ---------------------------------------------------------------------------------------- parsers


def _agent_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("definition", help="the stored definition (JSON, as compile wrote it)")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="the stored NX IR images")


def register(commands: Any, common: Sequence[argparse.ArgumentParser]) -> None:
    """Add ``compile``, ``tools`` and ``call`` to the subcommands."""
    compile_ = commands.add_parser(
        "compile", parents=common, help="compile an agent: link the images, evaluate root, write the definition",
        description="The compile half: link the images, evaluate the entry module's root, normalize the "
        "Agent it returns and check it; write the definition to store beside the images.",
    )
    compile_.add_argument("images", nargs="+", metavar="IMAGE", help="the program's NX IR images")
    compile_.add_argument("-o", "--output", required=True, metavar="DEFINITION", help="definition file to write")
    compile_.add_argument("--bundle", action="store_true",
                          help="write one file holding the definition, the images and the descriptions "
                          "(nx_agent.load_bundle loads it in one call)")
    compile_.add_argument("--descriptions", metavar="FILE",
                          help="descriptions document (JSON): the doc comments the images do not keep")
    compile_.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    compile_.add_argument("--root", default="root", help="the function that returns the Agent (default root)")
    compile_.add_argument("--tool-context-type", metavar="MODULE::NAME",
                          help="the host's tool context record, a ToolContext (e.g. context.nx::ChatToolContext)")
    compile_.add_argument("--allow-insecure-base-url", action="store_true", help="accept http: base URLs")
    compile_.set_defaults(run=_cmd_compile)

    tools = commands.add_parser(
        "tools", parents=common, help="list a stored agent's tools: name, kind, description, parameters",
        description="Load a stored agent (definition and images) and list its tools.",
    )
    _agent_arguments(tools)
    tools.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    tools.set_defaults(run=_cmd_tools)

    call = commands.add_parser(
        "call", parents=common, help="call one tool of a stored agent; print the result and usage",
        description="Load a stored agent and call one of its function or http tools. --input and --context "
        "are JSON, inline or @FILE; --input is checked against the tool's input schema first, as the MCP "
        "server does. An http tool's request is made with httpx (nx-agent[http]): no redirects, one "
        "timeout, with the bearer token of its connection from the environment variable "
        "NX_AGENT_TOKEN_<CONNECTION> (the name upper-cased, other characters than letters and digits as _); "
        "without one the call is refused unless --no-token is given. Exit 1 when the call fails with a code.",
    )
    call.add_argument("definition", help="the stored definition (JSON, as compile wrote it)")
    call.add_argument("images", nargs="+", metavar="IMAGE", help="the stored NX IR images")
    call.add_argument("tool", metavar="TOOL", help="the tool's name")
    call.add_argument("--input", required=True, metavar="JSON", help="the tool's input (a JSON object), or @FILE")
    call.add_argument("--call-id", required=True, metavar="ID", help="the call's id (callId)")
    call.add_argument("--context", metavar="JSON", help="the tool context record (JSON with $type), or @FILE")
    call.add_argument("--entry", default="main.nx", help="the entry module's identity (default main.nx)")
    call.add_argument("--max-operations", metavar="N",
                      help=f"operation budget of the call (default {NX_AGENT_DEFAULT_MAX_OPERATIONS:,})")
    call.add_argument("--max-arguments-size", metavar="N",
                      help=f"largest input size (default {NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE:,})")
    call.add_argument("--max-context-size", metavar="N",
                      help=f"largest context size (default {NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE:,})")
    call.add_argument("--max-call-depth", metavar="N",
                      help=f"deepest nesting of calls (default {DEFAULT_MAX_CALL_DEPTH:,})")
    call.add_argument("--max-range-length", metavar="N",
                      help=f"longest range a loop may run over (default {DEFAULT_MAX_RANGE_LENGTH:,})")
    call.add_argument("--max-memory", metavar="N",
                      help=f"bytes of values the call may allocate (default {DEFAULT_MAX_MEMORY:,}, 256 MiB)")
    call.add_argument("--no-schema-check", action="store_true",
                      help="skip the check of --input against the tool's input schema (the NX runtime "
                      "still checks the function's parameter types)")
    call.add_argument("--base-url", action="append", default=[], metavar="CONNECTION=URL",
                      help="send a connection's requests under another base URL (a staging or local server)")
    call.add_argument("--no-token", action="store_true",
                      help="send an http tool's requests without a bearer token (its connection needs none)")
    call.add_argument("--timeout", default="10", metavar="SECONDS",
                      help="timeout of one HTTP exchange (default 10)")
    call.set_defaults(run=_cmd_call)
