"""Waiting for something a test cannot be told about (a thread ending, a connection closing)."""

from __future__ import annotations

import time
from collections.abc import Callable


def eventually(condition: Callable[[], bool], within: float) -> bool:
    """Whether ``condition`` holds within ``within`` seconds (polled every 20 ms, and once more at
    the end)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()
