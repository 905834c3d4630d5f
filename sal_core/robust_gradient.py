"""The gradient paths of WDRL and SAL: any loss, any model, as pure functions of (problem, model, w).

Used where the exact ridge path (:mod:`sal_core.robust_linear`) does not apply: a linear model with
absolute or logistic loss (closed-form adversary, ∂R/∂w by implicit differentiation through
autograd), or any model with the gradient adversary (m ascent steps for X̃ and the paper's Section
4.2.1 approximation of ∂R/∂w).

Shapes: ``Z`` (n, p) standardised rows, ``y`` (n,), ``w`` (p,) covariate weights, all on the fit's
device and dtype. Gradients handed to the w update come back as float64 numpy (p,).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.func import functional_call

from sal_core.adversary import InnerSup, kappa, linear_inner_sup, logistic_shift, logistic_sup_curvature
from sal_core.problem import Certificate, Problem

KAPPA_FLOOR = 1e-12
"""κ below which the logistic adversary cannot move a prediction (θ ≈ 0): κ there carries no gradient, as in :func:`sal_core.adversary.linear_inner_sup`."""


SYMMETRIC_FROM_P = 32
"""From this many covariates (on a CPU) the logistic w-gradient forms its Hessian by a symmetric
rank-k update and solves it by Cholesky (:func:`weighted_gram`, :func:`solve_psd`); below, the general
product and LU as before, which cost less there (measured: docs/sal.md, "The logistic w-gradient's
Hessian, symmetric")."""


Trace = list[tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]]
"""(θ_t, X̃_t, ∂X̃_t/∂w) per θ-step, for the paper's approximation of ∂R/∂w."""


@dataclass
class AdversaryState:
    """Warm start of the logistic closed-form adversary: its last roots, reused while shapes match."""

    shift: torch.Tensor | None = None


def closed_form_sup(
    problem: Problem,
    model: torch.nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    state: AdversaryState,
) -> InnerSup:
    """sup_x̃ ℓ(θ; x̃, y) − λ‖w ⊙ (x̃ − x)‖² per row, in closed form for a linear model."""
    weight: torch.Tensor = model.weight  # type: ignore[assignment]
    warm = state.shift if state.shift is not None and state.shift.shape == y.shape else None
    sup = linear_inner_sup(problem.loss_name, model(Z), y, kappa(weight, w), lam, warm)
    state.shift = sup.shift
    return sup


def ascent(
    problem: Problem,
    model: torch.nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    steps: int,
    lr: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """m ascent steps on ℓ(X̃) − λ‖w ⊙ (X̃ − X)‖²; returns δ = X̃ − X and the paper's ∂X̃/∂w (n, p)."""
    delta = torch.zeros_like(Z)
    d_dw = torch.zeros_like(Z)
    w2 = w**2
    for _ in range(steps):
        d_dw = d_dw - 4.0 * lr * lam * w * delta
        delta.requires_grad_(True)
        gain = problem.loss(model(Z + delta), y).sum() - lam * (w2 * delta**2).sum()
        (grad,) = torch.autograd.grad(gain, delta)
        delta = (delta + lr * grad).detach()
    return delta, d_dw


def theta_objective(
    problem: Problem,
    model: torch.nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    state: AdversaryState,
    *,
    closed_form: bool,
    ascent_steps: int,
    ascent_lr: float,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor] | None]:
    """mean_i sup_x̃ ℓ − λ‖w ⊙ (x̃ − x)‖² at the current θ: in closed form, or after m ascent steps,
    then also (δ, the paper's ∂X̃/∂w) for Section 4.2.1's ∂R/∂w."""
    if closed_form:
        return closed_form_sup(problem, model, Z, y, w, lam, state).value.mean(), None
    delta, d_dw = ascent(problem, model, Z, y, w, lam, ascent_steps, ascent_lr)
    return (problem.loss(model(Z + delta), y) - lam * ((w * delta) ** 2).sum(1)).mean(), (delta, d_dw)


def logistic_theta_grad(
    model: torch.nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    state: AdversaryState,
) -> None:
    """∇_θ mean s_λ for a linear model θᵀz + b with logistic loss, by the envelope theorem:
    ∂s/∂a = σ(a + u*) and ∂s/∂κ = λu*²/κ² at the adversary's root u* (a = −ỹ·(θᵀz + b),
    κ = Σθ²/w²), so ∇_weight = mean(−ỹ s_a z) + mean(s_κ)·2θ/w², ∇_bias = mean(−ỹ s_a): one pass
    over the rows each way instead of autograd's graph through the root's Newton step."""
    weight: torch.Tensor = model.weight  # type: ignore[assignment]
    bias: torch.Tensor = model.bias  # type: ignore[assignment]
    with torch.no_grad():
        sign = 2 * y - 1
        a = -sign * (Z @ weight + bias)
        raw = kappa(weight, w)
        kap = raw.clamp_min(KAPPA_FLOOR)  # as linear_inner_sup: below the floor κ carries no gradient
        warm = state.shift if state.shift is not None and state.shift.shape == y.shape else None
        u = logistic_shift(a, kap, lam, start=warm)
        state.shift = u
        d_out = -sign * torch.sigmoid(a + u) / y.shape[0]
        weight.grad = Z.T @ d_out
        if float(raw) > KAPPA_FLOOR:
            weight.grad += (lam * u**2).mean() / kap**2 * (2 * weight / w**2)
        bias.grad = d_out.sum()


