"""Host-supplied types: parameters the host fills in itself (a tool context), and the listed types
a parameter holds without being one.

A parameter is host-supplied when its declared type names a listed record, or a record that
extends one (the first listed type it is, in list order). Otherwise its type is walked, at any
depth (occurrences, record and case fields, the shapes extending an abstract record, union bases),
for the listed types it holds: ``hostSuppliedWithin``, in list order, each once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .document import Meter
from .model import CaseShape, ProgramModel, RecordShape, TypeDict

Listed = list[tuple[str, str]]


def listed_records(model: ProgramModel, refs: Iterable[Mapping[str, Any]]) -> Listed:
    """The listed types the program declares as records, each once, in list order."""
    found: Listed = []
    for ref in refs:
        module = ref.get("module") or model.entry
        decl = model.find(module, ref["name"])
        if decl is not None and decl["kind"] == "record" and (module, ref["name"]) not in found:
            found.append((module, ref["name"]))
    return found


def name_of(listed: tuple[str, str]) -> dict[str, str]:
    return {"module": listed[0], "name": listed[1]}


def host_supplied_match(model: ProgramModel, ty: TypeDict, listed: Listed) -> dict[str, str] | None:
    """The listed type a parameter declared with ``ty`` is, or extends."""
    if not listed or ty["kind"] != "nominal":
        return None
    decl = model.find(ty["module"], ty["name"])
    if decl is None or decl["kind"] != "record":
        return None
    for candidate in listed:
        if model.extends(ty["module"], decl, candidate):
            return name_of(candidate)
    return None


def host_supplied_within(
    model: ProgramModel, ty: TypeDict, listed: Listed, meter: Meter | None = None
) -> list[dict[str, str]]:
    """The listed types a value of ``ty`` holds, in list order; each type the walk enters is
    charged a character on ``meter`` (which raises when it runs out)."""
    if not listed:
        return []
    held = [False] * len(listed)
    entered: set[tuple[str, ...]] = set()
    pending: list[TypeDict] = [ty]

    def mark(module: str, decl: dict[str, Any]) -> None:
        for place, candidate in enumerate(listed):
            if decl["kind"] == "union":
                if candidate in (tuple(b) for b in decl["bases"]):
                    held[place] = True
            elif model.extends(module, decl, candidate):
                held[place] = True

    while pending:
        current = pending.pop()
        if meter is not None:
            meter.charge(1)
        kind = current["kind"]
        if kind == "seq":
            pending.append(current["item"])
            continue
        if kind != "nominal":
            continue
        module, name = current["module"], current["name"]
        if ("decl", module, name) in entered:
            continue
        entered.add(("decl", module, name))
        decl = model.find(module, name)
        if decl is None:
            continue
        if decl["kind"] == "record":
            mark(module, decl)
            if decl["abstract"]:
                for descendant in model.descendants(module, name):
                    if isinstance(descendant, RecordShape):
                        pending.append({"kind": "nominal", "module": descendant.module, "name": descendant.name})
                    else:
                        _case(model, descendant, entered, pending, mark)
            pending.extend(field["type"] for field in decl["fields"])
        elif decl["kind"] == "union":
            mark(module, decl)
            for case in decl["cases"]:
                _case(model, CaseShape(module, name, case["name"]), entered, pending, mark)
    return [name_of(candidate) for candidate, found in zip(listed, held) if found]


def _case(model: ProgramModel, shape: CaseShape, entered: set[tuple[str, ...]], pending: list[TypeDict], mark: Any) -> None:
    key = ("case", shape.module, shape.union, shape.case)
    if key in entered:
        return
    entered.add(key)
    union = model.find(shape.module, shape.union)
    if union is None:
        return
    mark(shape.module, union)
    for case in union["cases"]:
        if case["name"] == shape.case:
            pending.extend(field["type"] for field in case["fields"])
