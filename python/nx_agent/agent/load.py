"""The run-time half of hosting an agent, in one module: what a serverless cold start loads of the
agent layer is this module and :mod:`nx_agent.agent.execute` (each module imported is a few tenths
of a millisecond there). Nothing of normalization or schemas is loaded (see
:mod:`nx_agent.agent.compile` for the other half). In order:

- the limits a tool call runs under (agent-package §5.2): defaults, how a host's options are read,
  and the runtime :class:`~nx_agent.ir.Limits` of one tool's function. Every call gets the whole
  budget; a host raises or lowers the limits, and can turn none off: each given value must be a
  non-negative safe integer (``0 ≤ n ≤ 2**53 − 1``). :mod:`nx_agent.agent.limits` gives them too;
- ``check_agent_tools``: whether a stored definition can run with a linked program (§4).
  ``definition_problems`` and ``tool_shape_problem`` are the same checks in the form
  ``create_agent_tools`` builds on. :mod:`nx_agent.agent.check` gives them too;
- ``create_agent_tools`` and ``evaluate_http_arguments`` (§5.1, §5.8). Creation reads the limits,
  refuses an executor for one of the package's own kinds, runs the definition checks and adds its
  own (a request function for ``http`` tools, an executor for each host kind); with any problem it
  raises :class:`~nx_agent.agent.diagnostics.NxAgentError` holding all of them, and returns no
  tools. :mod:`nx_agent.agent.create` gives them too;
- :func:`load_agent`, which takes what was stored (definition text and images), links the images
  and creates the tools, and :func:`load_bundle`, which reads them from one file.
"""

import json
# collections.abc's own classes, from the module that defines them: collections.abc is one module
# more on a cold start (0.4 M instructions), and nothing else on the path loads it.
from _collections_abc import Iterable, Mapping, Sequence

from . import Record
from .. import _lazy_names as lazy_names
from .._native import Limits, PreparedModule, Program, link_program, measure_input_size, prepare_module
from .execute import AgentTool, FunctionAgentTool, PreparedCall, failure

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from collections.abc import Iterator
    from os import PathLike
    from typing import Any, Union

    from ..errors import AgentExecutorError, AgentOptionError, BundleError
    from .cancel import CancelToken
    from .diagnostics import NxAgentDiagnostic
    from .execute_host import AgentExecutor
    from .execute_http import AgentHttpRequestFunction
    from .results import ToolFailure

__all__ = [
    "AgentExecutorError",
    "AgentOptionError",
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "CallLimits",
    "DefinitionProblems",
    "EvaluateHttpArgumentsResult",
    "Images",
    "LoadedAgent",
    "NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE",
    "NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE",
    "NX_AGENT_DEFAULT_MAX_OPERATIONS",
    "SUPPORTED_FORMAT_VERSIONS",
    "check_agent_tools",
    "create_agent_tools",
    "definition_problems",
    "evaluate_http_arguments",
    "load_agent",
    "load_bundle",
    "name_cost",
    "prepare_images",
    "read_bundle",
    "read_call_limits",
    "tool_shape_problem",
]

# The refusals' classes are made by nx_agent.errors, loaded with the first refusal (nx_agent._lazy_names).
__getattr__, __dir__ = lazy_names(__name__, globals(), {"nx_agent.errors": ("AgentExecutorError", "AgentOptionError")})


# --- The limits of a call (§5.2) ---------------------------------------------------------------

NX_AGENT_DEFAULT_MAX_OPERATIONS = 100_000
"""The budget of one call, in operations, when the host sets none."""
NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE = 1_000
"""The cap on the input size of what the model sends, when the host sets none."""
NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE = 1_000
"""The cap on the input size of the host's context record (with ``callId`` set)."""

_MAX_SAFE_INTEGER = 2**53 - 1
# Runtime options a host may pass through; the input limit is the package's to compute.
_RUNTIME_OPTIONS = ("max_call_depth", "max_range_length", "max_memory")

