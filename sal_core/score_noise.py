"""How noisy the difference of two worst-environment scores is.

A candidate's score is its worst training environment's mean out-of-fold loss (its root for squared
loss). Two candidates are scored on the same rows, so what the selection needs is the standard error
of ``score(c) − score(b)``.

Per environment the two mean losses are, by the central limit theorem, close to a bivariate normal
whose covariance comes from the per-row losses (or their sums: :mod:`sal_core.loss_stats`). The
environments are independent. The standard error here is the spread of the score difference over
draws of those means (:data:`DRAWS` of them, from a fixed generator, so a fit is reproducible).

Why not the delta method alone: the worst environment is a maximum. Where one environment is clearly
the worst for both candidates, the simulation gives the delta method's answer. Where two
environments are close (a robust fit tends to even out its environments' losses) the worst one can
differ between the candidates, and the delta method then pairs nothing: it adds the two
environments' variances as if the rows were unrelated, and the band it gives a robust candidate can
be several times too wide. Where the worst one agrees by a hair, it ignores that it might not, and
the band is too narrow (tests/sal_core/test_score_noise.py; docs/sal.md, "The noise of a maximum").
"""

from __future__ import annotations

import functools
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

DRAWS = 4000
"""Draws of the environment means: the standard error comes out within about 1% of its limit."""
_SEED = 20261128


def difference_se(
    n: Array,
    mean_b: Array,
    mean_u: Array,
    var_b: Array,
    var_u: Array,
    cov_bu: Array,
    squared: bool,
) -> float:
    """Standard error of ``score(c) − score(b)``, with per environment (arrays of shape (E,)):
    ``n`` rows, ``mean_b`` b's mean loss, ``mean_u`` the mean of ``u = l_c − l_b``, and the per-row
    variances and covariance of ``l_b`` and ``u`` (``ddof=1``). Environments without rows are left
    out; one with a single row counts at its mean.

    The environments are simulated in the order of ``(mean_b, mean_u)``, so the answer does not
    depend on the order they are listed in."""
    order, scale = _simulation_order(n, np.column_stack([mean_b, mean_u]))
    if order.size == 0:
        return 0.0
    vb = np.maximum(np.asarray(var_b, dtype=np.float64)[order], 0.0) * scale
    vu = np.maximum(np.asarray(var_u, dtype=np.float64)[order], 0.0) * scale
    cov = np.asarray(cov_bu, dtype=np.float64)[order] * scale
    # Cholesky of each environment's 2×2 covariance of (mean l_b, mean u)
    sd_b = np.sqrt(vb)
    with np.errstate(invalid="ignore", divide="ignore"):
        coupling = np.where(sd_b > 0, cov / np.where(sd_b > 0, sd_b, 1.0), 0.0)
    rest = np.sqrt(np.maximum(vu - coupling * coupling, 0.0))
    z = _standard_normals(order.size)  # (2, E, DRAWS)
    centre_b, centre_u = (np.asarray(m, dtype=np.float64)[order, None] for m in (mean_b, mean_u))
    m_b = centre_b + sd_b[:, None] * z[0]
    m_c = m_b + centre_u + coupling[:, None] * z[0] + rest[:, None] * z[1]
    diff = _score(m_c, squared) - _score(m_b, squared)
    return float(np.std(diff, ddof=1))


def _simulation_order(n: Array, values: Array) -> tuple[NDArray[np.int64], Array]:
    """The environments with rows, in the order of their ``values`` (E, V) (first column first), so
    that a simulation does not depend on the order they are listed in; and per environment in that
    order the factor from a per-row variance to its mean's (1/n; 0 for a single row, counted at its
    mean)."""
    keep = np.flatnonzero(np.asarray(n) > 0)
    order = keep[np.lexsort(tuple(np.asarray(values, dtype=np.float64)[keep].T[::-1]))]
    rows = np.asarray(n, dtype=np.float64)[order]
    return order, np.where(rows > 1, 1.0 / np.maximum(rows, 1.0), 0.0)


