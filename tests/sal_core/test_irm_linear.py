"""Linear IRM by Newton on sufficient statistics: a stationary point of the γ objective."""

from __future__ import annotations

import numpy as np
import torch

from sal_core import Standardizer, get_algorithm
from sal_core.algorithms.irm import irm_penalties, linear_irm_newton
from sal_core.synthetic import anti_causal, selection_bias


def _objective(problem, theta: torch.Tensor, bias: torch.Tensor, gamma: float) -> torch.Tensor:  # type: ignore[no-untyped-def]
    risks, penalties = irm_penalties(problem, problem.Z @ theta + bias)
    return (risks + gamma * penalties).mean()


def test_newton_reaches_a_stationary_point() -> None:
    for envs in (anti_causal(seed=3).train, selection_bias(n=600, seed=1, n_test=2, test_rs=(2.0,)).train):
        algorithm = get_algorithm("irm")({"penalty_weight": 10.0})
        problem = algorithm._problem(envs, Standardizer.fit(np.concatenate([e.X for e in envs])))
        theta, bias = (t.detach().requires_grad_(True) for t in linear_irm_newton(problem, 10.0))
        value = _objective(problem, theta, bias, 10.0)
        grads = torch.autograd.grad(value, [theta, bias])
        assert float(torch.cat([g.reshape(-1) for g in grads]).norm()) < 1e-7
        theta0, bias0 = (t.detach().clone() for t in linear_irm_newton(problem, 1.0, anneal=False))
        assert float(value.detach()) <= float(_objective(problem, theta0, bias0, 10.0).detach()) + 1e-12


def test_linear_irm_fit_uses_newton_and_keeps_its_history_shape() -> None:
    envs = anti_causal(seed=0).train
    fit = get_algorithm("irm")().fit(envs)
    assert [r.round for r in fit.history] == [1]
    assert list(fit.history[0].env_losses) == [e.name for e in envs]
