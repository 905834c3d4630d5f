"""Projection onto W = {w ≥ 1, min w = 1} and the w update rules stay inside W."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core.covariate_weights import make_w_update, project_onto_w_set


def _in_w(w: np.ndarray) -> bool:
    return bool(np.all(w >= 1.0) and np.isclose(w.min(), 1.0))


@pytest.mark.parametrize("seed", range(5))
def test_projection_lands_in_w_and_is_nearest(seed: int) -> None:
    rng = np.random.default_rng(seed)
    v = rng.normal(2.0, 2.0, size=7)
    proj = project_onto_w_set(v)
    assert _in_w(proj)
    np.testing.assert_array_equal(project_onto_w_set(proj), proj)
    best = np.linalg.norm(proj - v)
    for _ in range(2000):
        candidate = np.maximum(1.0, proj + rng.normal(0, 0.5, size=7))
        candidate[rng.integers(7)] = 1.0
        assert np.linalg.norm(candidate - v) >= best - 1e-12


def test_projection_when_everything_exceeds_one_lowers_only_the_smallest() -> None:
    np.testing.assert_array_equal(project_onto_w_set(np.array([3.0, 2.0, 5.0])), [3.0, 1.0, 5.0])


@pytest.mark.parametrize("rule", ["adaptive_log", "scaled_log", "projected"])
def test_updates_stay_in_w_and_follow_the_gradient(rule: str) -> None:
    step = make_w_update(rule, 0.5)
    w = np.ones(4)
    grad = np.array([-1.0, -0.5, 0.2, 0.0])  # descending R wants w_0 and w_1 larger
    for _ in range(10):
        w = step(w, grad)
        assert _in_w(w)
    assert w[0] > w[2] and w[1] > w[2]
