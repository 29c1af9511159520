"""The two halves of hosting an agent (the reference README's "where the compiler is" and "where
the tools run"), for a Python host:

- :func:`compile_agent` links the images, evaluates the entry module's ``root``, normalizes the
  ``Agent`` it returns (schemas from the program and its descriptions, or a given source), checks
  the definition against the program, and answers what to store: the definition text and the
  images.
- :func:`load_agent` takes what was stored, links the images and creates the tools: no schema
  work, no normalization, nothing but the IR runtime.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from ..ir import Limits, PreparedModule, Program, evaluate_function, link_program, prepare_module
from .check import check_agent_tools
from .create import create_agent_tools
from .definition import definition_text as write_definition_text
from .diagnostics import NxAgentDiagnostic, NxAgentError
from .execute import AgentExecutor, AgentHttpRequestFunction, AgentTool
from .host_tools import ToolDescriber
from .limits import (
    NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    NX_AGENT_DEFAULT_MAX_OPERATIONS,
)
from .normalize import normalize_agent
from .tool_functions import AgentSchemaSource

__all__ = ["CompiledAgent", "Images", "LoadedAgent", "compile_agent", "load_agent", "prepare_images"]

PRELUDE = "@nx/prelude.nx"
Image = Union[bytes, bytearray, memoryview, PreparedModule]
Images = Union[Mapping[str, Image], Iterable[Image]]
"""NX IR images: a mapping identity → image, or the images alone (each names its identity)."""

ROOT_BUDGET = 1_000_000
"""The operations ``compile_agent`` allows the evaluation of ``root``, unless told otherwise."""


def prepare_images(images: Images) -> dict[str, PreparedModule]:
    """Each image prepared, by the identity it declares (a mapping's keys must agree with it)."""
    prepared: dict[str, PreparedModule] = {}
    pairs: Iterable[tuple[str | None, Image]]
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


def _link(images: Images, entry: str, allow_version_mismatch: bool = False) -> Program:
    modules = prepare_images(images)
    if entry not in modules:
        raise ValueError(f"No image is the entry module '{entry}'; the images are {', '.join(sorted(modules)) or 'none'}.")
    return link_program(modules[entry], modules, allow_version_mismatch=allow_version_mismatch)


@dataclass(frozen=True)
class CompiledAgent:
    """What :func:`compile_agent` answers: store ``definition_text`` and ``images``."""

    definition: dict[str, Any]
    """The normalized definition (format version 1)."""
    definition_text: str
    """The definition as the reference package stores it, byte for byte."""
    images: dict[str, bytes]
    """Every image the program links (the built-in prelude aside), by identity, sorted."""
    program: Program
    """The linked program (the run-time half links its own from ``images``)."""
    warnings: list[NxAgentDiagnostic] = field(default_factory=list)
    """Warnings of normalization (``nx-agent-inexpressible-result``)."""


def compile_agent(
    images: Images,
    *,
    entry: str = "main.nx",
    root: str = "root",
    schemas: AgentSchemaSource | None = None,
    descriptions: Any = None,
    tool_context_type: Mapping[str, str] | None = None,
    tool_types: Mapping[str, ToolDescriber] | None = None,
    allow_insecure_base_url: bool = False,
    max_operations: int = ROOT_BUDGET,
) -> CompiledAgent:
    """Link ``images``, evaluate ``root`` of ``entry``, normalize and check the ``Agent`` it returns.

    ``schemas`` answers the tools' schemas; by default a
    :class:`~nx_agent.schema.ProgramSchemaSource` over the program and ``descriptions`` (a
    descriptions document or its path: the doc comments an image does not keep). The other options
    are :func:`~nx_agent.agent.normalize.normalize_agent`'s. Raises
    :class:`~nx_agent.NxIrError` when the images do not link or ``root`` fails, and
    :class:`~nx_agent.agent.diagnostics.NxAgentError` with every diagnostic when the agent does not
    normalize or its definition does not check.
    """
    program = _link(images, entry)
    agent = evaluate_function(program, root, limits=Limits(max_operations=max_operations)).value
    if schemas is None:
        from ..schema import ProgramSchemaSource

        schemas = ProgramSchemaSource(program, descriptions)
    normalized = normalize_agent(
        agent,
        schemas=schemas,
        tool_context_type=tool_context_type,
        tool_types=tool_types,
        allow_insecure_base_url=allow_insecure_base_url,
    )
    if not normalized.ok or normalized.definition is None:
        raise NxAgentError([d for d in normalized.diagnostics if d.severity == "error"] or normalized.diagnostics)
    definition = normalized.definition
    problems = check_agent_tools(definition, program)
    if problems:
        raise NxAgentError(problems)
    stored = {m.identity: m.to_bytes() for m in program.modules if m.identity != PRELUDE}
    return CompiledAgent(
        definition=definition,
        definition_text=write_definition_text(definition),
        images=dict(sorted(stored.items())),
        program=program,
        warnings=[d for d in normalized.diagnostics if d.severity == "warning"],
    )


@dataclass(frozen=True)
class LoadedAgent(Sequence[AgentTool]):
    """The tools of a stored agent, in definition order; ``agent["find_plans"]`` finds one by name."""

    definition: dict[str, Any]
    program: Program
    tools: list[AgentTool]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for tool in self.tools:
                if tool.name == key:
                    return tool
            raise KeyError(key)
        return self.tools[key]

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> Iterator[AgentTool]:
        return iter(self.tools)

    def stored(self) -> dict[str, Any]:
        """``load_agent``'s arguments for this agent, without the host's functions: the definition
        text, the images and the options, as plain data that always pickles. Where it arrives,
        ``load_agent(**stored, request=..., executors=...)`` makes the same tools."""
        from .travel import stored_arguments

        return stored_arguments(self)

    # Pickling and copying: :mod:`nx_agent.agent.travel` (the tools are made again from the
    # definition, the program, the options and the host's functions; a copy shares them).
    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        from .travel import reduce_agent

        return reduce_agent(self, protocol)

    def __copy__(self) -> LoadedAgent:
        return LoadedAgent(definition=self.definition, program=self.program, tools=list(self.tools))

    def __deepcopy__(self, memo: dict[int, Any]) -> LoadedAgent:
        import copy

        tools = [copy.deepcopy(tool, memo) for tool in self.tools]
        return LoadedAgent(definition=copy.deepcopy(self.definition, memo), program=self.program, tools=tools)


def load_agent(
    definition_text: str | bytes | Mapping[str, Any],
    images: Images,
    *,
    entry: str = "main.nx",
    request: AgentHttpRequestFunction | None = None,
    executors: Mapping[str, AgentExecutor] | None = None,
    max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: Mapping[str, Any] | Limits | None = None,
    validate_arguments: bool = False,
    allow_version_mismatch: bool = False,
) -> LoadedAgent:
    """Link the stored ``images`` and create the tools of the stored definition.

    ``definition_text`` is the stored text (or the parsed definition); the options are
    :func:`~nx_agent.agent.create.create_agent_tools`'s; ``allow_version_mismatch`` is
    :func:`~nx_agent.ir.link_program`'s. Raises :class:`~nx_agent.NxIrError` when the images do not link and :class:`~nx_agent.agent.diagnostics.NxAgentError` when the definition
    cannot run with them.
    """
    if isinstance(definition_text, (str, bytes)):
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
    )
    return LoadedAgent(definition=definition, program=program, tools=tools)
