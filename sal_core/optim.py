"""Shared solvers: closed-form least squares on standardised data and a full-batch gradient loop."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


def least_squares(Z: torch.Tensor, y: torch.Tensor, ridge: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """argmin_θ,b mean((y - Zθ - b)²) + ridge·‖θ‖² with an unpenalised intercept.

    Solved on centred data by a Cholesky-backed solve of (ZᵀZ/n + ridge·I) θ = Zᵀy/n.
    """
    n = Z.shape[0]
    z_mean = Z.mean(0)
    y_mean = y.mean()
    Zc = Z - z_mean
    gram = Zc.T @ Zc / n + ridge * torch.eye(Z.shape[1], dtype=Z.dtype, device=Z.device)
    theta = torch.linalg.solve(gram, Zc.T @ (y - y_mean) / n)
    return theta, y_mean - z_mean @ theta


def set_linear(model: nn.Module, theta: torch.Tensor, bias: torch.Tensor) -> nn.Module:
    with torch.no_grad():
        model.weight.copy_(theta)  # type: ignore[operator]
        model.bias.copy_(bias)  # type: ignore[operator]
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
