"""Moments of training environments as the exact path sees them, one problem or stacked in a batch
(shared by the tests of the numpy and compiled exact paths)."""

from __future__ import annotations

import numpy as np

from sal_core import exact_batch as eb
from sal_core import get_algorithm
from sal_core import robust_linear as rl
from sal_core.algorithms.wdrl import _moments, _target_scale
from sal_core.data import Environment, Standardizer


def moments_of(train: list[Environment]) -> rl.Moments:
    algo = get_algorithm("sal")()
    problem = algo._problem(train, Standardizer.fit(np.concatenate([e.X for e in train])))
    return _moments(problem, _target_scale(problem))[0]


def stack(ms: list[rl.Moments]) -> eb.BatchMoments:
    return eb.BatchMoments(
        np.stack([m.gram for m in ms]), np.stack([m.cross for m in ms]), np.array([m.yy for m in ms]),
        np.stack([m.env_gram for m in ms]), np.stack([m.env_cross for m in ms]), np.stack([m.env_yy for m in ms]),
    )  # fmt: skip
