"""Descriptions: what a host stores beside its images because an image does not carry it.

An NX IR image keeps a program's types and code but not:

* doc comments (``///``) of functions, parameters, records, fields, unions and cases;
* the result type of a function declared without one (the compiler infers it);
* the target of a type alias (an alias's uses are resolved, the alias itself is a bare name);
* the type arguments of an applied generic record (``<Page T=Plan />`` is stored as ``Page``,
  its parameter-typed fields as ``object``);
* whether an optional field was declared ``f?:T+`` or ``f:T*`` (both are stored as ``T*``);
* spans of parameters and fields (only whole declarations have spans, in the debug section).

The descriptions document supplies the first three; the last three are not recoverable, and the
mapping writes what the image does say (which is what a runtime checks). The document is JSON::

    {
      "modules": {
        "main.nx": {
          "functions": {
            "findPlans": {
              "description": "Finds the plans that fit a team.\\n\\nPlans are sorted by price.",
              "summary": "Finds the plans that fit a team.",
              "parameters": {"teamSize": "Number of people who need a seat."},
              "resultType": "Plan*"
            }
          },
          "types": {
            "Plan": {"description": "A plan a team can buy.", "fields": {"name": "The display name."}},
            "Billing": {"description": "How a plan is billed.", "cases": {"yearly": "Billed once a year."}},
            "Event": {"cases": {"clicked": {"description": "The user clicked.", "fields": {"x": "…"}}}},
            "Names": {"description": "Names of people.", "alias": "string+"}
          }
        }
      }
    }

Every member is optional. ``summary`` defaults to the first paragraph of ``description``. A case
is a description string, or ``{"description", "fields"}``. Doc text is Markdown, written as the
compiler renders it (a doc link ``[x]`` as `` `x` ``).

:func:`load_descriptions` also reads the NX compiler's own ``functionSchema`` answers, serialized
(one answer, a list of them, or an object whose values are answers): it takes the function's
description, summary, parameter descriptions and result type, and the descriptions of the
records, unions and fields its ``$defs`` name (matched by ``$defs`` key = declared name, in any
module).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

from .._native import NxError

ANY_MODULE = "*"
_CASE_LINE = re.compile(r"^- `([^`]+)`: (.*)$")


def summary_of(description: str) -> str:
    """The first paragraph of a Markdown description."""
    return description.strip().split("\n\n", 1)[0].strip()


class DescriptionsError(NxError):
    """A descriptions document that is not in the expected format."""

    code = "schema-descriptions"


@dataclass
class CaseDoc:
    description: str | None = None
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class TypeDoc:
    description: str | None = None
    summary: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    cases: dict[str, CaseDoc] = field(default_factory=dict)
    alias: str | None = None


@dataclass
class FunctionDoc:
    description: str | None = None
    summary: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)
    result_type: str | None = None


@dataclass
class Descriptions:
    """Per module identity (or :data:`ANY_MODULE`), the docs of functions and types."""

    functions: dict[tuple[str, str], FunctionDoc] = field(default_factory=dict)
    types: dict[tuple[str, str], TypeDoc] = field(default_factory=dict)

    def function(self, module: str, name: str) -> FunctionDoc | None:
        return self.functions.get((module, name)) or self.functions.get((ANY_MODULE, name))

    def type(self, module: str, name: str) -> TypeDoc | None:
        return self.types.get((module, name)) or self.types.get((ANY_MODULE, name))

    def merge(self, other: Descriptions) -> None:
        self.functions.update(other.functions)
        self.types.update(other.types)


def load_descriptions(source: str | PathLike[str] | Mapping[str, Any] | list[Any] | Descriptions) -> Descriptions:
    """Reads a descriptions document (a path to JSON, or the parsed JSON), or serialized compiler
    ``functionSchema`` answers; see the module docs for the format."""
    if isinstance(source, Descriptions):
        return source
    data: Any
    if isinstance(source, (str, PathLike)):
        with open(source, encoding="utf-8") as handle:
            data = json.load(handle)
    else:
        data = source
    found = Descriptions()
    if isinstance(data, Mapping) and "modules" in data:
        _read_document(data["modules"], found)
    elif _is_answer(data):
        _read_answer(data, found)
    elif isinstance(data, list):
        for item in data:
            if not _is_answer(item):
                raise DescriptionsError("a list of descriptions holds functionSchema answers only")
            _read_answer(item, found)
    elif isinstance(data, Mapping) and all(_is_answer(v) for v in data.values()):
        for item in data.values():
            _read_answer(item, found)
    else:
        raise DescriptionsError(
            "a descriptions document is {'modules': {...}} or serialized functionSchema answers"
        )
    return found


def _is_answer(value: Any) -> bool:
    return isinstance(value, Mapping) and "name" in value and "parameters" in value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise DescriptionsError(f"{where} is a string")
    return value


def _texts(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise DescriptionsError(f"{where} is an object of strings")
    return {str(k): _text(v, f"{where}.{k}") for k, v in value.items()}


def _read_document(modules: Any, found: Descriptions) -> None:
    if not isinstance(modules, Mapping):
        raise DescriptionsError("'modules' is an object keyed by module identity")
    for identity, entry in modules.items():
        where = f"modules.{identity}"
        for name, doc in (entry.get("functions") or {}).items():
            at = f"{where}.functions.{name}"
            description = doc.get("description")
            found.functions[(identity, name)] = FunctionDoc(
                description=None if description is None else _text(description, at + ".description"),
                summary=None if doc.get("summary") is None else _text(doc["summary"], at + ".summary"),
                parameters=_texts(doc.get("parameters") or {}, at + ".parameters"),
                result_type=None if doc.get("resultType") is None else _text(doc["resultType"], at + ".resultType"),
            )
        for name, doc in (entry.get("types") or {}).items():
            at = f"{where}.types.{name}"
            cases: dict[str, CaseDoc] = {}
            for case, case_doc in (doc.get("cases") or {}).items():
                if isinstance(case_doc, str):
                    cases[case] = CaseDoc(case_doc)
                else:
                    text = case_doc.get("description")
                    cases[case] = CaseDoc(
                        None if text is None else _text(text, f"{at}.cases.{case}.description"),
                        _texts(case_doc.get("fields") or {}, f"{at}.cases.{case}.fields"),
                    )
            found.types[(identity, name)] = TypeDoc(
                description=None if doc.get("description") is None else _text(doc["description"], at + ".description"),
                summary=None if doc.get("summary") is None else _text(doc["summary"], at + ".summary"),
                fields=_texts(doc.get("fields") or {}, at + ".fields"),
                cases=cases,
                alias=None if doc.get("alias") is None else _text(doc["alias"], at + ".alias"),
            )


def _read_answer(answer: Mapping[str, Any], found: Descriptions) -> None:
    module = answer.get("module") or ANY_MODULE
    parameters = {
        p["name"]: p["description"] for p in answer.get("parameters", ()) if isinstance(p.get("description"), str)
    }
    found.functions[(module, answer["name"])] = FunctionDoc(
        description=answer.get("description"),
        summary=answer.get("summary"),
        parameters=parameters,
        result_type=answer.get("resultType") if answer.get("resultType") not in (None, "?") else None,
    )
    for key in ("inputSchema", "outputSchema"):
        schema = answer.get(key)
        if isinstance(schema, Mapping):
            for def_key, definition in (schema.get("$defs") or {}).items():
                _read_definition(def_key, definition, found)


def _read_definition(key: str, definition: Mapping[str, Any], found: Descriptions) -> None:
    if "." in key:
        union, _, case = key.rpartition(".")
        if union.endswith((".Update", ".Property")) or case in ("Update", "Property"):
            return
        doc = found.types.setdefault((ANY_MODULE, union), TypeDoc())
        case_doc = doc.cases.setdefault(case, CaseDoc())
        if isinstance(definition.get("description"), str):
            case_doc.description = definition["description"]
        case_doc.fields.update(_property_docs(definition))
        return
    doc = found.types.setdefault((ANY_MODULE, key), TypeDoc())
    description = definition.get("description")
    if isinstance(description, str):
        if "enum" in definition or "anyOf" in definition:
            description = _split_case_list(description, doc)
        doc.description = description
    doc.fields.update(_property_docs(definition))


def _property_docs(definition: Mapping[str, Any]) -> dict[str, str]:
    docs = {}
    for name, schema in (definition.get("properties") or {}).items():
        if name != "$type" and isinstance(schema, Mapping) and isinstance(schema.get("description"), str):
            docs[name] = schema["description"]
    return docs


def _split_case_list(description: str, doc: TypeDoc) -> str | None:
    """A union's rendered description without the list of documented constant cases the
    compiler appends (``- `case`: summary``), whose lines go back to the cases."""
    head, _, tail = description.rpartition("\n\n")
    lines = tail.split("\n")
    matches = [_CASE_LINE.match(line) for line in lines]
    if not all(matches):
        return description
    for match in matches:
        assert match is not None
        doc.cases.setdefault(match.group(1), CaseDoc()).description = match.group(2)
    return head or None
