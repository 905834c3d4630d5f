"""Out-of-fold losses kept as sums: what ``lambda_="auto"`` scores and compares, in a form that
chunks of a table add up (issue 19: the exact path's selection on data bigger than memory).

Of the per-row out-of-fold losses ``l_c`` of the C candidates, the selection
(:mod:`sal_core.lambda_selection`) needs, per training environment:

* each candidate's **score**, the worst environment's mean loss (its root for squared loss):
  ``n`` and ``Σ l_c``;
* the **paired standard error** of ``score_c − score_b`` (:mod:`sal_core.score_noise`): per
  environment the means of ``l_b`` and of ``u = l_c − l_b``, their variances and covariance, from
  ``Σl_b``, ``Σl_b²``, ``Σu``, ``Σu²`` and ``Σu·l_b``.

Sums of the difference ``u`` itself are kept
(``diff_sq``, ``diff_cross``), not derived from ``Σ l_c l_b``: two close candidates differ in the
last digits of each row's loss, and ``Σl_c² − 2Σl_c l_b + Σl_b²`` would lose those (relative error
ε/δ² for losses that differ by a fraction δ, against ε/δ here, as when ``u`` is formed row by
row). tests/sal_core/test_loss_stats.py checks scores and standard errors against the per-row
functions :func:`~sal_core.lambda_selection.score_of` and :func:`~sal_core.lambda_selection.paired_se`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sal_core import score_noise
from sal_core.lambda_selection import Candidate, ErmEvidence

Array = NDArray[np.float64]

BLOCK_ROWS = 2048
"""Rows per block when differences to one candidate are formed, (rows, C): 147 kB at C = 9, in cache
(0.26 s of CPU per 10⁶ rows at C = 9 against 0.35 s forming all (rows, C, C) differences at once)."""


@dataclass(frozen=True)
class LossStats:
    """Sums of the per-row losses of C candidates over each of E environments' rows.

    ``n`` (E,), ``total`` (E, C) Σ l_c, ``square`` (E, C) Σ l_c², ``diff_sq`` (E, C, C)
    Σ (l_c − l_b)², ``diff_cross`` (E, C, C) Σ (l_c − l_b)·l_b. Sums of disjoint rows add (``+``).
    """

    n: Array
    total: Array
    square: Array
    diff_sq: Array
    diff_cross: Array

    @classmethod
    def of_rows(cls, losses: Sequence[Array]) -> LossStats:
        """From per-row losses, one (n_e, C) array per environment."""
        sums = [_env_sums(np.asarray(env, dtype=np.float64)) for env in losses]
        return cls(*(np.stack([s[i] for s in sums]) for i in range(5)))

    def __add__(self, other: LossStats) -> LossStats:
        names = [f.name for f in dataclasses.fields(self)]
        return LossStats(**{k: getattr(self, k) + getattr(other, k) for k in names})

    def take(self, envs: Sequence[int]) -> LossStats:
        """The stats of the listed environments, in that order."""
        index = np.asarray(envs, dtype=np.int64)
        names = [f.name for f in dataclasses.fields(self)]
        return LossStats(**{k: getattr(self, k)[index] for k in names})

    @property
    def n_candidates(self) -> int:
        return int(self.total.shape[1])

    def means(self, c: int) -> Array:
        """Mean loss of candidate c per environment (E,)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(np.where(self.n > 0, self.total[:, c] / self.n, np.nan), dtype=np.float64)


def _env_sums(losses: Array) -> tuple[Array, Array, Array, Array, Array]:
    """(n, Σl, Σl², Σ(l_c − l_b)², Σ(l_c − l_b)·l_b) of one environment's (n_e, C) losses."""
    rows, c = losses.shape
    columns = np.ascontiguousarray(losses.T)  # each candidate's sum as np.mean adds it (pairwise)
    diff_sq, diff_cross = np.zeros((c, c)), np.zeros((c, c))
    for start in range(0, rows, BLOCK_ROWS):
        block = losses[start : start + BLOCK_ROWS]
        for b in range(c):
            u = block - block[:, b : b + 1]  # (rows, C): l_c − l_b for every c
            diff_sq[:, b] += np.einsum("ic,ic->c", u, u)
            diff_cross[:, b] += block[:, b] @ u
    return np.array(float(rows)), columns.sum(1), (columns * columns).sum(1), diff_sq, diff_cross


def score_of(stats: LossStats, c: int, squared: bool) -> tuple[float, list[float]]:
    """(worst environment's error, error per environment) of candidate c, as
    :func:`sal_core.lambda_selection.score_of` gives them from the per-row losses."""
    per_env = [float(v) for v in stats.means(c)]
    errors = [float(np.sqrt(max(v, 0.0))) if squared else v for v in per_env]
    return max(errors), errors