def _option_refused(message: str) -> "AgentOptionError":
    from ..errors import AgentOptionError

    return AgentOptionError(message)


def _limit(name: str, value: object) -> int:
    """A limit option: a non-negative safe integer (an integral float is read as one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _option_refused(f"{name} must be a non-negative safe integer, got {value!r}.")
    if isinstance(value, float):
        if not value.is_integer():  # false for infinities and NaN too
            raise _option_refused(f"{name} must be a non-negative safe integer, got {value!r}.")
        value = int(value)
    if not 0 <= value <= _MAX_SAFE_INTEGER:
        raise _option_refused(f"{name} must be a non-negative safe integer, got {value!r}.")
    return value


class CallLimits(Record):
    """The limits every call of a set of tools runs under."""

    __slots__ = (
        "max_operations", "max_arguments_size", "max_context_size", "max_call_depth", "max_range_length", "max_memory"
    )
    _defaults = {
        "max_operations": NX_AGENT_DEFAULT_MAX_OPERATIONS,
        "max_arguments_size": NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
        "max_context_size": NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
        "max_call_depth": None,
        "max_range_length": None,
        "max_memory": None,
    }

    max_operations: int
    max_arguments_size: int
    max_context_size: int
    max_call_depth: "int | None"
    max_range_length: "int | None"
    max_memory: "int | None"
    """Bytes of values one call may allocate (``None``: the runtime's default, 256 MiB)."""

    def __init__(
        self,
        max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
        max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
        max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
        max_call_depth: "int | None" = None,
        max_range_length: "int | None" = None,
        max_memory: "int | None" = None,
    ) -> None:
        super().__init__(
            max_operations, max_arguments_size, max_context_size, max_call_depth, max_range_length, max_memory
        )

    def runtime_limits(self, reference: "Mapping[str, str]", context_parameters: "Sequence[str]") -> "Limits":
        """The runtime limits of one function's calls. The input limit is the function record, the
        model's cap, and per context parameter the context's cap and what its name costs, so it
        never refuses a call that passed the package's own two checks."""
        function_record = {"$type": "Function", "module": reference["module"], "name": reference["name"]}
        max_input_size = self.max_arguments_size + measure_input_size(function_record)
        for name in context_parameters:
            max_input_size += self.max_context_size + name_cost(name)
        return Limits(
            max_operations=self.max_operations,
            max_input_size=max_input_size,
            max_call_depth=self.max_call_depth,
            max_range_length=self.max_range_length,
            max_memory=self.max_memory,
        )


def name_cost(name: str) -> int:
    """What a field name adds to a record's input size: ``⌊UTF-16 length / 64⌋``."""
    return measure_input_size({name: 0}) - 2


def read_call_limits(
    *,
    max_operations: object = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: object = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: object = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "Mapping[str, Any] | Limits | None" = None,
) -> "CallLimits":
    """Read a host's limit options, raising :class:`AgentOptionError` for a value that is not a
    non-negative safe integer, and ``TypeError`` for a runtime option the package does not pass on.

    ``runtime`` holds the IR runtime's other limits, ``max_call_depth``, ``max_range_length`` and
    ``max_memory`` (a mapping, or an :class:`~nx_agent.ir.Limits` whose budget and input limit are
    not used): the budget is ``max_operations``, and the input limit the package computes per
    function.
    """
    depth: "int | None" = None
    ranges: "int | None" = None
    memory: "int | None" = None
    if isinstance(runtime, Limits):
        depth, ranges, memory = runtime.max_call_depth, runtime.max_range_length, runtime.max_memory
    elif runtime is not None:
        unknown = sorted(set(runtime) - {*_RUNTIME_OPTIONS, "max_input_size"})
        if unknown:
            raise TypeError(
                f"runtime options {', '.join(map(repr, unknown))} are not passed on: the budget is "
                "max_operations, and the input limit is the package's to compute."
            )
        if runtime.get("max_call_depth") is not None:
            depth = _limit("runtime.max_call_depth", runtime["max_call_depth"])
        if runtime.get("max_range_length") is not None:
            ranges = _limit("runtime.max_range_length", runtime["max_range_length"])
        if runtime.get("max_memory") is not None:
            memory = _limit("runtime.max_memory", runtime["max_memory"])
    return CallLimits(
        max_operations=_limit("max_operations", max_operations),
        max_arguments_size=_limit("max_arguments_size", max_arguments_size),
        max_context_size=_limit("max_context_size", max_context_size),
        max_call_depth=depth,
        max_range_length=ranges,
        max_memory=memory,
    )


# --- The definition checks (§4) ------------------------------------------------------------

#: agent/definition.py's AGENT_DEFINITION_FORMAT_VERSION (tests/test_bundle.py holds them equal),
#: written here so that a check loads no definition module.
SUPPORTED_FORMAT_VERSIONS: "tuple[int, ...]" = (1,)


class DefinitionProblems(Record):
    """The tools read from a definition, the indices of those too damaged to read further, and the diagnostics."""

    __slots__ = ("tools", "damaged", "diagnostics")
    _defaults: "dict[str, Any]" = {"damaged": frozenset(), "diagnostics": []}

    tools: "list[Any]"
    damaged: "frozenset[int]"
    diagnostics: "list[NxAgentDiagnostic]"

    def __init__(
        self, tools: "list[Any]", damaged: "frozenset[int]" = frozenset(), diagnostics: "list[NxAgentDiagnostic] | None" = None
    ) -> None:
        super().__init__(tools, damaged, [] if diagnostics is None else diagnostics)


def _diagnostic(*fields: "Any") -> "NxAgentDiagnostic":
    from .diagnostics import NxAgentDiagnostic  # the problems' path only

    return NxAgentDiagnostic(*fields)


def _get(mapping: "Mapping[str, Any]", key: str) -> "Any":
    """``mapping.get(key, MISSING)``, the absent value (:data:`nx_agent._missing.MISSING`) loaded only
    when a key is absent: a definition that is whole never needs it."""
    try:
        return mapping[key]
    except KeyError:
        from .._missing import MISSING

        return MISSING


def describe_value(value: object) -> str:
    """How a message shows a value (:func:`nx_agent._js.describe_value`), loaded for a message only."""
    from .._js import describe_value as describe

    return describe(value)


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_declaration_name(value: object) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("module"), str) and isinstance(value.get("name"), str)


