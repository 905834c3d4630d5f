"""An environment of fewer rows than folds is scored, but does not decide the worst environment
(docs/sal.md, "An environment of fewer rows than folds does not decide")."""

from __future__ import annotations

import math

import numpy as np

from sal_core import Environment, get_algorithm
from sal_core import lambda_selection as ls


def test_environments_with_a_row_per_fold_decide_or_every_one_where_none_has() -> None:
    assert ls.deciding_environments([3575, 236, 3, 2], 5) == [0, 1]
    assert ls.deciding_environments([5, 4], 5) == [0]  # five rows: one per fold
    assert ls.deciding_environments([2, 4, 3], 5) == [0, 1, 2]


def _environments(small_rows: int) -> list[Environment]:
    rng = np.random.default_rng(7)
    envs = []
    for name, n, slope in (("a", 300, 1.0), ("b", 200, 2.0), ("tiny", small_rows, -3.0)):
        x = rng.standard_normal((n, 4))
        y = x[:, 0] + slope * x[:, 1] + 0.5 * rng.standard_normal(n)
        envs.append(Environment(name, x, y))
    return envs


def test_the_worst_environment_is_read_over_the_environments_with_a_row_per_fold() -> None:
    """Every candidate's score is the worst of the two large environments' scores; the 3-row one is
    scored and reported, and the scoring line names it."""
    fit = get_algorithm("sal")({"score_all": True}).fit(_environments(3))
    selection = fit.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and len(selection.candidates) >= 2
    for c in selection.candidates:
        assert set(c.env_scores) == {"a", "b", "tiny"}
        assert math.isclose(c.score, max(c.env_scores["a"], c.env_scores["b"]), rel_tol=1e-12)
    assert any(c.env_scores["tiny"] > c.score for c in selection.candidates)  # it would have decided
    assert "fewer rows than the 5 folds: tiny" in selection.scoring


def test_an_environment_of_a_row_per_fold_decides_as_before() -> None:
    fit = get_algorithm("sal")({"score_all": True}).fit(_environments(5))
    selection = fit.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None
    for c in selection.candidates:
        assert math.isclose(c.score, max(c.env_scores.values()), rel_tol=1e-12)
    assert "fewer rows" not in selection.scoring


def _labelled_environments(small_rows: int) -> list[Environment]:
    """Classification: two large environments and a small one whose labels run against the others'
    (it would score worst on every candidate)."""
    rng = np.random.default_rng(11)
    envs = []
    for name, n, slope in (("a", 300, 1.5), ("b", 200, 3.0), ("tiny", small_rows, -4.0)):
        x = rng.standard_normal((n, 3))
        logits = x[:, 0] + slope * x[:, 1]
        y = (rng.random(n) < 1 / (1 + np.exp(-logits))).astype(float)
        if name == "tiny":
            y = (x[:, 0] - x[:, 1] > 0).astype(float)
            y[:2] = (0.0, 1.0)  # both labels
        envs.append(Environment(name, x, y))
    return envs


def test_on_the_gradient_path_too_the_worst_environment_is_read_over_those_with_a_row_per_fold() -> None:
    """Classification (one held-out fold): the 3-row environment has one held-out row, scored and
    reported but not deciding; the scoring line names it."""
    algorithm = get_algorithm("sal")({"score_all": True, "theta_steps": 20}, task="classification")
    selection = algorithm.fit(_labelled_environments(3)).selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and len(selection.candidates) >= 2
    for c in selection.candidates:
        assert set(c.env_scores) == {"a", "b", "tiny"}
        assert math.isclose(c.score, max(c.env_scores["a"], c.env_scores["b"]), rel_tol=1e-12)
    assert any(c.env_scores["tiny"] > c.score for c in selection.candidates)  # it would have decided
    assert "fewer rows than the 5 folds: tiny" in selection.scoring


def test_on_the_gradient_path_an_environment_of_a_row_per_fold_decides_as_before() -> None:
    algorithm = get_algorithm("sal")({"score_all": True, "theta_steps": 20}, task="classification")
    selection = algorithm.fit(_labelled_environments(5)).selection.lambda_  # type: ignore[union-attr]
    assert selection is not None
    for c in selection.candidates:
        assert math.isclose(c.score, max(c.env_scores.values()), rel_tol=1e-12)
    assert "fewer rows" not in selection.scoring
