"""The README as a walkthrough: every shell command and every Python snippet, in the order a reader
meets them, read from README.md itself (``test_readme_walkthrough`` runs them).

Fenced ``bash`` and ``sh`` blocks hold commands, one a line; ``python`` blocks are snippets, each run
as a script; ``text`` blocks are synopses and are not run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from readme import README

RUN_BY_CI = ("python3 -m pytest", "cargo test", "python3 benches/report.py")
"""Commands the walkthrough does not run, because ``.ci/run`` runs their README line verbatim: the
test suite (which holds the walkthrough itself) and the benchmarks."""

NX_TOOLCHAIN = ("nxlang",)
"""Commands of the NX toolchain, which is built from the NX repository (no registry has it): shown
for a reader's own programs, and not needed by any later step (``demo --write`` gives the files)."""

OUTSIDE_TEST_EXTRA = {"ray": "ray"}
"""Extras the test extra does not hold (each is large: ray is some 240 MB), by the module a snippet
imports: a snippet that imports one runs where it is installed (``.ci/run`` installs it and sets
``NX_AGENT_REQUIRE_EXTRAS=1``, so there a missing one fails) and is reported as not run elsewhere."""

REQUIRE_EXTRAS = "NX_AGENT_REQUIRE_EXTRAS"


def extra_imported(snippet: str) -> str | None:
    """The extra outside the test extra whose module ``snippet`` imports, if any."""
    for extra, module in OUTSIDE_TEST_EXTRA.items():
        if re.search(rf"^(?:import {module}\b|from {module}\b)", snippet, re.M):
            return extra
    return None


#: The import that shows each extra is installed.
EXTRA_MODULES = {
    "": "nx_agent",
    "test": "pytest",
    "http": "httpx",
    "mcp": "mcp",
    "openai-agents": "agents",
    "pydantic-ai": "pydantic_ai",
    "bench": "pytest_benchmark",
}


@dataclass(frozen=True)
class Step:
    """One step: ``kind`` is ``shell`` (``text`` is one command line) or ``python`` (a snippet);
    ``section`` is the README heading it is under, ``line`` its line in the README."""

    kind: str
    text: str
    section: str
    line: int


def steps(readme: Path = README) -> list[Step]:
    """Every command and snippet of the README, in order."""
    found: list[Step] = []
    section = ""
    lines = readme.read_text(encoding="utf-8").splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        if line.startswith("## "):
            section = line[3:].strip()
        fence = re.match(r"^```(\w*)$", line)
        if fence is None:
            at += 1
            continue
        language, start = fence.group(1), at + 1
        end = next(i for i in range(start, len(lines)) if lines[i] == "```")
        body = lines[start:end]
        if language in ("bash", "sh"):
            for offset, command in enumerate(body):
                if command.strip() and not command.lstrip().startswith("#"):
                    found.append(Step("shell", command.strip(), section, start + offset + 1))
        elif language == "python":
            found.append(Step("python", "\n".join(body) + "\n", section, start + 1))
        at = end + 1
    return found


def without_comment(command: str) -> str:
    """The command without a trailing ``# comment`` (a ``#`` after a space, outside quotes)."""
    quote = ""
    for at, char in enumerate(command):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or command[at - 1] == " "):
            return command[:at].rstrip()
    return command.rstrip()


def parts(command: str) -> list[str]:
    """The commands of a line chained with ``&&``."""
    return [part.strip() for part in without_comment(command).split("&&")]


def installed_extras(part: str) -> list[str] | None:
    """The extras a ``pip install`` command installs (``""`` for the package alone); ``None`` for
    another command."""
    words = shlex.split(part)
    if words[:3] == ["python3", "-m", "pip"]:
        words = words[2:]
    if words[:2] != ["pip", "install"]:
        return None
    extras: list[str] = []
    for word in words[2:]:
        if word.startswith("-"):
            continue
        match = re.fullmatch(r"(?:\.|nx-agent)(?:\[([\w,-]+)\])?", word)
        assert match is not None, f"an install the walkthrough does not know: {part!r}"
        extras.extend(match.group(1).split(",") if match.group(1) else [""])
    return extras