def tool_shape_problem(tool: object) -> "str | None":
    """Why one stored tool does not have the shape the package wrote, or ``None``.

    Checks every member read before a call; what a call reads (method, path, base URL) the
    request builder checks at the call.
    """
    if not isinstance(tool, Mapping):
        return f"it is {describe_value(tool)}, not a tool"
    for member in ("name", "kind"):
        held = _get(tool, member)
        if not isinstance(held, str):
            return f"its '{member}' is {describe_value(held)}, not a string"
    kind = tool["kind"]
    if kind not in ("function", "http"):
        return None
    config = _get(tool, "config")
    if not isinstance(config, Mapping):
        return f"its 'config' is {describe_value(config)}, not a record"
    reference = "function" if kind == "function" else "arguments"
    held_reference = _get(config, reference)
    if not _is_declaration_name(held_reference):
        return (
            f"its 'config.{reference}' is {describe_value(held_reference)}, "
            "not the module and the name of a function"
        )
    parameters = _get(config, "contextParameters")
    if not isinstance(parameters, (list, tuple)):
        return f"its 'config.contextParameters' is {describe_value(parameters)}, not a list"
    if not all(isinstance(parameter, Mapping) and isinstance(parameter.get("name"), str) for parameter in parameters):
        return "its 'config.contextParameters' is a list that holds something other than a parameter with a 'name'"
    if kind == "http":
        connection = _get(config, "connection")
        if not (isinstance(connection, Mapping) and isinstance(connection.get("name"), str)):
            return f"its 'config.connection' is {describe_value(connection)}, not a connection with a 'name'"
    return None


