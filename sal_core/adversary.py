"""The inner supremum of SAL/WDRL: s_λ(θ; x, y) = sup_x̃ ℓ(θ; x̃, y) − λ·‖w ⊙ (x̃ − x)‖².

For a linear model f(z) = θᵀz + b the cheapest perturbation that moves f by s lies along
diag(w)⁻²θ and costs s²/κ with κ = Σ θ_d² / w_d², so the supremum is one-dimensional per row:

* squared loss  ℓ = r²:        s_λ = r²·λ / (λ − κ) for λ > κ (unbounded otherwise), cost r²κ/(λ − κ)²
* absolute loss ℓ = |r|:       s_λ = |r| + κ / (4λ),                                  cost κ/(4λ²)
* logistic loss ℓ = softplus(a), a = −ỹ·f: s_λ = max_{u ≥ 0} softplus(a + u) − λu²/κ  (safeguarded Newton)

Any other model uses :func:`gradient_ascent` on x̃. All functions are vectorised over rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from sal_core.losses import LossName


@dataclass(frozen=True)
class InnerSup:
    """Per-row value s_λ (n,) and transport cost c_w(x̃, x) (n,) of the worst case found."""

    value: torch.Tensor
    cost: torch.Tensor
    shift: torch.Tensor | None = None  # logistic loss: the per-row u* (a warm start for the next solve)


def kappa(theta: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """κ = Σ_d θ_d² / w_d²: how cheaply the adversary moves a linear prediction."""
    return (theta**2 / w**2).sum()


def linear_inner_sup(
    loss: LossName,
    output: torch.Tensor,
    y: torch.Tensor,
    kappa_: torch.Tensor,
    lam: float,
    warm_start: torch.Tensor | None = None,
) -> InnerSup:
    """Closed-form s_λ for a linear model; differentiable in ``output`` and ``kappa_``.

    For squared loss with λ ≤ κ the supremum is +∞; the value is +inf for every row with r ≠ 0.
    """
    if loss == "squared":
        r2 = (y - output) ** 2
        gap = lam - kappa_
        if gap <= 0:
            inf = torch.full_like(r2, float("inf"))
            return InnerSup(inf, inf)
        return InnerSup(r2 * lam / gap, r2 * kappa_ / gap**2)
    if loss == "absolute":
        r = (y - output).abs()
        return InnerSup(r + kappa_ / (4 * lam), (kappa_ / (4 * lam**2)).expand_as(r))
    a = -(2 * y - 1) * output  # logistic loss is softplus(a); the adversary raises a by u ≥ 0
    kappa_ = kappa_.clamp_min(1e-12)  # θ = 0 gives κ = 0: no shift is possible, u* = 0
    u = logistic_shift(a.detach(), kappa_.detach(), lam, start=warm_start)
    root = u
    # One differentiable Newton step from the converged root restores du*/dθ and du*/dw exactly
    # (implicit function theorem), so second derivatives through the value are correct.
    c = 2 * lam / kappa_
    sig = torch.sigmoid(a + u)
    u = u - (sig - c * u) / (sig * (1 - sig) - c)
    return InnerSup(F.softplus(a + u) - lam * u**2 / kappa_, u**2 / kappa_, root)


def logistic_shift(
    a: torch.Tensor, kappa_: torch.Tensor, lam: float, max_iter: int = 60, start: torch.Tensor | None = None
) -> torch.Tensor:
    """argmax_{u ≥ 0} softplus(a + u) − λu²/κ per row: the root of σ(a + u) = c·u with c = 2λ/κ.

    The root lies in [0, 1/c] because σ < 1. Safeguarded Newton: a Newton step that leaves the
    current bracket is replaced by bisection, so it converges even where the objective is not
    concave (c < 1/4); where it is, Newton converges quadratically in a handful of steps. ``start``
    (the previous θ-step's roots) makes successive solves take one or two steps.
    """
    c = 2 * lam / kappa_.clamp_min(1e-300)
    lo = torch.zeros_like(a)
    hi = torch.ones_like(a) / c
    u = torch.sigmoid(a) / c if start is None else torch.minimum(start.clamp_min(0.0), hi)
    for _ in range(max_iter):
        sig = torch.sigmoid(a + u)
        f = sig - c * u
        if float(f.abs().max()) < 1e-13:
            break
        lo = torch.where(f > 0, u, lo)
        hi = torch.where(f > 0, hi, u)
        newton = u - f / (sig * (1 - sig) - c)
        # Inclusive: u is now an end of its bracket, so a converged row's Newton step lands on it.
        u = torch.where((newton >= lo) & (newton <= hi), newton, 0.5 * (lo + hi))
    return u


@dataclass(frozen=True)
class LogisticSupCurvature:
    """Derivatives of the logistic s_λ(a, κ) = max_u softplus(a + u) − λu²/κ per row, at its root u*.

    With c = 2λ/κ and σ' = σ(a + u*)(1 − σ(a + u*)), the envelope theorem and du*/da = σ'/(c − σ'),
    du*/dκ = u*c / (κ(c − σ')) give s_a = σ(a + u*), s_κ = λu*²/κ², s_aa = σ'c/(c − σ'),
    s_aκ = σ'u*c / (κ(c − σ')), s_κκ = 2λu*²σ' / (κ³(c − σ')): the Hessian of a linear model's
    robust loss in closed form (no autograd pass per parameter)."""

    s_a: torch.Tensor
    s_kappa: torch.Tensor
    s_aa: torch.Tensor
    s_a_kappa: torch.Tensor
    s_kappa_kappa: torch.Tensor


def logistic_sup_curvature(
    a: torch.Tensor, kappa_: torch.Tensor, lam: float, u: torch.Tensor
) -> LogisticSupCurvature:
    """:class:`LogisticSupCurvature` per row at the root ``u`` of :func:`logistic_shift` (κ > 0)."""
    c = 2 * lam / kappa_
    sig = torch.sigmoid(a + u)
    slope = sig * (1 - sig)
    gap = c - slope  # > 0 at a maximiser
    return LogisticSupCurvature(
        s_a=sig,
        s_kappa=lam * u**2 / kappa_**2,
        s_aa=slope * c / gap,
        s_a_kappa=slope * u * c / (kappa_ * gap),
        s_kappa_kappa=2 * lam * u**2 * slope / (kappa_**3 * gap),
    )


def linear_perturbation(theta: torch.Tensor, w: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """The cheapest x̃ − x (n, p) that moves θᵀx by ``shift`` (n,): shift · (θ / w²) / κ."""
    direction = theta / w**2
    return shift[:, None] * (direction / (theta * direction).sum().clamp_min(1e-300))[None, :]


def gradient_ascent(
    objective: Callable[[torch.Tensor], torch.Tensor],
    z: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    *,
    steps: int,
    lr: float,
) -> torch.Tensor:
    """Perturbation δ (n, p) from ``steps`` ascent steps on ℓ(z + δ) − λ‖w ⊙ δ‖², per row.

    ``objective(z_tilde)`` must return the per-row loss (n,). The result is detached.
    """
    delta = torch.zeros_like(z)
    w2 = (w**2).detach()
    for _ in range(steps):
        delta.requires_grad_(True)
        gain = objective(z + delta).sum() - lam * (w2 * delta**2).sum()
        (grad,) = torch.autograd.grad(gain, delta)
        delta = (delta + lr * grad).detach()
    return delta
