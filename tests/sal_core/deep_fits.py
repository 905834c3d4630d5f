"""Small deep-SAL problems and a short fit, shared by the deep path's tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from sal_core import Standardizer, get_algorithm
from sal_core.algorithms.base import Problem, Reporter
from sal_core.covariate_weights import make_w_update
from sal_core.deep_sal import DeepSALOptions, fit_deep_sal
from sal_core.losses import Task
from sal_core.problem import Solution
from sal_core.synthetic import selection_bias

RELU_MLP = {"kind": "mlp", "hidden": [8], "activation": "relu"}


def deep_problem(
    model: dict[str, Any] = RELU_MLP, n: int = 300, p: int = 6, seed: int = 1, task: Task = "regression"
) -> Problem:
    """Selection-bias training rows (r = 1.7) as SAL with ``model`` builds its problem."""
    envs = selection_bias(r=1.7, n=n, p=p, seed=seed, n_test=2, test_rs=(2.0,), task=task).train
    algorithm = get_algorithm("sal")(task=task, model=model, seed=seed)
    return algorithm._problem(envs, Standardizer.fit(np.concatenate([e.X for e in envs])))


def short_fit(problem: Problem, options: DeepSALOptions, y_scale: float, rounds: int = 3) -> Solution:
    """``rounds`` w-steps of deep SAL at λ = 1, α = 1, std stability, the scaled-log w update."""
    return fit_deep_sal(
        problem,
        lambda_=1.0,
        alpha=1.0,
        stability="std",
        rounds=rounds,
        w_update=make_w_update("scaled_log", 0.3, 1e4),
        reporter=Reporter(None, rounds),
        y_scale=y_scale,
        options=options,
    )