def _is_supported_version(version: object) -> bool:
    return is_number(version) and version in SUPPORTED_FORMAT_VERSIONS


def _declares_function(program: "Program", module: str, name: str) -> bool:
    prepared = program.module(module)
    return prepared is not None and name in prepared.functions


def definition_problems(definition: object, program: "Program") -> "DefinitionProblems":
    """Every problem of a definition (or a bare tool list) that does not depend on how it will run.

    An unsupported format version is reported alone; a definition that is not one, or whose
    ``tools`` is not a list, stops the check. Each damaged tool is reported and skipped; each other
    ``function``/``http`` tool must name a function the linked ``program`` declares.
    """
    diagnostics: "list[NxAgentDiagnostic]" = []
    tools: "list[Any]"
    if isinstance(definition, (list, tuple)):
        tools = list(definition)
    elif not isinstance(definition, Mapping):
        diagnostics.append(
            _diagnostic(
                "error",
                "nx-agent-invalid-definition",
                f"The definition is {describe_value(definition)}, not a definition or a list of tools.",
                "",
            )
        )
        return DefinitionProblems(tools=[], diagnostics=diagnostics)
    else:
        version = _get(definition, "formatVersion")
        if not _is_supported_version(version):
            from .._js import js_json

            shown = js_json(version)
            supported = ", ".join(str(one) for one in SUPPORTED_FORMAT_VERSIONS)
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-unsupported-format",
                    f"The definition has format version {shown}, and this package supports {supported}.",
                    "formatVersion",
                )
            )
            return DefinitionProblems(tools=[], diagnostics=diagnostics)
        held = _get(definition, "tools")
        if not isinstance(held, (list, tuple)):
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-invalid-definition",
                    f"The definition's 'tools' is {describe_value(held)}, not a list.",
                    "tools",
                )
            )
            return DefinitionProblems(tools=[], diagnostics=diagnostics)
        tools = list(held)

    damaged: "set[int]" = set()
    for index, tool in enumerate(tools):
        path = f"tools[{index}]"
        problem = tool_shape_problem(tool)
        if problem is not None:
            name = tool.get("name") if isinstance(tool, Mapping) else None
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-invalid-definition",
                    f"{path} of the definition cannot be run: {problem}.",
                    path,
                    name if isinstance(name, str) else None,
                )
            )
            damaged.add(index)
            continue
        kind = tool["kind"]
        if kind not in ("function", "http"):
            continue
        reference: "Mapping[str, str]" = tool["config"]["function" if kind == "function" else "arguments"]
        if not _declares_function(program, reference["module"], reference["name"]):
            diagnostics.append(
                _diagnostic(
                    "error",
                    "nx-agent-unknown-function",
                    f"Tool '{tool['name']}' names the function '{reference['name']}' of module "
                    f"'{reference['module']}', which the linked program does not declare.",
                    path,
                    tool["name"],
                    {"module": reference["module"]},
                )
            )
    return DefinitionProblems(tools=tools, damaged=frozenset(damaged), diagnostics=diagnostics)


def check_agent_tools(definition: object, program: "Program") -> "list[NxAgentDiagnostic]":
    """The diagnostics that keep ``definition`` from running with ``program``; empty when it can.

    ``definition`` is a definition or a bare list of its tools (no format check then). Needs no
    executors and no request function: the problems reported are ``nx-agent-unsupported-format``,
    ``nx-agent-invalid-definition`` and ``nx-agent-unknown-function``.
    """
    return definition_problems(definition, program).diagnostics


# --- Creating the tools (§5.1, §5.8) -------------------------------------------------------

_OWN_KINDS = {
    "function": "which the package runs itself",
    "http": "which the package runs itself",
    "provider": "which the package describes and never runs",
}

RuntimeOptions = Mapping[str, "Any"] | Limits | None

def _context_names(config: "Mapping[str, Any]") -> "list[str]":
    return [parameter["name"] for parameter in config["contextParameters"]]


