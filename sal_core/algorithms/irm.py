"""Invariant Risk Minimisation, IRMv1 (Arjovsky, Bottou, Gulrajani & Lopez-Paz, 2019).

    min_θ  mean_e [ L^e(θ) + γ · (∂/∂s L^e(s · f_θ) at s = 1)² ]

The penalty is the squared gradient of each environment's risk with respect to a fixed scalar
"dummy classifier" s multiplying the model's output: it vanishes when f_θ is simultaneously optimal,
up to scale, in every environment. Averaging over environments instead of summing (the paper's
Σ_e) leaves the minimiser unchanged. As in the reference implementation (``colored_mnist/main.py``),
the penalty weight is 1 for the first ``anneal_steps`` steps and γ afterwards, the objective is
divided by γ once γ > 1 so that Adam's steps keep their size; as in DomainBed, Adam restarts at
the switch, whose jump in gradient scale its moment estimates would otherwise misjudge.

IRMv1 is not convex. A linear model with squared loss starts from the pooled least-squares
solution rather than from zero: on the anti-causal setting Adam started at θ = 0 settles in a
stationary point with a far larger objective than the one reached from the least-squares start
(measured: docs/sal.md, "Measured for the defaults"), and the least-squares fit is where the annealing phase is
meant to bring the model anyway. Other models start as ``Problem.new_model`` builds them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from sal_core.algorithms.base import Algorithm, Problem, Reporter, Solution
from sal_core.history import Round
from sal_core.optim import FlatAdam, least_squares, release_storage, set_linear
from sal_core.params import Params, param

PAPER_PENALTY_GRID = (1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4)
"""The paper's search grid for the IRM penalty weight λ."""

_ROUNDS = 100  # progress reports and history rows per fit, at most


