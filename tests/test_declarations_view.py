"""`PreparedModule.declarations()` shares each name's text: an image whose fields and types all
name one long string converts in proportion to its size, not to their number times its length."""

from __future__ import annotations

import tracemalloc

import pytest

from nx_agent import NxIrError, _native

FIELDS = 2_000
LONG = 20_000


def _image() -> bytes:
    # A module of a long identity and a long field name: every field's type names the module,
    # and the record's fields all share one name.
    identity = "m" * LONG + ".nx"
    field = "f" * LONG
    fields = "".join(f"  {field}: Item\n" for _ in range(FIELDS))
    text = (
        f"module {identity} fingerprint 1\nentrypoints functions [] components []\n\n"
        f"record Item\n  n: int\n\nrecord Many\n{fields}"
    )
    return _native.assemble(text)


def test_every_field_shares_its_name_and_its_types_module() -> None:
    module = _native.prepare_module(_image())
    many = next(d for d in module.declarations() if d["name"] == "Many")
    fields = many["fields"]
    assert len(fields) == FIELDS
    first = fields[0]
    assert first["name"] == "f" * LONG
    assert first["type"] == {"kind": "nominal", "module": "m" * LONG + ".nx", "name": "Item"}
    # One str for every field's name and one for every type's module.
    assert all(f["name"] is first["name"] for f in fields)
    assert all(f["type"]["module"] is first["type"]["module"] for f in fields)


def test_the_view_takes_memory_in_proportion_to_the_image() -> None:
    image = _image()
    module = _native.prepare_module(image)
    tracemalloc.start()
    try:
        declarations = module.declarations()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(declarations) == 2
    # A copy of each name per field would be 2 * FIELDS * LONG = 80 MB.
    assert held < 64 * len(image), f"{held} bytes held for an image of {len(image)}"


def test_a_wide_integer_default_is_a_python_int_unless_python_refuses_its_digits() -> None:
    wide = "9" * 30
    huge = "9" * 5_000  # past Python's limit on the digits `int` reads (4,300)
    text = (
        "module d.nx fingerprint 1\nentrypoints functions [] components []\n\n"
        f"record R\n  a: int = {wide}\n  b: int = neg {wide}\n  c: int = {huge}\n"
    )
    module = _native.prepare_module(_native.assemble(text))
    (record,) = module.declarations()
    a, b, c = (f["default"] for f in record["fields"])
    assert a == {"kind": "literal", "value": int(wide)}
    assert b == {"kind": "literal", "value": -int(wide)}
    assert c == {"kind": "computed"}


def test_an_image_whose_case_type_names_dwarf_it_is_refused_when_prepared() -> None:
    # 2,000 cases of a 20,000-byte union name: 40 MB of `Union.case` names for a 60 kB image.
    cases = "".join(f"  case c{i}\n" for i in range(2_000))
    text = (
        "module u.nx fingerprint 1\nentrypoints functions [] components []\n\n"
        f"union {'U' * LONG}\n{cases}"
    )
    image = _native.assemble(text)
    with pytest.raises(NxIrError) as refused:
        _native.prepare_module(image)
    assert refused.value.code == "nx-ir-resource-limit"
    assert "union cases' type names" in str(refused.value)
