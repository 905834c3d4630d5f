"""The inner supremum of deep SAL, s_λ(θ; x, y) = sup_δ ℓ(f_θ(x + δ), y) − λ‖w ⊙ δ‖², per row.

We ascend in u = w ⊙ δ, where the cost is λ‖u‖² whatever w is:

    gain_i(u) = ℓ_i(x_i + u / w) − λ‖u‖²,   ∇_u gain = ∇_x ℓ / w − 2λu,
    −∇²_u gain = Ã = 2λI − D⁻¹ ∇²_x ℓ D⁻¹          (D = diag w).

With w ≥ 1 the loss curvature is only shrunk by D⁻¹, so the problem is never worse conditioned than
at w = 1. In δ the same Hessian is 2λ·diag(w²) − ∇²_x ℓ, whose condition number grows as w_max²: a
fixed step in δ (the paper's ε_x) is either unstable on the w = 1 covariates or frozen on the
w = 10⁴ ones, which is why the paper's ascent stalled once w had been learned.

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

Where λ is below a row's curvature the supremum is +∞ (the adversary can move that row for ever).
``radius`` caps ‖u_i‖ (in standardised covariate units, δ = u / w is smaller still): such rows sit
on the cap, their loss is large, and the θ-step shrinks the model until the supremum is finite again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

RowLoss = Callable[[torch.Tensor], torch.Tensor]
"""x̃ (m, p) -> loss per row (m,), differentiable in x̃."""


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


def cap_rows(u: torch.Tensor, radius: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Project every row onto ‖u_i‖ ≤ radius; returns (u, mask of rows strictly inside)."""
    norms = u.norm(dim=1)
    inside = norms < radius
    scale = torch.where(inside, torch.ones_like(norms), radius / norms.clamp_min(1e-300))
    return u * scale[:, None], inside


def newton_update(
    u: torch.Tensor,
    grad_x: torch.Tensor,
    d1: torch.Tensor,
    d2: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    radius: float,
    floor: float = 1e-3,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One Newton step on every row's gain with the rank-one curvature ℓ''·â âᵀ, â = ∇_x f / w.

    ∇_x ℓ = ℓ'·∇_x f, so â = ∇_x ℓ / (ℓ' w) (rows with ℓ' = 0 take the fixed-point step). For a
    ReLU network and the squared loss the gain is exactly quadratic in u inside a linear region,
    so the step lands on the maximiser: no iteration whose rate is ‖â‖²/λ, which amplified rounding
    by ~3.5 per step on rows near λ and made the fit chaotic. Where λ is below the row's curvature
    (2λ − ℓ''‖â‖² ≤ floor·2λ) the supremum is unbounded: the row goes to the cap along sign(ℓ')·â.
    Returns (u, mask of rows strictly inside the cap).
    """
    safe = torch.where(d1 == 0.0, torch.ones_like(d1), d1)
    a_hat = torch.where((d1 == 0.0)[:, None], torch.zeros_like(grad_x), grad_x / safe[:, None]) / w
    g = grad_x / w - 2.0 * lam * u
    k = d2[:, None]
    den = 2.0 * lam - k * a_hat.pow(2).sum(1, keepdim=True)
    bounded = den > 2.0 * lam * floor
    step = (g + k * a_hat * (a_hat * g).sum(1, keepdim=True) / den.clamp_min(2.0 * lam * floor)) / (2.0 * lam)
    direction = torch.sign(d1)[:, None] * a_hat / a_hat.norm(dim=1, keepdim=True).clamp_min(1e-300)
    stepped = torch.where(bounded, u + step, radius * direction)
    return cap_rows(stepped, radius)


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


__all__ = [
    "AscentResult",
    "RowLoss",
    "ascend",
    "cap_rows",
    "gain_gradient",
    "newton_update",
    "relative_residual",
]
