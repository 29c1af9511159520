#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the NX conformance corpus.

Images are assembled from the corpus's explain texts (``tests/corpus.py``, with
``nx_agent.ir.assemble``), so the seeds are regenerated rather than kept in the repository:

* ``prepare_module``: every corpus image, stripped and full (schema 5), the built-in preludes,
  and the schema 6 samples of ``rust/nx-ir-core/tests/schema6/``;
* ``link_program``: per program and module, that module's image first, then the program's other
  images (the input format of ``nx_ir_core::testing::fuzz::link_case``);
* ``evaluate``: per corpus entrypoint, a call with the corpus's arguments over the program's
  images, by ``evaluate_function`` and by ``call_function`` by name and by position
  (``evaluate_case``); and a
  ``call_function`` call per function value a corpus result holds. Inputs over
  ``EVALUATE_MAX_LEN`` (the large-catalog program) are left out: they would slow the target
  down tenfold, and prepare and link cover them;
* ``differential-5``: the ``evaluate`` seeds (schema 5 images) but those calling by position;
* ``differential-6``: the same calls over the corpus assembled as schema 6, each schema 6 sample
  called with arguments inside and outside its bounds, and a module that links the schema 6
  prelude (the differential target, ``oracle/fuzz``, runs each against the reference runtime
  of its schema);
* ``assemble``: every explain text of the corpus (stripped, and full with its source) with its
  program's other texts as links, and every explain text in the repository with the texts beside
  it as links (these without the corpus too), each as schema 5 and as schema 6
  (``assemble_case``).

Usage: ``python3 fuzz/seed.py [OUT]`` (default ``fuzz/corpus``). Needs the installed package.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from corpus import CorpusModule, CorpusProgram, image, programs  # noqa: E402

from nx_agent import ir  # noqa: E402

# Flags of the evaluate input (see Call in rust/nx-ir-core/src/testing/fuzz.rs).
CALL_MODE = 1
FUZZED_FUNCTION = 64
NO_INPUT_LIMIT = 8
POSITIONAL = 128
# The evaluate target's -max_len (fuzz/run.sh).
EVALUATE_MAX_LEN = 32768


def chunk(data: bytes) -> bytes:
    return struct.pack("<I", len(data)) + data


def text(value: str, *, long: bool = False) -> bytes:
    data = value.encode("utf-8", "surrogatepass")
    if long:
        data = data[:0xFFFF]
        return struct.pack("<H", len(data)) + data
    data = data[:0xFF]
    return bytes([len(data)]) + data


def value(v: Any) -> bytes:
    """A host value in the fuzz input's tag encoding."""
    if v is None:
        return b"\x00"
    if v is False:
        return b"\x01"
    if v is True:
        return b"\x02"
    if isinstance(v, int):
        if -128 <= v <= 127:
            return b"\x04" + struct.pack("<b", v)
        return b"\x03" + struct.pack("<q", max(-(2**63), min(2**63 - 1, v)))
    if isinstance(v, float):
        return b"\x05" + struct.pack("<d", v)
    if isinstance(v, str):
        encoded = v.encode("utf-8", "surrogatepass")
        return b"\x06" + text(v) if len(encoded) < 256 else b"\x07" + text(v, long=True)
    if isinstance(v, list):
        items = v[:255]
        return b"\x08" + bytes([len(items)]) + b"".join(value(i) for i in items)
    if isinstance(v, dict):
        type_name = v.get("$type")
        fields = [(k, x) for k, x in v.items() if not (k == "$type" and isinstance(x, str))][:255]
        head = b"\x0a" + text(type_name) if isinstance(type_name, str) else b"\x09"
        body = b"".join(text(k) + value(x) for k, x in fields)
        return head + bytes([len(fields)]) + body
    raise TypeError(f"no encoding for {v!r}")


def call(flags: int, entry: int, args: list[tuple[str, Any]], function: Any = None) -> bytes:
    """The call chunk: entry, decl, budget, input, depth, range, count, then the arguments."""
    head = struct.pack("<BBHHBHB", entry, 0, 0, 0xFFFF, 0, 0, len(args))
    body = value(function) if flags & FUZZED_FUNCTION else b""
    for name, arg in args:
        body += (text(name) if flags & CALL_MODE else b"") + value(arg)
    return head + body


def entrypoints(program: CorpusProgram) -> list[dict[str, Any]]:
    spec = program.path / "program.json"
    if spec.is_file():
        listed: list[dict[str, Any]] = json.loads(spec.read_text("utf-8")).get("entrypoints", [])
        return listed
    results = json.loads((program.path / "expected" / "results.json").read_text("utf-8"))
    return [dict(zip(("module", "function"), key.split("::"))) for key in results]


def function_values(v: Any) -> Iterator[dict[str, Any]]:
    if isinstance(v, dict):
        if v.get("$type") == "Function" and isinstance(v.get("name"), str):
            yield v
        for x in v.values():
            yield from function_values(x)
    elif isinstance(v, list):
        for x in v:
            yield from function_values(x)


