"""Programs for the schema tests, written as `nxlang ir explain` text and assembled.

`module(identity, body, links=...)` writes the header a compiler would (entrypoints = every
function, the features the body needs); `program(...)` assembles and links modules, the first
being the entry. `dumps` is the compact JSON text documents are compared as.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from nx_agent import ir

from corpus import require_corpus

DIALECT = "https://json-schema.org/draft/2020-12/schema"
TOOL_CONTEXT = {"module": "@nx/agent/agent.nx", "name": "ToolContext"}

# Declarations several schema programs hold (conformance-cases.md §E's primitives, constant union,
# abstract record and update record).
SIZES = """
record Sizes
  s: string required
  f: boolean required
  n: int required
  a: int32 required
  b: int64 required
  c: float32 required
  d: float64 required
  o: object required
"""

HTTP_METHOD = """
union HttpMethod
  case get constant
  case post constant
  case put constant
  case patch constant
  case delete constant
"""

SHAPES = """
record Shape abstract
  label: string?

record Circle extends Shape
  label: string?
  r: float64 required

record Square extends Shape
  label: string?
  side: float64 required
"""

USER_UPDATE = """
record User
  name: string required
  email: string?
  age: int = 1

record User.Update update of User
  name: string
  email: string?
  age: int
"""


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def module(identity: str, body: str, *, links: tuple[str, ...] = ()) -> str:
    functions = re.findall(r"^function (\w+)", body, re.M)
    features = []
    if " update of " in body:
        features.append("update-records-v1")
    if " property of " in body:
        features.append("property-unions-v1")
    if "<function ... />" in body:
        features.append("function-reference-type-v1")
    if " where " in body:
        features.append("constraints-v1")
    head = [f"module {identity} fingerprint 1"]
    head += [f'links {link} version "" fingerprint 1' for link in links]
    if features:
        head.append("requires " + " ".join(features))
    head.append(f"entrypoints functions [{' '.join(functions)}] components []")
    body = re.sub(r"\n{3,}", "\n\n", body.strip("\n"))
    return "\n".join(head) + "\n\n" + body + "\n"


def agent_library() -> str:
    """The `@nx/agent` library as the corpus holds it (its explain text)."""
    root = require_corpus()
    text = (root / "agent-tool-context" / "expected" / "@nx__agent__agent.nx.stripped.nxir.txt").read_text()
    return text


def program(*texts: str, sources: dict[str, str] | None = None) -> ir.Program:
    """Assembles every text (with the others as its link targets) and links the first."""
    sources = sources or {}
    modules = {}
    for text in texts:
        identity = re.match(r"module (\S+)", text)
        assert identity is not None
        others = [t for t in texts if t is not text]
        data = ir.assemble(text, links=others, source=sources.get(identity.group(1)))
        modules[identity.group(1)] = ir.prepare_module(data)
    entry = re.match(r"module (\S+)", texts[0])
    assert entry is not None
    return ir.link_program(modules[entry.group(1)], modules)


def main(body: str, *, links: tuple[str, ...] = ()) -> str:
    return module("main.nx", body, links=links)


HERE = Path(__file__).parent
