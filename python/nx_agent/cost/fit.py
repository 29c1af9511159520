"""Growth fits: which of constant, log, linear, n log n, quadratic and exponential growth explains a
tool's operation counts against input size, by least squares over exact integers (no timing).

Each model is a sum of terms, each nesting the simpler ones (``n log n`` is ``a + b·n + c·n·log n``,
quadratic ``a + b·n + c·n²``), except exponential (``a·bⁿ``, fitted on ``ln y``). The best fit is the
simplest model whose residual is within a small tolerance of the smallest one, so exact linear
counts fit ``linear`` and not ``quadratic`` (whose ``c`` would be 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["MODELS", "Fit", "fit_growth", "recommend_budget"]

#: The candidate models, simplest first.
MODELS = ("constant", "log", "linear", "n log n", "quadratic", "exponential")

#: A model within this share of the mean operations of the smallest residual counts as as good.
TOLERANCE = 0.002


def _log(n: float) -> float:
    return math.log2(n) if n > 1 else 0.0


_TERMS: dict[str, tuple[tuple[str, Callable[[float], float]], ...]] = {
    "constant": (("1", lambda n: 1.0),),
    "log": (("1", lambda n: 1.0), ("log2 n", _log)),
    "linear": (("1", lambda n: 1.0), ("n", lambda n: n)),
    "n log n": (("1", lambda n: 1.0), ("n", lambda n: n), ("n log2 n", lambda n: n * _log(n))),
    "quadratic": (("1", lambda n: 1.0), ("n", lambda n: n), ("n^2", lambda n: n * n)),
}


@dataclass(frozen=True)
class Fit:
    """One model fitted to the points: its coefficients (per term), the root mean square of its
    residuals (``rms``, in operations) and that as a share of the mean count (``relative``)."""

    model: str
    terms: tuple[tuple[str, float], ...]
    rms: float
    relative: float

    def predict(self, n: float) -> float:
        """The operations the model predicts for input size ``n``."""
        if self.model == "exponential":
            (_, a), (_, b) = self.terms
            return float(a * b**n)
        return sum(c * dict(_TERMS[self.model])[name](n) for name, c in self.terms)

    def formula(self) -> str:
        """The fitted model as text (``6.00·n^2 + 2.00·n + 16.0``)."""
        if self.model == "exponential":
            (_, a), (_, b) = self.terms
            return f"{a:.4g}·{b:.4g}^n"
        parts = [f"{c:.4g}" if name == "1" else f"{c:.4g}·{name}" for name, c in reversed(self.terms)]
        return " + ".join(parts).replace("+ -", "- ")


def _solve(rows: list[list[float]], ys: list[float]) -> list[float] | None:
    """Least squares by the normal equations (columns scaled), Gauss–Jordan with pivoting."""
    k = len(rows[0])
    scale = [max(abs(r[j]) for r in rows) or 1.0 for j in range(k)]
    a = [[sum(r[i] / scale[i] * r[j] / scale[j] for r in rows) for j in range(k)] for i in range(k)]
    b = [sum(r[i] / scale[i] * y for r, y in zip(rows, ys)) for i in range(k)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda i: abs(a[i][col]))
        if abs(a[pivot][col]) < 1e-12:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for i in range(k):
            if i != col:
                f = a[i][col] / a[col][col]
                a[i] = [x - f * y for x, y in zip(a[i], a[col])]
                b[i] -= f * b[col]
    return [b[i] / a[i][i] / scale[i] for i in range(k)]


def _fit(model: str, xs: Sequence[int], ys: Sequence[int]) -> Fit | None:
    mean = sum(ys) / len(ys)
    if model == "exponential":
        if any(y <= 0 for y in ys):
            return None
        solved = _solve([[1.0, float(x)] for x in xs], [math.log(y) for y in ys])
        if solved is None:
            return None
        terms: tuple[tuple[str, float], ...]
        try:
            terms = (("a", math.exp(solved[0])), ("b", math.exp(solved[1])))
        except OverflowError:
            return None
    else:
        basis = _TERMS[model]
        solved = _solve([[g(float(x)) for _, g in basis] for x in xs], [float(y) for y in ys])
        if solved is None:
            return None
        terms = tuple((name, c) for (name, _), c in zip(basis, solved))
    fit = Fit(model, terms, 0.0, 0.0)
    try:
        sse = sum((fit.predict(x) - y) ** 2 for x, y in zip(xs, ys))
    except OverflowError:
        return None
    rms = math.sqrt(sse / len(xs))
    return Fit(model, terms, rms, rms / mean if mean else rms)


def fit_growth(points: Sequence[tuple[int, int]]) -> tuple[Fit, list[Fit]]:
    """The best fit of ``(input size, operations)`` points and every candidate that could be
    fitted (a model is fitted only to more distinct sizes than it has coefficients)."""
    if not points:
        raise ValueError("no points to fit")
    xs = [int(x) for x, _ in points]
    ys = [int(y) for _, y in points]
    distinct = len(set(xs))
    fits = []
    for model in MODELS:
        parameters = 1 if model == "constant" else 2 if model in ("log", "linear", "exponential") else 3
        if model != "constant" and distinct <= parameters:
            continue
        fit = _fit(model, xs, ys)
        if fit is not None and math.isfinite(fit.rms):
            fits.append(fit)
    least = min(fit.relative for fit in fits)
    best = next(fit for fit in fits if fit.relative <= least + TOLERANCE)
    return best, fits


def recommend_budget(fit: Fit, points: Sequence[tuple[int, int]], largest: int, margin: float) -> int:
    """The budget for inputs up to size ``largest``: the fit's prediction there (never below a
    measured count) with ``margin`` percent on top, rounded up."""
    measured = max((ops for size, ops in points if size <= largest), default=0)
    predicted = max(fit.predict(largest), float(measured), 0.0)
    return math.ceil(predicted * (1 + margin / 100))
