"""Moments of training environments as the exact path sees them, one problem or stacked in a batch
(shared by the tests of the numpy, compiled and torch exact paths), and how closely two of those
paths must agree."""

from __future__ import annotations

import numpy as np

from sal_core import cross_fit, get_algorithm
from sal_core import exact_batch as eb
from sal_core import exact_selection as es
from sal_core import robust_linear as rl
from sal_core.algorithms.wdrl import _moments, _target_scale
from sal_core.data import Environment, Standardizer
from sal_core.lambda_selection import Candidate


def moments_of(train: list[Environment]) -> rl.Moments:
    algo = get_algorithm("sal")()
    problem = algo._problem(train, Standardizer.fit(np.concatenate([e.X for e in train])))
    return _moments(problem, _target_scale(problem))[0]


def stack(ms: list[rl.Moments]) -> eb.BatchMoments:
    return eb.BatchMoments(
        np.stack([m.gram for m in ms]), np.stack([m.cross for m in ms]), np.array([m.yy for m in ms]),
        np.stack([m.env_gram for m in ms]), np.stack([m.env_cross for m in ms]), np.stack([m.env_yy for m in ms]),
    )  # fmt: skip


def assert_same_paths(got: eb.PathResult, want: eb.PathResult) -> None:
    """Two ways of walking the same w-paths agree to rounding. The arithmetic differs in the order of
    sums, and in how A is factorised (the numpy path decomposes it below 8 covariates), and Adam's
    normalised steps carry rounding along the paths' plateaus: over 400 rounds log w agreed to 7e-7
    and R to 4e-7 between the compiled and numpy paths in 10 cases, θ to 1e-9 of its largest entry
    at the end and 1e-7 on the way (p = 5); the torch path is within 9e-11 in log w at p = 48."""
    np.testing.assert_allclose(np.log(got.ws), np.log(want.ws), rtol=0, atol=1e-5)
    np.testing.assert_allclose(np.log(got.w), np.log(want.w), rtol=0, atol=1e-5)
    np.testing.assert_allclose(got.theta, want.theta, rtol=0, atol=1e-6 * np.abs(want.theta).max())
    for name in ("mu", "mse", "kappa", "risks", "env_losses"):
        np.testing.assert_allclose(getattr(got, name), getattr(want, name), rtol=1e-5, err_msg=name)
    assert np.log(got.w).max() > 0.1  # the paths left w = 1: the comparison is not of two starts


def chosen_fold_paths(sums: cross_fit.FoldSums, plan: es.Plan, chosen: Candidate) -> list[eb.PathResult]:
    """The chosen robust candidate's w-path on every fold's complement of one split, fitted one by
    one from the split's sums (what the selection's batch must reproduce)."""
    variant = next(v for v, name in es.VARIANT_NAMES.items() if name == chosen.variant)
    k = sums.n_folds
    paths = []
    for j in range(k):
        m, _, _ = sums.part(np.arange(k) != j)
        rows = int(sums.n[:, np.arange(k) != j].sum())
        paths.append(
            eb.run_paths(
                es._one(m, rows),
                np.array([chosen.lambda_]),
                np.ones((1, m.cross.size)),
                plan.settings,
                es._anchor([m], [rows], variant),
            )  # fmt: skip
        )
    return paths


def interpolating_problem(n: int, p: int, seed: int) -> tuple[eb.BatchMoments, np.ndarray, np.ndarray]:
    """One problem of n rows and p > n covariates (y on three of them, with noise), a random w (1, p)
    and the w-metric's minimum-norm interpolant θ (min ‖θ/w‖ with zθ = y): where λ is above any
    κ an interpolant reaches, the θ-step's μ sits at its floor and θ is that interpolant."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, p))
    y = z[:, :3] @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.standard_normal(n)
    z, y = z - z.mean(0), y - y.mean()
    gram, cross, yy = z.T @ z / n, z.T @ y / n, float(y @ y / n)
    bm = eb.BatchMoments(
        gram[None], cross[None], np.array([yy]), gram[None, None], cross[None, None], np.array([[yy]])
    )
    w = np.exp(rng.uniform(0.0, 2.0, (1, p)))
    interpolant = w[0] * np.linalg.lstsq(z * w[0], y, rcond=None)[0]
    return bm, w, interpolant