@functools.lru_cache(maxsize=8)
def _standard_normals(environments: int) -> Array:
    """(2, E, DRAWS) draws from the fixed generator, read-only: the same for every call."""
    drawn = np.random.default_rng(_SEED).standard_normal((2, DRAWS, environments))
    z = np.ascontiguousarray(drawn.transpose(0, 2, 1))
    z.setflags(write=False)
    return z


def _score(means: Array, squared: bool) -> Array:
    """The worst environment's error per draw, from (E, draws) mean losses."""
    worst: Array = np.maximum.reduce(means, axis=0)
    return np.sqrt(np.maximum(worst, 0.0)) if squared else worst


def of_rows(losses: list[Array], best: list[Array], squared: bool) -> float:
    """:func:`difference_se` from per-row losses of c and b, one array per environment each."""
    stats = np.array(
        [
            _moments(np.asarray(c, np.float64), np.asarray(b, np.float64))
            for c, b in zip(losses, best, strict=True)
        ]
    )
    n, mean_b, mean_u, var_b, var_u, cov_bu = stats.T
    return difference_se(n, mean_b, mean_u, var_b, var_u, cov_bu, squared)


def _moments(c: Array, b: Array) -> tuple[float, float, float, float, float, float]:
    """(n, mean b, mean u, var b, var u, cov(b, u)) of one environment's rows, u = c − b."""
    n = c.shape[0]
    if n == 0:
        return 0.0, np.nan, np.nan, 0.0, 0.0, 0.0
    u = c - b
    if n == 1:
        return 1.0, float(b[0]), float(u[0]), 0.0, 0.0, 0.0
    cov = np.cov(b, u, ddof=1)
    return float(n), float(b.mean()), float(u.mean()), float(cov[0, 0]), float(cov[1, 1]), float(cov[0, 1])


def beats_reference(n: Array, mean: Array, cov: Array, z: float, squared: bool) -> tuple[float, float]:
    """(t, bar): how far the strongest of K candidates beats a reference b, and the bar it must clear.

    ``t`` is max_c D_c / sd(D_c), D_c = score(b) − score(c) on the observed means, sd over joint draws
    of every environment's mean losses; ``bar`` is the quantile Φ(z) of max_c of the same standardised
    differences, centred, over those draws (a max-t, as in Romano & Wolf 2005): "some candidate beats
    b by more than z standard errors" then keeps the level that one comparison at z has. With K = 1,
    bar = z; it is never below z.

    Per environment (E of them) ``mean`` (E, K+1) holds b's mean loss then the mean differences
    u_c = l_c − l_b of K candidates, and ``cov`` (E, K+1, K+1) their per-row covariance (ddof 1).
    Environments are simulated in an order fixed by their values, as in :func:`difference_se`."""
    k = mean.shape[1] - 1
    order, scale = _simulation_order(n, mean)
    if order.size == 0 or k == 0:
        return -np.inf, z
    draws = _joint_normals(order.size, k + 1)
    sims = []
    for j, e in enumerate(order):
        vals, vecs = np.linalg.eigh(cov[e] * scale[j])
        root = vecs * np.sqrt(np.maximum(vals, 0.0))
        sims.append(mean[e][:, None] + root @ draws[j])  # (K+1, DRAWS)
    m = np.stack(sims)  # (E, K+1, DRAWS)
    d = _score(m[:, 0], squared)[None] - _score(m[:, 0][:, None] + m[:, 1:], squared)  # (K, DRAWS)
    observed = mean[order]
    d_obs = _score(observed[:, :1], squared) - _score(observed[:, :1] + observed[:, 1:], squared)  # (K,)
    sd = d.std(axis=1, ddof=1)
    live = sd > 0
    if not live.any():
        return -np.inf, z
    t = (d[live] - d[live].mean(axis=1, keepdims=True)) / sd[live, None]
    bar = max(z, float(np.quantile(t.max(axis=0), NormalDist().cdf(z))))
    return float(np.max(d_obs[live] / sd[live])), bar


@functools.lru_cache(maxsize=16)
def _joint_normals(environments: int, width: int) -> Array:
    """(E, width, DRAWS) draws from a fixed generator, read-only: the same for every call."""
    z = np.random.default_rng(_SEED + 1).standard_normal((environments, width, DRAWS))
    z.setflags(write=False)
    return z
