"""The first-order ascent of deep SAL's inner supremum, kept as a reference for the tests: the fit
uses ``sal_core.deep_adversary.newton_update``; these functions check it (the same maximiser where
the gain is concave) and the properties of the problem in u = w ⊙ δ.

Step: the fixed-point map u ← ∇_x ℓ / (2λw), i.e. a step of 1/(2λ), exact where ℓ is flat in x and
a contraction at rate ‖D⁻¹∇²ℓD⁻¹‖ / (2λ) otherwise. A row keeps a step only if its gain rose;
a row whose step lowered its gain is *settled* for the rest of the call. For a ReLU network this
is the common case, not an exception: f is piecewise linear, and on ~10% of the rows (measured on
the selection-bias setting after the warm-up) the maximiser sits on a kink where ∇_x ℓ jumps, the
iteration straddles it and the residual never falls, while the mean gain is flat to 4 digits after 5
steps. (Barzilai–Borwein steps, tried first, are worse there: the secant across a kink is garbage
and the long steps lowered the mean gain.) Rows are independent, so one backward pass gives every
row's gradient and gain.

Convergence is a test, not a step count: over the rows that are neither settled nor at the radius
cap, RMS_i ‖∇_u gain_i‖ ≤ tol · 2λ · RMS_i ‖u_i‖ (both sides in the same units).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from sal_core.deep_adversary import RowLoss, cap_rows


@dataclass(frozen=True)
class AscentResult:
    u: torch.Tensor  # (m, p), the maximiser in u = w ⊙ δ
    active: torch.Tensor  # (m,) bool, rows neither settled nor at the radius cap
    steps: int  # gradient evaluations used
    residual: float  # RMS ‖∇_u gain‖ / (2λ RMS ‖u‖) over the active rows, last evaluation
    converged: bool


def gain_gradient(
    row_loss: RowLoss, x: torch.Tensor, u: torch.Tensor, w: torch.Tensor, lam: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Gain per row (m,) and ∇_u gain (m, p) at u, from one forward and one backward pass."""
    with torch.enable_grad():
        x_tilde = (x + u / w).detach().requires_grad_(True)
        loss = row_loss(x_tilde)
        (grad_x,) = torch.autograd.grad(loss.sum(), x_tilde)
    cost = u.pow(2).sum(1)
    return loss.detach() - lam * cost, grad_x / w - 2.0 * lam * u


def relative_residual(
    grad_u: torch.Tensor, u: torch.Tensor, lam: float, active: torch.Tensor | None = None
) -> float:
    """RMS ‖∇_u gain‖ / (2λ·RMS ‖u‖) over the rows in ``active`` (all rows when None).

    At the optimum 2λu = ∇_x ℓ / w, so the ratio is the relative error of the stationarity equation.
    """
    if active is not None:
        grad_u, u = grad_u[active], u[active]
    if grad_u.numel() == 0:
        return 0.0
    scale = 2.0 * lam * float(u.pow(2).sum(1).mean().sqrt())
    return float(grad_u.pow(2).sum(1).mean().sqrt()) / max(scale, 1e-12)


def ascend(
    row_loss: RowLoss,
    x: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    u0: torch.Tensor,
    *,
    max_steps: int,
    tol: float,
    radius: float,
    start: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> AscentResult:
    """Batched ascent on every row's gain from ``u0`` until the relative residual is ≤ ``tol``.

    ``start`` = (gain, ∇_u gain) at u0, when the caller already has them, saves one pass.
    Non-convergence is reported in the result, not raised: the θ-step carries on from the best
    iterate, and a caller that needs more can call again (warm start).
    """
    u = u0
    gain, grad = gain_gradient(row_loss, x, u, w, lam) if start is None else start
    steps = 0 if start is not None else 1
    active = u.norm(dim=1) < radius
    residual = relative_residual(grad, u, lam, active)
    while residual > tol and steps < max_steps:
        candidate, inside = cap_rows(u + grad / (2.0 * lam), radius)
        gain_new, grad_new = gain_gradient(row_loss, x, candidate, w, lam)
        steps += 1
        better = (gain_new >= gain) & active
        u = torch.where(better[:, None], candidate, u)
        gain = torch.where(better, gain_new, gain)
        grad = torch.where(better[:, None], grad_new, grad)
        # A rejected step settles its row, unless the row is already stationary (rounding noise).
        stationary = grad.norm(dim=1) <= tol * 2.0 * lam * u.norm(dim=1)
        active = active & (better | stationary) & inside
        residual = relative_residual(grad, u, lam, active)
    return AscentResult(u=u, active=active, steps=steps, residual=residual, converged=residual <= tol)
