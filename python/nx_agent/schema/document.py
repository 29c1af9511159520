"""One JSON Schema document (draft 2020-12) being written from image types.

The rules are those of the NX compiler's declaration schemas: closed objects, ``$type`` where the
direction asks for it, constant-case unions as string enums, payload cases and abstract records
as ``anyOf``, ``$defs`` keyed by declared name in first-mention order with ``_2``, ``_3``… for
clashes, a recursive type described once, a schema-6 constrained type as its base's schema with
the interval's ends (:mod:`.bounds`). A type with no JSON form is reported, never approximated:
the document is then absent and the diagnostics say why. So is a document whose JSON text would
pass its budget (``schema-too-large``): an image can mention one long-named type, or an abstract
record of many shapes, from any number of fields.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .._log_text import bounded
from ..json_tree import json_chars_within
from .bounds import constrained_schema
from .descriptions import Descriptions, summary_of
from .errors import AMBIGUOUS_DISCRIMINATOR, INEXPRESSIBLE_TYPE, SCHEMA_TOO_LARGE, diagnostic, key_of
from .model import Decl, ProgramModel, RecordShape, TypeDict, text_span
from .types import PRIMITIVES, TypeSpellingError, admits_empty, parse_type, spell

DIALECT = "https://json-schema.org/draft/2020-12/schema"
Direction = Literal["input", "output"]
Schema = dict[str, Any]
MAX_ALIAS_DEPTH = 64
#: A document is made only while its JSON text stays within ``SCHEMA_BASE_CHARS`` plus
#: ``SCHEMA_CHARS_PER_IMAGE_BYTE`` for each byte of the program's images; past that it is refused
#: (``schema-too-large``). A type is written out at every mention (a ``$ref`` names its
#: definition, an abstract record lists every shape), so thousands of fields naming one long name
#: would otherwise make a schema of their number times its length.
SCHEMA_BASE_CHARS = 1 << 20
SCHEMA_CHARS_PER_IMAGE_BYTE = 16
_KEY_CHARACTER = re.compile(r"[^A-Za-z0-9_.\-]")

#: What a mention is charged on a :class:`Meter`, in characters: about the least JSON one writes.
MENTION_CHARS = 16


class OverBudget(Exception):
    """A :class:`Meter` ran out: the document being made is left unmade."""


class Meter:
    """The work a schema source lets all its documents do together, in characters of JSON: each
    mention is charged :data:`MENTION_CHARS`, and each finished document the text its size walk
    counted. A source that answers for many functions of one program (one agent's tools) would
    otherwise make each function's definitions again, a refused one as dearly as any."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        self.left = chars

    def charge(self, chars: int) -> None:
        self.left -= chars
        if self.left < 0:
            raise OverBudget


T = TypeVar("T")
#: A part of the walk: a generator that yields the parts it needs done (and is sent their
#: results) and returns its own. :func:`run` drives them from one loop, so a chain of records
#: each holding the next is walked at any length without Python recursion.
Step = Generator["Step[Any]", Any, T]


def run(step: Step[T]) -> T:
    """What ``step`` returns, its nested steps driven from an explicit stack."""
    stack: list[Step[Any]] = [step]
    value: Any = None
    while True:
        try:
            nested = stack[-1].send(value)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value  # type: ignore[no-any-return]
            value = done.value
            continue
        stack.append(nested)
        value = None


#: The most characters of a type's spelling a message quotes: an image whose types share parts (a
#: DAG) spells as a text far longer than the image, and a message is not the place for it.
MAX_SHOWN_TYPE_CHARS = 300


def _shown(ty: TypeDict) -> str:
    """A type's spelling for a message: its beginning and end when it is long."""
    return bounded(spell(ty), MAX_SHOWN_TYPE_CHARS)


#: The most characters of one name a message quotes, and the segments of a path it shows at each
#: end: an image can name a field with a long string in every record, or nest records in a chain
#: of any length, and each message must stay short for the messages to stay in proportion.
MAX_SHOWN_NAME_CHARS = 200
SHOWN_PATH_ENDS = 8


def shown_name(name: str) -> str:
    """A name for a message: its beginning and end when it is long."""
    return bounded(name, MAX_SHOWN_NAME_CHARS)


@dataclass(frozen=True)
class Site:
    """The member a diagnostic is about: ``parts`` its plain name (``("Row", "template")`` for a
    field, ``("x",)`` for a parameter), ``role`` how a sentence names it when not as the quoted
    plain name (``parameter `x` ``, ``the result of `f` ``), and where it is."""

    parts: tuple[str, ...]
    label: tuple[str, tuple[int, int] | None] | None = None
    role: str | None = None

    @staticmethod
    def named(name: str, module: str, span: tuple[int, int] | None) -> Site:
        return Site((name,), (module, span))

    @staticmethod
    def field(owner: str, name: str, module: str, span: tuple[int, int] | None) -> Site:
        return Site((owner, name), (module, span))

    @property
    def member(self) -> str:
        if self.role is not None:
            return self.role
        return "`" + ".".join(shown_name(part) for part in self.parts) + "`"

    def sentence(self) -> str:
        member = self.member
        return member[:1].upper() + member[1:]

    def through(self, path: list[str]) -> str:
        """How the walk reached the member, when the path is not the member's own name: its
        first and last segments when it is long."""
        if len(path) < 2 or path == list(self.parts):
            return ""
        ends = SHOWN_PATH_ENDS
        if len(path) > 2 * ends + 1:
            left_out = len(path) - 2 * ends
            segments = [*path[:ends], f"…({left_out} segments left out)…", *path[-ends:]]
        else:
            segments = path
        return f" (reached through `{'.'.join(shown_name(segment) for segment in segments)}`)"


@dataclass
class ObjectDef:
    discriminator: str
    properties: list[tuple[str, Schema]]
    required: list[str]
    description: str | None


@dataclass
class DefEntry:
    key: str
    needs_type: bool = False
    body: ObjectDef | Schema | None = None
    #: The ``$ref`` to it, made once: a long name mentioned by many fields is one string.
    ref: str = field(init=False)

    def __post_init__(self) -> None:
        self.ref = f"#/$defs/{self.key}"


def closed_object(properties: list[tuple[str, Schema]], required: list[str]) -> Schema:
    schema: Schema = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def any_value() -> Schema:
    return {"not": {"type": "null"}}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def string_enum(cases: list[str]) -> Schema:
    return {"type": "string", "enum": cases}


def primitive_schema(name: str) -> Schema | None:
    if name in ("int", "int64"):
        return {"type": "integer"}
    if name == "int32":
        return {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}
    if name in ("float32", "float64"):
        return {"type": "number"}
    if name == "string":
        return {"type": "string"}
    if name == "boolean":
        return {"type": "boolean"}
    if name == "object":
        return any_value()
    return None


@dataclass
class Document:
    model: ProgramModel
    direction: Direction
    descriptions: Descriptions
    defs: list[DefEntry] = field(default_factory=list)
    index: dict[tuple[str, ...], int] = field(default_factory=dict)
    keys: set[str] = field(default_factory=set)
    suffixes: dict[str, int] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)
    reported: set[tuple[str, ...]] = field(default_factory=set)
    abstracts: dict[tuple[str, str], list[Schema]] = field(default_factory=dict)
    alias_targets: dict[tuple[str, str], TypeDict | None] = field(default_factory=dict)
    alias_depth: int = 0
    meter: Meter | None = None

    # -- the document --------------------------------------------------------------------------

    def finish(self, root: Schema) -> Schema | None:
        """The document with ``root`` at its root, or None when a mention had no JSON form."""
        if self.problems:
            return None
        document: Schema = {"$schema": DIALECT}
        document.update(root)
        if self.defs:
            document["$defs"] = {entry.key: self._render(entry) for entry in self.defs}
        limit = SCHEMA_BASE_CHARS + SCHEMA_CHARS_PER_IMAGE_BYTE * self.model.image_bytes
        meter = self.meter
        counted = json_chars_within(document, limit if meter is None else min(limit, max(meter.left, 0)))
        if counted is None and meter is not None and meter.left < limit:
            raise OverBudget
        if meter is not None:
            meter.charge(limit if counted is None else counted)
        if counted is None:
            self.report(
                SCHEMA_TOO_LARGE,
                f"The {self.direction} schema would be more than {limit:,} characters of JSON: a schema "
                f"writes a type out at every mention, and this program's types mention theirs too often "
                f"for the {self.model.image_bytes:,} bytes of its images",
                Site(("?",)),
                f"A schema is made while it is at most {SCHEMA_BASE_CHARS:,} characters plus "
                f"{SCHEMA_CHARS_PER_IMAGE_BYTE} per byte of the program's images.",
            )
            return None
        return document

    def _render(self, entry: DefEntry) -> Schema:
        body = entry.body
        if body is None:
            return {}
        if not isinstance(body, ObjectDef):
            return body
        properties: list[tuple[str, Schema]] = []
        required: list[str] = []
        if entry.needs_type:
            properties.append(("$type", {"const": body.discriminator}))
            required.append("$type")
        properties.extend(body.properties)
        required.extend(body.required)
        schema = closed_object(properties, required)
        if body.description is not None:
            schema["description"] = body.description
        return schema

    def refuse_over_budget(self) -> None:
        """The document is left unmade: its source's :class:`Meter` ran out while making it."""
        assert self.meter is not None
        self.report(
            SCHEMA_TOO_LARGE,
            f"The {self.direction} schema is not made: this source's schemas together took more than "
            f"{self.meter.chars:,} characters of JSON",
            Site(("?",)),
            "A source made for one agent (compile_agent) makes its tools' schemas while they take at most "
            "its budget together.",
        )

    def report(self, code: str, message: str, site: Site, help: str | None = None) -> None:
        labels = []
        if site.label is not None:
            module, span = site.label
            source = self.model.modules[module].source if module in self.model.modules else None
            if span is not None and source is not None:
                labels.append({"file": module, "span": text_span(source, *span), "message": None, "primary": True})
        found = diagnostic(code, message, labels=labels, help=help)
        key = key_of(found)
        if key not in self.reported:
            self.reported.add(key)
            self.problems.append(found)

    def reference(self, index: int) -> Schema:
        return {"$ref": self.defs[index].ref}

    def entry(self, identity: tuple[str, ...], natural: str) -> tuple[int, bool]:
        """The entry ``identity`` has, reserving one keyed ``natural`` (or ``natural_2``…) when it
        has none yet; True when it is new."""
        found = self.index.get(identity)
        if found is not None:
            return found, False
        base = _KEY_CHARACTER.sub("_", natural)
        key, suffix = base, self.suffixes.get(base, 2)
        while key in self.keys:
            key = f"{base}_{suffix}"
            suffix += 1
        # Keys are only ever added, so the next clash of ``base`` starts where this one ended.
        self.suffixes[base] = suffix
        self.keys.add(key)
        self.defs.append(DefEntry(key))
        self.index[identity] = len(self.defs) - 1
        return len(self.defs) - 1, True

    # -- mentions ------------------------------------------------------------------------------

    def mention(self, ty: TypeDict, site: Site, path: list[str]) -> Schema:
        """The schema of a value of type ``ty`` at ``site``."""
        return run(self._mention(ty, site, path))

    def declared(self, module: str, name: str, site: Site, path: list[str]) -> Schema:
        """The schema of a value of the type ``module`` declares as ``name``."""
        return run(self._declared(module, name, site, path))

    def _mention(self, ty: TypeDict, site: Site, path: list[str]) -> Step[Schema]:
        if self.meter is not None:
            self.meter.charge(MENTION_CHARS)
        kind = ty["kind"]
        if kind == "primitive":
            schema = primitive_schema(ty["name"])
            if schema is not None:
                return schema
            name = ty["name"]
            if name == "Element" or name[:1].islower():
                self.report(
                    INEXPRESSIBLE_TYPE,
                    f"{site.sentence()} is markup, `{shown_name(name)}`, which has no JSON form{site.through(path)}",
                    site,
                    "Markup is rendered by a host, not supplied or read as a JSON value.",
                )
            else:
                self.unresolved(name, site, path)
            return {}
        if kind == "seq":
            item = yield self._mention(ty["item"], site, path)
            if ty["occurrence"] == "?":
                return nullable(item)
            array: Schema = {"type": "array", "items": item}
            if ty["occurrence"] == "+":
                array["minItems"] = 1
            return array
        if kind == "function":
            self.report(
                INEXPRESSIBLE_TYPE,
                f"{site.sentence()} has the function type `{_shown(ty)}`, which has no JSON form{site.through(path)}",
                site,
                "A function value names code; a host supplies it, not a JSON value.",
            )
            return {}
        if kind == "any-function":
            self.report(
                INEXPRESSIBLE_TYPE,
                f"{site.sentence()} has the function reference type `{_shown(ty)}`, which has no JSON form"
                f"{site.through(path)}",
                site,
                "A function value names code; a host supplies it, not a JSON value.",
            )
            return {}
        if kind == "nominal":
            declared: Schema = yield self._declared(ty["module"], ty["name"], site, path)
            return declared
        if kind == "constrained":
            return self.constrained(ty, site, path)
        self.unresolved("?", site, path)
        return {}

    def constrained(self, ty: TypeDict, site: Site, path: list[str]) -> Schema:
        """Schema 6: the base's schema with the interval's ends (:mod:`.bounds`)."""
        schema = constrained_schema(ty)
        if schema is None:
            self.report(
                INEXPRESSIBLE_TYPE,
                f"{site.sentence()} has the constrained type `{_shown(ty)}`, which no JSON number satisfies"
                f"{site.through(path)}",
                site,
            )
            return {}
        return schema

    def unresolved(self, name: str, site: Site, path: list[str]) -> None:
        self.report(
            INEXPRESSIBLE_TYPE,
            f"{site.sentence()} names the type `{shown_name(name)}`, which does not resolve, so it has no JSON form"
            f"{site.through(path)}",
            site,
        )

    def _declared(self, module: str, name: str, site: Site, path: list[str]) -> Step[Schema]:
        decl = self.model.find(module, name)
        if decl is None:
            self.unresolved(name, site, path)
            return {}
        kind = decl["kind"]
        if kind == "alias":
            schema: Schema = yield self._alias(module, decl, site, path)
            return schema
        if kind == "record" and decl["abstract"]:
            branches: Schema = yield self._abstract(module, decl, site, path)
            return branches
        if kind == "record":
            index = yield self._record_def(module, decl, path)
            if self.direction == "output":
                self.defs[index].needs_type = True
            return self.reference(index)
        if kind == "union":
            return self.reference((yield self._union_def(module, decl, path)))
        if kind == "component":
            self.report(
                INEXPRESSIBLE_TYPE,
                f"{site.sentence()} is typed by the component `{shown_name(name)}`, which has no JSON form{site.through(path)}",
                site,
            )
            return {}
        self.unresolved(name, site, path)
        return {}

    def _alias(self, module: str, decl: Decl, site: Site, path: list[str]) -> Step[Schema]:
        target = None
        if self.alias_depth < MAX_ALIAS_DEPTH:
            key = (module, decl["name"])
            if key in self.alias_targets:
                target = self.alias_targets[key]
            else:
                doc = self.descriptions.type(module, decl["name"])
                if doc is not None and doc.alias is not None:
                    try:
                        target = parse_type(doc.alias, self.model, module)
                    except TypeSpellingError:
                        target = None
                # Read once per alias, however many fields it types.
                self.alias_targets[key] = target
        if target is None:
            self.report(
                INEXPRESSIBLE_TYPE,
                f"{site.sentence()} names the type alias `{shown_name(decl['name'])}`, whose target its image does not "
                f"record, so it has no JSON form{site.through(path)}",
                site,
                "Give the alias target in the descriptions ('alias'), or use the target type.",
            )
            return {}
        self.alias_depth += 1
        try:
            schema: Schema = yield self._mention(target, site, path)
            return schema
        finally:
            self.alias_depth -= 1

    def _abstract(self, module: str, decl: Decl, site: Site, path: list[str]) -> Step[Schema]:
        """``anyOf`` every shape that extends the abstract record, each requiring ``$type``. The
        branches are made at its first mention and shared by the later ones."""
        name = decl["name"]
        made = self.abstracts.get((module, name))
        if made is not None:
            return {"anyOf": made}
        descendants = self.model.descendants(module, name)
        if not descendants:
            self.report(
                INEXPRESSIBLE_TYPE,
                f"{site.sentence()} is typed by the abstract record `{shown_name(name)}`, which nothing in the program "
                f"extends, so no value has it{site.through(path)}",
                site,
            )
            return {}
        discriminators = [
            d.name if isinstance(d, RecordShape) else f"{d.union}.{d.case}" for d in descendants
        ]
        distinct: set[str] = set()
        for discriminator in discriminators:
            if discriminator in distinct:
                self.report(
                    AMBIGUOUS_DISCRIMINATOR,
                    f"{site.sentence()} is typed by the abstract record `{shown_name(name)}`, and two shapes in the program "
                    f"that extend it share the discriminator `{shown_name(discriminator)}`",
                    site,
                    "A runtime refuses such a value as ambiguous; rename one of the records.",
                )
                return {}
            distinct.add(discriminator)
        branches = []
        cases: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        for descendant, discriminator in zip(descendants, discriminators):
            segment = path.pop() if path else ""
            path.append(f"{segment}({discriminator})")
            if isinstance(descendant, RecordShape):
                found = self.model.find(descendant.module, descendant.name)
                assert found is not None
                index = yield self._record_def(descendant.module, found, path)
            else:
                union = self.model.find(descendant.module, descendant.union)
                assert union is not None
                by_name = cases.get((descendant.module, descendant.union))
                if by_name is None:
                    by_name = {}
                    for case in union["cases"]:
                        by_name.setdefault(case["name"], case)
                    cases[(descendant.module, descendant.union)] = by_name
                index = yield self._case_def(descendant.module, union, by_name[descendant.case], path)
            path.pop()
            path.append(segment)
            self.defs[index].needs_type = True
            branches.append(self.reference(index))
        self.abstracts[(module, name)] = branches
        return {"anyOf": branches}

    # -- definitions ---------------------------------------------------------------------------

    def _record_def(self, module: str, decl: Decl, path: list[str]) -> Step[int]:
        index, new = self.entry(("record", module, decl["name"]), decl["name"])
        if not new:
            return index
        doc = self.descriptions.type(module, decl["name"])
        self.defs[index].body = yield self._object_def(
            module,
            decl,
            decl["name"],
            decl["fields"],
            update=decl["update_of"] is not None,
            description=doc.description if doc is not None else None,
            field_docs=self.field_docs(module, decl, None),
            path=path,
        )
        return index

    def _union_def(self, module: str, decl: Decl, path: list[str]) -> Step[int]:
        index, new = self.entry(("union", module, decl["name"]), decl["name"])
        if not new:
            return index
        cases = decl["cases"]
        constants = [c["name"] for c in cases if c["constant"]]
        schema: Schema
        if len(constants) == len(cases):
            schema = string_enum(constants)
        else:
            branches: list[Schema] = [string_enum(constants)] if constants else []
            for case in cases:
                if not case["constant"]:
                    branches.append(self.reference((yield self._case_def(module, decl, case, path))))
            schema = {"anyOf": branches}
        description = self.union_description(module, decl)
        if description is not None:
            schema["description"] = description
        self.defs[index].body = schema
        return index

    def _case_def(self, module: str, union: Decl, case: dict[str, Any], path: list[str]) -> Step[int]:
        discriminator = f"{union['name']}.{case['name']}"
        index, new = self.entry(("case", module, union["name"], case["name"]), discriminator)
        self.defs[index].needs_type = True
        if not new:
            return index
        doc = self.descriptions.type(module, union["name"])
        case_doc = doc.cases.get(case["name"]) if doc is not None else None
        self.defs[index].body = yield self._object_def(
            module,
            union,
            discriminator,
            case["fields"],
            update=False,
            description=case_doc.description if case_doc is not None else None,
            field_docs=self.field_docs(module, union, case["name"]),
            path=path,
        )
        return index

    def field_docs(self, module: str, decl: Decl, case: str | None) -> dict[str, str]:
        """Field docs of a record or a union case, with those of its bases for inherited fields
        (an image flattens fields, so the declaring base is looked up by name)."""
        docs: dict[str, str] = {}
        for base_module, base_name in reversed([tuple(b) for b in decl.get("bases", ())]):
            base_doc = self.descriptions.type(base_module, base_name)
            if base_doc is not None:
                docs.update(base_doc.fields)
        doc = self.descriptions.type(module, decl["name"])
        if doc is not None:
            if case is None:
                docs.update(doc.fields)
            elif case in doc.cases:
                docs.update(doc.cases[case].fields)
        return docs

    def union_description(self, module: str, decl: Decl) -> str | None:
        doc = self.descriptions.type(module, decl["name"])
        if doc is None:
            return None
        lines = [
            f"- `{c['name']}`: {summary_of(doc.cases[c['name']].description or '')}"
            for c in decl["cases"]
            if c["constant"] and c["name"] in doc.cases and doc.cases[c["name"]].description is not None
        ]
        if not lines:
            return doc.description
        listed = "\n".join(lines)
        return f"{doc.description}\n\n{listed}" if doc.description is not None else listed

    def _object_def(
        self,
        module: str,
        decl: Decl,
        owner: str,
        fields: list[dict[str, Any]],
        *,
        update: bool,
        description: str | None,
        field_docs: dict[str, str],
        path: list[str],
    ) -> Step[ObjectDef]:
        """A record, update record or payload case, before its ``$type`` is decided.

        A field whose type admits empty (``T?``, ``T*``) is optional: left out of ``required``,
        never nullable (but nullable in an update record, where ``null`` clears it). Input
        requires what the image marks required; output requires what cannot be empty."""
        properties: list[tuple[str, Schema]] = []
        required: list[str] = []
        span = decl.get("span")
        for entry in fields:
            ty: TypeDict = entry["type"]
            optional = admits_empty(ty)
            site_type = ty["item"] if ty["kind"] == "seq" and ty["occurrence"] == "?" else ty
            site = Site.field(owner, entry["name"], module, span)
            path.append(entry["name"])
            schema = yield self._mention(site_type, site, path)
            path.pop()
            if update and optional:
                schema = nullable(schema)
            if entry["name"] in field_docs:
                schema["description"] = field_docs[entry["name"]]
            if not update and entry["default"] is not None:
                value = self.default_value(entry["default"], site_type)
                if value is not None:
                    schema["default"] = value[0]
            if update:
                is_required = False
            elif self.direction == "input":
                is_required = entry["required"] or (entry["default"] is None and not optional)
            else:
                is_required = not optional
            if is_required:
                required.append(entry["name"])
            properties.append((entry["name"], schema))
        return ObjectDef(owner, properties, required, description)

    def default_value(self, default: dict[str, Any], site_type: TypeDict) -> tuple[Any] | None:
        """The JSON value of a default that is a literal, or a constant case of the site's union;
        None for a computed default."""
        if default["kind"] == "literal":
            return (default["value"],)
        if default["kind"] == "case" and site_type["kind"] == "nominal":
            union = tuple(default["union"])
            if union != (site_type["module"], site_type["name"]):
                return None
            decl = self.model.find(site_type["module"], site_type["name"])
            if decl is not None and decl["kind"] == "union":
                if any(c["name"] == default["case"] and c["constant"] for c in decl["cases"]):
                    return (default["case"],)
        return None


def is_known_primitive(ty: TypeDict) -> bool:
    return ty["kind"] == "primitive" and ty["name"] in PRIMITIVES
