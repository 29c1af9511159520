"""Hypothesis strategies for the JSON values a schema of `nx_agent.schema` admits.

Covers the vocabulary the mapping writes: `$ref` into `$defs`, `anyOf`, `const`, `enum`, `type`
(`string`, `integer` with `minimum`/`maximum`, `number`, `boolean`, `array` with `items` and
`minItems`, closed `object` with `properties` and `required`), `not: {type: null}` and `{}`.
Recursion through `$ref` is cut at a depth: past it, optional members are left out and lists
hold only what `minItems` asks for.

Two domains are narrower than the schemas, because JSON Schema cannot state what the runtimes
check there (the NX compiler's mapping writes the same schemas, E12): `integer` values stay within
64 bits (a runtime refuses a wider integer), and `number` values are float32-exact (`float32` and
`float64` both map to `{"type": "number"}`, and a runtime refuses an integral number a float32
cannot hold exactly).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

MAX_DEPTH = 4
INT64 = (-(2**63), 2**63 - 1)

_leaves = (
    st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=8)
)
_json = st.recursive(
    st.none() | _leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_not_null = _json.filter(lambda value: value is not None)
_numbers = st.floats(allow_nan=False, allow_infinity=False, width=32) | st.integers(-(2**24), 2**24)


def values(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid against the document `schema` (its `$defs` are resolved from it)."""
    return _Builder(schema.get("$defs", {})).build(schema, 0)


class _Builder:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs

    def build(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        if "$ref" in schema:
            target = self.defs[schema["$ref"].removeprefix("#/$defs/")]
            return st.deferred(lambda: self.build(target, depth + 1))
        if "anyOf" in schema:
            return st.one_of([self.build(branch, depth) for branch in schema["anyOf"]])
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        if "not" in schema:
            assert schema["not"] == {"type": "null"}, schema
            return _not_null
        kind = schema.get("type")
        if kind is None:
            return _json
        if kind == "null":
            return st.none()
        if kind == "string":
            return st.text(max_size=12)
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            return st.integers(max(schema.get("minimum", INT64[0]), INT64[0]), min(schema.get("maximum", INT64[1]), INT64[1]))
        if kind == "number":
            return _numbers
        if kind == "array":
            least = schema.get("minItems", 0)
            most = least if depth > MAX_DEPTH else least + 3
            return st.lists(self.build(schema["items"], depth + 1), min_size=least, max_size=most)
        if kind == "object":
            properties = schema.get("properties", {})
            required = set(schema.get("required", ()))
            fixed = {k: self.build(v, depth + 1) for k, v in properties.items() if k in required}
            optional = {} if depth > MAX_DEPTH else {
                k: self.build(v, depth + 1) for k, v in properties.items() if k not in required
            }
            return st.fixed_dictionaries(fixed, optional=optional)
        raise AssertionError(f"a schema the mapping does not write: {schema}")
