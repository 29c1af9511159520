"""Validating values against schema answers with ``jsonschema-rs`` (imported on first use).

Each distinct schema is compiled once: a validator is kept per schema object (held, so its
``id`` stays unique) and per schema text, so neither the same answer nor an equal copy of it is
ever compiled twice. Schemas are treated as immutable: change a schema and pass the changed copy,
not the same object changed in place.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, TypedDict

from ..json_tree import HostValueError, read_json_tree
from .errors import INEXPRESSIBLE_TYPE, SchemaError, diagnostic


class ValidationProblem(TypedDict):
    """One reason a value is not valid: where (a JSON pointer into the value) and why."""

    path: str
    message: str


_BY_ID: OrderedDict[int, tuple[Any, Any]] = OrderedDict()
_BY_TEXT: OrderedDict[str, Any] = OrderedDict()
_CACHE_SIZE = 1024


def _pointer(path: Any) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _schema_of(schema_answer: Mapping[str, Any]) -> Mapping[str, Any]:
    if "inputSchema" in schema_answer:
        schema: Mapping[str, Any] = schema_answer["inputSchema"]
        return schema
    if "parameters" in schema_answer and "resultType" in schema_answer:
        raise SchemaError(
            [diagnostic(INEXPRESSIBLE_TYPE, f"Function '{schema_answer.get('name')}' has no input schema")]
            + list(schema_answer.get("diagnostics", ()))
        )
    return schema_answer


def validator_for(schema: Mapping[str, Any]) -> Any:
    """The compiled validator of ``schema``, compiled on first use."""
    hit = _BY_ID.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    text = json.dumps(schema, separators=(",", ":"))
    validator = _BY_TEXT.get(text)
    if validator is None:
        import jsonschema_rs

        validator = jsonschema_rs.validator_for(dict(schema))
        _BY_TEXT[text] = validator
        if len(_BY_TEXT) > _CACHE_SIZE:
            _BY_TEXT.popitem(last=False)
    _BY_ID[id(schema)] = (schema, validator)
    if len(_BY_ID) > _CACHE_SIZE:
        _BY_ID.popitem(last=False)
    return validator


def validate_input(schema_answer: Mapping[str, Any], value: Any) -> list[ValidationProblem]:
    """What is wrong with ``value`` as the arguments of the function a schema answer describes
    (or against a bare schema): an empty list when it is valid. Raises :class:`SchemaError` for
    an answer with no input schema."""
    validator = validator_for(_schema_of(schema_answer))
    try:
        errors = list(validator.iter_errors(value))
    except (ValueError, TypeError, UnicodeError, RecursionError):
        # Not a JSON value jsonschema-rs can read: say what (a HostValueError, an NxError) or, once it
        # is read as a plain tree (subclasses and their keys made plain), validate that.
        plain = read_json_tree(value)
        try:
            errors = list(validator.iter_errors(plain))
        except UnicodeError as error:
            raise HostValueError("The value holds a string with a lone surrogate, which is not UTF-8 text.") from error
    return [{"path": _pointer(e.instance_path), "message": e.message} for e in errors]


_META: list[Any] = []


def check_schema(schema: Mapping[str, Any]) -> list[ValidationProblem]:
    """What is wrong with ``schema`` as a JSON Schema 2020-12 document (its meta-schema)."""
    if not _META:
        import jsonschema_rs

        _META.append(jsonschema_rs.validator_for({"$ref": "https://json-schema.org/draft/2020-12/schema"}))
    return [{"path": _pointer(e.instance_path), "message": e.message} for e in _META[0].iter_errors(schema)]
