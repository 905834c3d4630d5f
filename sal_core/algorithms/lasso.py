"""L1-penalised pooled learning (the Lasso), and the proximal-gradient solver Ridge shares.

Objective on the standardised covariates z with an unpenalised intercept b:

- squared loss: (1/2n) Σ (y - θᵀz - b)² + λ‖θ‖₁, exactly scikit-learn's ``Lasso(alpha=λ)`` on z;
- logistic loss: (1/n) Σ ℓ(θᵀz + b, y) + λ‖θ‖₁, scikit-learn's
  ``LogisticRegression(l1_ratio=1, C=1/(nλ))`` on z;
- absolute loss or an MLP: (1/n) Σ ℓ + λ Σ|W| over every weight matrix (biases free), by Adam.

The ½ on the squared loss is scikit-learn's convention; we keep it so ``lambda_`` means the same
number in both libraries.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from sal_core.algorithms.base import Algorithm, Problem, Reporter, Solution
from sal_core.history import Round
from sal_core.losses import LossName
from sal_core.optim import gradient_fit, set_linear
from sal_core.params import Params, param

PAPER_LAMBDA_GRID = (1e-3, 1e-2, 1e-1, 1e0, 1e1)
"""The paper's search grid for the LASSO and Ridge penalty."""


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at ``max_iter`` before reaching its tolerance (the proximal
    gradient here; IRM's Newton solve in a chunked fit)."""


@dataclass
class ProximalResult:
    theta: torch.Tensor  # (p,)
    bias: torch.Tensor  # ()
    iterations: int
    converged: bool


def soft_threshold(x: torch.Tensor, threshold: float) -> torch.Tensor:
    """The proximal map of threshold·‖·‖₁: sign(x)·max(|x| - threshold, 0), elementwise."""
    return torch.sign(x) * torch.clamp(x.abs() - threshold, min=0.0)


def linear_proximal_fit(
    Z: torch.Tensor,
    y: torch.Tensor,
    loss: LossName,
    *,
    l1: float = 0.0,
    l2: float = 0.0,
    tol: float | None = None,
    max_iter: int = 100_000,
    check_every: int = 25,
) -> ProximalResult:
    """argmin_θ,b mean_i ℓ(θᵀz_i + b, y_i) + l2·‖θ‖² + l1·‖θ‖₁ for a smooth ``loss``.

    ``loss`` is "squared" (ℓ = (y - o)², no ½) or "logistic" (labels in {0, 1}). FISTA with
    adaptive restart (O'Donoghue & Candès, 2015), which converges linearly on these strongly
    convex problems; the step is 1/L with L the exact Lipschitz constant of the smooth part.
    Squared loss works on the centred p×p Gram matrix, so an iteration costs O(p²) whatever n;
    logistic loss costs O(np) per iteration. Stops when no coordinate of (θ, b) moved by more
    than ``tol``·max(1, ‖(θ, b)‖_∞) over one iteration. Z: (n, p), y: (n,).
    """
    if loss not in ("squared", "logistic"):
        raise ValueError(f"linear_proximal_fit needs a smooth loss, got {loss!r}")
    n, p = Z.shape
    dtype, device = Z.dtype, Z.device
    if tol is None:
        tol = 1e-12 if dtype == torch.float64 else 1e-6

    if loss == "squared":
        z_mean, y_mean = Z.mean(0), y.mean()
        Zc = Z - z_mean
        gram = Zc.T @ Zc / n
        corr = Zc.T @ (y - y_mean) / n
        theta, iterations, converged = squared_proximal_fit(
            gram, corr, l1=l1, l2=l2, tol=tol, max_iter=max_iter, check_every=check_every
        )
        return ProximalResult(theta, y_mean - z_mean @ theta, iterations, converged)

    A = torch.cat([Z, torch.ones(n, 1, dtype=dtype, device=device)], dim=1)
    ridge_mask = torch.ones(p + 1, dtype=dtype, device=device)
    ridge_mask[p] = 0.0

    def grad(x: torch.Tensor) -> torch.Tensor:
        # x = (θ, b): the intercept is the last coordinate and is not penalised.
        return A.T @ (torch.sigmoid(A @ x) - y) / n + 2.0 * l2 * ridge_mask * x

    lipschitz = float(torch.linalg.eigvalsh(A.T @ A)[-1]) / (4.0 * n) + 2.0 * l2
    x = torch.zeros(p + 1, dtype=dtype, device=device)
    x, iterations, converged = _fista(grad, lipschitz, x, p, l1, tol, max_iter, check_every)
    return ProximalResult(x[:p].clone(), x[p].clone(), iterations, converged)


def squared_proximal_fit(
    gram: torch.Tensor,
    corr: torch.Tensor,
    *,
    l1: float = 0.0,
    l2: float = 0.0,
    tol: float | None = None,
    max_iter: int = 100_000,
    check_every: int = 25,
) -> tuple[torch.Tensor, int, bool]:
    """The squared-loss case of :func:`linear_proximal_fit` from the centred moments alone:
    argmin_θ θᵀGθ − 2cᵀθ + l2·‖θ‖² + l1·‖θ‖₁ with ``gram`` G = Zcᵀ Zc / n (p, p) and ``corr``
    c = Zcᵀ (y − ȳ) / n (p,), Zc the covariates centred on their mean (the intercept is then
    ȳ − z̄ᵀθ). The same FISTA iterations, so a fit whose moments were added up elsewhere (chunk by
    chunk) runs what the fit in memory runs. Returns (θ (p,), iterations, converged)."""
    p = corr.shape[0]
    if tol is None:
        tol = 1e-12 if gram.dtype == torch.float64 else 1e-6

    def grad(x: torch.Tensor) -> torch.Tensor:
        # x = θ only: the optimal intercept is ȳ - z̄ᵀθ for any θ.
        return 2.0 * (gram @ x - corr) + 2.0 * l2 * x

    lipschitz = 2.0 * float(torch.linalg.eigvalsh(gram)[-1]) + 2.0 * l2
    x = torch.zeros(p, dtype=gram.dtype, device=gram.device)
    return _fista(grad, lipschitz, x, p, l1, tol, max_iter, check_every)


def _fista(
    grad: Callable[[torch.Tensor], torch.Tensor],
    lipschitz: float,
    x: torch.Tensor,
    p: int,
    l1: float,
    tol: float,
    max_iter: int,
    check_every: int,
) -> tuple[torch.Tensor, int, bool]:
    """FISTA with adaptive restart from ``x``; the first ``p`` coordinates carry the L1 penalty."""
    dtype, device = x.dtype, x.device
    step = 1.0 / max(lipschitz, 1e-12)

    def prox(v: torch.Tensor) -> torch.Tensor:
        if l1 == 0.0:
            return v
        return torch.cat([soft_threshold(v[:p], step * l1), v[p:]])

    momentum_point, t = x.clone(), torch.ones((), dtype=dtype, device=device)
    converged, iterations = False, 0
    for iterations in range(1, max_iter + 1):
        x_new = prox(momentum_point - step * grad(momentum_point))
        # Adaptive restart: drop the momentum when it points uphill. Branch-free, no host sync.
        restart = torch.dot(momentum_point - x_new, x_new - x) > 0
        t_new = 0.5 * (1.0 + torch.sqrt(1.0 + 4.0 * t * t))
        beta = torch.where(restart, torch.zeros_like(t), (t - 1.0) / t_new)
        t = torch.where(restart, torch.ones_like(t), t_new)
        change = x_new - x
        momentum_point = x_new + beta * change
        x = x_new
        if iterations % check_every == 0:
            converged = float(change.abs().max()) <= tol * max(1.0, float(x.abs().max()))
            if converged:
                break
    return x, iterations, converged


def weight_penalty(model: nn.Module, kind: str) -> torch.Tensor:
    """Σ‖W‖² ("l2") or Σ|W| ("l1") over every weight matrix of ``model``; biases are not penalised."""
    terms = [
        (w * w).sum() if kind == "l2" else w.abs().sum()
        for name, w in model.named_parameters()
        if name.split(".")[-1] == "weight"
    ]
    return torch.stack(terms).sum()


def penalised_fit(
    problem: Problem,
    *,
    kind: str,
    strength: float,
    steps: int,
    lr: float,
    max_iter: int,
) -> tuple[nn.Module, float]:
    """Fit mean ℓ + strength·penalty(W) and return the model and the objective's final value.

    Linear models with a smooth loss go to :func:`linear_proximal_fit` (exact to solver tolerance);
    everything else (absolute loss, MLP) is full-batch Adam on the (sub)gradient.
    """
    model = problem.new_model()
    if problem.model_spec.is_linear and problem.loss_name in ("squared", "logistic"):
        l1, l2 = (strength, 0.0) if kind == "l1" else (0.0, strength)
        result = linear_proximal_fit(problem.Z, problem.y, problem.loss_name, l1=l1, l2=l2, max_iter=max_iter)
        if not result.converged:
            warnings.warn(
                f"proximal gradient stopped after {result.iterations} iterations before converging; "
                "raise max_iter or the penalty",
                ConvergenceWarning,
                stacklevel=3,
            )
        set_linear(model, result.theta, result.bias)
    else:
        gradient_fit(
            model,
            lambda: problem.loss(model(problem.Z), problem.y).mean() + strength * weight_penalty(model, kind),
            steps=steps,
            lr=lr,
        )
    with torch.no_grad():
        objective = problem.loss(model(problem.Z), problem.y).mean() + strength * weight_penalty(model, kind)
    return model, float(objective)


@dataclass(frozen=True)
class LassoParams(Params):
    lambda_: float = param(
        0.01,
        low=0.0,
        high=1e6,
        grid=PAPER_LAMBDA_GRID,
        doc=(
            "L1 penalty λ in (1/2n)Σ(y - θᵀz - b)² + λ‖θ‖₁ on standardised covariates "
            "(= scikit-learn Lasso(alpha=λ)). The default 0.01 shrinks each standardised "
            "coefficient by at most 0.01, so it drops only covariates that barely help; the paper "
            "searches {1e-3, …, 1e1} on a validation split."
        ),
    )
    steps: int = param(2000, low=1, high=1_000_000, doc="Adam steps for the absolute loss or an MLP.")
    lr: float = param(
        0.01, low=0.0, low_inclusive=False, high=10.0, doc="Adam learning rate for the gradient path."
    )
    max_iter: int = param(
        100_000,
        low=1,
        high=10_000_000,
        doc="Proximal-gradient iterations at most (linear model, smooth loss).",
    )


class Lasso(Algorithm[LassoParams]):
    """Pooled L1-penalised risk minimisation; exact proximal gradient for linear models."""

    name = "lasso"
    params_type = LassoParams
    summary = "Lasso: pooled empirical risk with an L1 penalty on the standardised coefficients."

    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        # The squared loss carries scikit-learn's ½: mean((y - o)²)/2 + λ‖θ‖₁ ⇔ mean((y - o)²) + 2λ‖θ‖₁.
        scale = 2.0 if problem.loss_name == "squared" else 1.0
        model, objective = penalised_fit(
            problem,
            kind="l1",
            strength=scale * self.params.lambda_,
            steps=self.params.steps,
            lr=self.params.lr,
            max_iter=self.params.max_iter,
        )
        losses = problem.env_losses(model).detach()
        env_losses = problem.by_env(losses)
        history = [Round(round=1, risk=objective / scale, env_losses=env_losses)]
        reporter(1, {"train_loss": float(losses.mean()), "objective": objective / scale})
        return Solution(model=model, history=history)


ALGORITHM = Lasso

__all__ = [
    "ALGORITHM",
    "PAPER_LAMBDA_GRID",
    "ConvergenceWarning",
    "Lasso",
    "LassoParams",
    "linear_proximal_fit",
    "squared_proximal_fit",
]