def paired_se(stats: LossStats, c: int, b: int, squared: bool) -> float:
    """Standard error of score(c) − score(b) on the same rows, as
    :func:`sal_core.lambda_selection.paired_se` gives it from the per-row losses."""
    n = stats.n.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.maximum(n, 1.0)
        sum_b, sum_u = stats.total[:, b], stats.total[:, c] - stats.total[:, b]
        dof = np.maximum(n - 1.0, 1.0)
        var_b = (stats.square[:, b] - sum_b * sum_b / safe) / dof
        var_u = (stats.diff_sq[:, c, b] - sum_u * sum_u / safe) / dof
        cov_bu = (stats.diff_cross[:, c, b] - sum_u * sum_b / safe) / dof
        mean_b = np.where(n > 0, sum_b / safe, np.nan)
        mean_u = np.where(n > 0, sum_u / safe, np.nan)
    return score_noise.difference_se(n, mean_b, mean_u, var_b, var_u, cov_bu, squared)


def with_paired_se(
    candidates: Sequence[Candidate], stats: LossStats, columns: Sequence[int], squared: bool
) -> list[Candidate]:
    """Each candidate's ``se`` against the best-scoring one (0 for the best itself); candidate i's
    losses are column ``columns[i]`` of ``stats``."""
    best = min(range(len(candidates)), key=lambda i: candidates[i].score)
    return [
        dataclasses.replace(c, se=0.0 if i == best else paired_se(stats, columns[i], columns[best], squared))
        for i, c in enumerate(candidates)
    ]


def paired_with_erm(
    candidates: Sequence[Candidate], stats: LossStats, columns: Sequence[int]
) -> list[float] | None:
    """Each candidate's standard error paired with ERM, the last candidate (0 for ERM; None where the
    last is not ERM): what :func:`sal_core.lambda_selection.choose` reads where ERM came first and is
    beaten. Candidate i's losses are column ``columns[i]`` of ``stats``."""
    if not candidates or candidates[-1].relative is not None:
        return None
    erm = columns[-1]
    return [0.0 if c == erm else paired_se(stats, c, erm, squared=True) for c in columns]


def beats_erm(stats: LossStats, robust: Sequence[int], erm: int, z: float, squared: bool) -> ErmEvidence:
    """How far the strongest of the ``robust`` candidates (columns of ``stats``) beats ERM (column
    ``erm``), and the simultaneous bar at z (:class:`~sal_core.lambda_selection.ErmEvidence`), from
    the joint draws of every environment's mean losses of all of them
    (:func:`sal_core.score_noise.beats_reference`). The sums give every pair's covariance: with
    u = l − l_erm, Σ u_c u_d = (Σu_c² + Σu_d² − Σ(l_c − l_d)²) / 2."""
    cols = list(robust)
    n, mean, cov = joint_moments(stats, cols, erm)
    t, bar = score_noise.beats_reference(n, mean, cov, z, squared)
    return ErmEvidence(t, bar, len(cols))


def joint_moments(stats: LossStats, robust: Sequence[int], erm: int) -> tuple[Array, Array, Array]:
    """Per environment: rows ``n`` (E,), means (E, K+1) and per-row covariance (E, K+1, K+1, ddof 1)
    of (l_erm, u_1 … u_K) with u_c = l_c − l_erm, for the K ``robust`` columns, from the sums alone."""
    n = stats.n.astype(np.float64)
    safe = np.maximum(n, 1.0)
    cols = list(robust)
    sum_b = stats.total[:, erm]
    sum_u = stats.total[:, cols] - sum_b[:, None]  # (E, K)
    # Σ u_c u_d = (Σu_c² + Σu_d² − Σ(l_c − l_d)²) / 2, with u = l − l_erm
    uu_diag = stats.diff_sq[:, cols, erm]  # (E, K)
    between = stats.diff_sq[:, cols][:, :, cols]  # (E, K, K)
    uu = 0.5 * (uu_diag[:, :, None] + uu_diag[:, None, :] - between)
    ub = stats.diff_cross[:, cols, erm]  # Σ u_c l_b (E, K)
    k = len(cols)
    second = np.empty((n.size, k + 1, k + 1))
    second[:, 0, 0] = stats.square[:, erm]
    second[:, 0, 1:] = second[:, 1:, 0] = ub
    second[:, 1:, 1:] = uu
    first = np.concatenate([sum_b[:, None], sum_u], axis=1)  # (E, K+1)
    mean = first / safe[:, None]
    dof = np.maximum(n - 1.0, 1.0)
    cov = (second - first[:, :, None] * first[:, None, :] / safe[:, None, None]) / dof[:, None, None]
    return n, mean, cov