def _prepare(program: "Program", tool: "Mapping[str, Any]", limits: "CallLimits", check: bool = False) -> "PreparedCall":
    config = tool["config"]
    reference = config["function"] if tool["kind"] == "function" else config["arguments"]
    if check:
        from .input_check import InputCheck

    input_check = InputCheck(tool["name"], tool["inputSchema"]) if check else None
    return PreparedCall(program, reference, _context_names(config), tool["name"], limits, input_check)


def create_agent_tools(
    definition: "Mapping[str, Any] | Sequence[Mapping[str, Any]]",
    program: "Program",
    *,
    request: "AgentHttpRequestFunction | None" = None,
    executors: "Mapping[str, AgentExecutor] | None" = None,
    max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "RuntimeOptions" = None,
    validate_arguments: bool = False,
    tool_limits: "Mapping[str, Mapping[str, int]] | None" = None,
) -> "list[AgentTool]":
    """One tool per stored tool, in order, each with ``execute``/``aexecute`` except ``provider`` tools.

    ``definition`` is a stored definition (a dict) or its bare tool list; ``program`` the linked
    program its functions are in. ``request`` makes the requests of ``http`` tools (required when
    there is one); ``executors`` maps each host kind to the function that runs its tools. Every call
    gets ``max_operations``, a model input up to ``max_arguments_size`` and a context record up to
    ``max_context_size``; ``runtime`` passes the runtime's ``max_call_depth``, ``max_range_length``
    and ``max_memory`` (a mapping or an :class:`~nx_agent.ir.Limits`; a call past ``max_memory``,
    bytes of values, is a ``resource-limit`` result with limit ``memory``).
    ``validate_arguments=True`` makes each ``function`` and ``http`` tool check its input against its
    input schema before it evaluates anything (:mod:`nx_agent.agent.input_check`: a refusal is an
    ``invalid-input`` result with no usage); by default the runtime checks the arguments against the
    parameter types, as agent-package §5.3 does. ``tool_limits`` gives a tool its own limits by its
    name (``{"find_plans": {"max_operations": 500}}``; what it leaves out is the shared limit), as
    ``nx-agent cost budget`` recommends them.

    Raises :class:`~nx_agent.agent.limits.AgentOptionError` for a limit that is not a non-negative
    safe integer, :class:`AgentExecutorError` for an executor of a package kind, and
    :class:`~nx_agent.agent.diagnostics.NxAgentError` with every problem of the definition.
    """
    limits = read_call_limits(
        max_operations=max_operations,
        max_arguments_size=max_arguments_size,
        max_context_size=max_context_size,
        runtime=runtime,
    )
    executors = dict(executors or {})
    for kind, what in _OWN_KINDS.items():
        if kind in executors:
            from ..errors import AgentExecutorError

            raise AgentExecutorError(f"An executor is registered for the kind '{kind}', {what}.")
    problems = definition_problems(definition, program)
    diagnostics = list(problems.diagnostics)
    for index, tool in enumerate(problems.tools):
        if index in problems.damaged:
            continue
        kind, name, path = tool["kind"], tool["name"], f"tools[{index}]"
        if kind == "http" and request is None:
            from .diagnostics import NxAgentDiagnostic  # the problems' path only

            diagnostics.append(
                NxAgentDiagnostic(
                    "error",
                    "nx-agent-missing-request-function",
                    f"Tool '{name}' is an http tool, and no 'request' function was supplied to make its requests.",
                    path,
                    name,
                )
            )
        elif kind not in _OWN_KINDS and kind not in executors:
            from .diagnostics import NxAgentDiagnostic

            diagnostics.append(
                NxAgentDiagnostic(
                    "error",
                    "nx-agent-missing-executor",
                    f"Tool '{name}' is of kind '{kind}', and no executor is registered for that kind.",
                    path,
                    name,
                )
            )
    if diagnostics:
        from .diagnostics import NxAgentError

        raise NxAgentError(diagnostics)
    tools: "list[AgentTool]" = []
    own_limits = {
        name: read_call_limits(
            max_operations=given.get("max_operations", max_operations),
            max_arguments_size=given.get("max_arguments_size", max_arguments_size),
            max_context_size=given.get("max_context_size", max_context_size),
            runtime=runtime,
        )
        for name, given in (tool_limits or {}).items()
    }
    for tool in problems.tools:
        kind = tool["kind"]
        tool_call_limits = own_limits.get(tool["name"], limits)
        if kind == "function":
            tools.append(FunctionAgentTool(tool, _prepare(program, tool, tool_call_limits, validate_arguments)))
        elif kind == "http":
            assert request is not None
            from .execute_http import HttpAgentTool  # the first http tool loads it

            tools.append(HttpAgentTool(tool, _prepare(program, tool, tool_call_limits, validate_arguments), request))
        elif kind == "provider":
            tools.append(AgentTool(tool))
        else:
            from .execute_host import HostAgentTool  # the first tool of a host kind loads it

            tools.append(HostAgentTool(tool, executors[kind]))
    return tools


