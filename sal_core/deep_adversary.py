"""The inner supremum of deep SAL, s_λ(θ; x, y) = sup_δ ℓ(f_θ(x + δ), y) − λ‖w ⊙ δ‖², per row.

We ascend in u = w ⊙ δ, where the cost is λ‖u‖² whatever w is:

    gain_i(u) = ℓ_i(x_i + u / w) − λ‖u‖²,   ∇_u gain = ∇_x ℓ / w − 2λu,
    −∇²_u gain = Ã = 2λI − D⁻¹ ∇²_x ℓ D⁻¹          (D = diag w).

With w ≥ 1 the loss curvature is only shrunk by D⁻¹, so the problem is never worse conditioned than
at w = 1. In δ the same Hessian is 2λ·diag(w²) − ∇²_x ℓ, whose condition number grows as w_max²: a
fixed step in δ (the paper's ε_x) is either unstable on the w = 1 covariates or frozen on the
w = 10⁴ ones, which is why the paper's ascent stalled once w had been learned.

The fit steps each row by ``newton_update``. The first-order ascent this replaced (a fixed-point
step per row, kept while the row's gain rises) lives on in tests/sal_core/ascent_reference.py as
the reference the Newton step is checked against.

Where λ is below a row's curvature the supremum is +∞ (the adversary can move that row for ever).
``radius`` caps ‖u_i‖ (in standardised covariate units, δ = u / w is smaller still): such rows sit
on the cap, their loss is large, and the θ-step shrinks the model until the supremum is finite again.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

RowLoss = Callable[[torch.Tensor], torch.Tensor]
"""x̃ (m, p) -> loss per row (m,), differentiable in x̃."""


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


__all__ = ["RowLoss", "cap_rows", "newton_update"]
