"""The batched exact path agrees with the one-problem loop it replaces in lambda_='auto'."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import exact_batch as eb
from sal_core import get_algorithm
from sal_core import robust_linear as rl
from sal_core.algorithms.wdrl import _moments, _target_scale
from sal_core.data import Standardizer
from sal_core.synthetic import anti_causal, selection_bias


def _moments_of(train: list) -> rl.Moments:  # type: ignore[type-arg]
    algo = get_algorithm("sal")()
    problem = algo._problem(train, Standardizer.fit(np.concatenate([e.X for e in train])))
    return _moments(problem, _target_scale(problem))[0]


def _stack(ms: list[rl.Moments]) -> eb.BatchMoments:
    return eb.BatchMoments(
        np.stack([m.gram for m in ms]), np.stack([m.cross for m in ms]), np.array([m.yy for m in ms]),
        np.stack([m.env_gram for m in ms]), np.stack([m.env_cross for m in ms]), np.stack([m.env_yy for m in ms]),
    )  # fmt: skip


def test_a_batch_of_theta_steps_equals_the_single_steps() -> None:
    ms = [_moments_of(selection_bias(r=1.7, n=500, seed=s, n_test=2).train) for s in range(3)]
    rng = np.random.default_rng(0)
    w = np.exp(rng.uniform(0, 2, size=(3, ms[0].gram.shape[0])))
    lam = np.array([0.01, 0.1, 1.0])
    batch = eb.solve_theta(_stack(ms), w, lam)
    for i, m in enumerate(ms):
        one = rl.solve_theta(m, w[i], float(lam[i]))
        np.testing.assert_allclose(batch.theta[i], one.theta, rtol=1e-10, atol=1e-12)
        assert batch.mu[i] == pytest.approx(one.mu, rel=1e-10)


def test_batched_w_paths_equal_the_loop_path_by_path() -> None:
    trains = [anti_causal(1, seed=0, n_test=2).train, selection_bias(r=1.7, n=800, seed=1, n_test=2).train]
    ms = [_moments_of(t) for t in trains]
    ms = [ms[0], ms[0]]  # two λ on one problem, as lambda_='auto' stacks them
    lam = np.array([1e-3, 1e-1])
    settings = eb.PathSettings(rounds=60, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    out = eb.run_paths(_stack(ms), lam, np.ones((2, ms[0].gram.shape[0])), settings, record=True)
    for i in range(2):
        fit = get_algorithm("sal")({"lambda_": float(lam[i]), "rounds": 60, "w_lr": 0.1}).fit(trains[0])
        assert fit.covariate_weights is not None
        np.testing.assert_allclose(np.log(out.w[i]), np.log(fit.covariate_weights), atol=1e-8)
        assert out.risks.shape == (60, 2) and out.ws.shape == (60, 2, ms[0].gram.shape[0])