if TYPE_CHECKING:
    EvaluateHttpArgumentsResult = Union[dict[str, Any], ToolFailure]
else:
    EvaluateHttpArgumentsResult = dict  # the same at run time: both are dicts
"""``{"ok": True, "arguments", "request", "usage"}``, or a failed result."""


def evaluate_http_arguments(
    tool: "Mapping[str, Any]",
    program: "Program",
    input: "Any",
    *,
    call_id: str,
    context: "Any" = None,
    cancel: "CancelToken | None" = None,
    max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "RuntimeOptions" = None,
) -> "EvaluateHttpArgumentsResult":
    """Evaluate an ``http`` tool's arguments and build its request, sending nothing (§5.8).

    Answers ``{"ok": True, "arguments", "request", "usage"}``; a failure is the result ``execute``
    would answer for the same call (a damaged or non-``http`` tool is ``invalid-request``). Raises only
    for a limit option that cannot be used."""
    limits = read_call_limits(
        max_operations=max_operations,
        max_arguments_size=max_arguments_size,
        max_context_size=max_context_size,
        runtime=runtime,
    )
    problem = tool_shape_problem(tool)
    if problem is not None:
        return failure("invalid-request", f"The tool cannot be run: {problem}.")
    if tool["kind"] != "http":
        return failure("invalid-request", f"Tool '{tool['name']}' is of kind '{tool['kind']}', not 'http'.")
    from .execute_http import HttpAgentTool

    http_tool = HttpAgentTool(tool, _prepare(program, tool, limits), _never_called)
    prepared = http_tool.prepare(input, call_id, context, cancel)
    if isinstance(prepared, dict):
        return prepared
    call = prepared.call
    return {"ok": True, "arguments": call["arguments"], "request": call["request"], "usage": prepared.usage}


def _never_called(call: "dict[str, Any]") -> "Mapping[str, Any]":
    raise AssertionError("evaluate_http_arguments sends nothing")


# --- Loading what was stored: images, definitions, bundles -----------------------------------

#: The bundle format (:mod:`nx_agent.bundle` writes it): read here, where it loads, so that a bundle
#: loads with one module of the agent layer fewer.
BUNDLE_FORMAT = "nx-agent-bundle"
BUNDLE_VERSION = 1

PRELUDE = "@nx/prelude.nx"
Image = bytes | bytearray | memoryview | PreparedModule
Images = Mapping[str, Image] | Iterable[Image]
"""NX IR images: a mapping identity → image, or the images alone (each names its identity)."""

def prepare_images(images: "Images") -> "dict[str, PreparedModule]":
    """Each image prepared, by the identity it declares (a mapping's keys must agree with it)."""
    prepared: "dict[str, PreparedModule]" = {}
    pairs: "Iterable[tuple[str | None, Image]]"
    if isinstance(images, Mapping):
        pairs = images.items()
    else:
        pairs = ((None, image) for image in images)
    for key, image in pairs:
        module = image if isinstance(image, PreparedModule) else prepare_module(bytes(image))
        if key is not None and key != module.identity:
            raise ValueError(f"The image given as '{key}' is the module '{module.identity}'.")
        prepared[module.identity] = module
    return prepared


