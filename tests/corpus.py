"""The NX project's conformance corpus, read where it lies (never copied into this repository).

It is found through the ``NX_IR_CONFORMANCE`` environment variable, or beside the checkout at
``../shared/nx-ir-conformance``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ENV = "NX_IR_CONFORMANCE"
HOW_TO = (
    f"NX IR conformance corpus not found: set {ENV} to a copy of nx-ir-conformance "
    "(or place it at ../shared/nx-ir-conformance beside the checkout)"
)
#: The skip reason of every test that needs the corpus; ``conftest.py`` counts the tests skipped
#: with it and says so at the end of the run.
NO_CORPUS = "no corpus: see tests/corpus.py"
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


def needs_corpus_mark() -> pytest.MarkDecorator:
    """Skips a test without the corpus (reason :data:`NO_CORPUS`)."""
    return pytest.mark.skipif(corpus_dir() is None, reason=NO_CORPUS)


def over_corpus(argnames: str | tuple[str, ...], cases: list[Any], ids: list[str] | None = None) -> pytest.MarkDecorator:
    """``pytest.mark.parametrize`` over cases read from the corpus; without the corpus, one case
    skipped with :data:`NO_CORPUS`, so the test is counted among those that did not run."""
    if cases:
        return pytest.mark.parametrize(argnames, cases, ids=ids)
    width = len(argnames) if isinstance(argnames, tuple) else len(argnames.split(","))
    placeholder = pytest.param(*([None] * width), marks=pytest.mark.skip(reason=NO_CORPUS), id="no-corpus")
    return pytest.mark.parametrize(argnames, [placeholder])


def require_corpus() -> Path:
    """The corpus folder; without it the calling test is skipped (reason :data:`NO_CORPUS`)."""
    root = corpus_dir()
    if root is None:
        pytest.skip(NO_CORPUS)
    return root


def with_state_records(text: str) -> str:
    """A schema 5 text as NX 0.10 writes the same program (schema 6): each component with state
    names its ``<C>.State`` record (declared at the end, the state's fields without defaults) and
    its update record becomes ``<C>.State.Update``. The same transform as the Rust tests'
    ``support::corpus::with_state_records``."""
    lines = text.splitlines()
    stateful: dict[str, list[str]] = {}
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if not line.startswith("component "):
            continue
        name = line[len("component ") :].split(" ")[0]
        fields: list[str] = []
        in_state = False
        while at < len(lines) and lines[at].startswith("  "):
            inner = lines[at]
            at += 1
            if not inner.startswith("   "):
                in_state = inner == "  state"
                continue
            if in_state and inner.startswith("    ") and not inner.startswith("     "):
                fields.append("  " + inner.strip().split(" = ")[0])
        if fields:
            stateful[name] = fields
    if not stateful:
        return text
    out = []
    for line in lines:
        for name in stateful:
            header = f"component {name}"
            if line == header or line.startswith(header + " "):
                span = re.search(r" @[\d:-]+$", line)
                head, tail = (line[: span.start()], span.group(0)) if span else (line, "")
                line = f"{head} state {name}.State{tail}"
            line = line.replace(f"record {name}.Update update of {name}", f"record {name}.State.Update update of {name}.State")
            line = re.sub(rf"(?<![\w.]){re.escape(name)}\.Update(?![\w.])", f"{name}.State.Update", line)
        out.append(line)
    for name, fields in stateful.items():
        out.append("")
        out.append(f"record {name}.State")
        out.extend(fields)
    return "\n".join(out) + "\n"
