"""lambda_='auto' on the gradient path tries SAL's w-path start (w ≡ 1, WDRL's ball) only where ERM
scores worse out of fold than the constant prediction beyond a standard error (docs/sal.md, "The
w-path's start where ERM overfits")."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import get_algorithm
from sal_core.algorithms import FitResult
from sal_core.algorithms.wdrl import BALL_VARIANT, WDRL
from sal_core.data import Environment
from sal_core.lambda_selection import Selection
from sal_core.metrics import evaluate


def _noise_heavy(seed: int, n_train: int = 150) -> tuple[list[Environment], Environment]:
    """Three training environments of ``n_train`` rows and a test one of 5,000: 100 covariates, one of
    which matters (logit −2.5 + 1.5·x₀, ~16% positives), so that unpenalised logistic regression
    fits the other 99's noise (its test log-loss is 0.65-1.0 on seeds 0-9, the constant's ~0.44)."""
    rng = np.random.default_rng(seed)
    envs = []
    for e, n in enumerate([n_train] * 3 + [5000]):
        X = rng.standard_normal((n, 100))
        y = (rng.random(n) < 1 / (1 + np.exp(2.5 - 1.5 * X[:, 0]))).astype(float)
        envs.append(Environment(f"e{e}", X, y))
    return envs[:3], envs[3]


def _selection(fit: FitResult) -> Selection:
    assert fit.selection is not None and fit.selection.lambda_ is not None
    return fit.selection.lambda_


def _log_loss(fit: FitResult, test: Environment) -> float:
    return float(evaluate(fit.model, [test], "log_loss")[1].mean_error)


@pytest.fixture
def tried(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each fit's selection asked for the ball (its gate's answers, in order)."""
    answers: list[bool] = []
    gate = WDRL._wants_ball

    def spy(self: WDRL, *args: object) -> bool:
        answers.append(gate(self, *args))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(WDRL, "_wants_ball", spy)
    return answers


def test_where_erm_overfits_beyond_the_noise_the_ball_is_tried_and_wins(tried: list[bool]) -> None:
    """Seed 6: ERM's worst held-out log-loss is above the constant's by more than a standard error,
    and the ball beats the constant by more than one in turn; it is chosen. It is WDRL's fit at that
    λ, and it beats ERM on the test environment's log-loss and error rate."""
    train, test = _noise_heavy(6)
    fit = get_algorithm("sal")(task="classification", seed=6).fit(train)
    sel = _selection(fit)
    assert tried == [True]
    assert sel.candidates[-1].relative is None and sel.candidates[-1].score > sel.null_score
    assert len({c.lambda_ for c in sel.candidates}) == len(sel.candidates), "one variant per λ"
    assert sel.candidates[sel.chosen].variant == BALL_VARIANT
    assert fit.covariate_weights is not None and np.all(fit.covariate_weights == 1.0)
    wdrl = get_algorithm("wdrl")({"lambda_": sel.lambda_}, task="classification", seed=6).fit(train)
    np.testing.assert_allclose(fit.coefficients, wdrl.coefficients, rtol=1e-6, atol=1e-8)
    erm = get_algorithm("erm")(task="classification", seed=6).fit(train)
    assert _log_loss(fit, test) < 0.6 * _log_loss(erm, test)  # 0.38 against 0.90
    errors = [float(evaluate(f.model, [test])[1].mean_error) for f in (fit, erm)]
    assert errors[0] < 0.8 * errors[1]  # 0.139 against 0.213


def test_where_erm_is_within_the_noise_of_the_constant_the_grid_is_unchanged(tried: list[bool]) -> None:
    """Seed 0 of the same data: ERM is no worse than the constant beyond the noise of 30 held-out
    rows per environment; the candidates are SAL's grid as it was, λ = 0.1 with learned w and ERM."""
    train, _ = _noise_heavy(0)
    sel = _selection(get_algorithm("sal")(task="classification", seed=0).fit(train))
    assert tried == [False]
    assert [(c.relative, c.variant) for c in sel.candidates] == [(0.1, ""), (None, "")]


def test_wdrl_and_the_exact_path_never_ask() -> None:
    assert not get_algorithm("wdrl")(task="classification").offers_ball()
    assert not get_algorithm("sal")().offers_ball()  # regression: the exact path
    assert get_algorithm("sal")(task="classification").offers_ball()
