"""prepare_module: what an image is, what a refusal looks like, and that bytes are not copied."""

from __future__ import annotations

import hashlib
import struct
import sys

import pytest

import nx_agent
from nx_agent import examples, ir

# The prelude images the NX runtimes publish: their size and SHA-256 are facts we hold them to.
PRELUDE_SIZE = 604
PRELUDE_SHA256 = "4d9bb57822e960bff2be8ecd34cb08dbd4f81104be4fa2cd8ded4b990ead2369"
# nx-ir-runtime 0.8.0 to 0.10.0's src/prelude.nxir (schema 6).
PRELUDE_6_SHA256 = "12831c0b5f969c41b09337b0ced69812482fef1d623b20c311300562d71982ed"


def catalog_image() -> bytes:
    return ir.assemble(examples.text("plans/catalog.nx"), version="1")


def test_builtin_prelude_is_byte_identical_to_the_published_one() -> None:
    prelude = ir.builtin_prelude(schema=5)
    data = prelude.to_bytes()
    assert prelude.schema == 5
    assert len(data) == PRELUDE_SIZE
    assert hashlib.sha256(data).hexdigest() == PRELUDE_SHA256
    assert prelude.identity == "@nx/prelude.nx"
    assert prelude.version == "1"
    assert prelude.fingerprint == 16429037828798365428
    assert prelude.links == ()
    assert prelude.functions == ()


def test_the_schema_6_prelude_is_the_current_releases() -> None:
    prelude = ir.builtin_prelude()
    assert prelude.schema == 6
    data = prelude.to_bytes()
    assert len(data) == PRELUDE_SIZE
    assert hashlib.sha256(data).hexdigest() == PRELUDE_6_SHA256
    assert prelude.fingerprint == 3805895034114390176
    assert ir.builtin_prelude(schema=6).to_bytes() == data
    with pytest.raises(ir.NxIrError) as refused:
        ir.builtin_prelude(schema=4)
    assert refused.value.code == "nx-ir-prelude-image"


def test_prepared_module_describes_the_image() -> None:
    catalog = ir.prepare_module(catalog_image())
    assert catalog.identity == "plans/catalog.nx"
    assert catalog.version == "1"
    assert catalog.fingerprint == 1644848368025960627
    assert catalog.functions == ("planNames",)
    assert catalog.components == ()
    assert catalog.links == ()
    assert not catalog.has_debug_info

    main = examples.prepare("plans/main.nx")
    (link,) = main.links
    assert (link.identity, link.version, link.fingerprint) == (
        "plans/catalog.nx",
        "1",
        1644848368025960627,
    )
    assert main.functions == ("findPlans",)


def test_example_texts_round_trip() -> None:
    for identity, (_, version) in examples.MODULES.items():
        text = examples.text(identity)
        assert ir.explain(ir.assemble(text, version=version)) == text


def test_bytes_are_held_in_place_not_copied() -> None:
    data = catalog_image()
    before = sys.getrefcount(data)
    module = ir.prepare_module(data)
    assert sys.getrefcount(data) == before + 1  # the module holds the very object
    del module
    assert sys.getrefcount(data) == before


@pytest.mark.parametrize("wrap", [bytearray, memoryview, lambda b: memoryview(bytearray(b))])
def test_any_byte_buffer_is_accepted(wrap: object) -> None:
    data = catalog_image()
    module = ir.prepare_module(wrap(data))  # type: ignore[operator]
    assert module.to_bytes() == data


def test_a_mutable_buffer_is_copied_so_later_writes_cannot_reach_the_module() -> None:
    data = bytearray(catalog_image())
    module = ir.prepare_module(data)
    data[:] = bytes(len(data))
    assert module.to_bytes() == catalog_image()
    assert module.functions == ("planNames",)


def test_non_buffers_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        ir.prepare_module(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ir.prepare_module("NXIR")  # type: ignore[arg-type]


def refusal(data: bytes) -> ir.NxIrError:
    with pytest.raises(ir.NxIrError) as refused:
        ir.prepare_module(data)
    return refused.value


@pytest.mark.parametrize("data", [b"", b"NXI", b"not an image", b'{"format":"nx-ir-json"}'])
def test_not_an_image(data: bytes) -> None:
    error = refusal(data)
    assert error.code == "nx-ir-format"
    assert isinstance(error, nx_agent.NxError)
    (diagnostic,) = error.diagnostics
    assert diagnostic.code == "nx-ir-format"
    assert diagnostic.severity == "error"
    assert diagnostic.to_dict()["code"] == "nx-ir-format"


def test_header_cut_short() -> None:
    error = refusal(catalog_image()[:12])
    assert error.code == "nx-ir-malformed"
    assert "header is cut short" in str(error)


@pytest.mark.parametrize("version", [3, 4, 99])
def test_other_schema_versions_are_named(version: int) -> None:
    data = bytearray(catalog_image())
    struct.pack_into("<I", data, 4, version)
    error = refusal(bytes(data))
    assert error.code == "nx-ir-schema-version"
    assert str(version) in error.diagnostics[0].message
    assert "5" in error.diagnostics[0].message


def test_total_length_must_match() -> None:
    data = catalog_image()
    assert refusal(data[:-4]).code == "nx-ir-malformed"
    assert refusal(data + bytes(4)).code == "nx-ir-malformed"


def test_runtime_abi_and_features_are_checked() -> None:
    text = examples.text("plans/catalog.nx")
    image = ir.assemble(text.replace("entrypoints", "requires time-travel-v1\nentrypoints", 1))
    error = refusal(image)
    assert error.code == "nx-ir-required-feature"
    assert "time-travel-v1" in error.diagnostics[0].message
    abi = catalog_image().replace(b"nx-ir-runtime-v2", b"nx-ir-runtime-v9")
    error = refusal(abi)
    assert error.code == "nx-ir-runtime-abi"
    assert "nx-ir-runtime-v9" in error.diagnostics[0].message


def test_every_truncation_is_refused_with_a_code() -> None:
    data = catalog_image()
    for cut in range(0, len(data), 4):
        assert refusal(data[:cut]).code in {"nx-ir-format", "nx-ir-malformed"}
