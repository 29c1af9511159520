"""The stubs are complete enough for `mypy --strict` on typed code that uses the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_mypy_strict_accepts_a_typed_example() -> None:
    example = Path(__file__).with_name("typing_example.py")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(example)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
