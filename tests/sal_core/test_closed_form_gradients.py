"""Closed-form gradients of linear models (the logistic adversary's θ-gradient and implicit ∂R/∂w, ERM's loss) agree with autograd."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sal_core.adversary import kappa, linear_inner_sup
from sal_core.losses import pointwise_loss
from sal_core.models import LinearModel
from sal_core.optim import column_major, gradient_fit, linear_gradient_fit
from sal_core.robust_gradient import (
    AdversaryState,
    _logistic_implicit_grad_w,
    logistic_theta_grad,
    solve_psd,
    weighted_gram,
)


def _autograd_implicit_grad_w(
    Z: torch.Tensor, y: torch.Tensor, w: torch.Tensor, lam: float, theta: torch.Tensor, g: torch.Tensor
) -> np.ndarray:
    """−(H⁻¹g)ᵀ ∂²J/∂θ∂w with H and the mixed term from autograd through the differentiable root."""
    p = Z.shape[1]

    def objective(th: torch.Tensor, w_: torch.Tensor) -> torch.Tensor:
        return linear_inner_sup("logistic", Z @ th[:p] + th[p], y, kappa(th[:p], w_), lam).value.mean()

    hess = torch.autograd.functional.hessian(lambda th: objective(th, w), theta)  # type: ignore[no-untyped-call]
    v = torch.linalg.solve(hess + 1e-10 * torch.eye(p + 1, dtype=hess.dtype), g)
    w_req, th_req = w.clone().requires_grad_(True), theta.clone().requires_grad_(True)
    (grad_theta,) = torch.autograd.grad(objective(th_req, w_req), th_req, create_graph=True)
    (mixed,) = torch.autograd.grad(grad_theta @ v, w_req)
    return np.asarray(-mixed.numpy())


@pytest.mark.parametrize("p", [6, 40])  # the general product and LU; the symmetric update and Cholesky
@pytest.mark.parametrize("lam", [0.03, 0.1, 1.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_closed_form_matches_autograd(lam: float, seed: int, p: int) -> None:
    g = torch.Generator().manual_seed(seed)
    n = 2000
    Z = torch.randn(n, p, generator=g, dtype=torch.float64)
    y = (torch.rand(n, generator=g, dtype=torch.float64) > 0.6).double()
    w = 1 + 3 * torch.rand(p, generator=g, dtype=torch.float64)
    theta = 0.5 * torch.randn(p + 1, generator=g, dtype=torch.float64)
    grad_r = torch.randn(p + 1, generator=g, dtype=torch.float64)
    reference = _autograd_implicit_grad_w(Z, y, w, lam, theta, grad_r)
    closed = _logistic_implicit_grad_w(Z, y, w, lam, theta, grad_r)
    assert np.abs(reference).max() > 1e-3  # the gradient is not trivially zero
    # at p = 40 the Hessian's conditioning leaves autograd's and the closed form's rounding ~1e-9 apart
    atol = 1e-12 if p < 10 else 1e-7 * np.abs(reference).max()
    np.testing.assert_allclose(closed, reference, rtol=1e-9, atol=atol)


@pytest.mark.parametrize("negative", [False, True])
def test_weighted_gram_is_the_product_with_a_column_of_ones(negative: bool) -> None:
    """The symmetric update (weights ≥ 0) and the general product (a negative weight) both give
    [Z, 1]ᵀ diag(weights) [Z, 1]; column-major Z as the gradient loops hold it."""
    g = torch.Generator().manual_seed(7)
    n, p = 300, 9
    Z = column_major(torch.randn(n, p, generator=g, dtype=torch.float64))
    weights = torch.rand(n, generator=g, dtype=torch.float64)
    if negative:
        weights[3] = -0.5
    rows = torch.cat([Z, torch.ones(n, 1, dtype=torch.float64)], dim=1)
    expected = (rows.T * weights) @ rows
    got = weighted_gram(Z, weights)
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)
    if not negative:  # the symmetric update writes both triangles alike
        assert torch.equal(got, got.T)


def test_solve_psd_solves_and_falls_back_where_indefinite() -> None:
    g = torch.Generator().manual_seed(8)
    m = torch.randn(6, 6, generator=g, dtype=torch.float64)
    b = torch.randn(6, generator=g, dtype=torch.float64)
    for a in (m @ m.T + 0.1 * torch.eye(6, dtype=torch.float64), m + m.T):  # definite, then indefinite
        torch.testing.assert_close(a @ solve_psd(a, b), b, rtol=1e-9, atol=1e-9)
    assert torch.linalg.eigvalsh(m + m.T).min() < 0  # the second case does take the LU fallback


@pytest.mark.parametrize("zero_weight", [False, True])
@pytest.mark.parametrize("lam", [0.03, 0.3])
def test_closed_form_theta_gradient_matches_autograd(lam: float, zero_weight: bool) -> None:
    g = torch.Generator().manual_seed(3)
    n, p = 1500, 5
    Z = torch.randn(n, p, generator=g, dtype=torch.float64)
    y = (torch.rand(n, generator=g, dtype=torch.float64) > 0.5).double()
    w = 1 + 3 * torch.rand(p, generator=g, dtype=torch.float64)
    model = LinearModel(p).double()
    with torch.no_grad():
        if not zero_weight:  # a fit's first step has θ = 0, where κ = 0
            model.weight.copy_(0.5 * torch.randn(p, generator=g, dtype=torch.float64))
        model.bias.fill_(0.2)
    value = linear_inner_sup("logistic", model(Z), y, kappa(model.weight, w), lam).value.mean()
    reference = torch.autograd.grad(value, [model.weight, model.bias])
    logistic_theta_grad(model, Z, y, w, lam, AdversaryState())
    assert model.weight.grad is not None and model.bias.grad is not None
    torch.testing.assert_close(model.weight.grad, reference[0], rtol=1e-10, atol=1e-13)
    torch.testing.assert_close(model.bias.grad, reference[1], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("loss", ["logistic", "absolute"])
def test_linear_gradient_fit_takes_autograds_steps(loss: str) -> None:
    """ERM's closed-form gradient (optim.linear_gradient_fit) walks the path autograd's Adam walks."""
    g = torch.Generator().manual_seed(4)
    Z = torch.randn(800, 5, generator=g, dtype=torch.float64)
    y = torch.randn(800, generator=g, dtype=torch.float64)
    if loss == "logistic":
        y = (y > 0).double()
    closed, reference = LinearModel(5).double(), LinearModel(5).double()
    linear_gradient_fit(closed, Z, y, loss, steps=300, lr=0.01)  # type: ignore[arg-type]
    gradient_fit(reference, lambda: pointwise_loss(loss, reference(Z), y).mean(), steps=300, lr=0.01)  # type: ignore[arg-type]
    torch.testing.assert_close(closed.weight, reference.weight, rtol=1e-9, atol=1e-10)
    torch.testing.assert_close(closed.bias, reference.bias, rtol=1e-9, atol=1e-10)


def test_column_major_keeps_the_values_and_lays_each_column_out_contiguously() -> None:
    """The gradient loops multiply by Z column by column (optim.column_major): same values, strides
    (1, n), and no second copy of a Z already laid out that way."""
    Z = torch.arange(12.0, dtype=torch.float64).reshape(4, 3)
    laid = column_major(Z)
    torch.testing.assert_close(laid, Z, rtol=0, atol=0)
    assert laid.stride() == (1, 4) and Z.stride() == (3, 1)
    assert column_major(laid).data_ptr() == laid.data_ptr()
