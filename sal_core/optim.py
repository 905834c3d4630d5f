"""Shared solvers: closed-form least squares on standardised data and a full-batch gradient loop."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from sal_core.losses import LossName, output_derivatives, pointwise_loss


def least_squares(Z: torch.Tensor, y: torch.Tensor, ridge: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """argmin_θ,b mean((y - Zθ - b)²) + ridge·‖θ‖² with an unpenalised intercept.

    Solved on centred data: (ZᵀZ/n + ridge·I) θ = Zᵀy/n. Where that matrix is singular to working
    precision (a covariate constant on these rows, or one that is a combination of others: a
    one-hot column left in with its siblings, a 80% sample missing a rare category) the solution is
    the minimum-norm one, as ``numpy.linalg.lstsq`` and scikit-learn's ``LinearRegression`` give:
    a covariate the rows cannot tell apart from the others shares their coefficient, and one that
    never varies gets 0. Otherwise it is the direct solve.
    """
    n = Z.shape[0]
    z_mean = Z.mean(0)
    y_mean = y.mean()
    Zc = Z - z_mean
    gram = Zc.T @ Zc / n + ridge * torch.eye(Z.shape[1], dtype=Z.dtype, device=Z.device)
    rhs = Zc.T @ (y - y_mean) / n
    theta = solve_or_min_norm(gram, rhs, rows=n)
    return theta, y_mean - z_mean @ theta


def solve_or_min_norm(gram: torch.Tensor, rhs: torch.Tensor, *, rows: int = 0) -> torch.Tensor:
    """gram⁻¹ rhs for a symmetric positive semi-definite ``gram`` (p, p) and ``rhs`` (p,) or (p, k).

    Where gram's smallest eigenvalue is below max(rows, p) · eps · its largest (numerically
    singular: forming a Gram matrix of ``rows`` rows rounds by about that much), the minimum-norm
    solution over the eigenvalues above that bound; otherwise the direct solve. The
    eigendecomposition costs more than the solve (docs/sal.md, "Measured for the defaults"); on a GPU the
    test reads one value back (a device sync)."""
    values, vectors = torch.linalg.eigh(gram)
    tiny = torch.finfo(gram.dtype).tiny
    bound = max(rows, gram.shape[0]) * torch.finfo(gram.dtype).eps * values.abs().max().clamp_min(tiny)
    if bool(values.min() > bound):
        solved: torch.Tensor = torch.linalg.solve(gram, rhs)
        return solved
    inverse = torch.where(values > bound, 1.0 / values.clamp_min(bound), torch.zeros_like(values))
    if rhs.ndim == 2:
        inverse = inverse[:, None]
    min_norm: torch.Tensor = vectors @ (inverse * (vectors.T @ rhs))
    return min_norm


def column_major(Z: torch.Tensor) -> torch.Tensor:
    """``Z`` (n, p) with each column contiguous in memory (Fortran order), the same values.

    The gradient loops multiply Z by a vector twice per step (Zθ, then Zᵀv). On one CPU thread
    torch's BLAS runs both several times faster on this layout than on rows (measured: docs/sal.md,
    "Classification, column by column"), and a fit of 2,000 steps pays the one copy back in its
    first steps."""
    if Z.ndim != 2 or Z.stride(0) == 1:
        return Z
    return Z.T.contiguous().T


def set_linear(model: nn.Module, theta: torch.Tensor, bias: torch.Tensor) -> nn.Module:
    with torch.no_grad():
        model.weight.copy_(theta)  # type: ignore[operator]
        model.bias.copy_(bias)  # type: ignore[operator]
    return model


def fit_plain_loss(
    model: nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    loss_name: LossName,
    *,
    linear: bool,
    steps: int,
    lr: float,
) -> nn.Module:
    """ERM's full-batch Adam steps on the mean loss: the gradient in closed form for a ``linear`` model
    (:func:`linear_gradient_fit`), through autograd for any other (:func:`gradient_fit`)."""
    if linear:
        return linear_gradient_fit(model, Z, y, loss_name, steps=steps, lr=lr)
    return gradient_fit(model, lambda: pointwise_loss(loss_name, model(Z), y).mean(), steps=steps, lr=lr)


def linear_gradient_fit(
    model: nn.Module, Z: torch.Tensor, y: torch.Tensor, loss_name: LossName, *, steps: int, lr: float
) -> nn.Module:
    """:func:`gradient_fit` of a linear model θᵀz + b on the mean of a pointwise loss, its gradient in
    closed form (Zᵀℓ'/n and mean ℓ', :func:`sal_core.losses.output_derivatives`): the same Adam
    steps as through autograd, to rounding, with one pass over the rows each way and no graph."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    weight: torch.Tensor = model.weight  # type: ignore[assignment]
    bias: torch.Tensor = model.bias  # type: ignore[assignment]
    Z = column_major(Z)
    for _ in range(steps):
        with torch.no_grad():
            d_out = output_derivatives(loss_name, Z @ weight + bias, y)[0] / y.shape[0]
            weight.grad, bias.grad = Z.T @ d_out, d_out.sum()
        optimizer.step()
    return model


def gradient_fit(
    model: nn.Module,
    objective: Callable[[], torch.Tensor],
    *,
    steps: int,
    lr: float,
    should_stop: Callable[[int], bool] | None = None,
) -> nn.Module:
    """Minimise ``objective()`` over the model's parameters with full-batch Adam."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for step in range(steps):
        optimizer.zero_grad(set_to_none=True)
        torch.autograd.backward(objective())  # Tensor.backward is unannotated; this is the same call
        optimizer.step()
        if should_stop is not None and should_stop(step):
            break
    return model