def images(program: CorpusProgram, *, full: bool, schema: int = 5) -> dict[str, bytes]:
    def has_full(m: CorpusModule) -> bool:
        return full and m.full is not None and m.source is not None

    return {i: image(program, m, full=has_full(m), schema=schema) for i, m in program.modules.items()}


def ordered(set_: dict[str, bytes], entry: str) -> bytes:
    return chunk(set_[entry]) + b"".join(chunk(b) for i, b in set_.items() if i != entry)


# Flags of the assemble input (see assemble_case in rust/nx-ir-core/src/testing/fuzz.rs).
SCHEMA_5 = 1
WITH_SOURCE = 2
# The repository's folders of explain texts (the same as the_repository_texts_hold_the_assemble_case
# in rust/nx-ir-core/tests/fuzz_regressions.rs).
TEXT_FOLDERS = ("benches/programs", "python/nx_agent/examples", "rust/nx-ir-core/src", "rust/nx-ir-core/tests/schema6")


def assemble_input(text_: str, schema: int, links: list[str], source: str | None = None) -> bytes:
    """The assemble target's input: flags, the text, the source when there is one, the links."""
    flags = (SCHEMA_5 if schema == 5 else 0) | (WITH_SOURCE if source is not None else 0)
    parts = [text_] + ([source] if source is not None else []) + links
    return bytes([flags]) + b"".join(chunk(p.encode("utf-8")) for p in parts)


def assemble_seeds() -> Iterator[tuple[str, bytes]]:
    """(name, input) of the assemble target: the repository's explain texts, then the corpus's."""
    texts = {p: p.read_text("utf-8") for folder in TEXT_FOLDERS for p in sorted((ROOT / folder).glob("*.nxir.txt"))}
    for path, text_ in texts.items():
        beside = [t for p, t in texts.items() if p.parent == path.parent and p != path]
        name = f"{path.parent.name}-{path.name.split('.')[0]}"
        for schema in (5, 6):
            yield f"{name}-{schema}", assemble_input(text_, schema, beside)
    for program in programs():
        for identity, module in program.modules.items():
            links = [m.stripped_text for m in program.modules.values() if m is not module]
            tag = f"{program.name}-{identity.replace('/', '_')}"
            for schema in (5, 6):
                yield f"{tag}-{schema}", assemble_input(module.stripped_text, schema, links)
                if module.full is not None and module.source is not None:
                    yield f"{tag}-full-{schema}", assemble_input(module.full, schema, links, module.source)


# Calls of the schema 6 samples (rust/nx-ir-core/tests/schema6/): inside, on and outside their
# bounds.
POINT = {"$type": "Point", "x": 0.0, "y": 0.0}
SAMPLE_CALLS: dict[str, list[tuple[str, list[Any]]]] = {
    "booking": [
        ("book", [3, 2, 250.0]),
        ("book", [10, 1]),
        ("book", [11, 2, 250.0]),
        ("book", [0, 0, 0.0]),
        ("stayKind", [2]),
        ("stayKind", [5]),
        ("stayKind", [-4]),
        ("quote", [2, 120.0, [10, 99]]),
        ("quote", [1, -1.0, [100]]),
    ],
    "geometry": [
        ("distance", [POINT, {"$type": "Point", "x": 3.0, "y": 4.0}]),
        ("angleDegrees", [POINT, {"$type": "Point", "x": 1.0, "y": 1.0}]),
        ("blend", [0.0, 10.0, 0.25]),
        ("blend", [0.0, 10.0, 2.0]),
        ("snap", [7.3, 0.5]),
        ("every", [0.5, 2.0]),
        ("every", [2.0, -1.0]),
    ],
    "palette": [
        ("swatch", ["#336699"]),
        ("swatch", ["rebeccapurple"]),
        ("swatch", ["not a colour"]),
        ("every", ["#102030", "#ffffff", "hsl(120 50% 50%)"]),
    ],
    "settings": [("darkSettings", [16]), ("darkSettings", [-1])],
}

# A module that links the schema 6 prelude (tests/test_schema6_images.py has the same one).
PRELUDE_USER = """\
module prelude-user.nx fingerprint 7
links @nx/prelude.nx version "1" fingerprint 3805895034114390176
entrypoints functions [firstThree] components []

function firstThree() =
  <@nx/prelude.nx:Range end=3 endInclusive=false start=0 />
"""


