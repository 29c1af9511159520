"""The NX project's conformance corpus, read where it lies (never copied into this repository).

It is found through the ``NX_IR_CONFORMANCE`` environment variable, or beside the checkout at
``../shared/nx-ir-conformance``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

ENV = "NX_IR_CONFORMANCE"
HOW_TO = (
    f"NX IR conformance corpus not found: set {ENV} to a copy of nx-ir-conformance "
    "(or place it at ../shared/nx-ir-conformance beside the checkout)"
)
_SPAN = re.compile(r" @\d+:\d+-\d+:\d+(?= =$|$)", re.M)
_LINK = re.compile(r'^links (\S+) version "((?:[^"\\]|\\.)*)" fingerprint \d+$', re.M)


def corpus_dir() -> Path | None:
    """The corpus folder, or None where there is none."""
    named = os.environ.get(ENV)
    candidates = [Path(named)] if named else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "nx-ir-conformance")
    for candidate in candidates:
        if (candidate / "manifest.json").is_file():
            return candidate
    return None


@dataclass
class CorpusModule:
    identity: str
    stripped: str | None = None
    full: str | None = None
    source: str | None = None
    version: str = ""

    @property
    def stripped_text(self) -> str:
        """The stripped text; where the corpus has only the full one (a library whose source
        it does not hold), that text with its spans taken out."""
        if self.stripped is not None:
            return self.stripped
        assert self.full is not None
        return _SPAN.sub("", self.full)


@dataclass
class CorpusProgram:
    name: str
    path: Path
    modules: dict[str, CorpusModule] = field(default_factory=dict)


def image(program: CorpusProgram, module: CorpusModule, *, full: bool = False, schema: int = 5) -> bytes:
    """The module's image assembled from its text, knowing the program's other modules; with
    `full`, from the full text and the module's source (a debug section). The corpus is NX
    0.7's, and its counts the 0.7 runtime's: schema 5 unless `schema` says otherwise (it uses
    nothing schema 6 added, so it assembles as schema 6 too)."""
    from nx_agent import ir

    links = [m.stripped_text for m in program.modules.values() if m is not module]
    if full:
        assert module.full is not None and module.source is not None
        return ir.assemble(module.full, source=module.source, version=module.version, links=links, schema=schema)
    return ir.assemble(module.stripped_text, version=module.version, links=links, schema=schema)


def identity_of(file_name: str) -> tuple[str, bool]:
    """`app__main.nx.stripped.nxir.txt` → (`app/main.nx`, True)."""
    stem = file_name.removesuffix(".nxir.txt")
    stripped = stem.endswith(".stripped")
    return stem.removesuffix(".stripped").replace("__", "/"), stripped


def programs() -> list[CorpusProgram]:
    """Every program of the corpus, each with the explain texts, sources and versions of its
    modules (a linked module's version is the one its referrers record)."""
    root = corpus_dir()
    if root is None:
        return []
    found = []
    for path in sorted(p for p in root.iterdir() if (p / "expected").is_dir()):
        program = CorpusProgram(path.name, path)
        for text_file in sorted((path / "expected").glob("*.nxir.txt")):
            identity, stripped = identity_of(text_file.name)
            module = program.modules.setdefault(identity, CorpusModule(identity))
            text = text_file.read_text(encoding="utf-8")
            if stripped:
                module.stripped = text
            else:
                module.full = text
            source = path / identity
            if source.is_file():
                module.source = source.read_text(encoding="utf-8")
        for module in program.modules.values():
            for text in (module.stripped, module.full):
                for identity, version in _LINK.findall(text or ""):
                    if identity in program.modules:
                        program.modules[identity].version = version
        found.append(program)
    return found