def risk_grad_params(
    problem: Problem, model: torch.nn.Module, y: torch.Tensor, d_losses: np.ndarray, names: list[str]
) -> list[torch.Tensor]:
    """∇_θ R = Σ_e ∂R/∂L^e · ∇_θ L^e, one tensor per named parameter."""
    losses = problem.env_means(problem.loss(model(problem.Z), y))
    weights = torch.as_tensor(d_losses, dtype=losses.dtype, device=losses.device)
    params = dict(model.named_parameters())
    return list(torch.autograd.grad((weights * losses).sum(), [params[n] for n in names]))


def implicit_grad_w(
    problem: Problem,
    model: torch.nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    grad_r: list[torch.Tensor],
    names: list[str],
) -> np.ndarray:
    """−(H⁻¹∇_θR)ᵀ ∂²J/∂θ∂w for a linear model with the closed-form adversary (J = mean s_λ)."""
    theta0 = torch.cat([model.weight.detach(), model.bias.detach().reshape(1)])  # type: ignore[operator]
    p_ = problem.n_features
    g = torch.cat([grad_r[names.index("weight")], grad_r[names.index("bias")].reshape(1)])
    if problem.loss_name == "logistic" and float(kappa(theta0[:p_], w)) > KAPPA_FLOOR:
        return _logistic_implicit_grad_w(Z, y, w, lam, theta0, g)

    def objective(theta: torch.Tensor, w_: torch.Tensor) -> torch.Tensor:
        out = Z @ theta[:p_] + theta[p_]
        return linear_inner_sup(problem.loss_name, out, y, kappa(theta[:p_], w_), lam).value.mean()

    hess: torch.Tensor = torch.autograd.functional.hessian(  # type: ignore[no-untyped-call]  # unannotated in torch
        lambda th: objective(th, w), theta0
    )
    v = torch.linalg.solve(hess + 1e-10 * torch.eye(p_ + 1, dtype=hess.dtype, device=hess.device), g)
    w_req = w.detach().clone().requires_grad_(True)
    theta_req = theta0.clone().requires_grad_(True)
    (grad_theta,) = torch.autograd.grad(objective(theta_req, w_req), theta_req, create_graph=True)
    (mixed,) = torch.autograd.grad(grad_theta @ v, w_req)
    return np.asarray(-mixed.detach().cpu().double().numpy(), dtype=np.float64)


def _logistic_implicit_grad_w(
    Z: torch.Tensor, y: torch.Tensor, w: torch.Tensor, lam: float, theta: torch.Tensor, g: torch.Tensor
) -> np.ndarray:
    """:func:`implicit_grad_w` for logistic loss in closed form, one O(n·p²) product instead of one
    autograd pass per parameter (:class:`sal_core.adversary.LogisticSupCurvature`).

    With x̃ᵢ = −ỹᵢ(zᵢ, 1) (a = x̃ᵀθ), k = ∇_θκ = (2θ/w², 0) and K = ∇²_θκ = diag(2/w², 0):
    H = mean(s_aa x̃x̃ᵀ) + q kᵀ + k qᵀ + mean(s_κκ) k kᵀ + mean(s_κ) K with q = mean(s_aκ x̃), and
    vᵀ∂(∇_θJ)/∂w = (vᵀq + mean(s_κκ)·vᵀk)·∂κ/∂w + mean(s_κ)·v ⊙ ∂k/∂w, ∂κ/∂w = −2θ²/w³."""
    n, p = Z.shape
    weight, bias = theta[:p], theta[p]
    sign = 2 * y - 1
    a = -sign * (Z @ weight + bias)
    kap = kappa(weight, w)
    curve = logistic_sup_curvature(a, kap, lam, logistic_shift(a, kap, lam))
    k = torch.cat([2 * weight / w**2, weight.new_zeros(1)])
    symmetric = p >= SYMMETRIC_FROM_P and Z.device.type == "cpu"
    if symmetric:
        q = _with_bias(Z, -(sign * curve.s_a_kappa) / n)
        gram = weighted_gram(Z, curve.s_aa / n)
    else:
        rows = torch.cat([Z, Z.new_ones(n, 1)], dim=1)
        q = -(rows.T @ (sign * curve.s_a_kappa)) / n
        gram = (rows.T * (curve.s_aa / n)) @ rows
    s_kk, s_k = curve.s_kappa_kappa.mean(), curve.s_kappa.mean()
    hess = gram + torch.outer(q, k) + torch.outer(k, q) + s_kk * torch.outer(k, k)
    hess.diagonal()[:p] += s_k * 2 / w**2
    solve = solve_psd if symmetric else torch.linalg.solve
    v = solve(hess + 1e-10 * torch.eye(p + 1, dtype=hess.dtype, device=hess.device), g)
    d_kappa_dw = -2 * weight**2 / w**3
    mixed = (v @ q + s_kk * (v @ k)) * d_kappa_dw + s_k * v[:p] * (-4 * weight / w**3)
    return np.asarray(-mixed.detach().cpu().double().numpy(), dtype=np.float64)


