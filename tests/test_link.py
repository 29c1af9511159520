"""link_program: resolvers, versions, missing modules and declarations, and the prelude."""

from __future__ import annotations

import threading

import pytest

from nx_agent import examples, ir

PRELUDE_USER = """\
module counting.nx fingerprint 7
links @nx/prelude.nx version "{version}" fingerprint 16429037828798365428
entrypoints functions [firstThree] components []

function firstThree() =
  <@nx/prelude.nx:Range end=3 endInclusive=false start=0 />
"""


def catalog(text: str | None = None, version: str = "1") -> ir.PreparedModule:
    text = text if text is not None else examples.text("plans/catalog.nx")
    return ir.prepare_module(ir.assemble(text, version=version))


def main() -> ir.PreparedModule:
    return examples.prepare("plans/main.nx")


def test_links_through_a_mapping() -> None:
    shared = catalog()
    program = ir.link_program(main(), {shared.identity: shared})
    assert [m.identity for m in program.modules] == ["plans/main.nx", "plans/catalog.nx"]
    assert program.entry.identity == "plans/main.nx"
    found = program.module("plans/catalog.nx")
    assert found is not None and found.to_bytes() == shared.to_bytes()
    assert program.module("nowhere.nx") is None


def test_links_through_a_callable() -> None:
    shared = catalog()
    asked: list[str] = []

    def resolve(identity: str) -> ir.PreparedModule | None:
        asked.append(identity)
        return shared if identity == "plans/catalog.nx" else None

    program = ir.link_program(main(), resolve)
    assert len(program.modules) == 2
    assert asked == ["plans/catalog.nx"]


def test_a_missing_module_is_named() -> None:
    for resolve in (None, {}, lambda identity: None):
        with pytest.raises(ir.NxIrError) as refused:
            ir.link_program(main(), resolve)
        assert refused.value.code == "nx-ir-link-missing-module"
        message = refused.value.diagnostics[0].message
        assert "plans/catalog.nx" in message and "plans/main.nx" in message


def test_a_version_mismatch_is_refused_then_allowed() -> None:
    newer = catalog(version="2")
    with pytest.raises(ir.NxIrError) as refused:
        ir.link_program(main(), {newer.identity: newer})
    assert refused.value.code == "nx-ir-link-version"
    message = refused.value.diagnostics[0].message
    assert "'1'" in message and "'2'" in message and "plans/catalog.nx" in message
    program = ir.link_program(main(), {newer.identity: newer}, allow_version_mismatch=True)
    assert len(program.modules) == 2


def test_a_missing_declaration_is_named_even_when_versions_may_differ() -> None:
    text = examples.text("plans/catalog.nx")
    renamed = catalog(text.replace("value plans =", "value offers =").replace(" in plans ", " in offers "))
    for allow in (False, True):
        with pytest.raises(ir.NxIrError) as refused:
            ir.link_program(main(), {renamed.identity: renamed}, allow_version_mismatch=allow)
        codes = [d.code for d in refused.value.diagnostics]
        assert "nx-ir-link-missing-declaration" in codes
        assert any("plans" in d.message for d in refused.value.diagnostics)


def test_a_module_under_another_identity_is_refused() -> None:
    imposter = main()
    with pytest.raises(ir.NxIrError) as refused:
        ir.link_program(main(), {"plans/catalog.nx": imposter})
    assert refused.value.code == "nx-ir-link-identity"


def test_resolver_errors_propagate_and_bad_answers_are_type_errors() -> None:
    def broken(identity: str) -> ir.PreparedModule | None:
        raise LookupError(identity)

    with pytest.raises(LookupError):
        ir.link_program(main(), broken)
    with pytest.raises(TypeError):
        ir.link_program(main(), {"plans/catalog.nx": b"not a module"})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        ir.link_program(main(), 42)  # type: ignore[arg-type]


def test_the_builtin_prelude_is_served_and_a_host_prelude_is_version_checked() -> None:
    user = ir.prepare_module(ir.assemble(PRELUDE_USER.format(version="1")))
    program = ir.link_program(user)
    assert [m.identity for m in program.modules] == ["counting.nx", "@nx/prelude.nx"]
    assert ir.prepare_program(ir.assemble(PRELUDE_USER.format(version="1"))).modules[1].version == "1"

    other = ir.prepare_module(ir.assemble(PRELUDE_USER.format(version="host-prelude")))
    with pytest.raises(ir.NxIrError) as refused:
        ir.link_program(other)
    assert refused.value.code == "nx-ir-link-version"
    assert "host-prelude" in refused.value.diagnostics[0].message


def test_prepare_program_refuses_an_image_that_names_other_modules() -> None:
    with pytest.raises(ir.NxIrError) as refused:
        ir.prepare_program(ir.assemble(examples.text("plans/main.nx")))
    assert refused.value.code == "nx-ir-link-missing-module"


def test_one_prepared_module_serves_many_threads() -> None:
    shared = catalog()
    results: list[int] = []

    def link() -> None:
        for _ in range(50):
            results.append(len(ir.link_program(main(), {shared.identity: shared}).modules))

    threads = [threading.Thread(target=link) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [2] * 400
