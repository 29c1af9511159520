"""How the benchmarks time a call of a few microseconds or less."""

from __future__ import annotations

from typing import Any, Callable

#: Calls timed together in each round, and rounds, for a per-call figure.
CALLS_PER_ROUND = 100
ROUNDS = 1_000


def per_call(benchmark: Any, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Times `function(*args, **kwargs)` per call: rounds of CALLS_PER_ROUND calls each, after
    one untimed call; the figures pytest-benchmark records are per call.

    A program builds its Python-side caches (interned texts, record templates) on its first
    call, and pytest-benchmark sizes its rounds from the first call it times: left to itself it
    times a sub-microsecond call alone in each round, the timer's own overhead included. Every
    engine of a workload is timed this same way.
    """
    function(*args, **kwargs)
    return benchmark.pedantic(
        function, args=args, kwargs=kwargs, iterations=CALLS_PER_ROUND, rounds=ROUNDS, warmup_rounds=10
    )
