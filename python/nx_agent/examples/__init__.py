"""The bundled example program, kept as explain text and assembled on demand.

It has no NX source: its fingerprints are FNV-1a-64 over each identity and an empty source."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

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


#: The support agent of the NX documentation: ``findPlans``, ``lookupOrder`` and ``openTicket`` over
#: the ``shop`` connection, web search and a refund-policy document (identity → text file, version).
SUPPORT_MODULES: dict[str, tuple[str, str]] = {
    "main.nx": ("main.nx.nxir.txt", ""),
    AGENT_LIBRARY[0]: (AGENT_LIBRARY[1], AGENT_LIBRARY[2]),
}
SUPPORT_ENTRY = "main.nx"
#: The doc comments of the support agent's functions, which its images do not keep.
SUPPORT_DESCRIPTIONS = "main.nx.descriptions.json"


def support_images() -> dict[str, bytes]:
    """The support agent's images (its module and the ``@nx/agent`` library), assembled."""
    texts = {
        identity: resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
        for identity, (name, _) in SUPPORT_MODULES.items()
    }
    images = {}
    for identity, (_, version) in SUPPORT_MODULES.items():
        links = [other for key, other in texts.items() if key != identity]
        images[identity] = ir.assemble(texts[identity], version=version, links=links)
    return images


def support_descriptions() -> dict[str, Any]:
    """The support agent's descriptions document (parsed JSON)."""
    document: dict[str, Any] = json.loads(
        resources.files(__name__).joinpath(SUPPORT_DESCRIPTIONS).read_text(encoding="utf-8")
    )
    return document


#: A small conversation flow of our own (schema 6): the component ``Flow`` asks four questions, one
#: per dispatch (free text, then choices), answers each with an ``Answered`` effect, and ends in a
#: ``Summary`` with a ``Restart`` button (``nx-agent demo --flow``).
FLOW_MODULE = ("flow.nx", "flow.nx.nxir.txt", "1")


def flow_text() -> str:
    """The explain text of the conversation flow."""
    return resources.files(__name__).joinpath(FLOW_MODULE[1]).read_text(encoding="utf-8")


def link_flow() -> ir.Program:
    """The conversation flow, assembled (schema 6) and linked."""
    return ir.link_program(ir.prepare_module(ir.assemble(flow_text(), version=FLOW_MODULE[2], schema=6)))


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
