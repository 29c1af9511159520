"""The source distribution builds: every file the extension's crates embed when they compile
(`include_str!`, `include_bytes!` under `src/`) is one the sdist carries. maturin carries each
crate's own directory and what `pyproject.toml` includes for the sdist; a file elsewhere in the
repository (a test fixture under `tests/`) builds from a checkout and not from the sdist."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = [ROOT / "rust" / "nx-ir-core", ROOT / "rust" / "nx-agent-py"]
EMBED = re.compile(r'include_(?:str|bytes)!\(\s*"([^"]+)"\s*\)')


def sdist_includes() -> list[str]:
    """The globs of `[tool.maturin] include` whose formats name the sdist."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.findall(r'\{\s*path\s*=\s*"([^"]+)"\s*,\s*format\s*=\s*\[[^\]]*"sdist"', text)


def embedded() -> list[tuple[Path, Path]]:
    """(source file, embedded file) for every embedding in the crates' sources."""
    found = []
    for crate in CRATES:
        for source in sorted((crate / "src").rglob("*.rs")):
            for target in EMBED.findall(source.read_text(encoding="utf-8")):
                found.append((source, (source.parent / target).resolve()))
    return found


def test_every_embedded_file_is_in_the_source_distribution() -> None:
    includes = sdist_includes()
    assert "python/nx_agent/examples/*.txt" in includes
    found = embedded()
    # The preludes, the schema 6 samples, and the stored-instance programs at least.
    assert len(found) >= 8
    outside = []
    for source, target in found:
        assert target.is_file(), f"{source.relative_to(ROOT)} embeds {target}, which is missing"
        crate = next(c for c in CRATES if source.is_relative_to(c))
        relative = target.relative_to(ROOT).as_posix()
        if not target.is_relative_to(crate) and not any(fnmatch.fnmatch(relative, glob) for glob in includes):
            outside.append(f"{source.relative_to(ROOT)} embeds {relative}")
    assert outside == []
