"""The NX conformance corpus through Python: every text round-trips through assemble and
explain, every image prepares, every program links, and damaged images are refused with a code."""

from __future__ import annotations

import struct

import pytest

from corpus import CorpusModule, CorpusProgram, needs_corpus_mark, over_corpus, programs
from nx_agent import ir

PROGRAMS = programs()
pytestmark = needs_corpus_mark()

MODULES = [(p, m) for p in PROGRAMS for m in p.modules.values()]
MODULE_IDS = [f"{p.name}:{m.identity}" for p, m in MODULES]


def assemble_stripped(module: CorpusModule) -> bytes:
    return ir.assemble(module.stripped_text, version=module.version, schema=5)


@over_corpus(("program", "module"), MODULES, ids=MODULE_IDS)
def test_stripped_text_round_trips(program: CorpusProgram, module: CorpusModule) -> None:
    image = assemble_stripped(module)
    prepared = ir.prepare_module(image)
    assert prepared.identity == module.identity
    assert prepared.version == module.version
    assert not prepared.has_debug_info
    assert ir.explain(image) == module.stripped_text
    assert prepared.explain() == module.stripped_text


FULL = [(p, m) for p, m in MODULES if m.full is not None and m.source is not None]


@over_corpus(("program", "module"), FULL, ids=[f"{p.name}:{m.identity}" for p, m in FULL])
def test_full_text_round_trips(program: CorpusProgram, module: CorpusModule) -> None:
    assert module.full is not None
    image = ir.assemble(module.full, source=module.source, version=module.version, schema=5)
    prepared = ir.prepare_module(image)
    assert prepared.has_debug_info
    assert ir.explain(prepared) == module.full


@over_corpus("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_links(program: CorpusProgram) -> None:
    modules = {
        identity: ir.prepare_module(assemble_stripped(m))
        for identity, m in program.modules.items()
    }
    for identity, entry in modules.items():
        linked = ir.link_program(entry, modules)
        names = [m.identity for m in linked.modules]
        assert names[0] == identity
        for link in entry.links:
            assert link.identity in names


def by_name(name: str) -> CorpusProgram:
    return next(p for p in PROGRAMS if p.name == name)


def test_snippet_image_is_the_documented_848_bytes() -> None:
    # ir-format.md §1.9: the stripped snippet image and its section directory.
    image = assemble_stripped(by_name("snippet").modules["input.nx"])
    assert len(image) == 848
    magic, schema, total, count = struct.unpack_from("<4sIII", image, 0)
    assert (magic, schema, total, count) == (b"NXIR", 5, 848, 6)
    directory = [struct.unpack_from("<III", image, 16 + 12 * i) for i in range(count)]
    assert directory == [
        (0, 0x58, 0x118),
        (1, 0x170, 0x38),
        (2, 0x1A8, 8),
        (3, 0x1B0, 0x28),
        (4, 0x1D8, 0x140),
        (5, 0x318, 0x38),
    ]
    assert struct.unpack_from("<I", image, 0x58)[0] == 20  # strings


def test_two_module_links_through_a_callable_resolver() -> None:
    program = by_name("two-module")
    shared = ir.prepare_module(assemble_stripped(program.modules["shared/model.nx"]))
    entry = ir.prepare_module(assemble_stripped(program.modules["app/main.nx"]))
    asked: list[str] = []

    def resolve(identity: str) -> ir.PreparedModule | None:
        asked.append(identity)
        return shared if identity == shared.identity else None

    linked = ir.link_program(entry, resolve)
    assert [m.identity for m in linked.modules] == ["app/main.nx", "shared/model.nx"]
    assert asked == ["shared/model.nx"]
    with pytest.raises(ir.NxIrError) as refused:
        ir.link_program(entry)
    assert refused.value.code == "nx-ir-link-missing-module"
    assert "shared/model.nx" in refused.value.diagnostics[0].message


def test_ranges_program_is_served_the_builtin_prelude() -> None:
    program = by_name("ranges")
    modules = {i: ir.prepare_module(assemble_stripped(m)) for i, m in program.modules.items()}
    linked = ir.link_program(modules["app/main.nx"], modules)
    prelude = linked.module("@nx/prelude.nx")
    assert prelude is not None
    assert prelude.to_bytes() == ir.builtin_prelude(schema=5).to_bytes()


SAMPLE = [by_name(n).modules[i] for n, i in [("snippet", "input.nx"), ("two-module", "shared/model.nx")]] if PROGRAMS else []


@over_corpus("module", SAMPLE, ids=[m.identity for m in SAMPLE])
def test_damaged_images_are_refused_with_a_code(module: CorpusModule) -> None:
    image = assemble_stripped(module)
    for cut in range(0, len(image), 4):
        with pytest.raises(ir.NxIrError) as refused:
            ir.prepare_module(image[:cut])
        assert refused.value.code in {"nx-ir-format", "nx-ir-malformed"}
    accepted = 0
    for offset in range(0, len(image), 4):
        for value in (0, 1, 0xFFFFFFFF, 0x7FFFFFF0):
            damaged = bytearray(image)
            struct.pack_into("<I", damaged, offset, value)
            try:
                prepared = ir.prepare_module(damaged)
            except ir.NxIrError as error:
                assert error.code.startswith("nx-ir-")
                assert error.diagnostics and error.diagnostics[0].code == error.code
            else:
                accepted += 1
                assert prepared.explain().startswith("module ")
    assert accepted > 0  # some cells (fingerprints, literal values) carry no structure
