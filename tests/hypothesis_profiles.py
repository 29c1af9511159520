"""Hypothesis profiles for the suite: "nx-default" (derandomized, the default) and "slow" (``--slow``)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "nx-default",
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("slow", deadline=None, suppress_health_check=[HealthCheck.too_slow])

_SCALE = {"nx-default": 1, "slow": 10}
_loaded = "nx-default"


def load(name: str) -> None:
    """Load profile ``name`` (called by conftest.py once the options are read)."""
    global _loaded
    settings.load_profile(name)
    _loaded = name


def property_cases(default: int) -> int:
    """A property test's example count: ``default`` normally, ten times as many under ``--slow``."""
    return default * _SCALE[_loaded]
