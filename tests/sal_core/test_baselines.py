"""ERM, Ridge and Lasso optima against scikit-learn on the same standardised data; IRM's penalty."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.linear_model import Lasso as SkLasso
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.linear_model import Ridge as SkRidge

from sal_core import Environment, Standardizer, get_algorithm
from sal_core.algorithms.irm import irm_penalties
from sal_core.algorithms.lasso import ConvergenceWarning, linear_proximal_fit
from sal_core.synthetic import anti_causal, selection_bias

RTOL = 1e-4
GRID = (1e-3, 1e-2, 1e-1, 1e0, 1e1)


def _pooled(envs: list[Environment]) -> tuple[np.ndarray, np.ndarray]:
    """The standardised pooled covariates Z, exactly as ``Algorithm.fit`` builds them, and y."""
    X = np.concatenate([e.X for e in envs])
    return Standardizer.fit(X).transform(X), np.concatenate([e.y for e in envs])


def _close(ours: np.ndarray, theirs: np.ndarray) -> None:
    # Relative to the largest coefficient, so exact zeros (Lasso) compare on the same footing.
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=RTOL * max(1.0, float(np.abs(theirs).max())))


def _regression_settings() -> list[list[Environment]]:
    return [
        selection_bias(n=600, seed=1, n_test=2, test_rs=(2.0,)).train,
        selection_bias(r=2.0, n=900, p=12, seed=2, n_test=2, test_rs=(2.0,)).train,
        anti_causal(seed=3, n_train=(300, 100, 40), n_test=2).train,
    ]


@pytest.mark.parametrize("setting", range(3))
def test_erm_matches_linear_regression(setting: int) -> None:
    envs = _regression_settings()[setting]
    Z, y = _pooled(envs)
    fit = get_algorithm("erm")().fit(envs)
    sk = LinearRegression().fit(Z, y)
    _close(fit.coefficients, sk.coef_)
    assert fit.intercept == pytest.approx(sk.intercept_, rel=RTOL)


@pytest.mark.parametrize("setting", range(3))
def test_ridge_matches_sklearn_ridge_with_alpha_n_lambda(setting: int) -> None:
    envs = _regression_settings()[setting]
    Z, y = _pooled(envs)
    for lam in GRID:
        fit = get_algorithm("ridge")({"lambda_": lam}).fit(envs)
        sk = SkRidge(alpha=len(y) * lam).fit(Z, y)
        _close(fit.coefficients, sk.coef_)
        assert fit.intercept == pytest.approx(sk.intercept_, rel=RTOL)
        assert fit.history[0].risk == pytest.approx(
            np.mean((y - Z @ sk.coef_ - sk.intercept_) ** 2) + lam * sk.coef_ @ sk.coef_, rel=RTOL
        )


@pytest.mark.parametrize("setting", range(3))
def test_lasso_matches_sklearn_lasso_with_alpha_lambda(setting: int) -> None:
    envs = _regression_settings()[setting]
    Z, y = _pooled(envs)
    zero_counts = []
    for lam in GRID:
        fit = get_algorithm("lasso")({"lambda_": lam}).fit(envs)
        sk = SkLasso(alpha=lam, tol=1e-12, max_iter=1_000_000).fit(Z, y)
        _close(fit.coefficients, sk.coef_)
        assert fit.intercept == pytest.approx(sk.intercept_, rel=RTOL)
        zero_counts.append(int(np.sum(fit.coefficients == 0.0)))
    assert zero_counts == sorted(zero_counts) and zero_counts[-1] > zero_counts[0], (
        "L1 zeroes more as λ grows"
    )


def test_lasso_zeroes_everything_exactly_from_lambda_max() -> None:
    envs = _regression_settings()[0]
    Z, y = _pooled(envs)
    # KKT at θ = 0: every |∂/∂θ_j of (1/2n)‖y - Zθ - b‖²| ≤ λ, so λ_max = ‖Zᵀ(y - ȳ)‖_∞ / n.
    lam_max = float(np.abs(Z.T @ (y - y.mean())).max() / len(y))
    above = get_algorithm("lasso")({"lambda_": lam_max * 1.001}).fit(envs)
    below = get_algorithm("lasso")({"lambda_": lam_max * 0.95}).fit(envs)
    assert np.all(above.coefficients == 0.0) and above.intercept == pytest.approx(y.mean())
    assert np.count_nonzero(below.coefficients) >= 1


def _classification_envs(seed: int) -> list[Environment]:
    return selection_bias(task="classification", n=500, seed=seed, n_test=2, test_rs=(2.0,)).train


@pytest.mark.parametrize("seed", [0, 1])
def test_logistic_ridge_matches_sklearn(seed: int) -> None:
    envs = _classification_envs(seed)
    Z, y = _pooled(envs)
    for lam in (1e-3, 1e-2, 1e-1):
        fit = get_algorithm("ridge")({"lambda_": lam}, task="classification").fit(envs)
        # LogisticRegression minimises C·Σ ℓ + ½‖θ‖², i.e. mean ℓ + ‖θ‖²/(2Cn): C = 1/(2nλ).
        sk = LogisticRegression(C=1 / (2 * len(y) * lam), tol=1e-12, max_iter=10_000).fit(Z, y)
        _close(fit.coefficients, sk.coef_[0])
        assert fit.intercept == pytest.approx(sk.intercept_[0], rel=RTOL, abs=RTOL)


@pytest.mark.parametrize("seed", [0, 1])
def test_logistic_lasso_matches_sklearn(seed: int) -> None:
    envs = _classification_envs(seed)
    Z, y = _pooled(envs)
    for lam in (1e-3, 1e-2, 1e-1):
        fit = get_algorithm("lasso")({"lambda_": lam}, task="classification").fit(envs)
        # C·Σ ℓ + ‖θ‖₁ is mean ℓ + ‖θ‖₁/(Cn): C = 1/(nλ).
        sk = LogisticRegression(
            C=1 / (len(y) * lam), l1_ratio=1.0, solver="saga", tol=1e-12, max_iter=200_000
        ).fit(Z, y)
        _close(fit.coefficients, sk.coef_[0])
        assert fit.intercept == pytest.approx(sk.intercept_[0], rel=RTOL, abs=RTOL)


def test_proximal_solver_warns_when_it_runs_out_of_iterations() -> None:
    Z, y = _pooled(_regression_settings()[0])
    Zt, yt = torch.from_numpy(Z), torch.from_numpy(y)
    assert not linear_proximal_fit(Zt, yt, "squared", l1=0.01, max_iter=3, check_every=1).converged
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        get_algorithm("lasso")({"lambda_": 1e-3, "max_iter": 2}).fit(_regression_settings()[0])


@pytest.mark.parametrize("name", ["ridge", "lasso"])
def test_penalty_shrinks_mlp_and_absolute_loss_fits(name: str) -> None:
    envs = _regression_settings()[0]
    cls = get_algorithm(name)

    def weight_norm(fit) -> float:  # type: ignore[no-untyped-def]
        return sum(float(v.abs().sum()) for k, v in fit.model.state.items() if k.endswith("weight"))

    mlp = {"kind": "mlp", "hidden": [8]}
    weak = cls({"lambda_": 1e-3, "steps": 200, "lr": 0.02}, model=mlp).fit(envs)
    strong = cls({"lambda_": 1e-1, "steps": 200, "lr": 0.02}, model=mlp).fit(envs)
    assert weight_norm(strong) < 0.7 * weight_norm(weak)
    absolute = cls({"lambda_": 1e-3, "steps": 200, "lr": 0.05}, loss="absolute").fit(envs)
    Z, y = _pooled(envs)
    assert np.mean(np.abs(absolute.predict(np.concatenate([e.X for e in envs])) - y)) < 0.5 * np.mean(
        np.abs(y)
    )


def test_irm_penalty_is_the_squared_dummy_scale_gradient() -> None:
    envs = _regression_settings()[2]
    fit = get_algorithm("erm")().fit(envs)
    problem = get_algorithm("irm")()._problem(envs, fit.model.standardizer)
    output = torch.from_numpy(fit.model.decision_function(np.concatenate([e.X for e in envs])))
    risks, penalties = (t.detach() for t in irm_penalties(problem, output, create_graph=False))
    for e, env in enumerate(envs):
        f = fit.model.decision_function(env.X)
        # d/ds mean((y - s f)²) at s = 1 is mean(-2 (y - f) f).
        assert float(penalties[e]) == pytest.approx(np.mean(-2.0 * (env.y - f) * f) ** 2, rel=1e-9)
        assert float(risks[e]) == pytest.approx(np.mean((env.y - f) ** 2), rel=1e-9)


def test_irm_reduces_the_spread_of_environment_gradients_on_anti_causal_data() -> None:
    envs = anti_causal(seed=0, n_train=(900, 150, 50), n_test=2).train
    erm = get_algorithm("erm")().fit(envs)
    irm = get_algorithm("irm")({"penalty_weight": 10.0, "steps": 300, "anneal_steps": 0}).fit(envs)
    problem = get_algorithm("irm")()._problem(envs, erm.model.standardizer)
    X = np.concatenate([e.X for e in envs])

    def penalties(fit) -> np.ndarray:  # type: ignore[no-untyped-def]
        output = torch.from_numpy(fit.model.decision_function(X))
        return irm_penalties(problem, output, create_graph=False)[1].detach().numpy()

    # IRM starts from ERM's least-squares fit, so any drop is the penalty's doing.
    assert penalties(irm).sum() < 0.25 * penalties(erm).sum()
    # Trading pooled fit for invariance: IRM puts less weight on the anti-causal covariates V.
    v = slice(5, 10)
    assert np.abs(irm.coefficients[v]).sum() < np.abs(erm.coefficients[v]).sum()
    assert [r.round for r in irm.history] == list(range(1, len(irm.history) + 1))
    assert list(irm.history[-1].env_losses) == [e.name for e in envs]
    # The last round's penalty is the mean over environments at the fitted model.
    assert irm.history[-1].penalty == pytest.approx(float(penalties(irm).mean()), rel=1e-6)


def test_irm_classification_and_mlp() -> None:
    envs = _classification_envs(0)
    fit = get_algorithm("irm")(
        {"steps": 300, "penalty_weight": 10.0, "anneal_steps": 100}, task="classification"
    ).fit(envs)
    X, y = np.concatenate([e.X for e in envs]), np.concatenate([e.y for e in envs])
    assert np.mean(fit.predict(X) == y) > 0.75
    penalty = fit.history[-1].penalty
    assert penalty is not None and np.isfinite(penalty)
    mlp = get_algorithm("irm")(
        {"steps": 200}, task="classification", model={"kind": "mlp", "hidden": [8]}
    ).fit(envs)
    assert np.mean(mlp.predict(X) == y) > 0.75 and mlp.coefficients is None
