"""The exact θ-step on the generalised-ridge path, its implicit w-gradient and Theorem 1."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sal_core import robust_linear as rl
from sal_core.adversary import linear_perturbation


def _moments(
    seed: int, n: int = 400, p: int = 6, n_env: int = 3
) -> tuple[rl.Moments, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, p)) * rng.uniform(0.5, 2.0, size=p)
    y = (
        z @ rng.normal(size=p)
        + rng.normal(size=n) * 0.5
        + np.repeat(np.arange(n_env), n // n_env + 1)[:n] * z[:, 0]
    )
    z = z - z.mean(0)
    y = y - y.mean()
    env = np.repeat(np.arange(n_env), n // n_env + 1)[:n]
    gram = [z[env == e].T @ z[env == e] / (env == e).sum() for e in range(n_env)]
    cross = [z[env == e].T @ y[env == e] / (env == e).sum() for e in range(n_env)]
    yy = [float((y[env == e] ** 2).mean()) for e in range(n_env)]
    m = rl.Moments(
        z.T @ z / n, z.T @ y / n, float((y**2).mean()), np.stack(gram), np.stack(cross), np.array(yy)
    )
    return m, z, y


def _objective(theta: np.ndarray, w: np.ndarray, m: rl.Moments, lam: float) -> float:
    k = float((theta**2 / w**2).sum())
    return np.inf if k >= lam else lam * float(rl.mse(theta, m.gram, m.cross, m.yy)) / (lam - k)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [0.2, 1.0, 5.0])
def test_theta_step_is_the_minimiser(seed: int, lam: float) -> None:
    m, _, _ = _moments(seed)
    w = np.random.default_rng(seed).uniform(1, 4, size=6)
    step = rl.solve_theta(m, w, lam)
    best = _objective(step.theta, w, m, lam)
    assert best == pytest.approx(step.objective, rel=1e-10)
    assert step.kappa < lam
    rng = np.random.default_rng(seed + 100)
    for scale in (1e-1, 1e-2, 1e-3):
        for _ in range(50):
            assert _objective(step.theta + scale * rng.normal(size=6), w, m, lam) >= best - 1e-12


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("stability", ["std", "range"])
def test_implicit_w_gradient_matches_finite_differences(seed: int, stability: str) -> None:
    m, _, _ = _moments(seed)
    w = np.random.default_rng(seed).uniform(1, 3, size=6)
    lam, alpha, eps = 0.7, 2.0, 1e-4

    def risk(w_: np.ndarray) -> float:
        return rl.risk_and_grad_theta(rl.solve_theta(m, w_, lam).theta, m, alpha, stability)[0]

    step = rl.solve_theta(m, w, lam)
    _, grad_theta, _ = rl.risk_and_grad_theta(step.theta, m, alpha, stability)
    exact = rl.risk_grad_w(step.theta, w, m, lam, grad_theta)
    numeric = np.array([(risk(w + eps * e) - risk(w - eps * e)) / (2 * eps) for e in np.eye(6)])
    np.testing.assert_allclose(exact, numeric, rtol=1e-5, atol=1e-7 * np.abs(numeric).max())


def test_certificate_is_the_risk_at_the_worst_case_points() -> None:
    """Theorem 1: E[s_λ] + λρ̂ equals the plain loss averaged over the worst-case distribution."""
    m, z, y = _moments(5)
    w = np.array([1.0, 2.0, 3.0, 1.0, 5.0, 1.5])
    lam = 1.3
    step = rl.solve_theta(m, w, lam)
    cert = rl.certificate(step, lam)
    r = y - z @ step.theta
    shift = -r * step.kappa / (lam - step.kappa)
    delta = linear_perturbation(
        torch.from_numpy(step.theta), torch.from_numpy(w), torch.from_numpy(shift)
    ).numpy()
    worst_loss = ((y - (z + delta) @ step.theta) ** 2).mean()
    transport = ((w * delta) ** 2).sum(1).mean()
    assert transport == pytest.approx(cert.rho_hat, rel=1e-9)
    assert worst_loss == pytest.approx(cert.worst_case_risk, rel=1e-9)
