"""The closed-form inner supremum for linear models agrees with gradient ascent on x̃."""

from __future__ import annotations

import pytest
import torch

from sal_core.adversary import gradient_ascent, kappa, linear_inner_sup, linear_perturbation, logistic_shift
from sal_core.losses import pointwise_loss

torch.set_default_dtype(torch.float64)


def _linear_problem(seed: int, n: int = 64, p: int = 4) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(n, p, generator=g)
    theta = torch.randn(p, generator=g)
    bias = torch.randn((), generator=g)
    w = 1.0 + 3.0 * torch.rand(p, generator=g)
    return z, theta, bias, w


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("loss", ["squared", "absolute", "logistic"])
def test_closed_form_matches_gradient_ascent(loss: str, seed: int) -> None:
    z, theta, bias, w = _linear_problem(seed)
    k = kappa(theta, w)
    lam = float(2.0 * k) if loss == "squared" else 0.7  # squared loss needs λ > κ to be bounded
    g = torch.Generator().manual_seed(seed + 10)
    y = (
        (torch.rand(z.shape[0], generator=g) > 0.5).double()
        if loss == "logistic"
        else torch.randn(z.shape[0], generator=g)
    )

    def row_loss(zt: torch.Tensor) -> torch.Tensor:
        return pointwise_loss(loss, zt @ theta + bias, y)  # type: ignore[arg-type]

    delta = gradient_ascent(row_loss, z, w, lam, steps=4000, lr=0.01)
    ascent_value = row_loss(z + delta) - lam * ((w * delta) ** 2).sum(1)
    closed = linear_inner_sup(loss, z @ theta + bias, y, k, lam)  # type: ignore[arg-type]
    assert torch.allclose(ascent_value, closed.value, rtol=1e-5, atol=1e-6)
    assert torch.allclose(((w * delta) ** 2).sum(1), closed.cost, rtol=1e-3, atol=1e-6)
    # The ascent can only find a lower bound of the supremum, up to its convergence tolerance.
    assert torch.all(ascent_value <= closed.value + 1e-6)


def test_squared_loss_is_unbounded_when_lambda_not_above_kappa() -> None:
    z, theta, bias, w = _linear_problem(3)
    k = kappa(theta, w)
    sup = linear_inner_sup("squared", z @ theta + bias, torch.randn(z.shape[0]), k, float(k) * 0.99)
    assert torch.isinf(sup.value).all()


def test_logistic_shift_solves_the_stationarity_condition() -> None:
    a = torch.linspace(-6, 6, 101)
    k, lam = torch.tensor(2.0), 0.9
    u = logistic_shift(a, k, lam)
    assert torch.all(u >= 0)
    assert torch.allclose(torch.sigmoid(a + u), 2 * lam * u / k, atol=1e-10)


def test_cheapest_perturbation_moves_prediction_by_the_shift_at_cost_s2_over_kappa() -> None:
    _, theta, _, w = _linear_problem(4)
    shift = torch.tensor([0.5, -2.0, 3.0])
    delta = linear_perturbation(theta, w, shift)
    assert torch.allclose(delta @ theta, shift)
    assert torch.allclose(((w * delta) ** 2).sum(1), shift**2 / kappa(theta, w))


@pytest.mark.parametrize("c", [0.3, 3.0, 10.0])
def test_logistic_shift_converges_in_a_few_newton_steps_once_rows_converge_apart(c: float) -> None:
    """Where the objective is concave (c = 2λ/κ ≥ 1/4) Newton converges quadratically; a row that
    converges before the others must keep its root, not be bisected away from it (the strict bracket
    test once did that: ~45 steps per solve instead of ~3, most of a classification fit's time)."""
    g = torch.Generator().manual_seed(0)
    a = 3.0 * torch.randn(5000, generator=g)
    lam, k = 1.0, torch.tensor(2.0 / c)
    u = logistic_shift(a, k, lam, max_iter=8)
    assert torch.max(torch.abs(torch.sigmoid(a + u) - c * u)) < 1e-12
    # From the roots themselves (a warm start) the solve stays put.
    assert torch.allclose(logistic_shift(a, k, lam, max_iter=2, start=u), u, rtol=0, atol=1e-12)