def schema6_seeds() -> Iterator[tuple[str, bytes]]:
    """(name, input) of the differential target's schema 6 seeds beyond the corpus."""
    for sample in sorted((ROOT / "rust" / "nx-ir-core" / "tests" / "schema6").glob("*.nxir.txt")):
        name = sample.name.split(".")[0]
        data = ir.assemble(sample.read_text("utf-8"), schema=6)
        functions = list(ir.prepare_module(data).functions)
        for number, (function, args) in enumerate(SAMPLE_CALLS.get(name, [])):
            index = functions.index(function)
            yield f"{name}-{number}", b"\x00" + chunk(call(0, index, [("", a) for a in args])) + chunk(data)
    user = ir.assemble(PRELUDE_USER, schema=6)
    yield "prelude-user", b"\x00" + chunk(call(0, 0, [])) + chunk(user)
    yield "prelude-user-with-prelude", b"\x00" + chunk(call(0, 0, [])) + chunk(user) + chunk(ir.builtin_prelude(schema=6).to_bytes())


def seeds() -> Iterator[tuple[str, str, bytes]]:
    """(target, name, input) for every seed."""
    yield "prepare_module", "prelude", ir.builtin_prelude(schema=5).to_bytes()
    yield "prepare_module", "prelude-6", ir.builtin_prelude(schema=6).to_bytes()
    for sample in sorted((ROOT / "rust" / "nx-ir-core" / "tests" / "schema6").glob("*.nxir.txt")):
        data = ir.assemble(sample.read_text("utf-8"), schema=6)
        yield "prepare_module", f"schema6-{sample.name.split('.')[0]}", data
        yield "link_program", f"schema6-{sample.name.split('.')[0]}", b"\x00" + chunk(data)
    for program in programs():
        stripped = images(program, full=False)
        full = images(program, full=True)
        stripped6 = images(program, full=False, schema=6)
        for variant, set_ in (("stripped", stripped), ("full", full)):
            for identity, data in set_.items():
                tag = f"{program.name}-{identity.replace('/', '_')}-{variant}"
                yield "prepare_module", tag, data
                yield "link_program", tag, b"\x00" + ordered(set_, identity)
        results_file = program.path / "expected" / "results.json"
        results = json.loads(results_file.read_text("utf-8")) if results_file.is_file() else {}
        for number, entry in enumerate(entrypoints(program)):
            module = entry["module"]
            if module not in stripped:
                continue
            functions = list(ir.prepare_module(stripped[module]).functions)
            if entry["function"] not in functions:
                continue
            args = [("", a) for a in entry.get("arguments", [])]
            index = functions.index(entry["function"])
            tag = f"{program.name}-{number}"
            for variant, set_ in (("stripped", stripped), ("full", full), ("stripped-6", stripped6)):
                images_ = ordered(set_, module)
                data = b"\x00" + chunk(call(0, index, args)) + images_
                if variant.endswith("-6"):
                    yield "differential-6", f"{tag}-{variant}", data
                    continue
                yield "evaluate", f"{tag}-{variant}", data
                yield "differential-5", f"{tag}-{variant}", data
            record = {"$type": "Function", "module": module, "name": entry["function"]}
            for suffix, flags in (("call", CALL_MODE | FUZZED_FUNCTION), ("position", CALL_MODE | FUZZED_FUNCTION | POSITIONAL)):
                data = bytes([flags]) + chunk(call(flags, 0, args, record)) + ordered(stripped, module)
                yield "evaluate", f"{tag}-{suffix}", data
            flags = CALL_MODE | FUZZED_FUNCTION
            data = bytes([flags]) + chunk(call(flags, 0, args, record))
            yield "differential-5", f"{tag}-call", data + ordered(stripped, module)
            yield "differential-6", f"{tag}-call-6", data + ordered(stripped6, module)
        seen = set()
        for key, result in results.items():
            module = key.split("::")[0]
            for function in function_values(result):
                target = function.get("module", module)
                name = f"{target}::{function['name']}"
                if target not in stripped or name in seen:
                    continue
                seen.add(name)
                flags = CALL_MODE | FUZZED_FUNCTION | NO_INPUT_LIMIT
                data = bytes([flags]) + chunk(call(flags, 0, [], function)) + ordered(stripped, module)
                yield "evaluate", f"{program.name}-value-{len(seen)}", data
                yield "differential-5", f"{program.name}-value-{len(seen)}", data
    for name, data in schema6_seeds():
        yield "differential-6", f"schema6-{name}", data
    for name, data in assemble_seeds():
        yield "assemble", name, data


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "fuzz" / "corpus"
    counts: dict[str, int] = {}
    for target, name, data in seeds():
        if target in ("evaluate", "differential-5", "differential-6", "assemble") and len(data) > EVALUATE_MAX_LEN:
            continue
        folder = out / target
        folder.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha1(data).hexdigest()[:12]
        (folder / f"seed-{name}-{digest}").write_bytes(data)
        counts[target] = counts.get(target, 0) + 1
    if not counts:
        sys.exit("no seeds: the conformance corpus was not found (see tests/corpus.py)")
    for target, count in sorted(counts.items()):
        print(f"{target}: {count} seeds in {out / target}")


if __name__ == "__main__":
    main()