def _with_bias(Z: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """[Z, 1]ᵀv (p + 1,): Zᵀv and the sum of ``v``, without writing the (n, p + 1) copy of Z."""
    return torch.cat([Z.T @ v, v.sum().reshape(1)])


def weighted_gram(Z: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """[Z, 1]ᵀ diag(weights) [Z, 1], (p + 1, p + 1), the bias last.

    Where every weight is ≥ 0 (the logistic s_aa is, at the adversary's maximiser) the product is
    AᵀA with A = √weights ⊙ Z, and on a CPU numpy hands AᵀA to BLAS's symmetric rank-k update, which
    does half a general product's multiply-adds; elsewhere, or with a negative weight, the general
    product."""
    p = Z.shape[1]
    out = Z.new_empty(p + 1, p + 1)
    if Z.device.type == "cpu" and bool((weights >= 0).all()):
        scaled = (Z * weights.sqrt()[:, None]).detach().numpy()
        out[:p, :p] = torch.from_numpy(scaled.T @ scaled)
    else:
        out[:p, :p] = (Z.T * weights) @ Z
    side = Z.T @ weights
    out[:p, p] = side
    out[p, :p] = side
    out[p, p] = weights.sum()
    return out


def solve_psd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a⁻¹b for a symmetric ``a`` that should be positive definite: by its Cholesky factor (a third
    of LU's work), by LU where the factorisation fails (``a`` numerically indefinite)."""
    factor, info = torch.linalg.cholesky_ex(a)
    if int(info) != 0:
        solved: torch.Tensor = torch.linalg.solve(a, b)
        return solved
    return torch.cholesky_solve(b.reshape(-1, 1), factor).reshape(b.shape)


def paper_grad_w(
    problem: Problem,
    model: torch.nn.Module,
    y: torch.Tensor,
    trace: Trace,
    grad_r: list[torch.Tensor],
    theta_lr: float,
) -> np.ndarray:
    """Section 4.2.1: ∂R/∂w ≈ Σ_t −ε_θ ∂(∇_θRᵀ∇_θℓ(θ_t; X̃_t))/∂X̃ ⊙ ∂X̃_t/∂w, summed over rows."""
    total = torch.zeros(problem.n_features, dtype=problem.Z.dtype, device=problem.Z.device)
    names = [n for n, _ in model.named_parameters()]
    for params_t, x_tilde, d_dw in trace:
        x_req = x_tilde.detach().requires_grad_(True)
        leaves = {k: v.detach().requires_grad_(True) for k, v in params_t.items()}
        loss = problem.loss(functional_call(model, leaves, (x_req,)), y).mean()
        grads = torch.autograd.grad(loss, [leaves[n] for n in names], create_graph=True)
        inner = torch.stack([(g * r).sum() for g, r in zip(grads, grad_r, strict=True)]).sum()
        (d_x,) = torch.autograd.grad(inner, x_req)
        total = total + (-theta_lr * d_x * d_dw).sum(0)
    return np.asarray(total.detach().cpu().double().numpy(), dtype=np.float64)


def certificate(
    problem: Problem,
    model: torch.nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    *,
    closed_form: bool,
    loss_scale: float,
    ascent_steps: int,
    ascent_lr: float,
    state: AdversaryState,
) -> Certificate:
    """Theorem 1 at the fitted model: ρ̂ = mean transport cost of the worst case, E[s_λ] + λρ̂."""
    with torch.enable_grad():
        if closed_form:
            sup = closed_form_sup(problem, model, Z, y, w, lam, state)
            value, cost = sup.value.detach(), sup.cost.detach()
        else:
            delta, _ = ascent(problem, model, Z, y, w, lam, ascent_steps, ascent_lr)
            cost = ((w * delta) ** 2).sum(1)
            value = problem.loss(model(Z + delta), y).detach() - lam * cost
    rho = float(cost.mean())
    return Certificate(rho, (float(value.mean()) + lam * rho) * loss_scale, lam)
