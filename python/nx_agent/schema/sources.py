"""Schema sources: what the agent layer asks for a function's schema answer.

:class:`ProgramSchemaSource` derives answers from a linked program (plus optional
descriptions) and keeps each answer; :class:`StoredSchemaSource` serves answers the NX compiler
wrote beforehand (serialized ``functionSchema`` answers load as they are).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from os import PathLike
from typing import Any, Protocol, runtime_checkable

from .._native import Program
from .answers import DescriptionsInput, _descriptions, derive_function_schema
from .document import Meter
from .errors import unknown_declaration
from .model import ProgramModel

#: The ``@nx/agent`` tool context type, which a host fills in itself.
TOOL_CONTEXT: dict[str, str] = {"module": "@nx/agent/agent.nx", "name": "ToolContext"}


@runtime_checkable
class SchemaSource(Protocol):
    """Anything that answers ``function_schema(ref, host_supplied_types=...)`` with a function
    schema answer, raising an :class:`NxError` whose ``diagnostics`` hold a
    ``schema-unknown-declaration`` entry for a function it does not know."""

    def function_schema(
        self, ref: Mapping[str, Any], *, host_supplied_types: Iterable[Mapping[str, Any]] = ()
    ) -> dict[str, Any]: ...


def _ref_key(ref: Mapping[str, Any]) -> tuple[str | None, str]:
    return (ref.get("module"), str(ref.get("name")))


def _types_key(types: Iterable[Mapping[str, Any]]) -> tuple[tuple[str | None, str], ...]:
    return tuple(_ref_key(t) for t in types)


class ProgramSchemaSource:
    """Answers derived from ``program``'s images and ``descriptions``; each answer is built
    once per (reference, host-supplied types) and handed out as a copy. With ``max_chars``, the
    schemas of all its answers are made while their work together stays within that many
    characters of JSON (see :class:`~nx_agent.schema.document.Meter`); a schema past it is left
    out with ``schema-too-large``."""

    def __init__(self, program: Program, descriptions: DescriptionsInput = None, *, max_chars: int | None = None) -> None:
        self.program = program
        self.descriptions = _descriptions(descriptions)
        self.max_chars = max_chars
        self._model = ProgramModel(program)
        self._answers: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._meter = None if max_chars is None else Meter(max_chars)

    def __reduce__(self) -> tuple[Any, ...]:
        # The program (its own pickle), the descriptions and the budget; the answers are derived again.
        return (_restore_program_source, (self.program, self.descriptions, self.max_chars))

    def function_schema(
        self, ref: Mapping[str, Any], *, host_supplied_types: Iterable[Mapping[str, Any]] = ()
    ) -> dict[str, Any]:
        types = list(host_supplied_types)
        key = (_ref_key(ref), _types_key(types))
        answer = self._answers.get(key)
        if answer is None:
            answer = derive_function_schema(self._model, ref, types, self.descriptions, self._meter)
            self._answers[key] = answer
        return copy.deepcopy(answer)


def _restore_program_source(
    program: Program, descriptions: DescriptionsInput, max_chars: int | None
) -> ProgramSchemaSource:
    return ProgramSchemaSource(program, descriptions, max_chars=max_chars)


class StoredSchemaSource:
    """Answers the NX compiler wrote, served as stored.

    ``answers`` is a list of ``functionSchema`` answers (each with ``module`` and ``name``), an
    object ``{"functions": [...]}``, or a path to such a JSON file. A reference with no module
    matches by name when one stored answer has that name. The answers were computed with the
    host-supplied types the host passed to the compiler; they are returned whatever types are
    asked for, so store them with the types the agent layer uses (``TOOL_CONTEXT``).
    """

    def __init__(self, answers: Iterable[Mapping[str, Any]] | Mapping[str, Any] | str | PathLike[str]) -> None:
        data: Any = answers
        if isinstance(answers, (str, PathLike)):
            with open(answers, encoding="utf-8") as handle:
                data = json.load(handle)
        if isinstance(data, Mapping):
            data = data.get("functions", [data] if "name" in data else [])
        self._answers: dict[tuple[str, str], dict[str, Any]] = {}
        for answer in data:
            self._answers[(str(answer.get("module", "")), str(answer["name"]))] = copy.deepcopy(dict(answer))
        # A reference with no module matches by name: each name's answers, read once.
        self._by_name: dict[str, list[dict[str, Any]]] = {}
        for (_, name), answer in self._answers.items():
            self._by_name.setdefault(name, []).append(answer)

    def function_schema(
        self, ref: Mapping[str, Any], *, host_supplied_types: Iterable[Mapping[str, Any]] = ()
    ) -> dict[str, Any]:
        module, name = ref.get("module"), str(ref.get("name"))
        if module is not None:
            found = self._answers.get((str(module), name))
        else:
            matches = self._by_name.get(name, [])
            found = matches[0] if len(matches) == 1 else None
        if found is None:
            where = f"module '{module}'" if module is not None else "the stored answers"
            raise unknown_declaration(f"No schema answer for function '{name}' in {where}")
        return copy.deepcopy(found)
