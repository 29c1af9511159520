"""A linked program's declarations, indexed for the schema mapping.

The data comes from :meth:`PreparedModule.declarations` (read once per module by the Rust core).
Types are dicts: ``{"kind": "primitive", "name"}``, ``{"kind": "nominal", "module", "name"}``,
``{"kind": "seq", "item", "occurrence": "?"|"+"|"*"}``, ``{"kind": "function", "parameters",
"result"}``, ``{"kind": "any-function", "result"}``, schema 6's ``{"kind": "constrained", "base",
"low", "high"}`` (each end ``None`` or ``{"value": int | float, "exclusive": bool, "text": str}``,
``text`` being the constant as explain spells it) or ``{"kind": "invalid"}``. A component's dict
has ``state_record`` (schema 6: its ``<C>.State`` record as ``(module, name)``, else ``None``).

The *program order* lists each module after the modules it links against (a depth-first walk of
the module tables from the entry): what a module builds on comes first, so library modules come
before the entry. A site typed by an abstract record lists the shapes that extend it in this order,
and in declaration order within a module.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Union

from .._native import Program

Decl = dict[str, Any]
TypeDict = dict[str, Any]


@dataclass(frozen=True)
class RecordShape:
    """A concrete record that extends an abstract one."""

    module: str
    name: str


@dataclass(frozen=True)
class CaseShape:
    """One case of a union whose base extends an abstract record."""

    module: str
    union: str
    case: str


Descendant = Union[RecordShape, CaseShape]


@dataclass
class ModuleModel:
    identity: str
    declarations: tuple[Decl, ...]
    source: str | None
    links: tuple[str, ...]
    by_name: dict[str, Decl] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_name = {d["name"]: d for d in self.declarations}


class ProgramModel:
    """Every module of a linked program, by identity, in program order."""

    def __init__(self, program: Program) -> None:
        self.entry = program.entry.identity
        self.modules: dict[str, ModuleModel] = {}
        self.image_bytes = 0
        for module in program.modules:
            self.image_bytes += module.size
            self.modules[module.identity] = ModuleModel(
                module.identity,
                module.declarations(),
                module.source,
                tuple(link.identity for link in module.links),
            )
        self.order = self._program_order()
        self._descendants: dict[tuple[str, str], list[Descendant]] = {}
        self._extenders: dict[tuple[str, str], list[tuple[str, Decl]]] | None = None

    def _program_order(self) -> list[str]:
        order: list[str] = []
        seen: set[str] = set()
        stack: list[tuple[str, int]] = [(self.entry, 0)]
        seen.add(self.entry)
        while stack:
            identity, next_link = stack.pop()
            links = self.modules[identity].links
            if next_link < len(links):
                stack.append((identity, next_link + 1))
                link = links[next_link]
                if link not in seen and link in self.modules:
                    seen.add(link)
                    stack.append((link, 0))
            else:
                order.append(identity)
        order.extend(identity for identity in self.modules if identity not in seen)
        return order

    def find(self, module: str, name: str) -> Decl | None:
        found = self.modules.get(module)
        return found.by_name.get(name) if found is not None else None

    def descendants(self, module: str, name: str) -> list[Descendant]:
        """The concrete records and union cases that extend the abstract record ``module:name``."""
        key = (module, name)
        cached = self._descendants.get(key)
        if cached is not None:
            return cached
        found: list[Descendant] = []
        for identity, decl in self._extending().get(key, ()):
            if decl["kind"] == "record":
                found.append(RecordShape(identity, decl["name"]))
            else:
                found.extend(CaseShape(identity, decl["name"], c["name"]) for c in decl["cases"])
        self._descendants[key] = found
        return found

    def _extending(self) -> dict[tuple[str, str], list[tuple[str, Decl]]]:
        """Each base's concrete records and unions, in program order: read from every
        declaration's bases in one pass, the first time a base is asked for."""
        if self._extenders is None:
            self._extenders = {}
            for identity in self.order:
                for decl in self.modules[identity].declarations:
                    if decl["kind"] == "record":
                        if decl["abstract"] or decl["update_of"] is not None:
                            continue
                    elif decl["kind"] != "union":
                        continue
                    for base in dict.fromkeys(tuple(base) for base in decl["bases"]):
                        self._extenders.setdefault(base, []).append((identity, decl))
        return self._extenders

    def extends(self, module: str, decl: Decl, listed: tuple[str, str]) -> bool:
        """Whether the record or union ``decl`` of ``module`` is, or extends, ``listed``."""
        if (module, decl["name"]) == listed:
            return bool(decl["kind"] == "record")
        return listed in (tuple(base) for base in decl.get("bases", ()))


_CACHE: OrderedDict[int, tuple[Program, ProgramModel]] = OrderedDict()
_CACHE_SIZE = 64


def model_for(program: Program) -> ProgramModel:
    """The model of ``program``, built once and kept for the most recently used programs (the
    cache holds the program itself, so its ``id`` cannot be reused while cached)."""
    key = id(program)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is program:
        _CACHE.move_to_end(key)
        return hit[1]
    model = ProgramModel(program)
    _CACHE[key] = (program, model)
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return model


def text_span(source: str, start: int, end: int) -> dict[str, int]:
    """A byte span as the compiler's JSON answers carry it (``NxAgentTextSpan``): ``startByte``,
    ``endByte``, then one-based lines and columns (columns count characters)."""
    data = source.encode("utf-8")

    def line_column(offset: int) -> tuple[int, int]:
        offset = min(offset, len(data))
        before = data[:offset].decode("utf-8", errors="ignore")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        return line, column

    start_line, start_column = line_column(start)
    end_line, end_column = line_column(end)
    return {
        "startByte": start,
        "endByte": end,
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    }
