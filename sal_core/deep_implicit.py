"""∂R/∂w for deep SAL by implicit differentiation (Hessian-vector products and conjugate gradients).

θ*(w) minimises J(θ, w) = mean_i s_λ(θ; x_i, y_i), s_λ = max_δ ℓ(f_θ(x_i + δ), y_i) − λ‖w ⊙ δ‖², and
R(θ) = mean_e L^e + α·spread_e L^e on the clean rows. With δ*_i the row maximisers, u = w ⊙ δ*,
Ã_i = 2λI − D⁻¹∇²_x ℓ_i D⁻¹ (the negated u-Hessian of the gain, D = diag w) and
B_i = ∂(∇_u ℓ_i)/∂θ (p × dim θ):

    ∇_θ J = mean_i ∇_θ ℓ_i(x_i + δ*_i)                                   (envelope theorem)
    H = ∇²_θ J = mean_i [∇²_θ ℓ_i + B_iᵀ Ã_i⁻¹ B_i]                       (the adversary's response)
    v = (H + μI)⁻¹ ∇_θ R                                                  (conjugate gradients)
    ∂R/∂w_j = (4λ / w_j) Σ_i u_ij c_ij,   c_i = Ã_i⁻¹ b_i,   b = ∇_u (∇_θ J · v)

The last line follows from ∂(∇_δ gain)/∂w_j = −4λ u_j e_j and δ* = u / w. Every product with B or Bᵀ
is one backward pass over all rows (rows are independent); Ã_i⁻¹ is applied row by row:

* ``rank_one`` (linear models and ReLU networks, piecewise linear in x): ∇²_x ℓ_i = ℓ''_i a_i a_iᵀ with
  a_i = ∇_x f_i exactly (almost everywhere), so Ã_i⁻¹ is Sherman–Morrison: two backward passes in
  all, whatever p is.
* ``exact`` (smooth activations): the p × p Hessians ∇²_x ℓ_i from p backward passes over all rows,
  inverted batched by eigendecomposition (eigenvalues floored at ``curvature_floor``·2λ).

Rows held at the adversary's radius cap are constrained, not stationary: they are treated as fixed
(c_i = 0, no response to θ or w). H need not be positive definite for a non-convex network: CG stops
at the first direction of non-positive curvature (truncated CG) and μ > 0 keeps it well posed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from sal_core.models import LinearModel

OutputLoss = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
"""(output (m,), y (m,)) -> loss per row (m,)."""


@dataclass(frozen=True)
class WGradient:
    grad_w: torch.Tensor  # (p,) ∂R/∂w
    v: torch.Tensor  # (dim θ,) H⁻¹∇_θR, a warm start for the next round
    cg_iterations: int
    cg_relative_residual: float


def is_piecewise_linear(model: nn.Module) -> bool:
    """True when every leaf layer is affine or ReLU, so ∇²_x f = 0 almost everywhere."""
    leaves = [m for m in model.modules() if not list(m.children())]
    return all(isinstance(m, nn.Linear | nn.ReLU | LinearModel) for m in leaves)


def _grads(
    out: torch.Tensor, inputs: list[torch.Tensor], *, create_graph: bool = False
) -> list[torch.Tensor]:
    got = torch.autograd.grad(out, inputs, retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [torch.zeros_like(t) if g is None else g for g, t in zip(got, inputs, strict=True)]


def _flat(tensors: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([t.reshape(-1) for t in tensors])


def _rank_one_solver(
    out: torch.Tensor, rows: torch.Tensor, x_tilde: torch.Tensor, w: torch.Tensor, lam: float, floor: float
) -> Callable[[torch.Tensor], torch.Tensor]:
    (a,) = _grads(out.sum(), [x_tilde])  # (m, p) ∇_x f per row
    (d1,) = _grads(rows.sum(), [out], create_graph=True)
    d2 = _grads(d1.sum(), [out])[0] if d1.requires_grad else torch.zeros_like(out)  # ℓ'' per row
    a_hat = (a / w).detach()
    k = d2.detach()[:, None]
    denominator = (2.0 * lam - k * a_hat.pow(2).sum(1, keepdim=True)).clamp_min(2.0 * lam * floor)

    def solve(b: torch.Tensor) -> torch.Tensor:
        return (b + k * a_hat * (a_hat * b).sum(1, keepdim=True) / denominator) / (2.0 * lam)

    return solve


def _exact_solver(
    grad_x_rows: torch.Tensor, x_tilde: torch.Tensor, w: torch.Tensor, lam: float, floor: float
) -> Callable[[torch.Tensor], torch.Tensor]:
    p = x_tilde.shape[1]
    hessian = torch.stack([_grads(grad_x_rows[:, j].sum(), [x_tilde])[0] for j in range(p)], dim=1)
    a_tilde = 2.0 * lam * torch.eye(p, dtype=w.dtype, device=w.device) - hessian.detach() / (
        w[:, None] * w[None, :]
    )
    a_tilde = 0.5 * (a_tilde + a_tilde.transpose(1, 2))
    values, vectors = torch.linalg.eigh(a_tilde)
    inverse = (vectors / values.clamp_min(2.0 * lam * floor)[:, None, :]) @ vectors.transpose(1, 2)

    def solve(b: torch.Tensor) -> torch.Tensor:
        return torch.einsum("mij,mj->mi", inverse, b)

    return solve


def risk_grad_w(
    model: nn.Module,
    loss: OutputLoss,
    x: torch.Tensor,
    y: torch.Tensor,
    u: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    grad_r: torch.Tensor,
    *,
    free: torch.Tensor | None = None,
    curvature: str = "auto",
    damping: float = 1e-4,
    cg_iters: int = 20,
    cg_tol: float = 1e-3,
    curvature_floor: float = 1e-3,
    v0: torch.Tensor | None = None,
) -> WGradient:
    """∂R/∂w (p,) at the rows x (m, p), y (m,) with their maximisers u (m, p) and ∇_θR (dim θ,).

    ``free`` (m,) bool marks rows strictly inside the adversary's radius; ``curvature`` is
    'rank_one', 'exact' or 'auto' (rank_one for piecewise-linear models).
    """
    params: list[torch.Tensor] = list(model.parameters())
    mode = curvature if curvature != "auto" else ("rank_one" if is_piecewise_linear(model) else "exact")
    with torch.enable_grad():
        x_tilde = (x + u / w).detach().requires_grad_(True)
        out = model(x_tilde)
        rows = loss(out, y)
        m = rows.shape[0]
        first = _grads(rows.sum(), [*params, x_tilde], create_graph=True)
        grad_theta = [g / m for g in first[:-1]]  # ∇_θ J, differentiable in θ and x̃
        grad_x_rows = first[-1]  # (m, p) ∇_x ℓ_i, differentiable in θ and x̃
        if mode == "rank_one":
            solve = _rank_one_solver(out, rows, x_tilde, w, lam, curvature_floor)
        else:
            solve = _exact_solver(grad_x_rows, x_tilde, w, lam, curvature_floor)
        keep = None if free is None else free.to(u.dtype)[:, None]

        def response(v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            """(∇²_θℓ v, c) for a flat direction v: c = Ã⁻¹ b with b = ∇_u(∇_θJ · v)."""
            pieces = torch.split(v, [prm.numel() for prm in params])
            dot = sum((g * piece.view_as(g)).sum() for g, piece in zip(grad_theta, pieces, strict=True))
            got = _grads(dot, [*params, x_tilde])  # type: ignore[arg-type]
            c = solve(got[-1] / w)
            return _flat(got[:-1]), c if keep is None else c * keep

        def hvp(v: torch.Tensor) -> torch.Tensor:
            direct, c = response(v)
            coupling = _grads(((grad_x_rows / w) * c).sum(), params)
            return direct + _flat(coupling) + damping * v

        v, iterations, residual = conjugate_gradients(hvp, grad_r, cg_iters, cg_tol, v0)
        _, c = response(v)
    grad_w = 4.0 * lam * (u * c).sum(0) / w
    return WGradient(grad_w.detach(), v.detach(), iterations, residual)


def conjugate_gradients(
    apply: Callable[[torch.Tensor], torch.Tensor],
    rhs: torch.Tensor,
    max_iters: int,
    tol: float,
    x0: torch.Tensor | None = None,
) -> tuple[torch.Tensor, int, float]:
    """Solve apply(x) = rhs; returns (x, iterations, ‖residual‖ / ‖rhs‖). Stops at non-positive curvature."""
    norm_rhs = float(rhs.norm())
    if norm_rhs == 0.0:
        return torch.zeros_like(rhs), 0, 0.0
    x = torch.zeros_like(rhs) if x0 is None else x0.clone()
    r = rhs - apply(x) if x0 is not None else rhs.clone()
    d = r.clone()
    rr = float(r @ r)
    iterations = 0
    while iterations < max_iters and rr**0.5 > tol * norm_rhs:
        ad = apply(d)
        curvature = float(d @ ad)
        if curvature <= 0.0:
            break
        step = rr / curvature
        x = x + step * d
        r = r - step * ad
        rr_new = float(r @ r)
        d = r + (rr_new / rr) * d
        rr = rr_new
        iterations += 1
    return x, iterations, rr**0.5 / norm_rhs


__all__ = ["OutputLoss", "WGradient", "conjugate_gradients", "is_piecewise_linear", "risk_grad_w"]
