"""Repeated cross-fitting (``repeats``): ``lambda_="auto"`` scores every candidate on several splits
of the same rows into K folds, each row's out-of-fold loss its mean over the splits, and SAL returns
the mean of all K × repeats fold fits of the chosen λ (sal_core.exact_selection, docs/sal.md)."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import cross_fit, get_algorithm
from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core.data import Environment
from sal_core.synthetic import anti_causal
from tests.sal_core.exact_moments import chosen_fold_paths

SEED = 101


def _problem(repeats: int) -> tuple[object, float, es.Plan]:
    s = anti_causal(1, seed=SEED)
    sal = get_algorithm("sal")({"repeats": repeats}, seed=SEED)
    problem = sal._problem(s.train, sal.fit(s.train).model.standardizer)  # type: ignore[attr-defined]
    return problem, float(problem.y.std()), sal.exact_plan()  # type: ignore[attr-defined]


def _split_sums(problem: object, y_scale: float, k: int, repeats: int) -> list[cross_fit.FoldSums]:
    p = problem  # type: ignore[assignment]
    return [
        cross_fit.fold_sums(p.Z, p.y / y_scale, p.env_index, ls.row_folds(p, k, j), p.n_envs, k)  # type: ignore[attr-defined]
        for j in range(repeats)
    ]


def test_split_zero_is_the_single_split_and_later_splits_are_other_folds() -> None:
    assert all(cross_fit.split_seed(seed, 0) == seed for seed in (0, 7, 2**40))
    seeds = {cross_fit.split_seed(7, j) for j in range(5)}
    assert len(seeds) == 5 and all(0 <= s < 2**63 for s in seeds)
    keys = cross_fit.row_keys(np.random.default_rng(0).normal(size=(5000, 3)), np.zeros(5000))
    a, b = (cross_fit.folds_of(keys, cross_fit.split_seed(7, j), 5) for j in (0, 1))
    assert 0.17 < float(np.mean(a == b)) < 0.23  # independent splits agree on about 1 row in K


def test_auto_repeats_three_times_below_32_covariates_and_once_from_there() -> None:
    s = anti_causal(1, seed=SEED)
    default = get_algorithm("sal")(seed=SEED).fit(s.train)
    thrice = get_algorithm("sal")({"repeats": 3}, seed=SEED).fit(s.train)
    once = get_algorithm("sal")({"repeats": 1}, seed=SEED).fit(s.train)
    np.testing.assert_array_equal(thrice.coefficients, default.coefficients)  # type: ignore[arg-type]
    assert not np.array_equal(once.coefficients, default.coefficients)  # type: ignore[arg-type]
    assert "repeated on 3 splits" in default.selection.to_dict()["scoring"]  # type: ignore[union-attr]
    plan = get_algorithm("sal")().exact_plan()  # type: ignore[attr-defined]
    assert es.splits_for(plan, es.REPEAT_BELOW_P - 1) == es.AUTO_REPEATS == 3
    assert es.splits_for(plan, es.REPEAT_BELOW_P) == 1
    assert es.splits_for(get_algorithm("sal")({"repeats": 2}).exact_plan(), 100) == 2  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    wide = []
    for e, sign in enumerate((1.0, -1.0)):
        X = rng.normal(size=(300, es.REPEAT_BELOW_P))
        y = X[:, :4].sum(1) + rng.normal(size=300)
        X[:, -1] += sign * y  # a spurious tie that flips between the environments
        wide.append(Environment(f"e{e}", X, y))
    fit = get_algorithm("sal")(seed=0).fit(wide)
    assert "repeated" not in fit.selection.to_dict()["scoring"]  # type: ignore[union-attr]


def test_each_score_is_the_worst_environment_of_each_rows_mean_loss_over_the_splits() -> None:
    """ERM's score recomputed by hand from its fold fits on each split: per row the mean of its
    out-of-fold squared errors over the splits, per environment their mean, the worst one's root."""
    problem, y_scale, plan = _problem(3)
    outcome = es.select(problem, y_scale, plan, lambda *_: False)  # type: ignore[arg-type]
    k = plan.folds
    every = _split_sums(problem, y_scale, k, 3)
    row_loss = []
    for j, sums in enumerate(every):
        parts = [sums.part(np.arange(k) != f) for f in range(k)]
        rows = [int(sums.n[:, np.arange(k) != f].sum()) for f in range(k)]
        erm = es.erm_step([m for m, _, _ in parts], rows)
        fits = es.FoldFits(
            erm.theta[None], np.stack([z for _, z, _ in parts]), np.array([y for _, _, y in parts])
        )
        folds = ls.row_folds(problem, k, j).cpu().numpy()  # type: ignore[arg-type]
        Z, y = problem.Z.double().numpy(), problem.y.double().numpy() / y_scale  # type: ignore[attr-defined]
        row_loss.append(es.oof_losses(Z, y, folds, fits, y_scale)[:, 0])
    mean_loss = np.mean(row_loss, axis=0)
    env = problem.env_index.numpy()  # type: ignore[attr-defined]
    want = max(float(np.sqrt(mean_loss[env == e].mean())) for e in range(problem.n_envs))  # type: ignore[attr-defined]
    erm = next(c for c in outcome.selection.candidates if c.relative is None)
    assert erm.score == pytest.approx(want, rel=1e-10)
    assert "repeated on 3 splits" in outcome.selection.scoring


def test_the_model_is_the_mean_of_every_fold_fit_of_every_split() -> None:
    problem, y_scale, plan = _problem(2)
    outcome = es.select(problem, y_scale, plan, lambda *_: False)  # type: ignore[arg-type]
    chosen = outcome.selection.chosen_candidate
    assert chosen.relative is not None, "seed 101 chooses a robust candidate"
    paths = [
        p
        for sums in _split_sums(problem, y_scale, plan.folds, 2)
        for p in chosen_fold_paths(sums, plan, chosen)
    ]
    thetas, ws = [p.theta[0] for p in paths], [p.w[0] for p in paths]
    np.testing.assert_allclose(outcome.theta, np.mean(thetas, axis=0), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(outcome.w_low, np.min(ws, axis=0), rtol=1e-9)  # type: ignore[arg-type]
    np.testing.assert_allclose(outcome.w_high, np.max(ws, axis=0), rtol=1e-9)  # type: ignore[arg-type]
    assert outcome.final_model is not None and "10 fold fits" in outcome.final_model
    evidence = outcome.w_evidence()
    assert evidence is not None and "10 fold fits" in evidence.note


def test_repeated_splits_do_not_depend_on_the_order_of_environments_or_rows() -> None:
    """The stated tolerance of the single split (tests/sal_core/test_lambda_selection.py)."""
    s = anti_causal(1, seed=3)
    rng = np.random.default_rng(3)
    shuffled = []
    for e in reversed(s.train):
        order = rng.permutation(len(e.y))
        shuffled.append(Environment(e.name, e.X[order], e.y[order]))
    a = get_algorithm("sal")({"repeats": 3}, seed=3).fit(s.train)
    b = get_algorithm("sal")({"repeats": 3}, seed=3).fit(shuffled)
    np.testing.assert_allclose(b.coefficients, a.coefficients, atol=1e-6)  # type: ignore[arg-type]
    determined = np.array(a.selection.covariate_weights.determined)  # type: ignore[union-attr]
    np.testing.assert_allclose(
        np.log(b.covariate_weights[determined]),  # type: ignore[index]
        np.log(a.covariate_weights[determined]),  # type: ignore[index]
        atol=1e-3,
    )
