"""Chow's test of equal slopes across training environments (the likelihood ratio for a binary y),
and what lambda_='auto' does with it:
every selection reports it, and with ``cost_cap`` (opt-in) a robust candidate may cost at most that
much out of fold where the environments show no evidence of a difference."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from sal_core import Environment, get_algorithm
from sal_core.homogeneity import (
    chi2_survival,
    f_survival,
    logistic_slopes_test,
    regularized_beta,
    slopes_test,
)
from sal_core.metrics import evaluate
from sal_core.synthetic import anti_causal, homogeneous, selection_bias


def _sums(envs: list[Environment]) -> list[np.ndarray]:
    parts = [(len(e.y), e.X.sum(0), e.y.sum(), e.X.T @ e.X, e.X.T @ e.y, e.y @ e.y) for e in envs]
    return [np.array([p[i] for p in parts], dtype=np.float64) for i in range(6)]


def _chow_by_regressions(envs: list[Environment]) -> tuple[float, int, int]:
    """F from the two fits written out: common slopes with one intercept per environment, and one
    least-squares fit per environment."""
    k, y = len(envs), np.concatenate([e.y for e in envs])
    dummies = np.concatenate([np.eye(k)[np.full(len(e.y), i)] for i, e in enumerate(envs)])
    common = np.column_stack([dummies, np.concatenate([e.X for e in envs])])
    rss0 = float(np.sum((y - common @ np.linalg.lstsq(common, y, rcond=None)[0]) ** 2))
    rss1, rank1 = 0.0, 0
    for e in envs:
        own = np.column_stack([np.ones(len(e.y)), e.X])
        rss1 += float(np.sum((e.y - own @ np.linalg.lstsq(own, e.y, rcond=None)[0]) ** 2))
        rank1 += np.linalg.matrix_rank(own)
    df1, df2 = rank1 - np.linalg.matrix_rank(common), len(y) - rank1
    return (rss0 - rss1) / df1 / (rss1 / df2), df1, df2


def test_the_incomplete_beta_and_the_f_tail_match_scipy() -> None:
    rng = np.random.default_rng(0)
    for a, b, x in rng.uniform([0.2, 0.2, 0.0], [150.0, 150.0, 1.0], (500, 3)):
        assert regularized_beta(x, a, b) == pytest.approx(special.betainc(a, b, x), abs=1e-12)
    for f, d1, d2 in [(0.5, 3, 10), (2.3, 18, 72), (1.0, 1, 1), (10.0, 40, 1000), (1.2, 200, 5)]:
        assert f_survival(f, d1, d2) == pytest.approx(stats.f.sf(f, d1, d2), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_test_from_sums_is_chow_s_f_and_ignores_the_order_of_environments(seed: int) -> None:
    envs = anti_causal(1, seed=seed, n_train=(300, 120, 60)).train
    got = slopes_test(*_sums(envs))
    assert got is not None
    statistic, df1, df2 = _chow_by_regressions(envs)
    assert (got.df1, got.df2) == (df1, df2)
    assert got.statistic == pytest.approx(statistic, rel=1e-8)
    assert got.p_value == pytest.approx(stats.f.sf(statistic, df1, df2), rel=1e-6)
    reversed_ = slopes_test(*_sums(envs[::-1]))
    assert reversed_ is not None and reversed_.statistic == pytest.approx(got.statistic, rel=1e-10)


def test_the_test_holds_its_level_where_nothing_shifts_and_finds_the_anti_causal_shift() -> None:
    p_null = [slopes_test(*_sums(homogeneous(seed=s, n=40).train)).p_value for s in range(200)]  # type: ignore[union-attr]
    assert 0.02 <= np.mean(np.array(p_null) < 0.05) <= 0.09
    p_shift = [slopes_test(*_sums(anti_causal(1, seed=s).train)).p_value for s in range(20)]  # type: ignore[union-attr]
    assert np.mean(np.array(p_shift) < 0.05) >= 0.8


def test_no_test_without_degrees_of_freedom() -> None:
    one = homogeneous(seed=0, n_envs=2, n=40).train[:1]
    assert slopes_test(*_sums(one)) is None


def _ratio(seed: int, **params: float | str) -> float:
    s = homogeneous(seed=seed, n_envs=3, n=30, p=5)
    sal = get_algorithm("sal")(params, seed=seed).fit(s.train)
    erm = get_algorithm("erm")(seed=seed).fit(s.train)
    return float(evaluate(sal.model, s.test)[1].mean_error / evaluate(erm.model, s.test)[1].mean_error)


def test_where_nothing_shifts_and_rows_are_few_sal_stays_at_erm() -> None:
    """Three environments of 30 rows, one linear model: the out-of-fold standard errors are wide, and
    within one of them the most robust candidate cost up to 42% against ERM (seeds 0-9) until the band
    stopped admitting, where ERM scores best, a candidate that ERM beats on every training environment.
    At the defaults SAL now stays within ERM + 1% on average and 3% on every seed (measured: 1.000,
    worst 1.002), and so it does with the opt-in ``cost_cap``."""
    defaults = np.array([_ratio(seed) for seed in range(8)])
    assert defaults.mean() <= 1.01 and defaults.max() <= 1.03, defaults
    robust_first = np.array([_ratio(seed, erm_first="never") for seed in range(8)])  # type: ignore[arg-type]
    assert robust_first.mean() <= 1.01 and robust_first.max() <= 1.03, robust_first
    capped = np.array([_ratio(seed, cost_cap=0.03, erm_first="never") for seed in range(8)])  # type: ignore[arg-type]
    assert capped.mean() <= 1.01 and capped.max() <= 1.03, capped


def test_without_erm_first_the_rule_keeps_sal_at_erm_there() -> None:
    """Seed 0 of that case under the robust-first rule alone (``erm_first="never"``): ERM scores best
    out of fold, and the most robust candidate, which ERM beats on every training environment, costs
    more than 10% at test fitted on its own (measured: 1.42). The rule keeps ERM: the candidate is
    outside one paired standard error of it (since the standard errors read the maximum over
    environments, docs/sal.md "The noise of a maximum"; before, the delta method's band admitted it
    and the ERM veto passed over it), or, if inside, the veto passes over it."""
    s = homogeneous(seed=0, n_envs=3, n=30, p=5)
    fit = get_algorithm("sal")({"erm_first": "never"}, seed=0).fit(s.train)
    selection = fit.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and selection.candidates[selection.best].relative is None
    assert selection.chosen == selection.best
    erm = selection.candidates[selection.best]
    robust = selection.candidates[0]
    assert all(v > erm.env_scores[e] for e, v in robust.env_scores.items())
    outside = robust.score > erm.score + robust.se
    assert outside or "ERM scores better on every training environment" in selection.reason
    alone = get_algorithm("sal")({"lambda_": robust.lambda_}, seed=0).fit(s.train)
    erm_fit = get_algorithm("erm")(seed=0).fit(s.train)
    cost = evaluate(alone.model, s.test)[1].mean_error / evaluate(erm_fit.model, s.test)[1].mean_error
    assert cost > 1.10, cost


def test_the_selection_reports_the_test_and_whether_a_cap_applied() -> None:
    flat = homogeneous(seed=1, n_envs=3, n=30, p=5).train
    kept = get_algorithm("sal")(seed=1).fit(flat).selection.lambda_  # type: ignore[union-attr]
    assert kept is not None and kept.homogeneity is not None
    assert kept.homogeneity.p_value >= 0.05 and kept.cost_cap is None  # off by default
    assert kept.erm_first and kept.erm_kept and kept.chosen_candidate.relative is None
    assert kept.rule.startswith("ERM, since the training environments show no evidence of different slopes")
    assert (
        kept.reason.startswith("ERM kept: the training environments show no evidence")
        and "p = " in kept.reason
    )
    assert kept.to_dict()["erm_kept"] is True
    evidence = {"erm_first": "where_alike"}
    chosen = get_algorithm("sal")(evidence, seed=1).fit(flat).selection.lambda_  # type: ignore[union-attr]
    assert chosen is not None and chosen.erm_first and not chosen.erm_kept
    assert chosen.rule.startswith("ERM unless a candidate beats it by more than 1")
    capped = get_algorithm("sal")({**evidence, "cost_cap": 0.03}, seed=1).fit(flat).selection.lambda_  # type: ignore[union-attr]
    assert capped is not None and capped.cost_cap == 0.03 and "at most 3% above it" in capped.rule
    shifted = get_algorithm("sal")({"cost_cap": 0.03}, seed=110).fit(anti_causal(1, seed=110).train)
    selection = shifted.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and selection.homogeneity is not None
    assert selection.homogeneity.p_value < 0.05 and selection.cost_cap is None  # the slopes differ
    assert not selection.erm_first and not selection.erm_kept  # ... and the robust-first rule runs
    record = selection.to_dict()
    assert record["homogeneity"]["df1"] == selection.homogeneity.df1 and record["cost_cap"] is None
    assert record["erm_first"] is False and record["erm_kept"] is False


# ------------------------------------------------------------------ binary y: the likelihood ratio


@pytest.mark.parametrize(
    ("x", "df"), [(0.5, 1), (3.84, 1), (10.0, 3), (50.0, 20), (1e-3, 5), (200.0, 10), (30.0, 30)]
)
def test_the_chi_squared_tail_matches_scipy(x: float, df: int) -> None:
    assert chi2_survival(x, df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-10, abs=1e-300)


def _loglik_sklearn(X: np.ndarray, y: np.ndarray, intercepts: np.ndarray | None = None) -> float:
    """The maximised log-likelihood of an unpenalised logistic regression, by scikit-learn."""
    from sklearn.linear_model import LogisticRegression

    design = X if intercepts is None else np.column_stack([intercepts[:, 1:], X])
    model = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(design, y)
    prob = np.clip(model.predict_proba(design)[:, 1], 1e-300, 1 - 1e-16)
    return float(np.sum(y * np.log(prob) + (1 - y) * np.log1p(-prob)))


def test_the_likelihood_ratio_is_twice_the_two_fits_log_likelihoods_apart() -> None:
    """Checked against scikit-learn's unpenalised fits: H₁ one logistic regression per environment,
    H₀ common slopes with an intercept per environment; df = (E − 1)·p."""
    s = selection_bias(seed=0, task="classification")
    envs = [(e.X, e.y) for e in s.train]
    test = logistic_slopes_test(envs)
    assert test is not None and test.df2 is None and test.df1 == (len(envs) - 1) * envs[0][0].shape[1]
    ll1 = sum(_loglik_sklearn(X, y) for X, y in envs)
    onehot = np.repeat(np.eye(len(envs)), [len(y) for _, y in envs], axis=0)
    ll0 = _loglik_sklearn(np.vstack([X for X, _ in envs]), np.concatenate([y for _, y in envs]), onehot)
    assert test.statistic == pytest.approx(2 * (ll1 - ll0), rel=1e-5)
    assert test.p_value == pytest.approx(chi2_survival(test.statistic, test.df1))
    assert "likelihood ratio" in test.to_dict()["test"]


def test_the_likelihood_ratio_holds_its_level_and_sees_selection_bias() -> None:
    """No shift (200 seeds, 3 × 100 rows, p = 5): rejected at 5% on at most 10% of the seeds (measured
    8.2% of the 195 where the fits converge: the χ² approximation is liberal with few rows per
    covariate, most where classes nearly separate). Selection bias (classification, seeds 0-9):
    rejected on every seed (p ≤ 0.031)."""
    null = [
        logistic_slopes_test([(e.X, e.y) for e in homogeneous(seed=s, n=100, task="classification").train])
        for s in range(200)
    ]
    ran = [t.p_value for t in null if t is not None]
    assert len(ran) >= 190 and 0.02 <= np.mean(np.array(ran) < 0.05) <= 0.10
    shifted = [
        logistic_slopes_test([(e.X, e.y) for e in selection_bias(seed=s, task="classification").train])
        for s in range(10)
    ]
    assert all(t is not None and t.p_value < 0.05 for t in shifted)


def test_where_classes_separate_the_test_compares_the_likelihoods_suprema() -> None:
    """An environment whose label is a threshold of x₁ (its likelihood's supremum is 1) beside one
    whose label is a coin: the slopes differ, and the test says so; one class alone in an environment,
    or one environment, has no test."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    separated = (X[:, 0] > 0).astype(float)
    mixed = (rng.random(60) < 0.5).astype(float)
    test = logistic_slopes_test([(X, separated), (X, mixed)])
    assert test is not None and test.df1 == 2 and test.p_value < 1e-6
    assert logistic_slopes_test([(X, np.ones(60)), (X, mixed)]) is None
    assert logistic_slopes_test([(X, mixed)]) is None


def test_a_classification_fit_reports_the_test_and_applies_the_cap_where_slopes_look_alike() -> None:
    flat = homogeneous(seed=1, n=100, task="classification").train
    selection = (
        get_algorithm("sal")({"cost_cap": 0.03}, task="classification", seed=1).fit(flat).selection.lambda_
    )  # type: ignore[union-attr]
    assert selection is not None and selection.homogeneity is not None
    assert selection.homogeneity.p_value >= 0.05 and selection.cost_cap == 0.03
    record = selection.to_dict()
    assert record["homogeneity"]["df2"] is None and "likelihood ratio" in record["homogeneity"]["test"]
    biased = selection_bias(seed=0, task="classification").train
    shifted = (
        get_algorithm("sal")({"cost_cap": 0.03}, task="classification", seed=0).fit(biased).selection.lambda_
    )  # type: ignore[union-attr]
    assert shifted is not None and shifted.homogeneity is not None
    assert shifted.homogeneity.p_value < 0.05 and shifted.cost_cap is None  # the slopes differ: no cap
