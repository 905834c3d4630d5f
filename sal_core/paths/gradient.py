"""The gradient path (any model or loss off the exact path): Adam steps on θ against the closed-form
adversary (linear models) or m steps of gradient ascent for X̃ (:mod:`sal_core.robust_gradient`).

Plain functions: a fit at w ≡ 1 (WDRL, and every algorithm's adversary-off candidate), and SAL's
rounds that alternate T_θ Adam steps with one w-step.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from sal_core import robust_gradient as rg
from sal_core import robust_linear as rl
from sal_core.history import Round
from sal_core.optim import FlatAdam, column_major, fit_plain_loss, release_storage
from sal_core.params import Params
from sal_core.paths.common import loss_scale, rescale_output, round_of
from sal_core.paths.w_step import WStep
from sal_core.problem import Problem, Reporter, Solution

ERM_STEPS = 2000
"""Adam steps of the adversary-off candidate on gradient paths (ERM's default)."""


@dataclass(frozen=True)
class ThetaOptions:
    """How θ is stepped: Adam (``theta_steps`` per fit at w ≡ 1, per round when w is learned) against
    the closed-form adversary (``closed_form``) or ``ascent_steps`` of gradient ascent for X̃."""

    theta_steps: int
    theta_lr: float
    ascent_steps: int
    ascent_lr: float
    closed_form: bool


def fit_fixed_w(
    problem: Problem,
    lam: float,
    reporter: Reporter,
    y_scale: float,
    options: ThetaOptions,
    *,
    adversary: bool = True,
) -> Solution:
    """θ at w ≡ 1 and λ (``adversary``), or ERM's 2000 Adam steps on the plain loss (no adversary)."""
    o = options
    Z, y = column_major(problem.Z), problem.y / y_scale
    model = problem.new_model()
    w = torch.ones(problem.n_features, dtype=Z.dtype, device=Z.device)
    state = rg.AdversaryState()
    if adversary:
        params = list(model.parameters())
        _theta_steps(FlatAdam(params, lr=o.theta_lr), problem, model, Z, y, w, lam, state, o)
        release_storage(params)
    else:
        fit_plain_loss(
            model,
            Z,
            y,
            problem.loss_name,
            linear=problem.model_spec.is_linear,
            steps=ERM_STEPS,
            lr=o.theta_lr,
        )
    scale = loss_scale(problem, y_scale)
    losses = problem.env_means(problem.loss(model(Z), y)).detach().cpu().double().numpy() * scale
    history = [round_of(1, float(losses.mean()), None, losses, problem)]
    stopped = reporter(1, {"risk": float(losses.mean())})
    return _solution(problem, model, w, lam, y_scale, o, state, history, stopped)


def _theta_steps(
    optimizer: FlatAdam,
    problem: Problem,
    model: torch.nn.Module,
    Z: torch.Tensor,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    state: rg.AdversaryState,
    o: ThetaOptions,
    trace: rg.Trace | None = None,
) -> None:
    """``theta_steps`` Adam steps on θ against the adversary at (w, λ): logistic loss with the
    closed-form adversary takes its gradient in closed form, everything else goes through autograd.
    ``trace`` collects (θ_t, X̃_t, ∂X̃_t/∂w) of the gradient adversary for the paper's ∂R/∂w."""
    for _ in range(o.theta_steps):
        optimizer.zero_grad()
        if o.closed_form and problem.loss_name == "logistic":
            rg.logistic_theta_grad(model, Z, y, w, lam, state)
        else:
            objective, ascended = rg.theta_objective(
                problem, model, Z, y, w, lam, state, closed_form=o.closed_form,
                ascent_steps=o.ascent_steps, ascent_lr=o.ascent_lr,
            )  # fmt: skip
            if ascended is not None and trace is not None:  # θ_t is unchanged until optimizer.step()
                delta, d_delta_dw = ascended
                params_now = {k: v.detach().clone() for k, v in model.named_parameters()}
                trace.append((params_now, Z + delta, d_delta_dw))
            torch.autograd.backward(objective)
        optimizer.step_from_grads()


def fit_rounds(
    problem: Problem,
    lam: float,
    reporter: Reporter,
    y_scale: float,
    options: ThetaOptions,
    w_step: WStep[Params],
) -> Solution:
    """SAL's rounds at λ: T_θ Adam steps, then R and ∂R/∂w (implicit with the closed-form adversary,
    the paper's Section 4.2.1 approximation with the gradient adversary), then the w-step."""
    o = options
    Z, y = column_major(problem.Z), problem.y / y_scale
    model = problem.new_model()
    names = [n for n, _ in model.named_parameters()]
    params = list(model.parameters())
    optimizer = FlatAdam(params, lr=o.theta_lr)  # torch.optim.Adam's arithmetic, without its overhead
    w = torch.ones(problem.n_features, dtype=Z.dtype, device=Z.device)
    varying = (Z.var(0) > rl.VARYING).cpu().numpy()  # a constant covariate's w never moves: never pinned
    update = w_step.update(None if varying.all() else varying)
    alpha, stability = w_step.alpha, w_step.stability
    scale = loss_scale(problem, y_scale)
    state = rg.AdversaryState()
    history = []
    stopped = False
    for round_ in range(1, w_step.schedule.rounds + 1):
        trace: rg.Trace = []
        _theta_steps(optimizer, problem, model, Z, y, w, lam, state, o, trace)
        losses = problem.env_means(problem.loss(model(Z), y)).detach()
        risk, d_losses = rl.stability_risk(losses.cpu().double().numpy(), alpha, stability)
        w_now = w.cpu().double().numpy()
        history.append(round_of(round_, risk * scale, w_now, losses.cpu().double().numpy() * scale, problem))
        if reporter(round_, {"risk": risk * scale, "w": w_now.tolist()}):
            stopped = True
            break
        grad_r = rg.risk_grad_params(problem, model, y, d_losses, names)
        if o.closed_form:
            grad_w = rg.implicit_grad_w(problem, model, Z, y, w, lam, grad_r, names)
        else:
            grad_w = rg.paper_grad_w(problem, model, y, trace, grad_r, o.theta_lr)
        w = torch.as_tensor(update(w_now, grad_w), dtype=Z.dtype, device=Z.device)
    release_storage(params)
    return _solution(problem, model, w, lam, y_scale, o, state, history, stopped)


def _solution(
    problem: Problem,
    model: torch.nn.Module,
    w: torch.Tensor,
    lam: float,
    y_scale: float,
    o: ThetaOptions,
    state: rg.AdversaryState,
    history: list[Round],
    stopped: bool,
) -> Solution:
    """The fitted model with its certificate at (w, λ), its output back in the target's units."""
    cert = rg.certificate(
        problem, model, problem.Z, problem.y / y_scale, w, lam, closed_form=o.closed_form,
        loss_scale=loss_scale(problem, y_scale), ascent_steps=o.ascent_steps, ascent_lr=o.ascent_lr,
        state=state,
    )  # fmt: skip
    rescale_output(model, y_scale)
    return Solution(
        model=model, covariate_weights=w.cpu(), history=history, certificate=cert, stopped=stopped
    )
