"""The logistic adversary's implicit ∂R/∂w in closed form agrees with autograd's Hessian route."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sal_core.adversary import kappa, linear_inner_sup
from sal_core.robust_gradient import _logistic_implicit_grad_w


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


@pytest.mark.parametrize("lam", [0.03, 0.1, 1.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_closed_form_matches_autograd(lam: float, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    n, p = 2000, 6
    Z = torch.randn(n, p, generator=g, dtype=torch.float64)
    y = (torch.rand(n, generator=g, dtype=torch.float64) > 0.6).double()
    w = 1 + 3 * torch.rand(p, generator=g, dtype=torch.float64)
    theta = 0.5 * torch.randn(p + 1, generator=g, dtype=torch.float64)
    grad_r = torch.randn(p + 1, generator=g, dtype=torch.float64)
    reference = _autograd_implicit_grad_w(Z, y, w, lam, theta, grad_r)
    closed = _logistic_implicit_grad_w(Z, y, w, lam, theta, grad_r)
    assert np.abs(reference).max() > 1e-3  # the gradient is not trivially zero
    np.testing.assert_allclose(closed, reference, rtol=1e-9, atol=1e-12)
