"""On the gradient path lambda_='auto' scores every candidate without a held-out fold, then refits
the chosen one on all rows. A linear model's refit is always kept (its objective is convex in θ, so
where ERM is kept SAL returns ERM's own fit); a network's refit gives way to the candidate where it
scores worse on the held-out fold (docs/sal.md, "A linear refit is kept")."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import get_algorithm
from sal_core.algorithms import FitResult, wdrl
from sal_core.synthetic import homogeneous

REFIT = "refit on all rows"


def _probabilities(fit: FitResult, X: np.ndarray) -> np.ndarray:
    return np.asarray(fit.model.predict_proba(X), dtype=np.float64)


def _every_refit_scores_worse(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slack of −1: the guard would take every refit for one that scored worse on its fold."""
    monkeypatch.setattr(wdrl, "REFIT_SLACK", -1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_linear_refit_is_kept_and_where_erm_is_kept_the_fit_is_erm_s(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _every_refit_scores_worse(monkeypatch)
    setting = homogeneous(seed=seed, n_envs=3, n=120, p=5, task="classification")
    sal = get_algorithm("sal")(task="classification", seed=seed).fit(setting.train)
    assert sal.selection is not None and sal.selection.refit is not None
    assert sal.selection.refit.final_model == REFIT
    selection = sal.selection.lambda_
    assert selection is not None and selection.erm_kept  # no shift: the slopes look alike
    erm = get_algorithm("erm")(task="classification", seed=seed).fit(setting.train)
    X = np.vstack([e.X for e in setting.test])
    np.testing.assert_allclose(_probabilities(sal, X), _probabilities(erm, X), rtol=0, atol=1e-9)


def test_a_network_refit_that_scores_worse_gives_way_to_the_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _every_refit_scores_worse(monkeypatch)
    setting = homogeneous(seed=0, n_envs=3, n=120, p=5, task="classification")
    network = {"kind": "mlp", "hidden": [8]}
    fit = get_algorithm("sal")(task="classification", model=network, seed=0).fit(setting.train)
    assert fit.selection is not None and fit.selection.refit is not None
    assert fit.selection.refit.final_model.startswith(
        "the chosen candidate, fitted without the held-out fold"
    )