def _link(images: "Images", entry: str, allow_version_mismatch: bool = False) -> "Program":
    modules = prepare_images(images)
    if entry not in modules:
        raise ValueError(f"No image is the entry module '{entry}'; the images are {', '.join(sorted(modules)) or 'none'}.")
    return link_program(modules[entry], modules, allow_version_mismatch=allow_version_mismatch)


class LoadedAgent(Record, Sequence["AgentTool"]):
    """The tools of a stored agent, in definition order; ``agent["find_plans"]`` finds one by name."""

    __slots__ = ("definition", "program", "tools")

    definition: "dict[str, Any]"
    program: "Program"
    tools: "list[AgentTool]"

    def __init__(self, definition: "dict[str, Any]", program: "Program", tools: "list[AgentTool]") -> None:
        super().__init__(definition, program, tools)

    def __getitem__(self, key: "Any") -> "Any":
        if isinstance(key, str):
            for tool in self.tools:
                if tool.name == key:
                    return tool
            raise KeyError(key)
        return self.tools[key]

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> "Iterator[AgentTool]":
        return iter(self.tools)

    def stored(self) -> "dict[str, Any]":
        """``load_agent``'s arguments for this agent, without the host's functions: the definition
        text, the images and the options, as plain data that always pickles. Where it arrives,
        ``load_agent(**stored, request=..., executors=...)`` makes the same tools."""
        from .travel import stored_arguments

        return stored_arguments(self)

    # Pickling and copying: :mod:`nx_agent.agent.travel` (the tools are made again from the
    # definition, the program, the options and the host's functions; a copy shares them).
    def __reduce_ex__(self, protocol: "Any") -> "tuple[Any, ...]":
        from .travel import reduce_agent

        return reduce_agent(self, protocol)

    def __copy__(self) -> "LoadedAgent":
        return LoadedAgent(self.definition, self.program, list(self.tools))

    def __deepcopy__(self, memo: "dict[int, Any]") -> "LoadedAgent":
        import copy

        tools = [copy.deepcopy(tool, memo) for tool in self.tools]
        return LoadedAgent(copy.deepcopy(self.definition, memo), self.program, tools)


