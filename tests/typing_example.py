"""A small typed use of the package; test_typing checks it with `mypy --strict`."""

from __future__ import annotations

from nx_agent import NxError, ir


def modules_of(entry: bytes, others: dict[str, bytes]) -> list[str]:
    prepared = {name: ir.prepare_module(data) for name, data in others.items()}
    try:
        program = ir.link_program(ir.prepare_module(entry), prepared)
    except ir.NxIrError as error:
        codes: list[str] = [d.code for d in error.diagnostics]
        raise NxError(", ".join(codes)) from error
    return [module.identity for module in program.modules]


def describe(module: ir.PreparedModule) -> str:
    links = ", ".join(f"{link.identity}@{link.version}" for link in module.links)
    return f"{module.identity} {module.fingerprint} [{links}] {module.explain()}"


def resolver(identity: str) -> ir.PreparedModule | None:
    return ir.builtin_prelude() if identity == "@nx/prelude.nx" else None


def text_form(text: str) -> bytes:
    return ir.assemble(text, source=None, version="1")
