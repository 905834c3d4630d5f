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


def cap_rows(u: torch.Tensor, radius: float, *, features: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Project every row onto ‖u_i‖ ≤ radius; returns (u, mask of rows strictly inside).

    ``features`` is the axis of the covariates: 1 for rows (m, p), 0 for feature-major (p, m)."""
    norms = _norms(u, features)
    inside = norms < radius
    if _may_branch_on_values(u) and bool(inside.all()):  # nothing to project: u · 1 is u
        return u, inside
    scale = torch.where(inside, torch.ones_like(norms), radius / norms.clamp_min(1e-300))
    return u * scale.unsqueeze(features), inside


def newton_update(
    u: torch.Tensor,
    grad_x: torch.Tensor,
    d1: torch.Tensor,
    d2: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    radius: float,
    floor: float = 1e-3,
    *,
    features: int = 1,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One Newton step on every row's gain with the rank-one curvature ℓ''·â âᵀ, â = ∇_x f / w.

    ∇_x ℓ = ℓ'·∇_x f, so â = ∇_x ℓ / (ℓ' w) (rows with ℓ' = 0 take the fixed-point step). For a
    ReLU network and the squared loss the gain is exactly quadratic in u inside a linear region,
    so the step lands on the maximiser: no iteration whose rate is ‖â‖²/λ, which amplified rounding
    by ~3.5 per step on rows near λ and made the fit chaotic. Where λ is below the row's curvature
    (2λ − ℓ''‖â‖² ≤ floor·2λ) the supremum is unbounded: the row goes to the cap along sign(ℓ')·â.
    Returns (u, mask of rows strictly inside the cap).

    u and grad_x are (m, p) with ``features=1``, or feature-major (p, m) with ``features=0`` (the
    same arithmetic per element; only the sums over a row's p entries run in another order).
    """
    w = w if features == 1 else w[:, None]
    may_branch = _may_branch_on_values(u)
    zero = d1 == 0.0
    if may_branch and not bool(zero.any()):  # the same values without the masks
        a_hat = grad_x / d1.unsqueeze(features) / w
    else:
        safe = torch.where(zero, torch.ones_like(d1), d1)
        a_hat = (
            torch.where(zero.unsqueeze(features), torch.zeros_like(grad_x), grad_x / safe.unsqueeze(features))
            / w
        )
    g = grad_x / w - 2.0 * lam * u
    k = d2.unsqueeze(features)
    den = 2.0 * lam - k * a_hat.pow(2).sum(features, keepdim=True)
    bounded = den > 2.0 * lam * floor
    step = (g + k * a_hat * (a_hat * g).sum(features, keepdim=True) / den.clamp_min(2.0 * lam * floor)) / (
        2.0 * lam
    )
    if may_branch and bool(bounded.all()):
        return cap_rows(u + step, radius, features=features)
    direction = (
        torch.sign(d1).unsqueeze(features)
        * a_hat
        / _norms(a_hat, features).unsqueeze(features).clamp_min(1e-300)
    )
    stepped = torch.where(bounded, u + step, radius * direction)
    capped, inside = cap_rows(stepped, radius, features=features)
    # A row sent to the cap has ‖u‖ = radius up to rounding, so the cap's own test ‖u‖ < radius would
    # call it inside or not by the last bit (and the w-gradient treats inside rows as free).
    return capped, inside & bounded.squeeze(features)


def _norms(u: torch.Tensor, features: int) -> torch.Tensor:
    """‖u_i‖ per row. Feature-major, torch's norm over dim 0 is ~20× slower than this sum of p rows."""
    return u.norm(dim=1) if features == 1 else u.pow(2).sum(0).sqrt()


def _may_branch_on_values(t: torch.Tensor) -> bool:
    """Whether to branch on a mask's value (skipping work no row needs): only on the CPU, where
    reading it is free; on a GPU it would wait for the device every step."""
    return t.device.type == "cpu"


__all__ = ["RowLoss", "cap_rows", "newton_update"]
