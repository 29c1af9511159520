"""The bundled example program, kept as explain text and assembled on demand.

It has no NX source: its fingerprints are FNV-1a-64 over each identity and an empty source."""

from __future__ import annotations

from importlib import resources

from .. import ir

#: The example's modules: identity → (text file, version).
MODULES: dict[str, tuple[str, str]] = {
    "plans/main.nx": ("plans__main.nx.nxir.txt", ""),
    "plans/catalog.nx": ("plans__catalog.nx.nxir.txt", "1"),
}
ENTRY = "plans/main.nx"


#: Our transcription of the ``@nx/agent`` library's declarations (types only), as explain text.
AGENT_LIBRARY = ("@nx/agent/agent.nx", "nx__agent__agent.nx.nxir.txt", "b06c00c30be50ada")


def library_text() -> str:
    """The explain text of the ``@nx/agent`` library module the agent examples link against."""
    return resources.files(__name__).joinpath(AGENT_LIBRARY[1]).read_text(encoding="utf-8")


def text(identity: str) -> str:
    """The explain text of one example module."""
    name, _ = MODULES[identity]
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def prepare(identity: str) -> ir.PreparedModule:
    """One example module, assembled and prepared."""
    _, version = MODULES[identity]
    links = [text(other) for other in MODULES if other != identity]
    return ir.prepare_module(ir.assemble(text(identity), version=version, links=links))


def link_example() -> ir.Program:
    """The example program, linked."""
    modules = {identity: prepare(identity) for identity in MODULES}
    return ir.link_program(modules[ENTRY], modules)
