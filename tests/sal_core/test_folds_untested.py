"""SAL's ``folds_untested``: where no slopes test can run on the training rows (too few rows per
covariate for Chow's F), ``lambda_="auto"`` cross-fits on 10 folds, not 5; the row-per-fold rules
(which environments decide the worst one, whether any does) still read ``folds``
(docs/sal.md, "More folds where no slopes test runs")."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import cross_fit, get_algorithm
from sal_core import exact_selection as es
from sal_core.algorithms.sal import SAL
from sal_core.data import Environment

P = 12


def _environments(sizes: tuple[int, ...], seed: int = 0) -> list[Environment]:
    """Environments whose slopes differ, of ``sizes`` rows on P covariates."""
    rng = np.random.default_rng(seed)
    beta = rng.standard_normal(P)
    envs = []
    for e, n in enumerate(sizes):
        X = rng.standard_normal((n, P))
        slope = beta + 0.5 * e * rng.standard_normal(P)
        envs.append(Environment(f"e{e}", X, X @ slope + 0.3 * rng.standard_normal(n)))
    return envs


def _selection(params: dict[str, object], sizes: tuple[int, ...], seed: int = 0) -> dict[str, object]:
    fit = get_algorithm("sal")(params, seed=seed).fit(_environments(sizes, seed))
    assert fit.selection is not None
    return fit.selection.to_dict()


@pytest.mark.parametrize("seed", range(3))
def test_where_no_slopes_test_runs_the_selection_cross_fits_on_ten_folds(seed: int) -> None:
    """12 rows per environment on 12 covariates: every environment's own slopes fit its rows
    exactly, so Chow's F has no degrees of freedom."""
    got = _selection({}, (12, 12, 12), seed)
    assert got["homogeneity"] is None
    assert str(got["scoring"]).startswith("10-fold cross-fitting")
    assert "10 folds, not 5" in str(got["scoring"])


def test_folds_untested_at_folds_turns_it_off() -> None:
    got = _selection({"folds_untested": 5}, (12, 12, 12))
    assert str(got["scoring"]).startswith("5-fold cross-fitting")
    assert "not 5" not in str(got["scoring"])


@pytest.mark.parametrize("seed", range(2))
def test_where_the_slopes_test_runs_the_folds_stay_five(seed: int) -> None:
    got = _selection({}, (120, 120), seed)
    assert got["homogeneity"] is not None
    assert str(got["scoring"]).startswith("5-fold cross-fitting within each training environment, repeated")


def test_an_environment_of_fewer_rows_than_ten_still_decides() -> None:
    """Seven rows: a row per fold of five, not of ten. It decides the worst environment under
    ``folds_untested`` as it did before; with ``folds=10`` the row-per-fold rule reads ten and
    leaves it out (the change the prototype made by accident: docs/sal.md)."""
    sizes = (7, 12, 12)
    untested = _selection({}, sizes)
    assert str(untested["scoring"]).startswith("10-fold")
    assert "not deciding" not in str(untested["scoring"])
    ten = _selection({"folds": 10}, sizes)
    assert str(ten["scoring"]).startswith("10-fold")
    assert "fewer rows than the 10 folds: e0" in str(ten["scoring"])


def test_folds_for_reads_the_slopes_test_from_the_sums() -> None:
    plan = SAL().exact_plan()
    assert (plan.folds, plan.folds_untested) == (5, 10)

    def sums(sizes: tuple[int, ...]) -> cross_fit.FoldSums:
        envs = _environments(sizes)
        z = [e.X for e in envs]
        n = np.array([[len(e.y)] for e in envs], dtype=np.float64)
        return cross_fit.FoldSums(
            n=n,
            z=np.stack([x.sum(0) for x in z])[:, None],
            y=np.array([[e.y.sum()] for e in envs]),
            zz=np.stack([x.T @ x for x in z])[:, None],
            zy=np.stack([x.T @ e.y for x, e in zip(z, envs, strict=True)])[:, None],
            yy=np.array([[e.y @ e.y] for e in envs]),
        )

    assert es.folds_for(plan, sums((12, 12))) == 10  # each environment's slopes fit it exactly
    assert es.folds_for(plan, sums((12, 40))) == 5  # 40 rows leave the test degrees of freedom
    wdrl = get_algorithm("wdrl")().exact_plan()
    assert wdrl.folds_untested is None and es.folds_for(wdrl, sums((12, 12))) == 5


def test_wdrl_keeps_its_folds_where_no_test_runs() -> None:
    fit = get_algorithm("wdrl")().fit(_environments((12, 12, 12)))
    assert fit.selection is not None
    assert str(fit.selection.to_dict()["scoring"]).startswith("5-fold cross-fitting")
