"""The README's code, read from the README itself, so the examples the tests run are the ones a
reader sees."""

from __future__ import annotations

import re
import types
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def section(heading: str) -> str:
    """The text of the README section under ``## heading``, up to the next ``## ``."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if match is None:
        raise LookupError(f"the README has no section {heading!r}")
    return match.group(1)


def code_blocks(heading: str, language: str = "python") -> list[str]:
    """The fenced code blocks of one language in a README section."""
    return re.findall(rf"^```{language}\n(.*?)^```", section(heading), re.M | re.S)


def module(heading: str, namespace: dict[str, object] | None = None) -> types.ModuleType:
    """The section's Python code run as a module (``namespace`` seeds its globals)."""
    blocks = code_blocks(heading)
    if not blocks:
        raise LookupError(f"the README section {heading!r} has no Python code")
    made = types.ModuleType(f"readme_{heading.lower().replace(' ', '_')}")
    made.__dict__.update(namespace or {})
    for block in blocks:
        exec(compile(block, f"README.md ({heading})", "exec"), made.__dict__)  # noqa: S102
    return made
