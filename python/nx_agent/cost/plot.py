"""Pictures of a cost curve: a PNG and an SVG with matplotlib (the ``plot`` extra, imported only
here and only when a plot is asked for), and a terminal sparkline without it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .fit import Fit

__all__ = ["have_matplotlib", "plot_curve", "sparkline"]

_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[int]) -> str:
    """One block character per value, scaled from the smallest to the largest."""
    if not values:
        return ""
    low, high = min(values), max(values)
    span = high - low
    return "".join(_BARS[0 if span == 0 else round((v - low) * (len(_BARS) - 1) / span)] for v in values)


def have_matplotlib() -> bool:
    try:
        import matplotlib  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


def plot_curve(points: Sequence[tuple[int, int]], fit: Fit, title: str, stem: str | Path,
               *, largest: int | None = None, budget: int | None = None, x_label: str = "input size") -> list[Path]:
    """Draws operations against input size (the measured points, the fitted curve, and the
    recommended budget at the largest input when given) and writes ``STEM.png`` and ``STEM.svg``;
    answers the two paths. Raises ``ImportError`` without matplotlib."""
    import matplotlib  # type: ignore[import-not-found,unused-ignore]

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found,unused-ignore]

    stem = Path(stem)
    if stem.suffix in (".png", ".svg"):
        stem = stem.with_suffix("")
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    right = max(xs + ([largest] if largest is not None else []))
    left = min(xs)
    steps = 200
    curve_x = [left + (right - left) * i / steps for i in range(steps + 1)]
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=100)
    try:
        axes.plot(curve_x, [fit.predict(x) for x in curve_x], color="tab:blue", linewidth=1.5,
                  label=f"{fit.model} fit: {fit.formula()}")
        axes.scatter(xs, ys, color="tab:orange", zorder=3, label="measured operations")
        if largest is not None and budget is not None:
            axes.scatter([largest], [budget], color="tab:red", marker="x", zorder=4,
                         label=f"recommended budget {budget:,} at {largest:,}")
        axes.set_xlabel(x_label)
        axes.set_ylabel("operations")
        axes.set_title(title)
        axes.grid(True, alpha=0.3)
        axes.legend(loc="upper left", fontsize=8)
        figure.tight_layout()
        written = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
        for path in written:
            figure.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)
    finally:
        plt.close(figure)
    return written
