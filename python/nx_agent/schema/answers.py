"""``function_schema`` and ``type_schema``: the answers the NX compiler's schema queries give,
derived from a linked program's images (plus optional descriptions).

Answers are plain dicts with the compiler's camelCase keys in its key order; a member with no
value is left out. A function's answer: ``module``, ``name``, ``description``, ``summary``,
``parameters`` (``name``, ``type``, ``required``, ``description``, ``typeRef``, ``hostSupplied``,
``hostSuppliedWithin``), ``inputSchema``, ``outputSchema``, ``resultType``, ``declaration`` (the
declaration's span, when the image carries its source) and ``diagnostics``.

A document made here shares what it repeats: every mention of one abstract record holds the same
list of its shapes. Copy a document (``copy.deepcopy``) before changing one part of it in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._native import Program
from .descriptions import Descriptions, load_descriptions, summary_of
from .document import Direction, Document, Meter, OverBudget, Schema, Site, closed_object, shown_name
from .errors import INEXPRESSIBLE_TYPE, distinct, unknown_declaration
from .host_supplied import host_supplied_match, host_supplied_within, listed_records
from .model import Decl, ProgramModel, model_for, text_span
from .types import Spellings, TypeSpellingError, declared_parameter_type, parse_type, spell

TYPE_KINDS = ("record", "union", "alias", "component")
DescriptionsInput = Descriptions | Mapping[str, Any] | list[Any] | str | None


def _descriptions(descriptions: DescriptionsInput) -> Descriptions:
    return Descriptions() if descriptions is None else load_descriptions(descriptions)


def _module_of(model: ProgramModel, ref: Mapping[str, Any]) -> str:
    identity = ref.get("module") or model.entry
    if identity not in model.modules:
        raise unknown_declaration(f"The program has no module '{identity}', so it declares no '{ref.get('name')}' there")
    return str(identity)


def find_function(model: ProgramModel, ref: Mapping[str, Any]) -> tuple[str, Decl]:
    module = _module_of(model, ref)
    decl = model.find(module, str(ref.get("name")))
    if decl is None or decl["kind"] != "function":
        raise unknown_declaration(f"Module '{module}' declares no function '{ref.get('name')}'")
    return module, decl


def find_type(model: ProgramModel, ref: Mapping[str, Any]) -> tuple[str, Decl]:
    module = _module_of(model, ref)
    decl = model.find(module, str(ref.get("name")))
    if decl is None or decl["kind"] not in TYPE_KINDS:
        raise unknown_declaration(f"Module '{module}' declares no type '{ref.get('name')}'")
    return module, decl


def function_schema(
    program: Program,
    ref: Mapping[str, Any],
    *,
    host_supplied_types: Iterable[Mapping[str, Any]] = (),
    descriptions: DescriptionsInput = None,
) -> dict[str, Any]:
    """The schema answer of the function ``ref`` names (``{"module"?, "name"}``; no module =
    the entry module). Raises :class:`SchemaError` (``schema-unknown-declaration``) when the
    program declares no such function."""
    return derive_function_schema(model_for(program), ref, host_supplied_types, _descriptions(descriptions))


def derive_function_schema(
    model: ProgramModel,
    ref: Mapping[str, Any],
    host_supplied_types: Iterable[Mapping[str, Any]],
    descriptions: Descriptions,
    meter: Meter | None = None,
) -> dict[str, Any]:
    """The answer :func:`function_schema` gives; with ``meter``, each schema is made only while
    the meter, shared by every answer of a source, has room (else ``schema-too-large``)."""
    module, function = find_function(model, ref)
    name = function["name"]
    doc = descriptions.function(module, name)
    listed = listed_records(model, host_supplied_types)
    span = function["span"]

    input_document = Document(model, "input", descriptions, meter=meter)
    over = False
    properties: list[tuple[str, Schema]] = []
    required: list[str] = []
    parameters: list[dict[str, Any]] = []
    spelled = Spellings()
    walked: dict[tuple[str, str] | None, list[dict[str, str]]] = {}
    for param in function["parameters"]:
        declared = declared_parameter_type(param["type"], param["optional"])
        is_required = not param["optional"] and param["default"] is None
        entry: dict[str, Any] = {"name": param["name"], "type": spelled(declared), "required": is_required}
        description = doc.parameters.get(param["name"]) if doc is not None else None
        if description is not None:
            entry["description"] = description
        type_ref = _type_ref(model, declared)
        if type_ref is not None:
            entry["typeRef"] = type_ref
        host = host_supplied_match(model, declared, listed)
        if host is not None:
            entry["hostSupplied"] = host
        elif not over:
            # What a value holds depends only on the declaration under its occurrences: each is
            # walked once, however many parameters it types.
            root = declared
            while root["kind"] == "seq":
                root = root["item"]
            held = (root["module"], root["name"]) if root["kind"] == "nominal" else None
            within = walked.get(held)
            if within is None:
                try:
                    within = walked[held] = host_supplied_within(model, root, listed, meter)
                except OverBudget:
                    over, within = True, []
            if within:
                entry["hostSuppliedWithin"] = [dict(found) for found in within]
        parameters.append(entry)
        if host is not None or over:
            continue
        site = Site((param["name"],), (module, span), f"parameter `{shown_name(param['name'])}`")
        try:
            schema = input_document.mention(declared, site, [param["name"]])
        except OverBudget:
            over = True
            continue
        if description is not None:
            schema["description"] = description
        if param["default"] is not None:
            value = input_document.default_value(param["default"], declared)
            if value is not None:
                schema["default"] = value[0]
        if is_required:
            required.append(param["name"])
        properties.append((param["name"], schema))
    input_schema = _finished(input_document, lambda: closed_object(properties, required), over)

    output_document = Document(model, "output", descriptions, meter=meter)
    result, result_type = function["result"], None
    if result is not None:
        result_type = spell(result)
    elif doc is not None and doc.result_type is not None:
        try:
            result = parse_type(doc.result_type, model, module)
            result_type = doc.result_type
        except TypeSpellingError:
            result = None
    result_site = Site((result_type or "?",), (module, span), f"the result of `{shown_name(name)}`")
    if result is None:
        output_document.report(
            INEXPRESSIBLE_TYPE,
            f"The result type of `{shown_name(name)}` is not recorded in its image, so it has no JSON form",
            result_site,
            "Annotate the result type, or give it as 'resultType' in the descriptions.",
        )
        output_schema = _finished(output_document, dict, False)
    else:
        found = result
        output_schema = _finished(
            output_document, lambda: output_document.mention(found, result_site, [result_type or "?"]), False
        )

    answer: dict[str, Any] = {"module": module, "name": name}
    if doc is not None and doc.description is not None:
        answer["description"] = doc.description
        answer["summary"] = doc.summary if doc.summary is not None else summary_of(doc.description)
    answer["parameters"] = parameters
    if input_schema is not None:
        answer["inputSchema"] = input_schema
    if output_schema is not None:
        answer["outputSchema"] = output_schema
    answer["resultType"] = result_type or "?"
    source = model.modules[module].source
    if span is not None and source is not None:
        answer["declaration"] = text_span(source, *span)
    answer["diagnostics"] = distinct(input_document.problems + output_document.problems)
    return answer


def _finished(document: Document, root: Callable[[], Schema], over: bool) -> Schema | None:
    """``document`` finished with the root ``root()`` makes, or None with ``schema-too-large``
    when its meter ran out (``over``: it already had)."""
    try:
        if not over:
            return document.finish(root())
    except OverBudget:
        pass
    document.refuse_over_budget()
    return None


def _type_ref(model: ProgramModel, ty: dict[str, Any]) -> dict[str, str] | None:
    """The record or union a parameter is declared with (not under an occurrence)."""
    if ty["kind"] != "nominal":
        return None
    decl = model.find(ty["module"], ty["name"])
    if decl is None or decl["kind"] not in ("record", "union"):
        return None
    return {"module": ty["module"], "name": ty["name"]}


def type_schema(
    program: Program,
    ref: Mapping[str, Any],
    *,
    direction: Direction = "output",
    descriptions: DescriptionsInput = None,
) -> dict[str, Any]:
    """The schema answer of the declared type ``ref`` names (a record, action, union, alias,
    ``T.Update``, ``T.Property``; a component is answered with no schema), written for
    ``direction``: ``{"module", "name", "description"?, "summary"?, "schema"?, "diagnostics"}``."""
    if direction not in ("input", "output"):
        raise ValueError(f"direction is 'input' or 'output', not {direction!r}")
    model = model_for(program)
    found = _descriptions(descriptions)
    module, decl = find_type(model, ref)
    name = decl["name"]
    document = Document(model, direction, found)
    site = Site.named(name, module, decl["span"])
    schema = document.finish(document.declared(module, name, site, [name]))
    answer: dict[str, Any] = {"module": module, "name": name}
    doc = found.type(module, name)
    if doc is not None and doc.description is not None:
        answer["description"] = doc.description
        answer["summary"] = doc.summary if doc.summary is not None else summary_of(doc.description)
    if schema is not None:
        answer["schema"] = schema
    answer["diagnostics"] = document.problems
    return answer
