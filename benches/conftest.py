import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Per-operation and per-call figures from the fastest rounds, with same-run ratios."""
    from programs import SQUARES_OPERATIONS
    from test_speed import FIGURES

    write = terminalreporter.write_line
    ops = SQUARES_OPERATIONS
    if {"squares end to end", "squares evaluation", "squares python"} <= FIGURES.keys():
        full, evaluation, python = (FIGURES[k] for k in ("squares end to end", "squares evaluation", "squares python"))
        write("squares 0..10^6 metered (%d operations):" % ops)
        write("  evaluation          %6.2f ns/op" % (evaluation / ops * 1e9))
        write("  writing to Python   %6.2f ns/op" % ((full - evaluation) / ops * 1e9))
        write("  end to end          %6.2f ns/op  (%.1f ms, %.2fx CPython's list comprehension, %.1f ms)"
              % (full / ops * 1e9, full * 1e3, full / python, python * 1e3))
        if "squares general" in FIGURES:
            general = FIGURES["squares general"]
            write("  end to end, general interpreter (no fused loop): %6.2f ns/op  (%.1f ms, %.2fx CPython)"
                  % (general / ops * 1e9, general * 1e3, general / python))
    if {"findPlans nx", "findPlans evaluation", "findPlans python"} <= FIGURES.keys():
        full, evaluation, python = (FIGURES[k] for k in ("findPlans nx", "findPlans evaluation", "findPlans python"))
        write("findPlans(teamSize=5) from Python, metered:")
        write("  per call            %6.2f us  (%.2fx a plain Python function, %.2f us)"
              % (full * 1e6, full / python, python * 1e6))
        write("  evaluation only     %6.2f us" % (evaluation * 1e6))
    if {"library findPlans nx", "library findPlans python"} <= FIGURES.keys():
        full, python = FIGURES["library findPlans nx"], FIGURES["library findPlans python"]
        write("agent-library findPlans(teamSize=5) by call_function, metered:")
        write("  per call            %6.2f us  (%.2fx a plain Python function, %.2f us)"
              % (full * 1e6, full / python, python * 1e6))
    if {"library findPlans by position", "library findPlans python"} <= FIGURES.keys():
        full, python = FIGURES["library findPlans by position"], FIGURES["library findPlans python"]
        write("agent-library findPlans(5) by evaluate_function (by position), metered:")
        write("  per call            %6.2f us  (%.2fx a plain Python function, %.2f us)"
              % (full * 1e6, full / python, python * 1e6))

    from programs import RECHECKS_OPERATIONS

    _against_first(
        write, FIGURES, "records checked again, 3 checks per record (10^4 records):", "its own declaration's",
        [("rechecks viaOwn", "as its own declaration"), ("rechecks viaBase", "a subtype as its base"),
         ("rechecks viaUnion", "a union case as its union")],
        lambda key, seconds: "%6.2f ns/op" % (seconds / RECHECKS_OPERATIONS[key.removeprefix("rechecks ")] * 1e9),
    )
    _against_first(
        write, FIGURES, "host input, 1,000 records from Python (7,003 operations):", "the record's",
        [("host records viaRecord", "where a record is declared"), ("host records viaBase", "where its abstract base is"),
         ("host records viaUnion", "where a union is (a case)"),
         ("host records viaBase late", "its base, with $type last"),
         ("host records viaUnion late", "a union, with $type last")],
        lambda key, seconds: "%7.1f us" % (seconds * 1e6),
    )
    _against_first(
        write, FIGURES, "union cases found by name, 1,000 built and checked (10,010 operations):", "the 2 cases'",
        [("union cases 2", "2 cases of 8 bytes"), ("union cases 4096", "4,096 cases of 1,000 bytes")],
        lambda key, seconds: "%7.1f us" % (seconds * 1e6),
    )

    from test_schema6_speed import summary as schema6_summary

    schema6_summary(write)

    from test_flow_speed import summary as flow_summary

    flow_summary(write)

    from test_profile_speed import summary as profile_summary

    profile_summary(write)


def _against_first(
    write: Any, figures: dict[str, float], heading: str, first: str, rows: list[tuple[str, str]],
    shown: Callable[[str, float], str],
) -> None:
    """Under `heading`, one line per row (figure key, label) present in `figures`: the figure as
    `shown` gives it and its ratio to the first row's figure (`first` names that row)."""
    if not {key for key, _ in rows} <= figures.keys():
        return
    base = figures[rows[0][0]]
    write(heading)
    for key, label in rows:
        write("  %-28s %s  (%.2fx %s)" % (label, shown(key, figures[key]), figures[key] / base, first))
