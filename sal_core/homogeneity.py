"""Do the training environments share one linear model? Chow's F test of equal slopes.

H₀: one set of slopes for every environment, each with its own intercept (a level shift is not what
reweighting covariates protects against). H₁: each environment its own least-squares fit. With RSS₀
and RSS₁ the two residual sums of squares and r₀, r₁ the two fits' numbers of coefficients,

    F = ((RSS₀ − RSS₁) / (r₁ − r₀)) / (RSS₁ / (n − r₁)),

F-distributed with (r₁ − r₀, n − r₁) degrees of freedom under H₀ and Gaussian noise of one variance.
Everything comes from per-environment sums of the rows (n, Σz, Σy, Σzzᵀ, Σzy, Σy²), so a table read in
chunks gets the same test. ``lambda_="auto"`` reads it (:mod:`sal_core.exact_selection`): where the
test finds no evidence that the environments differ, a robust candidate may cost only so much.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sal_core.robust_linear import numerical_range

Array = NDArray[np.float64]


@dataclass(frozen=True)
class SlopesTest:
    """Chow's F test that every training environment has the same slopes."""

    statistic: float
    df1: int
    df2: int
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        return {"test": "equal slopes across training environments (Chow's F)", "statistic": self.statistic,
                "df1": self.df1, "df2": self.df2, "p_value": self.p_value}  # fmt: skip


def slopes_test(n: Array, sz: Array, sy: Array, szz: Array, szy: Array, syy: Array) -> SlopesTest | None:
    """The test from per-environment sums: ``n`` (E,), Σz (E, p), Σy (E,), Σzzᵀ (E, p, p), Σzy (E, p),
    Σy² (E,). None where it has no degrees of freedom (one environment, or too few rows)."""
    n = np.asarray(n, dtype=np.float64)
    if n.shape[0] < 2 or (n < 1).any():
        return None
    z_bar, y_bar = sz / n[:, None], sy / n
    # each environment centred on its own means: within-environment sums of squares and products
    czz = szz - n[:, None, None] * z_bar[:, :, None] * z_bar[:, None, :]
    czy = szy - n[:, None] * z_bar * y_bar[:, None]
    cyy = syy - n * y_bar**2
    rss1, rank1 = 0.0, 0
    for e in range(n.shape[0]):
        rss, rank = _residual(czz[e], czy[e], float(cyy[e]), int(n[e]))
        rss1, rank1 = rss1 + rss, rank1 + rank + 1  # + its intercept
    rss0, rank0 = _residual(czz.sum(0), czy.sum(0), float(cyy.sum()), int(n.sum()))
    rank0 += n.shape[0]  # one intercept per environment
    df1, df2 = rank1 - rank0, int(n.sum()) - rank1
    if df1 < 1 or df2 < 1 or rss1 <= 0.0:
        return None
    statistic = max(rss0 - rss1, 0.0) / df1 / (rss1 / df2)
    return SlopesTest(statistic=statistic, df1=df1, df2=df2, p_value=f_survival(statistic, df1, df2))


def _residual(czz: Array, czy: Array, cyy: float, rows: int) -> tuple[float, int]:
    """(RSS, rank) of least squares on centred sums, over `robust_linear.numerical_range`."""
    values, vectors = numerical_range(czz, rows)
    projected = vectors.T @ czy
    return max(cyy - float(projected @ (projected / values)), 0.0), int(values.shape[0])


def f_survival(f: float, d1: int, d2: int) -> float:
    """P(F > f) for F ~ F(d1, d2): the regularised incomplete beta I_x(d2/2, d1/2), x = d2/(d2 + d1·f)."""
    if f <= 0.0:
        return 1.0
    return regularized_beta(d2 / (d2 + d1 * f), d2 / 2.0, d1 / 2.0)


def regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b) by its continued fraction (modified Lentz; Numerical Recipes §6.4), to ~1e-14."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h
