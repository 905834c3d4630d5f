"""Shared solvers: closed-form least squares on standardised data and a full-batch gradient loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
    weight: torch.Tensor = model.weight  # type: ignore[assignment]
    bias: torch.Tensor = model.bias  # type: ignore[assignment]
    optimizer = FlatAdam([weight, bias], lr=lr)
    Z = column_major(Z)
    for _ in range(steps):
        with torch.no_grad():
            d_out = output_derivatives(loss_name, Z @ weight + bias, y)[0] / y.shape[0]
            optimizer.step([Z.T @ d_out, d_out.sum()])
    release_storage([weight, bias])
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
    params = list(model.parameters())
    optimizer = FlatAdam(params, lr=lr)
    for step in range(steps):
        optimizer.zero_grad()
        torch.autograd.backward(objective())  # Tensor.backward is unannotated; this is the same call
        optimizer.step_from_grads()
        if should_stop is not None and should_stop(step):
            break
    release_storage(params)
    return model


class FlatAdam:
    """``torch.optim.Adam(params, lr)`` (defaults otherwise, single-tensor update) on ``params``
    re-pointed at slices of one flat vector, so one update touches every parameter at once.

    The same elementwise operations in the same order as ``torch.optim.Adam``'s single-tensor update
    (the CPU default), so the same bits, in seven tensor calls a step instead of four times as many
    plus the optimiser's Python (hooks, a profiler record, grad-mode switches, the loop over
    parameters), which cost more than the arithmetic on small tables: 45% of a default SAL fit on
    the Titanic table (docs/sal.md, "Adam without the optimiser's overhead"). Every full-batch Adam
    loop of sal_core steps with it; :func:`release_storage` gives the parameters their own storage
    back after."""

    def __init__(
        self, params: Sequence[torch.Tensor], lr: float, betas: tuple[float, float] = (0.9, 0.999)
    ) -> None:
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, 1e-8
        with torch.no_grad():
            self.flat = torch.cat([p.detach().reshape(-1) for p in params])
            offset = 0
            for p in params:
                p.data = self.flat[offset : offset + p.numel()].view_as(p)
                offset += p.numel()
        self.params = list(params)
        self.sizes = [p.numel() for p in params]
        self.exp_avg = torch.zeros_like(self.flat)
        self.exp_avg_sq = torch.zeros_like(self.flat)
        self.steps = 0

    def state(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(parameters, first moments, second moments), flat; ``steps`` is the step count."""
        return self.flat, self.exp_avg, self.exp_avg_sq

    def step(self, grads: list[torch.Tensor], divisor: float | None = None) -> None:
        """One update with the gradients ``grads`` (the parameters' shapes, in their order), each
        divided by ``divisor`` when given (elementwise, so the same bits as dividing each)."""
        grad = torch.cat([g.reshape(-1) for g in grads])
        if divisor is not None:
            grad = grad / divisor
        self.steps += 1
        step = float(self.steps)
        self.exp_avg.lerp_(grad, 1 - self.beta1)
        self.exp_avg_sq.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
        bias_correction1 = 1 - self.beta1**step
        bias_correction2 = 1 - self.beta2**step
        step_size = self.lr / bias_correction1
        denom = (self.exp_avg_sq.sqrt() / bias_correction2**0.5).add_(self.eps)
        self.flat.addcdiv_(self.exp_avg, denom, value=-step_size)

    def zero_grad(self) -> None:
        """Forget the parameters' gradients (``torch.optim.Adam.zero_grad(set_to_none=True)``)."""
        for p in self.params:
            p.grad = None

    def step_from_grads(self) -> None:
        """``torch.optim.Adam.step()``: one update with the gradients the parameters hold (every one
        must hold one: torch would skip a parameter without, and the flat update cannot)."""
        grads = [p.grad for p in self.params]
        if any(g is None for g in grads):
            raise ValueError("every parameter needs a gradient before the step")
        self.step([g for g in grads if g is not None])


def release_storage(params: Sequence[torch.Tensor]) -> None:
    """Give every parameter its own storage again (after :class:`FlatAdam` shared one)."""
    with torch.no_grad():
        for p in params:
            p.data = p.data.clone()
