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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..ir import Limits, Program, evaluate_function
from .check import check_agent_tools
from .definition import definition_text as write_definition_text
from .diagnostics import NxAgentDiagnostic, NxAgentError
from .host_tools import ToolDescriber
from .load import PRELUDE, Image, Images, LoadedAgent, _link, load_agent, prepare_images
from .normalize import normalize_agent
from .tool_functions import AgentSchemaSource

__all__ = ["CompiledAgent", "Image", "Images", "LoadedAgent", "compile_agent", "load_agent", "prepare_images", "PRELUDE", "_link"]

ROOT_BUDGET = 1_000_000
"""The operations ``compile_agent`` allows the evaluation of ``root``, unless told otherwise."""


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


#: The JSON text an agent's tools (and their diagnostics) may take, in characters: this plus
#: ``DEFINITION_CHARS_PER_IMAGE_BYTE`` per byte of the program's images. Each tool holds its
#: function's schemas, and an agent can list one function any number of times.
DEFINITION_BASE_CHARS = 4 << 20
DEFINITION_CHARS_PER_IMAGE_BYTE = 16


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
    normalize or its definition does not check, and with ``nx-agent-definition-too-large`` when
    its tools would pass :data:`DEFINITION_BASE_CHARS` plus :data:`DEFINITION_CHARS_PER_IMAGE_BYTE`
    characters of JSON per image byte.
    """
    program = _link(images, entry)
    agent = evaluate_function(program, root, limits=Limits(max_operations=max_operations)).value
    budget = DEFINITION_BASE_CHARS + DEFINITION_CHARS_PER_IMAGE_BYTE * sum(m.size for m in program.modules)
    if schemas is None:
        from ..schema import ProgramSchemaSource

        # The schemas' work is charged at about twice the text they write (a mention and its
        # text), so twice the definition's budget: the tools' schemas, refused ones included.
        schemas = ProgramSchemaSource(program, descriptions, max_chars=2 * budget)
    normalized = normalize_agent(
        agent,
        schemas=schemas,
        tool_context_type=tool_context_type,
        tool_types=tool_types,
        allow_insecure_base_url=allow_insecure_base_url,
        max_chars=budget,
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
