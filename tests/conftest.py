"""Shared fixtures: the corpus (where present) and the bundled example."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


# ---- hypothesis: the "nx-default" profile, or "slow" with --slow (see hypothesis_profiles.py) -----

import hypothesis_profiles  # noqa: E402
import pytest  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="run property tests under the 'slow' hypothesis profile (10x the examples, random seeds)",
    )


def pytest_configure(config: pytest.Config) -> None:
    hypothesis_profiles.load("slow" if config.getoption("--slow") else "nx-default")