def irm_penalties(
    problem: Problem, output: torch.Tensor, *, create_graph: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-environment risks L^e (E,) and IRMv1 penalties (∂L^e(s·f)/∂s at s = 1)² (E,).

    One backward pass for all environments: each environment's risk depends only on its own
    entry of the dummy scale vector s (E,), so the gradient of Σ_e L^e with respect to s is the
    vector of per-environment gradients. Differentiable in θ when ``create_graph`` (training).
    """
    scale = torch.ones(problem.n_envs, dtype=output.dtype, device=output.device, requires_grad=True)
    risks = problem.env_means(problem.loss(output * scale[problem.env_index], problem.y))
    (grad,) = torch.autograd.grad(risks.sum(), scale, create_graph=create_graph)
    return risks, grad**2


def linear_irm_newton(
    problem: Problem, penalty_weight: float, *, anneal: bool = True, max_iter: int = 100, tol: float = 1e-10
) -> tuple[torch.Tensor, torch.Tensor]:
    """IRMv1 for a linear model with squared loss, solved by damped Newton on sufficient statistics.

    With t = [θ, b] and z̃ = [z, 1], environment e has G_e = E[z̃z̃ᵀ], c_e = E[z̃y], E[y²], and
    L^e = tᵀG_e t − 2c_eᵀt + E[y²], the penalty root d_e = ∂_s L^e(s·f)|_{s=1} = 2(tᵀG_e t − c_eᵀt):
    the objective mean_e[L^e + γ d_e²] is a quartic in p + 1 unknowns with exact gradient and Hessian.
    One O(n·p²) pass builds the moments (on the fit's device); each Newton step is a (p+1)² solve.
    On the paper's settings it takes a few steps, where 2000 Adam steps stop short of the stationary
    point (measured: docs/sal.md, "Measured for the defaults"). The reference implementation's annealing
    (weight 1, then γ) becomes a continuation: solve at weight 1 from pooled least squares, then at γ
    from there; the objective is not convex, and this keeps us in the basin Adam's schedule reaches.
    Levenberg damping keeps each step a descent direction where the Hessian is indefinite.
    Returns (θ (p,), b ()) on the problem's device and dtype.
    """
    Z, y = problem.Z.double(), problem.y.double()
    Zt = torch.cat([Z, torch.ones_like(Z[:, :1])], dim=1)
    gram = torch.stack(
        [Zt[problem.env_index == e].T @ Zt[problem.env_index == e] for e in range(problem.n_envs)]
    )
    cross = torch.stack(
        [Zt[problem.env_index == e].T @ y[problem.env_index == e] for e in range(problem.n_envs)]
    )
    yy = torch.stack([(y[problem.env_index == e] ** 2).sum() for e in range(problem.n_envs)])
    counts = problem.env_counts.double()
    gram, cross, yy = gram / counts[:, None, None], cross / counts[:, None], yy / counts
    theta, bias = least_squares(Z, y)
    start = torch.cat([theta, bias.reshape(1)])
    t, _ = irm_newton(gram, cross, yy, start, penalty_weight, anneal=anneal, max_iter=max_iter, tol=tol)
    t = t.to(problem.Z.dtype)
    return t[:-1], t[-1]


def irm_newton(
    gram: torch.Tensor,
    cross: torch.Tensor,
    yy: torch.Tensor,
    start: torch.Tensor,
    penalty_weight: float,
    *,
    anneal: bool = True,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> tuple[torch.Tensor, bool]:
    """The damped Newton iterations of :func:`linear_irm_newton` on the per-environment moments
    alone: ``gram`` G_e = E[z̃z̃ᵀ] (E, p+1, p+1), ``cross`` c_e = E[z̃y] (E, p+1), ``yy`` E[y²] (E,)
    with z̃ = [z, 1], from ``start`` t = [θ, b] (p+1,) (pooled least squares). So a fit whose moments
    were added up elsewhere (chunk by chunk) runs what the fit in memory runs. Returns t (p+1,)
    and whether every stage stopped at the gradient tolerance; one that ran ``max_iter`` steps (or
    stalled) ends at an iterate which the moments' last digits can move (the objective is not
    convex: measured 1.7e-3 relative at γ = 1e4 without annealing on tests/app/test_outofcore.py's
    table)."""
    t, converged = start, True
    eye = torch.eye(t.shape[0], dtype=t.dtype, device=t.device)

    def objective(t: torch.Tensor, gamma: float) -> torch.Tensor:
        quad = torch.einsum("i,eij,j->e", t, gram, t)
        lin = cross @ t
        return (quad - 2.0 * lin + yy + gamma * (2.0 * (quad - lin)) ** 2).mean()

    for gamma in ([1.0] if anneal and penalty_weight != 1.0 else []) + [penalty_weight]:
        stage_converged = False
        for _ in range(max_iter):
            gt = gram @ t  # (E, p+1)
            d = 2.0 * (gt @ t - cross @ t)  # (E,)
            grad_d = 4.0 * gt - 2.0 * cross  # (E, p+1)
            grad = (2.0 * gt - 2.0 * cross + 2.0 * gamma * d[:, None] * grad_d).mean(0)
            hess = (
                2.0 * gram
                + 2.0 * gamma * (grad_d[:, :, None] * grad_d[:, None, :] + 4.0 * d[:, None, None] * gram)
            ).mean(0)
            if float(grad.norm()) <= tol * max(1.0, float(cross.norm())):
                stage_converged = True
                break
            mu, value = 0.0, objective(t, gamma)
            while True:
                chol, info = torch.linalg.cholesky_ex(hess + mu * eye)
                if int(info) == 0:
                    step = -torch.cholesky_solve(grad[:, None], chol)[:, 0]
                    if objective(t + step, gamma) <= value:
                        break
                mu = max(2.0 * mu, 1e-8 * float(hess.diagonal().abs().max()) + 1e-12)
                if mu > 1e12:
                    step = torch.zeros_like(t)
                    break
            t = t + step
            if float(step.norm()) == 0.0:
                break
        converged = converged and stage_converged
    return t, converged


def irm_terms(
    t: torch.Tensor, gram: torch.Tensor, cross: torch.Tensor, yy: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-environment risks L^e (E,) and IRMv1 penalties d_e² (E,) of t = [θ, b] from the moments
    :func:`irm_newton` takes: what :func:`irm_penalties` gives on the rows, for a linear model with
    squared loss."""
    quad = torch.einsum("i,eij,j->e", t, gram, t)
    lin = cross @ t
    return quad - 2.0 * lin + yy, (2.0 * (quad - lin)) ** 2


@dataclass(frozen=True)
class IRMParams(Params):
    penalty_weight: float = param(
        1.0,
        low=0.0,
        high=1e8,
        grid=PAPER_PENALTY_GRID,
        doc=(
            "γ, the weight of the invariance penalty after annealing; larger trades training fit for "
            "invariance. Default 1: with the paper's protocol (RMSE on rows held out from the training "
            "environments, 3 seeds) validation error is flat for γ ≤ 1 on the selection-bias and "
            "anti-causal settings and rises above it; 1 is the largest weight within 1.5% of the best."
        ),
    )
    anneal_steps: int = param(
        500,
        low=0,
        high=1_000_000,
        doc="Steps with penalty weight 1 before γ takes over (500, as DomainBed's IRM default).",
    )
    steps: int = param(2000, low=1, high=1_000_000, doc="Full-batch Adam steps in total.")
    lr: float = param(0.01, low=0.0, low_inclusive=False, high=10.0, doc="Adam learning rate.")


class IRM(Algorithm[IRMParams]):
    """IRMv1: per-environment risks plus the squared gradient of each with respect to a dummy scale."""

    name = "irm"
    params_type = IRMParams
    min_environments = 2
    summary = "Invariant Risk Minimisation (IRMv1): a penalty on per-environment gradient of a dummy scale."

    def total_steps(self) -> int:
        return min(self.params.steps, _ROUNDS)

    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        p = self.params
        model = problem.new_model()
        newton = problem.model_spec.is_linear and problem.loss_name == "squared"
        if newton:
            # Smooth and (p+1)-dimensional: solved to convergence, no Adam steps (ends = [0]).
            set_linear(model, *linear_irm_newton(problem, p.penalty_weight, anneal=p.anneal_steps > 0))
        params = list(model.parameters())
        optimizer = FlatAdam(params, lr=p.lr)  # torch.optim.Adam's arithmetic, without its overhead
        rounds = self.total_steps()
        # Round k ends after step ends[k] - 1: the steps split as evenly as they can.
        ends = [0] if newton else [(k + 1) * p.steps // rounds for k in range(rounds)]
        history: list[Round] = []
        step, stopped = 0, False
        for round_index, end in enumerate(ends, start=1):
            while step < end:
                weight = p.penalty_weight if step >= p.anneal_steps else 1.0
                if step == p.anneal_steps and step > 0 and weight != 1.0:
                    # The objective's scale jumps; stale Adam moments would misdirect the next steps.
                    optimizer = FlatAdam(params, lr=p.lr)
                risks, penalties = irm_penalties(problem, model(problem.Z))
                objective = (risks + weight * penalties).mean()
                if weight > 1.0:
                    objective = objective / weight
                optimizer.zero_grad()
                objective.backward()  # type: ignore[no-untyped-call]  # torch's own annotation is missing
                optimizer.step_from_grads()
                step += 1
            risks, penalties = irm_penalties(problem, model(problem.Z), create_graph=False)
            risks, penalties = risks.detach(), penalties.detach()
            value = float((risks + p.penalty_weight * penalties).mean())
            env_losses = problem.by_env(risks)
            history.append(
                Round(round=round_index, risk=value, env_losses=env_losses, penalty=float(penalties.mean()))
            )
            metrics = {
                "train_loss": float(risks.mean()),
                "penalty": float(penalties.mean()),
                "objective": value,
            }
            if reporter(round_index, metrics):
                stopped = True
                break
        release_storage(params)
        return Solution(model=model, history=history, stopped=stopped)


ALGORITHM = IRM

__all__ = [
    "ALGORITHM",
    "IRM",
    "IRMParams",
    "PAPER_PENALTY_GRID",
    "irm_newton",
    "irm_penalties",
    "irm_terms",
    "linear_irm_newton",
]
