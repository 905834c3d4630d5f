"""Numerical claims about SAL, each checked on several seeds with a margin."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import get_algorithm
from sal_core.metrics import evaluate
from sal_core.synthetic import selection_bias

SEEDS = [0, 1, 2, 3]


@pytest.fixture(scope="module")
def settings() -> dict[int, object]:
    return {seed: selection_bias(r=1.7, n=2000, seed=seed, n_test=1000) for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
def test_sal_beats_erm_under_selection_bias(settings: dict[int, object], seed: int) -> None:
    s = settings[seed]
    erm = get_algorithm("erm")(seed=seed).fit(s.train)
    sal = get_algorithm("sal")(seed=seed).fit(s.train)
    erm_error = evaluate(erm.model, s.test)[1].mean_error
    sal_error = evaluate(sal.model, s.test)[1].mean_error
    assert sal_error < erm_error - 0.01, (sal_error, erm_error)


@pytest.mark.parametrize("seed", SEEDS)
def test_sal_protects_stable_covariates_more_than_the_biased_one(
    settings: dict[int, object], seed: int
) -> None:
    s = settings[seed]
    w = get_algorithm("sal")(seed=seed).fit(s.train).covariate_weights
    biased = [i for i in range(len(w)) if i not in s.stable][0]
    assert np.all(w >= 1.0) and w.min() == pytest.approx(1.0)
    assert w[s.stable].min() > w[biased], w


def test_wdrl_with_a_weak_adversary_is_erm(settings: dict[int, object]) -> None:
    s = settings[0]
    erm = get_algorithm("erm")().fit(s.train)
    wdrl = get_algorithm("wdrl")({"lambda_": 1e6}).fit(s.train)
    np.testing.assert_allclose(wdrl.coefficients, erm.coefficients, atol=1e-4)


def test_wdrl_shrinks_as_the_ball_grows(settings: dict[int, object]) -> None:
    s = settings[0]
    norms = [
        np.linalg.norm(get_algorithm("wdrl")({"lambda_": lam}).fit(s.train).coefficients)
        for lam in (10, 1, 0.1)
    ]
    assert norms[0] > norms[1] > norms[2]


def test_certificate_grows_with_the_ball(settings: dict[int, object]) -> None:
    s = settings[0]
    certs = [get_algorithm("wdrl")({"lambda_": lam}).fit(s.train).certificate for lam in (10.0, 1.0)]
    assert certs[1].worst_case_risk > certs[0].worst_case_risk > 0


def test_cancelled_fit_keeps_partial_history(settings: dict[int, object]) -> None:
    s = settings[0]
    fit = get_algorithm("sal")().fit(s.train, progress=lambda step, total, metrics: step >= 3)
    assert fit.stopped and len(fit.history) == 3