def load_agent(
    definition_text: "str | bytes | Mapping[str, Any]",
    images: "Images",
    *,
    entry: str = "main.nx",
    request: "AgentHttpRequestFunction | None" = None,
    executors: "Mapping[str, AgentExecutor] | None" = None,
    max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "Mapping[str, Any] | Limits | None" = None,
    validate_arguments: bool = False,
    allow_version_mismatch: bool = False,
    tool_limits: "Mapping[str, Mapping[str, int]] | None" = None,
) -> "LoadedAgent":
    """Link the stored ``images`` and create the tools of the stored definition.

    ``definition_text`` is the stored text (or the parsed definition); the options are
    :func:`~nx_agent.agent.create.create_agent_tools`'s; ``allow_version_mismatch`` is
    :func:`~nx_agent.ir.link_program`'s. Raises :class:`~nx_agent.NxIrError` when the images do
    not link and :class:`~nx_agent.agent.diagnostics.NxAgentError` when the definition cannot run
    with them. ``agent["find_plans"]`` is a tool by name; iterate for all of them.

    ``request`` makes the requests of ``http`` tools (needed when the definition has one). For
    each call it is handed one dict, the request already built and checked::

        {"request": {"method": "GET", "url": "https://api.example.com/orders/A1",
                     "headers": {...}, "body": "..."},          # body only when there is one
         "arguments": {"pathParams": [...], "query": [...], "body": ...},  # what NX evaluated
         "callId": "turn-1:0", "toolName": "lookup_order", "connection": "shop",
         "annotations": {"readOnlyHint": True, ...},
         "cancel": CancelToken}                                # from execute(..., cancel=...) only

    and answers the response as ``{"status": 200, "body": ...}`` (the whole answer becomes the
    tool's output; a non-2xx status is an answer, not a failure), or an awaitable of it for
    ``aexecute``. To choose the failure code it raises
    :class:`~nx_agent.NxAgentToolError` (``NxAgentToolError("request-failed", "...")``); any other
    exception is ``request-failed`` with its text. ``nx_agent.http.client.request_with(token_for)``
    is one over ``httpx`` (bearer tokens, no redirects, a timeout, a body cap). The request
    function and ``executors`` travel with a pickled agent when they pickle themselves; otherwise
    pickling raises ``HostFunctionNotPicklable``: send ``agent.stored()`` and load it again here.

    Each tool's ``execute(input, call_id=...)`` never raises for a tool failure; it answers::

        {"ok": True, "output": [...], "usage": {"operations": 17, "inputSize": 5}}
        {"ok": False, "error": {"code": "invalid-input", "message": "Expected teamSize to be a number.",
                                "diagnostics": [...]},   # diagnostics and limit when there are some
         "usage": {"operations": 1, "inputSize": 5}}     # usage once the call began
    """
    if isinstance(definition_text, (str, bytes)):
        import json

        definition = json.loads(definition_text)
    else:
        definition = dict(definition_text)
    program = _link(images, entry, allow_version_mismatch)
    tools = create_agent_tools(
        definition,
        program,
        request=request,
        executors=executors,
        max_operations=max_operations,
        max_arguments_size=max_arguments_size,
        max_context_size=max_context_size,
        runtime=runtime,
        validate_arguments=validate_arguments,
        tool_limits=tool_limits,
    )
    return LoadedAgent(definition, program, tools)


def read_bundle(source: "bytes | str | PathLike[str]") -> "dict[str, Any]":
    """A bundle's parts: ``{"entry", "definition", "images": {identity: bytes}, "descriptions"?}``.
    ``source`` is the bundle's bytes or a path to it."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        with open(source, "rb") as handle:
            data = handle.read()
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise _bundle_refused(f"The bundle is not JSON: {error}.") from None
    if not isinstance(document, dict) or document.get("format") != BUNDLE_FORMAT:
        raise _bundle_refused(f"The document is not an {BUNDLE_FORMAT} (its 'format' is not '{BUNDLE_FORMAT}').")
    if document.get("version") != BUNDLE_VERSION:
        raise _bundle_refused(f"The bundle's version is {document.get('version')!r}; this nx-agent reads version {BUNDLE_VERSION}.")
    entry, definition, images = document.get("entry"), document.get("definition"), document.get("images")
    if not isinstance(entry, str) or not isinstance(definition, dict) or not isinstance(images, dict):
        raise _bundle_refused("A bundle holds 'entry' (a string), 'definition' (an object) and 'images' (an object).")
    decoded: "dict[str, bytes]" = {}
    for identity, text in images.items():
        try:
            image = bytes.fromhex(text) if isinstance(text, str) else None
        except ValueError:
            image = None
        if image is None:
            raise _bundle_refused(f"The image '{identity}' of the bundle is not hex text.")
        decoded[identity] = image
    parts: "dict[str, Any]" = {"entry": entry, "definition": definition, "images": decoded}
    if "descriptions" in document:
        parts["descriptions"] = document["descriptions"]
    return parts


def load_bundle(source: "bytes | str | PathLike[str]", **options: "Any") -> "LoadedAgent":
    """The tools of the agent a bundle holds, in one call: ``load_bundle(path, request=...)``.
    ``options`` are :func:`load_agent`'s (``request``, ``executors``, limits,
    ``validate_arguments``). Raises :class:`BundleError` for a file that is not a bundle, and what
    ``load_agent`` raises for images or a definition that cannot run."""
    parts = read_bundle(source)
    return load_agent(parts["definition"], parts["images"], entry=parts["entry"], **options)


def _bundle_refused(message: str) -> "BundleError":
    from ..errors import BundleError

    return BundleError(message)
